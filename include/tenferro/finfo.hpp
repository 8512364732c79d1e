// Machine limits of the dtypes (the Array API's finfo and iinfo).
//
//   tenferro::FInfo f = tenferro::finfo(tenferro::DType::f32);  // f.eps == 2^-23
//   tenferro::IInfo i = tenferro::iinfo(tenferro::DType::i32);  // i.max == 2147483647
//
// finfo takes a floating dtype: for c64 / c128 it describes the real component (f32 / f64), as
// the standard says, with dtype the complex dtype asked about. iinfo takes i32 or i64. Any other
// dtype is DTypeMismatch naming finfo / iinfo (bool is neither: the standard has no iinfo(bool)).
// Values come from std::numeric_limits, exactly (eps = 2^-23 for f32, 2^-52 for f64).
#pragma once

#include <cstdint>
#include <limits>

#include "tenferro/dtype.hpp"

namespace tenferro {

/// Limits of a floating dtype (of its real component for complex dtypes), as doubles (each f32
/// limit is exactly representable in double).
struct FInfo {
  int bits;                ///< bits of the (real component's) format: 32 or 64
  double eps;              ///< the difference between 1 and the next representable value
  double max;              ///< the largest finite value
  double min;              ///< the smallest (most negative) finite value, -max
  double smallest_normal;  ///< the smallest positive normal value
  DType dtype;             ///< the dtype asked about
};

/// Limits of an integer dtype.
struct IInfo {
  int bits;          ///< 32 or 64
  std::int64_t max;  ///< the largest value
  std::int64_t min;  ///< the smallest (most negative) value
  DType dtype;       ///< the dtype asked about
};

namespace detail {
[[noreturn]] void throw_info_dtype(const char* op, DType d, const char* expected);
template <class T>
constexpr FInfo finfo_of(DType d) noexcept {
  using L = std::numeric_limits<T>;
  return {static_cast<int>(sizeof(T) * 8), L::epsilon(), L::max(), -L::max(), L::min(), d};
}
}  // namespace detail

/// finfo of f32, f64, c64 or c128 (see the file comment); DTypeMismatch otherwise.
constexpr FInfo finfo(DType d) {
  switch (d) {
    case DType::f32:
    case DType::c64:
      return detail::finfo_of<float>(d);
    case DType::f64:
    case DType::c128:
      return detail::finfo_of<double>(d);
    default:
      break;
  }
  detail::throw_info_dtype("finfo", d, "a floating dtype (f32, f64, c64, c128)");
}

/// iinfo of i32 or i64; DTypeMismatch otherwise.
constexpr IInfo iinfo(DType d) {
  switch (d) {
    case DType::i32:
      return {32, std::numeric_limits<std::int32_t>::max(),
              std::numeric_limits<std::int32_t>::min(), d};
    case DType::i64:
      return {64, std::numeric_limits<std::int64_t>::max(),
              std::numeric_limits<std::int64_t>::min(), d};
    default:
      break;
  }
  detail::throw_info_dtype("iinfo", d, "an integer dtype (i32, i64)");
}

}  // namespace tenferro
