// cumsum / cumprod: values against loops written here for every dtype and axis, integer
// wrap-around, strided inputs, empty axes and 0-d inputs, typed errors, derivatives against
// finite differences (first and second order; cumprod at zeros also against the closed form),
// the internal linear_scan's rules, and eager = traced + prepared = in-scope, bitwise.
#include "primitives/scans.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/complex_chain.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/ops/scans.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

// Inclusive scan of row-major values of `shape` along `axis`, in complex double.
std::vector<c128> ref_scan(const std::vector<c128>& v, const Dims& shape, i64 axis, bool product) {
  i64 inner = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const i64 n = shape[static_cast<std::size_t>(axis)];
  const i64 outer = n == 0 ? 0 : static_cast<i64>(v.size()) / (n * inner);
  std::vector<c128> out(v.size());
  for (i64 o = 0; o < outer; ++o)
    for (i64 in = 0; in < inner; ++in) {
      c128 acc = product ? 1.0 : 0.0;
      for (i64 k = 0; k < n; ++k) {
        const std::size_t p = static_cast<std::size_t>((o * n + k) * inner + in);
        acc = product ? acc * v[p] : acc + v[p];
        out[p] = acc;
      }
    }
  return out;
}

Tensor sample(const Dims& shape, DType d, std::uint64_t seed) {
  if (is_floating(d)) return randn(shape, seed, d);
  if (d == DType::boolean) return gt(randn(shape, seed), 0.0);
  return cast(randn(shape, seed) * 3.0, d);
}

Tensor scan_of(bool product, const Tensor& x, i64 axis) {
  return product ? cumprod(x, axis) : cumsum(x, axis);
}

TEST(Scans, ValuesMatchALoopForEveryDtypeAndAxis) {
  const Dims shape{2, 3, 4};
  std::uint64_t seed = 1;
  for (DType d : all_dtypes)
    for (bool product : {false, true})
      for (i64 axis : {0, 1, 2, -1, -3}) {
        const Tensor x = sample(shape, d, seed++);
        const Tensor y = scan_of(product, x, axis);
        const DType want_dtype = sum_dtype(d);  // i64 for bool and signed, u64 for unsigned
        ASSERT_EQ(y.dtype(), want_dtype) << dtype_name(d);
        ASSERT_EQ(y.shape(), shape);
        const auto ref = ref_scan(c128_values(x), shape, axis < 0 ? axis + 3 : axis, product);
        const Tensor want = cast(from_vector<c128>(ref, shape), want_dtype);
        EXPECT_TRUE(all(eq(y, want)).item<bool>())
            << dtype_name(d) << (product ? " cumprod" : " cumsum") << " axis " << axis;
      }
}

template <class T>
T wrap(__int128 v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<unsigned __int128>(v)));
}

// Complex cumprod of finite factors whose running product leaves the range: the textbook
// product (libgcc's) gave NaN parts, (1e200 + 1e200j)^2 = 0 + inf j times (1 + 0j) multiplies
// inf * 0 (Note [Complex products of many factors]). Every prefix is checked against the same
// chain in long double (whose range holds it); c64 accumulates in double, so it needs more factors.
TEST(Scans, ComplexCumprodNearOverflowHasNoNaNPart) {
  using tenferro::testing::cld;
  for (DType d : {DType::c128, DType::c64}) {
    const bool single = d == DType::c64;
    const double s = single ? 1e38 : 1e200;
    std::vector<c128> f;
    for (int k = 0; k < (single ? 10 : 2); ++k) f.push_back(c128(s, s));
    for (c128 z : {c128(1, 0), c128(0, 1), c128(single ? 1e-38 : 1e-300, 0), c128(s, 0), c128(1, 0),
                   c128(2, -3), c128(single ? 1e-38 : 1e-300, 0)})
      f.push_back(z);
    const i64 n = static_cast<i64>(f.size());
    const Tensor x = cast(from_vector<c128>(f, {n}), d);
    const std::vector<c128> stored = cast(x, DType::c128).to_vector<c128>();
    const std::vector<c128> got = cast(cumprod(x, 0), DType::c128).to_vector<c128>();
    cld acc(1, 0);
    c128 textbook(1, 0);
    bool textbook_nan = false;
    for (i64 i = 0; i < n; ++i) {
      const c128 z = stored[static_cast<std::size_t>(i)];
      acc = tenferro::testing::times(acc, z);
      textbook *= z;
      textbook_nan = textbook_nan || std::isnan(textbook.real()) || std::isnan(textbook.imag());
      tenferro::testing::expect_parts_near(
          got[static_cast<std::size_t>(i)], acc, single,
          std::string(dtype_name(d)) + " prefix " + std::to_string(i));
    }
    EXPECT_TRUE(textbook_nan) << "the case should be one where the textbook product fails";
  }
}

