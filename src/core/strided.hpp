// Strided traversal helpers shared by the core and the kernels.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// a * b for a, b >= 0, INT64_MAX when the product does not fit: strides and element counts of a
/// zero-sized shape such as [0, 2^62, 4] saturate instead of wrapping (they never address an
/// element).
inline std::int64_t saturating_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

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

/// A real floating value converted to integer type I with defined results for every input
/// (docs/dtypes.md, "Casts"): truncation toward zero, NaN gives 0, values beyond I's range
/// saturate to its minimum/maximum (C++'s static_cast is undefined there). For an unsigned I
/// every negative value gives 0 (values in (-1, 0) truncate to 0 anyway).
template <class I, class F>
inline I saturate_to_int(F v) {
  if (v != v) return 0;
  if constexpr (std::is_unsigned_v<I>) {
    if (v < 0) return 0;
  }
  // 2^(bits-1) (2^bits unsigned) is exact in every floating type; the largest I is one below it.
  constexpr F limit = static_cast<F>(std::numeric_limits<I>::max() / 2 + 1) * F(2);
  if (v >= limit) return std::numeric_limits<I>::max();
  if (v < -limit) return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}

/// Converts one element between dtypes: complex -> real keeps the real part; anything -> bool
/// is "non-zero" (NaN is non-zero); floating -> integer as saturate_to_int.
template <class To, class From>
inline To convert_element(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_complex_v<From> && !is_complex_v<To>) {
    return convert_element<To>(v.real());
  } else if constexpr (is_complex_v<To> && is_complex_v<From>) {
    return To(static_cast<real_t<To>>(v.real()), static_cast<real_t<To>>(v.imag()));
  } else if constexpr (is_complex_v<To>) {
    return To(static_cast<real_t<To>>(v), real_t<To>(0));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return saturate_to_int<To>(v);
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    // i64 -> i32 (and every narrowing or signedness change: -1 -> u8 is 255) keeps the low bits
    // (two's complement, as NumPy and PyTorch); no UB.
    return static_cast<To>(static_cast<std::make_unsigned_t<To>>(v));
  } else {
    return static_cast<To>(v);
  }
}

/// Copies `src` (any strides, any dtype) into contiguous memory `dst` of dtype `dst_dtype`,
/// converting elements. `dst` must hold src.numel() elements.
void copy_to_contiguous(const Tensor& src, void* dst, DType dst_dtype);

}  // namespace tenferro::detail
