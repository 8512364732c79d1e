// Scalar math used by the elementwise primitives where std:: has no (complex) version.
//
// Note [Complex expm1 and log1p]: std:: has no complex expm1/log1p. We use the formulas that
// keep full relative accuracy near zero, where exp(z) - 1 and log(1 + z) cancel:
//   expm1(x + iy) = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y
//   log1p(x + iy) = 0.5 log1p(2x + x^2 + y^2) + i atan2(y, 1 + x)     (|x|, |y| < 1/2)
// and plain log(1 + z) away from zero, where it is accurate and x^2 + y^2 could overflow.
// expm1 of a non-finite part is exp(z) - 1, whose special cases the standard lists.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tenferro/dtype.hpp"

namespace tenferro::detail::kernels {

template <class T>
T expm1_of(T z) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const R x = z.real(), y = z.imag();
    // A non-finite part: the standard's special cases are those of exp(z) - 1 (C99's cexp, which
    // std::exp follows), e.g. expm1(inf + 0j) = inf + 0j, expm1(-inf + inf j) = -1 +- 0j,
    // expm1(NaN + 0j) = NaN + 0j. The formula below gives NaN + NaN j there (inf * cos 0 - 0 is
    // inf, but e^inf * sin 0 is inf * 0). The imaginary part is exp's, so its zero keeps its sign.
    if (!std::isfinite(x) || !std::isfinite(y)) {
      const T e = std::exp(z);
      return T(e.real() - 1, e.imag());
    }
    const R h = std::sin(y / 2);
    return T(std::expm1(x) * std::cos(y) - 2 * h * h, std::exp(x) * std::sin(y));
  } else {
    return std::expm1(z);
  }
}

template <class T>
T log1p_of(T z) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const R x = z.real(), y = z.imag();
    if (std::abs(x) < R(0.5) && std::abs(y) < R(0.5))
      return T(R(0.5) * std::log1p(2 * x + x * x + y * y), std::atan2(y, 1 + x));
    return std::log(T(1 + x, y));  // not T(1) + z: -0 + 0 would lose y's sign (branch cut)
  } else {
    return std::log1p(z);
  }
}

/// The Array API's isnan: false for bool and integers; a complex value is NaN when either part is.
template <class T>
bool is_nan_of(T x) {
  if constexpr (std::is_integral_v<T>)
    return false;
  else if constexpr (is_complex_v<T>)
    return std::isnan(x.real()) || std::isnan(x.imag());
  else
    return std::isnan(x);
}

/// x/|x| (0 at 0); for real x: -1, 0 or 1.
template <class T>
T sign_of(T z) {
  if constexpr (is_complex_v<T>) {
    // The standard's special cases: NaN in either part gives NaN + NaN j (std::abs of
    // (NaN, inf) is inf, so z / |z| alone would not say NaN), a zero gives 0.
    // Finite z is scaled by a power of two (exact) so that its larger part is in [1, 2) first:
    // |z| itself overflows for |z| > max (sign(3e38 + 3e38j) in c64 was 0) and rounds in the
    // subnormals (sign(5e-324 + 5e-324j) was 1 + 1j). An infinite part keeps z / |z|, the
    // standard's "as complex division" by a real inf (sign(inf j) is 0 + NaN j).
    using R = real_t<T>;
    const R nan = std::numeric_limits<R>::quiet_NaN();
    if (is_nan_of(z)) return T(nan, nan);
    const R x = z.real(), y = z.imag();
    if (!std::isfinite(x) || !std::isfinite(y)) return z / std::abs(z);
    if (x == 0 && y == 0) return T(0);
    const int e = std::ilogb(std::max(std::abs(x), std::abs(y)));
    const T w(std::scalbn(x, -e), std::scalbn(y, -e));
    return w / std::abs(w);
  } else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return static_cast<T>(z != 0);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (z != z) return z;  // NaN stays NaN (the comparisons below would give 0)
    return static_cast<T>((z > 0) - (z < 0));
  } else {
    return static_cast<T>((z > 0) - (z < 0));
  }
}

/// NumPy maximum/minimum: a NaN in either operand propagates.
template <class T>
T maximum_of(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return a > b ? a : b;
  else
    return (a > b || std::isnan(a)) ? a : b;
}
template <class T>
T minimum_of(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return a < b ? a : b;
  else
    return (a < b || std::isnan(a)) ? a : b;
}

