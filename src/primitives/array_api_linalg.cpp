// The Array API's linalg functions tenferro lacked: vecdot, cross, matrix_power, matrix_rank,
// composed from catalog primitives (conj, mul, sub, sum, slice, concatenate, matmul, inv,
// svdvals, comparisons), so autodiff, tracing and prepared runs cover them through those.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "primitives/primitive.hpp"
#include "tenferro/finfo.hpp"
#include "tenferro/ops/contract.hpp"
#include "tenferro/ops/creation.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/linalg.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {

namespace {

// Note [Axis of a broadcast pair]: vecdot and cross name their axis in the broadcast shape of
// a and b (rank N = max of the ranks), as the standard does; operand t has it at position
// t.rank() - (N - axis) when that is >= 0. The axis itself does not broadcast: both operands
// must have it with the same size (`size` when given).
struct PairAxis {
  std::int64_t out;   // in [0, N)
  std::int64_t a, b;  // the axis in a and in b
};

PairAxis pair_axis(const Tensor& a, const Tensor& b, std::int64_t axis, const char* op,
                   std::int64_t size = -1) {
  const Tensor in[2] = {a, b};
  if (!a.defined() || !b.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": an input tensor is undefined");
  if (a.dtype() == DType::boolean || b.dtype() == DType::boolean)
    throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": inputs " + detail::describe(in) +
                                              "; expected numeric dtypes (not bool)");
  const std::int64_t n = std::max(a.rank(), b.rank());
  if (axis < -n || axis >= n || n == 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": axis " + std::to_string(axis) +
                    " is out of range for inputs " + detail::describe(in) +
                    "; expected -N <= axis < N for the broadcast rank N = " + std::to_string(n));
  const std::int64_t out = axis < 0 ? axis + n : axis;
  const PairAxis p{out, a.rank() - (n - out), b.rank() - (n - out)};
  const auto size_of = [](const Tensor& t, std::int64_t d) {
    return d < 0 ? std::int64_t{-1} : t.shape()[static_cast<std::size_t>(d)];
  };
  const std::int64_t sa = size_of(a, p.a), sb = size_of(b, p.b);
  if (sa < 0 || sb < 0 || sa != sb || (size >= 0 && sa != size))
    throw Error(ErrorKind::ShapeMismatch,
                std::string(op) + ": inputs " + detail::describe(in) + " along axis " +
                    std::to_string(axis) + "; expected both to have that axis with one size" +
                    (size >= 0 ? " equal to " + std::to_string(size) : std::string()) +
                    " (it does not broadcast)");
  return p;
}

void require_square(const Tensor& x, const char* op) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
  if (x.rank() < 2 || x.size(-1) != x.size(-2))
    throw Error(ErrorKind::ShapeMismatch, std::string(op) + ": input " + dims_to_string(x.shape()) +
                                              " " + std::string(dtype_name(x.dtype())) +
                                              "; expected a batch of square matrices [..., n, n]");
}

}  // namespace

Tensor vecdot(const Tensor& a, const Tensor& b, std::int64_t axis) {
  const PairAxis p = pair_axis(a, b, axis, "vecdot");
  const Tensor prod = conj(a) * b;
  const Tensor s = sum(prod, {p.out});  // sum widens i32 to i64; the result is promote(a, b)
  return s.dtype() == prod.dtype() ? s : cast(s, prod.dtype());
}

Tensor cross(const Tensor& a, const Tensor& b, std::int64_t axis) {
  const PairAxis p = pair_axis(a, b, axis, "cross", 3);
  const auto part = [](const Tensor& t, std::int64_t d, std::int64_t j) {
    return slice(t, d, j, j + 1);
  };
  const Tensor a0 = part(a, p.a, 0), a1 = part(a, p.a, 1), a2 = part(a, p.a, 2);
  const Tensor b0 = part(b, p.b, 0), b1 = part(b, p.b, 1), b2 = part(b, p.b, 2);
  const Tensor parts[3] = {a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0};
  return concatenate(std::span<const Tensor>(parts), p.out);
}

