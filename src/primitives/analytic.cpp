// Analytic unary primitives: exp, log, sin, cos, tanh, sqrt, rsqrt, expm1, log1p. All are
// holomorphic (complex inputs use the principal branch), so each rule is its derivative f'(x)
// written with public ops; JVP and VJP follow (Note [Complex gradients]).
#include <cmath>
#include <complex>

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

}  // namespace

std::shared_ptr<const Primitive> find_analytic(std::string_view name) {
  return find_unary<ExpOp, LogOp, SinOp, CosOp, TanhOp, SqrtOp, RsqrtOp, Expm1Op, Log1pOp>(name);
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
