// The Array API elementwise functions added to the catalog: tan, sinh, cosh, asin, acos, atan,
// asinh, acosh, atanh, log2, log10, exp2, erf, trunc, isnan, isinf, isfinite, signbit, hypot,
// copysign, logaddexp. Values against long-double references on f32/f64/c64/c128, the standard's
// special cases (+-0, +-inf, NaN) against the C library and against the standard's own table,
// integer and bool promotion, broadcasting and typed errors naming the op, reverse and forward
// derivatives against central differences (second order too), eager = traced + prepared, and the
// name lookup of the catalog.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "primitives/elementwise_common.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;
using cld = std::complex<long double>;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr long double kLn2 = 0.693147180559945309417232121458176568L;
constexpr long double kLn10 = 2.302585092994045684017960334075684L;

// ---- the table: one row per unary function ----

// The library's element function for each real and complex type, written here with std:: so the
// special-value grid can compare the kernel with the C library element by element.
struct UnaryRow {
  const char* name;
  Tensor (*fn)(const Tensor&);
  bool complex_ok;
  double lo, hi;    // input range for values and derivatives (each part of a complex value)
  cld (*ref)(cld);  // long-double reference (complex rows) ...
  long double (*rref)(long double);  // ... and for real inputs
  double (*d64)(double);
  float (*d32)(float);
  c128 (*c128f)(c128);
  c64 (*c64f)(c64);
};

template <class T>
T log2_of(T z) {
  if constexpr (is_complex_v<T>)
    return std::log(z) / std::numbers::ln2_v<real_t<T>>;
  else
    return std::log2(z);
}
template <class T>
T log10_of(T z) {
  if constexpr (is_complex_v<T>)
    return std::log(z) / std::numbers::ln10_v<real_t<T>>;
  else
    return std::log10(z);
}
template <class T>
T exp2_of(T z) {
  if constexpr (is_complex_v<T>)
    return std::exp(z * std::numbers::ln2_v<real_t<T>>);
  else
    return std::exp2(z);
}

// clang-format off
#define TF_ROW(NAME, LO, HI, EXPR)                                                              \
  UnaryRow {                                                                                    \
    #NAME, [](const Tensor& x) { return NAME(x); }, true, LO, HI,                               \
        [](cld z) { return EXPR; }, [](long double z) { return EXPR; },                         \
        [](double z) { return EXPR; }, [](float z) { return EXPR; },                            \
        [](c128 z) { return EXPR; }, [](c64 z) { return EXPR; }                                 \
  }
const std::vector<UnaryRow>& rows() {
  static const std::vector<UnaryRow> r = {
    TF_ROW(tan, -1.2, 1.2, std::tan(z)),
    TF_ROW(sinh, -2.0, 2.0, std::sinh(z)),
    TF_ROW(cosh, -2.0, 2.0, std::cosh(z)),
    TF_ROW(asin, -0.9, 0.9, std::asin(z)),
    TF_ROW(acos, -0.9, 0.9, std::acos(z)),
    TF_ROW(atan, -0.9, 0.9, std::atan(z)),
    TF_ROW(asinh, -0.9, 0.9, std::asinh(z)),
    TF_ROW(acosh, 1.1, 3.0, std::acosh(z)),
    TF_ROW(atanh, -0.9, 0.9, std::atanh(z)),
    TF_ROW(log2, 0.2, 3.0, log2_of(z)),
    TF_ROW(log10, 0.2, 3.0, log10_of(z)),
    TF_ROW(exp2, -2.0, 2.0, exp2_of(z)),
    UnaryRow{"erf", [](const Tensor& x) { return erf(x); }, false, -2.0, 2.0, nullptr,
             [](long double z) { return std::erf(z); }, [](double z) { return std::erf(z); },
             [](float z) { return std::erf(z); }, nullptr, nullptr},
  };
  return r;
}
#undef TF_ROW
// clang-format on

// Values of `dtype` with each part uniform in [lo, hi).
Tensor uniform(Dims shape, DType dtype, double lo, double hi, std::uint64_t seed) {
  auto part = [&](std::uint64_t s) { return rand(shape, s, DType::f64) * (hi - lo) + lo; };
  Tensor x = is_complex(dtype) ? complex(part(seed), part(seed + 1000)) : part(seed);
  return cast(x, dtype);
}

std::vector<cld> values(const Tensor& t) {
  std::vector<cld> out;
  visit_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    for (T v : t.contiguous().to_vector<T>()) {
      if constexpr (is_complex_v<T>)
        out.emplace_back(v.real(), v.imag());
      else
        out.emplace_back(static_cast<long double>(v), 0.0L);
    }
  });
  return out;
}

// Same value: NaN matches NaN, zeros match with their sign, finite values within `ulps` units of
// the type's epsilon (the reference may be folded at compile time, correctly rounded).
template <class R>
bool same_value(R got, R want, int ulps = 2) {
  if (std::isnan(want)) return std::isnan(got);
  if (want == 0 || std::isinf(want)) return got == want && std::signbit(got) == std::signbit(want);
  return std::abs(got - want) <= ulps * std::numeric_limits<R>::epsilon() * std::abs(want);
}
template <class R>
bool same_value(std::complex<R> got, std::complex<R> want, int ulps = 2) {
  return same_value(got.real(), want.real(), ulps) && same_value(got.imag(), want.imag(), ulps);
}

// ---- values ----

TEST(ArrayApiElementwise, UnaryValuesMatchLongDoubleReferencesOnEveryFloatDtype) {
  for (const UnaryRow& row : rows())
    for (DType d : {DType::f32, DType::f64, DType::c64, DType::c128}) {
      if (is_complex(d) && !row.complex_ok) continue;
      const std::string what = std::string(row.name) + " " + std::string(dtype_name(d));
      // A transposed view of a [7, 9] tensor: the kernel's strided path.
      const Tensor x = uniform({9, 7}, d, row.lo, row.hi, 5).transpose();
      const Tensor y = row.fn(x);
      ASSERT_EQ(y.dtype(), d) << what;
      ASSERT_EQ(y.shape(), x.shape()) << what;
      const std::vector<cld> xv = values(x), yv = values(y);
      const double tol =
          is_complex(d) ? (d == DType::c64 ? 1e-5 : 1e-13) : (d == DType::f32 ? 1e-6 : 1e-14);
      for (std::size_t i = 0; i < xv.size(); ++i) {
        const cld want = is_complex(d) ? row.ref(xv[i]) : cld(row.rref(xv[i].real()), 0);
        EXPECT_LE(std::abs(yv[i] - want), tol * (1 + std::abs(want)))
            << what << " at " << i << ": x = " << static_cast<double>(xv[i].real()) << "+"
            << static_cast<double>(xv[i].imag()) << "i";
      }
    }
}

// Real special values: every row against the C library at +-0, +-inf, NaN and the domain edges.
TEST(ArrayApiElementwise, RealSpecialValuesMatchTheCLibrary) {
  const std::vector<double> v = {0.0,  -0.0, kInf, -kInf, kNan,   -kNan, 1.0,
                                 -1.0, 2.0,  -2.0, 0.5,   1e-300, 1e300};
  const Tensor x64 = from_vector<double>(v, {static_cast<i64>(v.size())});
  const Tensor x32 = cast(x64, DType::f32);
  for (const UnaryRow& row : rows()) {
    const std::vector<double> y64 = row.fn(x64).to_vector<double>();
    const std::vector<float> y32 = row.fn(x32).to_vector<float>();
    for (std::size_t i = 0; i < v.size(); ++i) {
      EXPECT_TRUE(same_value(y64[i], row.d64(v[i]))) << row.name << "(" << v[i] << ") = " << y64[i];
      const float xf = static_cast<float>(v[i]);
      EXPECT_TRUE(same_value(y32[i], row.d32(xf))) << row.name << "(" << xf << "f) = " << y32[i];
    }
  }
}

// Complex special values: a grid of {+-0, +-1, +-inf, NaN}^2 against std::complex (the C
// library's Annex G functions).
TEST(ArrayApiElementwise, ComplexSpecialValuesMatchStdComplex) {
  const std::vector<double> parts = {0.0, -0.0, 1.0, -1.0, kInf, -kInf, kNan};
  std::vector<c128> z;
  for (double re : parts)
    for (double im : parts) z.emplace_back(re, im);
  const Tensor z128 = from_vector<c128>(z, {static_cast<i64>(z.size())});
  const Tensor z64 = cast(z128, DType::c64);
  for (const UnaryRow& row : rows()) {
    if (!row.complex_ok) continue;
    const std::vector<c128> y128 = row.fn(z128).to_vector<c128>();
    const std::vector<c64> y64 = row.fn(z64).to_vector<c64>();
    for (std::size_t i = 0; i < z.size(); ++i) {
      EXPECT_TRUE(same_value(y128[i], row.c128f(z[i])))
          << row.name << z[i] << " = " << y128[i] << ", std: " << row.c128f(z[i]);
      const c64 zf(static_cast<float>(z[i].real()), static_cast<float>(z[i].imag()));
      EXPECT_TRUE(same_value(y64[i], row.c64f(zf))) << row.name << zf << " = " << y64[i];
    }
  }
}

