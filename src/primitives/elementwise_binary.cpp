// Binary elementwise primitives: arithmetic (add, sub, mul, div, maximum, minimum, pow) and
// comparisons (eq, ne, lt, le, gt, ge). One block per op: element function + partials
// (elementwise_common.hpp explains the rule kinds).
#include <cmath>

#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/elementwise_common.hpp"

namespace tenferro {
namespace detail {
namespace {

struct AddOp : BinaryDefaults {
  static constexpr const char* name = "add";
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::add;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return a + b;
  }
  static Partial da(const Tensor&, const Tensor&, const Tensor&) { return 1.0; }
  static Partial db(const Tensor&, const Tensor&, const Tensor&) { return 1.0; }
};

struct SubOp : BinaryDefaults {
  static constexpr const char* name = "sub";
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::sub;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return a - b;
  }
  static Partial da(const Tensor&, const Tensor&, const Tensor&) { return 1.0; }
  static Partial db(const Tensor&, const Tensor&, const Tensor&) { return -1.0; }
};

struct MulOp : BinaryDefaults {
  static constexpr const char* name = "mul";
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::mul;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return a * b;
  }
  static Partial da(const Tensor&, const Tensor& b, const Tensor&) { return b; }
  static Partial db(const Tensor& a, const Tensor&, const Tensor&) { return a; }
};

struct DivOp : BinaryDefaults {
  static constexpr const char* name = "div";
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::div;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return a / b;
  }
  static Partial da(const Tensor&, const Tensor& b, const Tensor&) { return 1.0 / b; }
  static Partial db(const Tensor&, const Tensor& b, const Tensor& y) { return -(y / b); }
};

struct MaximumOp : BinaryDefaults {
  static constexpr const char* name = "maximum";
  static constexpr bool complex_ok = false;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::maximum_of(a, b);
  }
  // Ties split the gradient equally (PyTorch's convention).
  static Partial da(const Tensor& a, const Tensor& b, const Tensor&) {
    return gt(a, b) + 0.5 * eq(a, b);
  }
  static Partial db(const Tensor& a, const Tensor& b, const Tensor&) {
    return lt(a, b) + 0.5 * eq(a, b);
  }
};

struct MinimumOp : BinaryDefaults {
  static constexpr const char* name = "minimum";
  static constexpr bool complex_ok = false;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::minimum_of(a, b);
  }
  static Partial da(const Tensor& a, const Tensor& b, const Tensor&) {
    return lt(a, b) + 0.5 * eq(a, b);
  }
  static Partial db(const Tensor& a, const Tensor& b, const Tensor&) {
    return gt(a, b) + 0.5 * eq(a, b);
  }
};

struct PowOp : BinaryDefaults {
  static constexpr const char* name = "pow";
  static constexpr std::int64_t cost = kernels::kTranscendentalCost;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return std::pow(a, b);
  }
  static Partial da(const Tensor& a, const Tensor& b, const Tensor&) { return b * pow(a, b - 1.0); }
  static Partial db(const Tensor& a, const Tensor&, const Tensor& y) { return y * log(a); }
};

// ---- comparisons: real 0/1 results, no gradient ----
struct CompareDefaults : BinaryDefaults {
  static constexpr bool to_real = true;
  static constexpr bool complex_ok = false;
  static constexpr const char* complex_why = "comparisons are undefined on complex";
  static constexpr Rule rule = Rule::none;
};
struct EqOp : CompareDefaults {
  static constexpr const char* name = "eq";
  static constexpr bool complex_ok = true;
  template <class T>
  static real_t<T> apply(T a, T b) {
    return a == b ? 1 : 0;
  }
};
struct NeOp : CompareDefaults {
  static constexpr const char* name = "ne";
  static constexpr bool complex_ok = true;
  template <class T>
  static real_t<T> apply(T a, T b) {
    return a != b ? 1 : 0;
  }
};
struct LtOp : CompareDefaults {
  static constexpr const char* name = "lt";
  template <class T>
  static T apply(T a, T b) {
    return a < b ? 1 : 0;
  }
};
struct LeOp : CompareDefaults {
  static constexpr const char* name = "le";
  template <class T>
  static T apply(T a, T b) {
    return a <= b ? 1 : 0;
  }
};
struct GtOp : CompareDefaults {
  static constexpr const char* name = "gt";
  template <class T>
  static T apply(T a, T b) {
    return a > b ? 1 : 0;
  }
};
struct GeOp : CompareDefaults {
  static constexpr const char* name = "ge";
  template <class T>
  static T apply(T a, T b) {
    return a >= b ? 1 : 0;
  }
};

}  // namespace

