// Non-analytic unary primitives (neg, conj, abs, sign, square, logical_not), rounding (floor,
// ceil, round, trunc), selection (where) and dtype conversion (cast, convert).
#include <cmath>
#include <complex>
#include <type_traits>

#include "core/strided.hpp"
#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/elementwise_common.hpp"

namespace tenferro {
namespace detail {
namespace {

struct NegOp : UnaryDefaults {
  static constexpr const char* name = "neg";
  static constexpr bool sign_agnostic = true;  // Note [Sign-agnostic kernels]
  static constexpr Ints ints = Ints::native;
  static constexpr Rule rule = Rule::self_adjoint;
  template <class T>
  static T apply(T x) {
    return kernels::neg_of(x);
  }
};

struct ConjOp : UnaryDefaults {
  static constexpr const char* name = "conj";
  static constexpr bool sign_agnostic = true;  // Note [Sign-agnostic kernels]
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr bool identity_on_real = true;
  static constexpr Rule rule = Rule::self_adjoint;
  template <class T>
  static T apply(T x) {
    if constexpr (is_complex_v<T>)
      return std::conj(x);
    else
      return x;
  }
};

// |z| is not holomorphic: d|z| = Re(conj(z)/|z| dz), so grad_z = grad_y * z/|z| (0 at 0).
struct AbsOp : UnaryDefaults {
  static constexpr const char* name = "abs";
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr bool to_real = true;
  static constexpr Rule rule = Rule::custom;
  template <class T>
  static real_t<T> apply(T x) {
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>)
      return x;
    else if constexpr (std::is_integral_v<T>)
      return x < 0 ? kernels::neg_of(x) : x;  // |INT_MIN| wraps to INT_MIN, as NumPy
    else
      return std::abs(x);
  }
  static Tensor jvp(const Tensor& x, const Tensor& y, const Tensor& t) {
    return fit_tangent(t * conj(sign(x)), y);
  }
  static Tensor vjp(const Tensor& x, const Tensor&, const Tensor& ct) {
    return fit_cotangent(ct * sign(x), x);
  }
};

// sign is piecewise constant on the reals (derivative 0 almost everywhere), but on complex
// numbers s = z/|z| turns with the phase: ds = (dz - s Re(conj(s) dz)) / |z|, a real-linear map
// that is its own adjoint under Re<a, b>, so the vjp has the same form. 0 at z = 0, as PyTorch.
// (abs's second derivative goes through this rule: without it, hvp of |z| was silently wrong.)
struct SignOp : UnaryDefaults {
  static constexpr const char* name = "sign";
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr Rule rule = Rule::custom;
  template <class T>
  static T apply(T x) {
    return kernels::sign_of(x);
  }
  static Tensor phase_derivative(const Tensor& z, const Tensor& s, const Tensor& d) {
    if (!is_complex(z.dtype())) return 0.0 * d;
    const Tensor r = abs(z);
    const Tensor at_zero = eq(r, 0.0);
    const Tensor safe = r + cast(at_zero, r.dtype());
    return where(at_zero, 0.0 * d, (d - s * real(conj(s) * d)) / safe);
  }
  static Tensor jvp(const Tensor& x, const Tensor& y, const Tensor& t) {
    return phase_derivative(x, y, t);
  }
  static Tensor vjp(const Tensor& x, const Tensor& y, const Tensor& ct) {
    return phase_derivative(x, y, ct);
  }
};

struct SquareOp : UnaryDefaults {
  static constexpr const char* name = "square";
  static constexpr bool sign_agnostic = true;  // Note [Sign-agnostic kernels]
  static constexpr Ints ints = Ints::native;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T x) {
    return kernels::mul_of(x, x);  // Note [Complex products near overflow]
  }
  static Partial da(const Tensor& x, const Tensor&) { return 2.0 * x; }
};

// Rounding: piecewise constant (derivative 0 almost everywhere, so no gradient flows); the
// identity on bool and integers. round() is half to even, as NumPy and PyTorch.
struct RoundingDefaults : UnaryDefaults {
  static constexpr bool complex_ok = false;
  static constexpr const char* complex_why = "rounding is defined for real values only";
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr Rule rule = Rule::none;
  static constexpr bool sign_agnostic = true;  // the identity on integers
};
struct FloorOp : RoundingDefaults {
  static constexpr const char* name = "floor";
  template <class T>
  static T apply(T x) {
    if constexpr (std::is_integral_v<T>)
      return x;
    else
      return std::floor(x);
  }
};
struct CeilOp : RoundingDefaults {
  static constexpr const char* name = "ceil";
  template <class T>
  static T apply(T x) {
    if constexpr (std::is_integral_v<T>)
      return x;
    else
      return std::ceil(x);
  }
};
struct RoundOp : RoundingDefaults {
  static constexpr const char* name = "round";
  template <class T>
  static T apply(T x) {
    if constexpr (std::is_integral_v<T>)
      return x;
    else
      return std::nearbyint(x);  // the default rounding mode: half to even
  }
};

struct TruncOp : RoundingDefaults {
  static constexpr const char* name = "trunc";
  template <class T>
  static T apply(T x) {
    if constexpr (std::is_integral_v<T>)
      return x;
    else
      return std::trunc(x);  // toward zero; keeps the sign of 0, +-inf and NaN
  }
};

struct LogicalNotOp : UnaryDefaults {
  static constexpr const char* name = "logical_not";
  static constexpr bool sign_agnostic = true;  // Note [Sign-agnostic kernels]
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr bool to_bool = true;
  static constexpr Rule rule = Rule::none;
  template <class T>
  static bool apply(T x) {
    return x == T(0);
  }
};

// ---- where(cond, a, b) ----
template <class T>
struct SelectFn {
  T operator()(bool k, T x, T y) const { return k ? x : y; }
};
class WherePrim final : public PrimitiveWith<WherePrim> {
 public:
  std::string_view name() const override { return "where"; }
  bool accepts_integers() const override { return true; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    if (is_complex(in[0].dtype()))
      throw Error(
          ErrorKind::DTypeMismatch,
          "where: the condition must be bool or real (non-zero means true), got " + describe(in));
    Dims shape = broadcast_shapes("where", in);
    out.push_back({promote(in[1].dtype(), in[2].dtype()), std::move(shape)});
  }
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_dtype(out[0].dtype(), [&](auto z) {
      using T = decltype(z);
      Tensor hc, ha, hb;
      const Tensor& c = with_dtype(in[0], DType::boolean, hc);  // non-zero is true
      const Tensor& a = with_dtype(in[1], dtype_v<T>, ha);
      const Tensor& b = with_dtype(in[2], dtype_v<T>, hb);
      kernels::map3(ctx, &kernels::ternary_run<T, bool, T, SelectFn<T>>,
                    kernels::erase(out_view<T>(out[0])), kernels::erase(in_view<bool>(c)),
                    kernels::erase(in_view<T>(a)), kernels::erase(in_view<T>(b)));
    });
  }
  bool writes_strided_output() const override { return true; }
  void jvp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (!t[1].defined() && !t[2].defined()) return;
    const Tensor zero = scalar_tensor(0.0, y[0].dtype());
    out_t[0] =
        fit_tangent(where(x[0], t[1].defined() ? t[1] : zero, t[2].defined() ? t[2] : zero), y[0]);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined()) return;
    const Tensor zero = scalar_tensor(0.0, ct[0].dtype());
    if (needs[1]) in_ct[1] = fit_cotangent(where(x[0], ct[0], zero), x[1]);
    if (needs[2]) in_ct[2] = fit_cotangent(where(x[0], zero, ct[0]), x[2]);
  }
};

