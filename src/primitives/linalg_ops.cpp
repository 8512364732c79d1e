// The public linear-algebra ops (include/tenferro/ops/linalg.hpp): argument checks, dtype
// promotion and batch broadcasting, then the primitives of linalg_prims.hpp or compositions of
// public ops (so autodiff and tracing need nothing extra).
#include <cmath>
#include <optional>
#include <string>

#include "krylov/truncated.hpp"
#include "primitives/linalg_prims.hpp"
#include "primitives/linalg_rules.hpp"
#include "tenferro/autodiff.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

void require_defined(const char* op, std::initializer_list<Tensor> in) {
  for (const Tensor& t : in)
    if (!t.defined())
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": an input tensor is undefined");
  // Linear algebra is floating only; composite ops (norms) would otherwise reach integer sums.
  for (const Tensor& t : in)
    if (is_integral(t.dtype()))
      throw Error(ErrorKind::DTypeMismatch,
                  std::string(op) + ": got an input of dtype " +
                      std::string(dtype_name(t.dtype())) +
                      "; expected floating dtypes (f32, f64, c64, c128); cast() it first");
}

void check_matrices(const char* op, const Tensor& a, bool square) {
  require_defined(op, {a});
  require_matrices(op, std::span<const Tensor>(&a, 1), square);
}

Dims batch_of(const Tensor& t) { return Dims(t.shape().begin(), t.shape().end() - 2); }

// NumPy broadcast of two batch shapes.
Dims broadcast_batch(const char* op, const Tensor& a, const Tensor& b) {
  const Dims x = batch_of(a), y = batch_of(b);
  const std::size_t r = std::max(x.size(), y.size());
  Dims out(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    const I dx = i < r - x.size() ? 1 : x[i - (r - x.size())];
    const I dy = i < r - y.size() ? 1 : y[i - (r - y.size())];
    if (dx != dy && dx != 1 && dy != 1) {
      const Tensor in[] = {a, b};
      throw Error(ErrorKind::ShapeMismatch,
                  std::string(op) + ": batch dimensions do not broadcast, got " + describe(in));
    }
    out[i] = dx == 1 ? dy : dx;
  }
  return out;
}

Tensor broadcast_batch_to(const Tensor& t, const Dims& batch) {
  Dims shape = batch;
  shape.push_back(t.shape()[t.rank() - 2]);
  shape.push_back(t.shape()[t.rank() - 1]);
  return shape == t.shape() ? t : broadcast_to(t, shape);
}

// b is a vector of right-hand sides when it is rank 1 or a's shape without its last dim.
bool is_vector_rhs(const Tensor& a, const Tensor& b) {
  if (b.rank() == 1) return true;
  return b.rank() == a.rank() - 1 &&
         std::equal(b.shape().begin(), b.shape().end(), a.shape().begin());
}

// Common dtype, broadcast batch dims, then the two-operand primitive.
Tensor bind_pair(const Primitive& p, const char* op, const Tensor& a, const Tensor& b) {
  const DType dt = promote(a.dtype(), b.dtype());
  const Tensor a1 = cast(a, dt), b1 = cast(b, dt);
  const Dims batch = broadcast_batch(op, a1, b1);
  return bind1(p, {broadcast_batch_to(a1, batch), broadcast_batch_to(b1, batch)});
}

// The degeneracy broadening for `dt`: an explicit non-negative eps, else the dtype's default.
double resolve_eps(const char* op, DType dt, double eps) {
  if (std::isnan(eps) || std::isinf(eps))
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) +
                    ": degeneracy_eps must be finite (negative: the dtype's default), got " +
                    (std::isnan(eps) ? std::string("NaN") : std::string(eps > 0 ? "inf" : "-inf")));
  if (eps >= 0) return eps;
  return is_double_precision(dt) ? kDegeneracyEpsDouble : kDegeneracyEpsSingle;
}

