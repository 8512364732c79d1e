// The Array API's statistical, manipulation, creation and linalg-extension functions (var, std,
// clip, moveaxis, expand_dims, broadcast_arrays, meshgrid, concat, cumulative_sum/prod,
// linspace, eye, *_like, vecdot, cross, matrix_power, matrix_rank, finfo, iinfo): values against
// loops written here on f32/f64/complex, the standard's edge cases (empty arrays, correction >=
// N, NaN bounds, negative axes), typed errors naming the function, derivatives against finite
// differences, and one traced program using several of them against eager.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/finfo.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<c128> vals(const Tensor& t) { return cast(t, DType::c128).to_vector<c128>(); }

std::vector<double> dvals(const Tensor& t) { return cast(t, DType::f64).to_vector<double>(); }

void expect_near_values(const Tensor& t, const std::vector<c128>& want, double tol) {
  const std::vector<c128> got = vals(t);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]), tol * (1 + std::abs(want[i]))) << "element " << i;
}

// ---- var / std ----

// Variance of each column (axis 0) and each row (axis 1) of a row-major [m, n] matrix.
std::vector<double> ref_var(const std::vector<c128>& v, i64 m, i64 n, int axis, double corr) {
  const i64 outer = axis == 0 ? n : m, len = axis == 0 ? m : n;
  std::vector<double> out;
  for (i64 o = 0; o < outer; ++o) {
    c128 mean = 0;
    for (i64 k = 0; k < len; ++k)
      mean += v[static_cast<std::size_t>(axis == 0 ? k * n + o : o * n + k)];
    mean /= static_cast<double>(len);
    double ss = 0;
    for (i64 k = 0; k < len; ++k)
      ss += std::norm(v[static_cast<std::size_t>(axis == 0 ? k * n + o : o * n + k)] - mean);
    out.push_back(len - corr > 0 ? ss / (len - corr) : kNaN);
  }
  return out;
}

TEST(ArrayApiVar, MatchesALoopOnRealAndComplexDtypesAndAxes) {
  for (DType d : {DType::f32, DType::f64, DType::c64, DType::c128}) {
    const Tensor x = randn({5, 4}, 3, d);
    const std::vector<c128> xv = vals(x);
    const double tol = is_double_precision(d) ? 1e-12 : 1e-5;
    for (double corr : {0.0, 1.0, 2.5})
      for (int axis : {0, 1}) {
        const std::vector<double> want = ref_var(xv, 5, 4, axis, corr);
        for (i64 a : {i64{axis}, i64{axis - 2}}) {  // negative axes count from the end
          const Tensor v = var(x, {a}, corr);
          EXPECT_EQ(v.dtype(), real_dtype(d));
          EXPECT_EQ(v.shape(), Dims{axis == 0 ? 4 : 5});
          std::vector<c128> w(want.begin(), want.end());
          expect_near_values(v, w, tol);
          std::vector<c128> sw;
          for (double s : want) sw.emplace_back(std::sqrt(s));
          expect_near_values(tenferro::std(x, {a}, corr), sw, tol);
        }
      }
    // All axes (the empty list) and keepdims.
    const Tensor all_v = var(x, {}, 1.0, true);
    EXPECT_EQ(all_v.shape(), (Dims{1, 1}));
    c128 mean = 0;
    for (c128 z : xv) mean += z;
    mean /= 20.0;
    double ss = 0;
    for (c128 z : xv) ss += std::norm(z - mean);
    expect_near_values(all_v, {ss / 19}, tol);
    expect_near_values(var(x, {0, 1}, 1.0), {ss / 19}, tol);
  }
}

TEST(ArrayApiVar, EdgeCasesFollowTheStandard) {
  const Tensor x = from_values({1, 2, 4}, {3});
  // correction >= N: NaN (the standard; NumPy would give inf for this non-constant data).
  EXPECT_TRUE(std::isnan(var(x, {}, 3.0).item<double>()));
  EXPECT_TRUE(std::isnan(var(x, {}, 5.0).item<double>()));
  EXPECT_TRUE(std::isnan(tenferro::std(x, {}, 3.0).item<double>()));
  // A negative correction is allowed (NumPy's ddof).
  EXPECT_NEAR(var(x, {}, -1.0).item<double>(), (16.0 / 9 + 1.0 / 9 + 25.0 / 9) / 4, 1e-14);
  // Empty reductions are NaN.
  EXPECT_TRUE(std::isnan(var(zeros({0}), {}).item<double>()));
  const Tensor e = var(zeros({0, 3}), {0});
  EXPECT_EQ(e.shape(), Dims{3});
  for (double v : dvals(e)) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(var(zeros({3, 0}), {0}).shape(), Dims{0});
  // 0-d: one element, variance 0.
  EXPECT_EQ(var(scalar_tensor(3.0)).item<double>(), 0.0);
  // Integers compute in f64; NaN propagates.
  const Tensor iv = var(from_values({1, 2, 3, 4}, {4}, DType::i32));
  EXPECT_EQ(iv.dtype(), DType::f64);
  EXPECT_DOUBLE_EQ(iv.item<double>(), 1.25);
  EXPECT_TRUE(std::isnan(var(from_values({1, kNaN}, {2})).item<double>()));
}

TEST(ArrayApiVar, ErrorsNameTheFunction) {
  const Tensor x = randn({2, 3}, 1);
  expect_error(ErrorKind::InvalidArgument, [&] { (void)var(x, {2}); }, {"var", "axis 2"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)tenferro::std(x, {-3}); }, {"std"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)var(x, {1, -1}); }, {"var", "repeated"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)var(x, {}, kNaN); }, {"var", "correction"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)var(Tensor()); }, {"var"});
}

