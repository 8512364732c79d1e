// Element types and promotion.
//
// Seven dtypes in three kinds: bool; the integers i32, i64; the floating dtypes f32, f64 and
// the complex c64 (complex<float>), c128 (complex<double>). Promotion (docs/dtypes.md) orders
// the kinds bool < integer < floating < complex, PyTorch-like: an integer with a floating dtype
// gives the floating dtype (i64 + f32 is f32); within a kind the wider dtype wins; between the
// floating dtypes it is the join on precision and field (promote(f64, c64) == c128).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tenferro {

enum class DType : std::uint8_t {
  f32 = 0,
  f64 = 1,
  c64 = 2,
  c128 = 3,
  boolean = 4,
  i32 = 5,
  i64 = 6
};

/// Every dtype, narrowest kind first.
inline constexpr DType all_dtypes[] = {DType::boolean, DType::i32, DType::i64, DType::f32,
                                       DType::f64,     DType::c64, DType::c128};
/// The floating and complex dtypes: the ones that carry gradients and that linear algebra,
/// contractions and the analytic functions compute in.
inline constexpr DType float_dtypes[] = {DType::f32, DType::f64, DType::c64, DType::c128};
/// The integer and bool dtypes.
inline constexpr DType integral_dtypes[] = {DType::boolean, DType::i32, DType::i64};

using c64 = std::complex<float>;
using c128 = std::complex<double>;

constexpr bool is_complex(DType d) noexcept { return d == DType::c64 || d == DType::c128; }
/// bool, i32 or i64.
constexpr bool is_integral(DType d) noexcept {
  return d == DType::boolean || d == DType::i32 || d == DType::i64;
}
/// f32, f64, c64 or c128: real or complex floating point (what gradients are made of).
constexpr bool is_floating(DType d) noexcept { return !is_integral(d); }
constexpr bool is_double_precision(DType d) noexcept { return d == DType::f64 || d == DType::c128; }
constexpr std::size_t dtype_size(DType d) noexcept {
  switch (d) {
    case DType::boolean:
      return 1;
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f64:
    case DType::c64:
    case DType::i64:
      return 8;
    case DType::c128:
      return 16;
  }
  return 0;
}
/// "bool", "i32", "i64", "f32", "f64", "c64", "c128".
std::string_view dtype_name(DType d) noexcept;

/// The floating dtype that ops defined only on floating values (exp, div, mean, ...) compute in
/// when given integer or bool operands: f64, as NumPy (PyTorch would use its default f32).
inline constexpr DType default_float = DType::f64;

/// The floating dtype with the given precision and field.
constexpr DType make_dtype(bool double_precision, bool complex) noexcept {
  return complex ? (double_precision ? DType::c128 : DType::c64)
                 : (double_precision ? DType::f64 : DType::f32);
}
/// Smallest dtype both promote to (commutative, associative, idempotent): bool < i32 < i64 <
/// any floating dtype; two floating dtypes join precision and field. The table is in
/// docs/dtypes.md.
constexpr DType promote(DType a, DType b) noexcept {
  if (a == b) return a;
  if (is_integral(a) && is_integral(b)) {
    if (a == DType::i64 || b == DType::i64) return DType::i64;
    return DType::i32;  // {bool, i32}
  }
  if (is_integral(a)) return b;
  if (is_integral(b)) return a;
  return make_dtype(is_double_precision(a) || is_double_precision(b),
                    is_complex(a) || is_complex(b));
}
/// The real dtype of the same precision (|z| of a c64 is f32); a real dtype itself.
constexpr DType real_dtype(DType d) noexcept {
  return is_integral(d) ? d : make_dtype(is_double_precision(d), false);
}
/// The complex dtype of the same precision; c128 for bool and the integers.
constexpr DType complex_dtype(DType d) noexcept {
  return make_dtype(is_integral(d) || is_double_precision(d), true);
}
/// The dtype an op defined only on floating values computes in for operands of dtype d: d when
/// floating, default_float for bool and the integers.
constexpr DType float_dtype_of(DType d) noexcept { return is_integral(d) ? default_float : d; }
/// True when every value of `from` is exactly representable in `to` (convert() allows exactly
/// these): bool to anything; i32 to i64, f64, c128; i64 to i64 only (f64 has 53 bits); between
/// floating dtypes when promote(from, to) == to; never from floating to bool or an integer.
constexpr bool is_lossless_cast(DType from, DType to) noexcept {
  if (from == to || from == DType::boolean) return true;
  if (from == DType::i32) return to == DType::i64 || to == DType::f64 || to == DType::c128;
  if (from == DType::i64) return false;
  return is_floating(to) && promote(from, to) == to;
}

template <class T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::boolean;
};
template <>
struct dtype_of<std::int32_t> {
  static constexpr DType value = DType::i32;
};
template <>
struct dtype_of<std::int64_t> {
  static constexpr DType value = DType::i64;
};
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

/// Calls f(T{}) with T the C++ type of d (bool, std::int32_t, std::int64_t, float, double,
/// c64, c128). The one place a dtype becomes a type.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::boolean:
      return f(bool{});
    case DType::i32:
      return f(std::int32_t{});
    case DType::i64:
      return f(std::int64_t{});
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

namespace detail {
[[noreturn]] void throw_not_floating(DType d, const char* where);
}

/// visit_dtype for kernels that exist only for the floating dtypes (GEMM, LAPACK, analytic
/// functions). Shape rules reject other dtypes first (Primitive::accepts_integers); reaching here
/// with one is a bug, reported as Error{Internal} naming `where`, never a wrong instantiation.
template <class F>
decltype(auto) visit_float_dtype(DType d, F&& f, const char* where = "kernel") {
  switch (d) {
    case DType::f32:
      return f(float{});
    case DType::f64:
      return f(double{});
    case DType::c64:
      return f(c64{});
    case DType::c128:
      return f(c128{});
    default:
      break;
  }
  detail::throw_not_floating(d, where);
}

}  // namespace tenferro
