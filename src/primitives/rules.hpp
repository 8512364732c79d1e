// Shared pieces of derivative rules.
#pragma once

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// Sums `x` down to `shape` (the reverse of NumPy broadcasting from `shape` to x.shape()):
/// leading extra dims are summed away, dims that are 1 in `shape` are summed with keepdims.
/// Returns x unchanged when the shapes are equal. Lives with the reduction family.
Tensor sum_to_shape(const Tensor& x, std::span<const std::int64_t> shape);

}  // namespace tenferro::detail
