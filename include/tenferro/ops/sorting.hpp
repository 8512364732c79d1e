// Sorting along one axis, batched over the others: argsort, sort and topk (NumPy / PyTorch).
//
//   Tensor order = tenferro::argsort(scores);                   // i64, ascending along -1
//   auto [v, i] = tenferro::sort(scores, 0, true);              // descending along axis 0
//   auto [best, where] = tenferro::topk(scores, 5);             // the 5 largest along -1
//
// One order for every op, a strict total order on (value, original index):
//   - stable: equal elements keep their original order, in both directions (descending is NOT
//     the reverse of ascending: ties still come lower index first);
//   - NaN: ascending puts every NaN last (NumPy), descending puts them first (PyTorch treats NaN
//     as the largest value); NaNs keep their original order among themselves;
//   - -0.0 == 0.0 (they keep their original order); +-inf sort as the extremes of the numbers;
//   - bool orders false < true; i64 compares exactly (no rounding through double).
// Because the order is total, the result does not depend on the algorithm or the thread count.
//
// Dtypes: bool, every integer dtype, f32, f64. Complex inputs are DTypeMismatch (complex numbers
// are not ordered; sort real(x) or abs(x) instead). The axis may be negative (counts from the end);
// one outside [-rank, rank) is InvalidArgument. A rank-0 tensor is a single element along axis 0 or
// -1 (PyTorch): argsort gives the 0-d index 0, sort gives the value. An empty axis gives empty
// results.
//
// Autodiff: indices are i64 and never carry gradients; values are take_along_axis(x, indices,
// axis), so their gradient is the cotangent permuted back to the original positions (reverse
// and forward mode; second order trivially, the map is piecewise linear). Every op works eagerly,
// under autodiff, in traced and prepared programs and inside an execution scope.
#pragma once

#include <cstdint>

#include "tenferro/ops/indexing.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

/// The i64 indices that sort x along `axis` (shape of x), ascending or descending, stable.
Tensor argsort(const Tensor& x, std::int64_t axis = -1, bool descending = false);
/// The sorted values (x's dtype) and argsort's indices.
ValuesIndices sort(const Tensor& x, std::int64_t axis = -1, bool descending = false);
/// The k largest (largest = true) or k smallest elements along `axis` and their i64 indices:
/// x's shape with the axis replaced by k. They are exactly the first k of sort(x, axis,
/// largest): ties go to the lower index first and NaN counts as the largest (PyTorch). k outside
/// [0, n] for an axis of size n is InvalidArgument naming k and the size; a rank-0 x takes k = 1
/// only (its result is 0-d). `sorted` is accepted for PyTorch's signature, but the results are
/// always in sorted order (a valid answer for sorted = false too). O(n log k) per row.
ValuesIndices topk(const Tensor& x, std::int64_t k, std::int64_t axis = -1, bool largest = true,
                   bool sorted = true);

}  // namespace tenferro
