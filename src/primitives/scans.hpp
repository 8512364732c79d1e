// Internal entry points of the scan primitives (src/primitives/scans.cpp), for the rules and
// the tests: the public cumsum/cumprod are the forward, inclusive cases.
#pragma once

#include <cstdint>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// Inclusive scan along `axis` of a rank >= 1 tensor; `reverse` scans from the end (suffix sums
/// or products). `product` picks cumprod, else cumsum.
Tensor scan(const Tensor& x, std::int64_t axis, bool product, bool reverse);

/// The first-order linear recurrence h[k] = a[k] * h[k-1] + b[k] (h[-1] = 0) along `axis`, or
/// h[k] = a[k] * h[k+1] + b[k] from the end when `reverse`. a and b: one floating dtype, one
/// shape (rank >= 1). Differentiable in both, to every order.
Tensor linear_scan(const Tensor& a, const Tensor& b, std::int64_t axis, bool reverse);

}  // namespace tenferro::detail
