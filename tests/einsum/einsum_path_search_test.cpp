// Reference suite for the contraction-path search (issue 29), through the public API only:
// einsum_path / einsum in the integer-label form, EinsumOptions, EinsumPath. The networks are
// random graphs the suite generates itself (4..40 tensors, hyperedges, output labels, size-1
// labels, disconnected parts, random regular graphs), and every reported cost is recomputed by an
// evaluator written here from the steps alone (Note [Einsum cost model] as the header states it):
//   - the inputs of the path are the operands after single-operand reductions: a label that only
//     one operand carries and the output lacks is summed before the path;
//   - a step's result keeps the labels still needed by another remaining operand or the output;
//   - its flops are the product of the sizes of all labels of both operands, times 2 when some
//     label is summed at that step;
//   - largest_intermediate is the largest step result, total_write the sum of the step results.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/expect_error.hpp"
#include "common/watchdog.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"

namespace {

using namespace tenferro;
using tenferro::testing::expect_error;
using Pairs = std::vector<std::pair<int, int>>;
using Label = std::int64_t;

// ------------------------------------------------------------------------------------------------
// Networks
// ------------------------------------------------------------------------------------------------

struct Net {
  std::string name;
  std::vector<EinsumLabels> labels;
  EinsumLabels output;
  std::vector<Dims> shapes;
  std::map<Label, std::int64_t> size;
  /// Whether the sweeps run hyper on it too (hyper's final refinement takes tens of milliseconds
  /// on 20..40 tensors whatever the trials, so it runs on a third of the random networks).
  bool hyper = true;

  int n() const { return static_cast<int>(labels.size()); }
  EinsumPath path(const EinsumOptions& o) const { return einsum_path(labels, output, shapes, o); }
  std::vector<Tensor> operands(std::uint64_t seed) const {
    std::vector<Tensor> out;
    for (std::size_t k = 0; k < shapes.size(); ++k) out.push_back(randn(shapes[k], seed + k));
    return out;
  }
};

// Fills the shapes from the label sizes.
void bind(Net& net) {
  net.shapes.clear();
  for (const EinsumLabels& ls : net.labels) {
    Dims d;
    for (Label l : ls) d.push_back(net.size.at(l));
    net.shapes.push_back(d);
  }
}

struct NetKind {
  int n = 8;
  std::int64_t max_size = 5;
  /// When > 0: label sizes are lowered until the product of all sizes is at most this, so that
  /// every path of the network is cheap to run (the numeric checks).
  double volume_cap = 0;
  bool disconnected = false;
};

// A random network: edges of arity 2 (mostly), 3..4 (hyperedges) or 1 (dangling: an output label
// or one summed before the path), within 1..3 components; sizes 1..max_size with many 1s; at
// most three output labels. Labels are sparse non-negative integers.
Net random_network(std::uint64_t seed, const NetKind& kind) {
  std::mt19937_64 rng(seed);
  Net net;
  net.name = "random(seed " + std::to_string(seed) + ", n " + std::to_string(kind.n) + ")";
  const int n = kind.n;
  const int parts = kind.disconnected ? std::min(n, 2 + static_cast<int>(rng() % 2)) : 1;
  std::vector<std::vector<int>> members(static_cast<std::size_t>(parts));
  for (int k = 0; k < n; ++k)
    members[static_cast<std::size_t>(k < parts ? k : static_cast<int>(rng() % parts))].push_back(k);
  net.labels.assign(static_cast<std::size_t>(n), {});
  const int edges = n + static_cast<int>(rng() % static_cast<std::uint64_t>(n + 1));
  int outputs = 0;
  for (int e = 0; e < edges; ++e) {
    const Label label = 7 + 3 * static_cast<Label>(e);
    const std::vector<int>& part = members[rng() % members.size()];
    const int u = static_cast<int>(rng() % 10);
    int arity = u == 0 ? 1 : u <= 7 ? 2 : u == 8 ? 3 : 4;
    arity = std::min<int>(arity, static_cast<int>(part.size()));
    std::vector<int> pick = part;
    std::shuffle(pick.begin(), pick.end(), rng);
    for (int a = 0; a < arity; ++a) net.labels[static_cast<std::size_t>(pick[a])].push_back(label);
    net.size[label] = rng() % 6 == 0 ? 1 : 1 + static_cast<std::int64_t>(rng() % kind.max_size);
    const bool out = arity == 1 ? rng() % 2 == 0 : rng() % 8 == 0;
    if (out && outputs < 3) {
      net.output.push_back(label);
      ++outputs;
    }
  }
  for (EinsumLabels& ls : net.labels) std::shuffle(ls.begin(), ls.end(), rng);
  std::shuffle(net.output.begin(), net.output.end(), rng);
  if (kind.volume_cap > 0) {
    auto volume = [&] {
      double v = 1;
      for (auto [l, s] : net.size) v *= static_cast<double>(s);
      return v;
    };
    std::vector<Label> all;
    for (auto [l, s] : net.size) all.push_back(l);
    while (volume() > kind.volume_cap) {
      const Label l = all[rng() % all.size()];
      if (net.size[l] > 1) --net.size[l];
    }
  }
  bind(net);
  return net;
}

// A random simple d-regular graph on n tensors (configuration model, retried until simple): one
// label per edge, all of size `size`, closed (scalar result).
Net regular_graph(int n, int d, std::int64_t size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (;;) {
    std::vector<int> stubs;
    for (int v = 0; v < n; ++v)
      for (int k = 0; k < d; ++k) stubs.push_back(v);
    std::shuffle(stubs.begin(), stubs.end(), rng);
    std::set<std::pair<int, int>> seen;
    bool simple = true;
    for (std::size_t i = 0; i + 1 < stubs.size() && simple; i += 2) {
      const int u = std::min(stubs[i], stubs[i + 1]), v = std::max(stubs[i], stubs[i + 1]);
      simple = u != v && seen.insert({u, v}).second;
    }
    if (!simple) continue;
    Net net;
    net.name = std::to_string(d) + "-regular graph of " + std::to_string(n) + " tensors";
    net.labels.assign(static_cast<std::size_t>(n), {});
    Label label = 0;
    for (auto [u, v] : seen) {
      net.labels[static_cast<std::size_t>(u)].push_back(label);
      net.labels[static_cast<std::size_t>(v)].push_back(label);
      net.size[label++] = size;
    }
    bind(net);
    return net;
  }
}

// Hand-made corner cases next to the random ones.
std::vector<Net> special_networks() {
  std::vector<Net> nets;
  auto add = [&](std::string name, std::vector<EinsumLabels> labels, EinsumLabels output,
                 std::map<Label, std::int64_t> size) {
    Net net{std::move(name), std::move(labels), std::move(output), {}, std::move(size)};
    bind(net);
    nets.push_back(std::move(net));
  };
  // One hyperedge (label 0) on every tensor, plus a chain.
  add("star hyperedge", {{0, 1}, {0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4}}, {},
      {{0, 3}, {1, 2}, {2, 4}, {3, 5}, {4, 2}});
  // Only size-1 labels: every step costs 1 or 2.
  add("all size 1", {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}, {1},
      {{0, 1}, {1, 1}, {2, 1}, {3, 1}});
  // Three components, one of them a lone tensor whose labels are all summed before the path.
  add("three components", {{0, 1}, {1, 2}, {3, 4}, {4, 5}, {6, 7}}, {0, 5},
      {{0, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 2}, {5, 3}, {6, 2}, {7, 3}});
  // Output labels on a hyperedge and a scalar operand.
  add("output hyperedge and scalar", {{0, 1}, {0, 1, 2}, {0, 2}, {}, {2, 3}}, {0, 3},
      {{0, 3}, {1, 4}, {2, 5}, {3, 2}});
  // A ring whose bonds are all size 1 except one.
  add("ring", {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}}, {},
      {{0, 5}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}});
  return nets;
}

