// argsort / sort / topk: indices and values against std::stable_sort loops written here for every
// real dtype (bool, i32, i64 beyond 2^53, f32, f64), NaN / inf / -0.0 placement, stability under
// many ties, strided, transposed and negative-stride inputs, empty and rank-0 tensors, topk as
// the first k of sort, derivatives by finite differences, typed errors (input unchanged), and
// eager = traced + prepared = in-scope results, bitwise, at thread budgets 1 and 4.
#include "tenferro/ops/sorting.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- the reference: std::stable_sort of indices, NaN the largest value ----

template <class T>
bool ref_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// The first k (all when k < 0) sorted indices of every row of contiguous values `v` of `shape`
// along `axis`, laid out contiguously in the result's shape (the axis of size k).
template <class T>
std::vector<i64> ref_argsort(const std::vector<T>& v, const Dims& shape, i64 axis, bool desc,
                             i64 k = -1) {
  const std::size_t r = shape.size();
  const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<i64>(r) : axis);
  i64 outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= shape[d];
  for (std::size_t d = a + 1; d < r; ++d) inner *= shape[d];
  const i64 n = shape[a];
  if (k < 0) k = n;
  std::vector<i64> out(static_cast<std::size_t>(outer * k * inner));
  for (i64 o = 0; o < outer; ++o)
    for (i64 i = 0; i < inner; ++i) {
      auto at = [&](i64 j) { return v[static_cast<std::size_t>((o * n + j) * inner + i)]; };
      std::vector<i64> idx(static_cast<std::size_t>(n));
      std::iota(idx.begin(), idx.end(), i64{0});
      std::stable_sort(idx.begin(), idx.end(), [&](i64 p, i64 q) {
        return desc ? ref_less(at(q), at(p)) : ref_less(at(p), at(q));
      });
      for (i64 j = 0; j < k; ++j)
        out[static_cast<std::size_t>((o * k + j) * inner + i)] = idx[static_cast<std::size_t>(j)];
    }
  return out;
}

// The values of contiguous `v` (shape) at the indices `idx` (result layout, axis of size k).
template <class T>
std::vector<T> ref_gather(const std::vector<T>& v, const Dims& shape, i64 axis,
                          const std::vector<i64>& idx, i64 k) {
  const std::size_t r = shape.size();
  const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<i64>(r) : axis);
  i64 outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= shape[d];
  for (std::size_t d = a + 1; d < r; ++d) inner *= shape[d];
  std::vector<T> out;
  for (i64 o = 0; o < outer; ++o)
    for (i64 j = 0; j < k; ++j)
      for (i64 i = 0; i < inner; ++i) {
        const i64 src = idx[static_cast<std::size_t>((o * k + j) * inner + i)];
        out.push_back(v[static_cast<std::size_t>((o * shape[a] + src) * inner + i)]);
      }
  return out;
}

template <class T>
bool same_scalar_bits(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::memcmp(&a, &b, sizeof(T)) == 0;
  return a == b;
}

template <class T>
::testing::AssertionResult same_values(const Tensor& got, const std::vector<T>& want) {
  const std::vector<T> g = got.contiguous().to_vector<T>();
  if (g.size() != want.size())
    return ::testing::AssertionFailure() << g.size() << " values, expected " << want.size();
  for (std::size_t j = 0; j < g.size(); ++j)
    if (!same_scalar_bits<T>(g[j], want[j]))
      return ::testing::AssertionFailure()
             << "value " << j << ": " << g[j] << " expected " << want[j];
  return ::testing::AssertionSuccess();
}

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::boolean;
  if constexpr (std::is_same_v<T, i32>) return DType::i32;
  if constexpr (std::is_same_v<T, i64>) return DType::i64;
  if constexpr (std::is_same_v<T, float>) return DType::f32;
  return DType::f64;
}

// Values with many ties and, per dtype, the awkward ones: i32/i64 extremes, i64 values that are
// all one double (2^60 + small), NaN, +-inf and -0.0.
template <class T>
std::vector<T> tricky_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-3, 3), pick(0, 15);
  std::vector<T> v;
  for (std::size_t j = 0; j < count; ++j) {
    const int s = small(rng), p = pick(rng);
    if constexpr (std::is_same_v<T, bool>) {
      v.push_back(s > 0);
    } else if constexpr (std::is_same_v<T, i32>) {
      v.push_back(p == 0   ? std::numeric_limits<i32>::min()
                  : p == 1 ? std::numeric_limits<i32>::max()
                           : s);
    } else if constexpr (std::is_same_v<T, i64>) {
      v.push_back(p == 0   ? std::numeric_limits<i64>::min()
                  : p == 1 ? std::numeric_limits<i64>::max()
                           : (i64{1} << 60) + s);
    } else {
      const T specials[] = {T(kNaN), T(kInf), T(-kInf), T(-0.0), T(0.0)};
      v.push_back(p < 5 ? specials[p] : T(s) / 2);
    }
  }
  return v;
}

