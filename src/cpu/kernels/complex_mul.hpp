// x * y for the small kernels' inner loops: for complex T the textbook formula, without the
// NaN/Inf recovery of std::complex's operator* (a library call for every product at -O2 without
// -ffast-math); for real T plain x * y.
#pragma once

#include "tenferro/dtype.hpp"

namespace tenferro::detail {

template <class T>
inline T fast_mul(const T& x, const T& y) noexcept {
  if constexpr (is_complex_v<T>) {
    return T(x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real());
  } else {
    return x * y;
  }
}

}  // namespace tenferro::detail