// Random networks of 4..40 tensors (every fourth disconnected) and the special ones.
const std::vector<Net>& sweep_networks() {
  static const std::vector<Net> nets = [] {
    std::vector<Net> v = special_networks();
    for (std::uint64_t s = 1; s <= 24; ++s) {
      const int n = 4 + static_cast<int>((s * 11) % 37);
      v.push_back(random_network(100 + s, {.n = n, .disconnected = s % 4 == 0}));
      v.back().hyper = s % 3 == 0;
    }
    return v;
  }();
  return nets;
}

// Networks of 4..10 tensors small enough to contract along any path.
const std::vector<Net>& small_networks() {
  static const std::vector<Net> nets = [] {
    std::vector<Net> v = special_networks();
    for (std::uint64_t s = 1; s <= 14; ++s) {
      const int n = 4 + static_cast<int>(s % 7);
      v.push_back(random_network(
          500 + s, {.n = n, .max_size = 3, .volume_cap = 1 << 14, .disconnected = s % 3 == 0}));
    }
    return v;
  }();
  return nets;
}

// ------------------------------------------------------------------------------------------------
// The independent evaluator
// ------------------------------------------------------------------------------------------------

bool same_cost(double a, double b) {
  return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}
// a <= b up to the rounding of a sum of products (costs beyond 2^53 are not exact).
bool at_most(double a, double b) { return a <= b || same_cost(a, b); }

// The path's inputs: each operand's distinct labels, without those no other operand and not the
// output carries (summed before the path).
std::vector<std::vector<Label>> path_inputs(const Net& net) {
  std::map<Label, int> occurs;
  for (const EinsumLabels& ls : net.labels)
    for (Label l : std::set<Label>(ls.begin(), ls.end())) ++occurs[l];
  for (Label l : net.output) ++occurs[l];
  std::vector<std::vector<Label>> ops;
  for (const EinsumLabels& ls : net.labels) {
    std::vector<Label> kept;
    for (Label l : ls)
      if (occurs[l] > 1 && std::find(kept.begin(), kept.end(), l) == kept.end()) kept.push_back(l);
    ops.push_back(kept);
  }
  return ops;
}

struct Costs {
  double flops = 0, largest = 0, write = 0;
  double largest_intermediate = 0;  // step results but the final one
};

double volume(const Net& net, const std::vector<Label>& ls) {
  double v = 1;
  for (Label l : ls) v *= static_cast<double>(net.size.at(l));
  return v;
}

std::vector<std::int64_t> sorted_sizes(const Net& net, const std::vector<Label>& ls) {
  std::vector<std::int64_t> s;
  for (Label l : ls) s.push_back(net.size.at(l));
  std::sort(s.begin(), s.end());
  return s;
}

