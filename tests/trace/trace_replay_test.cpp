// The scope case of the mission: sum(bmm(a, b)) on 16x2x2, primal/grad/vjp/jvp programs prepared
// once and replayed 1,000 times with changing inputs, equal to eager every time.
#include <gtest/gtest.h>

#include "common/trace_helpers.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using trace_test::near;

namespace {
Tensor loss(std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); }
}  // namespace

class TraceReplay : public ::testing::TestWithParam<int> {};

TEST_P(TraceReplay, SumBmmPreparedOnceReplayedThousandTimes) {
  CpuBackend cpu(CpuBackendOptions{.threads = GetParam()});
  BackendGuard use(cpu);  // eager references on the same budget
  Runtime rt(cpu);
  const std::vector<ValueSpec> specs{ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}};
  Program p = trace(loss, specs);
  PreparedProgram primal = rt.prepare(p), g = rt.prepare(grad(p)), v = rt.prepare(vjp(p)),
                  j = rt.prepare(jvp(p));
  EXPECT_EQ(g.program().nodes.size(), 2u);  // two contractions (b's comes out in its own layout)
  for (int i = 0; i < 1000; ++i) {
    const auto seed = static_cast<std::uint64_t>(4 * i);
    Tensor a = randn({16, 2, 2}, seed), b = randn({16, 2, 2}, seed + 1);
    Tensor ta = randn({16, 2, 2}, seed + 2), tb = randn({16, 2, 2}, seed + 3);
    Tensor ct = scalar_tensor(0.25 * i - 3.0);

    ASSERT_TRUE(near(rt.run(primal, {a, b})[0], loss(std::vector<Tensor>{a, b}))) << i;
    std::vector<Tensor> want_g = tenferro::grad(loss, {a, b}), got_g = rt.run(g, {a, b});
    ASSERT_TRUE(near(got_g[0], want_g[0])) << i;
    ASSERT_TRUE(near(got_g[1], want_g[1])) << i;
    std::vector<Tensor> want_v = tenferro::vjp(ScalarFn(loss), {a, b}).pullback({ct});
    std::vector<Tensor> got_v = rt.run(v, {a, b, ct});
    ASSERT_TRUE(near(got_v[0], want_v[0])) << i;
    ASSERT_TRUE(near(got_v[1], want_v[1])) << i;
    JvpResult want_j = tenferro::jvp(ScalarFn(loss), {a, b}, {ta, tb});
    std::vector<Tensor> got_j = rt.run(j, {a, b, ta, tb});
    ASSERT_TRUE(near(got_j[0], want_j.outputs[0])) << i;
    ASSERT_TRUE(near(got_j[1], want_j.tangents[0])) << i;
  }
  // Closed form as an independent check: d/da sum(a b) = 1 b^T per batch.
  Tensor a = randn({16, 2, 2}, 5), b = randn({16, 2, 2}, 6);
  std::vector<double> bv = b.to_vector<double>(), ga = rt.run(g, {a, b})[0].to_vector<double>();
  for (int n = 0; n < 16; ++n)
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c)
        EXPECT_NEAR(ga[static_cast<std::size_t>(n * 4 + r * 2 + c)],
                    bv[static_cast<std::size_t>(n * 4 + c * 2)] +
                        bv[static_cast<std::size_t>(n * 4 + c * 2 + 1)],
                    1e-12);
  PlanCacheStats s = rt.cache_stats();
  EXPECT_EQ(s.misses, 4u);
  rt.prepare(grad(p));  // re-derived, structurally equal: served from the cache
  EXPECT_EQ(rt.cache_stats().hits, s.hits + 1);
}

INSTANTIATE_TEST_SUITE_P(Budgets, TraceReplay, ::testing::Values(1, 4));