TEST(ArrayApiVar, GradientsMatchFiniteDifferences) {
  for (DType d : {DType::f64, DType::c128}) {
    const Tensor x = randn({4, 3}, 11, d);
    for (double corr : {0.0, 1.0}) {
      auto f = [corr](std::span<const Tensor> in) {
        return std::vector<Tensor>{var(in[0], {0}, corr), tenferro::std(in[0], {-1}, corr, true),
                                   var(in[0], {}, corr)};
      };
      EXPECT_TRUE(adtest::check_vjp(f, {x}));
      EXPECT_TRUE(adtest::check_jvp(f, {x}));
    }
  }
}

TEST(ArrayApiVar, SecondDerivativesMatchFiniteDifferencesOfTheGradient) {
  // Forward over reverse: the jvp of the gradient of a weighted var / std against differences.
  for (DType d : {DType::f64, DType::c128}) {
    const Tensor x = randn({4, 3}, 12, d), w = randn({3}, 13);
    auto second = [&](std::span<const Tensor> in) {
      return std::vector<Tensor>{grad(
          [&](std::span<const Tensor> v) {
            return sum(var(v[0], {0}, 1.0) * w) + sum(tenferro::std(v[0], {-1}));
          },
          {in[0]})[0]};
    };
    EXPECT_TRUE(adtest::check_jvp(second, {x}));
  }
}

// ---- clip ----

double clip_ref(double x, double lo, double hi) {
  if (std::isnan(x) || std::isnan(lo) || std::isnan(hi)) return kNaN;
  return std::min(std::max(x, lo), hi);
}

TEST(ArrayApiClip, ScalarAndTensorBoundsAndTheStandardsNaNRule) {
  const std::vector<double> xs = {-2.0, -0.5, 0.0, 0.5, 2.0, kNaN, -INFINITY, INFINITY};
  for (DType d : {DType::f32, DType::f64}) {
    const Tensor x = from_values({-2.0, -0.5, 0.0, 0.5, 2.0, kNaN, -INFINITY, INFINITY}, {8}, d);
    const Tensor c = clip(x, -1.0, 1.0);
    EXPECT_EQ(c.dtype(), d);
    const std::vector<double> got = dvals(c);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double want = clip_ref(xs[i], -1.0, 1.0);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got[i]));
      else
        EXPECT_EQ(got[i], want);
    }
    // One side only, and neither (a copy).
    EXPECT_EQ(dvals(clip(x, std::nullopt, 0.0))[4], 0.0);
    EXPECT_EQ(dvals(clip(x, 0.0, std::nullopt))[0], 0.0);
    EXPECT_EQ(dvals(clip(x, std::nullopt, std::nullopt))[4], 2.0);
    // A NaN bound gives NaN everywhere (the standard; NumPy 1.24 ignores it).
    for (double v : dvals(clip(x, kNaN, 1.0))) EXPECT_TRUE(std::isnan(v));
    // min > max gives max.
    for (double v : dvals(clip(from_values({-3, 0, 3}, {3}, d), 2.0, 1.0))) EXPECT_EQ(v, 1.0);
  }
  // Tensor bounds broadcast; the result has the broadcast shape and x's dtype.
  const Tensor x = from_values({0.0, 5.0, 10.0}, {3}, DType::f32);
  const Tensor lo = from_values({1.0, 2.0}, {2, 1});
  const Tensor hi = from_values({6.0, kNaN, 3.0}, {3});
  const Tensor c = clip(x, lo, hi);
  EXPECT_EQ(c.shape(), (Dims{2, 3}));
  EXPECT_EQ(c.dtype(), DType::f32);
  const std::vector<double> got = dvals(c);
  for (i64 r = 0; r < 2; ++r)
    for (i64 k = 0; k < 3; ++k) {
      const double want = clip_ref(dvals(x)[k], dvals(lo)[r], dvals(hi)[k]);
      const double g = got[static_cast<std::size_t>(r * 3 + k)];
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(g));
      else
        EXPECT_EQ(g, want);
    }
  // Integers keep their dtype.
  const Tensor ci = clip(from_values({-5, 0, 5}, {3}, DType::i64), -1.0, 2.0);
  EXPECT_EQ(ci.dtype(), DType::i64);
  EXPECT_EQ(ci.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-1, 0, 2}));
  // Empty.
  EXPECT_EQ(clip(zeros({0, 2}), 0.0, 1.0).shape(), (Dims{0, 2}));
}

