// tile, repeat_interleave, atan2, angle, polar: values against loops and std:: functions written
// here for every dtype the op takes, signed zeros/infinities/NaN, strided inputs, empty and rank-0
// cases, finite-difference VJP/JVP (complex too), bad input as typed errors with the input
// unchanged, and eager = traced+prepared = in-scope, bitwise, at budgets 1 and 4.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/structural.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

bool same(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && all(eq(a, b)).item<bool>();
}

// Bitwise equality of doubles (so -0 differs from 0 and NaN equals NaN).
bool bits_equal(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool bits_equal(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ---- tile ----

TEST(RepeatPolar, TileMatchesALoopForEveryDtype) {
  for (DType d : all_dtypes) {
    const Tensor x = cast(arange(6).reshape({2, 3}) - 2, d);
    const std::vector<double> xv = cast(x, DType::f64).to_vector<double>();
    // reps longer than the rank: [2, 3] -> [1, 2, 3] tiled {2, 1, 2} -> [2, 2, 6].
    const Tensor y = tile(x, {2, 1, 2});
    ASSERT_EQ(y.dtype(), d);
    ASSERT_EQ(y.shape(), (Dims{2, 2, 6}));
    std::vector<double> w;
    for (i64 a = 0; a < 2; ++a)
      for (i64 b = 0; b < 2; ++b)
        for (i64 c = 0; c < 6; ++c) w.push_back(xv[static_cast<std::size_t>(b * 3 + c % 3)]);
    EXPECT_TRUE(same(y, cast(from_vector<double>(w, {2, 2, 6}), d))) << dtype_name(d);
    // reps shorter: {3} means {1, 3}.
    const Tensor s = tile(x, {3});
    ASSERT_EQ(s.shape(), (Dims{2, 9}));
    std::vector<double> ws;
    for (i64 b = 0; b < 2; ++b)
      for (i64 c = 0; c < 9; ++c) ws.push_back(xv[static_cast<std::size_t>(b * 3 + c % 3)]);
    EXPECT_TRUE(same(s, cast(from_vector<double>(ws, {2, 9}), d))) << dtype_name(d);
  }
}

TEST(RepeatPolar, TileEdgeCasesStridesAndErrors) {
  const Tensor base = randn({3, 2}, 1);
  const Tensor x = base.transpose();  // [2, 3], strided
  const Tensor y = tile(x, {2, 2});
  ASSERT_EQ(y.shape(), (Dims{4, 6}));
  const std::vector<double> xv = x.contiguous().to_vector<double>(), yv = y.to_vector<double>();
  for (i64 r = 0; r < 4; ++r)
    for (i64 c = 0; c < 6; ++c)
      EXPECT_EQ(yv[static_cast<std::size_t>(r * 6 + c)],
                xv[static_cast<std::size_t>((r % 2) * 3 + c % 3)]);
  // Negative strides (flip), reps of 1 (a fresh copy, not a view of x), zero reps, rank 0.
  const Tensor f = flip(x, {1});
  EXPECT_TRUE(same(tile(f, {1, 1}), f.contiguous()));
  const Tensor one = tile(x, {1, 1});
  EXPECT_TRUE(one.storage().get() != x.storage().get());
  EXPECT_EQ(tile(x, {0, 2}).shape(), (Dims{0, 6}));
  EXPECT_EQ(tile(x, {}).shape(), (Dims{2, 3}));
  const Tensor r0 = scalar_tensor(2.5);
  EXPECT_EQ(tile(r0, {}).shape(), Dims{});
  EXPECT_EQ(tile(r0, {2, 3}).to_vector<double>(), std::vector<double>(6, 2.5));
  EXPECT_EQ(tile(zeros({0, 2}), {3, 1}).shape(), (Dims{0, 2}));
  const Tensor before = copy(x);
  expect_error(ErrorKind::InvalidArgument, [&] { (void)tile(x, {2, -1}); }, {"tile", "negative"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)tile(Tensor(), {2}); }, {"tile"});
  EXPECT_TRUE(same(x, before));
}

TEST(RepeatPolar, TileGradientSumsTheCopies) {
  const Tensor x = randn({2, 3}, 2);
  auto f = [](std::span<const Tensor> in) { return std::vector<Tensor>{tile(in[0], {2, 1, 2})}; };
  EXPECT_TRUE(adtest::check_vjp(f, {x}));
  EXPECT_TRUE(adtest::check_jvp(f, {x}));
  EXPECT_TRUE(adtest::check_vjp(f, {randn({2, 3}, 3, DType::c128)}));
  auto g = grad([](std::span<const Tensor> in) { return sum(tile(in[0], {3, 2})); }, {x});
  EXPECT_EQ(g[0].to_vector<double>(), std::vector<double>(6, 6.0));
}

// ---- repeat_interleave ----

TEST(RepeatPolar, RepeatInterleaveMatchesALoopForEveryDtype) {
  const std::vector<i64> counts = {2, 0, 3};
  for (DType d : all_dtypes) {
    const Tensor x = cast(arange(6).reshape({2, 3}) - 2, d);
    const std::vector<double> xv = cast(x, DType::f64).to_vector<double>();
    // Per-element counts along axis 1 (i64 and i32), and a single count along axis 0.
    std::vector<double> w;
    for (i64 r = 0; r < 2; ++r)
      for (i64 c = 0; c < 3; ++c)
        for (i64 k = 0; k < counts[static_cast<std::size_t>(c)]; ++k)
          w.push_back(xv[static_cast<std::size_t>(r * 3 + c)]);
    const Tensor want = cast(from_vector<double>(w, {2, 5}), d);
    const Tensor rep = from_vector<i64>(counts, {3});
    EXPECT_TRUE(same(repeat_interleave(x, rep, 1), want)) << dtype_name(d);
    EXPECT_TRUE(same(repeat_interleave(x, cast(rep, DType::i32), -1), want)) << dtype_name(d);
    std::vector<double> w0;
    for (i64 r = 0; r < 6; ++r)
      for (i64 c = 0; c < 3; ++c) w0.push_back(xv[static_cast<std::size_t>((r / 3) * 3 + c)]);
    const Tensor want0 = cast(from_vector<double>(w0, {6, 3}), d);
    EXPECT_TRUE(same(repeat_interleave(x, 3, 0), want0)) << dtype_name(d);
    EXPECT_TRUE(same(repeat_interleave(x, from_vector<i64>({3}, {1}), 0), want0));
    EXPECT_TRUE(same(repeat_interleave(x, scalar_tensor(3, DType::i32), 0), want0));
  }
}

TEST(RepeatPolar, RepeatInterleaveEdgeCasesAndErrors) {
  const Tensor x = randn({3, 2}, 4).transpose();  // [2, 3], strided
  EXPECT_TRUE(same(repeat_interleave(x, 1, 1), x.contiguous()));
  EXPECT_TRUE(repeat_interleave(x, 1, 1).storage().get() != x.storage().get());
  EXPECT_EQ(repeat_interleave(x, 0, 1).shape(), (Dims{2, 0}));
  EXPECT_EQ(repeat_interleave(x, zeros({3}, DType::i64), 1).shape(), (Dims{2, 0}));
  EXPECT_EQ(repeat_interleave(zeros({0, 2}), zeros({0}, DType::i64), 0).shape(), (Dims{0, 2}));
  EXPECT_EQ(repeat_interleave(zeros({0, 2}), 4, 0).shape(), (Dims{0, 2}));
  const Tensor before = copy(x);
  expect_error(ErrorKind::InvalidArgument, [&] { (void)repeat_interleave(x, -1, 0); },
               {"repeat_interleave", "-1"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)repeat_interleave(x, from_vector<i64>({1, -2, 0}, {3}), 1);
               },
               {"repeats[1] = -2"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)repeat_interleave(x, from_vector<i64>({1, 2}, {2}), 1);
               },
               {"repeat_interleave", "1 or 3"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)repeat_interleave(x, zeros({3, 1}, DType::i64), 1);
               },
               {"rank"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)repeat_interleave(x, ones({3}), 1); },
               {"integer dtype"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)repeat_interleave(x, 2, 2); }, {"axis"});
  EXPECT_TRUE(same(x, before));
  // A traced repeats tensor: the shape would depend on its values.
  expect_error(ErrorKind::Unsupported,
               [&] {
                 (void)trace(
                     [](std::span<const Tensor> in) { return repeat_interleave(in[0], in[1], 0); },
                     {ValueSpec{{2}, DType::f64}, ValueSpec{{2}, DType::i64}});
               },
               {"repeat_interleave", "traced"});
}

