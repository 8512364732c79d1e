// floor/ceil/round, floor_divide/remainder (Python semantics), clamp, logsumexp/softmax/
// log_softmax (stability), real/imag/complex: values against closed forms or loops written here,
// derivatives by finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

namespace tenferro::testing {
namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;
const double kInf = std::numeric_limits<double>::infinity();

TEST(Numerics, RoundingHalfToEvenAndIdentityOnIntegers) {
  Tensor x = from_vector<double>({-1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6}, {7});
  EXPECT_EQ(floor(x).to_vector<double>(), (std::vector<double>{-2, -1, 0, 1, 2, 2, -3}));
  EXPECT_EQ(ceil(x).to_vector<double>(), (std::vector<double>{-1, -0.0, 1, 2, 3, 3, -2}));
  EXPECT_EQ(round(x).to_vector<double>(), (std::vector<double>{-2, -0.0, 0, 2, 2, 2, -3}));
  Tensor i = from_vector<i32>({-3, 4}, {2});
  EXPECT_EQ(round(i).dtype(), DType::i32);
  EXPECT_EQ(floor(i).to_vector<i32>(), (std::vector<i32>{-3, 4}));
  expect_error([] { (void)floor(ones({1}, DType::c64)); }, ErrorKind::DTypeMismatch, {"floor"});
  // No gradient flows (derivative 0 almost everywhere).
  auto g = grad([](std::span<const Tensor> in) { return sum(round(in[0]) * in[0]); }, {x});
  EXPECT_EQ(g[0].to_vector<double>(), round(x).to_vector<double>());
}

TEST(Numerics, FloorDivideAndRemainderFollowPython) {
  struct Row {
    long long a, b, q, r;
  };
  const Row rows[] = {{-7, 2, -4, 1}, {7, -2, -4, -1}, {7, 2, 3, 1}, {-7, -2, 3, -1},
                      {6, 3, 2, 0},   {0, -5, 0, 0},   {5, 0, 0, 0}, {-5, 0, 0, 0}};
  std::vector<i32> av, bv;
  for (const Row& r : rows) {
    av.push_back(static_cast<i32>(r.a));
    bv.push_back(static_cast<i32>(r.b));
  }
  Tensor a = from_vector<i32>(av, {8}), b = from_vector<i32>(bv, {8});
  const std::vector<i32> q = floor_divide(a, b).to_vector<i32>(),
                         r = remainder(a, b).to_vector<i32>();
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_EQ(q[k], rows[k].q) << rows[k].a << " // " << rows[k].b;
    EXPECT_EQ(r[k], rows[k].r) << rows[k].a << " % " << rows[k].b;
  }
  const i32 m = std::numeric_limits<i32>::min();
  EXPECT_EQ(floor_divide(from_vector<i32>({m}, {1}), -1).item<i32>(), m);  // wraps
  EXPECT_EQ(remainder(from_vector<i32>({m}, {1}), -1).item<i32>(), 0);
  // Floats: the result takes the divisor's sign.
  Tensor f = from_vector<double>({-7.5, 7.5, 5.0}, {3});
  EXPECT_EQ(remainder(f, 2.0).to_vector<double>(), (std::vector<double>{0.5, 1.5, 1.0}));
  EXPECT_EQ(remainder(f, -2.0).to_vector<double>(), (std::vector<double>{-1.5, -0.5, -1.0}));
  EXPECT_EQ(floor_divide(f, 2.0).to_vector<double>(), (std::vector<double>{-4, 3, 2}));
  // d/da = 1, d/db = -floor(a / b), away from the jumps.
  const Tensor x = from_vector<double>({-7.3, 7.7, 5.2}, {3}),
               y = from_vector<double>({2.1, -2.9, 1.7}, {3});
  auto rem = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{remainder(in[0], in[1])};
  };
  EXPECT_TRUE(adtest::check_vjp(rem, {x, y}));
  EXPECT_TRUE(adtest::check_jvp(rem, {x, y}));
}

