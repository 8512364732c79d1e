// The elementwise op table (STYLE.md point 7): one row per primitive with its public function,
// an independent reference in std::complex<long double>, the input domain, the dtypes it is
// defined on and its tolerances. Generic suites (eager vs reference here; finite-difference
// JVP/VJP checks in the autodiff tests) iterate over these rows: adding an op adds a row.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "tenferro/ops.hpp"

namespace tenferro::testing {

using cld = std::complex<long double>;

/// Where inputs are drawn from (each part of a complex value independently).
enum class Domain {
  any,              // [-2, 2)
  positive,         // [0.2, 2.2)
  above_minus_one,  // [-0.8, 0.8)
  nonzero,          // +-[0.3, 2)
  small_ints,       // {-1, 0, 1}: comparisons and maximum see ties
  above_one,        // [1.2, 3.2): acosh
};

struct UnaryRow {
  const char* name;
  Tensor (*fn)(const Tensor&);
  void (*into)(Tensor&, const Tensor&);  // null when the op has no _into form
  cld (*ref)(cld);
  Domain domain;
  bool complex_ok;  // defined on c64/c128
  bool to_real;     // complex input gives a real result (abs)
  bool differentiable;
  double tol32, tol64;  // |got - ref| <= tol * (1 + |ref|)
};

struct BinaryRow {
  const char* name;
  Tensor (*fn)(const Tensor&, const Tensor&);
  Tensor (*fn_scalar)(const Tensor&, Scalar);  // x op s; null when absent
  void (*into)(Tensor&, const Tensor&, const Tensor&);
  cld (*ref)(cld, cld);
  Domain domain_a, domain_b;
  bool complex_ok;
  bool to_real;  // comparisons: a bool result
  bool differentiable;
  double tol32, tol64;
};

inline cld ref_sign(cld z) { return z == cld(0) ? cld(0) : z / std::abs(z); }
inline cld ref_max(cld a, cld b) { return a.real() >= b.real() ? a : b; }
inline cld ref_min(cld a, cld b) { return a.real() <= b.real() ? a : b; }
inline cld ref_bool(bool v) { return v ? 1.0L : 0.0L; }
inline constexpr long double kRefLn2 = 0.693147180559945309417232121458176568L;
inline constexpr long double kRefLn10 = 2.302585092994045684017960334075684L;
inline cld ref_logaddexp(cld a, cld b) {
  const long double x = a.real(), y = b.real(), m = std::max(x, y);
  return m + std::log(std::exp(x - m) + std::exp(y - m));
}

// clang-format off
inline const std::vector<UnaryRow>& unary_table() {
  static const std::vector<UnaryRow> rows = {
    {"neg", [](const Tensor& x) { return neg(x); }, neg_into, [](cld z) { return -z; }, Domain::any, true, false, true, 0, 0},
    {"conj", [](const Tensor& x) { return conj(x); }, conj_into, [](cld z) { return std::conj(z); }, Domain::any, true, false, true, 0, 0},
    {"abs", [](const Tensor& x) { return abs(x); }, abs_into, [](cld z) { return cld(std::abs(z)); }, Domain::nonzero, true, true, true, 1e-6, 1e-14},
    {"sign", [](const Tensor& x) { return sign(x); }, nullptr, ref_sign, Domain::small_ints, true, false, true, 1e-6, 1e-14},
    {"square", [](const Tensor& x) { return square(x); }, square_into, [](cld z) { return z * z; }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"exp", [](const Tensor& x) { return exp(x); }, exp_into, [](cld z) { return std::exp(z); }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"log", [](const Tensor& x) { return log(x); }, log_into, [](cld z) { return std::log(z); }, Domain::positive, true, false, true, 1e-6, 1e-14},
    {"sin", [](const Tensor& x) { return sin(x); }, sin_into, [](cld z) { return std::sin(z); }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"cos", [](const Tensor& x) { return cos(x); }, cos_into, [](cld z) { return std::cos(z); }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"tanh", [](const Tensor& x) { return tanh(x); }, tanh_into, [](cld z) { return std::tanh(z); }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"sqrt", [](const Tensor& x) { return sqrt(x); }, sqrt_into, [](cld z) { return std::sqrt(z); }, Domain::positive, true, false, true, 1e-6, 1e-14},
    {"rsqrt", [](const Tensor& x) { return rsqrt(x); }, rsqrt_into, [](cld z) { return 1.0L / std::sqrt(z); }, Domain::positive, true, false, true, 1e-6, 1e-14},
    {"expm1", [](const Tensor& x) { return expm1(x); }, expm1_into, [](cld z) { return std::exp(z) - 1.0L; }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"log1p", [](const Tensor& x) { return log1p(x); }, log1p_into, [](cld z) { return std::log(1.0L + z); }, Domain::above_minus_one, true, false, true, 1e-6, 1e-14},
    {"tan", [](const Tensor& x) { return tan(x); }, nullptr, [](cld z) { return std::tan(z); }, Domain::above_minus_one, true, false, true, 1e-6, 1e-14},
    {"sinh", [](const Tensor& x) { return sinh(x); }, nullptr, [](cld z) { return std::sinh(z); }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"cosh", [](const Tensor& x) { return cosh(x); }, nullptr, [](cld z) { return std::cosh(z); }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"asin", [](const Tensor& x) { return asin(x); }, nullptr, [](cld z) { return std::asin(z); }, Domain::above_minus_one, true, false, true, 1e-5, 1e-13},
    {"acos", [](const Tensor& x) { return acos(x); }, nullptr, [](cld z) { return std::acos(z); }, Domain::above_minus_one, true, false, true, 1e-5, 1e-13},
    {"atan", [](const Tensor& x) { return atan(x); }, nullptr, [](cld z) { return std::atan(z); }, Domain::above_minus_one, true, false, true, 1e-5, 1e-13},
    {"asinh", [](const Tensor& x) { return asinh(x); }, nullptr, [](cld z) { return std::asinh(z); }, Domain::above_minus_one, true, false, true, 1e-5, 1e-13},
    {"acosh", [](const Tensor& x) { return acosh(x); }, nullptr, [](cld z) { return std::acosh(z); }, Domain::above_one, true, false, true, 1e-5, 1e-13},
    {"atanh", [](const Tensor& x) { return atanh(x); }, nullptr, [](cld z) { return std::atanh(z); }, Domain::above_minus_one, true, false, true, 1e-5, 1e-13},
    {"log2", [](const Tensor& x) { return log2(x); }, nullptr, [](cld z) { return std::log(z) / kRefLn2; }, Domain::positive, true, false, true, 1e-6, 1e-14},
    {"log10", [](const Tensor& x) { return log10(x); }, nullptr, [](cld z) { return std::log(z) / kRefLn10; }, Domain::positive, true, false, true, 1e-6, 1e-14},
    {"exp2", [](const Tensor& x) { return exp2(x); }, nullptr, [](cld z) { return std::exp(z * kRefLn2); }, Domain::any, true, false, true, 1e-6, 1e-14},
    {"erf", [](const Tensor& x) { return erf(x); }, nullptr, [](cld z) { return cld(std::erf(z.real())); }, Domain::any, false, false, true, 1e-6, 1e-14},
  };
  return rows;
}

inline const std::vector<BinaryRow>& binary_table() {
  static const std::vector<BinaryRow> rows = {
    {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }, [](const Tensor& a, Scalar s) { return add(a, s); }, add_into, [](cld a, cld b) { return a + b; }, Domain::any, Domain::any, true, false, true, 1e-6, 1e-14},
    {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, [](const Tensor& a, Scalar s) { return sub(a, s); }, sub_into, [](cld a, cld b) { return a - b; }, Domain::any, Domain::any, true, false, true, 1e-6, 1e-14},
    {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, [](const Tensor& a, Scalar s) { return mul(a, s); }, mul_into, [](cld a, cld b) { return a * b; }, Domain::any, Domain::any, true, false, true, 1e-6, 1e-14},
    {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }, [](const Tensor& a, Scalar s) { return div(a, s); }, div_into, [](cld a, cld b) { return a / b; }, Domain::any, Domain::nonzero, true, false, true, 1e-6, 1e-14},
    {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, [](const Tensor& a, Scalar s) { return maximum(a, s); }, maximum_into, ref_max, Domain::small_ints, Domain::small_ints, false, false, true, 0, 0},
    {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, [](const Tensor& a, Scalar s) { return minimum(a, s); }, minimum_into, ref_min, Domain::small_ints, Domain::small_ints, false, false, true, 0, 0},
    {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }, [](const Tensor& a, Scalar s) { return pow(a, s); }, pow_into, [](cld a, cld b) { return std::pow(a, b); }, Domain::positive, Domain::any, true, false, true, 1e-5, 1e-13},
    {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }, [](const Tensor& a, Scalar s) { return eq(a, s); }, nullptr, [](cld a, cld b) { return ref_bool(a == b); }, Domain::small_ints, Domain::small_ints, true, true, false, 0, 0},
    {"ne", [](const Tensor& a, const Tensor& b) { return ne(a, b); }, [](const Tensor& a, Scalar s) { return ne(a, s); }, nullptr, [](cld a, cld b) { return ref_bool(a != b); }, Domain::small_ints, Domain::small_ints, true, true, false, 0, 0},
    {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); }, [](const Tensor& a, Scalar s) { return lt(a, s); }, nullptr, [](cld a, cld b) { return ref_bool(a.real() < b.real()); }, Domain::small_ints, Domain::small_ints, false, true, false, 0, 0},
    {"le", [](const Tensor& a, const Tensor& b) { return le(a, b); }, [](const Tensor& a, Scalar s) { return le(a, s); }, nullptr, [](cld a, cld b) { return ref_bool(a.real() <= b.real()); }, Domain::small_ints, Domain::small_ints, false, true, false, 0, 0},
    {"gt", [](const Tensor& a, const Tensor& b) { return gt(a, b); }, [](const Tensor& a, Scalar s) { return gt(a, s); }, nullptr, [](cld a, cld b) { return ref_bool(a.real() > b.real()); }, Domain::small_ints, Domain::small_ints, false, true, false, 0, 0},
    {"ge", [](const Tensor& a, const Tensor& b) { return ge(a, b); }, [](const Tensor& a, Scalar s) { return ge(a, s); }, nullptr, [](cld a, cld b) { return ref_bool(a.real() >= b.real()); }, Domain::small_ints, Domain::small_ints, false, true, false, 0, 0},
    {"hypot", [](const Tensor& a, const Tensor& b) { return hypot(a, b); }, [](const Tensor& a, Scalar s) { return hypot(a, s); }, nullptr, [](cld a, cld b) { return cld(std::hypot(a.real(), b.real())); }, Domain::nonzero, Domain::nonzero, false, false, true, 1e-6, 1e-14},
    {"copysign", [](const Tensor& a, const Tensor& b) { return copysign(a, b); }, [](const Tensor& a, Scalar s) { return copysign(a, s); }, nullptr, [](cld a, cld b) { return cld(std::copysign(a.real(), b.real())); }, Domain::nonzero, Domain::nonzero, false, false, true, 0, 0},
    {"logaddexp", [](const Tensor& a, const Tensor& b) { return logaddexp(a, b); }, [](const Tensor& a, Scalar s) { return logaddexp(a, s); }, nullptr, ref_logaddexp, Domain::any, Domain::any, false, false, true, 1e-6, 1e-14},
  };
  return rows;
}
// clang-format on

