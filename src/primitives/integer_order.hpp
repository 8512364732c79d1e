// Note [Exact u64-with-signed comparisons]: u64 with a signed integer promotes to f64
// (docs/dtypes.md), where values above 2^53 round, so comparing in the promoted dtype would say
// u64 2^63 == i64 2^63 - 1 and u64 2^53 + 1 == i64 2^53. Every op that compares or orders the
// values of two operands compares such a pair exactly instead (as NumPy 2): eq/ne/lt/le/gt/ge
// (elementwise_compare.cpp) and searchsorted (sets.cpp). This names the pair.
#pragma once

#include "tenferro/dtype.hpp"

namespace tenferro::detail {

/// Whether two integer (or bool) dtypes promote to a floating dtype, where large values round:
/// u64 with a signed integer (f64).
constexpr bool integers_promote_inexactly(DType a, DType b) noexcept {
  return is_integral(a) && is_integral(b) && !is_integral(promote(a, b));
}

}  // namespace tenferro::detail