// An integer x's bounds convert so that the result is the exact clip nearest to x's range: an
// integer bound of another dtype saturates (cast() wrapped it: clip(x_u8, min=i8 -1) was 255
// everywhere, clip(x_i8, max=u8 200) -56), a floating bound rounds inwards (cast() truncated:
// clip(x_i32, min=2.5) gave 2, below its bound).
TEST(ArrayApiClip, IntegerXBoundsOfOtherDtypesSaturateAndRoundInwards) {
  using u8 = std::uint8_t;
  using i8 = std::int8_t;
  using u64 = std::uint64_t;
  const Tensor xu = from_vector<u8>({0, 100, 255}, {3});
  const auto u8s = [](const Tensor& t) {
    EXPECT_EQ(t.dtype(), DType::u8);
    const std::vector<std::int64_t> v = cast(t, DType::i64).to_vector<std::int64_t>();
    return v;
  };
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(u8s(clip(xu, from_vector<i8>({-1}, {1}), Tensor())), (V{0, 100, 255}));
  EXPECT_EQ(u8s(clip(xu, Tensor(), from_vector<i8>({-1}, {1}))), (V{0, 0, 0}));
  EXPECT_EQ(u8s(clip(xu, cast(from_values({300}, {1}), DType::i16), Tensor())), (V{255, 255, 255}));
  EXPECT_EQ(u8s(clip(xu, Tensor(), cast(from_values({300}, {1}), DType::i16))), (V{0, 100, 255}));
  EXPECT_EQ(u8s(clip(xu, cast(from_values({-2}, {1}), DType::i64),
                     cast(from_values({-1, 50, 70}, {3}), DType::i64))),
            (V{0, 50, 70}));
  const Tensor xi = from_vector<i8>({-100, 0, 100}, {3});
  EXPECT_EQ(
      cast(clip(xi, Tensor(), from_vector<u8>({200}, {1})), DType::i64).to_vector<std::int64_t>(),
      (V{-100, 0, 100}));
  EXPECT_EQ(
      cast(clip(xi, from_vector<u8>({200}, {1}), Tensor()), DType::i64).to_vector<std::int64_t>(),
      (V{127, 127, 127}));
  // u64 with signed bounds (their promotion is f64; the limits compare exactly).
  const Tensor x64 = from_vector<u64>({0, 5, u64{1} << 63}, {3});
  EXPECT_EQ(clip(x64, cast(from_values({-1}, {1}), DType::i64), Tensor()).to_vector<u64>(),
            (std::vector<u64>{0, 5, u64{1} << 63}));
  EXPECT_EQ(clip(x64, Tensor(), cast(from_values({-1}, {1}), DType::i64)).to_vector<u64>(),
            (std::vector<u64>{0, 0, 0}));
  const Tensor xs = cast(from_values({-5, 0, 5}, {3}), DType::i64);
  EXPECT_EQ(clip(xs, from_vector<u64>({u64{1} << 63}, {1}), Tensor()).to_vector<std::int64_t>(),
            (V(3, std::numeric_limits<std::int64_t>::max())));
  // Floating bounds round inwards, as tensors and as Scalars, and saturate.
  const Tensor x32 = cast(from_values({-5, 0, 2, 5}, {4}), DType::i32);
  const V lo_round = {3, 3, 3, 5}, hi_round = {-5, -3, -3, -3};
  EXPECT_EQ(
      cast(clip(x32, from_values({2.5}, {1}), Tensor()), DType::i64).to_vector<std::int64_t>(),
      lo_round);
  EXPECT_EQ(cast(clip(x32, 2.5, std::nullopt), DType::i64).to_vector<std::int64_t>(), lo_round);
  EXPECT_EQ(
      cast(clip(x32, Tensor(), from_values({-2.5}, {1})), DType::i64).to_vector<std::int64_t>(),
      hi_round);
  EXPECT_EQ(cast(clip(x32, std::nullopt, -2.5), DType::i64).to_vector<std::int64_t>(), hi_round);
  EXPECT_EQ(u8s(clip(xu, -1e30, 1e30)), (V{0, 100, 255}));
  EXPECT_EQ(u8s(clip(xu, -INFINITY, -0.5)), (V{0, 0, 0}));
}

TEST(ArrayApiClip, ErrorsAndGradients) {
  const Tensor z = randn({3}, 1, DType::c128);
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)clip(z, 0.0, 1.0); }, {"clip"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)clip(zeros({2}, DType::boolean), 0.0, 1.0); },
               {"clip", "bool"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)clip(ones({2}), Scalar(0, 1), 1.0); },
               {"clip", "complex"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)clip(ones({2}), z, Tensor()); },
               {"clip", "min"});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)clip(ones({2}), ones({3}), Tensor()); });
  // A NaN bound for an integer x (whose result cannot be NaN) is an error, not a bound of 0.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 (void)clip(from_values({1, 2}, {2}, DType::i64), std::nullopt, kNaN);
               },
               {"clip", "NaN"});
  // Gradients in x and both tensor bounds, away from ties.
  const Tensor x = from_values({-2.0, -0.3, 0.1, 0.7, 3.0}, {5});
  const Tensor lo = from_values({-1.0, -1.0, 0.4, -1.0, -1.0}, {5});
  const Tensor hi = from_values({1.0, 1.0, 1.0, 0.5, 1.0}, {5});
  auto f = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{clip(in[0], in[1], in[2]), clip(in[0], -0.5, 0.5)};
  };
  EXPECT_TRUE(adtest::check_vjp(f, {x, lo, hi}));
  EXPECT_TRUE(adtest::check_jvp(f, {x, lo, hi}));
  // At a bound the gradient goes to x (closed interval), as clamp.
  const std::vector<Tensor> g =
      grad([](std::span<const Tensor> in) { return sum(clip(in[0], -1.0, 1.0)); },
           {from_values({-1.0, 1.0, 2.0}, {3})});
  EXPECT_EQ(dvals(g[0]), (std::vector<double>{1, 1, 0}));
}

// ---- manipulation ----

TEST(ArrayApiManipulation, MoveaxisAndExpandDims) {
  const Tensor x = randn({2, 3, 4, 5}, 7);
  EXPECT_EQ(moveaxis(x, {0}, {-1}).shape(), (Dims{3, 4, 5, 2}));
  EXPECT_EQ(moveaxis(x, {-1}, {0}).shape(), (Dims{5, 2, 3, 4}));
  EXPECT_EQ(moveaxis(x, {0, 1}, {-1, -2}).shape(), (Dims{4, 5, 3, 2}));
  EXPECT_EQ(moveaxis(x, {3, 0}, {0, 3}).shape(), (Dims{5, 3, 4, 2}));  // NumPy: (5, 3, 4, 2)
  const Tensor m = moveaxis(x, {1}, {3});
  EXPECT_EQ(m.at<double>({1, 2, 4, 0}), x.at<double>({1, 0, 2, 4}));
  EXPECT_EQ(moveaxis(x, {}, {}).shape(), x.shape());
  expect_error(ErrorKind::InvalidArgument, [&] { (void)moveaxis(x, {0}, {4}); }, {"moveaxis"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)moveaxis(x, {0, -4}, {1, 2});
               },
               {"moveaxis", "twice"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)moveaxis(x, {0, 1}, {1});
               },
               {"moveaxis", "lengths"});

  EXPECT_EQ(expand_dims(x, 0).shape(), (Dims{1, 2, 3, 4, 5}));
  EXPECT_EQ(expand_dims(x, 4).shape(), (Dims{2, 3, 4, 5, 1}));
  EXPECT_EQ(expand_dims(x, -1).shape(), (Dims{2, 3, 4, 5, 1}));
  EXPECT_EQ(expand_dims(x, -5).shape(), (Dims{1, 2, 3, 4, 5}));
  EXPECT_EQ(expand_dims(scalar_tensor(1.0)).shape(), Dims{1});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)expand_dims(x, 5); }, {"expand_dims"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)expand_dims(x, -6); }, {"expand_dims"});
}