double at0(const Tensor& t) { return t.to_vector<double>()[0]; }
Tensor scalar(double v) { return from_vector<double>({v}, {1}); }
Tensor cscalar(double re, double im) { return from_vector<c128>({c128(re, im)}, {1}); }
bool neg_zero(double v) { return v == 0 && std::signbit(v); }
bool pos_zero(double v) { return v == 0 && !std::signbit(v); }

// The standard's special cases written out (Array API 2023.12, the "Special cases" of each
// function), so a C library that strayed from them would show here and not only in the grid.
TEST(ArrayApiElementwise, StandardSpecialCasesForRealInputs) {
  const double pi = std::numbers::pi;
  EXPECT_TRUE(neg_zero(at0(tan(scalar(-0.0)))));
  EXPECT_TRUE(std::isnan(at0(tan(scalar(kInf)))));
  EXPECT_TRUE(neg_zero(at0(sinh(scalar(-0.0)))));
  EXPECT_EQ(at0(sinh(scalar(-kInf))), -kInf);
  EXPECT_EQ(at0(cosh(scalar(-0.0))), 1.0);
  EXPECT_EQ(at0(cosh(scalar(-kInf))), kInf);
  EXPECT_TRUE(std::isnan(at0(asin(scalar(1.5)))));
  EXPECT_TRUE(neg_zero(at0(asin(scalar(-0.0)))));
  EXPECT_TRUE(pos_zero(at0(acos(scalar(1.0)))));
  EXPECT_TRUE(std::isnan(at0(acos(scalar(-1.5)))));
  EXPECT_DOUBLE_EQ(at0(atan(scalar(kInf))), pi / 2);
  EXPECT_DOUBLE_EQ(at0(atan(scalar(-kInf))), -pi / 2);
  EXPECT_TRUE(neg_zero(at0(asinh(scalar(-0.0)))));
  EXPECT_EQ(at0(asinh(scalar(-kInf))), -kInf);
  EXPECT_TRUE(pos_zero(at0(acosh(scalar(1.0)))));
  EXPECT_TRUE(std::isnan(at0(acosh(scalar(0.5)))));
  EXPECT_EQ(at0(acosh(scalar(kInf))), kInf);
  EXPECT_EQ(at0(atanh(scalar(1.0))), kInf);
  EXPECT_EQ(at0(atanh(scalar(-1.0))), -kInf);
  EXPECT_TRUE(std::isnan(at0(atanh(scalar(1.5)))));
  EXPECT_TRUE(neg_zero(at0(atanh(scalar(-0.0)))));
  EXPECT_EQ(at0(log2(scalar(-0.0))), -kInf);
  EXPECT_TRUE(std::isnan(at0(log2(scalar(-1.0)))));
  EXPECT_TRUE(pos_zero(at0(log2(scalar(1.0)))));
  EXPECT_EQ(at0(log2(scalar(kInf))), kInf);
  EXPECT_EQ(at0(log2(scalar(1024.0))), 10.0);  // exact at powers of two
  EXPECT_EQ(at0(log10(scalar(0.0))), -kInf);
  EXPECT_EQ(at0(log10(scalar(1000.0))), 3.0);
  EXPECT_TRUE(pos_zero(at0(exp2(scalar(-kInf)))));
  EXPECT_EQ(at0(exp2(scalar(kInf))), kInf);
  EXPECT_EQ(at0(exp2(scalar(-0.0))), 1.0);
  EXPECT_EQ(at0(exp2(scalar(10.0))), 1024.0);
  EXPECT_TRUE(neg_zero(at0(erf(scalar(-0.0)))));
  EXPECT_EQ(at0(erf(scalar(-kInf))), -1.0);
  EXPECT_EQ(at0(erf(scalar(kInf))), 1.0);
  EXPECT_TRUE(std::isnan(at0(erf(scalar(kNan)))));
}

TEST(ArrayApiElementwise, StandardSpecialCasesForComplexInputs) {
  const double pi = std::numbers::pi;
  auto c = [](const Tensor& t) { return t.to_vector<c128>()[0]; };
  // acos(+-0 + 0j) = pi/2 - 0j; acos(1 + inf j) = pi/2 - inf j; acos(-inf + inf j) = 3pi/4 - inf j.
  EXPECT_DOUBLE_EQ(c(acos(cscalar(-0.0, 0.0))).real(), pi / 2);
  EXPECT_TRUE(neg_zero(c(acos(cscalar(0.0, 0.0))).imag()));
  EXPECT_EQ(c(acos(cscalar(1.0, kInf))).imag(), -kInf);
  EXPECT_DOUBLE_EQ(c(acos(cscalar(-kInf, kInf))).real(), 3 * pi / 4);
  // acosh(+-0 + 0j) = 0 + pi/2 j; asinh(+0 + 0j) = 0 + 0j; atanh(1 + 0j) = inf + 0j.
  EXPECT_TRUE(pos_zero(c(acosh(cscalar(-0.0, 0.0))).real()));
  EXPECT_DOUBLE_EQ(c(acosh(cscalar(-0.0, 0.0))).imag(), pi / 2);
  EXPECT_EQ(c(asinh(cscalar(0.0, 0.0))), c128(0.0, 0.0));
  EXPECT_EQ(c(atanh(cscalar(1.0, 0.0))).real(), kInf);
  EXPECT_TRUE(pos_zero(c(atanh(cscalar(1.0, 0.0))).imag()));
  // atanh(inf + 1j) = 0 + pi/2 j; cosh(inf + 0j) = inf + 0j; sinh(0 + inf j) = 0 + NaN j.
  EXPECT_TRUE(pos_zero(c(atanh(cscalar(kInf, 1.0))).real()));
  EXPECT_DOUBLE_EQ(c(atanh(cscalar(kInf, 1.0))).imag(), pi / 2);
  EXPECT_EQ(c(cosh(cscalar(kInf, 0.0))), c128(kInf, 0.0));
  EXPECT_TRUE(pos_zero(c(sinh(cscalar(0.0, kInf))).real()));
  EXPECT_TRUE(std::isnan(c(sinh(cscalar(0.0, kInf))).imag()));
  // tan(z) = -j tanh(j z): tan(-0 + inf j) = -0 + 1j.
  EXPECT_TRUE(neg_zero(c(tan(cscalar(-0.0, kInf))).real()));
  EXPECT_EQ(c(tan(cscalar(-0.0, kInf))).imag(), 1.0);
  // log2/log10 follow log: log(-0 + 0j) = -inf + pi j; exp2 follows exp: exp(inf + 0j) = inf + 0j
  // (a polar-form pow(2, z) would give inf + NaN j here).
  EXPECT_EQ(c(log2(cscalar(-0.0, 0.0))).real(), -kInf);
  EXPECT_DOUBLE_EQ(c(log2(cscalar(-0.0, 0.0))).imag(), pi / std::numbers::ln2);
  EXPECT_DOUBLE_EQ(c(log10(cscalar(100.0, 0.0))).real(), 2.0);
  EXPECT_EQ(c(exp2(cscalar(kInf, 0.0))), c128(kInf, 0.0));
  EXPECT_EQ(c(exp2(cscalar(-kInf, 0.0))), c128(0.0, 0.0));
  // On the real axis the real functions, exact where they are (Note [Complex log2, log10, exp2]).
  EXPECT_EQ(c(exp2(cscalar(3.0, 0.0))), c128(8.0, 0.0));
  EXPECT_EQ(c(log2(cscalar(8.0, 0.0))), c128(3.0, 0.0));
  EXPECT_TRUE(neg_zero(c(log10(cscalar(1000.0, -0.0))).imag()));
  EXPECT_EQ(c(log10(cscalar(1000.0, -0.0))).real(), 3.0);
}