// ---- cast: a linear op whose transpose is the cast back ----
template <class D, class S>
struct ConvertFn {
  D operator()(S v) const { return convert_element<D>(v); }
};
class CastPrim final : public PrimitiveWith<CastPrim> {
 public:
  explicit CastPrim(DType to) : to_(to) {}
  std::string_view name() const override { return "cast"; }
  bool accepts_integers() const override { return true; }
  std::string params() const override { return "dtype=" + std::string(dtype_name(to_)); }
  auto key() const { return std::tie(to_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({to_, in[0].shape()});
  }
  bool try_view(const Tensor& x, Tensor& out) const override {
    if (x.dtype() != to_) return false;
    out = x;
    return true;
  }
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_dtype(in[0].dtype(), [&](auto zi) {
      using S = decltype(zi);
      visit_dtype(to_, [&](auto zo) {
        using D = decltype(zo);
        kernels::map1(ctx, &kernels::unary_run<D, S, ConvertFn<D, S>>,
                      kernels::erase(out_view<D>(out[0])), kernels::erase(in_view<S>(in[0])));
      });
    });
  }
  bool writes_strided_output() const override { return true; }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined() && is_floating(to_)) out_t[0] = cast(t[0], to_);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (ct[0].defined() && needs[0]) in_ct[0] = cast(ct[0], x[0].dtype());
  }

 private:
  DType to_;
};

}  // namespace

