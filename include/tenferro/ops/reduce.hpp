// Reductions: sum, prod, mean, var, std, max, min, sum_squares, norm, any, all, count_nonzero over
// any set of axes; argmax and argmin along one axis.
//
// Dtypes: sum and prod of bool and signed integer tensors accumulate and return i64, of unsigned
// ones u64 (sum_dtype(), the Array API's rule; wrapping on overflow); mean, sum_squares and norm
// convert them to f64 first; max and min keep the dtype; any and all return bool, count_nonzero and
// argmax/argmin i64.
//
// Axes: each entry may be negative (counts from the end); duplicates (after normalisation) throw
// InvalidArgument; an empty axis list means *all* axes (PyTorch's convention), so `sum(x)` and
// `sum(x, {})` both reduce everything. keepdims keeps each reduced axis as size 1.
//
// Note [Deterministic reductions]: the order in which elements are combined depends only on the
// input's shape, strides and the axis set -- never on the thread budget or on how the runtime
// chunks a parallel loop. Each reduced run of n elements is cut into fixed blocks of 32768
// elements, block partials combined pairwise in index order; the blocks are what the threads
// share out, so a full reduction of a large tensor uses every thread. Inside a block:
//  - contiguous f32/f64 sum and mean (the SIMD loop, src/cpu/kernels/simd_sum.cpp): L lanes of
//    128 bytes (32 f32, 16 f64); lane j sums elements j, j+L, j+2L, ... of the first n - n%L,
//    pairwise over rows of L elements (leaves of <= 16 rows added in order, halves of rows/2
//    and the rest added); the lanes are then combined by a fixed tree (lane k += lane k+w for
//    w = L/2, ..., 1) and the last n%L elements added in order. The order is written in lanes,
//    not vectors, so AVX-512, AVX2 and SSE machines give the same bits;
//  - every other reduced run (strided, complex, prod, max/min, sum_squares/norm): pairwise with
//    16 interleaved accumulators for 4-byte accumulators, 8 otherwise, over leaves of <= 16
//    accumulators' worth, halves combined recursively.
// When the reduced axis is outer to a contiguous kept axis, whole rows are accumulated (leaves
// of 16 rows, pairwise above). So results are bitwise identical for budgets 1, 2 and 4, and the
// rounding error of sum/mean is O(log2(n) * eps * sum|x|) (plus a leaf term of ~16 eps), not
// O(n * eps). Accumulation is in the input's own precision (f32 sums in f32), as in NumPy and
// PyTorch. Results may differ in the last bits between layouts of the same values (e.g. a tensor
// and its transposed copy).
//
// Reducing an axis of size 0: sum and sum_squares give 0, prod gives 1, norm gives 0, mean gives
// NaN (0/0, as NumPy and PyTorch), max and min throw InvalidArgument (no identity element).
// max/min propagate NaN: a run containing NaN reduces to NaN.
//
// Autodiff (complex AD follows PyTorch's conjugate-Wirtinger convention: for a real loss L, the
// gradient of a complex input z is dL/dRe(z) + i dL/dIm(z); a vjp of a holomorphic map multiplies
// the cotangent by the *conjugate* derivative):
//  - sum: the cotangent broadcast back over the reduced axes; mean: the same divided by N.
//  - prod: ct * conj(product of the other elements), computed without division, so inputs with
//    zeros get exact gradients (and exact second derivatives: the derivative of the product of
//    the others is a dual-number sweep, again without division).
//  - max/min: the cotangent is split evenly among the elements that attain the extremum (ties
//    share it, like PyTorch's amax/amin); elements that do not attain it get 0 (so does every
//    element when the extremum is NaN).
//  - sum_squares: 2 * x * ct (ct is real); norm: x * ct / norm, and 0 where norm == 0 (as PyTorch).
// Every rule is written with differentiable ops, so second derivatives (hvp) work for all
// reductions (tests/autodiff/autodiff_reduce_second_order_test.cpp).
#pragma once

#include "tenferro/tensor.hpp"

