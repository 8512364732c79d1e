// Element types and promotion.
//
// Thirteen dtypes in four kinds: bool; the integers i8, i16, i32, i64 (signed) and u8, u16,
// u32, u64 (unsigned); the floating dtypes f32, f64 and the complex c64 (complex<float>), c128
// (complex<double>). Promotion (docs/dtypes.md) orders the kinds bool < integer < floating <
// complex, PyTorch-like: an integer with a floating dtype gives the floating dtype (i64 + f32 is
// f32). Between integers it is the Array API's table: the wider of two signed or two unsigned
// dtypes, the smallest signed dtype holding both for mixed signedness (u8 + i8 is i16), and f64
// for u64 with a signed dtype (NumPy 2; no integer holds both). Between the floating dtypes it is
// the join on precision and field (promote(f64, c64) == c128).
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
  i64 = 6,
  // Appended after i64: the values above stay what they were (dtypes travel as numbers, e.g. in
  // dist::Comm::broadcast's header).
  i8 = 7,
  i16 = 8,
  u8 = 9,
  u16 = 10,
  u32 = 11,
  u64 = 12
};

/// Every dtype, narrowest kind first (within the integers: signed, then unsigned, each by width).
inline constexpr DType all_dtypes[] = {
    DType::boolean, DType::i8,  DType::i16, DType::i32, DType::i64, DType::u8,  DType::u16,
    DType::u32,     DType::u64, DType::f32, DType::f64, DType::c64, DType::c128};
/// The floating and complex dtypes: the ones that carry gradients and that linear algebra,
/// contractions and the analytic functions compute in.
inline constexpr DType float_dtypes[] = {DType::f32, DType::f64, DType::c64, DType::c128};
/// The integer and bool dtypes.
inline constexpr DType integral_dtypes[] = {DType::boolean, DType::i8,  DType::i16,
                                            DType::i32,     DType::i64, DType::u8,
                                            DType::u16,     DType::u32, DType::u64};

using c64 = std::complex<float>;
using c128 = std::complex<double>;

constexpr bool is_complex(DType d) noexcept { return d == DType::c64 || d == DType::c128; }
/// i8, i16, i32 or i64.
constexpr bool is_signed_integer(DType d) noexcept {
  return d == DType::i8 || d == DType::i16 || d == DType::i32 || d == DType::i64;
}
/// u8, u16, u32 or u64 (bool is not an unsigned integer, as in the Array API).
constexpr bool is_unsigned(DType d) noexcept {
  return d == DType::u8 || d == DType::u16 || d == DType::u32 || d == DType::u64;
}
/// A signed or unsigned integer dtype (not bool).
constexpr bool is_integer(DType d) noexcept { return is_signed_integer(d) || is_unsigned(d); }
/// bool or an integer dtype.
constexpr bool is_integral(DType d) noexcept { return d == DType::boolean || is_integer(d); }
/// f32, f64, c64 or c128: real or complex floating point (what gradients are made of).
constexpr bool is_floating(DType d) noexcept { return !is_integral(d); }
constexpr bool is_double_precision(DType d) noexcept { return d == DType::f64 || d == DType::c128; }
constexpr std::size_t dtype_size(DType d) noexcept {
  switch (d) {
    case DType::boolean:
    case DType::i8:
    case DType::u8:
      return 1;
    case DType::i16:
    case DType::u16:
      return 2;
    case DType::f32:
    case DType::i32:
    case DType::u32:
      return 4;
    case DType::f64:
    case DType::c64:
    case DType::i64:
    case DType::u64:
      return 8;
    case DType::c128:
      return 16;
  }
  return 0;
}
/// "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "c64", "c128".
std::string_view dtype_name(DType d) noexcept;

/// The floating dtype that ops defined only on floating values (exp, div, mean, ...) compute in
/// when given integer or bool operands: f64, as NumPy (PyTorch would use its default f32).
inline constexpr DType default_float = DType::f64;