template <class T>
Tensor tricky_tensor(const Dims& shape, std::uint64_t seed) {
  return from_vector<T>(tricky_values<T>(static_cast<std::size_t>(dims_numel(shape)), seed), shape);
}

// argsort and sort of x (any layout) along axis against the reference on its contiguous copy.
template <class T>
void check_sort(const Tensor& x, i64 axis, bool desc) {
  SCOPED_TRACE(::testing::Message() << dtype_name(x.dtype()) << " " << dims_to_string(x.shape())
                                    << " axis " << axis << (desc ? " descending" : " ascending"));
  const std::vector<T> xv = x.contiguous().to_vector<T>();
  const std::vector<i64> want = ref_argsort(xv, x.shape(), axis, desc);
  const Tensor idx = argsort(x, axis, desc);
  ASSERT_EQ(idx.dtype(), DType::i64);
  ASSERT_EQ(idx.shape(), x.shape());
  EXPECT_EQ(idx.to_vector<i64>(), want);
  auto [values, indices] = sort(x, axis, desc);
  ASSERT_EQ(values.dtype(), x.dtype());
  EXPECT_EQ(indices.to_vector<i64>(), want);
  const i64 a = axis < 0 ? axis + x.rank() : axis;
  EXPECT_TRUE(same_values<T>(
      values, ref_gather(xv, x.shape(), axis, want, x.shape()[static_cast<std::size_t>(a)])));
}

template <class T>
void check_every_axis(std::uint64_t seed) {
  const Tensor x = tricky_tensor<T>({3, 7, 5}, seed);
  for (i64 axis : {0, 1, 2, -1, -3})
    for (bool desc : {false, true}) check_sort<T>(x, axis, desc);
}

TEST(Sorting, ArgsortAndSortMatchAStableSortForEveryRealDtypeAndAxis) {
  check_every_axis<bool>(1);
  check_every_axis<i32>(2);
  check_every_axis<i64>(3);
  check_every_axis<float>(4);
  check_every_axis<double>(5);
}

TEST(Sorting, I64BeyondTwoToThe53ComparesExactly) {
  // All five are one double; a sort through double would keep them in input order.
  const i64 b = i64{1} << 60;
  const Tensor x = from_vector<i64>({b + 3, b + 1, b + 4, b + 1, b + 2}, {5});
  EXPECT_EQ(argsort(x).to_vector<i64>(), (std::vector<i64>{1, 3, 4, 0, 2}));
  EXPECT_EQ(sort(x, 0, true).values.to_vector<i64>(),
            (std::vector<i64>{b + 4, b + 3, b + 2, b + 1, b + 1}));
  EXPECT_EQ(topk(x, 2, 0, false).indices.to_vector<i64>(), (std::vector<i64>{1, 3}));
}

template <class T>
void check_specials() {
  SCOPED_TRACE(dtype_name(dtype_of<T>()));
  //            0     1  2      3     4     5    6     7
  const std::vector<T> v = {T(kNaN), 1, T(-kInf), T(-0.0), T(kInf), 0, T(kNaN), -1};
  const Tensor x = from_vector<T>(v, {8});
  // Ascending: NaN last (NumPy); -0.0 and 0.0 tie and keep their order.
  EXPECT_EQ(argsort(x).to_vector<i64>(), (std::vector<i64>{2, 7, 3, 5, 1, 4, 0, 6}));
  // Descending: NaN first (PyTorch: NaN is the largest); ties still lower index first.
  EXPECT_EQ(argsort(x, -1, true).to_vector<i64>(), (std::vector<i64>{0, 6, 4, 1, 3, 5, 7, 2}));
  const std::vector<T> asc = sort(x).values.to_vector<T>();
  EXPECT_TRUE(std::signbit(asc[2]) && asc[2] == 0) << "-0.0 keeps its place and its sign";
  EXPECT_TRUE(!std::signbit(asc[3]) && asc[3] == 0);
  EXPECT_TRUE(std::isnan(asc[6]) && std::isnan(asc[7]));
  // topk: NaN counts as the largest.
  EXPECT_EQ(topk(x, 3).indices.to_vector<i64>(), (std::vector<i64>{0, 6, 4}));
  EXPECT_EQ(topk(x, 3, -1, false).indices.to_vector<i64>(), (std::vector<i64>{2, 7, 3}));
}

