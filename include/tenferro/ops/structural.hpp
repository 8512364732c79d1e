// Structural operations: reshape, permute, slice, broadcast, copies.
//
// View rules: permute/transpose, slice, broadcast_to, squeeze/unsqueeze always return views that
// share storage (no copy). reshape returns a view when the existing strides can express the new
// shape (always for contiguous inputs), otherwise a contiguous copy. contiguous() copies only
// when the input is not already contiguous. All of these are recorded by autodiff and captured
// by tracing like any other op.
#pragma once

#include <optional>
#include <vector>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// New shape with the same element count; one entry may be -1 (inferred). InvalidArgument for
/// another negative size, a second -1 or a shape whose non-zero sizes multiply beyond INT64_MAX;
/// ShapeMismatch for a different element count (or a -1 that cannot be inferred).
Tensor reshape(const Tensor& x, Dims shape);
/// Reorders dimensions: output dim i is input dim axes[i]; axes is a permutation of 0..rank-1.
/// As in NumPy's transpose, an axis may also be given as a negative number counting from the
/// end (-1 is the last dimension): permute(x, {-1, 0}) on a matrix is its transpose. A list of
/// another length, an axis outside [-rank, rank) or one named twice (also as 1 and -rank+1) is
/// InvalidArgument.
Tensor permute(const Tensor& x, Dims axes);
/// Swaps two dimensions (default: the last two).
Tensor transpose(const Tensor& x, std::int64_t a = -2, std::int64_t b = -1);
/// NumPy's basic slice start:stop:step along `axis`: elements start, start+step, ... before stop.
/// A negative start/stop counts from the end; then, for step > 0, both clamp to [0, size] and
/// the elements run upward below stop; for step < 0 both clamp to [-1, size - 1] and the
/// elements run downward above stop (so slice(x, a, -1, INT64_MIN, -1) reverses axis a). Any
/// int64 start/stop/step is accepted (a step beyond the extent selects just the start element);
/// step 0 is InvalidArgument. A view (negative steps give negative strides).
Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop,
             std::int64_t step = 1);
/// x with the order of elements reversed along each of `axes` (negative counts from the end;
/// empty: every axis), as NumPy's flip. A view; a repeated axis is InvalidArgument.
Tensor flip(const Tensor& x, Dims axes = {});
/// x shifted by `shift` positions along `axis` with wrap-around (NumPy's roll): out[i] =
/// x[(i - shift) mod n]; any int64 shift. A fresh tensor.
Tensor roll(const Tensor& x, std::int64_t shift, std::int64_t axis);
/// NumPy broadcasting of x to `shape` (size-1 or missing leading dims expand; stride 0). A
/// negative dimension or more than INT64_MAX elements is InvalidArgument, sizes that do not
/// broadcast ShapeMismatch. The view may have far more elements than x has bytes; an op that
/// materialises it (copy, add, ...) throws OutOfMemory when the result cannot be allocated.
Tensor broadcast_to(const Tensor& x, Dims shape);
/// Removes a size-1 dimension.
Tensor squeeze(const Tensor& x, std::int64_t axis);
/// Inserts a size-1 dimension at axis (in [-rank-1, rank]).
Tensor unsqueeze(const Tensor& x, std::int64_t axis);
/// x itself when contiguous, else a contiguous copy.
Tensor contiguous(const Tensor& x);
/// Always a fresh contiguous copy.
Tensor copy(const Tensor& x);

// ---- Joining, diagonals, triangles (src/primitives/structural_join.cpp, structural_diag.cpp) ----
// Outputs are fresh contiguous tensors, except diagonal() (and diag() of a matrix), which is a
// view (like NumPy's diagonal).

/// Joins `tensors` along an existing `axis` (negative counts from the end). All inputs must have
/// the same rank (>= 1) and equal sizes on every other axis (ShapeMismatch); an empty list is
/// InvalidArgument. Inputs of different dtypes are cast to their common dtype (promote over all)
/// first.
Tensor concatenate(std::span<const Tensor> tensors, std::int64_t axis = 0);
inline Tensor concatenate(std::initializer_list<Tensor> tensors, std::int64_t axis = 0) {
  return concatenate(std::span<const Tensor>(tensors.begin(), tensors.size()), axis);
}
/// Joins equally shaped `tensors` (cast to their common dtype) along a new axis inserted at `axis`
/// (in [-rank-1, rank]); an empty list is InvalidArgument. Defined as concatenate of unsqueezed
/// inputs, so its derivative is the slices of the cotangent.
Tensor stack(std::span<const Tensor> tensors, std::int64_t axis = 0);
inline Tensor stack(std::initializer_list<Tensor> tensors, std::int64_t axis = 0) {
  return stack(std::span<const Tensor>(tensors.begin(), tensors.size()), axis);
}
/// The diagonal of the plane (axis1, axis2), by default the last two dims (batched over the
/// others, as torch.linalg.diagonal; pass 0, 1 for NumPy's default): with m = size(axis1), n =
/// size(axis2), element i is x[.., i, .., i + offset, ..] for offset >= 0 and
/// x[.., i - offset, .., i, ..] for offset < 0; the diagonal becomes the last axis, of length
/// L = max(0, min(m, n - offset)) (offset >= 0) or max(0, min(m + offset, n)). A view sharing x's
/// storage. Rank < 2, a bad axis or axis1 == axis2 is InvalidArgument.
Tensor diagonal(const Tensor& x, std::int64_t offset = 0, std::int64_t axis1 = -2,
                std::int64_t axis2 = -1);