// Integer arithmetic wraps modulo 2^bits (two's complement, as NumPy and PyTorch do): computed in
// an unsigned type, where overflow is defined, so no signed-overflow UB (docs/dtypes.md). It is
// at least `unsigned int` wide: u8/u16 operands would otherwise promote to (signed) int, and
// 65535 * 65535 overflows int. The conversion back to T keeps the low bits (C++20: modular).
template <class T>
using wrap_t = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
template <class T>
T add_of(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(
        static_cast<wrap_t<T>>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b)));
  else
    return a + b;
}
template <class T>
T sub_of(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(
        static_cast<wrap_t<T>>(static_cast<wrap_t<T>>(a) - static_cast<wrap_t<T>>(b)));
  else
    return a - b;
}

// Note [Complex products near overflow]: std::complex's product (libgcc's __muldc3, C99 Annex G's
// infinities) is the textbook (ac - bd) + (ad + bc)i, repaired only where both parts come out
// NaN. For finite operands its parts are accurate wherever they are finite, but a part whose
// two terms overflow is inf - inf = NaN ((1e200 + 1e200j) ** 2 was NaN + inf j; exactly
// 0 + 2e400 j) or a spurious inf (a term beyond the range cancelled by the other). Where the
// product of finite operands has a non-finite part, both parts are recomputed in XReal, a
// mantissa in [0.5, 1) with a 64-bit exponent, so no term overflows or underflows: each part is
// then within a few ulp of the exact value and infinite only where it exceeds the range. Each
// part keeps its own exponent: scaling both parts of an operand by one power of two (as this
// code did) flushed a part far smaller than the other to zero, 3j * (1e-30 + 1.8e308j) gave
// -inf + 0j instead of -inf + 3e-30j. Other products keep libgcc's bits. Division is the same
// (Note [Complex division near overflow]); prod, cumprod and integer powers multiply many
// factors in XComplex (ProdAcc), so an intermediate beyond the range never turns into NaN.
template <class R>
struct XReal {
  R m = 0;             // 0 or 0.5 <= |m| < 1 (std::frexp's form); the sign of a zero is kept
  std::int64_t e = 0;  // the value is m * 2^e
};
template <class R>
XReal<R> x_real(R v) {  // v finite
  int e = 0;
  const R m = std::frexp(v, &e);
  return {m, e};
}
template <class R>
XReal<R> x_normal(R s, std::int64_t e) {  // s * 2^e for a finite s
  if (s == 0) return {s, 0};
  int k = 0;
  const R m = std::frexp(s, &k);
  return {m, e + k};
}
template <class R>
R x_value(XReal<R> x) {  // rounded once (a subnormal result) or saturated to +-inf, +-0
  return std::ldexp(x.m, static_cast<int>(std::clamp<std::int64_t>(x.e, -8192, 8192)));
}
/// a b + c d without overflow or underflow of the terms: each product is exact to one rounding
/// (|m| in [0.25, 1)); the smaller term is shifted to the larger one's exponent (what it loses
/// there is far below an ulp of the sum); a zero term is exactly zero, signs of zero as IEEE's.
template <class R>
XReal<R> x_dot2(XReal<R> a, XReal<R> b, XReal<R> c, XReal<R> d) {
  constexpr std::int64_t kZero = std::numeric_limits<std::int64_t>::min() / 4;
  const R p = a.m * b.m, q = c.m * d.m;
  const std::int64_t ep = p == 0 ? kZero : a.e + b.e, eq = q == 0 ? kZero : c.e + d.e;
  const std::int64_t e = std::max(ep, eq);
  auto shift = [](std::int64_t k) { return static_cast<int>(std::max<std::int64_t>(k, -8192)); };
  return x_normal(std::ldexp(p, shift(ep - e)) + std::ldexp(q, shift(eq - e)), e);
}
template <class R>
XReal<R> x_neg(XReal<R> a) {
  return {-a.m, a.e};
}
template <class C>
struct XComplex {
  XReal<real_t<C>> re, im;
};
template <class C>
XComplex<C> x_complex(C z) {  // z finite
  return {x_real(z.real()), x_real(z.imag())};
}
template <class C>
C x_value(const XComplex<C>& z) {
  return C(x_value(z.re), x_value(z.im));
}
template <class C>
XComplex<C> x_mul(const XComplex<C>& a, const XComplex<C>& b) {
  return {x_dot2(a.re, b.re, x_neg(a.im), b.im), x_dot2(a.re, b.im, a.im, b.re)};
}
/// a / b = a conj(b) / |b|^2 for b != 0, each part a quotient of mantissas in [0.25, 1).
template <class C>
XComplex<C> x_div(const XComplex<C>& a, const XComplex<C>& b) {
  const auto den = x_dot2(b.re, b.re, b.im, b.im);
  const auto re = x_dot2(a.re, b.re, a.im, b.im), im = x_dot2(a.im, b.re, x_neg(a.re), b.im);
  return {x_normal(re.m / den.m, re.e - den.e), x_normal(im.m / den.m, im.e - den.e)};
}
template <class C>
bool finite_c(C z) {
  return std::isfinite(z.real()) && std::isfinite(z.imag());
}

