// Complex products and quotients of the elementwise ops (mul, square, div) that stay right near
// overflow: std::complex's operators (libgcc's __muldc3 / __divdc3, with C99 Annex G's infinities)
// give their bits everywhere except where they return a NaN or infinite part for finite operands,
// which is recomputed on operands scaled by powers of two.
#pragma once

#include <algorithm>
#include <cmath>

#include "cpu/kernels/elementwise_math.hpp"
#include "tenferro/dtype.hpp"

namespace tenferro::detail {

/// Note [Complex products near overflow]: the textbook product (ac - bd) + (ad + bc)i, which
/// __muldc3 computes and repairs only when both parts are NaN, gives inf - inf = NaN for a part
/// whose two terms overflow with opposite signs: (1e200 + 1e200j) ** 2 was NaN + inf j (exactly
/// 0 + 2e400 j: +0 + inf j), c64 (1e27 - 2e26j) * itself NaN - inf j (inf - inf j). For finite
/// operands with a non-finite product, each operand is scaled by a power of two so that its
/// larger part is in [1, 2), multiplied (no overflow: parts below 8) and the exponents are
/// applied last, so a part is infinite only when it exceeds the range and an exact 0 stays 0.
template <class T>
T mul_of(T a, T b) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const T p = a * b;
    if (std::isfinite(p.real()) && std::isfinite(p.imag())) return p;
    const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    if (!std::isfinite(ar) || !std::isfinite(ai) || !std::isfinite(br) || !std::isfinite(bi))
      return p;  // Annex G's infinities and NaN stay libgcc's
    // Finite operands cannot be 0 here (the product would be 0).
    const int ea = std::ilogb(std::max(std::abs(ar), std::abs(ai)));
    const int eb = std::ilogb(std::max(std::abs(br), std::abs(bi)));
    const R x = std::scalbn(ar, -ea), y = std::scalbn(ai, -ea);
    const R c = std::scalbn(br, -eb), d = std::scalbn(bi, -eb);
    return T(std::scalbn(x * c - y * d, ea + eb), std::scalbn(x * d + y * c, ea + eb));
  } else {
    return kernels::mul_of(a, b);
  }
}

/// Complex a / b: std::complex's division (libgcc's __divdc3, C99 Annex G's infinities), except
/// where it gives a NaN or an infinite part for finite a and finite non-zero b.
///
/// Note [Complex division near overflow]: GCC 12's __divdc3 / __divsc3 compute c * (b / d) when
/// c / d underflows, and b / d can overflow while the true part is finite, so a quotient with one
/// overflowing part got NaN or inf for the other ((1 + 1j) / 5e-324j was NaN + NaN j, not
/// inf - inf j; 1e154j / 1e-300j was inf + NaN j, not inf + 0j; about 3% of random quotients with
/// parts between 1e-340 and 1e308 had one). There the parts of both operands are scaled by powers
/// of two (exact) so that the larger part of each is in [1, 2), the quotient of the scaled values
/// is computed as (a conj(b)) / |b|^2 without overflow, and the exponent is applied last, so only
/// a part that really exceeds the range is infinite. Other quotients keep libgcc's bits.
template <class T>
T div_of(T a, T b) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const T q = a / b;
    if (std::isfinite(q.real()) && std::isfinite(q.imag())) return q;
    const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    if (!std::isfinite(ar) || !std::isfinite(ai) || !std::isfinite(br) || !std::isfinite(bi) ||
        (br == 0 && bi == 0))
      return q;  // Annex G's infinities, NaN and division by zero stay libgcc's
    const int eb = std::ilogb(std::max(std::abs(br), std::abs(bi)));
    const R amax = std::max(std::abs(ar), std::abs(ai));
    const int ea = amax == 0 ? 0 : std::ilogb(amax);
    const R c = std::scalbn(br, -eb), d = std::scalbn(bi, -eb);
    const R x = std::scalbn(ar, -ea), y = std::scalbn(ai, -ea);
    const R n = c * c + d * d;  // in [1, 8)
    return T(std::scalbn((x * c + y * d) / n, ea - eb), std::scalbn((y * c - x * d) / n, ea - eb));
  } else {
    return a / b;
  }
}

}  // namespace tenferro::detail
