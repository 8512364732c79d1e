// Built-in reduction kernels (Note [Deterministic reductions] in tenferro/ops/reduce.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "cpu/admission.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

enum class ReduceKind : std::uint8_t { sum, prod, mean, max, min, sum_squares, norm, any, all };

/// Elements per fixed block of one reduced run; block partials are combined pairwise. A constant,
/// never derived from the thread budget: that is what makes results budget-independent.
inline constexpr std::int64_t kReduceBlock = 32768;

/// The iteration space of one reduction over one input layout (shape and strides, never data):
/// kept dims in logical order and reduced dims by decreasing |stride|, size-1 dims dropped and
/// adjacent dims coalesced. A prepared eager reduction keeps it (Note [Prepared elementwise]).
struct ReduceLayout {
  Dims kshape, kstrides;
  Dims rshape, rstrides;
};
ReduceLayout reduce_layout(const Tensor& x, std::span<const bool> reduce_axis);

/// Reduces `x` (any strides; floating dtypes; sum/prod also i32/i64, max/min every real dtype,
/// any/all bool only; max/min real only) over the axes d with
/// reduce_axis[d] set, writing one value per kept index, in row-major order of the kept axes,
/// to the contiguous `out` (its dtype: x's, or real for sum_squares/norm). Requires x.rank() ==
/// reduce_axis.size(); max/min require a non-empty reduced run (checked by the shape rule).
void reduce_kernel(ExecContext& ctx, ReduceKind kind, const Tensor& x,
                   std::span<const bool> reduce_axis, const Tensor& out);
/// reduce_kernel by a layout made by reduce_layout for x's shape and strides.
void reduce_kernel(ExecContext& ctx, ReduceKind kind, const Tensor& x, const ReduceLayout& layout,
                   const Tensor& out);

}  // namespace tenferro::detail