TEST(RepeatPolar, RepeatInterleaveDerivatives) {
  const Tensor rep = from_vector<i64>({2, 0, 3}, {3});
  auto f = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{repeat_interleave(in[0], rep, 1), repeat_interleave(in[0], 2, 0)};
  };
  EXPECT_TRUE(adtest::check_vjp(f, {randn({2, 3}, 5)}));
  EXPECT_TRUE(adtest::check_jvp(f, {randn({2, 3}, 5)}));
  EXPECT_TRUE(adtest::check_vjp(f, {randn({2, 3}, 6, DType::c128)}));
  auto g = grad([&](std::span<const Tensor> in) { return sum(repeat_interleave(in[0], rep, 1)); },
                {ones({2, 3})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{2, 0, 3, 2, 0, 3}));
}

// ---- atan2 ----

TEST(RepeatPolar, Atan2MatchesStdAtan2AtSignedZerosAndInfinities) {
  const std::vector<double> vals = {0.0, -0.0, 1.0, -1.0, 2.5, -3.0, kInf, -kInf, kNan, 1e-300};
  std::vector<double> ys, xs;
  for (double y : vals)
    for (double x : vals) {
      ys.push_back(y);
      xs.push_back(x);
    }
  const Dims shape{static_cast<i64>(ys.size())};
  const Tensor r = atan2(from_vector<double>(ys, shape), from_vector<double>(xs, shape));
  ASSERT_EQ(r.dtype(), DType::f64);
  const std::vector<double> rv = r.to_vector<double>();
  const Tensor rf = atan2(cast(from_vector<double>(ys, shape), DType::f32),
                          cast(from_vector<double>(xs, shape), DType::f32));
  ASSERT_EQ(rf.dtype(), DType::f32);
  const std::vector<float> rfv = rf.to_vector<float>();
  for (std::size_t k = 0; k < ys.size(); ++k) {
    EXPECT_TRUE(bits_equal(rv[k], std::atan2(ys[k], xs[k])) ||
                (std::isnan(rv[k]) && std::isnan(ys[k] + xs[k])))
        << ys[k] << ", " << xs[k] << ": " << rv[k];
    const float fy = static_cast<float>(ys[k]), fx = static_cast<float>(xs[k]);
    EXPECT_TRUE(bits_equal(rfv[k], std::atan2(fy, fx)) ||
                (std::isnan(rfv[k]) && std::isnan(fy + fx)))
        << fy << ", " << fx;
  }
}