TEST(Sorting, NanInfAndSignedZeroPlacementInBothDirections) {
  check_specials<float>();
  check_specials<double>();
}

TEST(Sorting, StableUnderManyTiesInBothDirections) {
  std::mt19937_64 rng(11);
  std::vector<double> v(2000);
  for (double& e : v) e = static_cast<double>(rng() % 3);
  const Tensor x = from_vector<double>(v, {2000});
  for (bool desc : {false, true}) {
    const std::vector<i64> got = argsort(x, 0, desc).to_vector<i64>();
    EXPECT_EQ(got, ref_argsort(v, {2000}, 0, desc));
    // Within each run of equal values the indices increase.
    for (std::size_t j = 1; j < got.size(); ++j)
      if (v[static_cast<std::size_t>(got[j])] == v[static_cast<std::size_t>(got[j - 1])])
        ASSERT_LT(got[j - 1], got[j]) << "position " << j;
  }
  check_sort<bool>(tricky_tensor<bool>({1000}, 12), 0, false);
  check_sort<bool>(tricky_tensor<bool>({1000}, 12), 0, true);
  // All equal: the identity permutation both ways.
  std::vector<i64> iota(64);
  std::iota(iota.begin(), iota.end(), i64{0});
  EXPECT_EQ(argsort(zeros({64}), 0, true).to_vector<i64>(), iota);
}

TEST(Sorting, StridedTransposedAndNegativeStrideInputs) {
  const Tensor base = tricky_tensor<double>({4, 5, 6}, 21);
  const Tensor views[] = {
      base.transpose(0, 2),                                     // [6, 5, 4]
      slice(base, 1, -1, std::numeric_limits<i64>::min(), -1),  // reversed axis 1
      slice(slice(base, 2, -1, std::numeric_limits<i64>::min(), -2), 0, 1, 4, 2),  // steps
      base.permute({1, 2, 0}),
      broadcast_to(slice(base, 0, 0, 1), {3, 5, 6}),  // stride 0
  };
  for (const Tensor& v : views) {
    ASSERT_FALSE(v.is_contiguous());
    for (i64 axis : {0, 1, -1})
      for (bool desc : {false, true}) check_sort<double>(v, axis, desc);
  }
  const Tensor xi = tricky_tensor<i64>({5, 8}, 22).transpose();
  check_sort<i64>(slice(xi, 0, -1, std::numeric_limits<i64>::min(), -1), 0, true);
  check_sort<i64>(xi, 1, false);
}

TEST(Sorting, EmptyAxesAndRankZero) {
  for (const Dims& shape : {Dims{0}, Dims{3, 0}, Dims{0, 4}, Dims{2, 0, 3}})
    for (i64 axis = 0; axis < static_cast<i64>(shape.size()); ++axis) {
      const Tensor x = zeros(shape);
      EXPECT_EQ(argsort(x, axis).shape(), shape);
      auto [v, i] = sort(x, axis, true);
      EXPECT_EQ(v.shape(), shape);
      EXPECT_EQ(i.dtype(), DType::i64);
      auto [tv, ti] = topk(x, 0, axis);
      Dims want = shape;
      want[static_cast<std::size_t>(axis)] = 0;
      EXPECT_EQ(tv.shape(), want);
      EXPECT_EQ(ti.shape(), want);
    }
  // topk with k = 0 of a non-empty axis.
  EXPECT_EQ(topk(ones({2, 3}), 0).values.shape(), (Dims{2, 0}));
  // Rank 0: one element along axis 0 or -1 (PyTorch).
  const Tensor s = scalar_tensor(2.5);
  for (i64 axis : {0, -1}) {
    const Tensor i = argsort(s, axis);
    EXPECT_EQ(i.shape(), Dims{});
    EXPECT_EQ(i.item<i64>(), 0);
    auto [v, j] = sort(s, axis, true);
    EXPECT_EQ(v.shape(), Dims{});
    EXPECT_EQ(v.item<double>(), 2.5);
    EXPECT_EQ(j.item<i64>(), 0);
    auto [tv, tj] = topk(s, 1, axis);
    EXPECT_EQ(tv.shape(), Dims{});
    EXPECT_EQ(tv.item<double>(), 2.5);
    EXPECT_EQ(tj.item<i64>(), 0);
  }
  EXPECT_EQ(argsort(scalar_tensor(true, DType::boolean)).item<i64>(), 0);
}

