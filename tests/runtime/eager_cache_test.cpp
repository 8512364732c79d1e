// The eager cache (Note [Eager cache]) and the typed parameter identity it is keyed by (Note
// [Typed params]): hits give the same values as misses, every layout difference is a different
// entry, errors are never cached, the cache stays bounded, and one backend's cache is safe under
// concurrent callers (TSan runs this label).
#include "primitives/eager_cache.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "common/contract_reference.hpp"
#include "primitives/contract.hpp"
#include "primitives/elementwise_common.hpp"
#include "primitives/reduce.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro {
namespace {

using detail::CacheStats;
using detail::DotGeneralParams;
using detail::DotGeneralPrim;

CacheStats eager_stats(const CpuBackend& b) {
  CacheStats s;
  detail::run_operation(
      b, [&](detail::ExecContext& ctx) { s = ctx.cache<detail::EagerCache>().map.stats(); });
  return s;
}

std::vector<double> reference_bmm(const Tensor& a, const Tensor& b) {
  const auto ref = testing::reference_dot_general(a, b, DotDims{{0}, {0}, {2}, {1}});
  std::vector<double> v;
  for (const auto& z : ref.values) v.push_back(static_cast<double>(z.real()));
  return v;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "at " << i;
}

// ---- typed parameters ----

DotGeneralParams bmm_params() {
  DotGeneralParams p;
  p.dims = DotDims{{0}, {0}, {2}, {1}};
  return p;
}

TEST(TypedParams, EqualParametersAreTheSameOpWithEqualHashes) {
  const DotGeneralPrim a(bmm_params()), b(bmm_params());
  EXPECT_TRUE(a.same_as(b));
  EXPECT_EQ(a.params_hash(), b.params_hash());
}

TEST(TypedParams, EveryParameterTakesPart) {
  const DotGeneralPrim base(bmm_params());
  DotGeneralParams conj = bmm_params();
  conj.conj_rhs = true;
  DotGeneralParams out = bmm_params();
  out.out_dtype = DType::f32;
  DotGeneralParams dims = bmm_params();
  dims.dims.rhs_contract = {2};
  for (const DotGeneralParams& p : {conj, out, dims}) {
    const DotGeneralPrim other(p);
    EXPECT_FALSE(base.same_as(other)) << other.params();
    EXPECT_NE(base.params_hash(), other.params_hash()) << other.params();
  }
  const detail::ReducePrim sum0(detail::ReduceKind::sum, {0}, false);
  EXPECT_FALSE(sum0.same_as(detail::ReducePrim(detail::ReduceKind::sum, {0}, true)));
  EXPECT_FALSE(sum0.same_as(detail::ReducePrim(detail::ReduceKind::sum, {1}, false)));
  EXPECT_FALSE(sum0.same_as(detail::ReducePrim(detail::ReduceKind::mean, {0}, false)));
  EXPECT_TRUE(sum0.same_as(detail::ReducePrim(detail::ReduceKind::sum, {0}, false)));
}

TEST(TypedParams, DifferentPrimitiveTypesNeverMatch) {
  const DotGeneralPrim dot(bmm_params());
  const detail::ReducePrim sum(detail::ReduceKind::sum, {}, false);
  EXPECT_FALSE(dot.same_as(sum));
  EXPECT_FALSE(sum.same_as(dot));
  const auto add = detail::find_elementwise_binary("add", detail::ScalarSide::none, 0.0);
  const auto mul = detail::find_elementwise_binary("mul", detail::ScalarSide::none, 0.0);
  EXPECT_FALSE(add->same_as(*mul));
}

TEST(TypedParams, ScalarParametersCompareByBitPattern) {
  using detail::ScalarSide;
  auto mul = [](Scalar s) { return detail::find_elementwise_binary("mul", ScalarSide::right, s); };
  // x * 0.0 and x * -0.0 differ (signed zeros, NaN * 0): not the same op.
  EXPECT_FALSE(mul(0.0)->same_as(*mul(-0.0)));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(mul(nan)->same_as(*mul(nan)));
  EXPECT_EQ(mul(nan)->params_hash(), mul(nan)->params_hash());
  EXPECT_FALSE(mul(1e-9)->same_as(*mul(2e-9)));  // the old text identity printed both as 0.000000
  EXPECT_FALSE(
      mul(1.0)->same_as(*detail::find_elementwise_binary("mul", ScalarSide::left, Scalar(1.0))));
}

TEST(TypedParams, TheMemoisedHashIsTheComputedOneAndCopiesKeepIt) {
  const DotGeneralPrim a(bmm_params());
  const std::uint64_t h = a.params_hash();
  EXPECT_EQ(a.params_hash(), h);  // the memo
  const DotGeneralPrim copy(a);   // copies the memo
  EXPECT_EQ(copy.params_hash(), h);
  const DotGeneralPrim fresh(bmm_params());  // computes it anew
  EXPECT_EQ(fresh.params_hash(), h);
}

TEST(TypedParams, AStaticPrimitiveIsSharedItselfAndItsCopiesAreNot) {
  static const DotGeneralPrim prim(bmm_params());
  static const bool marked = prim.mark_static();
  ASSERT_TRUE(marked);
  EXPECT_EQ(prim.share().get(), &prim);  // no copy: the eager cache sees the same address
  const DotGeneralPrim copy(prim);
  const auto shared = copy.share();
  EXPECT_NE(shared.get(), &copy);  // an ordinary primitive is copied
  EXPECT_NE(copy.share()->share().get(), nullptr);
  EXPECT_TRUE(shared->same_as(prim));
}

// ---- the cache ----

TEST(EagerCache, AStaticPrimitiveAndAnEqualOneOnTheStackShareTheirEntry) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor x = randn({4, 2, 3}, 11), y = randn({4, 3, 2}, 12);
  const Tensor first = bmm(x, y);  // the static batched-matmul primitive: a miss
  const CacheStats before = eager_stats(b);
  const Tensor second = dot_general(x, y, DotDims{{0}, {0}, {2}, {1}});  // equal, on the stack
  const CacheStats after = eager_stats(b);
  EXPECT_EQ(after.hits - before.hits, 1u);
  EXPECT_EQ(after.misses - before.misses, 0u);
  EXPECT_EQ(first.to_vector<double>(), second.to_vector<double>());
}