// The number of singular values to keep (svd_truncated): Note in linalg.hpp.
I truncation_rank(const Tensor& S, I max_rank, double cutoff) {
  const I k = S.shape().back();
  I rank = max_rank > 0 ? std::min(k, max_rank) : k;
  if (cutoff <= 0 || k == 0) return rank;
  if (!S.has_storage())
    throw Error(ErrorKind::Unsupported,
                "svd_truncated: cutoff " + format_double(cutoff) +
                    " makes the rank depend on the values, which a traced program cannot do; "
                    "inside trace() pass cutoff = 0 and bound the rank with max_rank");
  // S is the svd primitive's own output: contiguous, real.
  const I count = S.numel() / k;
  auto value = [&](I i) {
    return S.dtype() == DType::f32 ? static_cast<double>(static_cast<const float*>(S.data_ptr())[i])
                                   : static_cast<const double*>(S.data_ptr())[i];
  };
  I keep = 1;
  for (I b = 0; b < count; ++b) {
    I c = 0;
    while (c < k && value(b * k + c) > cutoff * value(b * k)) ++c;
    keep = std::max(keep, c);
  }
  return std::min(rank, keep);
}

}  // namespace
}  // namespace detail

using detail::bind;
using detail::bind1;
using detail::linalg_rules::mH;

SvdResult svd(const Tensor& a, const SvdOptions& options) {
  detail::require_defined("svd", {a});
  auto r = bind(detail::SvdPrim(options.full_matrices, true,
                                detail::resolve_eps("svd", a.dtype(), options.degeneracy_eps)),
                {&a, 1});
  return {std::move(r[0]), std::move(r[1]), std::move(r[2])};
}
SvdResult svd(const Tensor& a, bool full_matrices) {
  return svd(a, SvdOptions{full_matrices, kDefaultDegeneracyEps});
}

// Note [Values-only primal]: svdvals and eigvalsh always run the values-only driver, also when
// the tape records them, so a call returns the same bits whether or not it is differentiated (the
// full decomposition's values differ from the values-only driver's in the last bits). The reverse
// rule computes the vectors it needs in the backward pass (SvdPrim/EighPrim::vjp): under autodiff
// that is one values-only decomposition more than PyTorch's (which takes the values of the full
// one), the price of bitwise-identical values.
Tensor svdvals(const Tensor& a) {
  detail::require_defined("svdvals", {a});
  return bind1(detail::SvdPrim(false, false,
                               detail::resolve_eps("svdvals", a.dtype(), kDefaultDegeneracyEps)),
               {a});
}

SvdResult svd_truncated(const Tensor& a, std::int64_t max_rank, double cutoff,
                        double degeneracy_eps) {
  detail::check_matrices("svd_truncated", a, false);
  if (!(cutoff >= 0) || !std::isfinite(cutoff))
    throw Error(ErrorKind::InvalidArgument, "svd_truncated: cutoff must be finite and >= 0, got " +
                                                detail::format_double(cutoff));
  // Note [svd_truncated by svds]: the leading triplets alone when no derivative can be asked for.
  std::optional<SvdResult> top = detail::truncated_by_svds(a, max_rank);
  SvdResult r = top ? std::move(*top) : svd(a, SvdOptions{false, degeneracy_eps});
  const std::int64_t rank = detail::truncation_rank(r.S, max_rank, cutoff);
  if (rank == r.S.shape().back()) return r;
  return {slice(r.U, -1, 0, rank), slice(r.S, -1, 0, rank), slice(r.Vh, -2, 0, rank)};
}

QrResult qr(const Tensor& a, QrMode mode) {
  detail::require_defined("qr", {a});
  auto r = bind(detail::QrPrim(mode == QrMode::complete), {&a, 1});
  return {std::move(r[0]), std::move(r[1])};
}

EighResult eigh(const Tensor& a, const EighOptions& options) {
  detail::require_defined("eigh", {a});
  auto r = bind(detail::EighPrim(options.uplo == Uplo::lower, true,
                                 detail::resolve_eps("eigh", a.dtype(), options.degeneracy_eps)),
                {&a, 1});
  return {std::move(r[0]), std::move(r[1])};
}
EighResult eigh(const Tensor& a, Uplo uplo) {
  return eigh(a, EighOptions{uplo, kDefaultDegeneracyEps});
}
Tensor eigvalsh(const Tensor& a, Uplo uplo) {
  detail::require_defined("eigvalsh", {a});  // Note [Values-only primal]
  return bind1(detail::EighPrim(uplo == Uplo::lower, false,
                                detail::resolve_eps("eigvalsh", a.dtype(), kDefaultDegeneracyEps)),
               {a});
}