namespace tenferro {

/// Sum over `axes` (all when empty). Output dtype = input dtype.
Tensor sum(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Product over `axes` (all when empty). Empty product is 1.
Tensor prod(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Arithmetic mean over `axes` (all when empty). Mean over zero elements is NaN.
Tensor mean(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Maximum over `axes` (all when empty). Real dtypes only (complex: DTypeMismatch); a reduced
/// axis of size 0 throws InvalidArgument; NaN propagates.
Tensor max(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Minimum over `axes`; same contract as max().
Tensor min(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Sum of |x|^2 over `axes` (all when empty). Output dtype is the real dtype of the input
/// (f32 for c64, f64 for c128).
Tensor sum_squares(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Frobenius / 2-norm: sqrt(sum_squares(x, axes, keepdims)). Real output dtype.
Tensor norm(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// True where some (any) / every (all) element over `axes` is non-zero (complex: either part;
/// NaN is non-zero). Any dtype, bool result; any of nothing is false, all of nothing is true.
/// Not differentiable.
Tensor any(const Tensor& x, Dims axes = {}, bool keepdims = false);
Tensor all(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Number of non-zero elements over `axes`, as i64.
Tensor count_nonzero(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// Variance over `axes` (all when empty): sum(|x - mean(x, axes)|^2) / (N - correction), N the
/// number of elements reduced (the Array API's var; correction = 1 is the unbiased estimate,
/// NumPy's ddof, PyTorch's correction). Real and complex inputs (complex: the mean of squared
/// moduli, a real result of the input's precision); bool and integers compute in f64. NaN when
/// N - correction <= 0 (the standard's rule, also for N = 0; NumPy instead divides by
/// max(N - correction, 0) and gives inf for non-constant data); NaN in x propagates. A negative
/// correction is allowed (NumPy), NaN or an infinite one is InvalidArgument; bad or repeated
/// axes are InvalidArgument naming var. Note the argument order: (axes, correction, keepdims) --
/// `var(x, {0}, true)` would mean correction 1. A composition of mean, sub and sum_squares, so
/// its derivatives (2 (x - mean) / (N - correction), conjugate-Wirtinger for complex) exist at
/// every order and it traces like any op.
Tensor var(const Tensor& x, Dims axes = {}, double correction = 0.0, bool keepdims = false);
/// Standard deviation: sqrt(var(x, axes, correction, keepdims)), same rules. Its gradient at a
/// zero deviation (constant data) is NaN (0 / 0), as PyTorch's.
Tensor std(const Tensor& x, Dims axes = {}, double correction = 0.0, bool keepdims = false);
/// log(sum(exp(x))) over `axes` (all when empty), computed stably (shifted by the maximum, so
/// exp never overflows; all -inf gives -inf, +inf gives inf, NaN propagates). Real dtypes;
/// bool and integers compute in f64. An empty reduction is InvalidArgument (as max). The
/// gradient is softmax(x), at every order.
Tensor logsumexp(const Tensor& x, Dims axes = {}, bool keepdims = false);
/// log_softmax is (x - m) - log(sum(exp(x - m))) with m the maximum along `axis` (0 where it is
/// not finite), softmax its exp: numerically stable for any magnitudes (x - logsumexp(x) would
/// round m + log(s) to m first: softmax of [1e16, 1e16] was [1, 1]). Real dtypes (integers in f64).
Tensor softmax(const Tensor& x, std::int64_t axis);
Tensor log_softmax(const Tensor& x, std::int64_t axis);
/// Index (i64) of the largest / smallest element along `axis` (negative counts from the end):
/// the first one at ties; a NaN counts as both largest and smallest (the first NaN wins), as
/// NumPy and PyTorch. Real dtypes only (complex: DTypeMismatch); an empty axis is
/// InvalidArgument. Not differentiable.
Tensor argmax(const Tensor& x, std::int64_t axis, bool keepdims = false);
Tensor argmin(const Tensor& x, std::int64_t axis, bool keepdims = false);
/// Index into the row-major flattened tensor (rank-0 result); an empty tensor is InvalidArgument.
Tensor argmax(const Tensor& x);
Tensor argmin(const Tensor& x);

}  // namespace tenferro