TEST(Scans, IntegerScansAccumulateInI64AndWrap) {
  constexpr i64 M = std::numeric_limits<i64>::max(), m = std::numeric_limits<i64>::min();
  const std::vector<i64> sv = {M, 1, 1, M, m, -1};
  const std::vector<i64> pv = {i64{1} << 62, 2, 2, 3, -1, 7};
  std::vector<i64> want_s, want_p;
  i64 s = 0, p = 1;
  for (std::size_t k = 0; k < sv.size(); ++k) {
    s = wrap<i64>(static_cast<__int128>(s) + sv[k]);
    p = wrap<i64>(static_cast<__int128>(p) * pv[k]);
    want_s.push_back(s);
    want_p.push_back(p);
  }
  EXPECT_EQ(cumsum(from_vector<i64>(sv, {6}), 0).to_vector<i64>(), want_s);
  EXPECT_EQ(cumprod(from_vector<i64>(pv, {6}), 0).to_vector<i64>(), want_p);
  EXPECT_EQ(want_s[1], m);  // the reference really wrapped
  // i32 inputs are widened first: no wrap where i64 holds the result, wrap where it does not.
  constexpr i32 IM = std::numeric_limits<i32>::max(), Im = std::numeric_limits<i32>::min();
  EXPECT_EQ(cumsum(from_vector<i32>({IM, IM, 2}, {3}), 0).to_vector<i64>(),
            (std::vector<i64>{IM, 2 * i64{IM}, 2 * i64{IM} + 2}));
  const Tensor c = cumprod(from_vector<i32>({Im, Im, Im}, {3}), 0);
  ASSERT_EQ(c.dtype(), DType::i64);
  const __int128 a = Im;
  EXPECT_EQ(c.to_vector<i64>(),
            (std::vector<i64>{Im, wrap<i64>(a * a), wrap<i64>(wrap<i64>(a * a) * a)}));
  // bool counts.
  EXPECT_EQ(cumsum(from_vector<bool>({true, false, true, true}, {4}), 0).to_vector<i64>(),
            (std::vector<i64>{1, 1, 2, 3}));
  EXPECT_EQ(cumprod(from_vector<bool>({true, true, false, true}, {4}), 0).to_vector<i64>(),
            (std::vector<i64>{1, 1, 0, 0}));
}

TEST(Scans, StridedInputsReadCorrectly) {
  for (DType d : {DType::f64, DType::c64, DType::i32}) {
    const Tensor base = sample({4, 5}, d, 7);
    const Tensor views[] = {transpose(base), flip(base, {1}), slice(base, 1, 4, -6, -2),
                            slice(transpose(base), 0, 0, 5, 2),
                            broadcast_to(slice(base, 0, 1, 2), {3, 5})};
    for (const Tensor& v : views)
      for (bool product : {false, true})
        for (i64 axis : {0, 1}) {
          const Tensor y = scan_of(product, v, axis);
          const auto ref = ref_scan(c128_values(v), v.shape(), axis, product);
          EXPECT_TRUE(same_bits(y, scan_of(product, contiguous(v), axis))) << dtype_name(d);
          EXPECT_TRUE(all(eq(y, cast(from_vector<c128>(ref, v.shape()), y.dtype()))).item<bool>());
        }
  }
}