TEST(ArrayApiManipulation, BroadcastArraysAndMeshgrid) {
  const Tensor a = randn({3, 1}, 1), b = randn({4}, 2, DType::f32), c = scalar_tensor(2.0);
  const std::vector<Tensor> r = broadcast_arrays({a, b, c});
  ASSERT_EQ(r.size(), 3u);
  for (const Tensor& t : r) EXPECT_EQ(t.shape(), (Dims{3, 4}));
  EXPECT_EQ(r[1].dtype(), DType::f32);
  EXPECT_EQ(r[0].at<double>({2, 3}), a.at<double>({2, 0}));
  EXPECT_TRUE(broadcast_arrays(std::span<const Tensor>()).empty());
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)broadcast_arrays({a, randn({2, 2}, 3)});
               },
               {"broadcast_arrays", "[3, 1]", "[2, 2]"});

  const Tensor x = from_values({1, 2, 3}, {3}), y = from_values({10, 20}, {2});
  const Tensor z = from_values({7, 8, 9, 6}, {4}, DType::i64);
  const std::vector<Tensor> xy = meshgrid({x, y});
  ASSERT_EQ(xy.size(), 2u);
  EXPECT_EQ(xy[0].shape(), (Dims{2, 3}));
  EXPECT_EQ(xy[0].at<double>({1, 2}), 3.0);
  EXPECT_EQ(xy[1].at<double>({1, 2}), 20.0);
  const std::vector<Tensor> ij = meshgrid({x, y, z}, MeshIndexing::ij);
  for (const Tensor& t : ij) EXPECT_EQ(t.shape(), (Dims{3, 2, 4}));
  EXPECT_EQ(ij[0].at<double>({2, 1, 3}), 3.0);
  EXPECT_EQ(ij[1].at<double>({2, 1, 3}), 20.0);
  EXPECT_EQ(ij[2].at<std::int64_t>({2, 1, 3}), 6);
  const std::vector<Tensor> xyz = meshgrid({x, y, z});
  for (const Tensor& t : xyz) EXPECT_EQ(t.shape(), (Dims{2, 3, 4}));
  EXPECT_EQ(meshgrid({x}).at(0).shape(), Dims{3});
  EXPECT_EQ(meshgrid({zeros({0}), y}).at(0).shape(), (Dims{2, 0}));
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)meshgrid({x, ones({2, 2})});
               },
               {"meshgrid", "input 1"});
}

TEST(ArrayApiManipulation, ConcatWithAndWithoutAxis) {
  const Tensor a = randn({2, 3}, 1), b = randn({1, 3}, 2, DType::f32);
  const Tensor c = concat({a, b});
  EXPECT_EQ(c.shape(), (Dims{3, 3}));
  EXPECT_EQ(c.dtype(), DType::f64);
  EXPECT_EQ(concat({a, a}, -1).shape(), (Dims{2, 6}));
  const Tensor f = concat({a, scalar_tensor(5.0), zeros({0, 4})}, std::nullopt);
  EXPECT_EQ(f.shape(), Dims{7});
  EXPECT_EQ(dvals(f)[6], 5.0);
  EXPECT_EQ(dvals(f)[4], a.at<double>({1, 1}));
  expect_error(ErrorKind::InvalidArgument, [] { (void)concat(std::span<const Tensor>()); },
               {"concat"});
}

TEST(ArrayApiManipulation, CumulativeSumAndProdWithIncludeInitial) {
  const Tensor x = from_values({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(dvals(cumulative_sum(x, 1)), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  const Tensor s0 = cumulative_sum(x, 0, std::nullopt, true);
  EXPECT_EQ(s0.shape(), (Dims{3, 3}));
  EXPECT_EQ(dvals(s0), (std::vector<double>{0, 0, 0, 1, 2, 3, 5, 7, 9}));
  const Tensor p = cumulative_prod(x, -1, std::nullopt, true);
  EXPECT_EQ(dvals(p), (std::vector<double>{1, 1, 2, 6, 1, 4, 20, 120}));
  // Rank 1 needs no axis; dtype casts first; bool/ints accumulate in i64.
  const Tensor v = from_values({1, 2, 3}, {3}, DType::i32);
  EXPECT_EQ(cumulative_sum(v).dtype(), DType::i64);
  EXPECT_EQ(cumulative_sum(v, std::nullopt, DType::f32).dtype(), DType::f32);
  EXPECT_EQ(cumulative_prod(v, std::nullopt, DType::i32, true).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 1, 2, 6}));
  const Tensor c = cumulative_sum(randn({3}, 4, DType::c64), 0, std::nullopt, true);
  EXPECT_EQ(c.dtype(), DType::c64);
  EXPECT_EQ(c.shape(), Dims{4});
  // Empty axis: include_initial still gives the initial element.
  EXPECT_EQ(dvals(cumulative_sum(zeros({0}), 0, std::nullopt, true)), std::vector<double>{0});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)cumulative_sum(x); },
               {"cumulative_sum", "axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)cumulative_prod(scalar_tensor(1.0), 0); },
               {"cumulative_prod", "0-d"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)cumulative_sum(x, 2); }, {"cumulative_sum"});
  // Derivatives are cumsum's / cumprod's (the initial element is constant).
  auto f = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{cumulative_sum(in[0], 1, std::nullopt, true),
                               cumulative_prod(in[0], 0, std::nullopt, true)};
  };
  EXPECT_TRUE(adtest::check_vjp(f, {randn({3, 2}, 5)}));
}

