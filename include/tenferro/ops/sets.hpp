// Searching and set functions of the Array API 2023.12: searchsorted and unique_all,
// unique_counts, unique_inverse, unique_values.
//
//   Tensor edges = tenferro::from_vector<double>({0.0, 1.0, 2.0}, {3});
//   Tensor bin = tenferro::searchsorted(edges, x, tenferro::SearchSide::right);  // i64, x's shape
//   auto [values, counts] = tenferro::unique_counts(labels);                    // eager only
//
// **Order.** Both use the order of sort() (sorting.hpp): NaN is larger than every number (NaNs
// last), -0.0 == +0.0, bool false < true, integers compared exactly. Complex values are
// DTypeMismatch for searchsorted (not ordered); unique accepts them and orders them
// lexicographically (real part, then imaginary part; a value with a NaN part counts as NaN).
//
// **searchsorted(x1, x2, side, sorter)**: for each element v of x2 the insertion index i into
// the 1-D x1 (sorted ascending in that order, or made so by `sorter`) such that inserting v before
// x1[i] keeps x1 sorted: side left, the first i with !(x1[i] < v) (x1[i-1] < v <= x1[i]); side
// right, the first i with v < x1[i] (x1[i-1] <= v < x1[i]). A NaN v goes before the first NaN of
// x1 (left) or after the last element (right). The result is i64 with x2's shape (a 0-d x2 gives
// a 0-d result), values in [0, n]. x1 and x2 are compared in promote(x1, x2), except u64 with
// a signed integer (promoted to f64, where values above 2^53 round): those compare exactly.
// `sorter`, if defined, is a 1-D tensor of any integer dtype and x1's length with indices that sort
// x1 (argsort(x1)); the result then indexes the sorted order, as NumPy and the standard say. If x1
// is not sorted the result is unspecified (some index in [0, n], never an error or a crash). Errors
// (naming searchsorted and the shapes/dtypes): x1 not 1-D, a sorter that is not 1-D of x1's length:
// InvalidArgument / ShapeMismatch; complex operands, a sorter that is not of an integer dtype:
// DTypeMismatch; a sorter index outside [0, n), negative ones included (NumPy: "Sorter index out
// of range"; they do not count from the end): InvalidArgument naming searchsorted, the index and
// its position, checked for every entry whenever the op runs (eagerly, traced or prepared). It is
// one primitive (x1, x2 and the sorter its inputs): eager, traced and in prepared programs (the
// output shape is x2's), inside an execution scope; no gradient (an i64 result: autodiff treats
// it as constant, as argsort).
//
// **unique_*(x)**: the distinct values of x, flattened first (row-major), **sorted ascending** in
// the order above (the standard allows any order; tenferro always sorts). Each NaN is distinct
// (every NaN of x is its own value, after the numbers); +0.0 and -0.0 are one value, whose sign
// is that of its first occurrence in x. Results:
//   - values: x's dtype, shape [k] for k distinct values;
//   - indices (unique_all): i64 [k], the flat index of each value's first occurrence in x;
//   - inverse_indices (unique_all, unique_inverse): i64 with x's shape, the position in values
//     of each element of x (values[inverse_indices] == x, NaN aside);
//   - counts (unique_all, unique_counts): i64 [k], the number of occurrences of each value.
// A 0-d x counts as one element (values of shape [1], inverse_indices 0-d); an empty x gives
// empty results. The result shapes depend on the values, so the unique functions run **eagerly
// only**: called on a traced (symbolic) tensor they throw Error{Unsupported} saying so. values
// is x gathered at `indices` (take_along_axis), so under autodiff a gradient reaches those first
// occurrences; the index and count results are i64 and carry none. An undefined x is
// InvalidArgument.
#pragma once

#include <cstdint>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// Which side searchsorted takes among equal elements.
enum class SearchSide : std::uint8_t {
  left,   // the first suitable position: x1[i-1] < v <= x1[i]
  right,  // the last suitable position: x1[i-1] <= v < x1[i]
};

/// i64 insertion indices of x2's elements into the 1-D sorted x1 (see the file comment).
Tensor searchsorted(const Tensor& x1, const Tensor& x2, SearchSide side = SearchSide::left,
                    const Tensor& sorter = {});

/// unique_all's results (the standard's UniqueAllResult).
struct UniqueAllResult {
  Tensor values, indices, inverse_indices, counts;
};
/// unique_counts's results.
struct UniqueCountsResult {
  Tensor values, counts;
};
/// unique_inverse's results.
struct UniqueInverseResult {
  Tensor values, inverse_indices;
};

/// The sorted distinct values of x, the first occurrences, the inverse map and the counts.
UniqueAllResult unique_all(const Tensor& x);
/// The sorted distinct values of x and how often each occurs.
UniqueCountsResult unique_counts(const Tensor& x);
/// The sorted distinct values of x and, for each element of x, its position among them.
UniqueInverseResult unique_inverse(const Tensor& x);
/// The sorted distinct values of x.
Tensor unique_values(const Tensor& x);

}  // namespace tenferro
