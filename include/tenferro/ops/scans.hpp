// Scans and padding: inclusive prefix sums and products along one axis, and NumPy's pad.
//
//   Tensor c = tenferro::cumsum(x, -1);                         // c[..., k] = x[..., 0..k] summed
//   Tensor p = tenferro::cumprod(x, 0);                         // running products down axis 0
//   Tensor y = tenferro::pad(img, {{0, 0}, {2, 2}, {2, 2}}, tenferro::PadMode::reflect);
//
// dtypes: f32, f64, c64 and c128 keep their dtype; bool and signed integer scans accumulate in
// and return i64, unsigned ones u64 (sum_dtype(), as sum, NumPy and the Array API), wrapping on
// overflow (two's complement); f32 and c64
// scans accumulate in double precision and round each output (as PyTorch's CPU kernels). Each row
// is scanned sequentially, so results are bitwise equal for every thread count. pad keeps every
// dtype. Inputs may have any strides; results are fresh contiguous tensors.
//
// Autodiff (floating inputs; integer tensors carry no gradient): cumsum's reverse rule is the
// reverse (suffix) cumsum of the cotangent. cumprod's rules are exact where x has zeros (one,
// several, first or last in the row): they never divide by x but run the linear recurrence
// s[k] = g[k] + conj(x[k+1]) s[k+1] (an internal primitive whose own rules are recurrences too),
// so derivatives of every order are defined, forward over reverse included. Complex gradients
// follow the conjugate-Wirtinger convention (docs/autodiff.md). pad's reverse rule is a slice
// (constant mode) or the sum of the cotangent back through the index map (reflect, edge); its
// forward rule pads the tangent with 0. Everything here works eagerly, under autodiff, in traced
// and prepared programs and inside an execution scope.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <utility>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// Inclusive prefix sum along `axis` (negative counts from the end): out[.., k, ..] =
/// x[.., 0, ..] + ... + x[.., k, ..], batched over the other axes. A 0-d x accepts axis 0 or -1
/// and is returned as it is (in i64 for bool and integers), as PyTorch; another axis is
/// InvalidArgument. An empty axis gives an empty result. Integer sums wrap.
Tensor cumsum(const Tensor& x, std::int64_t axis);
/// Inclusive prefix product along `axis`, with cumsum's shape, dtype and axis rules. Integer
/// products wrap. Gradients are exact where x contains zeros (see the file comment).
Tensor cumprod(const Tensor& x, std::int64_t axis);

/// The Array API's cumulative_sum / cumulative_prod: cumsum / cumprod of x along `axis`
/// (std::nullopt: allowed only for a rank-1 x, InvalidArgument otherwise), in `dtype` when given
/// (x is cast to it first and the result has exactly that dtype; default: cumsum's dtypes, so
/// bool and signed integers accumulate in i64, unsigned ones in u64). include_initial prepends the
/// empty sum 0 (product 1): the axis grows by one. A 0-d x is InvalidArgument (the standard asks
/// for at least one axis; cumsum itself accepts it). Errors name cumulative_sum / cumulative_prod.
/// Differentiable as cumsum / cumprod (the initial element is a constant).
Tensor cumulative_sum(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt,
                      std::optional<DType> dtype = std::nullopt, bool include_initial = false);
Tensor cumulative_prod(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt,
                       std::optional<DType> dtype = std::nullopt, bool include_initial = false);

/// How pad() fills the border (NumPy's np.pad modes of the same names).
enum class PadMode {
  constant,  ///< every border element is `value`
  reflect,   ///< mirror about the edge element without repeating it: [1 2 3] -> 3 2 | 1 2 3 | 2 1
  edge,      ///< repeat the edge element: [1 2 3] -> 1 1 | 1 2 3 | 3 3
};

/// NumPy's np.pad: x with widths[d].first elements added before and widths[d].second after axis
/// d. `widths` holds one (before, after) pair per axis, or a single pair used for every axis (a 0-d
/// x takes 0 or 1 pairs and is returned as a copy); any other count, or a negative width, is
/// InvalidArgument, as is a padded size beyond INT64_MAX. reflect keeps mirroring when a width
/// exceeds the axis (index i - before folded with period 2 (n - 1)); on an axis of size 1 it
/// repeats the element (NumPy's behaviour). edge and reflect cannot extend an empty axis
/// (InvalidArgument for a non-zero width there, as NumPy); constant can. `value` is used by
/// constant mode only and is converted to x's dtype as cast() converts (2.7 -> 2 for integers,
/// the real part for a real x, non-zero -> true for bool). Every dtype.
Tensor pad(const Tensor& x, std::span<const std::pair<std::int64_t, std::int64_t>> widths,
           PadMode mode = PadMode::constant, Scalar value = 0);
inline Tensor pad(const Tensor& x,
                  std::initializer_list<std::pair<std::int64_t, std::int64_t>> widths,
                  PadMode mode = PadMode::constant, Scalar value = 0) {
  return pad(x,
             std::span<const std::pair<std::int64_t, std::int64_t>>(widths.begin(), widths.size()),
             mode, value);
}

}  // namespace tenferro