TEST(Scans, EmptyAxesAndRankZero) {
  for (DType d : {DType::f32, DType::i32}) {
    const Tensor e = zeros({2, 0, 3}, d);
    for (i64 axis : {0, 1, 2}) {
      const Tensor y = cumprod(e, axis);
      EXPECT_EQ(y.shape(), (Dims{2, 0, 3}));
      EXPECT_EQ(y.dtype(), d == DType::i32 ? DType::i64 : d);
      EXPECT_EQ(cumsum(e, axis).numel(), 0);
    }
  }
  // 0-d: axis 0 or -1 returns the value (as PyTorch); integers become i64.
  const Tensor s = scalar_tensor(3.5);
  for (i64 axis : {0, -1}) {
    EXPECT_EQ(cumsum(s, axis).shape(), Dims{});
    EXPECT_EQ(cumsum(s, axis).item<double>(), 3.5);
    EXPECT_EQ(cumprod(s, axis).item<double>(), 3.5);
  }
  const Tensor si = cumsum(scalar_tensor(4, DType::i32), 0);
  EXPECT_EQ(si.dtype(), DType::i64);
  EXPECT_EQ(si.item<i64>(), 4);
  // Gradients flow through the 0-d case too.
  auto g = grad([](std::span<const Tensor> in) { return cumprod(in[0], 0) * 2.0; }, {s});
  EXPECT_EQ(g[0].item<double>(), 2.0);
  // An empty axis differentiates to an empty gradient.
  auto ge =
      grad([](std::span<const Tensor> in) { return sum(cumprod(in[0], 1)); }, {zeros({2, 0})});
  EXPECT_EQ(ge[0].shape(), (Dims{2, 0}));
}

TEST(Scans, BadInputsAreTypedErrorsAndChangeNothing) {
  Tensor x = arange(6).reshape({2, 3});
  const Tensor before = copy(x);
  expect_error(ErrorKind::InvalidArgument, [&] { (void)cumsum(x, 2); }, {"cumsum", "2"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)cumprod(x, -3); }, {"cumprod"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)cumsum(scalar_tensor(1.0), 1); },
               {"cumsum"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)cumprod(Tensor(), 0); },
               {"cumprod", "undefined"});
  EXPECT_TRUE(same_bits(x, before));
  // Integer tensors carry no gradient.
  expect_error(ErrorKind::DTypeMismatch, [] { (void)ones({3}, DType::i64).requires_grad_(); });
  Tensor xr = randn({3}, 2).requires_grad_();
  const Tensor yi = cumsum(cast(xr, DType::i32), 0);
  EXPECT_FALSE(yi.requires_grad());
}

using Fn = adtest::FdFn;

Fn scan_fn(bool product, i64 axis) {
  return [=](std::span<const Tensor> in) {
    return std::vector<Tensor>{scan_of(product, in[0], axis)};
  };
}

TEST(Scans, DerivativesMatchFiniteDifferences) {
  const Tensor inputs[] = {randn({3, 4}, 3), randn({3, 4}, 4, DType::c128),
                           transpose(randn({4, 3}, 5))};
  for (bool product : {false, true})
    for (i64 axis : {0, 1, -1})
      for (const Tensor& x : inputs) {
        EXPECT_TRUE(adtest::check_vjp(scan_fn(product, axis), {x})) << product << " " << axis;
        EXPECT_TRUE(adtest::check_jvp(scan_fn(product, axis), {x})) << product << " " << axis;
      }
  // Second order, forward over reverse.
  const Tensor w = randn({3, 4}, 9);
  for (bool product : {false, true})
    for (const Tensor& x : {inputs[0], inputs[1]}) {
      auto second = [&](std::span<const Tensor> in) {
        return std::vector<Tensor>{grad(
            [&](std::span<const Tensor> v) {
              const Tensor c = scan_of(product, v[0], 1);
              return sum(real(c * c * w));
            },
            {in[0]})[0]};
      };
      EXPECT_TRUE(adtest::check_jvp(second, {x})) << product;
    }
}

