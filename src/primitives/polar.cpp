// Angles, complex parts and the polar form: atan2, angle, imag and times_i are elementwise catalog
// ops built from the generic UnaryPrim/BinaryPrim (elementwise_common.hpp); polar is a composite
// of complex(), cos, sin, mul.
#include <cmath>
#include <complex>
#include <numbers>
#include <string>

#include "primitives/elementwise_common.hpp"

namespace tenferro {
namespace detail {

Tensor times_i(const Tensor& z);

namespace {

struct Atan2Op : BinaryDefaults {
  static constexpr const char* name = "atan2";
  static constexpr bool complex_ok = false;
  static constexpr const char* complex_why = "atan2 is defined on real values (use angle())";
  static constexpr std::int64_t cost = kernels::kTranscendentalCost;
  static constexpr Rule rule = Rule::holomorphic;  // real-only: the partials are plain derivatives
  template <class T>
  static T apply(T y, T x) {
    return std::atan2(y, x);
  }
  // d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2), in the result's dtype (an integer operand
  // is converted first so x^2 cannot wrap). NaN at the origin, as PyTorch.
  static Partial da(const Tensor& y, const Tensor& x, const Tensor& out) {
    const Tensor fy = cast(y, out.dtype()), fx = cast(x, out.dtype());
    return fx / (fx * fx + fy * fy);
  }
  static Partial db(const Tensor& y, const Tensor& x, const Tensor& out) {
    const Tensor fy = cast(y, out.dtype()), fx = cast(x, out.dtype());
    return -fy / (fx * fx + fy * fy);
  }
};

// |z|^2 with 1 where z == 0, so the rules below never divide 0 by 0 (a NaN there would reach
// second derivatives through where()'s untaken branch).
Tensor safe_abs2(const Tensor& z, const Tensor& zero) {
  const Tensor a = abs(z);
  return where(zero, scalar_tensor(1.0, a.dtype()), a * a);
}

struct AngleOp : UnaryDefaults {
  static constexpr const char* name = "angle";
  static constexpr bool to_real = true;
  static constexpr std::int64_t cost = kernels::kTranscendentalCost;
  static constexpr Rule rule = Rule::custom;
  template <class T>
  static real_t<T> apply(T v) {
    if constexpr (is_complex_v<T>) {
      return std::arg(v);
    } else {
      // PyTorch: pi for negative reals, 0 otherwise (also -0; NumPy gives pi there), NaN stays NaN.
      if (std::isnan(v)) return v;
      return v < 0 ? std::numbers::pi_v<T> : T(0);
    }
  }
  // d angle = Im(conj(z) dz) / |z|^2; 0 at z == 0 and for real z (piecewise constant).
  static Tensor jvp(const Tensor& z, const Tensor& y, const Tensor& t) {
    if (!is_complex(z.dtype())) return Tensor();
    const Tensor zero = eq(z, 0.0);
    const Tensor d = imag(conj(z) * t) / safe_abs2(z, zero);
    return fit_tangent(where(zero, zeros({}, d.dtype()), d), y);
  }
  // PyTorch's angle_backward: grad * z * i / |z|^2, 0 at z == 0; a real input gets 0.
  static Tensor vjp(const Tensor& z, const Tensor&, const Tensor& ct) {
    if (!is_complex(z.dtype())) return zeros(z.shape(), z.dtype());
    const Tensor zero = eq(z, 0.0);
    const Tensor g = ct * (z * Scalar(0, 1)) / safe_abs2(z, zero);
    return fit_cotangent(where(zero, zeros({}, g.dtype()), g), z);
  }
};

// Note [Exact complex parts]: imag(z) as Re(-i z) and complex(re, im) as re + i im go through a
// complex product, where inf * 0 is NaN and a -0 part turns +0: imag(inf + 1j) was NaN and
// complex(1, inf) NaN + inf j. Two exact element functions instead: imag reads the part, and
// times_i maps a + bi to -b + ai (i z without arithmetic); complex() is conj(re + 0i) + i (im +
// 0i), whose parts are re + (-0) and (-0) + im, so signed zeros, infinities and NaNs pass as they
// are. Both are linear: d imag = imag(dz) and its VJP is i ct (Note [Complex gradients]); times_i's
// adjoint is -i.
struct ImagOp : UnaryDefaults {
  static constexpr const char* name = "imag";
  static constexpr bool to_real = true;
  static constexpr Rule rule = Rule::custom;
  template <class T>
  static real_t<T> apply(T v) {
    if constexpr (is_complex_v<T>)
      return v.imag();
    else
      return T(0);
  }
  static Tensor jvp(const Tensor& z, const Tensor& y, const Tensor& t) {
    if (!is_complex(z.dtype())) return Tensor();
    return fit_tangent(imag(t), y);
  }
  static Tensor vjp(const Tensor& z, const Tensor&, const Tensor& ct) {
    if (!is_complex(z.dtype())) return zeros(z.shape(), z.dtype());
    return fit_cotangent(times_i(cast(ct, z.dtype())), z);
  }
};

// i z for complex z (public complex() binds it on complex tensors only; a real z is itself).
struct TimesIOp : UnaryDefaults {
  static constexpr const char* name = "times_i";
  static constexpr Rule rule = Rule::custom;
  template <class T>
  static T apply(T v) {
    if constexpr (is_complex_v<T>)
      return T(-v.imag(), v.real());
    else
      return v;
  }
  static Tensor jvp(const Tensor&, const Tensor& y, const Tensor& t) {
    return fit_tangent(times_i(cast(t, y.dtype())), y);
  }
  static Tensor vjp(const Tensor& z, const Tensor&, const Tensor& ct) {
    return fit_cotangent(-times_i(ct), z);
  }
};

void require_real_floating(const Tensor& abs_t, const Tensor& angle_t) {
  if (!abs_t.defined() || !angle_t.defined())
    throw Error(ErrorKind::InvalidArgument, "polar: an input tensor is undefined");
  const Tensor in[2] = {abs_t, angle_t};
  const DType a = abs_t.dtype(), b = angle_t.dtype();
  if (a != b || (a != DType::f32 && a != DType::f64))
    throw Error(ErrorKind::DTypeMismatch,
                "polar: expected abs and angle of one real floating dtype (f32 or f64), got " +
                    describe(in));
}

}  // namespace

std::shared_ptr<const Primitive> find_polar(std::string_view name, ScalarSide side, Scalar s) {
  if (auto p = find_unary<AngleOp, ImagOp, TimesIOp>(name)) return p;
  return find_binary<Atan2Op>(name, side, s);
}

}  // namespace detail

Tensor atan2(const Tensor& y, const Tensor& x) {
  return detail::bind1(detail::BinaryPrim<detail::Atan2Op>(), y, x);
}

Tensor angle(const Tensor& z) { return detail::apply_unary<detail::AngleOp>(z); }

namespace detail {
Tensor times_i(const Tensor& z) { return apply_unary<TimesIOp>(z); }
Tensor imag_part(const Tensor& z) { return apply_unary<ImagOp>(z); }
}  // namespace detail

Tensor polar(const Tensor& abs, const Tensor& angle) {
  detail::require_real_floating(abs, angle);
  return complex(abs * cos(angle), abs * sin(angle));
}

}  // namespace tenferro
