// Analytic unary primitives: exp, log, sin, cos, tanh, sqrt, rsqrt, expm1, log1p, log2, log10,
// exp2, erf (the trigonometric and hyperbolic rest: analytic_trig.cpp). All are holomorphic
// (complex inputs use the principal branch; erf is real only), so each rule is its derivative
// f'(x) written with public ops; JVP and VJP follow (Note [Complex gradients]).
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/elementwise_common.hpp"

namespace tenferro {
namespace detail {
namespace {

// Transcendental functions: ~20 cycles per element, so large maps fan out earlier than add.
struct AnalyticDefaults : UnaryDefaults {
  static constexpr std::int64_t cost = kernels::kTranscendentalCost;
};

struct ExpOp : AnalyticDefaults {
  static constexpr const char* name = "exp";
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::exp;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return std::exp(x);
  }
  static Partial da(const Tensor&, const Tensor& y) { return y; }
};

struct LogOp : AnalyticDefaults {
  static constexpr const char* name = "log";
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::log;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return std::log(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return 1.0 / x; }
};

struct SinOp : AnalyticDefaults {
  static constexpr const char* name = "sin";
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::sin;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return std::sin(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return cos(x); }
};

struct CosOp : AnalyticDefaults {
  static constexpr const char* name = "cos";
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::cos;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return std::cos(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return -sin(x); }
};

struct TanhOp : AnalyticDefaults {
  static constexpr const char* name = "tanh";
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::tanh;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return std::tanh(x);
  }
  static Partial da(const Tensor&, const Tensor& y) { return 1.0 - square(y); }
};

struct SqrtOp : AnalyticDefaults {
  static constexpr const char* name = "sqrt";
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return std::sqrt(x);
  }
  static Partial da(const Tensor&, const Tensor& y) { return 0.5 / y; }
};

struct RsqrtOp : AnalyticDefaults {
  static constexpr const char* name = "rsqrt";
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return T(1) / std::sqrt(x);
  }
  static Partial da(const Tensor&, const Tensor& y) { return -0.5 * y * square(y); }
};

struct Expm1Op : AnalyticDefaults {
  static constexpr const char* name = "expm1";
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::expm1;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    // Note [Complex expm1 near overflow]: kernels::expm1_of's accurate-near-zero formula
    // multiplies e^x by cos y and sin y, so where e^x alone overflows (x > 709.78 in c128, 88.72 in
    // c64) a part that std::exp keeps finite became inf or NaN: expm1(800 + 0j) was inf + NaN j
    // (inf * sin 0), expm1(709.9 - 3.1j) -inf - inf j (exp's imaginary part is -8.4e306). There
    // exp(z) - 1 is as accurate (|e^z| is huge) and std::exp scales before multiplying.
    if constexpr (is_complex_v<T>) {
      if (std::isfinite(x.imag()) && std::isinf(std::exp(x.real())) && x.real() > 0) {
        const T e = std::exp(x);
        return T(e.real() - 1, e.imag());
      }
    }
    return kernels::expm1_of(x);
  }
  static Partial da(const Tensor&, const Tensor& y) { return y + 1.0; }
};

struct Log1pOp : AnalyticDefaults {
  static constexpr const char* name = "log1p";
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::log1p;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return kernels::log1p_of(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return 1.0 / (x + 1.0); }
};

// Note [Complex log2, log10, exp2]: they have no std:: function: log(z) / ln b and exp(z ln 2),
// which keep the special values of std::log and std::exp (a complex times a real scales each
// part, so exp2(inf + 0i) is inf + 0i, not inf + NaN i as std::pow's polar form would give). On
// the real axis (imaginary part +-0; for the logarithms also a real part > 0, NaN excluded) they
// return the real function with the imaginary part kept, as the formulas would up to rounding:
// so log2(8 + 0i) is exactly 3 and exp2(3 + 0i) exactly 8, as for real dtypes.
template <class T, class RealLog>
T log_base(T x, RealLog real_log, real_t<T> ln_base) {
  if (x.imag() == 0 && x.real() > 0) return T(real_log(x.real()), x.imag());
  return std::log(x) / ln_base;
}
struct Log2Op : AnalyticDefaults {
  static constexpr const char* name = "log2";
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    if constexpr (is_complex_v<T>)
      return log_base(
          x, [](real_t<T> v) { return std::log2(v); }, std::numbers::ln2_v<real_t<T>>);
    else
      return std::log2(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return (1.0 / std::numbers::ln2) / x; }
};

struct Log10Op : AnalyticDefaults {
  static constexpr const char* name = "log10";
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    if constexpr (is_complex_v<T>)
      return log_base(
          x, [](real_t<T> v) { return std::log10(v); }, std::numbers::ln10_v<real_t<T>>);
    else
      return std::log10(x);
  }
  static Partial da(const Tensor& x, const Tensor&) { return (1.0 / std::numbers::ln10) / x; }
};