// Complex expm1 with an infinite or NaN part: the standard's special cases (those of exp(z) - 1).
// The accurate-near-zero formula gave a NaN part for (inf, +-0), (+-inf, inf), (+-inf, NaN) and
// (NaN, +-0) (inf + NaN j, NaN + NaN j; found by array-api-tests' test_special_cases; NumPy's
// complex expm1 has the same NaNs). Each row in c128 and c64, three times (the vectorised loop).
TEST(ArrayApiElementwise, ComplexExpm1OfNonFinitePartsIsExpMinusOne) {
  struct Row {
    c128 z;
    double re, im;        // expected parts (NaN: any NaN)
    bool re_any, im_any;  // the sign of a zero or infinite part is unspecified
  };
  const double e1 = std::expm1(1.0);
  const std::vector<Row> rows = {
      {{0.0, 0.0}, 0.0, 0.0, false, false},     {{1.0, kInf}, kNan, kNan, false, false},
      {{1.0, kNan}, kNan, kNan, false, false},  {{kNan, 1.0}, kNan, kNan, false, false},
      {{kInf, 0.0}, kInf, 0.0, false, false},   {{kInf, -0.0}, kInf, -0.0, false, false},
      {{-kInf, 0.0}, -1.0, 0.0, false, false},   // +0 cis(0) - 1
      {{-kInf, 2.0}, -1.0, 0.0, false, false},   // +0 cis(2) - 1: imag +0 sin 2 = +0
      {{kInf, 2.0}, -kInf, kInf, false, false},  // +inf cis(2) - 1: cos 2 < 0 < sin 2
      {{-kInf, kInf}, -1.0, 0.0, false, true},   // -1 +- 0j
      {{kInf, kInf}, kInf, kNan, true, false},   // +-inf + NaN j
      {{-kInf, kNan}, -1.0, 0.0, false, true},   // -1 +- 0j
      {{kInf, kNan}, kInf, kNan, true, false},   // +-inf + NaN j
      {{kNan, 0.0}, kNan, 0.0, false, false},    // NaN + 0j
      {{kNan, -0.0}, kNan, -0.0, false, false},  // NaN - 0j (conj symmetry)
      {{1.0, 0.0}, e1, 0.0, false, false},       // finite: the formula, unchanged
  };
  auto part_ok = [](double got, double want, bool any_sign, double tol) {
    if (std::isnan(want)) return std::isnan(got);
    if (any_sign) return std::abs(got) == std::abs(want);
    if (want == 0 || std::isinf(want))
      return got == want && std::signbit(got) == std::signbit(want);
    return std::abs(got - want) <= tol * std::abs(want);
  };
  for (DType d : {DType::c128, DType::c64}) {
    const double tol = d == DType::c64 ? 1e-6 : 1e-15;
    std::vector<c128> zs;
    for (const Row& r : rows) zs.insert(zs.end(), 3, r.z);
    const Tensor z = cast(from_vector<c128>(zs, {static_cast<i64>(zs.size())}), d);
    const std::vector<c128> got = cast(expm1(z), DType::c128).to_vector<c128>();
    for (std::size_t i = 0; i < got.size(); ++i) {
      const Row& r = rows[i / 3];
      EXPECT_TRUE(part_ok(got[i].real(), r.re, r.re_any, tol) &&
                  part_ok(got[i].imag(), r.im, r.im_any, tol))
          << dtype_name(d) << " expm1(" << r.z.real() << (std::signbit(r.z.imag()) ? " - " : " + ")
          << std::abs(r.z.imag()) << "j) = " << got[i].real() << " + " << got[i].imag() << "j";
    }
  }
}

// Complex pow(z, 0) is 1 for every z, 0 included (glibc's cpow(0, 0) is NaN; NumPy and the real
// pow give 1), and log1p keeps the sign of a zero imaginary part on the branch cut
// (log1p(-3 - 0j) = log 2 - i pi, as log(-2 - 0j)).
TEST(ArrayApiElementwise, ComplexPowZeroExponentAndLog1pBranchCutSign) {
  for (DType d : {DType::c128, DType::c64}) {
    const Tensor z = cast(from_vector<c128>({c128(0, 0), c128(-0.0, -0.0), c128(2, -3)}, {3}), d);
    const Tensor e = cast(from_vector<c128>({c128(0, 0), c128(-0.0, 0), c128(0, 0)}, {3}), d);
    for (const c128 v : cast(pow(z, e), DType::c128).to_vector<c128>())
      EXPECT_EQ(v, c128(1, 0)) << dtype_name(d);
    const std::vector<c128> l =
        cast(log1p(cast(from_vector<c128>({c128(-3, -0.0), c128(-3, 0.0)}, {2}), d)), DType::c128)
            .to_vector<c128>();
    const double tol = d == DType::c64 ? 1e-6 : 1e-15;
    EXPECT_NEAR(l[0].real(), std::log(2.0), tol);
    EXPECT_NEAR(l[0].imag(), -std::acos(-1.0), tol) << dtype_name(d);
    EXPECT_NEAR(l[1].imag(), std::acos(-1.0), tol) << dtype_name(d);
  }
}

// sign: NaN gives NaN (an earlier kernel compared with 0 and gave 0, a wrong value without an
// error); +-0 give 0; complex NaN in either part gives NaN + NaN j, even next to an infinity.
TEST(ArrayApiElementwise, SignOfNanIsNanForRealAndComplex) {
  for (DType dt : {DType::f32, DType::f64}) {
    const Tensor s = sign(cast(from_vector<double>({kNan, -kInf, -2.0, -0.0, 0.0, kInf}, {6}), dt));
    const std::vector<double> v = cast(s, DType::f64).to_vector<double>();
    EXPECT_TRUE(std::isnan(v[0])) << dtype_name(dt);
    EXPECT_EQ(v[1], -1.0);
    EXPECT_EQ(v[2], -1.0);
    EXPECT_EQ(v[3], 0.0);
    EXPECT_EQ(v[4], 0.0);
    EXPECT_EQ(v[5], 1.0);
  }
  auto c = [](const Tensor& t) { return t.to_vector<c128>()[0]; };
  for (c128 z : {c128(kNan, 0.0), c128(0.0, kNan), c128(kNan, kInf), c128(kInf, kNan)}) {
    const c128 s = c(sign(cscalar(z.real(), z.imag())));
    EXPECT_TRUE(std::isnan(s.real()) && std::isnan(s.imag())) << z;
  }
  EXPECT_EQ(c(sign(cscalar(-0.0, 0.0))), c128(0.0, 0.0));
  EXPECT_EQ(c(sign(cscalar(0.0, -3.0))), c128(0.0, -1.0));
}

// Complex sign of a finite z has modulus 1 also where |z| overflows or rounds in the subnormals:
// z / |z| gave 0 for c64 3e38 + 3e38j and c128 1.7e308 - 1.7e308j (|z| = inf) and 1 + 1j for
// 5e-324 + 5e-324j (|z| rounded to 5e-324).
TEST(ArrayApiElementwise, ComplexSignOfHugeAndSubnormalValues) {
  const double h = std::sqrt(0.5);
  struct Case {
    DType d;
    c128 z, want;
  };
  for (const Case& k :
       {Case{DType::c64, c128(3e38, 3e38), c128(h, h)},
        Case{DType::c64, c128(-3e38, 1e38), c128(-3 / std::sqrt(10.0), 1 / std::sqrt(10.0))},
        Case{DType::c64, c128(1e-45, -1e-45), c128(h, -h)},
        Case{DType::c128, c128(1.7e308, -1.7e308), c128(h, -h)},
        Case{DType::c128, c128(5e-324, 5e-324), c128(h, h)},
        Case{DType::c128, c128(-1e-310, 3e-310),
             c128(-1 / std::sqrt(10.0), 3 / std::sqrt(10.0))}}) {
    const c128 s =
        cast(sign(cast(from_vector<c128>({k.z}, {1}), k.d)), DType::c128).to_vector<c128>()[0];
    const double tol = k.d == DType::c64 ? 2e-7 : 4e-16;
    EXPECT_NEAR(s.real(), k.want.real(), tol) << dtype_name(k.d) << " sign" << k.z << " = " << s;
    EXPECT_NEAR(s.imag(), k.want.imag(), tol) << dtype_name(k.d) << " sign" << k.z << " = " << s;
  }
}