TEST(RepeatPolar, Atan2DtypesBroadcastingAndErrors) {
  // Integers and bool convert to f64 (as div); mixed f32/f64 promotes; broadcasting.
  const Tensor yi = from_vector<std::int32_t>({1, -1, 0}, {3});
  const Tensor xi = from_vector<i64>({-1, 0, -2}, {3});
  const Tensor r = atan2(yi, xi);
  ASSERT_EQ(r.dtype(), DType::f64);
  EXPECT_EQ(
      r.to_vector<double>(),
      (std::vector<double>{std::atan2(1.0, -1.0), std::atan2(-1.0, 0.0), std::atan2(0.0, -2.0)}));
  EXPECT_EQ(atan2(from_vector<bool>({true}, {1}), from_vector<bool>({false}, {1})).dtype(),
            DType::f64);
  EXPECT_EQ(atan2(ones({2, 1}, DType::f32), ones({3})).dtype(), DType::f64);
  EXPECT_EQ(atan2(ones({2, 1}, DType::f32), ones({3}, DType::f32)).shape(), (Dims{2, 3}));
  const Tensor z = ones({2}, DType::c128);
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)atan2(z, ones({2})); }, {"atan2"});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)atan2(ones({2}), ones({3})); }, {"atan2"});
  EXPECT_EQ(z.to_vector<c128>(), (std::vector<c128>{1, 1}));
}

TEST(RepeatPolar, Atan2DerivativesMatchFiniteDifferences) {
  auto f = [](std::span<const Tensor> in) { return std::vector<Tensor>{atan2(in[0], in[1])}; };
  const Tensor y = randn({2, 3}, 7), x = randn({3}, 8);  // broadcast
  EXPECT_TRUE(adtest::check_vjp(f, {y, x}));
  EXPECT_TRUE(adtest::check_jvp(f, {y, x}));
  // The closed form at one point, and second order.
  auto g = grad([](std::span<const Tensor> in) { return sum(atan2(in[0], in[1])); },
                {from_vector<double>({3}, {1}), from_vector<double>({4}, {1})});
  EXPECT_NEAR(g[0].item<double>(), 4.0 / 25, 1e-15);
  EXPECT_NEAR(g[1].item<double>(), -3.0 / 25, 1e-15);
  auto h = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{
        grad([](std::span<const Tensor> v) { return sum(atan2(v[0], v[1])); }, {in[0], in[1]})[0]};
  };
  EXPECT_TRUE(adtest::check_jvp(h, {randn({4}, 9), randn({4}, 10)}));
}