// Floats follow NumPy's npy_divmod (Python's float // and %), not floor(a / b): the quotient of
// a finite by an infinity is -1 or 0 by sign, an infinite dividend gives NaN, and a zero
// remainder takes the divisor's sign.
TEST(Numerics, FloatFloorDivideAndRemainderMatchPythonAtInfinitiesAndZeros) {
  const double nan = std::nan("");
  struct Row {
    double a, b, q, r;
  };
  const Row rows[] = {{-5.0, kInf, -1.0, kInf}, {5.0, -kInf, -1.0, -kInf}, {5.0, kInf, 0.0, 5.0},
                      {kInf, 1.0, nan, nan},    {-kInf, 2.5, nan, nan},    {3.0, -3.0, -1.0, -0.0},
                      {-3.0, 3.0, -1.0, 0.0},   {0.0, -1.0, -0.0, -0.0},   {-0.0, 1.0, -0.0, 0.0},
                      {-0.0, kInf, -0.0, 0.0},  {1.0, 0.0, kInf, nan},     {-7.5, 2.0, -4.0, 0.5}};
  for (DType d : {DType::f64, DType::f32}) {
    std::vector<double> av, bv;
    for (const Row& r : rows) {
      av.push_back(r.a);
      bv.push_back(r.b);
    }
    const i64 n = static_cast<i64>(av.size());
    const Tensor a = cast(from_vector<double>(av, {n}), d),
                 b = cast(from_vector<double>(bv, {n}), d);
    const std::vector<double> q = cast(floor_divide(a, b), DType::f64).to_vector<double>(),
                              r = cast(remainder(a, b), DType::f64).to_vector<double>();
    for (std::size_t k = 0; k < av.size(); ++k) {
      const Row& w = rows[k];
      const auto same = [](double x, double y) {
        return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
      };
      EXPECT_TRUE(same(q[k], w.q)) << dtype_name(d) << w.a << " // " << w.b << " = " << q[k];
      EXPECT_TRUE(same(r[k], w.r)) << dtype_name(d) << w.a << " % " << w.b << " = " << r[k];
    }
  }
}

TEST(Numerics, ClampKeepsNanAndPassesGradientOnTheClosedInterval) {
  Tensor x = from_vector<double>({-2, -1, 0, 1, 2, std::nan("")}, {6});
  const std::vector<double> c = clamp(x, -1.0, 1.0).to_vector<double>();
  EXPECT_EQ(std::vector<double>(c.begin(), c.end() - 1), (std::vector<double>{-1, -1, 0, 1, 1}));
  EXPECT_TRUE(std::isnan(c.back()));
  auto g = grad([](std::span<const Tensor> in) { return sum(clamp(in[0], -1.0, 1.0)); },
                {from_vector<double>({-2, -1, 0, 1, 2}, {5})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0, 1, 1, 1, 0}));
  Tensor i = from_vector<i32>({-5, 3, 9}, {3});
  EXPECT_EQ(clamp(i, 0, 4).dtype(), DType::i32);
  EXPECT_EQ(clamp(i, 0, 4).to_vector<i32>(), (std::vector<i32>{0, 3, 4}));
  EXPECT_EQ(clamp(i, 0.5, 4).dtype(), DType::f64);
  EXPECT_EQ(clamp(i, 0.5, 4).to_vector<double>(), (std::vector<double>{0.5, 3, 4}));
  expect_error([&] { (void)clamp(x, 2.0, 1.0); }, ErrorKind::InvalidArgument,
               {"clamp", "lo <= hi"});
  expect_error([&] { (void)clamp(x, std::nan(""), 1.0); }, ErrorKind::InvalidArgument, {"clamp"});
  expect_error([] { (void)clamp(ones({1}, DType::c128), 0.0, 1.0); }, ErrorKind::DTypeMismatch,
               {"clamp"});
}