// Complex pow with a real integer exponent |n| < 100 multiplies (NumPy's npy_cpow), so results
// that are exact stay exact: glibc's cpow = exp(n log z) gave (-1 + 0j) ** 2 = 1 - 2.4e-16j,
// (2 + 0j) ** 3 = 7.999999999999998, (1 + 1j) ** 2 = 1.2e-16 + 2j, (1e300 + 1e300j) ** 1 off by
// 51 ulp and (inf + 0j) ** 1 = inf + NaN j.
TEST(ArrayApiElementwise, ComplexIntegerPowersAreExactProducts) {
  struct Case {
    c128 a;
    double n;
    c128 want;
  };
  for (DType d : {DType::c128, DType::c64}) {
    for (const Case& k :
         {Case{c128(-1, 0), 2, c128(1, 0)}, Case{c128(2, 0), 3, c128(8, 0)},
          Case{c128(-2, 0), 3, c128(-8, 0)}, Case{c128(1, 1), 2, c128(0, 2)},
          Case{c128(1, 1), -2, c128(0, -0.5)}, Case{c128(-2, 0), -1, c128(-0.5, 0)},
          Case{c128(0.5, 0.5), 3, c128(-0.25, 0.25)},
          Case{c128(1, 1), 99, c128(-562949953421312.0, 562949953421312.0)},
          Case{c128(kInf, 0), 1, c128(kInf, 0)}, Case{c128(3, -4), 1, c128(3, -4)}}) {
      const Tensor a = cast(from_vector<c128>({k.a}, {1}), d);
      const Tensor b = cast(from_vector<c128>({c128(k.n, 0)}, {1}), d);
      for (const Tensor& r : {pow(a, b), pow(a, Scalar(k.n))}) {
        const c128 got = cast(r, DType::c128).to_vector<c128>()[0];
        EXPECT_EQ(got.real(), k.want.real())
            << dtype_name(d) << " " << k.a << " ** " << k.n << " = " << got;
        EXPECT_EQ(got.imag(), k.want.imag())
            << dtype_name(d) << " " << k.a << " ** " << k.n << " = " << got;
      }
    }
    const c128 big =
        cast(pow(cast(from_vector<c128>({c128(1e30, 1e30)}, {1}), d), 1.0), DType::c128)
            .to_vector<c128>()[0];
    EXPECT_EQ(
        big,
        cast(cast(from_vector<c128>({c128(1e30, 1e30)}, {1}), d), DType::c128).to_vector<c128>()[0])
        << dtype_name(d);
  }
}

// Complex division of finite values whose quotient has one part beyond the range: libgcc's
// __divdc3 gave NaN or inf for the other part ((1 + 1j) / 5e-324j was NaN + NaN j;
// 1e154j / 1e-300j was inf + NaN j), Note [Complex division near overflow].
TEST(ArrayApiElementwise, ComplexDivisionWithAnOverflowingPartKeepsTheOther) {
  struct Case {
    c128 a, b, want;  // want: the exact quotient rounded (inf where it overflows)
  };
  for (const Case& k :
       {Case{c128(1, 1), c128(0, 5e-324), c128(kInf, -kInf)},
        Case{c128(0, 1e154), c128(0, 1e-300), c128(kInf, 0)},
        Case{c128(-0.0, -1.5546556248167866e+253), c128(-3.963171320764624e-279, 0), c128(0, kInf)},
        Case{c128(1.0584323195056214e-118, 2.8369358894209855e+307),
             c128(9.96372421882341e-129, 1.3776650987955333e-23),
             c128(kInf, 1.4893058906579893e+225)},
        Case{c128(1e-10, 1e300), c128(1e-300, 1e-10), c128(kInf, 1e20)}}) {
    for (const Tensor& q : {from_vector<c128>({k.a}, {1}) / from_vector<c128>({k.b}, {1}),
                            div(from_vector<c128>({k.a}, {1}), Scalar(k.b))}) {
      const c128 got = q.to_vector<c128>()[0];
      for (const auto& [g, w] :
           {std::pair{got.real(), k.want.real()}, std::pair{got.imag(), k.want.imag()}}) {
        if (std::isinf(w))
          EXPECT_EQ(g, w) << k.a << " / " << k.b << " = " << got;
        else
          EXPECT_NEAR(g, w, 4e-16 * std::abs(w)) << k.a << " / " << k.b << " = " << got;
      }
    }
  }
  // c64 as well (__divsc3 has the same fallback), and ordinary quotients keep std::complex's bits.
  const c128 f = cast(cast(from_vector<c128>({c128(1, 1)}, {1}), DType::c64) /
                          cast(from_vector<c128>({c128(0, 1e-45)}, {1}), DType::c64),
                      DType::c128)
                     .to_vector<c128>()[0];
  EXPECT_EQ(f, c128(kInf, -kInf));
  const Tensor ta = from_vector<c128>({c128(0.3, -1.7)}, {1});
  const Tensor tb = from_vector<c128>({c128(2.5, 0.9)}, {1});
  const c128 a = ta.to_vector<c128>()[0],
             b = tb.to_vector<c128>()[0];  // run time: libgcc's division
  EXPECT_EQ((ta / tb).to_vector<c128>()[0], a / b);
}

// Complex products of finite values with a part beyond the range: the textbook formula gave
// inf - inf = NaN for the other part ((1e200 + 1e200j) ** 2 was NaN + inf j, exactly 0 + 2e400 j),
// Note [Complex products near overflow]; mul and square.
TEST(ArrayApiElementwise, ComplexProductsNearOverflowHaveNoNaN) {
  struct Case {
    DType d;
    c128 a, b, want;
  };
  for (const Case& k : {Case{DType::c128, c128(1e200, 1e200), c128(1e200, 1e200), c128(0, kInf)},
                        Case{DType::c128, c128(1e200, 1e199), c128(1e200, -1e199), c128(kInf, 0)},
                        Case{DType::c128, c128(-1e300, 1e300), c128(1e10, 1e10), c128(-kInf, 0)},
                        Case{DType::c64, c128(1e27, -2e26), c128(1e27, -2e26), c128(kInf, -kInf)},
                        Case{DType::c64, c128(3e20, 3e20), c128(3e20, 3e20), c128(0, kInf)}}) {
    const Tensor a = cast(from_vector<c128>({k.a}, {1}), k.d);
    const Tensor b = cast(from_vector<c128>({k.b}, {1}), k.d);
    std::vector<Tensor> results = {a * b, mul(a, Scalar(k.b))};
    if (k.a == k.b) results.push_back(square(a));
    for (const Tensor& r : results) {
      const c128 got = cast(r, DType::c128).to_vector<c128>()[0];
      EXPECT_EQ(got, k.want) << dtype_name(k.d) << " " << k.a << " * " << k.b << " = " << got;
    }
  }
  const Tensor ta = from_vector<c128>({c128(0.3, -1.7)}, {1});
  const Tensor tb = from_vector<c128>({c128(2.5, 0.9)}, {1});
  const c128 a = ta.to_vector<c128>()[0],
             b = tb.to_vector<c128>()[0];  // run time: libgcc's product
  EXPECT_EQ((ta * tb).to_vector<c128>()[0], a * b);
}

// The recomputation of Note [Complex products near overflow] once scaled both parts of an
// operand by one power of two, which flushed a part far smaller than the other to zero: c128
// 3j * (1e-30 + 1.8e308j) was -inf + 0j (exactly -5.4e308 + 3e-30j), (4.5e307 + 1e-30j) ** 2
// inf + 0j (inf + 9e277j), (1e-30 + 1.8e308j) / -1e-300j -inf + 0j (-inf + 1e270j), and c64
// (-1 + 1e-45j) / -1e-40j -1.5259e-05 - inf j (-1.4013e-05 - inf j). The wants are the exact
// values rounded (long double here; the exponents stay in its range).
TEST(ArrayApiElementwise, ComplexProductsNearOverflowKeepAPartFarSmallerThanTheOther) {
  const double big = std::numeric_limits<double>::max();
  struct Case {
    DType d;
    char op;  // '*', '/', 's' (square of a)
    c128 a, b;
  };
  for (const Case& k : {Case{DType::c128, '*', c128(0, 3), c128(1e-30, big)},
                        Case{DType::c128, '*', c128(-1e-300, big), c128(0, -1e30)},
                        Case{DType::c128, '*', c128(5e-324, 1e300), c128(0, 1e300)},
                        Case{DType::c128, 's', c128(big / 4, 1e-30), {}},
                        Case{DType::c128, 's', c128(5e-324, -big / 4), {}},
                        Case{DType::c64, 's', c128(3e38, 1e-30), {}},
                        Case{DType::c128, '/', c128(1e-30, big), c128(0, -1e-300)},
                        Case{DType::c128, '/', c128(big, 5e-324), c128(1e-30, 0)},
                        Case{DType::c64, '/', c128(-1, 1e-45), c128(0, -1e-40)},
                        Case{DType::c64, '/', c128(-1e-40, 1e37), c128(0, 1e-30)}}) {
    const Tensor a = cast(from_vector<c128>({k.a}, {1}), k.d);
    const Tensor b = cast(from_vector<c128>({k.b}, {1}), k.d);
    // The operands as stored (c64 rounds them), in long double.
    const c128 a0 = cast(a, DType::c128).to_vector<c128>()[0];
    const c128 b0 = cast(b, DType::c128).to_vector<c128>()[0];
    const cld la(a0.real(), a0.imag()), lb(b0.real(), b0.imag());
    cld want;
    if (k.op == '/') {
      const long double den = lb.real() * lb.real() + lb.imag() * lb.imag();
      want = cld((la.real() * lb.real() + la.imag() * lb.imag()) / den,
                 (la.imag() * lb.real() - la.real() * lb.imag()) / den);
    } else {
      const cld r = k.op == 's' ? la : lb;
      want = cld(la.real() * r.real() - la.imag() * r.imag(),
                 la.real() * r.imag() + la.imag() * r.real());
    }
    const Tensor r = k.op == '*' ? a * b : k.op == '/' ? a / b : square(a);
    const c128 got = cast(r, DType::c128).to_vector<c128>()[0];
    const bool single = k.d == DType::c64;
    for (const auto& [g, w] :
         {std::pair{got.real(), want.real()}, std::pair{got.imag(), want.imag()}}) {
      const long double wr = single ? static_cast<float>(w) : static_cast<double>(w);
      if (std::isinf(wr)) {
        EXPECT_EQ(g, wr) << dtype_name(k.d) << " " << k.a << " " << k.op << " " << k.b << " = "
                         << got;
      } else {
        EXPECT_NEAR(g, wr, std::abs(wr) * (single ? 4e-7 : 1e-15))
            << dtype_name(k.d) << " " << k.a << " " << k.op << " " << k.b << " = " << got;
        EXPECT_NE(g, 0) << dtype_name(k.d) << " " << k.a << " " << k.op << " " << k.b;
      }
    }
  }
}

