// References for tests of complex products near the range ends (prod, cumprod): the running
// product of c128 factors in long double, whose range holds products that overflow double, and
// the comparison of a result's parts with it.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <utility>

#include "tenferro/dtype.hpp"

namespace tenferro::testing {

using cld = std::complex<long double>;

/// acc * z, the textbook formula in long double (no overflow for the factors these tests use).
inline cld times(const cld& acc, c128 z) {
  return {acc.real() * z.real() - acc.imag() * z.imag(),
          acc.real() * z.imag() + acc.imag() * z.real()};
}

/// Each part of `got` against `want` rounded to the result's precision (`single`: c64): equal
/// where that is infinite or zero, else within 1e-6 (c64) or 1e-14 (c128) relative.
inline void expect_parts_near(c128 got, const cld& want, bool single, const std::string& where) {
  for (const auto& [g, w] :
       {std::pair{got.real(), want.real()}, std::pair{got.imag(), want.imag()}}) {
    const double wr = single ? static_cast<float>(w) : static_cast<double>(w);
    if (std::isinf(wr) || wr == 0)
      EXPECT_EQ(g, wr) << where << ": " << got;
    else
      EXPECT_NEAR(g, wr, std::abs(wr) * (single ? 1e-6 : 1e-14)) << where << ": " << got;
  }
}

}  // namespace tenferro::testing