TEST(Numerics, LogsumexpIsStableAndItsGradientIsSoftmax) {
  // Against a long double loop on moderate values, every axis choice.
  Tensor x = randn({3, 4}, 11) * 3.0;
  const std::vector<double> xv = x.to_vector<double>();
  std::vector<double> rows(3, 0.0);
  for (std::size_t r = 0; r < 3; ++r) {
    long double s = 0;
    for (std::size_t c = 0; c < 4; ++c) s += std::exp(static_cast<long double>(xv[r * 4 + c]));
    rows[r] = static_cast<double>(std::log(s));
  }
  const std::vector<double> got = logsumexp(x, {1}).to_vector<double>();
  for (std::size_t r = 0; r < 3; ++r)
    EXPECT_NEAR(got[r], rows[r], 1e-13 * std::abs(rows[r]) + 1e-15);
  EXPECT_EQ(logsumexp(x, {-1}, true).shape(), (Dims{3, 1}));
  EXPECT_EQ(logsumexp(x).shape(), Dims{});
  // Huge and -inf inputs.
  EXPECT_DOUBLE_EQ(logsumexp(from_vector<double>({1000, 1000}, {2})).item<double>(),
                   1000 + std::log(2.0));
  EXPECT_DOUBLE_EQ(logsumexp(from_vector<double>({-1000, -1000}, {2})).item<double>(),
                   -1000 + std::log(2.0));
  EXPECT_EQ(logsumexp(from_vector<double>({-kInf, -kInf}, {2})).item<double>(), -kInf);
  EXPECT_EQ(logsumexp(from_vector<double>({kInf, 1}, {2})).item<double>(), kInf);
  EXPECT_DOUBLE_EQ(logsumexp(from_vector<double>({-kInf, 0}, {2})).item<double>(), 0.0);
  EXPECT_DOUBLE_EQ(logsumexp(from_vector<i32>({0, 0}, {2})).item<double>(), std::log(2.0));
  // softmax rows sum to one; log_softmax stays finite where exp would overflow.
  Tensor p = softmax(x, 1);
  const std::vector<double> ps = sum(p, {1}).to_vector<double>();
  for (double v : ps) EXPECT_NEAR(v, 1.0, 1e-15);
  const std::vector<double> ls =
      log_softmax(from_vector<double>({1e4, 0}, {2}), 0).to_vector<double>();
  EXPECT_EQ(ls[0], 0.0);
  EXPECT_EQ(ls[1], -1e4);
  // Large magnitudes beside log(n): x - logsumexp(x) rounded m + log(s) to m first and lost
  // the log term (softmax of [1e16, 1e16] was [1, 1], of f32 [3e4] * 1000 off by 4.5e-4).
  const std::vector<double> big =
      log_softmax(from_vector<double>({1e16, 1e16}, {2}), 0).to_vector<double>();
  EXPECT_DOUBLE_EQ(big[0], -std::log(2.0));
  EXPECT_DOUBLE_EQ(big[1], -std::log(2.0));
  EXPECT_EQ(softmax(from_vector<double>({-1e300, -1e300}, {2}), 0).to_vector<double>(),
            (std::vector<double>{0.5, 0.5}));
  const Tensor f = full({1000}, 3e4, DType::f32);
  for (float v : log_softmax(f, 0).to_vector<float>())
    EXPECT_FLOAT_EQ(v, static_cast<float>(-std::log(1000.0)));
  EXPECT_NEAR(sum(softmax(f, 0)).item<float>(), 1.0f, 1e-5f);
  const std::vector<float> near =
      log_softmax(from_vector<float>({1e6f, 1e6f + 1}, {2}), 0).to_vector<float>();
  EXPECT_FLOAT_EQ(near[0], static_cast<float>(-std::log1p(std::exp(1.0))));
  EXPECT_FLOAT_EQ(near[1], static_cast<float>(-std::log1p(std::exp(-1.0))));
  // The special values stay those of x - logsumexp(x).
  const std::vector<double> sp =
      log_softmax(from_vector<double>({kInf, 1, -kInf}, {3}), 0).to_vector<double>();
  EXPECT_TRUE(std::isnan(sp[0]));
  EXPECT_EQ(sp[1], -kInf);
  EXPECT_EQ(sp[2], -kInf);
  EXPECT_EQ(log_softmax(from_vector<double>({-kInf, 0}, {2}), 0).to_vector<double>(),
            (std::vector<double>{-kInf, 0.0}));
  // Derivatives, first and second order.
  auto lse = [](std::span<const Tensor> in) { return std::vector<Tensor>{logsumexp(in[0], {1})}; };
  EXPECT_TRUE(adtest::check_vjp(lse, {x}));
  EXPECT_TRUE(adtest::check_jvp(lse, {x}));
  auto g = grad([](std::span<const Tensor> in) { return logsumexp(in[0]); }, {x});
  EXPECT_TRUE(allclose(g[0], softmax(reshape(x, {12}), 0).reshape({3, 4}), 1e-14, 1e-15));
  auto sm = [](std::span<const Tensor> in) { return std::vector<Tensor>{softmax(in[0], 0)}; };
  EXPECT_TRUE(adtest::check_vjp(sm, {x}));
  auto second = [](std::span<const Tensor> in) {
    return grad([](std::span<const Tensor> v) { return logsumexp(v[0] * v[0]); }, {in[0]});
  };
  EXPECT_TRUE(adtest::check_jvp(second, {x}));  // forward over reverse
  expect_error([] { (void)logsumexp(zeros({0})); }, ErrorKind::InvalidArgument, {"max"});
  expect_error([] { (void)softmax(ones({2}, DType::c64), 0); }, ErrorKind::DTypeMismatch,
               {"log_softmax"});
}