// Complex integer powers multiply in ProdAcc (Note [Complex products of many factors]): an
// intermediate square beyond the range no longer turns into a NaN part, (1e200 + 0j) ** 3 was
// inf + NaN j (a * (inf + 0j) multiplies 0 * inf), and a power that underflows is inverted in
// XComplex, (1e-200 + 0j) ** -2 was inf + NaN j (libgcc's 1 / (0 + 0j)).
TEST(ArrayApiElementwise, ComplexIntegerPowersNearOverflowHaveNoNaNPart) {
  struct Case {
    DType d;
    c128 a;
    double n;
    c128 want;
  };
  for (const Case& k : {Case{DType::c128, c128(1e200, 0), 3, c128(kInf, 0)},
                        Case{DType::c128, c128(-1e200, 0), 3, c128(-kInf, 0)},
                        Case{DType::c128, c128(0, 1e200), 4, c128(kInf, 0)},
                        Case{DType::c128, c128(1e100, 1e100), 9, c128(kInf, kInf)},
                        Case{DType::c128, c128(1e-200, 0), -2, c128(kInf, 0)},
                        Case{DType::c128, c128(0, 1e-200), -3, c128(0, kInf)},
                        Case{DType::c128, c128(1e-160, 0), -2, c128(kInf, 0)},
                        Case{DType::c128, c128(1e-100, 0), -3, c128(1e300, 0)},
                        Case{DType::c64, c128(1e20, 0), 3, c128(kInf, 0)},
                        Case{DType::c64, c128(1e-20, 0), -2, c128(kInf, 0)}}) {
    const Tensor a = cast(from_vector<c128>({k.a}, {1}), k.d);
    const c128 got = cast(pow(a, Scalar(k.n)), DType::c128).to_vector<c128>()[0];
    EXPECT_FALSE(std::isnan(got.real()) || std::isnan(got.imag()))
        << dtype_name(k.d) << " " << k.a << " ** " << k.n << " = " << got;
    if (std::isinf(k.want.real()) || k.want.real() == 0)
      EXPECT_EQ(got.real(), k.want.real()) << dtype_name(k.d) << " " << k.a << " ** " << k.n;
    else
      EXPECT_NEAR(got.real(), k.want.real(), 1e-15 * std::abs(k.want.real()))
          << k.a << " ** " << k.n;
    EXPECT_EQ(got.imag(), k.want.imag())
        << dtype_name(k.d) << " " << k.a << " ** " << k.n << " = " << got;
  }
}

// Complex exp2 away from the real axis: exp(z ln 2) rounded x ln 2 first, an error multiplied by
// |x ln 2| (c128 up to 7.9e-14 relative, about 700 ulp, at x near -1000; c64 4e-6), Note [Complex
// exp2 accuracy]. Against 2^x (cos(y ln 2) + i sin(y ln 2)) in long double.
TEST(ArrayApiElementwise, ComplexExp2IsAccurateForLargeRealParts) {
  std::vector<c128> zs;
  for (double x = -1015.3; x < 1020; x += 37.7)
    for (double y : {-40.1, -3.3, -0.7, 0.2, 1.9, 25.5}) zs.push_back(c128(x, y));
  for (DType d : {DType::c128, DType::c64}) {
    const bool single = d == DType::c64;
    const Tensor z = cast(from_vector<c128>(zs, {static_cast<i64>(zs.size())}), d);
    const std::vector<c128> stored = cast(z, DType::c128).to_vector<c128>();
    const std::vector<c128> got = cast(exp2(z), DType::c128).to_vector<c128>();
    for (std::size_t i = 0; i < zs.size(); ++i) {
      const long double x = stored[i].real(), y = stored[i].imag();
      if (single && std::abs(x) > 120) continue;  // beyond c64's range
      const long double m = std::exp2(x), t = y * kLn2;
      const cld want(m * std::cos(t), m * std::sin(t));
      const long double err = std::abs(cld(got[i].real(), got[i].imag()) - want) / std::abs(want);
      // A few ulp, plus the rounding of y ln 2 (an absolute error of the phase; exp(z ln 2)
      // added the same for x ln 2, multiplied by |x ln 2|).
      const long double eps = single ? 0x1p-24L : 0x1p-53L;
      EXPECT_LT(err, (4 + std::abs(t)) * eps)
          << dtype_name(d) << " exp2" << stored[i] << " = " << got[i];
    }
  }
}

// Complex expm1 where e^x overflows but exp(z) has a finite part: expm1(800 + 0j) was inf + NaN j,
// expm1(709.9 - 3.1j) -inf - inf j, c64 expm1(89.5 + 3j) -inf + inf j; it is exp(z) - 1 there
// (Note [Complex expm1 near overflow]).
TEST(ArrayApiElementwise, ComplexExpm1WhereExpOfTheRealPartOverflows) {
  for (DType d : {DType::c128, DType::c64}) {
    const std::vector<c128> zs = {c128(800, 0),     c128(800, -0.0), c128(709.9, -3.1),
                                  c128(710.3, 3.1), c128(89.5, 3),   c128(1e30, 1)};
    const Tensor z = cast(from_vector<c128>(zs, {static_cast<i64>(zs.size())}), d);
    const std::vector<c128> got = cast(expm1(z), DType::c128).to_vector<c128>();
    const std::vector<c128> e = cast(exp(z), DType::c128).to_vector<c128>();
    for (std::size_t i = 0; i < zs.size(); ++i) {
      EXPECT_EQ(got[i].real(), e[i].real() - 1)
          << dtype_name(d) << " expm1" << zs[i] << " = " << got[i];
      EXPECT_EQ(got[i].imag(), e[i].imag())
          << dtype_name(d) << " expm1" << zs[i] << " = " << got[i];
      EXPECT_EQ(std::signbit(got[i].imag()), std::signbit(e[i].imag()))
          << dtype_name(d) << " expm1" << zs[i];
    }
  }
}

TEST(ArrayApiElementwise, TruncRoundsTowardZeroKeepingSignedZerosAndNonFinites) {
  const std::vector<double> v = {2.7, -2.7, 0.5, -0.5, 0.0, -0.0, kInf, -kInf, kNan, 1e300, 3.0};
  const Tensor x = from_vector<double>(v, {static_cast<i64>(v.size())});
  const std::vector<double> y = trunc(x).to_vector<double>();
  const std::vector<float> yf = trunc(cast(x, DType::f32)).to_vector<float>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_TRUE(same_value(y[i], std::trunc(v[i]), 0)) << v[i];
    EXPECT_TRUE(same_value(yf[i], std::trunc(static_cast<float>(v[i])), 0)) << v[i];
  }
  EXPECT_TRUE(neg_zero(y[3]));
  EXPECT_EQ(trunc(cast(x, DType::f32)).dtype(), DType::f32);
  // The identity on bool and integers, in their dtype.
  const Tensor xi = from_vector<i32>({-3, 0, 7}, {3});
  EXPECT_EQ(trunc(xi).dtype(), DType::i32);
  EXPECT_EQ(trunc(xi).to_vector<i32>(), (std::vector<i32>{-3, 0, 7}));
  EXPECT_EQ(trunc(from_vector<bool>({true, false}, {2})).dtype(), DType::boolean);
  expect_error(ErrorKind::DTypeMismatch, [] { (void)trunc(ones({2}, DType::c64)); },
               {"trunc", "c64"});
}

