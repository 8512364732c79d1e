// Element types and promotion.
//
// Four dtypes: f32, f64, c64 (complex<float>), c128 (complex<double>). Promotion is the join on
// two axes, precision (32 < 64) and field (real < complex): promote(f32, c128) == c128,
// promote(f64, c64) == c128 (complex64 cannot hold f64 precision). See docs/dtypes.md.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tenferro {

enum class DType : std::uint8_t { f32 = 0, f64 = 1, c64 = 2, c128 = 3 };

inline constexpr DType all_dtypes[] = {DType::f32, DType::f64, DType::c64, DType::c128};

using c64 = std::complex<float>;
using c128 = std::complex<double>;

constexpr bool is_complex(DType d) noexcept { return d == DType::c64 || d == DType::c128; }
constexpr bool is_double_precision(DType d) noexcept { return d == DType::f64 || d == DType::c128; }
constexpr std::size_t dtype_size(DType d) noexcept {
  switch (d) {
    case DType::f32:
      return 4;
    case DType::f64:
      return 8;
    case DType::c64:
      return 8;
    case DType::c128:
      return 16;
  }
  return 0;
}
std::string_view dtype_name(DType d) noexcept;

/// The dtype with the given precision and field.
constexpr DType make_dtype(bool double_precision, bool complex) noexcept {
  return complex ? (double_precision ? DType::c128 : DType::c64)
                 : (double_precision ? DType::f64 : DType::f32);
}
/// Smallest dtype both promote to (commutative, associative, idempotent).
constexpr DType promote(DType a, DType b) noexcept {
  return make_dtype(is_double_precision(a) || is_double_precision(b),
                    is_complex(a) || is_complex(b));
}
/// The real dtype of the same precision (|z| of a c64 is f32).
constexpr DType real_dtype(DType d) noexcept { return make_dtype(is_double_precision(d), false); }
/// The complex dtype of the same precision.
constexpr DType complex_dtype(DType d) noexcept { return make_dtype(is_double_precision(d), true); }
/// True when a value of `from` converts to `to` without losing precision or an imaginary part.
constexpr bool is_lossless_cast(DType from, DType to) noexcept { return promote(from, to) == to; }

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;
};
template <>
struct dtype_of<c64> {
  static constexpr DType value = DType::c64;
};
template <>
struct dtype_of<c128> {
  static constexpr DType value = DType::c128;
};
template <class T>
inline constexpr DType dtype_v = dtype_of<T>::value;

template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename real_of<T>::type;

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

/// Calls f(T{}) with T the C++ type of d. The one place a dtype becomes a type.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::f32:
      return f(float{});
    case DType::f64:
      return f(double{});
    case DType::c64:
      return f(c64{});
    case DType::c128:
      break;
  }
  return f(c128{});
}

}  // namespace tenferro