/// Dtypes a row is defined on.
inline std::vector<DType> row_dtypes(bool complex_ok) {
  if (complex_ok) return {DType::f32, DType::f64, DType::c64, DType::c128};
  return {DType::f32, DType::f64};
}

/// A deterministic value of `domain` from a uniform u in [0, 1).
inline long double domain_value(Domain d, long double u) {
  switch (d) {
    case Domain::any:
      return 4 * u - 2;
    case Domain::positive:
      return 0.2L + 2 * u;
    case Domain::above_minus_one:
      return 1.6L * u - 0.8L;
    case Domain::nonzero:
      return (u < 0.5L ? -1 : 1) * (0.3L + 1.7L * std::fmod(2 * u, 1.0L));
    case Domain::small_ints:
      return std::floor(3 * u) - 1;
    case Domain::above_one:
      return 1.2L + 2 * u;
  }
  return u;
}

/// A contiguous tensor of `shape` and `dtype` with values from `domain` (complex: both parts).
inline Tensor make_input(Dims shape, DType dtype, Domain domain, std::uint64_t seed) {
  const std::int64_t n = dims_numel(shape);
  Tensor u = rand(Dims{2 * n}, seed, DType::f64);
  std::vector<double> v = u.to_vector<double>();
  std::vector<c128> z(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < z.size(); ++i) {
    double re = static_cast<double>(domain_value(domain, v[2 * i]));
    double im = is_complex(dtype) ? static_cast<double>(domain_value(domain, v[2 * i + 1])) : 0.0;
    z[i] = c128(re, im);
  }
  return visit_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> typed(z.size());
    for (std::size_t i = 0; i < z.size(); ++i) {
      if constexpr (is_complex_v<T>)
        typed[i] = T(static_cast<real_t<T>>(z[i].real()), static_cast<real_t<T>>(z[i].imag()));
      else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        // Through long long: a negative double converted to an unsigned type directly is UB;
        // the integer conversion wraps (-1 -> 255 for u8), defined since C++20.
        typed[i] = static_cast<T>(static_cast<long long>(z[i].real()));
      else
        typed[i] = static_cast<T>(z[i].real());
    }
    return from_vector<T>(typed, shape);
  });
}