TEST(ArrayApiElementwise, ClassificationFollowsTheStandardForRealAndComplex) {
  const std::vector<double> v = {0.0, -0.0, 1.5, -2.0, kInf, -kInf, kNan, -kNan, 1e-310};
  const Tensor x = from_vector<double>(v, {static_cast<i64>(v.size())});
  for (const Tensor& t : {x, cast(x, DType::f32)}) {
    const Tensor n = isnan(t), i = isinf(t), f = isfinite(t), s = signbit(t);
    for (const Tensor& r : {n, i, f, s}) ASSERT_EQ(r.dtype(), DType::boolean);
    const auto nv = n.to_vector<bool>(), iv = i.to_vector<bool>(), fv = f.to_vector<bool>(),
               sv = s.to_vector<bool>();
    for (std::size_t k = 0; k < v.size(); ++k) {
      EXPECT_EQ(nv[k], std::isnan(v[k])) << v[k];
      EXPECT_EQ(iv[k], std::isinf(v[k])) << v[k];
      EXPECT_EQ(fv[k], std::isfinite(v[k])) << v[k];
      EXPECT_EQ(sv[k], std::signbit(v[k])) << v[k];  // -0 and -NaN have the sign bit
    }
  }
  // Complex: NaN if either part is NaN, infinite if either part is infinite (inf + NaN j is both),
  // finite when both parts are.
  const std::vector<c128> z = {{1, 2},     {kNan, 0},    {0, kNan},    {kInf, 0},
                               {0, -kInf}, {kInf, kNan}, {kNan, kNan}, {-0.0, -0.0}};
  for (DType d : {DType::c128, DType::c64}) {
    const Tensor zt = cast(from_vector<c128>(z, {static_cast<i64>(z.size())}), d);
    EXPECT_EQ(isnan(zt).to_vector<bool>(),
              (std::vector<bool>{false, true, true, false, false, true, true, false}));
    EXPECT_EQ(isinf(zt).to_vector<bool>(),
              (std::vector<bool>{false, false, false, true, true, true, false, false}));
    EXPECT_EQ(isfinite(zt).to_vector<bool>(),
              (std::vector<bool>{true, false, false, false, false, false, false, true}));
    expect_error(ErrorKind::DTypeMismatch, [&] { (void)signbit(zt); }, {"signbit"});
  }
  // Bool and integers: never NaN or infinite; signbit is x < 0 (false for bool).
  const Tensor xi = from_vector<i64>({-5, 0, 3}, {3});
  const Tensor xb = from_vector<bool>({true, false}, {2});
  EXPECT_EQ(isnan(xi).to_vector<bool>(), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(isinf(xb).to_vector<bool>(), (std::vector<bool>{false, false}));
  EXPECT_EQ(isfinite(xi).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(signbit(xi).to_vector<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(signbit(from_vector<i32>({-1, 1}, {2})).to_vector<bool>(),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(signbit(xb).to_vector<bool>(), (std::vector<bool>{false, false}));
}

TEST(ArrayApiElementwise, IntegerAndBoolInputsComputeInF64) {
  const std::vector<i32> iv = {-3, -1, 0, 1, 2};
  const Tensor xi = from_vector<i32>(iv, {5});
  const Tensor xl = from_vector<i64>({0, 1, 2, 3, 4}, {5});
  for (const UnaryRow& row : rows()) {
    const Tensor y = row.fn(xi);
    ASSERT_EQ(y.dtype(), DType::f64) << row.name;
    const std::vector<double> yv = y.to_vector<double>();
    for (std::size_t k = 0; k < iv.size(); ++k)
      EXPECT_TRUE(same_value(yv[k], row.d64(static_cast<double>(iv[k])), 0)) << row.name << iv[k];
    EXPECT_EQ(row.fn(xl).dtype(), DType::f64) << row.name;
    const Tensor yb = row.fn(from_vector<bool>({true, false}, {2}));
    ASSERT_EQ(yb.dtype(), DType::f64) << row.name;
    EXPECT_TRUE(same_value(yb.to_vector<double>()[0], row.d64(1.0), 0)) << row.name;
  }
  const Tensor h = hypot(from_vector<i32>({3, -5}, {2}), from_vector<i64>({4, 12}, {2}));
  ASSERT_EQ(h.dtype(), DType::f64);
  EXPECT_EQ(h.to_vector<double>(), (std::vector<double>{5.0, 13.0}));
  EXPECT_EQ(copysign(from_vector<i32>({3}, {1}), -1.0).to_vector<double>(),
            (std::vector<double>{-3.0}));
  EXPECT_EQ(logaddexp(from_vector<bool>({true}, {1}), from_vector<i32>({1}, {1})).dtype(),
            DType::f64);
}

// ---- binary functions ----

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
struct BinaryRow {
  const char* name;
  BinaryFn fn;
  Tensor (*fn_scalar)(const Tensor&, Scalar);
  Tensor (*scalar_fn)(Scalar, const Tensor&);
  double (*d64)(double, double);
  float (*d32)(float, float);
  long double (*ref)(long double, long double);
};

long double ref_logaddexp(long double a, long double b) {
  const long double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}
template <class T>
T logaddexp_of(T a, T b) {  // Note [Stable logaddexp]: in a wider type, rounded once
  using W = std::conditional_t<std::is_same_v<T, float>, double, long double>;
  if (std::isnan(a) || std::isnan(b)) return a + b;
  const W x = a, y = b;
  if (a == b) return static_cast<T>(x + std::numbers::ln2_v<W>);
  return static_cast<T>(std::max(x, y) + std::log1p(std::exp(-std::abs(x - y))));
}

// clang-format off
const std::vector<BinaryRow>& binary_rows() {
  static const std::vector<BinaryRow> r = {
    {"hypot", [](const Tensor& a, const Tensor& b) { return hypot(a, b); },
     [](const Tensor& a, Scalar b) { return hypot(a, b); }, [](Scalar a, const Tensor& b) { return hypot(a, b); },
     [](double a, double b) { return std::hypot(a, b); }, [](float a, float b) { return std::hypot(a, b); },
     [](long double a, long double b) { return std::sqrt(a * a + b * b); }},
    {"copysign", [](const Tensor& a, const Tensor& b) { return copysign(a, b); },
     [](const Tensor& a, Scalar b) { return copysign(a, b); }, [](Scalar a, const Tensor& b) { return copysign(a, b); },
     [](double a, double b) { return std::copysign(a, b); }, [](float a, float b) { return std::copysign(a, b); },
     [](long double a, long double b) { return std::copysign(a, b); }},
    {"logaddexp", [](const Tensor& a, const Tensor& b) { return logaddexp(a, b); },
     [](const Tensor& a, Scalar b) { return logaddexp(a, b); }, [](Scalar a, const Tensor& b) { return logaddexp(a, b); },
     [](double a, double b) { return logaddexp_of(a, b); }, [](float a, float b) { return logaddexp_of(a, b); },
     ref_logaddexp},
  };
  return r;
}
// clang-format on

TEST(ArrayApiElementwise, BinaryValuesBroadcastAndPromote) {
  for (const BinaryRow& row : binary_rows())
    for (DType d : {DType::f32, DType::f64}) {
      const std::string what = std::string(row.name) + " " + std::string(dtype_name(d));
      const Tensor a = uniform({4, 1}, d, -3, 3, 7), b = uniform({5}, d, -3, 3, 8);
      const Tensor y = row.fn(a, b);
      ASSERT_EQ(y.dtype(), d) << what;
      ASSERT_EQ(y.shape(), (Dims{4, 5})) << what;
      const std::vector<cld> av = values(a), bv = values(b), yv = values(y);
      const double tol = d == DType::f32 ? 1e-6 : 1e-15;
      for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 5; ++j) {
          const long double want = row.ref(av[i].real(), bv[j].real());
          EXPECT_LE(std::abs(yv[i * 5 + j].real() - want), tol * (1 + std::abs(want)))
              << what << " at " << i << "," << j;
        }
      // Tensor-Scalar forms keep the tensor's precision and agree with the tensor form.
      const Tensor s = row.fn_scalar(a, 0.75), ls = row.scalar_fn(-0.75, b);
      EXPECT_EQ(s.dtype(), d) << what;
      EXPECT_EQ(ls.dtype(), d) << what;
      EXPECT_TRUE(same_bits(s, row.fn(a, full({}, 0.75, d)))) << what;
      EXPECT_TRUE(same_bits(ls, row.fn(full({}, -0.75, d), b))) << what;
    }
  // Mixed precisions promote (f32 with f64 is f64), as add.
  for (const BinaryRow& row : binary_rows())
    EXPECT_EQ(row.fn(ones({2}, DType::f32), ones({2}, DType::f64)).dtype(), DType::f64) << row.name;
}

// logaddexp where the result is near 0 (e^a + e^b near 1): max + log1p(e^-|a - b|) cancels, and
// in the operands' own type the rounding of log1p alone was off by up to 48000 ulp in f32 and
// 5600 ulp in f64 (NumPy's formula is the same); computed in a wider type it is within a few
// ulp wherever |result| > 1e-3 (f64) / 1e-5 (f32). Against long double, over a grid in [-3, 1].
TEST(ArrayApiElementwise, LogaddexpIsAccurateWhereTheResultIsNearZero) {
  std::vector<double> as, bs;
  for (double a = -3; a < 1; a += 0.0173)
    for (double b = -3; b < 1; b += 0.0291) {
      as.push_back(a);
      bs.push_back(b);
    }
  const Dims shape{static_cast<i64>(as.size())};
  for (DType d : {DType::f64, DType::f32}) {
    const bool single = d == DType::f32;
    const Tensor a = cast(from_vector<double>(as, shape), d),
                 b = cast(from_vector<double>(bs, shape), d);
    const std::vector<double> av = cast(a, DType::f64).to_vector<double>(),
                              bv = cast(b, DType::f64).to_vector<double>(),
                              y = cast(logaddexp(a, b), DType::f64).to_vector<double>();
    int checked = 0;
    for (std::size_t k = 0; k < as.size(); ++k) {
      const long double want = ref_logaddexp(av[k], bv[k]);
      if (std::abs(want) < (single ? 1e-5L : 1e-3L)) continue;
      const long double ulp =
          single
              ? std::abs(std::nextafter(static_cast<float>(want), 0.0f) - static_cast<float>(want))
              : std::abs(std::nextafter(static_cast<double>(want), 0.0) -
                         static_cast<double>(want));
      EXPECT_LE(std::abs(y[k] - want), 4 * ulp)
          << dtype_name(d) << " logaddexp(" << av[k] << ", " << bv[k] << ") = " << y[k];
      ++checked;
    }
    EXPECT_GT(checked, 10000);
  }
}

TEST(ArrayApiElementwise, BinarySpecialValuesMatchTheCLibraryAndTheStandard) {
  const std::vector<double> parts = {0.0, -0.0, 1.0, -2.5, kInf, -kInf, kNan, -kNan, 1e308, -1e308};
  std::vector<double> as, bs;
  for (double a : parts)
    for (double b : parts) {
      as.push_back(a);
      bs.push_back(b);
    }
  const Dims shape{static_cast<i64>(as.size())};
  const Tensor a64 = from_vector<double>(as, shape), b64 = from_vector<double>(bs, shape);
  for (const BinaryRow& row : binary_rows()) {
    const std::vector<double> y = row.fn(a64, b64).to_vector<double>();
    const std::vector<float> yf =
        row.fn(cast(a64, DType::f32), cast(b64, DType::f32)).to_vector<float>();
    for (std::size_t k = 0; k < as.size(); ++k) {
      EXPECT_TRUE(same_value(y[k], row.d64(as[k], bs[k]))) << row.name << as[k] << "," << bs[k];
      const float af = static_cast<float>(as[k]), bf = static_cast<float>(bs[k]);
      EXPECT_TRUE(same_value(yf[k], row.d32(af, bf))) << row.name << af << "," << bf;
    }
  }
  auto one = [](BinaryFn f, double a, double b) { return at0(f(scalar(a), scalar(b))); };
  // hypot: +inf if either is infinite, even with a NaN; NaN otherwise with a NaN; +0 at (-0, -0).
  EXPECT_EQ(one(hypot, kInf, kNan), kInf);
  EXPECT_EQ(one(hypot, kNan, -kInf), kInf);
  EXPECT_TRUE(std::isnan(one(hypot, kNan, 1.0)));
  EXPECT_TRUE(pos_zero(one(hypot, -0.0, -0.0)));
  EXPECT_EQ(one(hypot, 1e300, 1e300), std::hypot(1e300, 1e300));  // no overflow in between
  // copysign: the sign bit of b, also of -0 and of a NaN; a NaN a stays NaN with b's sign.
  EXPECT_EQ(one(copysign, 2.0, -0.0), -2.0);
  EXPECT_EQ(one(copysign, -2.0, 0.0), 2.0);
  EXPECT_EQ(one(copysign, 2.0, -kNan), -2.0);
  EXPECT_TRUE(std::isnan(one(copysign, kNan, -1.0)) && std::signbit(one(copysign, kNan, -1.0)));
  EXPECT_TRUE(neg_zero(one(copysign, 0.0, -3.0)));
  // logaddexp: NaN wins, then +inf; equal infinities; no overflow for large arguments.
  EXPECT_TRUE(std::isnan(one(logaddexp, kNan, kInf)));
  EXPECT_TRUE(std::isnan(one(logaddexp, 1.0, kNan)));
  EXPECT_EQ(one(logaddexp, kInf, -kInf), kInf);
  EXPECT_EQ(one(logaddexp, 2.0, kInf), kInf);
  EXPECT_EQ(one(logaddexp, kInf, kInf), kInf);
  EXPECT_EQ(one(logaddexp, -kInf, -kInf), -kInf);
  EXPECT_EQ(one(logaddexp, -kInf, 3.0), 3.0);
  EXPECT_DOUBLE_EQ(one(logaddexp, 1000.0, 1000.0), 1000.0 + std::numbers::ln2);
  EXPECT_DOUBLE_EQ(one(logaddexp, 1000.0, 0.0), 1000.0);
  EXPECT_DOUBLE_EQ(one(logaddexp, -1000.0, -1000.0), -1000.0 + std::numbers::ln2);
  EXPECT_DOUBLE_EQ(one(logaddexp, 0.0, 0.0), std::numbers::ln2);
}

TEST(ArrayApiElementwise, ErrorsNameTheOpShapesAndDtypes) {
  const Tensor z = ones({2}, DType::c128), r = ones({2});
  for (const BinaryRow& row : binary_rows()) {
    expect_error(ErrorKind::DTypeMismatch, [&] { (void)row.fn(z, r); }, {row.name, "c128"});
    expect_error(ErrorKind::DTypeMismatch, [&] { (void)row.fn(r, z); }, {row.name, "complex"});
    expect_error(ErrorKind::DTypeMismatch, [&] { (void)row.fn_scalar(r, Scalar(0, 1)); },
                 {row.name});
    expect_error(ErrorKind::ShapeMismatch,
                 [&] {
                   (void)row.fn(ones({2, 3}), ones({4}));
                 },
                 {row.name, "[2, 3]", "[4]"});
  }
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)erf(z); }, {"erf", "c128"});
  // The inputs are unchanged by a failed call.
  EXPECT_EQ(z.to_vector<c128>(), (std::vector<c128>{1, 1}));
}

