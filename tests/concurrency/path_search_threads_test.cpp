// The path search's trial workers under ThreadSanitizer (label: concurrency, part of the tsan run):
// random_greedy and hyper spread trials over a 4-thread backend (Note [Hyper search]: one trial
// counter, a mutex around the kept trials) and must give the 1-thread path, also from several
// threads searching at once and inside an execution scope; slice_plan's sliced hyper search
// (Note [Sliced hyper search]: trials, then annealing rounds from one counter) likewise.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

struct Grid {
  std::vector<EinsumLabels> labels;
  std::vector<Dims> shapes;
};

// An r x c lattice with bond 2 and a few random extra bonds (so greedy has choices to sample).
Grid grid(int r, int c, unsigned seed) {
  Grid g;
  g.labels.resize(static_cast<std::size_t>(r * c));
  g.shapes.resize(g.labels.size());
  std::int64_t next = 0;
  auto bond = [&](int a, int b) {
    g.labels[static_cast<std::size_t>(a)].push_back(next);
    g.labels[static_cast<std::size_t>(b)].push_back(next++);
    g.shapes[static_cast<std::size_t>(a)].push_back(2);
    g.shapes[static_cast<std::size_t>(b)].push_back(2);
  };
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) {
      if (j + 1 < c) bond(i * c + j, i * c + j + 1);
      if (i + 1 < r) bond(i * c + j, (i + 1) * c + j);
    }
  std::mt19937 rng(seed);
  for (int k = 0; k < r; ++k) {
    const int a = static_cast<int>(rng() % static_cast<unsigned>(r * c));
    const int b = static_cast<int>(rng() % static_cast<unsigned>(r * c));
    if (a != b) bond(a, b);
  }
  return g;
}

std::vector<std::pair<int, int>> pairs_of(const EinsumPath& p) {
  std::vector<std::pair<int, int>> out;
  for (const EinsumStep& s : p.steps) out.emplace_back(s.lhs, s.rhs);
  return out;
}

EinsumPath search(const Grid& g, EinsumStrategy s, int threads) {
  EinsumOptions o;
  o.strategy = s;
  o.trials = s == EinsumStrategy::hyper ? 6 : 24;
  o.time_budget = 600;  // never the limit: the trials decide
  o.seed = 7;
  o.threads = threads;
  return einsum_path(g.labels, {}, g.shapes, o);
}

TEST(PathSearchThreads, TrialsOnFourThreadsGiveTheOneThreadPath) {
  const Grid g = grid(5, 6, 3);
  const CpuBackend four(CpuBackendOptions{.threads = 4});
  for (EinsumStrategy s : {EinsumStrategy::random_greedy, EinsumStrategy::hyper}) {
    const EinsumPath one = search(g, s, 1);
    BackendGuard use(four);
    const EinsumPath many = search(g, s, 0);
    EXPECT_EQ(pairs_of(many), pairs_of(one)) << to_string(s);
    EXPECT_EQ(many.flops, one.flops);
  }
}

TEST(PathSearchThreads, SeveralSearchesAtOnceAndInsideAScope) {
  const Grid g = grid(4, 6, 5);
  const EinsumPath want = search(g, EinsumStrategy::random_greedy, 1);
  const CpuBackend four(CpuBackendOptions{.threads = 4});
  std::vector<std::vector<std::pair<int, int>>> got(3);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      BackendGuard use(four);
      got[t] = pairs_of(search(g, EinsumStrategy::random_greedy, 0));
    });
  for (std::thread& t : threads) t.join();
  for (const auto& p : got) EXPECT_EQ(p, pairs_of(want));
  four.with_execution_scope(
      [&] { EXPECT_EQ(pairs_of(search(g, EinsumStrategy::random_greedy, 0)), pairs_of(want)); });
}

TEST(PathSearchThreads, SlicedHyperSearchOnFourThreadsGivesTheOneThreadPlan) {
  const Grid g = grid(4, 5, 9);
  const double limit = std::floor(slice_plan(g.labels, {}, g.shapes).unsliced_peak / 8);
  auto plan = [&](int threads) {
    SliceOptions o;
    o.memory_limit = limit;
    o.einsum.strategy = EinsumStrategy::hyper;
    o.einsum.trials = 4;
    o.einsum.time_budget = 600;  // never the limit: the trials and rounds decide
    o.einsum.seed = 7;
    o.einsum.threads = threads;
    return slice_plan(g.labels, {}, g.shapes, o);
  };
  const SlicePlan one = plan(1);
  EXPECT_LE(one.peak, limit);
  const CpuBackend four(CpuBackendOptions{.threads = 4});
  BackendGuard use(four);
  const SlicePlan many = plan(0);
  EXPECT_EQ(many.pairs, one.pairs);
  EXPECT_EQ(many.slices, one.slices);
  EXPECT_EQ(many.total_flops, one.total_flops);
}

}  // namespace