// ---- creation ----

TEST(ArrayApiCreation, LinspaceEyeAndLike) {
  EXPECT_EQ(dvals(linspace(0.0, 1.0, 5)), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(dvals(linspace(0.0, 1.0, 4, false)), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(dvals(linspace(2.0, 3.0, 1)), std::vector<double>{2});
  EXPECT_EQ(linspace(2.0, 3.0, 0).shape(), Dims{0});
  const Tensor l = linspace(0.1, 0.7, 7);  // the end point is exact
  EXPECT_EQ(dvals(l).back(), 0.7);
  for (i64 i = 0; i < 7; ++i)
    EXPECT_NEAR(dvals(l)[static_cast<std::size_t>(i)], 0.1 + 0.1 * i, 1e-15);
  EXPECT_EQ(linspace(0.0, 1.0, 3, true, DType::f32).dtype(), DType::f32);
  // An integer dtype floors (as NumPy), where a cast would truncate -0.5 to 0.
  EXPECT_EQ(linspace(-1.0, 0.0, 3, true, DType::i64).to_vector<i64>(),
            (std::vector<i64>{-1, -1, 0}));
  EXPECT_EQ(linspace(-2.0, 2.0, 5, false, DType::i32).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{-2, -2, -1, 0, 1}));
  const Tensor z = linspace(Scalar(0, 0), Scalar(2, 4), 3);
  EXPECT_EQ(z.dtype(), DType::c128);
  EXPECT_EQ(vals(z)[1], c128(1, 2));
  expect_error(ErrorKind::InvalidArgument, [] { (void)linspace(0.0, 1.0, -1); }, {"linspace"});
  expect_error(ErrorKind::OutOfMemory,
               [] { (void)linspace(0.0, 1.0, std::numeric_limits<i64>::max() / 2); }, {"linspace"});
  expect_error(ErrorKind::DTypeMismatch,
               [] { (void)linspace(Scalar(0, 1), 1.0, 3, true, DType::f64); }, {"linspace"});

  EXPECT_EQ(dvals(eye(2)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(dvals(eye(2, 3, 1)), (std::vector<double>{0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(dvals(eye(3, 2, -1)), (std::vector<double>{0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(dvals(eye(2, 2, 5)), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(dvals(eye(2, 2, std::numeric_limits<i64>::min())), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(eye(3, 0).shape(), (Dims{3, 0}));
  EXPECT_EQ(eye(2, std::nullopt, 0, DType::c64).dtype(), DType::c64);
  expect_error(ErrorKind::InvalidArgument, [] { (void)eye(-1); }, {"eye"});

  const Tensor x = randn({2, 3}, 1, DType::f32);
  EXPECT_EQ(zeros_like(x).dtype(), DType::f32);
  EXPECT_EQ(dvals(zeros_like(x)), std::vector<double>(6, 0.0));
  EXPECT_EQ(dvals(ones_like(x, DType::i32)), std::vector<double>(6, 1.0));
  EXPECT_EQ(ones_like(x, DType::i32).dtype(), DType::i32);
  EXPECT_EQ(dvals(full_like(x, 2.5)), std::vector<double>(6, 2.5));
  EXPECT_EQ(full_like(x, Scalar(1, 1), DType::c64).dtype(), DType::c64);
  EXPECT_EQ(empty_like(x, DType::f64).shape(), (Dims{2, 3}));
  EXPECT_EQ(empty_like(x).dtype(), DType::f32);
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)full_like(x, Scalar(1, 1)); }, {"full_like"});
  expect_error(ErrorKind::InvalidArgument, [] { (void)zeros_like(Tensor()); }, {"zeros_like"});
}

// ---- linalg ----

TEST(ArrayApiLinalg, VecdotConjugatesTheFirstArgument) {
  // Integers keep the promoted dtype (sum alone would widen i32 to i64).
  const Tensor vi =
      vecdot(from_values({1, 2}, {2}, DType::i32), from_values({3, 4}, {2}, DType::i32));
  EXPECT_EQ(vi.dtype(), DType::i32);
  EXPECT_EQ(vi.to_vector<std::int32_t>(), std::vector<std::int32_t>{11});
  const Tensor a = randn({2, 3}, 1, DType::c128), b = randn({3}, 2, DType::c128);
  const Tensor v = vecdot(a, b);
  EXPECT_EQ(v.shape(), Dims{2});
  std::vector<c128> want;
  for (i64 r = 0; r < 2; ++r) {
    c128 s = 0;
    for (i64 k = 0; k < 3; ++k) s += std::conj(a.at<c128>({r, k})) * b.at<c128>({k});
    want.push_back(s);
  }
  expect_near_values(v, want, 1e-14);
  // Axis counted in the broadcast shape; real dtypes promote.
  const Tensor x = randn({4, 3}, 3, DType::f32), y = randn({4, 1}, 4);
  const Tensor w = vecdot(x, randn({4, 3}, 5), 0);
  EXPECT_EQ(w.shape(), Dims{3});
  EXPECT_EQ(vecdot(x, randn({4, 3}, 5)).dtype(), DType::f64);
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)vecdot(x, y); }, {"vecdot"});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)vecdot(x, randn({3}, 6), 0); }, {"vecdot"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)vecdot(x, x, 2); }, {"vecdot", "axis 2"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)vecdot(zeros({3}, DType::boolean), zeros({3}, DType::boolean)); },
               {"vecdot"});
  // Empty contraction: zeros.
  EXPECT_EQ(dvals(vecdot(zeros({2, 0}), zeros({2, 0}))), (std::vector<double>{0, 0}));
  for (DType d : {DType::f64, DType::c128}) {
    auto f = [](std::span<const Tensor> in) {
      return std::vector<Tensor>{vecdot(in[0], in[1]), vecdot(in[0], in[1], -2)};
    };
    EXPECT_TRUE(adtest::check_vjp(f, {randn({3, 3}, 7, d), randn({3, 3}, 8, d)}));
    EXPECT_TRUE(adtest::check_jvp(f, {randn({3, 3}, 7, d), randn({3, 3}, 8, d)}));
  }
}