Tensor cholesky(const Tensor& a, bool upper) {
  detail::check_matrices("cholesky", a, true);
  // The upper triangle of a is the lower triangle of a^H (same Hermitian matrix); U = L^H.
  if (upper) return mH(bind1(detail::CholeskyPrim(), {mH(a)}));
  return bind1(detail::CholeskyPrim(), a);
}

Tensor solve(const Tensor& a, const Tensor& b) {
  detail::require_defined("solve", {a, b});
  detail::check_matrices("solve", a, true);
  if (b.rank() < 1)
    throw Error(ErrorKind::ShapeMismatch, "solve: b must be [..., n] or [..., n, r], got a " +
                                              dims_to_string(b.shape()) + " tensor");
  const bool vec = detail::is_vector_rhs(a, b);
  const Tensor B = vec ? unsqueeze(b, -1) : b;
  const Tensor x = detail::bind_pair(detail::SolvePrim(), "solve", a, B);
  return vec ? squeeze(x, -1) : x;
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool left,
                        bool unit_diagonal) {
  detail::require_defined("triangular_solve", {a, b});
  detail::check_matrices("triangular_solve", a, true);
  detail::check_matrices("triangular_solve", b, false);
  return detail::bind_pair(detail::TriangularSolvePrim(upper, left, unit_diagonal),
                           "triangular_solve", a, b);
}

Tensor lstsq(const Tensor& a, const Tensor& b) {
  detail::require_defined("lstsq", {a, b});
  detail::check_matrices("lstsq", a, false);
  if (b.rank() < 1)
    throw Error(ErrorKind::ShapeMismatch, "lstsq: b must be [..., m] or [..., m, r], got a " +
                                              dims_to_string(b.shape()) + " tensor");
  const bool vec = detail::is_vector_rhs(a, b);
  Tensor B = vec ? unsqueeze(b, -1) : b;
  const std::int64_t m = a.shape()[a.rank() - 2], n = a.shape()[a.rank() - 1];
  if (B.shape()[B.rank() - 2] != m)
    throw Error(ErrorKind::ShapeMismatch,
                "lstsq: b must have as many rows as a (a [..., m, n], b [..., m, r]), got a " +
                    dims_to_string(a.shape()) + " and b " + dims_to_string(b.shape()));
  const DType dt = promote(a.dtype(), b.dtype());
  const Tensor A = cast(a, dt);
  B = cast(B, dt);
  Tensor x;
  if (m >= n) {  // min |a x - b|: x = R^-1 Q^H b
    QrResult f = qr(A);
    x = triangular_solve(f.R, matmul(mH(f.Q), B), /*upper=*/true);
  } else {  // minimum norm: a^H = Q R, a = R^H Q^H, x = Q R^-H b
    QrResult f = qr(mH(A));
    x = matmul(f.Q, triangular_solve(mH(f.R), B, /*upper=*/false));
  }
  return vec ? squeeze(x, -1) : x;
}

Tensor inv(const Tensor& a) {
  detail::check_matrices("inv", a, true);
  const std::int64_t n = a.shape()[a.rank() - 1];
  const Tensor eye = detail::linalg_rules::identity_like(n, a.dtype(), detail::batch_of(a));
  try {
    return bind1(detail::SolvePrim(), {a, eye});
  } catch (const Error& e) {
    // inv is solve(a, I): the kernel's message opens with "solve: "; the caller called inv.
    const std::string& msg = e.message();
    if (!msg.starts_with("solve: ")) throw;
    throw Error(e.kind(), "inv: " + msg.substr(7));
  }
}

SlogdetResult slogdet(const Tensor& a) {
  detail::require_defined("slogdet", {a});
  auto r = bind(detail::SlogdetPrim(), {&a, 1});
  return {std::move(r[0]), std::move(r[1])};
}

Tensor det(const Tensor& a) {
  detail::check_matrices("det", a, true);
  return bind1(detail::DetPrim(), a);
}

Tensor matrix_norm(const Tensor& a, MatrixNormOrd ord, bool keepdims) {
  detail::check_matrices("matrix_norm", a, false);
  if (ord == MatrixNormOrd::fro) return norm(a, {-2, -1}, keepdims);
  const std::int64_t k = std::min(a.shape()[a.rank() - 2], a.shape()[a.rank() - 1]);
  Tensor r;
  if (k == 0) {
    r = zeros(detail::batch_of(a), real_dtype(a.dtype()));
  } else {
    const Tensor s = svdvals(a);
    r = ord == MatrixNormOrd::nuc ? sum(s, {-1}) : squeeze(slice(s, -1, 0, 1), -1);
  }
  return keepdims ? unsqueeze(unsqueeze(r, -1), -1) : r;
}

