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
template <class T>
T mul_of(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(
        static_cast<wrap_t<T>>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b)));
  else
    return a * b;
}
template <class T>
T neg_of(T a) {
  if constexpr (std::is_integral_v<T>)
    return sub_of(T(0), a);
  else
    return -a;
}

}  // namespace tenferro::detail::kernels