TEST(ArrayApiLinalg, CrossOfThreeVectors) {
  const Tensor e = eye(3);
  const Tensor ex = slice(e, 0, 0, 1), ey = slice(e, 0, 1, 2), ez = slice(e, 0, 2, 3);
  EXPECT_EQ(dvals(cross(ex, ey)), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(dvals(cross(ey, ex)), (std::vector<double>{0, 0, -1}));
  const Tensor a = randn({2, 3}, 1), b = randn({3}, 2);
  const Tensor c = cross(a, b);
  EXPECT_EQ(c.shape(), (Dims{2, 3}));
  for (i64 r = 0; r < 2; ++r) {
    const double a0 = a.at<double>({r, 0}), a1 = a.at<double>({r, 1}), a2 = a.at<double>({r, 2});
    const double b0 = b.at<double>({0}), b1 = b.at<double>({1}), b2 = b.at<double>({2});
    EXPECT_NEAR(c.at<double>({r, 0}), a1 * b2 - a2 * b1, 1e-14);
    EXPECT_NEAR(c.at<double>({r, 1}), a2 * b0 - a0 * b2, 1e-14);
    EXPECT_NEAR(c.at<double>({r, 2}), a0 * b1 - a1 * b0, 1e-14);
  }
  // Axis 0 (vectors in the columns) equals the transposed product.
  const Tensor at = transpose(randn({4, 3}, 3)), bt = transpose(randn({4, 3}, 4));
  EXPECT_TRUE(allclose(cross(at, bt, 0), transpose(cross(transpose(at), transpose(bt))), 0, 0));
  const Tensor zc = cross(randn({3}, 5, DType::c64), randn({3}, 6, DType::c64));
  EXPECT_EQ(zc.dtype(), DType::c64);
  expect_error(ErrorKind::ShapeMismatch, [] { (void)cross(ones({2}), ones({2})); }, {"cross", "3"});
  expect_error(ErrorKind::InvalidArgument, [] { (void)cross(ones({3}), ones({3}), 1); }, {"cross"});
  auto f = [](std::span<const Tensor> in) { return std::vector<Tensor>{cross(in[0], in[1])}; };
  for (DType d : {DType::f64, DType::c128}) {
    EXPECT_TRUE(adtest::check_vjp(f, {randn({2, 3}, 7, d), randn({2, 3}, 8, d)}));
    EXPECT_TRUE(adtest::check_jvp(f, {randn({2, 3}, 7, d), randn({2, 3}, 8, d)}));
  }
}

TEST(ArrayApiLinalg, MatrixPowerOfEveryExponentSign) {
  for (DType d : {DType::f32, DType::f64, DType::c128}) {
    const Tensor x = randn({2, 3, 3}, 1, d) * 0.5 + eye(3, std::nullopt, 0, d);
    const double tol = is_double_precision(d) ? 1e-10 : 1e-4;
    Tensor p = x;
    for (i64 n = 1; n <= 6; ++n) {
      EXPECT_TRUE(allclose(matrix_power(x, n), p, tol, tol)) << n;
      p = matmul(p, x);
    }
    const Tensor id = matrix_power(x, 0);
    EXPECT_EQ(id.shape(), (Dims{2, 3, 3}));
    EXPECT_EQ(id.dtype(), d);
    EXPECT_TRUE(allclose(id, broadcast_to(eye(3, std::nullopt, 0, d), {2, 3, 3}), 0, 0));
    const Tensor xi = inv(x);
    EXPECT_TRUE(allclose(matrix_power(x, -1), xi, tol, tol));
    EXPECT_TRUE(allclose(matrix_power(x, -3), matmul(matmul(xi, xi), xi), tol, tol));
  }
  // n = 1 is a fresh tensor; integer matrices are DTypeMismatch (the standard asks for a
  // floating dtype; matmul has no integer kernel); the identity of a singular matrix.
  const Tensor x = randn({2, 2}, 2);
  EXPECT_NE(matrix_power(x, 1).data_ptr(), x.data_ptr());
  const Tensor k = from_values({1, 1, 0, 1}, {2, 2}, DType::i64);
  EXPECT_EQ(dvals(matrix_power(zeros({2, 2}), 0)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(matrix_power(zeros({0, 0}), 3).shape(), (Dims{0, 0}));
  expect_error(ErrorKind::ShapeMismatch,
               [] {
                 (void)matrix_power(ones({2, 3}), 2);
               },
               {"matrix_power"});
  expect_error(ErrorKind::ShapeMismatch, [] { (void)matrix_power(ones({3}), 2); },
               {"matrix_power"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)matrix_power(k, -1); }, {"matrix_power"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)matrix_power(k, 2); },
               {"matrix_power", "i64"});
  expect_error(ErrorKind::LinAlgError, [] { (void)matrix_power(zeros({2, 2}), -2); });
  auto f = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{matrix_power(in[0], 3), matrix_power(in[0], -2),
                               matrix_power(in[0], 0)};
  };
  for (DType d : {DType::f64, DType::c128}) {
    const Tensor a = randn({3, 3}, 3, d) * 0.3 + eye(3, std::nullopt, 0, d);
    EXPECT_TRUE(adtest::check_vjp(f, {a}));
    EXPECT_TRUE(adtest::check_jvp(f, {a}));
  }
}