TEST(Numerics, RealImagComplexAndTheirGradients) {
  Tensor z = from_vector<c128>({{1, 2}, {-3, 0.5}}, {2});
  EXPECT_EQ(real(z).to_vector<double>(), (std::vector<double>{1, -3}));
  EXPECT_EQ(imag(z).to_vector<double>(), (std::vector<double>{2, 0.5}));
  EXPECT_EQ(imag(from_vector<float>({4}, {1})).to_vector<float>(), (std::vector<float>{0}));
  Tensor c = complex(from_vector<float>({1, 2}, {2}), from_vector<float>({3, 4}, {2}));
  EXPECT_EQ(c.dtype(), DType::c64);
  EXPECT_EQ(c.to_vector<c64>(), (std::vector<c64>{{1, 3}, {2, 4}}));
  EXPECT_EQ(complex(from_vector<i32>({1}, {1}), from_vector<float>({2}, {1})).dtype(), DType::c128);
  // Conjugate-Wirtinger: d Re(z) -> ct, d Im(z) -> i ct.
  auto parts = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{real(in[0]) * imag(in[0])};
  };
  EXPECT_TRUE(adtest::check_vjp(parts, {randn({3}, 2, DType::c128)}));
  EXPECT_TRUE(adtest::check_jvp(parts, {randn({3}, 2, DType::c128)}));
  auto build = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{complex(in[0], in[1]) * complex(in[1], in[0])};
  };
  EXPECT_TRUE(adtest::check_vjp(build, {randn({3}, 3), randn({3}, 4)}));
  expect_error([] { (void)complex(ones({1}, DType::c64), ones({1})); }, ErrorKind::DTypeMismatch,
               {"complex"});
}

// Note [Exact complex parts]: imag and complex pass infinities, NaNs and signed zeros through
// (they went through a complex product: imag(inf + 1j) was NaN, complex(1, inf) NaN + inf j).
TEST(Numerics, ImagAndComplexKeepInfinitiesNansAndSignedZeros) {
  const double nan = std::nan("");
  const std::vector<double> re = {kInf, nan, 1.0, -kInf, 3.0, -0.0, 0.0},
                            im = {1.0, 2.0, kInf, -kInf, -0.0, -0.0, nan};
  const auto same = [](double x, double y) {
    return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
  };
  const i64 n = static_cast<i64>(re.size());
  for (DType d : {DType::f64, DType::f32}) {
    const Tensor z =
        complex(cast(from_vector<double>(re, {n}), d), cast(from_vector<double>(im, {n}), d));
    const std::vector<double> zr = cast(real(z), DType::f64).to_vector<double>(),
                              zi = cast(imag(z), DType::f64).to_vector<double>();
    for (std::size_t k = 0; k < re.size(); ++k) {
      EXPECT_TRUE(same(zr[k], re[k])) << dtype_name(d) << " re " << re[k] << " got " << zr[k];
      EXPECT_TRUE(same(zi[k], im[k])) << dtype_name(d) << " im " << im[k] << " got " << zi[k];
    }
  }
  std::vector<c128> zs;
  for (std::size_t k = 0; k < re.size(); ++k) zs.emplace_back(re[k], im[k]);
  const std::vector<double> got = imag(from_vector<c128>(zs, {n})).to_vector<double>();
  for (std::size_t k = 0; k < re.size(); ++k)
    EXPECT_TRUE(same(got[k], im[k])) << "imag of " << zs[k] << " got " << got[k];
}

}  // namespace
}  // namespace tenferro::testing
