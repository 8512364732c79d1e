// Machine limits of the dtypes (the Array API's finfo and iinfo).
//
//   tenferro::FInfo f = tenferro::finfo(tenferro::DType::f32);  // f.eps == 2^-23
//   tenferro::IInfo i = tenferro::iinfo(tenferro::DType::i32);  // i.max == 2147483647
//
// finfo takes a floating dtype: for c64 / c128 it describes the real component (f32 / f64), as
// the standard says, with dtype the complex dtype asked about. iinfo takes an integer dtype
// (i8 ... i64, u8 ... u64); its max is unsigned so that u64's 2^64 - 1 fits. Any other
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
  int bits;           ///< 8, 16, 32 or 64
  std::uint64_t max;  ///< the largest value (2^64 - 1 for u64, so unsigned)
  std::int64_t min;   ///< the smallest value (0 for the unsigned dtypes)
  DType dtype;        ///< the dtype asked about
};

namespace detail {
[[noreturn]] void throw_info_dtype(const char* op, DType d, const char* expected);
template <class T>
constexpr FInfo finfo_of(DType d) noexcept {
  using L = std::numeric_limits<T>;
  return {static_cast<int>(sizeof(T) * 8), L::epsilon(), L::max(), -L::max(), L::min(), d};
}
template <class T>
constexpr IInfo iinfo_of(DType d) noexcept {
  using L = std::numeric_limits<T>;
  return {static_cast<int>(sizeof(T) * 8), static_cast<std::uint64_t>(L::max()),
          static_cast<std::int64_t>(L::min()), d};
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

/// iinfo of an integer dtype; DTypeMismatch otherwise (bool included).
constexpr IInfo iinfo(DType d) {
  switch (d) {
    case DType::i8:
      return detail::iinfo_of<std::int8_t>(d);
    case DType::i16:
      return detail::iinfo_of<std::int16_t>(d);
    case DType::i32:
      return detail::iinfo_of<std::int32_t>(d);
    case DType::i64:
      return detail::iinfo_of<std::int64_t>(d);
    case DType::u8:
      return detail::iinfo_of<std::uint8_t>(d);
    case DType::u16:
      return detail::iinfo_of<std::uint16_t>(d);
    case DType::u32:
      return detail::iinfo_of<std::uint32_t>(d);
    case DType::u64:
      return detail::iinfo_of<std::uint64_t>(d);
    default:
      break;
  }
  detail::throw_info_dtype("iinfo", d, "an integer dtype (i8, i16, i32, i64, u8, u16, u32, u64)");
}

}  // namespace tenferro