std::shared_ptr<const Primitive> find_elementwise_unary(std::string_view name) {
  if (name == "where") return std::make_shared<WherePrim>();
  return find_unary<NegOp, ConjOp, AbsOp, SignOp, SquareOp, LogicalNotOp, FloorOp, CeilOp, RoundOp,
                    TruncOp>(name);
}

}  // namespace detail

using detail::apply_unary;
using detail::unary_into;

Tensor neg(const Tensor& x) { return apply_unary<detail::NegOp>(x); }
Tensor operator-(const Tensor& x) { return neg(x); }
Tensor conj(const Tensor& x) { return apply_unary<detail::ConjOp>(x); }
Tensor abs(const Tensor& x) { return apply_unary<detail::AbsOp>(x); }
Tensor sign(const Tensor& x) { return apply_unary<detail::SignOp>(x); }
Tensor square(const Tensor& x) { return apply_unary<detail::SquareOp>(x); }
Tensor logical_not(const Tensor& x) { return apply_unary<detail::LogicalNotOp>(x); }
Tensor floor(const Tensor& x) { return apply_unary<detail::FloorOp>(x); }
Tensor ceil(const Tensor& x) { return apply_unary<detail::CeilOp>(x); }
Tensor round(const Tensor& x) { return apply_unary<detail::RoundOp>(x); }
Tensor trunc(const Tensor& x) { return apply_unary<detail::TruncOp>(x); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const Tensor in[3] = {cond, a, b};
  return detail::bind1(detail::WherePrim(), in);
}
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b) { return where(cond, a, b); }

Tensor cast(const Tensor& x, DType dtype) {
  return detail::bind1(detail::CastPrim(dtype), std::span<const Tensor>(&x, 1));
}
Tensor convert(const Tensor& x, DType dtype) {
  if (x.defined() && !is_lossless_cast(x.dtype(), dtype))
    throw Error(ErrorKind::DTypeMismatch,
                "convert: " + std::string(dtype_name(x.dtype())) + " -> " +
                    std::string(dtype_name(dtype)) + " loses " +
                    (is_complex(x.dtype()) && !is_complex(dtype)    ? "the imaginary part"
                     : is_floating(x.dtype()) && is_integral(dtype) ? "fractions and range"
                     : is_integral(x.dtype()) && is_integral(dtype) ? "range"
                                                                    : "precision") +
                    " (input " + dims_to_string(x.shape()) +
                    "); expected a lossless conversion, or use cast() to convert explicitly");
  return cast(x, dtype);
}

void neg_into(Tensor& out, const Tensor& x) { unary_into<detail::NegOp>(out, x); }
void conj_into(Tensor& out, const Tensor& x) { unary_into<detail::ConjOp>(out, x); }
void abs_into(Tensor& out, const Tensor& x) { unary_into<detail::AbsOp>(out, x); }
void square_into(Tensor& out, const Tensor& x) { unary_into<detail::SquareOp>(out, x); }

}  // namespace tenferro