// Replays `pairs` on the network: a valid contraction tree (n-1 pairs, each id used once, only ids
// that exist at that step) and its costs; with `steps`, also checks each reported step.
::testing::AssertionResult replay(const Net& net, const Pairs& pairs, Costs* out,
                                  const std::vector<EinsumStep>* steps = nullptr) {
  const int n = net.n();
  if (static_cast<int>(pairs.size()) != std::max(n - 1, 0))
    return ::testing::AssertionFailure()
           << pairs.size() << " steps for " << n << " operands; expected " << n - 1;
  std::vector<std::vector<Label>> ops = path_inputs(net);
  std::map<Label, int> live;  // remaining operands (and the output) that carry each label
  for (const auto& ls : ops)
    for (Label l : ls) ++live[l];
  for (Label l : net.output) ++live[l];
  std::vector<bool> used(static_cast<std::size_t>(std::max(2 * n - 1, 1)), false);
  Costs c;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto [a, b] = pairs[k];
    const int limit = n + static_cast<int>(k);
    for (int id : {a, b}) {
      if (id < 0 || id >= limit)
        return ::testing::AssertionFailure()
               << "step " << k << " (" << a << ", " << b << ") names id " << id
               << ", which does not exist yet (ids < " << limit << ")";
      if (used[static_cast<std::size_t>(id)])
        return ::testing::AssertionFailure()
               << "step " << k << " (" << a << ", " << b << ") uses id " << id << " again";
    }
    if (a == b)
      return ::testing::AssertionFailure() << "step " << k << " contracts " << a << " with itself";
    used[static_cast<std::size_t>(a)] = used[static_cast<std::size_t>(b)] = true;
    const std::vector<Label> x = ops[static_cast<std::size_t>(a)],
                             y = ops[static_cast<std::size_t>(b)];
    std::vector<Label> all = x;
    for (Label l : y)
      if (std::find(x.begin(), x.end(), l) == x.end()) all.push_back(l);
    for (Label l : x) --live[l];
    for (Label l : y) --live[l];
    std::vector<Label> result;
    for (Label l : all)
      if (live[l] > 0) result.push_back(l);
    for (Label l : result) ++live[l];
    const double flops = volume(net, all) * (result.size() < all.size() ? 2.0 : 1.0);
    const double size = volume(net, result);
    if (steps) {
      const EinsumStep& s = (*steps)[k];
      if (!same_cost(s.flops, flops))
        return ::testing::AssertionFailure()
               << "step " << k << " reports " << s.flops << " flops; recomputed " << flops;
      std::vector<std::int64_t> shape(s.shape.begin(), s.shape.end());
      std::sort(shape.begin(), shape.end());
      if (shape != sorted_sizes(net, result))
        return ::testing::AssertionFailure()
               << "step " << k << " (" << s.subscripts << ") has shape " << dims_to_string(s.shape)
               << "; expected " << result.size() << " dimensions of the kept labels' sizes";
    }
    c.flops += flops;
    c.largest = std::max(c.largest, size);
    if (k + 1 < pairs.size()) c.largest_intermediate = std::max(c.largest_intermediate, size);
    c.write += size;
    ops.push_back(result);
  }
  if (n >= 2) {
    std::vector<Label> final_labels = ops.back(), want(net.output.begin(), net.output.end());
    std::sort(final_labels.begin(), final_labels.end());
    std::sort(want.begin(), want.end());
    if (final_labels != want)
      return ::testing::AssertionFailure() << "the last step does not produce the output labels";
  }
  if (out) *out = c;
  return ::testing::AssertionSuccess();
}

Pairs pairs_of(const EinsumPath& p) {
  Pairs out;
  for (const EinsumStep& s : p.steps) out.emplace_back(s.lhs, s.rhs);
  return out;
}

// The path is a valid contraction tree and every reported cost equals the recomputed one.
::testing::AssertionResult check_path(const Net& net, const EinsumPath& p, Costs* out = nullptr) {
  Costs c;
  ::testing::AssertionResult r = replay(net, pairs_of(p), &c, &p.steps);
  if (!r) return r;
  if (!same_cost(p.flops, c.flops))
    return ::testing::AssertionFailure() << "flops " << p.flops << "; recomputed " << c.flops;
  if (!same_cost(p.largest_intermediate, c.largest))
    return ::testing::AssertionFailure()
           << "largest_intermediate " << p.largest_intermediate << "; recomputed " << c.largest;
  if (!same_cost(p.total_write, c.write))
    return ::testing::AssertionFailure()
           << "total_write " << p.total_write << "; recomputed " << c.write;
  if (out) *out = c;
  return ::testing::AssertionSuccess();
}

// Settings of a strategy for the sweeps: fixed trials (and a budget that is only a safety cap) so
// that the randomized searches are deterministic and quick; one thread.
EinsumOptions options_for(EinsumStrategy s, std::uint64_t seed = 1,
                          PathObjective objective = PathObjective::flops) {
  EinsumOptions o;
  o.strategy = s;
  o.objective = objective;
  o.seed = seed;
  o.threads = 1;
  if (s == EinsumStrategy::random_greedy) {
    o.trials = 16;
    o.time_budget = 30;
  } else if (s == EinsumStrategy::hyper) {
    o.trials = 4;
    o.time_budget = 30;
  }
  return o;
}