// Rows with one zero, a zero first, a zero last, several zeros, adjacent zeros, no zero.
Tensor rows_with_zeros() {
  return from_vector<double>({3,   0,    2,   5,   -1.5,  //
                              0,   1.5,  2,   -1,  0.5,   //
                              1.2, -2,   0.5, 3,   0,     //
                              0,   2,    0,   3,   0,     //
                              1.1, 0,    0,   2,   -0.7,  //
                              0.9, -1.3, 2,   0.8, 1.4},
                             {6, 5});
}

// grad[k] = sum_{j >= k} g[j] conj(prod_{i <= j, i != k} x[i]) per row (the closed form), and the
// tangent dy[j] = sum_{k <= j} prod_{i <= j, i != k} x[i] v[k].
void closed_forms(const std::vector<c128>& x, const std::vector<c128>& g, i64 rows, i64 n,
                  std::vector<c128>& vjp_out, std::vector<c128>& jvp_out) {
  vjp_out.assign(x.size(), 0.0);
  jvp_out.assign(x.size(), 0.0);
  for (i64 r = 0; r < rows; ++r)
    for (i64 k = 0; k < n; ++k)
      for (i64 j = k; j < n; ++j) {
        c128 p = 1.0;
        for (i64 i = 0; i <= j; ++i)
          if (i != k) p *= x[static_cast<std::size_t>(r * n + i)];
        vjp_out[static_cast<std::size_t>(r * n + k)] +=
            g[static_cast<std::size_t>(r * n + j)] * std::conj(p);
        jvp_out[static_cast<std::size_t>(r * n + j)] += p * g[static_cast<std::size_t>(r * n + k)];
      }
}

TEST(Scans, CumprodDerivativesAreExactAtZeros) {
  const Tensor xr = rows_with_zeros();
  // Complex rows with exact zeros in the same places.
  const Tensor xc = complex(xr, where(eq(xr, 0.0), zeros({6, 5}), randn({6, 5}, 11)));
  for (const Tensor& x : {xr, xc}) {
    EXPECT_TRUE(adtest::check_vjp(scan_fn(true, 1), {x}));
    EXPECT_TRUE(adtest::check_jvp(scan_fn(true, 1), {x}));
    // Along axis 0 of the transposed view.
    EXPECT_TRUE(adtest::check_vjp(scan_fn(true, 0), {transpose(x)}));
    const Tensor g = randn({6, 5}, 12, x.dtype());
    VjpResult res = vjp(scan_fn(true, 1), {x});
    const Tensor got_vjp = res.pullback({g})[0];
    const Tensor got_jvp = jvp(scan_fn(true, 1), {x}, {g}).tangents[0];
    std::vector<c128> want_vjp, want_jvp;
    closed_forms(c128_values(x), c128_values(g), 6, 5, want_vjp, want_jvp);
    const std::vector<c128> a = c128_values(got_vjp), b = c128_values(got_jvp);
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_NEAR(std::abs(a[k] - want_vjp[k]), 0.0, 1e-12) << "vjp element " << k;
      EXPECT_NEAR(std::abs(b[k] - want_jvp[k]), 0.0, 1e-12) << "jvp element " << k;
    }
    // Second order at zeros, forward over reverse.
    const Tensor w = randn({6, 5}, 13);
    auto second = [&](std::span<const Tensor> in) {
      return std::vector<Tensor>{grad(
          [&](std::span<const Tensor> v) { return sum(real(cumprod(v[0], 1) * w)); }, {in[0]})[0]};
    };
    EXPECT_TRUE(adtest::check_jvp(second, {x}));
  }
}