template <class T>
void check_topk_against_sort(const Tensor& x, i64 axis, i64 k) {
  const i64 a = axis < 0 ? axis + x.rank() : axis;
  for (bool largest : {true, false}) {
    SCOPED_TRACE(::testing::Message() << dims_to_string(x.shape()) << " axis " << axis << " k " << k
                                      << (largest ? " largest" : " smallest"));
    auto [v, i] = topk(x, k, axis, largest, k % 2 == 0);
    auto [sv, si] = sort(x, axis, largest);
    EXPECT_EQ(i.to_vector<i64>(), slice(si, a, 0, k).contiguous().to_vector<i64>());
    EXPECT_TRUE(same_values<T>(v, slice(sv, a, 0, k).contiguous().to_vector<T>()));
    // And against the reference directly.
    EXPECT_EQ(i.to_vector<i64>(),
              ref_argsort(x.contiguous().to_vector<T>(), x.shape(), axis, largest, k));
  }
}

TEST(Sorting, TopkIsTheFirstKOfSortForManyK) {
  // Every k of a short axis with ties and NaNs.
  const Tensor x = tricky_tensor<double>({4, 37}, 31);
  for (i64 k = 0; k <= 37; ++k) check_topk_against_sort<double>(x, -1, k);
  // Random k of long rows: both the heap (small k) and the selection (large k) paths.
  std::mt19937_64 rng(32);
  const Tensor y = tricky_tensor<float>({3, 1000}, 33);
  for (int r = 0; r < 12; ++r) {
    const i64 k = static_cast<i64>(rng() % 1001);
    check_topk_against_sort<float>(y, 1, k);
  }
  for (i64 k : {1, 2, 62, 63, 999, 1000}) check_topk_against_sort<float>(y, 1, k);
  // Axis 0 of a rank-3 strided tensor and the integer dtypes.
  const Tensor z = tricky_tensor<i64>({6, 4, 5}, 34).transpose(0, 2);  // [5, 4, 6]
  for (i64 k : {0, 1, 3, 5}) check_topk_against_sort<i64>(z, 0, k);
  check_topk_against_sort<bool>(tricky_tensor<bool>({40, 3}, 35), 0, 7);
  check_topk_against_sort<i32>(tricky_tensor<i32>({2, 50}, 36), -1, 9);
}

TEST(Sorting, GradientsOfSortAndTopkValuesMatchFiniteDifferences) {
  // Distinct values (gaps far above the step) so the order is locally constant.
  const Tensor x = randn({3, 5}, 41);
  const Tensor xt = randn({5, 3}, 42).transpose();  // strided
  for (const Tensor& in : {x, xt})
    for (i64 axis : {0, -1})
      for (bool desc : {false, true}) {
        adtest::FdFn f = [=](std::span<const Tensor> a) {
          return std::vector<Tensor>{sort(a[0], axis, desc).values};
        };
        EXPECT_TRUE(adtest::check_vjp(f, {in})) << axis << desc;
        EXPECT_TRUE(adtest::check_jvp(f, {in})) << axis << desc;
        adtest::FdFn g = [=](std::span<const Tensor> a) {
          return std::vector<Tensor>{topk(a[0], 2, axis, desc).values};
        };
        EXPECT_TRUE(adtest::check_vjp(g, {in})) << axis << desc;
        EXPECT_TRUE(adtest::check_jvp(g, {in})) << axis << desc;
      }
  // The gradient is the cotangent permuted back: x.grad[idx[j]] = w[j]; zero off the top k.
  const Tensor v = from_vector<double>({0.5, -2, 3, 1}, {4});
  const Tensor w = from_vector<double>({10, 20, 30, 40}, {4});
  auto gs = grad([&](std::span<const Tensor> a) { return sum(sort(a[0]).values * w); }, {v});
  EXPECT_EQ(gs[0].to_vector<double>(), (std::vector<double>{20, 10, 40, 30}));
  const Tensor w2 = from_vector<double>({10, 20}, {2});
  auto gk = grad([&](std::span<const Tensor> a) { return sum(topk(a[0], 2).values * w2); }, {v});
  EXPECT_EQ(gk[0].to_vector<double>(), (std::vector<double>{0, 0, 10, 20}));
  // Rank 0 passes the gradient through.
  auto g0 =
      grad([](std::span<const Tensor> a) { return sort(a[0]).values * 3.0; }, {scalar_tensor(1.5)});
  EXPECT_EQ(g0[0].item<double>(), 3.0);
}