constexpr int kOptimalUpTo = 10;  // optimal search in the sweeps (3^n subsets)

const std::vector<EinsumStrategy> kEstablished = {EinsumStrategy::automatic,
                                                  EinsumStrategy::optimal, EinsumStrategy::greedy,
                                                  EinsumStrategy::sequential};
const std::vector<EinsumStrategy> kRandomized = {EinsumStrategy::random_greedy,
                                                 EinsumStrategy::hyper};

void check_strategies(const std::vector<EinsumStrategy>& strategies) {
  for (const Net& net : sweep_networks()) {
    for (EinsumStrategy s : strategies) {
      if (s == EinsumStrategy::optimal && net.n() > kOptimalUpTo) continue;
      if (s == EinsumStrategy::hyper && !net.hyper) continue;
      SCOPED_TRACE(net.name + ", " + std::string(to_string(s)));
      const EinsumPath p = net.path(options_for(s));
      EXPECT_TRUE(check_path(net, p));
      if (s != EinsumStrategy::automatic) {
        EXPECT_EQ(p.strategy, s);
      }
      EXPECT_GE(p.search_seconds, 0);
      if (s != EinsumStrategy::random_greedy && s != EinsumStrategy::hyper) {
        EXPECT_EQ(p.trials, 1);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Valid trees and exact costs
// ------------------------------------------------------------------------------------------------

TEST(PathSearch, EstablishedStrategiesGiveValidTreesWithExactCosts) {
  check_strategies(kEstablished);
}

TEST(PathSearch, RandomizedStrategiesGiveValidTreesWithExactCosts) {
  check_strategies(kRandomized);
  // Reported trials: exactly the fixed count when the search ends within its budget.
  const Net& net = sweep_networks()[8];
  EinsumOptions o = options_for(EinsumStrategy::random_greedy);
  o.trials = 32;
  EXPECT_EQ(net.path(o).trials, 32);
  o = options_for(EinsumStrategy::hyper);
  o.trials = 8;
  EXPECT_EQ(net.path(o).trials, 8);
}

TEST(PathSearch, GivenPathIsReplayedWithExactCosts) {
  for (const Net& net : sweep_networks()) {
    SCOPED_TRACE(net.name);
    const EinsumPath g = net.path(options_for(EinsumStrategy::greedy));
    if (g.steps.empty()) continue;
    EinsumOptions o;
    o.path = pairs_of(g);
    const EinsumPath p = net.path(o);
    EXPECT_EQ(p.strategy, EinsumStrategy::given);
    EXPECT_EQ(pairs_of(p), o.path);
    EXPECT_TRUE(check_path(net, p));
    EXPECT_DOUBLE_EQ(p.flops, g.flops);
  }
}

// ------------------------------------------------------------------------------------------------
// Orderings between strategies (objective flops)
// ------------------------------------------------------------------------------------------------

TEST(PathSearch, GreedyNeverWorseThanSequentialAndOptimalNeverWorseThanAny) {
  for (const Net& net : sweep_networks()) {
    SCOPED_TRACE(net.name);
    const EinsumPath seq = net.path(options_for(EinsumStrategy::sequential));
    const EinsumPath greedy = net.path(options_for(EinsumStrategy::greedy));
    const EinsumPath automatic = net.path(options_for(EinsumStrategy::automatic));
    EXPECT_TRUE(at_most(greedy.flops, seq.flops)) << greedy.flops << " > " << seq.flops;
    EXPECT_TRUE(at_most(automatic.flops, greedy.flops)) << automatic.flops << " > " << greedy.flops;
    if (net.n() <= kOptimalUpTo) {
      const EinsumPath opt = net.path(options_for(EinsumStrategy::optimal));
      for (const EinsumPath* other : {&seq, &greedy, &automatic})
        EXPECT_TRUE(at_most(opt.flops, other->flops))
            << "optimal " << opt.flops << " > " << std::string(to_string(other->strategy)) << " "
            << other->flops;
    }
  }
}

TEST(PathSearch, RandomizedNeverWorseThanGreedyNorBetterThanOptimal) {
  for (const Net& net : sweep_networks()) {
    SCOPED_TRACE(net.name);
    const EinsumPath greedy = net.path(options_for(EinsumStrategy::greedy));
    const double opt =
        net.n() <= kOptimalUpTo ? net.path(options_for(EinsumStrategy::optimal)).flops : 0;
    for (EinsumStrategy s : kRandomized)
      for (std::uint64_t seed : {1, 2}) {
        if (s == EinsumStrategy::hyper && (!net.hyper || seed != 1)) continue;
        SCOPED_TRACE(std::string(to_string(s)) + " seed " + std::to_string(seed));
        const EinsumPath p = net.path(options_for(s, seed));
        EXPECT_EQ(p.objective, PathObjective::flops);
        EXPECT_TRUE(at_most(p.flops, greedy.flops)) << p.flops << " > greedy " << greedy.flops;
        EXPECT_TRUE(at_most(opt, p.flops)) << "optimal " << opt << " > " << p.flops;
      }
  }
}

// ------------------------------------------------------------------------------------------------
// Values along every path
// ------------------------------------------------------------------------------------------------

double rel_diff(const Tensor& a, const Tensor& b) {
  const double scale = std::max(1e-300, max(abs(b)).item<double>());
  return max(abs(sub(a, b))).item<double>() / scale;
}

void check_values(const std::vector<EinsumStrategy>& strategies) {
  for (const Net& net : small_networks()) {
    SCOPED_TRACE(net.name);
    const std::vector<Tensor> x = net.operands(31);
    EinsumOptions along_optimal;
    along_optimal.path = pairs_of(net.path(options_for(EinsumStrategy::optimal)));
    const Tensor ref = einsum(x, net.labels, net.output, along_optimal);
    Dims out_shape;
    for (Label l : net.output) out_shape.push_back(net.size.at(l));
    EXPECT_EQ(ref.shape(), out_shape);
    for (EinsumStrategy s : strategies) {
      SCOPED_TRACE(std::string(to_string(s)));
      const EinsumPath p = net.path(options_for(s));
      ASSERT_TRUE(check_path(net, p));
      EinsumOptions along;
      along.path = pairs_of(p);
      EXPECT_LE(rel_diff(einsum(x, net.labels, net.output, along), ref), 1e-10);
    }
  }
}

TEST(PathSearch, EstablishedPathsGiveTheValuesOfTheOptimalPath) { check_values(kEstablished); }

TEST(PathSearch, RandomizedPathsGiveTheValuesOfTheOptimalPath) {
  check_values(kRandomized);
  // And einsum itself with those options (no explicit path) agrees.
  const Net& net = small_networks().back();
  const std::vector<Tensor> x = net.operands(7);
  const Tensor ref = einsum(x, net.labels, net.output);
  for (EinsumStrategy s : kRandomized)
    EXPECT_LE(rel_diff(einsum(x, net.labels, net.output, options_for(s)), ref), 1e-10);
}

// ------------------------------------------------------------------------------------------------
// Seeds, threads, budgets, large networks
// ------------------------------------------------------------------------------------------------

TEST(PathSearch, SameSeedSamePathAtEveryThreadCount) {
  tenferro::testing::Watchdog dog("PathSearch.SameSeedSamePathAtEveryThreadCount");
  const Net nets[] = {random_network(901, {.n = 30}), regular_graph(40, 3, 2, 902)};
  for (const Net& net : nets)
    for (EinsumStrategy s : kRandomized)
      for (std::uint64_t seed : {3, 4}) {
        if (s == EinsumStrategy::hyper && seed != 3) continue;  // hyper: one seed (its cost)
        SCOPED_TRACE(net.name + ", " + std::string(to_string(s)) + " seed " + std::to_string(seed));
        EinsumOptions o = options_for(s, seed);
        o.trials = s == EinsumStrategy::hyper ? 8 : 32;
        o.time_budget = 60;  // generous: the fixed trials end the search
        o.threads = 1;
        const EinsumPath one = net.path(o);
        ASSERT_TRUE(check_path(net, one));
        for (int threads : {2, 1}) {
          o.threads = threads;
          const EinsumPath other = net.path(o);
          EXPECT_EQ(pairs_of(other), pairs_of(one)) << "threads " << threads;
          EXPECT_DOUBLE_EQ(other.flops, one.flops);
          EXPECT_EQ(other.trials, o.trials);
        }
      }
}

TEST(PathSearch, DifferentSeedsGiveValidPaths) {
  // Seeds may or may not change the path; every one must be a valid tree no worse than greedy.
  const Net net = random_network(903, {.n = 36, .disconnected = true});
  const double greedy = net.path(options_for(EinsumStrategy::greedy)).flops;
  std::set<Pairs> distinct;
  for (std::uint64_t seed = 10; seed < 16; ++seed) {
    SCOPED_TRACE(seed);
    const EinsumPath p = net.path(options_for(EinsumStrategy::random_greedy, seed));
    EXPECT_TRUE(check_path(net, p));
    EXPECT_TRUE(at_most(p.flops, greedy));
    distinct.insert(pairs_of(p));
  }
  EXPECT_GE(distinct.size(), 1u);
}

TEST(PathSearch, HyperStopsItselfAtItsTimeBudget) {
  tenferro::testing::Watchdog dog("PathSearch.HyperStopsItselfAtItsTimeBudget");
  const Net net = regular_graph(300, 3, 2, 77);
  const auto start = std::chrono::steady_clock::now();
  EinsumOptions o;
  o.strategy = EinsumStrategy::hyper;
  o.time_budget = 0.2;  // trials = 0: unlimited, so the budget ends the search
  const EinsumPath p = net.path(o);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 5.0);  // not a benchmark: the search stopped itself
  EXPECT_GT(p.search_seconds, 0);
  EXPECT_LE(p.search_seconds, elapsed + 1e-3);
  EXPECT_GE(p.trials, 1);
  EXPECT_EQ(p.strategy, EinsumStrategy::hyper);
  EXPECT_TRUE(check_path(net, p));
}

TEST(PathSearch, RandomGreedyStopsEarlyAtItsTimeBudget) {
  tenferro::testing::Watchdog dog("PathSearch.RandomGreedyStopsEarlyAtItsTimeBudget");
  const Net net = regular_graph(300, 3, 2, 78);
  EinsumOptions o;
  o.strategy = EinsumStrategy::random_greedy;
  o.time_budget = 0.05;
  o.trials = 1000000;  // far more than fit in the budget
  const auto start = std::chrono::steady_clock::now();
  const EinsumPath p = net.path(o);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 5.0);
  EXPECT_GE(p.trials, 1);
  EXPECT_LT(p.trials, 1000000);
  EXPECT_GT(p.search_seconds, 0);
  EXPECT_TRUE(check_path(net, p));
}

TEST(PathSearch, GreedyOnAThousandTensorRegularGraph) {
  // Validity and exact costs only (no timing). automatic refines greedy: never worse.
  const Net net = regular_graph(1000, 3, 2, 1000);
  const EinsumPath g = net.path({.strategy = EinsumStrategy::greedy});
  EXPECT_EQ(g.strategy, EinsumStrategy::greedy);
  EXPECT_TRUE(check_path(net, g));
  const EinsumPath a = net.path({});
  EXPECT_TRUE(check_path(net, a));
  EXPECT_TRUE(at_most(a.flops, g.flops)) << a.flops << " > " << g.flops;
}

// ------------------------------------------------------------------------------------------------
// Objectives
// ------------------------------------------------------------------------------------------------

TEST(PathSearch, SizeObjectiveBoundsTheLargestIntermediate) {
  // greedy picks among the same candidates for every objective, so greedy(size) has the smallest
  // largest intermediate of them; the randomized searches are never worse than greedy by their
  // objective. (random_greedy(size) <= random_greedy(flops) is not promised: the trials may
  // depend on the objective.)
  for (const Net& net : sweep_networks()) {
    SCOPED_TRACE(net.name);
    const EinsumPath gf = net.path(options_for(EinsumStrategy::greedy));
    const EinsumPath gs = net.path(options_for(EinsumStrategy::greedy, 1, PathObjective::size));
    EXPECT_TRUE(check_path(net, gs));
    EXPECT_EQ(gs.objective, PathObjective::size);
    EXPECT_TRUE(at_most(gs.largest_intermediate, gf.largest_intermediate));
    for (EinsumStrategy s : kRandomized) {
      if (s == EinsumStrategy::hyper && !net.hyper) continue;
      SCOPED_TRACE(std::string(to_string(s)));
      const EinsumPath p = net.path(options_for(s, 5, PathObjective::size));
      EXPECT_TRUE(check_path(net, p));
      EXPECT_EQ(p.objective, PathObjective::size);
      EXPECT_TRUE(at_most(p.largest_intermediate, gs.largest_intermediate))
          << p.largest_intermediate << " > greedy " << gs.largest_intermediate;
    }
  }
}

TEST(PathSearch, ComboObjectiveCountsTheWrites) {
  for (const Net& net : sweep_networks()) {
    SCOPED_TRACE(net.name);
    for (double factor : {64.0, 0.5}) {
      auto combo = [&](const EinsumPath& p) { return p.flops + factor * p.total_write; };
      EinsumOptions o = options_for(EinsumStrategy::greedy, 1, PathObjective::combo);
      o.combo_factor = factor;
      const EinsumPath gc = net.path(o);
      EXPECT_EQ(gc.objective, PathObjective::combo);
      EXPECT_TRUE(check_path(net, gc));
      const EinsumPath gf = net.path(options_for(EinsumStrategy::greedy));
      const EinsumPath seq = net.path(options_for(EinsumStrategy::sequential));
      EXPECT_TRUE(at_most(combo(gc), combo(gf)));
      EXPECT_TRUE(at_most(combo(gc), combo(seq)));
      for (EinsumStrategy s : kRandomized) {
        if (s == EinsumStrategy::hyper && (!net.hyper || factor != 64)) continue;
        o = options_for(s, 9, PathObjective::combo);
        o.combo_factor = factor;
        const EinsumPath p = net.path(o);
        EXPECT_TRUE(check_path(net, p));
        EXPECT_TRUE(at_most(combo(p), combo(gc)))
            << std::string(to_string(s)) << " " << combo(p) << " > greedy " << combo(gc);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// memory_limit
// ------------------------------------------------------------------------------------------------

// Whether some contraction tree keeps every intermediate within `limit` (subset DP, n <= 12).
bool feasible(const Net& net, double limit) {
  const std::vector<std::vector<Label>> ops = path_inputs(net);
  const int n = net.n();
  if (n <= 2) return true;
  const std::uint32_t full = (1u << n) - 1;
  std::vector<char> ok(full + 1, 0);
  auto kept_volume = [&](std::uint32_t s) {
    std::set<Label> in, out(net.output.begin(), net.output.end());
    for (int k = 0; k < n; ++k)
      for (Label l : ops[static_cast<std::size_t>(k)]) ((s >> k) & 1 ? in : out).insert(l);
    double v = 1;
    for (Label l : in)
      if (out.count(l)) v *= static_cast<double>(net.size.at(l));
    return v;
  };
  for (std::uint32_t s = 1; s <= full; ++s) {
    if ((s & (s - 1)) == 0) {
      ok[s] = 1;
      continue;
    }
    if (s != full && kept_volume(s) > limit) continue;
    for (std::uint32_t a = (s - 1) & s; a && !ok[s]; a = (a - 1) & s) ok[s] = ok[a] && ok[s ^ a];
  }
  return ok[full];
}

// With `limit`: a valid path whose intermediates fit, or InvalidArgument naming memory_limit.
// Returns whether a path came back.
bool check_limited(const Net& net, EinsumOptions o, double limit) {
  o.memory_limit = limit;
  try {
    const EinsumPath p = net.path(o);
    Costs c;
    EXPECT_TRUE(check_path(net, p, &c));
    EXPECT_LE(c.largest_intermediate, limit);
    return true;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
    EXPECT_NE(e.message().find("memory_limit"), std::string::npos) << e.what();
    return false;
  }
}

void check_memory_limits(const std::vector<EinsumStrategy>& strategies) {
  for (const Net& net : sweep_networks()) {
    if (net.n() < 3 || net.n() > 12) continue;
    SCOPED_TRACE(net.name);
    Costs seq, greedy;
    ASSERT_TRUE(replay(net, pairs_of(net.path(options_for(EinsumStrategy::sequential))), &seq));
    ASSERT_TRUE(replay(net, pairs_of(net.path(options_for(EinsumStrategy::greedy))), &greedy));
    std::vector<double> limits = {seq.largest_intermediate, greedy.largest_intermediate,
                                  std::floor(greedy.largest_intermediate / 2),
                                  std::floor(greedy.largest_intermediate / 8)};
    for (double limit : limits) {
      if (limit < 1) continue;
      SCOPED_TRACE("memory_limit " + std::to_string(limit));
      const bool possible = feasible(net, limit);
      for (EinsumStrategy s : strategies) {
        SCOPED_TRACE(std::string(to_string(s)));
        const bool found = check_limited(net, options_for(s), limit);
        if (!possible) {
          EXPECT_FALSE(found) << "a path within an impossible limit";
        }
        // Left to right is one of greedy's candidates: a limit it meets, greedy meets.
        if (s == EinsumStrategy::greedy && limit >= seq.largest_intermediate) {
          EXPECT_TRUE(found);
        }
        if (s == EinsumStrategy::optimal) {
          EXPECT_EQ(found, possible);
        }
      }
    }
  }
}

TEST(PathSearch, MemoryLimitBoundsEveryIntermediateEstablished) {
  check_memory_limits({EinsumStrategy::optimal, EinsumStrategy::greedy});
}

TEST(PathSearch, MemoryLimitBoundsEveryIntermediateRandomized) { check_memory_limits(kRandomized); }

TEST(PathSearch, ImpossibleMemoryLimitIsInvalidArgument) {
  // A ring of 6 tensors, each with one output label: every intermediate keeps at least two
  // output labels (4 elements or more), so a limit of 3 cannot be met.
  Net ring;
  ring.name = "ring with open legs";
  for (int k = 0; k < 6; ++k) {
    ring.labels.push_back({k, (k + 1) % 6, 10 + k});
    ring.output.push_back(10 + k);
    ring.size[k] = 3;
    ring.size[10 + k] = 2;
  }
  bind(ring);
  ASSERT_FALSE(feasible(ring, 3));
  for (EinsumStrategy s :
       {EinsumStrategy::automatic, EinsumStrategy::optimal, EinsumStrategy::greedy,
        EinsumStrategy::sequential, EinsumStrategy::random_greedy, EinsumStrategy::hyper}) {
    SCOPED_TRACE(std::string(to_string(s)));
    EinsumOptions o = options_for(s);
    o.memory_limit = 3;
    expect_error(ErrorKind::InvalidArgument, [&] { ring.path(o); }, {"memory_limit"});
  }
}

// ------------------------------------------------------------------------------------------------
// Bad input
// ------------------------------------------------------------------------------------------------

TEST(PathSearch, BadNetworksNameTheOperandAndTheLabel) {
  using L = std::vector<EinsumLabels>;
  // A negative label.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum_path(L{{0, 1}, {1, -3}, {3}}, {0}, {{2, 2}, {2, 2}, {2}});
               },
               {"operand 1", "-3"});
  // A negative output label.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum_path(L{{0, 1}, {1, 2}}, {-1}, {{2, 2}, {2, 2}});
               },
               {"output", "-1"});
  // Label 7's size: 3 in operand 2, 4 in operand 3.
  expect_error(
      ErrorKind::ShapeMismatch,
      [] {
        einsum_path(L{{0, 1}, {1, 2}, {2, 7}, {7, 0}}, {}, {{2, 2}, {2, 2}, {2, 3}, {4, 2}});
      },
      {"label 7", "operand 3", "operand 2"});
  // The same through einsum.
  expect_error(
      ErrorKind::ShapeMismatch,
      [] {
        einsum({randn({2, 3}, 1), randn({4, 2}, 2)}, L{{0, 1}, {1, 2}}, EinsumLabels{0, 2});
      },
      {"label 1", "operand 1"});
  // A negative size.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum_path(L{{0, 1}, {1, 2}}, {0, 2}, {{2, 3}, {3, -1}});
               },
               {"operand 1", "-1"});
  // No operands at all.
  expect_error(ErrorKind::InvalidArgument, [] { einsum_path(L{}, {}, {}); }, {"operand"});
  // An output label no operand carries, and a repeated one.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum_path(L{{0, 1}, {1, 2}}, {0, 9}, {{2, 3}, {3, 4}});
               },
               {"output label 9"});
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum_path(L{{0, 1}, {1, 2}}, {0, 0}, {{2, 3}, {3, 4}});
               },
               {"output label 0"});
  // A rank that does not match the labels, and a count of shapes that does not match.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum_path(L{{0, 1}, {1, 2}}, {0, 2}, {{2, 3}, {3}});
               },
               {"operand 1"});
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum_path(L{{0, 1}, {1, 2}}, {0, 2}, {{2, 3}});
               },
               {"operand"});
}