TEST(EagerCache, RepeatedCallsHitAndGiveTheSameValuesInFreshOutputs) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor x = randn({16, 2, 2}, 1), y = randn({16, 2, 2}, 2);
  const CacheStats before = eager_stats(b);
  const Tensor first = bmm(x, y);
  const Tensor second = bmm(x, y);
  const CacheStats after = eager_stats(b);
  EXPECT_EQ(after.misses - before.misses, 1u);
  EXPECT_EQ(after.hits - before.hits, 1u);
  EXPECT_EQ(first.to_vector<double>(), second.to_vector<double>());
  EXPECT_NE(first.storage().get(), second.storage().get());
  expect_near(second.to_vector<double>(), reference_bmm(x, y));
}

TEST(EagerCache, EqualLayoutsAtOtherOffsetsHitAndReadTheirOwnData) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  // Slices of one tensor: the same shapes and strides, different storage offsets.
  const Tensor big = randn({4, 3, 2, 2}, 3), y = randn({3, 2, 2}, 4);
  for (std::int64_t i = 0; i < 4; ++i) {
    const Tensor xi = reshape(slice(big, 0, i, i + 1), {3, 2, 2});
    expect_near(bmm(xi, y).to_vector<double>(), reference_bmm(xi, y));
  }
  const CacheStats s = eager_stats(b);
  EXPECT_GE(s.hits, 3u);
}

TEST(EagerCache, EveryLayoutDifferenceIsAnotherEntry) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor x = randn({8, 3, 3}, 5), y = randn({8, 3, 3}, 6);
  const Tensor yt = permute(y, {0, 2, 1});                       // same shape, other strides
  const Tensor yb = broadcast_to(slice(y, 0, 0, 1), {8, 3, 3});  // batch stride 0
  const Tensor xf = cast(x, DType::f32), yf = cast(y, DType::f32);
  const std::vector<Tensor> rhs = {y, yt, yb};
  const std::uint64_t misses0 = eager_stats(b).misses;
  for (const Tensor& r : rhs) expect_near(bmm(x, r).to_vector<double>(), reference_bmm(x, r));
  const Tensor f = bmm(xf, yf);
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_EQ(eager_stats(b).misses - misses0, 4u);
  for (const Tensor& r : rhs) expect_near(bmm(x, r).to_vector<double>(), reference_bmm(x, r));
  EXPECT_EQ(eager_stats(b).misses - misses0, 4u);  // all hits the second time
}

