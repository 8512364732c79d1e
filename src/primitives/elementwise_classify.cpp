// Floating-point classification: isnan, isinf, isfinite, signbit. Unary elementwise primitives
// with bool results and no gradient (elementwise_common.hpp). Bool and integer inputs are
// answered in their own dtype (no conversion to f64: the answer is known without it).
#include <cmath>
#include <complex>
#include <type_traits>

#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/elementwise_common.hpp"

namespace tenferro {
namespace detail {
namespace {

struct ClassifyDefaults : UnaryDefaults {
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr bool to_bool = true;
  static constexpr Rule rule = Rule::none;
};

// Complex values follow the Array API: NaN or infinite when either part is, finite when both are.
struct IsnanOp : ClassifyDefaults {
  static constexpr const char* name = "isnan";
  template <class T>
  static bool apply(T x) {
    return kernels::is_nan_of(x);
  }
};

struct IsinfOp : ClassifyDefaults {
  static constexpr const char* name = "isinf";
  template <class T>
  static bool apply(T x) {
    if constexpr (std::is_integral_v<T>)
      return false;
    else if constexpr (is_complex_v<T>)
      return std::isinf(x.real()) || std::isinf(x.imag());
    else
      return std::isinf(x);
  }
};

struct IsfiniteOp : ClassifyDefaults {
  static constexpr const char* name = "isfinite";
  template <class T>
  static bool apply(T x) {
    if constexpr (std::is_integral_v<T>)
      return true;
    else if constexpr (is_complex_v<T>)
      return std::isfinite(x.real()) && std::isfinite(x.imag());
    else
      return std::isfinite(x);
  }
};

// The sign bit, not x < 0: signbit(-0.0) and signbit(-NaN) are true (NumPy, Array API).
struct SignbitOp : ClassifyDefaults {
  static constexpr const char* name = "signbit";
  static constexpr bool complex_ok = false;
  static constexpr const char* complex_why = "a complex value has no single sign bit";
  template <class T>
  static bool apply(T x) {
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>)
      return false;
    else if constexpr (std::is_integral_v<T>)
      return x < 0;
    else
      return std::signbit(x);
  }
};

}  // namespace

std::shared_ptr<const Primitive> find_elementwise_classify(std::string_view name) {
  return find_unary<IsnanOp, IsinfOp, IsfiniteOp, SignbitOp>(name);
}

}  // namespace detail

using detail::apply_unary;

Tensor isnan(const Tensor& x) { return apply_unary<detail::IsnanOp>(x); }
Tensor isinf(const Tensor& x) { return apply_unary<detail::IsinfOp>(x); }
Tensor isfinite(const Tensor& x) { return apply_unary<detail::IsfiniteOp>(x); }
Tensor signbit(const Tensor& x) { return apply_unary<detail::SignbitOp>(x); }

}  // namespace tenferro