// ---- derivatives ----

std::vector<Tensor> one_output(Tensor t) { return {std::move(t)}; }

TEST(ArrayApiElementwise, UnaryDerivativesMatchFiniteDifferences) {
  for (const UnaryRow& row : rows())
    for (DType d : {DType::f64, DType::c128}) {
      if (is_complex(d) && !row.complex_ok) continue;
      const std::string what = std::string(row.name) + " " + std::string(dtype_name(d));
      auto f = [&](std::span<const Tensor> in) { return one_output(row.fn(in[0])); };
      // A margin inside the domain so the central differences stay in it.
      const double pad = 0.05 * (row.hi - row.lo);
      const Tensor x = uniform({2, 3}, d, row.lo + pad, row.hi - pad, 31);
      EXPECT_TRUE(adtest::check_vjp(f, {x})) << what;
      EXPECT_TRUE(adtest::check_jvp(f, {x})) << what;
    }
}

TEST(ArrayApiElementwise, BinaryDerivativesMatchFiniteDifferencesWithBroadcasting) {
  for (const BinaryRow& row : binary_rows()) {
    auto f = [&](std::span<const Tensor> in) { return one_output(row.fn(in[0], in[1])); };
    // Away from a = 0 and b = 0, where hypot and copysign are not differentiable.
    const Tensor a =
        uniform({2, 3}, DType::f64, 0.3, 2.0, 41) * from_vector<double>({1, -1, 1}, {3});
    const Tensor b = uniform({3}, DType::f64, 0.3, 2.0, 42) * from_vector<double>({-1, 1, 1}, {3});
    EXPECT_TRUE(adtest::check_vjp(f, {a, b})) << row.name;
    EXPECT_TRUE(adtest::check_jvp(f, {a, b})) << row.name;
    auto fs = [&](std::span<const Tensor> in) { return one_output(row.scalar_fn(-0.6, in[0])); };
    EXPECT_TRUE(adtest::check_vjp(fs, {b})) << row.name << " scalar-left";
    EXPECT_TRUE(adtest::check_jvp(fs, {b})) << row.name << " scalar-left";
  }
}

