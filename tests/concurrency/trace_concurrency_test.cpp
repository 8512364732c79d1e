// One prepared program run from several threads at once (label: concurrency): each run takes its
// own workspace from the plan's pool (Note [Workspace pool]), so results stay correct.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;

namespace {
Tensor loss(std::span<const Tensor> x) { return sum(mul(bmm(x[0], x[1]), x[0])); }

bool same(const Tensor& a, const Tensor& b) {
  std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::abs(x[i] - y[i]) > 1e-12 * (1 + std::abs(y[i]))) return false;
  return true;
}
}  // namespace

TEST(TraceConcurrency, FourThreadsRunOnePreparedProgram) {
  for (int budget : {1, 4}) {
    Runtime rt(CpuBackend(CpuBackendOptions{.threads = budget}));
    Program p = grad(trace(loss, {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}}));
    PreparedProgram plan = rt.prepare(p);
    // Inputs and eager references are made up front, on this thread.
    constexpr int kThreads = 4, kRuns = 300;
    std::vector<std::vector<Tensor>> inputs, want;
    for (int i = 0; i < kThreads * 8; ++i) {
      Tensor a = randn({16, 2, 2}, static_cast<std::uint64_t>(2 * i)),
             b = randn({16, 2, 2}, static_cast<std::uint64_t>(2 * i + 1));
      inputs.push_back({a, b});
      want.push_back(tenferro::grad(loss, {a, b}));
    }
    std::atomic<int> wrong{0}, errors{0}, ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) {
        }
        try {
          for (int r = 0; r < kRuns; ++r) {
            std::size_t k = static_cast<std::size_t>((t * 8 + r) % (kThreads * 8));
            std::vector<Tensor> got = rt.run(plan, inputs[k]);
            if (!same(got[0], want[k][0]) || !same(got[1], want[k][1])) wrong.fetch_add(1);
          }
        } catch (...) {
          errors.fetch_add(1);
        }
      });
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0) << "budget " << budget;
    EXPECT_EQ(errors.load(), 0) << "budget " << budget;
  }
}

TEST(TraceConcurrency, PrepareFromSeveralThreadsSharesOneCacheEntry) {
  Runtime rt;
  Program p = trace(loss, {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) rt.prepare(p);
    });
  for (auto& th : threads) th.join();
  PlanCacheStats s = rt.cache_stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 199u);
  EXPECT_EQ(s.size, 1u);
}