const std::vector<EinsumLabels> kChain = {{0, 1}, {1, 2}, {2, 3}};
const EinsumLabels kChainOut = {0, 3};
const std::vector<Dims> kChainShapes = {{2, 3}, {3, 4}, {4, 5}};

TEST(PathSearch, InvalidEstablishedOptionsAreInvalidArgument) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto bad = [&](EinsumOptions o, const char* needle) {
    SCOPED_TRACE(needle);
    expect_error(ErrorKind::InvalidArgument,
                 [&] { einsum_path(kChain, kChainOut, kChainShapes, o); }, {needle});
  };
  bad({.strategy = static_cast<EinsumStrategy>(42)}, "strategy");
  bad({.optimal_limit = -1}, "optimal_limit");
  bad({.memory_limit = -1}, "memory_limit");
  bad({.memory_limit = nan}, "memory_limit");
  bad({.strategy = EinsumStrategy::optimal, .path = {{0, 0}, {1, 2}}}, "path");
  bad({.strategy = EinsumStrategy::given}, "path");
  EXPECT_NO_THROW(einsum_path(kChain, kChainOut, kChainShapes,
                              {.memory_limit = std::numeric_limits<double>::infinity()}));
}

TEST(PathSearch, InvalidSearchOptionsAreInvalidArgument) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (EinsumStrategy s :
       {EinsumStrategy::automatic, EinsumStrategy::random_greedy, EinsumStrategy::hyper}) {
    SCOPED_TRACE(std::string(to_string(s)));
    auto bad = [&](EinsumOptions o, const char* needle) {
      SCOPED_TRACE(needle);
      o.strategy = s;
      expect_error(ErrorKind::InvalidArgument,
                   [&] { einsum_path(kChain, kChainOut, kChainShapes, o); }, {needle});
    };
    bad({.trials = -1}, "trials");
    bad({.threads = -1}, "threads");
    bad({.time_budget = -1}, "time_budget");
    bad({.time_budget = nan}, "time_budget");
    bad({.time_budget = inf}, "time_budget");
    bad({.combo_factor = nan}, "combo_factor");
    bad({.combo_factor = -1}, "combo_factor");
    bad({.combo_factor = inf}, "combo_factor");
    bad({.objective = static_cast<PathObjective>(3)}, "objective");
    bad({.objective = static_cast<PathObjective>(-1)}, "objective");
  }
  // Through einsum too: nothing is computed.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 einsum({randn({2, 3}, 1), randn({3, 4}, 2), randn({4, 5}, 3)}, kChain, kChainOut,
                        {.strategy = EinsumStrategy::hyper, .trials = -2});
               },
               {"trials"});
  // The edges of the valid ranges are accepted.
  EXPECT_NO_THROW(einsum_path(
      kChain, kChainOut, kChainShapes,
      {.strategy = EinsumStrategy::random_greedy, .combo_factor = 0, .trials = 0, .threads = 0}));
  EXPECT_NO_THROW(einsum_path(kChain, kChainOut, kChainShapes,
                              {.strategy = EinsumStrategy::random_greedy,
                               .objective = PathObjective::combo,
                               .combo_factor = 0,
                               .time_budget = 0.5,
                               .trials = 1,
                               .threads = 1}));
}