// ---- angle ----

TEST(RepeatPolar, AngleMatchesStdArgForComplexAndTheNumPyRuleForReals) {
  const std::vector<double> parts = {0.0, -0.0, 1.0, -2.0, kInf, -kInf, kNan};
  std::vector<c128> zs;
  for (double re : parts)
    for (double im : parts) zs.push_back(c128(re, im));
  const Dims shape{static_cast<i64>(zs.size())};
  const Tensor z = from_vector<c128>(zs, shape);
  const Tensor a = angle(z);
  ASSERT_EQ(a.dtype(), DType::f64);
  const std::vector<double> av = a.to_vector<double>();
  const Tensor af = angle(cast(z, DType::c64));
  ASSERT_EQ(af.dtype(), DType::f32);
  const std::vector<float> afv = af.to_vector<float>();
  for (std::size_t k = 0; k < zs.size(); ++k) {
    const double want = std::arg(zs[k]);
    EXPECT_TRUE(bits_equal(av[k], want) || (std::isnan(av[k]) && std::isnan(want))) << zs[k];
    const float wf = std::arg(std::complex<float>(zs[k]));
    EXPECT_TRUE(bits_equal(afv[k], wf) || (std::isnan(afv[k]) && std::isnan(wf))) << zs[k];
  }
  // Reals: pi below 0, 0 at +-0 and above, NaN stays NaN; f32 stays f32, integers give f64.
  const std::vector<double> rv = {-2.0, -0.0, 0.0, 3.0, -kInf, kInf, kNan};
  const std::vector<double> got = angle(from_vector<double>(rv, {7})).to_vector<double>();
  const double pi = std::acos(-1.0);
  const std::vector<double> want = {pi, 0, 0, 0, pi, 0, kNan};
  for (std::size_t k = 0; k < rv.size(); ++k)
    EXPECT_TRUE(bits_equal(got[k], want[k]) || (std::isnan(got[k]) && std::isnan(want[k])))
        << rv[k];
  EXPECT_EQ(angle(from_vector<float>({-1.0f, 2.0f}, {2})).to_vector<float>(),
            (std::vector<float>{static_cast<float>(pi), 0.0f}));
  for (DType d : {DType::boolean, DType::i32, DType::i64}) {
    const Tensor t = angle(cast(from_vector<double>({-3, 0, 1}, {3}), d));
    ASSERT_EQ(t.dtype(), DType::f64) << dtype_name(d);
    EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{d == DType::boolean ? 0.0 : pi, 0, 0}))
        << dtype_name(d);
  }
  EXPECT_EQ(angle(scalar_tensor(-1.0)).shape(), Dims{});
  EXPECT_EQ(angle(zeros({0, 2}, DType::c64)).shape(), (Dims{0, 2}));
}

TEST(RepeatPolar, AngleGradientFollowsPyTorch) {
  auto f = [](std::span<const Tensor> in) { return std::vector<Tensor>{angle(in[0])}; };
  const Tensor z = randn({2, 3}, 11, DType::c128);
  EXPECT_TRUE(adtest::check_vjp(f, {z}));  // conjugate-Wirtinger, both real directions
  EXPECT_TRUE(adtest::check_jvp(f, {z}));
  // Closed form: grad = g * (-im + i re) / |z|^2; 0 at z == 0 (no NaN).
  const Tensor p = from_vector<c128>({c128(3, 4), c128(0, 0)}, {2});
  auto g = grad([](std::span<const Tensor> in) { return sum(angle(in[0])); }, {p});
  const std::vector<c128> gv = g[0].to_vector<c128>();
  EXPECT_NEAR(gv[0].real(), -4.0 / 25, 1e-15);
  EXPECT_NEAR(gv[0].imag(), 3.0 / 25, 1e-15);
  EXPECT_EQ(gv[1], c128(0, 0));
  const JvpResult j =
      jvp([](std::span<const Tensor> in) { return std::vector<Tensor>{angle(in[0])}; }, {p},
          {from_vector<c128>({c128(1, 1), c128(1, 1)}, {2})});
  const std::vector<double> tv = j.tangents[0].to_vector<double>();
  EXPECT_NEAR(tv[0], (3.0 * 1 - 4.0 * 1) / 25, 1e-15);
  EXPECT_EQ(tv[1], 0.0);
  // Real input: gradient 0 (angle is piecewise constant there).
  auto gr = grad([](std::span<const Tensor> in) { return sum(angle(in[0])); },
                 {from_vector<double>({-1, 2}, {2})});
  EXPECT_EQ(gr[0].to_vector<double>(), (std::vector<double>{0, 0}));
  // Second order on complex input.
  auto h = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{
        grad([](std::span<const Tensor> v) { return sum(angle(v[0])); }, {in[0]})[0]};
  };
  EXPECT_TRUE(adtest::check_jvp(h, {randn({3}, 12, DType::c128)}));
}