std::shared_ptr<const Primitive> find_elementwise_binary(std::string_view name, ScalarSide side,
                                                         Scalar s) {
  return find_binary<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, PowOp, EqOp, NeOp, LtOp,
                     LeOp, GtOp, GeOp>(name, side, s);
}

}  // namespace detail

using detail::apply_binary;
using detail::binary_into;

Tensor add(const Tensor& a, const Tensor& b) { return apply_binary<detail::AddOp>(a, b); }
Tensor add(const Tensor& a, Scalar b) { return apply_binary<detail::AddOp>(a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return apply_binary<detail::SubOp>(a, b); }
Tensor sub(const Tensor& a, Scalar b) { return apply_binary<detail::SubOp>(a, b); }
Tensor sub(Scalar a, const Tensor& b) { return apply_binary<detail::SubOp>(a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return apply_binary<detail::MulOp>(a, b); }
Tensor mul(const Tensor& a, Scalar b) { return apply_binary<detail::MulOp>(a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return apply_binary<detail::DivOp>(a, b); }
Tensor div(const Tensor& a, Scalar b) { return apply_binary<detail::DivOp>(a, b); }
Tensor div(Scalar a, const Tensor& b) { return apply_binary<detail::DivOp>(a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return apply_binary<detail::MaximumOp>(a, b); }
Tensor maximum(const Tensor& a, Scalar b) { return apply_binary<detail::MaximumOp>(a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return apply_binary<detail::MinimumOp>(a, b); }
Tensor minimum(const Tensor& a, Scalar b) { return apply_binary<detail::MinimumOp>(a, b); }
Tensor pow(const Tensor& a, const Tensor& b) { return apply_binary<detail::PowOp>(a, b); }
Tensor pow(const Tensor& a, Scalar b) { return apply_binary<detail::PowOp>(a, b); }
Tensor pow(Scalar a, const Tensor& b) { return apply_binary<detail::PowOp>(a, b); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator-(Scalar a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator/(Scalar a, const Tensor& b) { return div(a, b); }

Tensor eq(const Tensor& a, const Tensor& b) { return apply_binary<detail::EqOp>(a, b); }
Tensor eq(const Tensor& a, Scalar b) { return apply_binary<detail::EqOp>(a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return apply_binary<detail::NeOp>(a, b); }
Tensor ne(const Tensor& a, Scalar b) { return apply_binary<detail::NeOp>(a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return apply_binary<detail::LtOp>(a, b); }
Tensor lt(const Tensor& a, Scalar b) { return apply_binary<detail::LtOp>(a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return apply_binary<detail::LeOp>(a, b); }
Tensor le(const Tensor& a, Scalar b) { return apply_binary<detail::LeOp>(a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return apply_binary<detail::GtOp>(a, b); }
Tensor gt(const Tensor& a, Scalar b) { return apply_binary<detail::GtOp>(a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return apply_binary<detail::GeOp>(a, b); }
Tensor ge(const Tensor& a, Scalar b) { return apply_binary<detail::GeOp>(a, b); }

void add_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::AddOp>(o, a, b); }
void add_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::AddOp>(o, a, b); }
void sub_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::SubOp>(o, a, b); }
void sub_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::SubOp>(o, a, b); }
void mul_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::MulOp>(o, a, b); }
void mul_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::MulOp>(o, a, b); }
void div_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::DivOp>(o, a, b); }
void div_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::DivOp>(o, a, b); }
void maximum_into(Tensor& o, const Tensor& a, const Tensor& b) {
  binary_into<detail::MaximumOp>(o, a, b);
}
void minimum_into(Tensor& o, const Tensor& a, const Tensor& b) {
  binary_into<detail::MinimumOp>(o, a, b);
}
void pow_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::PowOp>(o, a, b); }
void pow_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::PowOp>(o, a, b); }

}  // namespace tenferro