// ------------------------------------------------------------------------------------------------
// automatic on three operands
// ------------------------------------------------------------------------------------------------

TEST(PathSearch, AutomaticOnThreeOperandsIsOptimal) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Net net = random_network(700 + seed, {.n = 3, .max_size = 9});
    SCOPED_TRACE(net.name);
    const EinsumPath p = net.path({});
    EXPECT_EQ(p.strategy, EinsumStrategy::optimal);
    EXPECT_TRUE(check_path(net, p));
    // The three trees of three operands, by the independent evaluator.
    double best = std::numeric_limits<double>::infinity();
    for (const Pairs& tree :
         {Pairs{{0, 1}, {2, 3}}, Pairs{{0, 2}, {1, 3}}, Pairs{{1, 2}, {0, 3}}}) {
      Costs c;
      ASSERT_TRUE(replay(net, tree, &c));
      best = std::min(best, c.flops);
    }
    EXPECT_DOUBLE_EQ(p.flops, best);
    EXPECT_DOUBLE_EQ(p.flops, net.path({.strategy = EinsumStrategy::optimal}).flops);
  }
  // The textbook case: (AB)C = 2*(10*100*5 + 10*5*50) = 15000 flops, A(BC) = 150000.
  const EinsumPath p = einsum_path(kChain, kChainOut, {{10, 100}, {100, 5}, {5, 50}});
  EXPECT_EQ(p.strategy, EinsumStrategy::optimal);
  EXPECT_DOUBLE_EQ(p.flops, 2.0 * (10 * 100 * 5 + 10 * 5 * 50));
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(std::set<int>({p.steps[0].lhs, p.steps[0].rhs}), std::set<int>({0, 1}));
}

}  // namespace
