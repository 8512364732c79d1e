// Strided traversal helpers shared by the core and the kernels.
#pragma once

#include <cstdint>
#include <span>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// Calls f(element_offset) for every element of (shape, strides, offset) in row-major logical
/// order. The innermost dimension runs as a plain loop.
template <class F>
void for_each_offset(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides,
                     std::int64_t offset, F&& f) {
  const std::size_t r = shape.size();
  for (std::int64_t d : shape)
    if (d == 0) return;
  if (r == 0) {
    f(offset);
    return;
  }
  Dims idx(r, 0);
  const std::int64_t inner = shape[r - 1], inner_stride = strides[r - 1];
  std::int64_t base = offset;
  for (;;) {
    for (std::int64_t i = 0; i < inner; ++i) f(base + i * inner_stride);
    std::size_t d = r - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      base += strides[d];
      if (++idx[d] < shape[d]) break;
      base -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

/// Converts one element between dtypes (complex -> real keeps the real part).
template <class To, class From>
inline To convert_element(From v) {
  if constexpr (is_complex_v<From> && !is_complex_v<To>) {
    return static_cast<To>(v.real());
  } else if constexpr (is_complex_v<To> && is_complex_v<From>) {
    return To(static_cast<real_t<To>>(v.real()), static_cast<real_t<To>>(v.imag()));
  } else {
    return static_cast<To>(v);
  }
}

/// Copies `src` (any strides, any dtype) into contiguous memory `dst` of dtype `dst_dtype`,
/// converting elements. `dst` must hold src.numel() elements.
void copy_to_contiguous(const Tensor& src, void* dst, DType dst_dtype);

}  // namespace tenferro::detail