/// The floating dtype with the given precision and field.
constexpr DType make_dtype(bool double_precision, bool complex) noexcept {
  return complex ? (double_precision ? DType::c128 : DType::c64)
                 : (double_precision ? DType::f64 : DType::f32);
}
namespace detail {
/// The signed integer dtype of the given width in bits (8, 16, 32 or 64).
constexpr DType signed_integer_of_bits(std::size_t bits) noexcept {
  return bits <= 8 ? DType::i8 : bits <= 16 ? DType::i16 : bits <= 32 ? DType::i32 : DType::i64;
}
/// promote() of two different integer dtypes (neither bool): the Array API's table.
constexpr DType promote_integers(DType a, DType b) noexcept {
  const std::size_t ba = dtype_size(a) * 8, bb = dtype_size(b) * 8;
  if (is_unsigned(a) == is_unsigned(b)) return ba >= bb ? a : b;
  const std::size_t bu = is_unsigned(a) ? ba : bb, bs = is_unsigned(a) ? bb : ba;
  if (bs > bu) return is_unsigned(a) ? b : a;  // the signed one already holds the unsigned one
  // No integer holds both u64 and a signed dtype; NumPy 2 gives f64 (docs/dtypes.md).
  if (bu == 64) return DType::f64;
  return signed_integer_of_bits(2 * bu);  // u8 + i8 -> i16, u16 + i16 -> i32, u32 + i32 -> i64
}
}  // namespace detail

/// Smallest dtype both promote to (commutative and idempotent): bool < any integer < any
/// floating dtype; two integers by the Array API's table (detail::promote_integers); two
/// floating dtypes join precision and field. Associative except through u64 + a signed integer
/// (f64, where NumPy 2 goes too). The table is in docs/dtypes.md.
constexpr DType promote(DType a, DType b) noexcept {
  if (a == b) return a;
  if (is_integral(a) && is_integral(b)) {
    if (a == DType::boolean) return b;
    if (b == DType::boolean) return a;
    return detail::promote_integers(a, b);
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
/// The dtype sum, prod and the cumulative sum/product of d accumulate in and return (the Array
/// API's "default integer" rule): i64 for bool and signed integers, u64 for unsigned ones (both
/// wrap on overflow), d itself for floating dtypes.
constexpr DType sum_dtype(DType d) noexcept {
  return is_unsigned(d) ? DType::u64 : is_integral(d) ? DType::i64 : d;
}
/// True when every value of `from` is exactly representable in `to` (convert() allows exactly
/// these): bool to anything; an integer to an integer of the same signedness and at least its
/// width, or to a signed integer wider than it (u8 -> i16, never i8 -> u64); an integer to a
/// floating dtype whose significand holds it (24 bits for f32/c64: i8, i16, u8, u16; 53 bits for
/// f64/c128: also i32, u32; never i64, u64); between floating dtypes when promote(from, to) ==
/// to; never from floating to bool or an integer.
constexpr bool is_lossless_cast(DType from, DType to) noexcept {
  if (from == to || from == DType::boolean) return true;
  if (is_integer(from)) {
    const std::size_t bits = dtype_size(from) * 8;
    if (is_integer(to)) {
      const std::size_t to_bits = dtype_size(to) * 8;
      if (is_unsigned(from) == is_unsigned(to)) return to_bits >= bits;
      return is_unsigned(from) && to_bits > bits;  // a signed value never fits an unsigned dtype
    }
    if (to == DType::boolean) return false;
    // Significand bits (with the implicit one): 24 single, 53 double; bits - 1 for a signed value.
    const std::size_t mantissa = is_double_precision(to) ? 53 : 24;
    return bits - (is_unsigned(from) ? 0 : 1) <= mantissa;
  }
  return is_floating(to) && promote(from, to) == to;
}

template <class T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::boolean;
};
template <>
struct dtype_of<std::int8_t> {
  static constexpr DType value = DType::i8;
};
template <>
struct dtype_of<std::int16_t> {
  static constexpr DType value = DType::i16;
};
template <>
struct dtype_of<std::uint8_t> {
  static constexpr DType value = DType::u8;
};
template <>
struct dtype_of<std::uint16_t> {
  static constexpr DType value = DType::u16;
};
template <>
struct dtype_of<std::uint32_t> {
  static constexpr DType value = DType::u32;
};
template <>
struct dtype_of<std::uint64_t> {
  static constexpr DType value = DType::u64;
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

/// Calls f(T{}) with T the C++ type of d (bool, std::int8_t ... std::int64_t, std::uint8_t ...
/// std::uint64_t, float, double, c64, c128). The one place a dtype becomes a type. Each call
/// instantiates f thirteen times: kernels defined for fewer dtypes use visit_float_dtype or an
/// `if constexpr` on the type, so the others cost no code.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::boolean:
      return f(bool{});
    case DType::i32:
      return f(std::int32_t{});
    case DType::i64:
      return f(std::int64_t{});
    case DType::i8:
      return f(std::int8_t{});
    case DType::i16:
      return f(std::int16_t{});
    case DType::u8:
      return f(std::uint8_t{});
    case DType::u16:
      return f(std::uint16_t{});
    case DType::u32:
      return f(std::uint32_t{});
    case DType::u64:
      return f(std::uint64_t{});
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