/// NumPy's diag: a vector (rank 1) gives the square matrix with it on diagonal `offset`
/// (diag_embed), a matrix (rank 2) its diagonal `offset` (diagonal, a view). Any other rank is
/// InvalidArgument (use diagonal / diag_embed for batches).
Tensor diag(const Tensor& x, std::int64_t offset = 0);
/// Square matrices with v's last dim on diagonal `offset` and zeros elsewhere (batched over
/// leading dims): v of shape [..., L] gives [..., L + |offset|, L + |offset|]. Rank 0 is
/// InvalidArgument.
Tensor diag_embed(const Tensor& v, std::int64_t offset = 0);
/// Lower triangle of the last two dims: keeps x[..., i, j] where j <= i + k, zeros elsewhere.
/// Rank < 2 is InvalidArgument.
Tensor tril(const Tensor& x, std::int64_t k = 0);
/// Upper triangle of the last two dims: keeps x[..., i, j] where j >= i + k, zeros elsewhere.
/// Rank < 2 is InvalidArgument.
Tensor triu(const Tensor& x, std::int64_t k = 0);

// ---- The Array API's manipulation functions (src/primitives/array_api_structural.cpp) ----
// Compositions of the views and joins above (so autodiff and tracing cover them); errors name
// the Array API function.

/// x with its axes `source` moved to positions `destination` (NumPy's moveaxis); the other
/// axes keep their relative order. Negative axes count from the end. The lists must have one
/// length and each must name distinct axes in [-rank, rank) (InvalidArgument naming moveaxis).
/// A view (permute).
Tensor moveaxis(const Tensor& x, Dims source, Dims destination);
/// x with a size-1 axis inserted so that it becomes axis `axis` of the result, in
/// [-rank - 1, rank] (InvalidArgument naming expand_dims otherwise). A view.
Tensor expand_dims(const Tensor& x, std::int64_t axis = 0);
/// The tensors broadcast to their common shape (NumPy broadcasting over all of them; ShapeMismatch
/// naming broadcast_arrays and every shape otherwise). Views (stride 0 on broadcast axes), dtypes
/// kept; an empty list gives an empty list.
std::vector<Tensor> broadcast_arrays(std::span<const Tensor> tensors);
inline std::vector<Tensor> broadcast_arrays(std::initializer_list<Tensor> tensors) {
  return broadcast_arrays(std::span<const Tensor>(tensors.begin(), tensors.size()));
}
/// Which axis the first coordinate vector runs along in meshgrid().
enum class MeshIndexing {
  xy,  ///< Cartesian (NumPy's default): for N >= 2 inputs the first two output axes are swapped
  ij,  ///< matrix indexing: output axis i runs along input i
};
/// Coordinate grids from rank-1 `tensors` x_0 .. x_{N-1} of lengths n_i: N tensors of shape
/// (n_0, .., n_{N-1}) (ij) or (n_1, n_0, n_2, ..) (xy), grid i holding x_i's values along its
/// axis. Broadcast views of the inputs (stride 0 elsewhere), dtypes kept. A rank other than 1 is
/// InvalidArgument naming meshgrid (the standard requires 1-D arrays; NumPy would flatten); no
/// inputs give no outputs.
std::vector<Tensor> meshgrid(std::span<const Tensor> tensors,
                             MeshIndexing indexing = MeshIndexing::xy);
inline std::vector<Tensor> meshgrid(std::initializer_list<Tensor> tensors,
                                    MeshIndexing indexing = MeshIndexing::xy) {
  return meshgrid(std::span<const Tensor>(tensors.begin(), tensors.size()), indexing);
}
/// The Array API's concat: concatenate() along `axis`, or, for std::nullopt, of the flattened
/// (row-major) inputs into one rank-1 tensor (then any ranks, 0-d included, may be mixed). Dtypes
/// promote as in concatenate; an empty list is InvalidArgument.
Tensor concat(std::span<const Tensor> tensors, std::optional<std::int64_t> axis = 0);
inline Tensor concat(std::initializer_list<Tensor> tensors, std::optional<std::int64_t> axis = 0) {
  return concat(std::span<const Tensor>(tensors.begin(), tensors.size()), axis);
}

// ---- Repetition (src/primitives/repeat.cpp) ----

/// NumPy's tile: x repeated reps[d] times along each dim d. reps longer than x's rank prepends
/// size-1 dims to x; shorter prepends 1s to reps; reps[d] == 0 gives an empty dim; a negative
/// rep is InvalidArgument. A fresh contiguous tensor of x's dtype; the gradient sums the copies.
Tensor tile(const Tensor& x, Dims reps);
/// PyTorch's repeat_interleave: each element (slice) of x along `axis` repeated `repeats` times
/// in place (x = [a, b], repeats 2 -> [a, a, b, b]). repeats >= 0 (InvalidArgument otherwise).
/// Differentiable in x (a gather; the gradient sums the repeats).
Tensor repeat_interleave(const Tensor& x, std::int64_t repeats, std::int64_t axis);
/// Per-element counts: `repeats` is a tensor of any integer dtype and rank <= 1 with one count per
/// element along `axis` or a single count (ShapeMismatch otherwise; other dtypes DTypeMismatch; a
/// negative count, or a u64 one above INT64_MAX, InvalidArgument naming it). The result's shape
/// depends on the counts' values: eager only in `repeats` (a traced repeats tensor is Unsupported);
/// x may be traced.
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::int64_t axis);

}  // namespace tenferro