/// All values of t in row-major order as complex long double (any dtype, any strides).
inline std::vector<cld> values_of(const Tensor& t) {
  return visit_dtype(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v = t.to_vector<T>();
    std::vector<cld> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if constexpr (is_complex_v<T>)
        out[i] = cld(v[i].real(), v[i].imag());
      else
        out[i] = cld(v[i], 0);
    }
    return out;
  });
}

/// Row-major values of `v` (shape `from`) broadcast to shape `to` by plain index arithmetic.
inline std::vector<cld> broadcast_values(const std::vector<cld>& v,
                                         std::span<const std::int64_t> from,
                                         std::span<const std::int64_t> to) {
  const std::int64_t n = dims_numel(to);
  std::vector<cld> out(static_cast<std::size_t>(n));
  const std::size_t lead = to.size() - from.size();
  for (std::int64_t flat = 0; flat < n; ++flat) {
    std::int64_t rem = flat, src = 0, mult = 1;
    for (std::size_t d = to.size(); d-- > 0;) {
      const std::int64_t i = rem % to[d];
      rem /= to[d];
      if (d >= lead) {
        const std::int64_t fd = from[d - lead];
        src += (fd == 1 ? 0 : i) * mult;
        mult *= fd;
      }
    }
    out[static_cast<std::size_t>(flat)] = v[static_cast<std::size_t>(src)];
  }
  return out;
}

/// Tolerance for a result dtype.
inline double tolerance(DType d, double tol32, double tol64) {
  return is_double_precision(d) ? tol64 : tol32;
}

}  // namespace tenferro::testing