// The recent slots (BoundedCache::find_recent) answer an op repeated on the same layout records
// without hashing; anything it does not match by pointer falls through to the full lookup. Ops
// that alternate, inputs whose records are other objects with equal layouts, and a different op
// right after must all still find their own entries and values.
TEST(EagerCache, TheFrontSlotMatchesOnlyItsOwnOpAndLayouts) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor x = randn({4, 2, 2}, 21), y = randn({4, 2, 2}, 22);
  const Tensor x2 = copy(x);  // equal layout, its own record
  const Tensor z = randn({4, 3, 3}, 23);
  (void)bmm(x, y);
  const CacheStats before = eager_stats(b);
  for (int i = 0; i < 3; ++i) {
    expect_near(bmm(x, y).to_vector<double>(), reference_bmm(x, y));        // the front entry
    expect_near(bmm(x2, y).to_vector<double>(), reference_bmm(x2, y));      // equal, other record
    expect_near(bmm(y, x).to_vector<double>(), reference_bmm(y, x));        // swapped operands
    expect_near(bmm(z, z).to_vector<double>(), reference_bmm(z, z));        // another shape
    EXPECT_EQ(add(x, y).to_vector<double>(), (x + y).to_vector<double>());  // another op
  }
  const CacheStats after = eager_stats(b);
  // bmm [4,3,3] and add are new entries (2 misses); everything else hits, front or not.
  EXPECT_EQ(after.misses - before.misses, 2u);
  EXPECT_EQ(after.hits - before.hits, 3u * 6u - 2u);
}

// A few ops alternating in a loop find their entries in the recent slots, and an operand made
// anew every iteration (a broadcast view with a fresh layout record, as backward makes) hits
// too: a hashed hit stores the caller's record in the key (Note [Refreshed key records]), whose
// old record may then die. Values stay right while records are swapped and freed.
TEST(EagerCache, AlternatingOpsAndFreshEqualRecordsHitWithRightValues) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor y = randn({4, 2, 2}, 31), s = randn({1, 2, 2}, 32);
  const std::vector<double> want_vy = reference_bmm(copy(broadcast_to(s, {4, 2, 2})), y);
  const std::vector<double> want_yy = reference_bmm(y, y);
  std::vector<double> want_2y = y.to_vector<double>();
  for (double& v : want_2y) v *= 2;
  (void)bmm(broadcast_to(s, {4, 2, 2}), y);
  (void)bmm(y, y);
  (void)add(y, y);
  const CacheStats before = eager_stats(b);
  for (int i = 0; i < 5; ++i) {
    const Tensor v = broadcast_to(s, {4, 2, 2});  // a fresh record each time, equal layout
    const Tensor vy = bmm(v, y), yy = bmm(y, y), twice = add(y, y);
    const Tensor vy_again = bmm(v, y);  // v's record is in the key now: found by pointer
    expect_near(vy.to_vector<double>(), want_vy);
    expect_near(yy.to_vector<double>(), want_yy);
    EXPECT_EQ(twice.to_vector<double>(), want_2y);
    expect_near(vy_again.to_vector<double>(), want_vy);
  }
  const CacheStats after = eager_stats(b);
  EXPECT_EQ(after.misses - before.misses, 0u);
  EXPECT_EQ(after.hits - before.hits, 5u * 4u);
}