TEST(Scans, ReverseOverReverseThroughProgramsAtZeros) {
  // H u of L = sum(cumprod(x) * w) from vjp(grad(program)) against differences of the gradient.
  const Tensor w = randn({6, 5}, 21), x = rows_with_zeros(), u = randn({6, 5}, 22);
  Program p = trace(
      [&](std::span<const Tensor> in) { return std::vector<Tensor>{sum(cumprod(in[0], 1) * w)}; },
      {ValueSpec{{6, 5}, DType::f64}});
  Program g = grad(p), h = vjp(g);
  const std::vector<Tensor> hu = h({x, u});
  ASSERT_EQ(hu.size(), 1u);
  const double eps = 1e-6;
  const Tensor fd = (g({x + eps * u})[0] - g({x - eps * u})[0]) / (2 * eps);
  EXPECT_TRUE(allclose(hu[0], fd, 1e-6, 1e-6));
}

TEST(Scans, LinearScanMatchesALoopAndItsRulesMatchFiniteDifferences) {
  for (bool reverse : {false, true})
    for (i64 axis : {0, 1}) {
      const Tensor a = randn({3, 4}, 31), b = transpose(randn({4, 3}, 32));
      const Tensor h = detail::linear_scan(a, b, axis, reverse);
      const std::vector<c128> av = c128_values(a), bv = c128_values(b);
      const std::vector<c128> hv = c128_values(h);
      for (i64 r = 0; r < (axis == 0 ? 4 : 3); ++r) {
        c128 acc = 0.0;
        for (i64 t = 0; t < (axis == 0 ? 3 : 4); ++t) {
          const i64 k = reverse ? (axis == 0 ? 2 : 3) - t : t;
          const std::size_t p = static_cast<std::size_t>(axis == 0 ? k * 4 + r : r * 4 + k);
          acc = av[p] * acc + bv[p];
          EXPECT_NEAR(std::abs(hv[p] - acc), 0.0, 1e-12);
        }
      }
      for (DType d : {DType::f64, DType::c128}) {
        auto f = [=](std::span<const Tensor> in) {
          return std::vector<Tensor>{detail::linear_scan(in[0], in[1], axis, reverse)};
        };
        const Tensor ad = randn({3, 4}, 33, d), bd = randn({3, 4}, 34, d);
        EXPECT_TRUE(adtest::check_vjp(f, {ad, bd}));
        EXPECT_TRUE(adtest::check_jvp(f, {ad, bd}));
      }
    }
  expect_error(ErrorKind::DTypeMismatch,
               [] { (void)detail::linear_scan(ones({2}), ones({2}, DType::f32), 0, false); });
  expect_error(ErrorKind::ShapeMismatch,
               [] { (void)detail::linear_scan(ones({2}), ones({3}), 0, false); });
}

TEST(Scans, EagerPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  const Tensor w = randn({256, 40}, 41);
  auto f = [&](std::span<const Tensor> in) {
    const Tensor gx =
        grad([&](std::span<const Tensor> v) { return sum(cumprod(v[0], 1) * w); }, {in[0]})[0];
    return std::vector<Tensor>{cumsum(in[0], 1), cumprod(in[0], 0), cumsum(in[1], 0),
                               cumprod(in[1], -1), gx};
  };
  Tensor x = randn({256, 40}, 42);
  x = where(gt(x, 1.5), zeros({256, 40}), x);  // some zeros
  const Tensor k = cast(randn({256, 40}, 43) * 5.0, DType::i32);
  const Tensor in[2] = {x, k};
  expect_eager_prepared_scoped_bitwise(
      f, {ValueSpec{{256, 40}, DType::f64}, ValueSpec{{256, 40}, DType::i32}}, in);
}

}  // namespace
}  // namespace tenferro::testing