// Note [matrix_power]: binary powering, x^n = product of x^(2^j) over the set bits j of |n|,
// about 2 log2 |n| matmuls; n < 0 powers inv(x). The magnitude is taken in uint64 so that
// n = INT64_MIN does not overflow.
Tensor matrix_power(const Tensor& x, std::int64_t n) {
  require_square(x, "matrix_power");
  if (is_integral(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                "matrix_power: input " + dims_to_string(x.shape()) + " " +
                    std::string(dtype_name(x.dtype())) +
                    "; expected a floating dtype (f32, f64, c64, c128; cast() integers first)");
  if (n == 0)
    return contiguous(broadcast_to(eye(x.size(-1), std::nullopt, 0, x.dtype()), x.shape()));
  std::uint64_t p =
      n < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  Tensor base = n < 0 ? inv(x) : x;
  Tensor result;
  for (;;) {
    if (p & 1) result = result.defined() ? matmul(result, base) : base;
    p >>= 1;
    if (!p) break;
    base = matmul(base, base);
  }
  return n == 1 ? copy(result) : result;  // never x itself (a fresh tensor, as every other n)
}

namespace {

// The checks both forms of matrix_rank share; false for an empty matrix (rank 0, no svd).
bool check_rank_input(const Tensor& x) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, "matrix_rank: the input tensor is undefined");
  if (x.rank() < 2)
    throw Error(ErrorKind::ShapeMismatch, "matrix_rank: input " + dims_to_string(x.shape()) + " " +
                                              std::string(dtype_name(x.dtype())) +
                                              "; expected a batch of matrices [..., m, n]");
  if (is_integral(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch, "matrix_rank: input " + dims_to_string(x.shape()) + " " +
                                              std::string(dtype_name(x.dtype())) +
                                              "; expected a floating dtype (f32, f64, c64, c128)");
  return x.size(-2) > 0 && x.size(-1) > 0;
}

Dims batch_of(const Tensor& x) { return Dims(x.shape().begin(), x.shape().end() - 2); }

// Singular values above rtol * the largest, per matrix; rtol [..., 1] broadcasts on the batch.
Tensor count_above(const Tensor& x, const Tensor& rtol) {
  const Tensor s = svdvals(x);                   // [..., k], descending
  const Tensor tol = slice(s, -1, 0, 1) * rtol;  // rtol * the largest, per matrix
  return count_nonzero(gt(s, tol), {-1});
}

}  // namespace

Tensor matrix_rank(const Tensor& x, double rtol) {
  const bool nonempty = check_rank_input(x);
  if (std::isnan(rtol))
    throw Error(ErrorKind::InvalidArgument, "matrix_rank: rtol is NaN; expected a number");
  if (!nonempty) return zeros(batch_of(x), DType::i64);
  const double r =
      rtol < 0 ? static_cast<double>(std::max(x.size(-2), x.size(-1))) * finfo(x.dtype()).eps
               : rtol;
  return count_above(x, scalar_tensor(r, real_dtype(x.dtype())));
}

Tensor matrix_rank(const Tensor& x, const Tensor& rtol) {
  const bool nonempty = check_rank_input(x);
  if (!rtol.defined()) return matrix_rank(x, kDefaultRankRtol);
  if (is_complex(rtol.dtype()) || rtol.dtype() == DType::boolean)
    throw Error(ErrorKind::DTypeMismatch, "matrix_rank: rtol is " + dims_to_string(rtol.shape()) +
                                              " " + std::string(dtype_name(rtol.dtype())) +
                                              "; expected a real dtype");
  // The batch shape the result has: x's batch broadcast with rtol's shape.
  const Tensor batch_like[2] = {zeros(batch_of(x), DType::boolean),
                                zeros(rtol.shape(), DType::boolean)};
  Dims out_batch;
  try {
    out_batch = broadcast_arrays(batch_like)[0].shape();
  } catch (const Error&) {
    throw Error(ErrorKind::ShapeMismatch, "matrix_rank: rtol " + dims_to_string(rtol.shape()) +
                                              " does not broadcast against the batch shape " +
                                              dims_to_string(batch_of(x)) + " of x " +
                                              dims_to_string(x.shape()));
  }
  // A NaN rtol is InvalidArgument, as in the scalar form; without this check gt(s, NaN) would
  // count nothing and report rank 0, a wrong value without an error. A traced rtol has no values
  // to check: there NaN gives rank 0 (documented; NumPy does the same).
  if (rtol.has_storage() && rtol.numel() > 0 && any(isnan(rtol)).item<bool>())
    throw Error(ErrorKind::InvalidArgument, "matrix_rank: rtol " + dims_to_string(rtol.shape()) +
                                                " " + std::string(dtype_name(rtol.dtype())) +
                                                " holds a NaN; expected numbers");
  if (!nonempty) return zeros(out_batch, DType::i64);
  return count_above(x, unsqueeze(cast(rtol, real_dtype(x.dtype())), -1));
}

}  // namespace tenferro