template <class T>
T mul_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(
        static_cast<wrap_t<T>>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b)));
  } else if constexpr (is_complex_v<T>) {
    const T p = a * b;
    if (finite_c(p) || !finite_c(a) || !finite_c(b)) return p;  // Annex G's infinities and NaN
    return x_value(x_mul(x_complex(a), x_complex(b)));
  } else {
    return a * b;
  }
}

/// Complex a / b: std::complex's division (libgcc's __divdc3, C99 Annex G's infinities), except
/// where it gives a NaN or an infinite part for finite a and finite non-zero b.
///
/// Note [Complex division near overflow]: GCC 12's __divdc3 / __divsc3 compute c * (b / d) when
/// c / d underflows, and b / d can overflow while the true part is finite, so a quotient with one
/// overflowing part got NaN or inf for the other ((1 + 1j) / 5e-324j was NaN + NaN j, not
/// inf - inf j; 1e154j / 1e-300j was inf + NaN j, not inf + 0j; about 3% of random quotients with
/// parts between 1e-340 and 1e308 had one). There the quotient is recomputed in XComplex (Note
/// [Complex products near overflow]), so only a part that really exceeds the range is infinite
/// and a part far smaller than the other is kept (c64 (-1 + 1e-45j) / -1e-40j is
/// -1.4e-5 - inf j). Other quotients keep libgcc's bits.
template <class T>
T div_of(T a, T b) {
  if constexpr (is_complex_v<T>) {
    const T q = a / b;
    if (finite_c(q) || !finite_c(a) || !finite_c(b) || (b.real() == 0 && b.imag() == 0))
      return q;  // Annex G's infinities, NaN and division by zero stay libgcc's
    return x_value(x_div(x_complex(a), x_complex(b)));
  } else {
    return a / b;
  }
}

/// Note [Complex products of many factors]: the accumulator of complex prod, cumprod and integer
/// powers. It multiplies as mul_of while the running product is finite; once a product of finite
/// factors has a non-finite part it continues in XComplex, whose parts cannot overflow, so a
/// chain such as (1e200 + 0j) (1e200 + 0j) (1 + 0j) is inf + 0j (mul_of twice gives inf + 0j and
/// then (inf + 0j) (1 + 0j) = inf + NaN j) and a product that comes back into range is finite.
/// A factor with an infinite or NaN part makes the rest std::complex's products (Annex G).
template <class C>
struct ProdAcc {
  C v = C(1);       // the value while !ext
  XComplex<C> x{};  // the value while ext
  bool ext = false;
  ProdAcc() = default;
  explicit ProdAcc(C z) : v(z) {}
  explicit operator C() const { return ext ? x_value(x) : v; }
};
template <class C>
ProdAcc<C> prod_acc_mul(const ProdAcc<C>& a, const ProdAcc<C>& b) {
  ProdAcc<C> r;
  if (!a.ext && !b.ext) {
    r.v = a.v * b.v;
    if (finite_c(r.v) || !finite_c(a.v) || !finite_c(b.v)) return r;
  } else if ((!a.ext && !finite_c(a.v)) || (!b.ext && !finite_c(b.v))) {
    r.v = static_cast<C>(a) * static_cast<C>(b);
    return r;
  }
  r.x = x_mul(a.ext ? a.x : x_complex(a.v), b.ext ? b.x : x_complex(b.v));
  r.ext = true;
  return r;
}
template <class T>
T neg_of(T a) {
  if constexpr (std::is_integral_v<T>)
    return sub_of(T(0), a);
  else
    return -a;
}

}  // namespace tenferro::detail::kernels
