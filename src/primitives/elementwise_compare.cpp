// Comparisons (eq, ne, lt, le, gt, ge) and logical ops (logical_and, logical_or, logical_xor):
// binary elementwise primitives with bool results and no gradient (elementwise_common.hpp). Their
// own file so the elementwise kernels compile in parallel.
#include "primitives/elementwise_common.hpp"
#include "primitives/integer_order.hpp"

namespace tenferro {
namespace detail {
namespace {

// ---- comparisons: bool results, no gradient ----
struct CompareDefaults : BinaryDefaults {
  static constexpr bool to_bool = true;
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr bool complex_ok = false;
  static constexpr const char* complex_why = "comparisons are undefined on complex";
  static constexpr Rule rule = Rule::none;
};
struct EqOp : CompareDefaults {
  static constexpr const char* name = "eq";
  static constexpr bool complex_ok = true;
  static constexpr bool sign_agnostic = true;  // Note [Sign-agnostic kernels]
  template <class T>
  static bool apply(T a, T b) {
    return a == b;
  }
};
struct NeOp : CompareDefaults {
  static constexpr const char* name = "ne";
  static constexpr bool complex_ok = true;
  static constexpr bool sign_agnostic = true;
  template <class T>
  static bool apply(T a, T b) {
    return a != b;
  }
};
struct LtOp : CompareDefaults {
  static constexpr const char* name = "lt";
  template <class T>
  static bool apply(T a, T b) {
    return a < b;
  }
};
struct LeOp : CompareDefaults {
  static constexpr const char* name = "le";
  template <class T>
  static bool apply(T a, T b) {
    return a <= b;
  }
};
struct GtOp : CompareDefaults {
  static constexpr const char* name = "gt";
  template <class T>
  static bool apply(T a, T b) {
    return a > b;
  }
};
struct GeOp : CompareDefaults {
  static constexpr const char* name = "ge";
  template <class T>
  static bool apply(T a, T b) {
    return a >= b;
  }
};

// ---- logical ops: any dtype, non-zero is true (complex: either part), bool results ----
struct LogicalDefaults : CompareDefaults {
  static constexpr bool complex_ok = true;
  static constexpr bool sign_agnostic = true;  // x != 0 reads the same bits either way
};
struct LogicalAndOp : LogicalDefaults {
  static constexpr const char* name = "logical_and";
  template <class T>
  static bool apply(T a, T b) {
    return a != T(0) && b != T(0);
  }
};
struct LogicalOrOp : LogicalDefaults {
  static constexpr const char* name = "logical_or";
  template <class T>
  static bool apply(T a, T b) {
    return a != T(0) || b != T(0);
  }
};
struct LogicalXorOp : LogicalDefaults {
  static constexpr const char* name = "logical_xor";
  template <class T>
  static bool apply(T a, T b) {
    return (a != T(0)) != (b != T(0));
  }
};

}  // namespace

std::shared_ptr<const Primitive> find_elementwise_compare(std::string_view name, ScalarSide side,
                                                          Scalar s) {
  return find_binary<EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, LogicalAndOp, LogicalOrOp, LogicalXorOp>(
      name, side, s);
}

namespace {

// Note [Exact u64-with-signed comparisons] (integer_order.hpp): the signed operand s is
// compared as u64 where s >= 0 (cast exactly), and where s < 0 the unsigned operand is the
// larger, so the result is what `Op` says of (1, 0) or (0, 1). Written with ops, so traces and
// prepared programs get the same answers.
template <class Op>
Tensor compare(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || !integers_promote_inexactly(a.dtype(), b.dtype()))
    return apply_binary<Op>(a, b);
  const bool u_left = a.dtype() == DType::u64;
  const Tensor& s = u_left ? b : a;
  const Tensor su = cast(s, DType::u64);  // exact where s >= 0; the rest is masked
  const Tensor r = u_left ? apply_binary<Op>(a, su) : apply_binary<Op>(su, b);
  const Tensor negative = lt(s, Scalar(0));
  const bool when_negative = u_left ? Op::apply(1, 0) : Op::apply(0, 1);
  return when_negative ? logical_or(r, negative) : logical_and(r, logical_not(negative));
}

}  // namespace
}  // namespace detail

using detail::apply_binary;

Tensor eq(const Tensor& a, const Tensor& b) { return detail::compare<detail::EqOp>(a, b); }
Tensor eq(const Tensor& a, Scalar b) { return apply_binary<detail::EqOp>(a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return detail::compare<detail::NeOp>(a, b); }
Tensor ne(const Tensor& a, Scalar b) { return apply_binary<detail::NeOp>(a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return detail::compare<detail::LtOp>(a, b); }
Tensor lt(const Tensor& a, Scalar b) { return apply_binary<detail::LtOp>(a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return detail::compare<detail::LeOp>(a, b); }
Tensor le(const Tensor& a, Scalar b) { return apply_binary<detail::LeOp>(a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return detail::compare<detail::GtOp>(a, b); }
Tensor gt(const Tensor& a, Scalar b) { return apply_binary<detail::GtOp>(a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return detail::compare<detail::GeOp>(a, b); }
Tensor ge(const Tensor& a, Scalar b) { return apply_binary<detail::GeOp>(a, b); }

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return apply_binary<detail::LogicalAndOp>(a, b);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return apply_binary<detail::LogicalOrOp>(a, b);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return apply_binary<detail::LogicalXorOp>(a, b);
}

}  // namespace tenferro