TEST(Sorting, BadInputsAreTypedErrorsAndLeaveTheInputUnchanged) {
  for (DType d : {DType::c64, DType::c128}) {
    const Tensor z = cast(randn({2, 3}, 51), d);
    const Tensor before = z.contiguous();
    expect_error(ErrorKind::DTypeMismatch, [&] { (void)argsort(z); }, {"argsort", "real", "abs"});
    expect_error(ErrorKind::DTypeMismatch, [&] { (void)sort(z); }, {"sort", "[2, 3]", "real"});
    expect_error(ErrorKind::DTypeMismatch, [&] { (void)topk(z, 1); }, {"topk", "abs"});
    EXPECT_TRUE(all(eq(z, before)).item<bool>());
  }
  const Tensor x = from_vector<double>({3, 1, 2, 5, 4, 0}, {2, 3});
  const std::vector<double> xv = x.to_vector<double>();
  for (i64 axis : {2, -3}) {
    expect_error(ErrorKind::InvalidArgument, [&] { (void)argsort(x, axis); },
                 {"argsort", "axis", "rank 2"});
    expect_error(ErrorKind::InvalidArgument, [&] { (void)sort(x, axis); }, {"sort", "axis"});
    expect_error(ErrorKind::InvalidArgument, [&] { (void)topk(x, 1, axis); }, {"topk", "axis"});
  }
  expect_error(ErrorKind::InvalidArgument, [&] { (void)argsort(scalar_tensor(1.0), 1); },
               {"argsort", "rank 0"});
  for (i64 k : {-1, 4}) {
    const std::string ks = "k = " + std::to_string(k);
    expect_error(ErrorKind::InvalidArgument, [&] { (void)topk(x, k); },
                 {"topk", ks.c_str(), "size 3", "0 <= k <= 3"});
  }
  expect_error(ErrorKind::InvalidArgument, [&] { (void)topk(x, 3, 0); }, {"k = 3", "size 2"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)topk(scalar_tensor(1.0), 0); },
               {"topk", "k = 0", "size 1"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)sort(Tensor{}); }, {"sort", "undefined"});
  EXPECT_EQ(x.to_vector<double>(), xv);
}

// ---- traces, prepared runs and the scope give the eager results bitwise ----

TEST(Sorting, EagerTracedPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  auto f = [](std::span<const Tensor> in) {
    auto [v, i] = sort(in[0], 1, true);
    auto [tv, ti] = topk(in[0], 17, 1, false);
    auto [sv, si] = sort(in[1], 0);
    return std::vector<Tensor>{argsort(in[0], 0), v, i, tv, ti, sv, si, argsort(in[1], -1, true)};
  };
  // Rows long enough that budget 4 splits them among threads; ties and NaNs in the data.
  const Tensor x = tricky_tensor<double>({64, 300}, 61);
  const Tensor n = tricky_tensor<i64>({40, 30}, 62).transpose();
  const Tensor in[2] = {x, n};
  const std::vector<ValueSpec> specs{ValueSpec{{64, 300}, DType::f64},
                                     ValueSpec{{30, 40}, DType::i64}};
  const std::string printed = trace(f, specs).to_string();
  EXPECT_NE(printed.find("argsort"), std::string::npos);
  EXPECT_NE(printed.find("topk_indices"), std::string::npos);
  const std::vector<Tensor> ref =
      expect_eager_prepared_scoped_bitwise(f, specs, in, [](const CpuBackend& b, int threads) {
        // At budget 4 the rows really are split among threads.
        if (threads == 4) EXPECT_GT(b.diagnostics().parallel_loops, 0u);
      });
  EXPECT_EQ(ref[0].to_vector<i64>(), ref_argsort(x.to_vector<double>(), {64, 300}, 0, false));
  // The traced gradient of the sorted values equals the eager one.
  const Tensor w = randn({5}, 63);
  auto loss = [&](std::span<const Tensor> a) {
    return std::vector<Tensor>{sum(sort(a[0], 0, true).values * w)};
  };
  Program g = grad(trace(loss, {ValueSpec{{5}, DType::f64}}));
  const Tensor v = randn({5}, 64);
  const std::vector<Tensor> gv = g({v});
  auto ge = grad([&](std::span<const Tensor> a) { return loss(a)[0]; }, {v});
  EXPECT_EQ(gv[0].to_vector<double>(), ge[0].to_vector<double>());
}

}  // namespace
}  // namespace tenferro::testing