TEST(ArrayApiElementwise, ClosedFormGradientsAtAPoint) {
  auto g1 = [](Tensor (*fn)(const Tensor&), double x) {
    return grad([fn](std::span<const Tensor> in) { return sum(fn(in[0])); }, {scalar(x)})[0]
        .to_vector<double>()[0];
  };
  const double x = 0.4;
  EXPECT_NEAR(g1(erf, x), 2 / std::sqrt(std::numbers::pi) * std::exp(-x * x), 1e-15);
  EXPECT_NEAR(g1(tan, x), 1 + std::tan(x) * std::tan(x), 1e-14);
  EXPECT_NEAR(g1(acos, x), -1 / std::sqrt(1 - x * x), 1e-14);
  EXPECT_NEAR(g1(acosh, 1 + x), 1 / std::sqrt((1 + x) * (1 + x) - 1), 1e-14);
  EXPECT_NEAR(g1(log10, x), 1 / (x * std::log(10.0)), 1e-14);
  EXPECT_NEAR(g1(exp2, x), std::exp2(x) * std::log(2.0), 1e-14);
  // logaddexp: the logistic weights, finite (0 and 1) when one operand is +inf.
  auto g2 = [](double a, double b) {
    return grad([](std::span<const Tensor> in) { return sum(logaddexp(in[0], in[1])); },
                {scalar(a), scalar(b)});
  };
  auto g = g2(1.0, 3.0);
  EXPECT_NEAR(at0(g[0]), 1 / (1 + std::exp(2.0)), 1e-15);
  EXPECT_NEAR(at0(g[1]), 1 / (1 + std::exp(-2.0)), 1e-15);
  g = g2(kInf, 3.0);
  EXPECT_EQ(at0(g[0]), 1.0);
  EXPECT_EQ(at0(g[1]), 0.0);
  // copysign: +-1 for a (0 at a = 0), 0 for b.
  auto gc = grad([](std::span<const Tensor> in) { return sum(copysign(in[0], in[1])); },
                 {from_vector<double>({2, -2, 0}, {3}), from_vector<double>({-1, -1, 1}, {3})});
  EXPECT_EQ(gc[0].to_vector<double>(), (std::vector<double>{-1, 1, 0}));
  EXPECT_EQ(gc[1].to_vector<double>(), (std::vector<double>{0, 0, 0}));
  // Complex: conjugate-Wirtinger, grad = conj(f'(z)) for sum(real(f(z))).
  const c128 z(0.3, 0.4);
  auto gz = grad([](std::span<const Tensor> in) { return sum(real(asinh(in[0]))); },
                 {cscalar(z.real(), z.imag())})[0]
                .to_vector<c128>()[0];
  const c128 want = std::conj(1.0 / std::sqrt(1.0 + z * z));
  EXPECT_NEAR(std::abs(gz - want), 0, 1e-14);
}

TEST(ArrayApiElementwise, SecondDerivativesMatchFiniteDifferences) {
  // The JVP of the gradient: grad of grad, through each rule's own ops.
  for (Tensor (*fn)(const Tensor&) : {&tan, &asinh, &acosh, &erf, &exp2, &log2, &atanh}) {
    auto h = [fn](std::span<const Tensor> in) {
      return one_output(
          grad([fn](std::span<const Tensor> v) { return sum(fn(v[0])); }, {in[0]})[0]);
    };
    const bool shifted = fn == &acosh || fn == &log2;
    const Tensor x = uniform({4}, DType::f64, shifted ? 1.2 : -0.8, shifted ? 2.5 : 0.8, 51);
    EXPECT_TRUE(adtest::check_jvp(h, {x}));
    EXPECT_TRUE(adtest::check_vjp(h, {x}));
  }
  for (BinaryFn fn : {BinaryFn(&hypot), BinaryFn(&logaddexp)}) {
    auto h = [fn](std::span<const Tensor> in) {
      auto g =
          grad([fn](std::span<const Tensor> v) { return sum(fn(v[0], v[1])); }, {in[0], in[1]});
      return std::vector<Tensor>{g[0], g[1]};
    };
    const Tensor a = uniform({3}, DType::f64, 0.5, 2.0, 61),
                 b = uniform({3}, DType::f64, -2, -0.5, 62);
    EXPECT_TRUE(adtest::check_jvp(h, {a, b}));
    EXPECT_TRUE(adtest::check_vjp(h, {a, b}));
  }
  // Complex second order: hvp-like check of tan on c128.
  auto hc = [](std::span<const Tensor> in) {
    return one_output(
        grad([](std::span<const Tensor> v) { return sum(real(tan(v[0]))); }, {in[0]})[0]);
  };
  EXPECT_TRUE(adtest::check_jvp(hc, {uniform({3}, DType::c128, -0.5, 0.5, 71)}));
}

TEST(ArrayApiElementwise, PiecewiseConstantOpsStopGradients) {
  Tensor x = randn({2, 3}, 3);
  x.requires_grad_();
  for (Tensor (*fn)(const Tensor&) : {&trunc, &isnan, &isinf, &isfinite, &signbit})
    EXPECT_FALSE(fn(x).requires_grad());
  EXPECT_TRUE(tan(x).requires_grad());
  EXPECT_TRUE(copysign(x, -1.0).requires_grad());
}

// ---- every interpreter, and the catalog's name lookup ----

TEST(ArrayApiElementwise, EagerTracedPreparedAndInScopeAgreeBitwise) {
  auto f = [](std::span<const Tensor> in) {
    const Tensor& a = in[0];
    const Tensor& b = in[1];
    const Tensor u = tanh(a) * 0.9;  // in (-1, 1) for the inverse functions
    auto g = grad(
        [](std::span<const Tensor> v) {
          return sum(logaddexp(v[0], v[1]) + hypot(v[0], v[1]) * erf(v[0]) +
                     atanh(tanh(v[1]) * 0.5));
        },
        {a, b});
    return std::vector<Tensor>{tan(u),
                               sinh(a),
                               cosh(a),
                               asin(u),
                               acos(u),
                               atan(a),
                               asinh(a),
                               acosh(cosh(a) + 1.0),
                               atanh(u),
                               log2(abs(a) + 0.1),
                               log10(abs(a) + 0.1),
                               exp2(a),
                               erf(b),
                               trunc(a * 3.0),
                               isnan(log(a)),
                               isinf(a / b),
                               isfinite(log(a)),
                               signbit(a),
                               hypot(a, b),
                               copysign(a, b),
                               logaddexp(a, b),
                               tan(complex(u, u * 0.1)),
                               acosh(in[2]),
                               g[0],
                               g[1]};
  };
  const std::vector<Tensor> in = {randn({5, 3}, 81), randn({3}, 82),
                                  from_vector<i32>({1, 2, 5}, {3})};
  const std::vector<ValueSpec> specs = {ValueSpec{{5, 3}, DType::f64}, ValueSpec{{3}, DType::f64},
                                        ValueSpec{{3}, DType::i32}};
  expect_eager_prepared_scoped_bitwise(f, specs, in);
}

TEST(ArrayApiElementwise, EveryPrimitiveIsFoundByName) {
  for (const char* name :
       {"tan",      "sinh",    "cosh",  "asin",     "acos",      "atan",  "asinh", "acosh",
        "atanh",    "log2",    "log10", "exp2",     "erf",       "trunc", "isnan", "isinf",
        "isfinite", "signbit", "hypot", "copysign", "logaddexp", "atan2", "angle"}) {
    const auto p = detail::elementwise_primitive(name);
    ASSERT_TRUE(p) << name;
    EXPECT_EQ(p->name(), name);
  }
  // The tensor-Scalar form carries its scalar as a parameter.
  const auto p = detail::elementwise_primitive("hypot", detail::ScalarSide::right, 2.0);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->params().empty());
  EXPECT_FALSE(detail::elementwise_primitive("no_such_op"));
}

}  // namespace
}  // namespace tenferro::testing
