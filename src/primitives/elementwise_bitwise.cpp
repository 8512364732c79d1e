// Bitwise ops of the Array API: bitwise_and, bitwise_or, bitwise_xor, bitwise_invert (bool and
// integers) and bitwise_left_shift, bitwise_right_shift (integers). Elementwise primitives
// (elementwise_common.hpp) with Ints::native and ints_only: they compute in the promoted integer
// dtype and refuse floating operands (DTypeMismatch) in their shape rule. Their results are
// integers, so they have no gradient (Rule::none).
//
// The element functions are written once for every integral T (`if constexpr
// (std::is_integral_v<T>)`), so a new integer dtype of visit_dtype works without a change here.
//
// Note [Shift counts]: C++ leaves a shift by a negative count or by the bit width or more
// undefined. The Array API leaves negative counts undefined too; tenferro defines every count
// as NumPy does (its npy_lshift/npy_rshift): a count c outside [0, bits) -- negative or too large
// -- shifts every bit out, so x << c is 0 and x >> c is 0 for x >= 0 and -1 for x < 0 (the sign
// fills); inside [0, bits), x << c is x * 2^c wrapped to T (two's complement, computed on the
// unsigned type) and x >> c is the arithmetic shift (floor(x / 2^c)). No count is an error: the
// counts are values, and an op's result must not depend on anything but its inputs, also in
// traced and prepared programs.
#include <climits>
#include <type_traits>

#include "primitives/elementwise_common.hpp"
#include "tenferro/ops/bitwise.hpp"

namespace tenferro {
namespace detail {
namespace {

struct BitwiseDefaults : BinaryDefaults {
  static constexpr Ints ints = Ints::native;
  static constexpr bool ints_only = true;
  static constexpr bool bool_ok = true;
  static constexpr bool complex_ok = false;
  static constexpr Rule rule = Rule::none;
};

// For bool, a & b etc. give int 0 or 1; the static_cast back to T is exact.
struct BitwiseAndOp : BitwiseDefaults {
  static constexpr const char* name = "bitwise_and";
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(a & b);
    else
      return T{};  // never instantiated: ints_only (computes_in_v)
  }
};
struct BitwiseOrOp : BitwiseDefaults {
  static constexpr const char* name = "bitwise_or";
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(a | b);
    else
      return T{};
  }
};
struct BitwiseXorOp : BitwiseDefaults {
  static constexpr const char* name = "bitwise_xor";
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(a ^ b);
    else
      return T{};
  }
};

// Note [Shift counts] (file comment).
struct ShiftDefaults : BitwiseDefaults {
  static constexpr bool bool_ok = false;
};
template <class T>
constexpr bool count_in_range(T c) {
  constexpr T bits = static_cast<T>(sizeof(T) * CHAR_BIT);
  if constexpr (std::is_signed_v<T>)
    return c >= 0 && c < bits;
  else
    return c < bits;
}
struct LeftShiftOp : ShiftDefaults {
  static constexpr const char* name = "bitwise_left_shift";
  template <class T>
  static T apply(T a, T c) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      using U = std::make_unsigned_t<T>;
      if (!count_in_range(c)) return T{0};
      // On the unsigned type: no signed overflow; U promotes to int for narrow T, and the count
      // is below T's width, so the int shift cannot overflow into the sign either.
      return static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<unsigned>(c)));
    } else {
      return T{};
    }
  }
};
struct RightShiftOp : ShiftDefaults {
  static constexpr const char* name = "bitwise_right_shift";
  template <class T>
  static T apply(T a, T c) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!count_in_range(c)) {
        if constexpr (std::is_signed_v<T>)
          return a < 0 ? T{-1} : T{0};
        else
          return T{0};
      }
      return static_cast<T>(a >> static_cast<unsigned>(c));  // arithmetic for signed (C++20)
    } else {
      return T{};
    }
  }
};

struct BitwiseInvertOp : UnaryDefaults {
  static constexpr const char* name = "bitwise_invert";
  static constexpr Ints ints = Ints::native;
  static constexpr bool ints_only = true;
  static constexpr bool bool_ok = true;
  static constexpr bool complex_ok = false;
  static constexpr Rule rule = Rule::none;
  template <class T>
  static T apply(T a) {
    if constexpr (std::is_same_v<T, bool>)
      return !a;
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(~a);
    else
      return T{};
  }
};

}  // namespace

std::shared_ptr<const Primitive> find_elementwise_bitwise(std::string_view name, ScalarSide side,
                                                          Scalar s) {
  if (name == BitwiseInvertOp::name) return find_unary<BitwiseInvertOp>(name);
  return find_binary<BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, LeftShiftOp, RightShiftOp>(name, side,
                                                                                         s);
}

}  // namespace detail

using detail::apply_binary;

#define TF_BITWISE(fn, Op)                                                               \
  Tensor fn(const Tensor& a, const Tensor& b) { return apply_binary<detail::Op>(a, b); } \
  Tensor fn(const Tensor& a, Scalar b) { return apply_binary<detail::Op>(a, b); }        \
  Tensor fn(Scalar a, const Tensor& b) { return apply_binary<detail::Op>(a, b); }
TF_BITWISE(bitwise_and, BitwiseAndOp)
TF_BITWISE(bitwise_or, BitwiseOrOp)
TF_BITWISE(bitwise_xor, BitwiseXorOp)
TF_BITWISE(bitwise_left_shift, LeftShiftOp)
TF_BITWISE(bitwise_right_shift, RightShiftOp)
#undef TF_BITWISE

Tensor bitwise_invert(const Tensor& x) { return detail::apply_unary<detail::BitwiseInvertOp>(x); }

}  // namespace tenferro