// Note [Shared dot_general]: a dot_general owned by a shared_ptr hands itself out from share(),
// so the eager cache keys on that object; a copy still shares a copy.
TEST(EagerCache, ASharedDotGeneralSharesItself) {
  DotGeneralParams p;
  p.dims = DotDims{{0}, {0}, {2}, {1}};
  const auto owned = std::make_shared<const DotGeneralPrim>(p);
  EXPECT_EQ(owned->share().get(), owned.get());
  const DotGeneralPrim copy = *owned;
  const auto shared_copy = copy.share();
  EXPECT_NE(shared_copy.get(), &copy);
  EXPECT_TRUE(shared_copy->same_as(*owned));
  // The backward products of bmm use the plan's shared primitives: values as before.
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor x = randn({3, 2, 2}, 41), y = randn({3, 2, 2}, 42);
  for (int i = 0; i < 3; ++i) {
    const auto g = grad([](std::span<const Tensor> in) { return sum(bmm(in[0], in[1])); }, {x, y});
    // d/dx sum(x y) = 1 y^T: row sums of y for every row of x's matrix.
    const auto yv = y.to_vector<double>(), gx = g[0].to_vector<double>();
    for (int m = 0; m < 3; ++m)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
          EXPECT_NEAR(gx[static_cast<std::size_t>(4 * m + 2 * r + c)],
                      yv[static_cast<std::size_t>(4 * m + 2 * c)] +
                          yv[static_cast<std::size_t>(4 * m + 2 * c + 1)],
                      1e-12);
  }
}

TEST(EagerCache, ErrorsAreNotCachedAndLeaveNothingBehind) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor x = randn({2, 3}, 7), y = randn({4, 5}, 8);
  const std::size_t size0 = eager_stats(b).size;
  for (int i = 0; i < 2; ++i) {
    try {
      (void)dot_general(x, y, DotDims{{}, {}, {1}, {0}});
      FAIL() << "expected ShapeMismatch";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
    }
  }
  EXPECT_EQ(eager_stats(b).size, size0);
}

TEST(EagerCache, StaysBoundedAndStillCorrectAfterEvictions) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const std::int64_t distinct = static_cast<std::int64_t>(detail::kEagerCacheCapacity) + 40;
  for (std::int64_t n = 1; n <= distinct; ++n) (void)add(ones({n}), ones({n}));
  const CacheStats s = eager_stats(b);
  EXPECT_LE(s.size, detail::kEagerCacheCapacity);
  EXPECT_GE(s.evictions, 40u);
  const Tensor x = randn({2, 2, 2}, 9), y = randn({2, 2, 2}, 10);
  expect_near(bmm(x, y).to_vector<double>(), reference_bmm(x, y));
  EXPECT_EQ(add(ones({1}), ones({1})).to_vector<double>(), std::vector<double>{2.0});
}

TEST(EagerCache, ElementwiseAndReductionsHitToo) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor x = randn({5, 4}, 11), y = randn({4}, 12);
  const Tensor first = sum(x * y, {1});
  const std::uint64_t hits = eager_stats(b).hits;
  const Tensor second = sum(x * y, {1});
  EXPECT_EQ(eager_stats(b).hits - hits, 2u);  // mul and sum
  EXPECT_EQ(first.to_vector<double>(), second.to_vector<double>());
}

TEST(EagerCache, OpsWithoutAPreparedKernelHitToo) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  // Mixed dtypes are converted before the loop, so add keeps execute() for them.
  const Tensor x = randn({3, 4}, 15), y = cast(randn({3, 4}, 16), DType::f32);
  const Tensor first = add(x, y);
  const std::uint64_t hits = eager_stats(b).hits;
  const Tensor second = add(x, y);
  EXPECT_EQ(eager_stats(b).hits - hits, 1u);
  EXPECT_EQ(first.to_vector<double>(), second.to_vector<double>());
  const std::vector<double> xv = x.to_vector<double>(),
                            yv = cast(y, DType::f64).to_vector<double>();
  const std::vector<double> got = second.to_vector<double>();
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], xv[i] + yv[i]) << "at " << i;
}