TEST(ArrayApiLinalg, MatrixRankWithTheStandardsTolerance) {
  const Tensor u = randn({5, 2}, 1), v = randn({2, 4}, 2);
  EXPECT_EQ(matrix_rank(matmul(u, v)).item<std::int64_t>(), 2);
  EXPECT_EQ(matrix_rank(randn({4, 6}, 3)).item<std::int64_t>(), 4);
  EXPECT_EQ(matrix_rank(zeros({3, 3})).item<std::int64_t>(), 0);
  EXPECT_EQ(matrix_rank(eye(3, std::nullopt, 0, DType::c64)).item<std::int64_t>(), 3);
  // A batch, and an explicit rtol that cuts a small singular value.
  const Tensor d = from_values({1, 0, 0, 0, 1e-3, 0, 0, 0, 1e-9}, {3, 3});
  EXPECT_EQ(matrix_rank(d).item<std::int64_t>(), 3);
  EXPECT_EQ(matrix_rank(d, 1e-6).item<std::int64_t>(), 2);
  EXPECT_EQ(matrix_rank(cast(d, DType::f32)).item<std::int64_t>(), 2);  // 3 eps_f32 > 1e-9
  const Tensor b = stack({d, zeros({3, 3}), eye(3)});
  EXPECT_EQ(matrix_rank(b).to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 0, 3}));
  EXPECT_EQ(matrix_rank(zeros({2, 0, 3})).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 0}));
  // One rtol per matrix (the standard's array rtol), broadcast against the batch.
  EXPECT_EQ(matrix_rank(b, from_values({1e-6, 1e-6, 2.0}, {3})).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 0, 0}));
  EXPECT_EQ(matrix_rank(d, from_values({1e-12, 1e-6, 1e-2}, {3})).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 2, 1}));
  EXPECT_EQ(matrix_rank(zeros({2, 0, 3}), from_values({0.1}, {1})).shape(), Dims{2});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)matrix_rank(b, ones({2})); },
               {"matrix_rank", "rtol"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)matrix_rank(b, ones({3}, DType::c128)); },
               {"matrix_rank", "rtol"});
  // A NaN in a tensor rtol is an error, as a NaN scalar rtol is (it once counted nothing: 0).
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)matrix_rank(b, from_values({1e-6, std::nan(""), 2.0}, {3}));
               },
               {"matrix_rank", "rtol", "NaN"});
  expect_error(ErrorKind::ShapeMismatch, [] { (void)matrix_rank(ones({3})); }, {"matrix_rank"});
  expect_error(ErrorKind::DTypeMismatch,
               [] {
                 (void)matrix_rank(ones({2, 2}, DType::i32));
               },
               {"matrix_rank"});
}

// ---- errors of compositions name the public op ----

// clip, count_nonzero and vector_norm are built on lt/where, sum and norm/max: their bad-input
// errors are raised first under their own names (they once read "lt: ...", "sum: ...", "norm:
// ...").
TEST(ArrayApiErrors, CompositionsNameThePublicOp) {
  const Tensor x = ones({2, 3});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)clip(x, ones({4}), Tensor()); },
               {"clip", "[2, 3]", "[4]"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)clip(x, Tensor(), ones({2, 2}));
               },
               {"clip", "[2, 2]"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)count_nonzero(x, {4}); },
               {"count_nonzero", "axis 4"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)count_nonzero(x, {1, -1});
               },
               {"count_nonzero", "repeated"});
  for (double ord : {2.0, 1.0, 0.0, 3.0, std::numeric_limits<double>::infinity()})
    expect_error(ErrorKind::InvalidArgument, [&] { (void)vector_norm(x, ord, {7}); },
                 {"vector_norm", "axis 7"});
  // Good inputs still work after the errors, and the bounds still broadcast.
  EXPECT_EQ(clip(x, zeros({3}), Tensor()).shape(), (Dims{2, 3}));
  EXPECT_EQ(count_nonzero(x, {-1}).to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 3}));
}