struct Exp2Op : AnalyticDefaults {
  static constexpr const char* name = "exp2";
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    if constexpr (is_complex_v<T>) {
      using R = real_t<T>;
      if (x.imag() == 0) return T(std::exp2(x.real()), x.imag());
      // Note [Complex exp2 accuracy]: exp(z ln 2) rounds x ln 2 before the exponential, which
      // multiplies that rounding error by |x ln 2|: up to 700 ulp for c128 (80 ulp median) and
      // 34 ulp for c64 at |x| near the exponent range (NumPy's exp2 is the same formula). Where
      // 2^x is finite and normal it is 2^x (cos(y ln 2) + i sin(y ln 2)) instead, within a few
      // ulp; elsewhere (and for non-finite parts) exp(z ln 2) keeps std::exp's scaling near the
      // range ends and C99's special values.
      const R re = x.real(), im = x.imag();
      constexpr R lo = std::numeric_limits<R>::min_exponent,
                  hi = std::numeric_limits<R>::max_exponent;
      if (re > lo && re < hi - 1 && std::isfinite(im)) {
        const R m = std::exp2(re), t = im * std::numbers::ln2_v<R>;
        return T(m * std::cos(t), m * std::sin(t));
      }
      return std::exp(x * std::numbers::ln2_v<R>);
    } else {
      return std::exp2(x);
    }
  }
  static Partial da(const Tensor&, const Tensor& y) {
    Partial p(y);
    p.c = std::numbers::ln2;
    return p;
  }
};

struct ErfOp : AnalyticDefaults {
  static constexpr const char* name = "erf";
  static constexpr bool complex_ok = false;
  static constexpr const char* complex_why = "erf is implemented for real values only";
  static constexpr Rule rule = Rule::holomorphic;  // real only: the partial is the derivative
  template <class T>
  static T apply(T x) {
    return std::erf(x);
  }
  // 2/sqrt(pi) exp(-x^2).
  static Partial da(const Tensor& x, const Tensor&) {
    Partial p(exp(-square(x)));
    p.c = 2 * std::numbers::inv_sqrtpi;
    return p;
  }
};

}  // namespace

std::shared_ptr<const Primitive> find_analytic(std::string_view name) {
  return find_unary<ExpOp, LogOp, SinOp, CosOp, TanhOp, SqrtOp, RsqrtOp, Expm1Op, Log1pOp, Log2Op,
                    Log10Op, Exp2Op, ErfOp>(name);
}

}  // namespace detail

using detail::apply_unary;
using detail::unary_into;

Tensor exp(const Tensor& x) { return apply_unary<detail::ExpOp>(x); }
Tensor log(const Tensor& x) { return apply_unary<detail::LogOp>(x); }
Tensor sin(const Tensor& x) { return apply_unary<detail::SinOp>(x); }
Tensor cos(const Tensor& x) { return apply_unary<detail::CosOp>(x); }
Tensor tanh(const Tensor& x) { return apply_unary<detail::TanhOp>(x); }
Tensor sqrt(const Tensor& x) { return apply_unary<detail::SqrtOp>(x); }
Tensor rsqrt(const Tensor& x) { return apply_unary<detail::RsqrtOp>(x); }
Tensor expm1(const Tensor& x) { return apply_unary<detail::Expm1Op>(x); }
Tensor log1p(const Tensor& x) { return apply_unary<detail::Log1pOp>(x); }
Tensor log2(const Tensor& x) { return apply_unary<detail::Log2Op>(x); }
Tensor log10(const Tensor& x) { return apply_unary<detail::Log10Op>(x); }
Tensor exp2(const Tensor& x) { return apply_unary<detail::Exp2Op>(x); }
Tensor erf(const Tensor& x) { return apply_unary<detail::ErfOp>(x); }

void exp_into(Tensor& out, const Tensor& x) { unary_into<detail::ExpOp>(out, x); }
void log_into(Tensor& out, const Tensor& x) { unary_into<detail::LogOp>(out, x); }
void sin_into(Tensor& out, const Tensor& x) { unary_into<detail::SinOp>(out, x); }
void cos_into(Tensor& out, const Tensor& x) { unary_into<detail::CosOp>(out, x); }
void tanh_into(Tensor& out, const Tensor& x) { unary_into<detail::TanhOp>(out, x); }
void sqrt_into(Tensor& out, const Tensor& x) { unary_into<detail::SqrtOp>(out, x); }
void rsqrt_into(Tensor& out, const Tensor& x) { unary_into<detail::RsqrtOp>(out, x); }
void expm1_into(Tensor& out, const Tensor& x) { unary_into<detail::Expm1Op>(out, x); }
void log1p_into(Tensor& out, const Tensor& x) { unary_into<detail::Log1pOp>(out, x); }

}  // namespace tenferro