// Note [Prepared elementwise]: a prepared kernel keeps the loop path and the broadcast plan of
// one layout, never a data pointer or offset. Equal layouts at other offsets (slices of one
// tensor) hit the entry and must read their own data, on every path: dense, scalar operand on
// either side, broadcast, strided (a transposed view), unary, and reductions.
TEST(EagerCache, PreparedElementwiseAndReductionsReadEachCallsOwnData) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  const Tensor big = randn({3, 4, 5}, 17), row = randn({5}, 18), col = randn({4, 1}, 19);
  std::uint64_t misses_after_first = 0;
  for (std::int64_t s = 0; s < 3; ++s) {
    if (s == 1) misses_after_first = eager_stats(b).misses;
    const Tensor xi = reshape(slice(big, 0, s, s + 1), {4, 5});                   // offset s * 20
    const Tensor xt = permute(reshape(slice(big, 0, s, s + 1), {4, 5}), {1, 0});  // [5, 4]
    const std::vector<double> xv = xi.to_vector<double>(), rv = row.to_vector<double>(),
                              cv = col.to_vector<double>();
    auto x_at = [&](std::size_t i, std::size_t j) { return xv[i * 5 + j]; };
    const std::vector<double> dense = (xi * xi).to_vector<double>();
    const std::vector<double> right = (xi * 2.5).to_vector<double>();
    const std::vector<double> left = (Scalar(2.5) - xi).to_vector<double>();
    const std::vector<double> bcast = (xi + row).to_vector<double>();
    const std::vector<double> bcast2 = (col * xi).to_vector<double>();
    const std::vector<double> strided = (xt - xt).to_vector<double>();
    const std::vector<double> tpose = (xt * 1.0).to_vector<double>();
    const std::vector<double> ex = exp(xt).to_vector<double>();
    const std::vector<double> rows = sum(xi, {1}).to_vector<double>();
    const std::vector<double> cols = sum(xt, {1}).to_vector<double>();  // sums over xi's rows
    for (std::size_t i = 0; i < 4; ++i) {
      double r = 0.0;
      for (std::size_t j = 0; j < 5; ++j) {
        const std::size_t k = i * 5 + j, kt = j * 4 + i;
        EXPECT_EQ(dense[k], x_at(i, j) * x_at(i, j));
        EXPECT_EQ(right[k], x_at(i, j) * 2.5);
        EXPECT_EQ(left[k], 2.5 - x_at(i, j));
        EXPECT_EQ(bcast[k], x_at(i, j) + rv[j]);
        EXPECT_EQ(bcast2[k], cv[i] * x_at(i, j));
        EXPECT_EQ(strided[kt], 0.0);
        EXPECT_EQ(tpose[kt], x_at(i, j));
        EXPECT_NEAR(ex[kt], std::exp(x_at(i, j)), 1e-15 * std::exp(x_at(i, j)));
        r += x_at(i, j);
      }
      EXPECT_NEAR(rows[i], r, 1e-12);
    }
    for (std::size_t j = 0; j < 5; ++j) {
      double c = 0.0;
      for (std::size_t i = 0; i < 4; ++i) c += x_at(i, j);
      EXPECT_NEAR(cols[j], c, 1e-12);
    }
  }
  // The first slice missed on each op; the other two only hit.
  EXPECT_EQ(eager_stats(b).misses, misses_after_first);
}

TEST(EagerCache, InsideAScopeAndOnAPlainBackendTheValuesAgree) {
  const CpuBackend b(CpuBackendOptions{.threads = 2});
  BackendGuard use(b);
  const Tensor x = randn({32, 4, 4}, 13), y = randn({32, 4, 4}, 14);
  const std::vector<double> plain = bmm(x, y).to_vector<double>();
  std::vector<double> scoped;
  b.with_execution_scope([&] {
    for (int i = 0; i < 3; ++i) scoped = bmm(x, y).to_vector<double>();
  });
  EXPECT_EQ(plain, scoped);
}

TEST(EagerCache, ConcurrentCallersOnOneBackendAreSerialisedCorrectly) {
  const CpuBackend b(CpuBackendOptions{.threads = 2});
  std::vector<Tensor> xs, ys;
  std::vector<std::vector<double>> want;
  for (int t = 0; t < 4; ++t) {
    xs.push_back(randn({4, 2 + t, 3}, 20 + t));
    ys.push_back(randn({4, 3, 2}, 30 + t));
    want.push_back(reference_bmm(xs.back(), ys.back()));
  }
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      BackendGuard use(b);
      for (int i = 0; i < 100; ++i) {
        const std::vector<double> got = bmm(xs[t], ys[t]).to_vector<double>();
        for (std::size_t k = 0; k < got.size(); ++k)
          if (std::abs(got[k] - want[t][k]) > 1e-12) ++wrong[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace tenferro
