// Helpers of the linear-algebra derivative rules (linalg_rules.hpp).
#include "primitives/linalg_rules.hpp"

#include <limits>
#include <vector>

namespace tenferro::detail::linalg_rules {

Tensor mH(const Tensor& x) { return conj(transpose(x)); }

Tensor re(const Tensor& z) { return is_complex(z.dtype()) ? (z + conj(z)) * 0.5 : z; }

Tensor i_im(const Tensor& z) { return (z - conj(z)) * 0.5; }

Tensor real_of(const Tensor& z) { return cast(z, real_dtype(z.dtype())); }

namespace {
double tiny_of(DType d) {
  return is_double_precision(d) ? std::numeric_limits<double>::min()
                                : static_cast<double>(std::numeric_limits<float>::min());
}
}  // namespace

// Note [Masked diagonal]: the diagonal of F is 0 by definition, not through d = x_i - x_i = 0.
// Computed as d / (d^2 + c) it would have the value 0 but the derivative 1 / c = 1 / (eps
// scale^2) in d; reverse mode then sends two huge opposite cotangents (from x_j and x_i) into the
// same x_i, which cancel only up to rounding and swallow the O(1) terms: grad(grad(f)) through
// svd/eigh vectors came out O(1) wrong (forward mode's tangent dx_i - dx_i is exactly 0, so hvp
// was right). where() gives the diagonal no dependence on x at all.
//
// The broadened 1 / d as (d / s) / ((d / s)^2 + eps) / s with s = max |x| (zeros: 1): written
// as d / (d^2 + eps s^2) the squares left the double range for values beyond ~1e154 or below
// ~1e-154 (1e19 / 1e-19 in f32), and the eigh/svd vector derivatives came out 0 or garbage
// (|x| ~ 1e160: d^2 = inf, F = 0). The value is the same function of x.
namespace {
Tensor unit_of(const Tensor& x) {  // max |x| over the last axis, keepdim; 1 where it is 0
  const Tensor s = max(abs(x), {-1}, true);
  return where(gt(s, Scalar(0.0)), s, scalar_tensor(1.0, s.dtype()));
}
}  // namespace

Tensor inverse_gaps(const Tensor& x, double eps) {
  const Tensor unit = unsqueeze(unit_of(x), -1);
  const Tensor d = (unsqueeze(x, -2) - unsqueeze(x, -1)) / unit;  // d[i, j] = (x[j] - x[i]) / s
  const std::int64_t n = x.shape().back();
  const Tensor off = logical_not(identity_like(n, DType::boolean, {}));
  const Tensor zero = scalar_tensor(0.0, x.dtype()), one = scalar_tensor(1.0, x.dtype());
  const Tensor denominator = where(off, (square(d) + eps) * unit + tiny_of(x.dtype()), one);
  return where(off, d / denominator, zero);
}

Tensor inverse_sums(const Tensor& x, double eps) {
  const Tensor unit = unsqueeze(unit_of(x), -1);
  const Tensor d = (unsqueeze(x, -2) + unsqueeze(x, -1)) / unit;
  return d / ((square(d) + eps) * unit + tiny_of(x.dtype()));
}

Tensor broadened_inverse(const Tensor& s, double eps) {
  const Tensor unit = unit_of(s);
  const Tensor u = s / unit;
  return u / ((square(u) + eps) * unit + tiny_of(s.dtype()));
}

Tensor hermitian_from_triangle(const Tensor& x, bool lower) {
  const Tensor strict = lower ? tril(x, -1) : triu(x, 1);
  return strict + mH(strict) + diag_embed(re(diagonal(x)));
}

Tensor triangle_cotangent(const Tensor& g, bool lower) {
  const Tensor both = g + mH(g);
  return (lower ? tril(both, -1) : triu(both, 1)) + diag_embed(re(diagonal(g)));
}

Tensor read_triangle(const Tensor& x, bool upper, bool unit_diagonal) {
  if (upper) return triu(x, unit_diagonal ? 1 : 0);
  return tril(x, unit_diagonal ? -1 : 0);
}

Tensor adjugate(const Tensor& a) {
  const std::int64_t n = a.shape().back();
  const SvdResult r = svd(a);
  Dims batch(a.shape().begin(), a.shape().end() - 2);
  // others[i] = prod_{j != i} s_j, without division (prod's rule is exact at zeros too).
  const Tensor eye = identity_like(n, real_dtype(a.dtype()), batch);
  const Tensor others = prod(where(eye, scalar_tensor(1.0, r.S.dtype()), unsqueeze(r.S, -2)), {-1});
  const Tensor phase = slogdet(r.U).sign * slogdet(r.Vh).sign;  // det of unitary factors
  return unsqueeze(unsqueeze(phase, -1), -1) * matmul(mH(r.Vh) * unsqueeze(others, -2), mH(r.U));
}

Tensor identity_like(std::int64_t n, DType dtype, Dims batch) {
  std::vector<double> v(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i * n + i)] = 1.0;
  Tensor eye = cast(from_vector(v, {n, n}), dtype);
  batch.push_back(n);
  batch.push_back(n);
  return broadcast_to(eye, std::move(batch));
}

}  // namespace tenferro::detail::linalg_rules
