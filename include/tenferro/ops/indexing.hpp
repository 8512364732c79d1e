// Indexing: gather values at integer indices along an axis, scatter-add into an axis, masks,
// one-hot encodings, and the extremum together with its index.
//
//   Tensor i = tenferro::argmax(scores, 1, true);                // [n, 1] i64
//   Tensor best = tenferro::take_along_axis(scores, i, 1);       // [n, 1], differentiable
//   auto [v, k] = tenferro::max_with_indices(scores, 1);         // the same, squeezed
//
// Indices are tensors of any integer dtype, i8 ... i64 or u8 ... u64 (DTypeMismatch otherwise,
// bool included); a negative index counts from the end of the axis, as NumPy (an unsigned index
// is never negative; a u64 index above INT64_MAX is out of range, never wrapped). An index outside
// [-n, n) is InvalidArgument naming the op, the index, its position and the axis size -- every
// index is checked before it is used, and nothing is written to any caller tensor when one fails.
// The axis may be negative (counts from the end).
//
// Autodiff: the gathered values are differentiable in x (the gradient is scattered back with
// scatter_add, summing over repeated indices); scatter_add is differentiable in x and src (its
// adjoint is take_along_axis). Indices never carry gradients. Every op here works eagerly, under
// autodiff, in traced and prepared programs and inside an execution scope.
#pragma once

#include "tenferro/tensor.hpp"

namespace tenferro {

/// NumPy's take_along_axis (PyTorch's gather): out[p] = x[p with p[axis] := indices[p]].
/// indices has x's rank; off the axis its sizes must equal x's or either may be 1 (broadcast);
/// the result has the broadcast shape with indices' size along the axis and x's dtype.
Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis);
/// PyTorch's argument order for take_along_axis.
Tensor gather(const Tensor& x, std::int64_t axis, const Tensor& indices);
/// The slices of x at rank-1 `indices` along `axis` (repeats allowed, any order): the result is
/// x's shape with the axis replaced by indices' length.
Tensor index_select(const Tensor& x, std::int64_t axis, const Tensor& indices);
/// A copy of x with src[p] added at x[p with p[axis] := indices[p]] for every position p of
/// indices. indices and src have one shape, equal to x's off the axis; src has x's dtype (bool
/// is DTypeMismatch). Repeated indices accumulate, in row-major order of the positions (so the
/// result is deterministic, bitwise, for every thread count). Integers wrap on overflow.
Tensor scatter_add(const Tensor& x, std::int64_t axis, const Tensor& indices, const Tensor& src);
/// scatter_add of whole slices: for each k, x[..., indices[k], ...] += src[..., k, ...] along
/// `axis`; indices is rank 1 and src is x's shape with the axis replaced by indices' length.
Tensor index_add(const Tensor& x, std::int64_t axis, const Tensor& indices, const Tensor& src);
/// PyTorch's scatter (overwrite): a copy of x with x[p with p[axis] := indices[p]] = src[p] for
/// every position p of indices. Shapes, dtypes and index checks as scatter_add (bool allowed
/// here); every index is checked before anything is written. Duplicate targets: the LAST write in
/// row-major order of indices' positions wins (deterministic for every thread count; PyTorch
/// leaves it unspecified). Differentiable in x (the cotangent with overwritten positions zeroed)
/// and src (the gathered cotangent at the winning writes, 0 for the losing duplicates).
Tensor scatter(const Tensor& x, std::int64_t axis, const Tensor& indices, const Tensor& src);
/// scatter of one value: x[p with p[axis] := indices[p]] = value (converted to x's dtype, cast()
/// semantics; a complex value into a real x is DTypeMismatch). Differentiable in x.
Tensor scatter(const Tensor& x, std::int64_t axis, const Tensor& indices, Scalar value);

// ---- masks ----
/// x with `value` where the bool `mask` (broadcast to x's shape; it may not enlarge it) is
/// true. Any dtype of x; a non-bool mask is DTypeMismatch. Differentiable in x (0 where filled).
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value);
/// [..., num_classes] with 1 at each index and 0 elsewhere, in `dtype` (default i64), as
/// PyTorch's one_hot. Indices of any integer dtype in [0, num_classes) (InvalidArgument naming the
/// first bad one otherwise). Not differentiable.
Tensor one_hot(const Tensor& indices, std::int64_t num_classes, DType dtype = DType::i64);
/// The coordinates of the non-zero elements (NaN is non-zero) as i64 [count, rank], row-major
/// order (NumPy's argwhere, PyTorch's nonzero). The shape depends on the values: eager only
/// (Unsupported inside trace()).
Tensor nonzero(const Tensor& x);
/// The elements of x where `mask` is true, x and mask broadcast together, as a rank-1 tensor in
/// row-major order. Eager only in the mask (Unsupported when the mask is traced); differentiable
/// in x (a gather).
Tensor masked_select(const Tensor& x, const Tensor& mask);

/// Values and their i64 indices along one axis.
struct ValuesIndices {
  Tensor values;
  Tensor indices;
};
/// The maximum / minimum along `axis` and where it is (PyTorch's torch.max(x, dim)): the index
/// is argmax's / argmin's (the first at ties; NaN wins), and the gradient flows to exactly that
/// element -- unlike max(x, axes), whose gradient is shared among ties. Real dtypes only.
ValuesIndices max_with_indices(const Tensor& x, std::int64_t axis, bool keepdims = false);
ValuesIndices min_with_indices(const Tensor& x, std::int64_t axis, bool keepdims = false);

}  // namespace tenferro