// vector_norm with p < 1 at zero elements: |x|^p has an infinite derivative there, and the
// gradient was 0 * inf = NaN (also at an all-zero vector, which docs/linalg.md promises 0). A zero
// element now gets gradient 0 (PyTorch's mask); for p < 0 a zero element makes the norm 0 with
// gradient 0 everywhere, and an empty slice's norm is inf (NumPy's 0^(1/p); it was 0).
TEST(ArrayApiLinalg, VectorNormOfOrderBelowOneAtZeroElements) {
  const double inf = std::numeric_limits<double>::infinity();
  auto g = [](const Tensor& x, double ord) {
    return grad([ord](std::span<const Tensor> in) { return vector_norm(in[0], ord); }, {x})[0]
        .to_vector<double>();
  };
  const Tensor z = zeros({3}), p = from_vector<double>({0.0, 3.0, -4.0}, {3});
  for (double ord : {0.5, -1.0, -2.5})
    EXPECT_EQ(g(z, ord), (std::vector<double>{0.0, 0.0, 0.0})) << ord;
  EXPECT_EQ(g(p, -1.0), (std::vector<double>{0.0, 0.0, 0.0}));
  // p = 0.5 at (0, 3, -4): the zero element gets 0, the others s^(1/p - 1) |x|^(p - 1) sign(x).
  const double s = std::sqrt(3.0) + 2.0;
  const std::vector<double> gp = g(p, 0.5);
  EXPECT_EQ(gp[0], 0.0);
  EXPECT_NEAR(gp[1], s / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(gp[2], -s / 2.0, 1e-12);
  // Values: unchanged where they were right, inf for an empty slice with p < 0.
  EXPECT_DOUBLE_EQ(vector_norm(p, 0.5).item<double>(), s * s);
  EXPECT_EQ(vector_norm(p, -1.0).item<double>(), 0.0);
  EXPECT_DOUBLE_EQ(vector_norm(from_vector<double>({2.0, 2.0}, {2}), -1.0).item<double>(), 1.0);
  EXPECT_EQ(vector_norm(zeros({0}), -1.0).item<double>(), inf);
  EXPECT_EQ(vector_norm(zeros({2, 0}), -2.0, {1}).to_vector<double>(),
            (std::vector<double>{inf, inf}));
  EXPECT_EQ(vector_norm(zeros({0}), 0.5).item<double>(), 0.0);
  // Second order at a zero element: finite (the masked element computes on |x| = 1).
  const Tensor h =
      hessian([](std::span<const Tensor> in) { return vector_norm(in[0], 0.5); }, {p})[0][0];
  for (double v : h.to_vector<double>()) EXPECT_FALSE(std::isnan(v));
  // Complex input: the zero element's gradient is 0 as well.
  const Tensor c = from_vector<c128>({c128(0.0, 0.0), c128(3.0, 4.0)}, {2});
  const std::vector<c128> gc =
      grad([](std::span<const Tensor> in) { return vector_norm(in[0], 0.5); }, {c})[0]
          .to_vector<c128>();
  EXPECT_EQ(gc[0], c128(0.0, 0.0));
  EXPECT_FALSE(std::isnan(gc[1].real()));
}

// ---- finfo / iinfo ----

TEST(ArrayApiInfo, FinfoAndIinfo) {
  constexpr FInfo f = finfo(DType::f32);
  static_assert(f.bits == 32 && f.eps == 0x1p-23);
  EXPECT_EQ(f.max, static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(f.min, -f.max);
  EXPECT_EQ(f.smallest_normal, 0x1p-126);
  EXPECT_EQ(finfo(DType::f64).eps, 0x1p-52);
  EXPECT_EQ(finfo(DType::c128).bits, 64);
  EXPECT_EQ(finfo(DType::c64).dtype, DType::c64);
  EXPECT_EQ(finfo(DType::c64).eps, 0x1p-23);
  EXPECT_EQ(iinfo(DType::i32).max, 2147483647u);
  EXPECT_EQ(iinfo(DType::u64).max, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(iinfo(DType::u8).min, 0);
  EXPECT_EQ(iinfo(DType::i8).min, -128);
  EXPECT_EQ(iinfo(DType::u16).bits, 16);
  EXPECT_EQ(iinfo(DType::i64).min, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(iinfo(DType::i64).bits, 64);
  expect_error(ErrorKind::DTypeMismatch, [] { (void)finfo(DType::i32); }, {"finfo", "i32"});
  expect_error(ErrorKind::DTypeMismatch, [] { (void)iinfo(DType::boolean); }, {"iinfo", "bool"});
  expect_error(ErrorKind::DTypeMismatch, [] { (void)iinfo(DType::f64); }, {"iinfo"});
}

// ---- one traced program ----

TEST(ArrayApiTrace, AProgramUsingSeveralFunctionsMatchesEagerAndDifferentiates) {
  auto f = [](std::span<const Tensor> in) {
    const Tensor& x = in[0];                                                // [4, 3]
    const Tensor& y = in[1];                                                // [4, 3]
    const Tensor s = tenferro::std(x, {0}, 1.0);                            // [3]
    const Tensor c = clip(x, -0.5, 0.8);                                    // [4, 3]
    const Tensor d = vecdot(c, y);                                          // [4]
    const Tensor k = cross(x, y);                                           // [4, 3]
    const Tensor m = moveaxis(expand_dims(k, 0), {0}, {-1});                // [4, 3, 1]
    const Tensor q = matrix_power(slice(x, 0, 0, 3), 3);                    // [3, 3]
    const Tensor cs = cumulative_sum(d, std::nullopt, std::nullopt, true);  // [5]
    return std::vector<Tensor>{sum(s) + sum(d) + sum(m) + sum(q) + sum(cs) + var(y)};
  };
  const Tensor x = randn({4, 3}, 1), y = randn({4, 3}, 2);
  const Program p = trace(f, {ValueSpec{{4, 3}, DType::f64}, ValueSpec{{4, 3}, DType::f64}});
  const Tensor in[2] = {x, y};
  const std::vector<Tensor> eager = f(in);
  const std::vector<Tensor> traced = p({x, y});
  ASSERT_EQ(traced.size(), 1u);
  EXPECT_TRUE(allclose(traced[0], eager[0], 1e-12, 1e-12));
  const Program g = grad(p);
  const std::vector<Tensor> gp = g({x, y});
  const std::vector<Tensor> ge = grad([&](std::span<const Tensor> v) { return f(v)[0]; }, {x, y});
  ASSERT_EQ(gp.size(), 2u);
  EXPECT_TRUE(allclose(gp[0], ge[0], 1e-12, 1e-12));
  EXPECT_TRUE(allclose(gp[1], ge[1], 1e-12, 1e-12));
  EXPECT_TRUE(adtest::check_vjp(f, {x, y}));
  // Eager, prepared on a runtime and inside an execution scope agree bitwise at 1 and 4 threads.
  expect_eager_prepared_scoped_bitwise(
      f, {ValueSpec{{4, 3}, DType::f64}, ValueSpec{{4, 3}, DType::f64}}, in);
}

}  // namespace
}  // namespace tenferro::testing