Tensor vector_norm(const Tensor& x, double ord, Dims axes, bool keepdims) {
  detail::require_defined("vector_norm", {x});
  if (std::isnan(ord)) throw Error(ErrorKind::InvalidArgument, "vector_norm: ord must not be NaN");
  detail::check_axes(x, axes, "vector_norm");  // a bad axis under this name, not norm's or max's
  if (ord == 2.0) return norm(x, std::move(axes), keepdims);
  const Tensor ax = abs(x);
  if (ord == INFINITY) return max(ax, std::move(axes), keepdims);
  if (ord == -INFINITY) return min(ax, std::move(axes), keepdims);
  if (ord == 0.0) return cast(count_nonzero(ax, std::move(axes), keepdims), ax.dtype());
  if (ord == 1.0) return sum(ax, std::move(axes), keepdims);
  // Note [Scaled p-norms]: |x|^p leaves the dtype's range long before the norm does (f64
  // vector_norm([1e200, 1e200], 3) was inf, of [1e-200, 1e-200] 0; f32 from |x| ~ 1e13 with
  // p = 3), so |x| is divided by a scale m of its slice first and the result multiplied back:
  // ||x||_p = m ||x / m||_p exactly (the norm is 1-homogeneous). m = max |x| for p > 0 and
  // min |x| for p < 0, so every ratio's power is <= 1 and the largest is 1: nothing overflows,
  // and what underflows is negligible beside that 1. m is a constant of the derivative
  // (detach): with m held fixed, m ||x / m||_p has the same derivatives as ||x||_p, at every
  // order. Where m is 0, Inf or NaN (a zero element for p < 0, an Inf or NaN element) the scale
  // is 1 and the formula below meets those values as before; an empty slice is not scaled (max
  // has no identity).
  Tensor scale;
  Tensor as = ax;
  if (ax.numel() > 0) {
    const Tensor m = detach(ord > 0.0 ? max(ax, axes, true) : min(ax, axes, true));
    scale = where(logical_and(gt(m, 0.0), isfinite(m)), m, scalar_tensor(1.0, ax.dtype()));
    as = ax / scale;
  }
  // For p < 1, |x|^p has an infinite derivative at x = 0: a zero element takes the constant 0^p
  // (0, or inf for p < 0) with gradient 0, as PyTorch, and the power runs on |x| = 1 there, so
  // no 0 * inf reaches the gradient (it was NaN at a zero element, also of an all-zero slice).
  // A ratio that underflowed to 0 counts as a zero element.
  Tensor terms;
  if (ord < 1.0) {
    const Tensor at_zero = eq(as, 0.0);
    terms = where(at_zero, scalar_tensor(ord > 0.0 ? 0.0 : INFINITY, ax.dtype()),
                  pow(where(at_zero, scalar_tensor(1.0, ax.dtype()), as), ord));
  } else {
    terms = pow(as, ord);
  }
  const Tensor s = sum(terms, std::move(axes), keepdims);
  const auto rescale = [&](const Tensor& r) {
    if (!scale.defined()) return r;
    return r * (keepdims ? scale : reshape(scale, r.shape()));
  };
  // p < 0: s is in (0, inf] (inf when an element is 0: the norm is 0), or 0 for an empty slice,
  // whose norm 0^(1/p) is inf (NumPy).
  if (ord < 0.0) return rescale(pow(s, 1.0 / ord));
  // (sum |x|^p)^(1/p) has an infinite derivative at s = 0 times a zero one: the two wheres keep
  // the gradient of an all-zero slice 0 (as for ord 1, 2, inf and in PyTorch) instead of NaN.
  // ne, not gt: a NaN element makes s NaN, and the norm NaN (gt(NaN, 0) is false, and the
  // norm of [NaN, 5, 6] of order 3 was 0).
  const Tensor nonzero = ne(s, 0.0);
  const Tensor one = scalar_tensor(1.0, s.dtype()), zero = scalar_tensor(0.0, s.dtype());
  return rescale(where(nonzero, pow(where(nonzero, s, one), 1.0 / ord), zero));
}

}  // namespace tenferro
