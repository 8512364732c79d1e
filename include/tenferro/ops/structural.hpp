// Structural operations: reshape, permute, slice, broadcast, copies.
//
// View rules: permute/transpose, slice, broadcast_to, squeeze/unsqueeze always return views that
// share storage (no copy). reshape returns a view when the existing strides can express the new
// shape (always for contiguous inputs), otherwise a contiguous copy. contiguous() copies only
// when the input is not already contiguous. All of these are recorded by autodiff and captured
// by tracing like any other op.
#pragma once

#include "tenferro/tensor.hpp"

namespace tenferro {

/// New shape with the same element count; one entry may be -1 (inferred).
Tensor reshape(const Tensor& x, Dims shape);
/// Reorders dimensions: output dim i is input dim axes[i]; axes is a permutation of 0..rank-1.
Tensor permute(const Tensor& x, Dims axes);
/// Swaps two dimensions (default: the last two).
Tensor transpose(const Tensor& x, std::int64_t a = -2, std::int64_t b = -1);
/// Elements start, start+step, ... below stop along axis (step > 0; start/stop clamped to
/// [0, size] after adding size to negative values, as in NumPy).
Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop,
             std::int64_t step = 1);
/// NumPy broadcasting of x to `shape` (size-1 or missing leading dims expand; stride 0).
Tensor broadcast_to(const Tensor& x, Dims shape);
/// Removes a size-1 dimension.
Tensor squeeze(const Tensor& x, std::int64_t axis);
/// Inserts a size-1 dimension at axis (in [-rank-1, rank]).
Tensor unsqueeze(const Tensor& x, std::int64_t axis);
/// x itself when contiguous, else a contiguous copy.
Tensor contiguous(const Tensor& x);
/// Always a fresh contiguous copy.
Tensor copy(const Tensor& x);

}  // namespace tenferro