// ---- polar ----

TEST(RepeatPolar, PolarMatchesAClosedFormAndChecksDtypes) {
  const Tensor r = randn({2, 3}, 13), t = randn({3}, 14);  // broadcast
  const Tensor z = polar(r, t);
  ASSERT_EQ(z.dtype(), DType::c128);
  ASSERT_EQ(z.shape(), (Dims{2, 3}));
  const std::vector<double> rv = r.to_vector<double>(), tv = t.to_vector<double>();
  const std::vector<c128> zv = z.to_vector<c128>();
  for (std::size_t k = 0; k < zv.size(); ++k) {
    const double a = rv[k], th = tv[k % 3];
    EXPECT_NEAR(zv[k].real(), a * std::cos(th), 1e-15);
    EXPECT_NEAR(zv[k].imag(), a * std::sin(th), 1e-15);
  }
  const Tensor zf = polar(cast(r, DType::f32), cast(t, DType::f32));
  ASSERT_EQ(zf.dtype(), DType::c64);
  const std::vector<std::complex<float>> zfv = zf.to_vector<std::complex<float>>();
  for (std::size_t k = 0; k < zfv.size(); ++k) {
    EXPECT_NEAR(zfv[k].real(), zv[k].real(), 1e-5);
    EXPECT_NEAR(zfv[k].imag(), zv[k].imag(), 1e-5);
  }
  EXPECT_EQ(polar(scalar_tensor(2.0), scalar_tensor(0.0)).to_vector<c128>(),
            (std::vector<c128>{c128(2, 0)}));
  const Tensor before = copy(r);
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)polar(r, cast(t, DType::f32)); }, {"polar"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)polar(cast(r, DType::i64), cast(t, DType::i64)); }, {"polar"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)polar(cast(r, DType::c128), cast(t, DType::c128)); }, {"polar"});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)polar(r, ones({2})); });
  EXPECT_TRUE(same(r, before));
}

TEST(RepeatPolar, PolarDerivativesMatchFiniteDifferences) {
  auto f = [](std::span<const Tensor> in) { return std::vector<Tensor>{polar(in[0], in[1])}; };
  EXPECT_TRUE(adtest::check_vjp(f, {randn({2, 3}, 15), randn({3}, 16)}));
  EXPECT_TRUE(adtest::check_jvp(f, {randn({2, 3}, 15), randn({3}, 16)}));
  // abs(polar(r, t)) = |r| and angle(polar(1, t)) = t: the gradients of the round trips.
  auto g = grad([](std::span<const Tensor> in) { return sum(angle(polar(ones({3}), in[0]))); },
                {from_vector<double>({0.5, -1, 2}, {3})});
  for (double v : g[0].to_vector<double>()) EXPECT_NEAR(v, 1.0, 1e-12);
}

// ---- every interpreter, bitwise ----

TEST(RepeatPolar, EagerTracedPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  const Tensor counts = from_vector<i64>({1, 3, 0, 2}, {4});  // concrete: a constant of the trace
  auto f = [&](std::span<const Tensor> in) {
    const Tensor z = polar(in[0], in[1]);
    auto g = grad(
        [&](std::span<const Tensor> v) {
          return sum(angle(polar(v[0], v[1]) * z) + atan2(v[0], v[1]));
        },
        {in[0], in[1]});
    return std::vector<Tensor>{tile(in[0], {2, 1, 3}),
                               repeat_interleave(in[0], counts, 1),
                               repeat_interleave(in[2], 2, 0),
                               atan2(in[0], in[1]),
                               angle(z),
                               angle(in[2]),
                               z,
                               g[0],
                               g[1],
                               tile(in[2], {2})};
  };
  const std::vector<Tensor> in = {randn({33, 4}, 17), randn({4}, 18),
                                  from_vector<std::int32_t>({-2, 0, 5}, {3})};
  const std::vector<ValueSpec> specs = {ValueSpec{{33, 4}, DType::f64}, ValueSpec{{4}, DType::f64},
                                        ValueSpec{{3}, DType::i32}};
  expect_eager_prepared_scoped_bitwise(f, specs, in);
}

}  // namespace
}  // namespace tenferro::testing
