// Trigonometric and hyperbolic analytic primitives beyond sin, cos, tanh (analytic.cpp): tan,
// sinh, cosh and the inverse functions asin, acos, atan, asinh, acosh, atanh. Each element is the
// std:: function, so real inputs get C99 Annex F's special values and complex inputs the principal
// branches and Annex G's special values of std::complex (libstdc++ forwards to the C library's
// ctan, casin, ...). All are holomorphic: each rule is f'(z) written with public ops, and the
// square roots in the inverse functions' derivatives are principal, which is the branch the
// principal inverse functions differentiate to (e.g. cos(asin z) = sqrt(1 - z^2) because
// Re(asin z) lies in [-pi/2, pi/2]).
#include <cmath>
#include <complex>

#include "primitives/elementwise_common.hpp"

namespace tenferro {
namespace detail {
namespace {

struct TrigDefaults : UnaryDefaults {
  static constexpr std::int64_t cost = kernels::kTranscendentalCost;
  static constexpr Rule rule = Rule::holomorphic;
};

struct TanOp : TrigDefaults {
  static constexpr const char* name = "tan";
  template <class T>
  static T apply(T x) {
    return std::tan(x);
  }
  static Partial da(const Tensor&, const Tensor& y) { return 1.0 + square(y); }
};

struct SinhOp : TrigDefaults {
  static constexpr const char* name = "sinh";
  template <class T>
  static T apply(T x) {
    return std::sinh(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return cosh(x); }
};

struct CoshOp : TrigDefaults {
  static constexpr const char* name = "cosh";
  template <class T>
  static T apply(T x) {
    return std::cosh(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return sinh(x); }
};

struct AsinOp : TrigDefaults {
  static constexpr const char* name = "asin";
  template <class T>
  static T apply(T x) {
    return std::asin(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return rsqrt(1.0 - square(x)); }
};

struct AcosOp : TrigDefaults {
  static constexpr const char* name = "acos";
  template <class T>
  static T apply(T x) {
    return std::acos(x);
  }
  static Partial da(const Tensor& x, const Tensor&) {
    Partial p(rsqrt(1.0 - square(x)));
    p.c = -1.0;
    return p;
  }
};

struct AtanOp : TrigDefaults {
  static constexpr const char* name = "atan";
  template <class T>
  static T apply(T x) {
    return std::atan(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return 1.0 / (1.0 + square(x)); }
};

struct AsinhOp : TrigDefaults {
  static constexpr const char* name = "asinh";
  template <class T>
  static T apply(T x) {
    return std::asinh(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return rsqrt(square(x) + 1.0); }
};

// acosh' = 1/sinh(acosh z) = 1/(sqrt(z - 1) sqrt(z + 1)); the form sqrt(z^2 - 1) has the wrong
// sign for complex z with Re z < 0 (and for real z it is the same).
struct AcoshOp : TrigDefaults {
  static constexpr const char* name = "acosh";
  template <class T>
  static T apply(T x) {
    return std::acosh(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return rsqrt(x - 1.0) * rsqrt(x + 1.0); }
};

struct AtanhOp : TrigDefaults {
  static constexpr const char* name = "atanh";
  template <class T>
  static T apply(T x) {
    return std::atanh(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return 1.0 / (1.0 - square(x)); }
};

}  // namespace

std::shared_ptr<const Primitive> find_analytic_trig(std::string_view name) {
  return find_unary<TanOp, SinhOp, CoshOp, AsinOp, AcosOp, AtanOp, AsinhOp, AcoshOp, AtanhOp>(name);
}

}  // namespace detail

using detail::apply_unary;

Tensor tan(const Tensor& x) { return apply_unary<detail::TanOp>(x); }
Tensor sinh(const Tensor& x) { return apply_unary<detail::SinhOp>(x); }
Tensor cosh(const Tensor& x) { return apply_unary<detail::CoshOp>(x); }
Tensor asin(const Tensor& x) { return apply_unary<detail::AsinOp>(x); }
Tensor acos(const Tensor& x) { return apply_unary<detail::AcosOp>(x); }
Tensor atan(const Tensor& x) { return apply_unary<detail::AtanOp>(x); }
Tensor asinh(const Tensor& x) { return apply_unary<detail::AsinhOp>(x); }
Tensor acosh(const Tensor& x) { return apply_unary<detail::AcoshOp>(x); }
Tensor atanh(const Tensor& x) { return apply_unary<detail::AtanhOp>(x); }

}  // namespace tenferro
