// Contraction-path search: optimal (dynamic programming over subsets), sequential, and the
// dispatch to the searches of path_search.hpp (greedy, random_greedy, hyper).
#include "einsum/path.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A set of label ids as a bit set (labels are dense, Note [Einsum labels]).
struct LabelSet {
  SmallVector<std::uint64_t, 2> w;
  explicit LabelSet(std::size_t labels = 0) : w((labels + 63) / 64, 0) {}
  void add(Label l) { w[static_cast<std::size_t>(l) / 64] |= std::uint64_t{1} << (l % 64); }
  bool has(Label l) const { return (w[static_cast<std::size_t>(l) / 64] >> (l % 64)) & 1; }
  LabelSet operator|(const LabelSet& o) const {
    LabelSet r = *this;
    for (std::size_t i = 0; i < w.size(); ++i) r.w[i] |= o.w[i];
    return r;
  }
  LabelSet operator&(const LabelSet& o) const {
    LabelSet r = *this;
    for (std::size_t i = 0; i < w.size(); ++i) r.w[i] &= o.w[i];
    return r;
  }
  bool operator==(const LabelSet& o) const { return w == o.w; }
  bool empty() const {
    for (std::uint64_t x : w)
      if (x) return false;
    return true;
  }
  // Product of the sizes of the labels in the set.
  double volume(std::span<const std::int64_t> size) const {
    double v = 1;
    for (std::size_t i = 0; i < w.size(); ++i)
      for (std::uint64_t x = w[i]; x; x &= x - 1)
        v *= static_cast<double>(size[i * 64 + static_cast<std::size_t>(std::countr_zero(x))]);
    return v;
  }
};

LabelSet set_of(std::span<const Label> labels, std::size_t n) {
  LabelSet s(n);
  for (Label l : labels) s.add(l);
  return s;
}

double step_flops(const LabelSet& x, const LabelSet& y, const LabelSet& result,
                  std::span<const std::int64_t> size) {
  const LabelSet all = x | y;
  return all.volume(size) * (all == result ? 1.0 : 2.0);
}

[[noreturn]] void memory_error(const EinsumOptions& o) {
  throw Error(ErrorKind::InvalidArgument,
              "einsum: no contraction path keeps every intermediate within memory_limit = " +
                  std::to_string(o.memory_limit) +
                  " elements; expected a larger limit (or 0 for none)");
}

bool over_limit(double size, bool last, const EinsumOptions& o) {
  return !last && o.memory_limit > 0 && size > o.memory_limit;
}

using Pairs = std::vector<std::pair<int, int>>;

// Exact search over subsets (Note [Einsum cost model]); O(3^n) splits.
Pairs optimal_pairs(const PathProblem& p, const EinsumOptions& o) {
  const int n = static_cast<int>(p.operands.size());
  const std::size_t nl = p.size.size();
  const std::uint32_t full = (std::uint32_t{1} << n) - 1;
  std::vector<LabelSet> labels(full + 1, LabelSet(nl));
  for (std::uint32_t s = 1; s <= full; ++s) {
    const int low = std::countr_zero(s);
    labels[s] = labels[s & (s - 1)] | set_of(p.operands[static_cast<std::size_t>(low)], nl);
  }
  const LabelSet out = set_of(p.output, nl);
  std::vector<LabelSet> kept(full + 1, LabelSet(nl));
  for (std::uint32_t s = 1; s <= full; ++s) kept[s] = labels[s] & (labels[full ^ s] | out);
  std::vector<double> cost(full + 1, kInf);
  std::vector<std::uint32_t> split(full + 1, 0);
  for (std::uint32_t s = 1; s <= full; ++s) {
    if (std::has_single_bit(s)) {
      cost[s] = 0;
      continue;
    }
    if (over_limit(kept[s].volume(p.size), s == full, o)) continue;
    const std::uint32_t low = s & (~s + 1);
    for (std::uint32_t a = (s - 1) & s; a; a = (a - 1) & s) {
      if (!(a & low)) continue;
      const std::uint32_t b = s ^ a;
      if (cost[a] == kInf || cost[b] == kInf) continue;
      const double c = cost[a] + cost[b] + step_flops(kept[a], kept[b], kept[s], p.size);
      if (c < cost[s]) {
        cost[s] = c;
        split[s] = a;
      }
    }
  }
  if (cost[full] == kInf) memory_error(o);
  // Post-order over the split tree gives SSA ids.
  Pairs pairs;
  auto emit = [&](auto&& self, std::uint32_t s) -> int {
    if (std::has_single_bit(s)) return std::countr_zero(s);
    const int x = self(self, split[s]);
    const int y = self(self, s ^ split[s]);
    pairs.emplace_back(x, y);
    return n + static_cast<int>(pairs.size()) - 1;
  };
  emit(emit, full);
  return pairs;
}

Pairs sequential_pairs(int n) {
  Pairs pairs;
  for (int k = 1; k < n; ++k) pairs.emplace_back(k == 1 ? 0 : n + k - 2, k);
  return pairs;
}

bool within_limit(const RawPath& r, const EinsumOptions& o) {
  for (std::size_t k = 0; k + 1 < r.steps.size(); ++k)
    if (over_limit(r.steps[k].size, false, o)) return false;
  return true;
}

}  // namespace

RawPath evaluate_pairs(const PathProblem& p, std::span<const std::pair<int, int>> pairs) {
  const std::size_t nl = p.size.size();
  std::vector<LabelList> lists(p.operands.begin(), p.operands.end());
  SmallVector<std::int32_t, 16> count(nl, 0);
  for (const LabelList& ls : p.operands)
    for (Label l : ls) ++count[static_cast<std::size_t>(l)];
  for (Label l : p.output) ++count[static_cast<std::size_t>(l)];
  RawPath r;
  for (auto [a, b] : pairs) {
    const LabelList x = lists[static_cast<std::size_t>(a)];
    const LabelList y = lists[static_cast<std::size_t>(b)];
    for (Label l : x) --count[static_cast<std::size_t>(l)];
    for (Label l : y) --count[static_cast<std::size_t>(l)];
    const LabelSet xs = set_of(x, nl), ys = set_of(y, nl);
    auto needed = [&](Label l) { return count[static_cast<std::size_t>(l)] > 0; };
    RawStep s;
    s.lhs = a;
    s.rhs = b;
    for (Label l : x)
      if (ys.has(l) && needed(l)) s.result.push_back(l);
    for (Label l : x)
      if (!ys.has(l) && needed(l)) s.result.push_back(l);
    for (Label l : y)
      if (!xs.has(l) && needed(l)) s.result.push_back(l);
    for (Label l : s.result) ++count[static_cast<std::size_t>(l)];
    const LabelSet rs = set_of(s.result, nl);
    s.flops = step_flops(xs, ys, rs, p.size);
    s.size = rs.volume(p.size);
    r.flops += s.flops;
    r.largest = std::max(r.largest, s.size);
    r.write += s.size;
    lists.push_back(s.result);
    r.steps.push_back(std::move(s));
  }
  return r;
}

namespace {
void check_options(const EinsumOptions& o) {
  switch (o.strategy) {
    case EinsumStrategy::automatic:
    case EinsumStrategy::optimal:
    case EinsumStrategy::greedy:
    case EinsumStrategy::sequential:
    case EinsumStrategy::random_greedy:
    case EinsumStrategy::hyper:
      break;
    case EinsumStrategy::given:
      if (o.path.empty())
        throw Error(ErrorKind::InvalidArgument,
                    "einsum: EinsumOptions::strategy is given but EinsumOptions::path is empty; "
                    "expected the pairs to contract");
      break;
    default:
      throw Error(ErrorKind::InvalidArgument,
                  "einsum: EinsumOptions::strategy has value " +
                      std::to_string(static_cast<int>(o.strategy)) +
                      "; expected automatic, optimal, greedy, sequential, given, random_greedy "
                      "or hyper");
  }
  switch (o.objective) {
    case PathObjective::flops:
    case PathObjective::size:
    case PathObjective::combo:
      break;
    default:
      throw Error(ErrorKind::InvalidArgument, "einsum: EinsumOptions::objective has value " +
                                                  std::to_string(static_cast<int>(o.objective)) +
                                                  "; expected flops, size or combo");
  }
  auto check_number = [](double v, const char* name) {
    if (!(v >= 0) || !std::isfinite(v))
      throw Error(ErrorKind::InvalidArgument, std::string("einsum: EinsumOptions::") + name +
                                                  " is " + std::to_string(v) +
                                                  "; expected a finite number >= 0");
  };
  check_number(o.combo_factor, "combo_factor");
  check_number(o.time_budget, "time_budget");
  auto check_count = [](int v, const char* name) {
    if (v < 0)
      throw Error(ErrorKind::InvalidArgument, std::string("einsum: EinsumOptions::") + name +
                                                  " is " + std::to_string(v) +
                                                  "; expected >= 0 (0 for the default)");
  };
  check_count(o.trials, "trials");
  check_count(o.threads, "threads");
  if (o.optimal_limit < 0)
    throw Error(ErrorKind::InvalidArgument, "einsum: EinsumOptions::optimal_limit is " +
                                                std::to_string(o.optimal_limit) +
                                                "; expected >= 0");
  if (!(o.memory_limit >= 0))  // also NaN
    throw Error(ErrorKind::InvalidArgument,
                "einsum: EinsumOptions::memory_limit is " + std::to_string(o.memory_limit) +
                    "; expected a number of elements >= 0 (0 for no limit), not NaN");
}
// An explicit path must be a contraction tree: n-1 pairs, each id used once, only ids that exist.
void check_given_path(const Pairs& pairs, int n) {
  auto bad = [&](std::size_t k, const std::string& why) {
    throw Error(ErrorKind::InvalidArgument, "einsum: EinsumOptions::path pair " +
                                                std::to_string(k) + " (" +
                                                std::to_string(pairs[k].first) + ", " +
                                                std::to_string(pairs[k].second) + ") " + why);
  };
  if (static_cast<int>(pairs.size()) != n - 1)
    throw Error(ErrorKind::InvalidArgument, "einsum: EinsumOptions::path has " +
                                                std::to_string(pairs.size()) + " pairs for " +
                                                std::to_string(n) + " operands; expected " +
                                                std::to_string(n - 1) + " (one per contraction)");
  std::vector<bool> used(static_cast<std::size_t>(2 * n - 1), false);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const int limit = n + static_cast<int>(k);  // ids 0..n+k-1 exist before step k
    for (int id : {pairs[k].first, pairs[k].second}) {
      if (id < 0 || id >= limit)
        bad(k, "names operand id " + std::to_string(id) + "; expected an id in [0, " +
                   std::to_string(limit) + ") (inputs, then earlier steps' results)");
      if (used[static_cast<std::size_t>(id)])
        bad(k, "uses operand id " + std::to_string(id) + " a second time");
    }
    if (pairs[k].first == pairs[k].second) bad(k, "contracts an operand with itself");
    used[static_cast<std::size_t>(pairs[k].first)] = true;
    used[static_cast<std::size_t>(pairs[k].second)] = true;
  }
}

}  // namespace

namespace {

/// automatic refines greedy over subtrees of this many leaves (3^6 splits a node: milliseconds
/// for a thousand operands).
constexpr int kAutomaticReconfigureLeaves = 6;

search::Objective objective_of(const EinsumOptions& o) {
  search::Objective obj;
  obj.kind = o.objective;
  obj.combo_factor = o.combo_factor;
  obj.limit = o.memory_limit > 0 && std::isfinite(o.memory_limit) ? o.memory_limit : 0;
  return obj;
}

search::Score score_of(const RawPath& r) { return {r.flops, r.largest, r.write}; }

// The greedy strategy (and automatic above the optimal limit, refined when `refine_leaves` > 0):
// the best feasible candidate by the objective.
RawPath greedy_path(const PathProblem& p, const EinsumOptions& o, int refine_leaves) {
  const search::Objective obj = objective_of(o);
  const search::Net net(p);
  RawPath best;
  bool have = false;
  for (const Pairs& pairs : search::greedy_candidates(net, obj.limit)) {
    RawPath r = evaluate_pairs(p, pairs);
    if (!within_limit(r, o)) continue;
    if (!have || obj.better(score_of(r), score_of(best))) best = std::move(r);
    have = true;
  }
  if (!have) memory_error(o);
  if (refine_leaves > 0) {
    Pairs pairs;
    for (const RawStep& s : best.steps) pairs.emplace_back(s.lhs, s.rhs);
    RawPath r = evaluate_pairs(p, search::refine_pairs(p, pairs, obj, refine_leaves));
    if (within_limit(r, o) && obj.better(score_of(r), score_of(best))) best = std::move(r);
  }
  return best;
}

}  // namespace

RawPath find_path_untimed(const PathProblem& p, const EinsumOptions& o);

RawPath find_path(const PathProblem& p, const EinsumOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  RawPath r = find_path_untimed(p, o);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

RawPath find_path_untimed(const PathProblem& p, const EinsumOptions& o) {
  check_options(o);
  const int n = static_cast<int>(p.operands.size());
  if (!o.path.empty()) {
    check_given_path(o.path, n);
    RawPath given = evaluate_pairs(p, o.path);
    for (std::size_t k = 0; k + 1 < given.steps.size(); ++k)
      if (over_limit(given.steps[k].size, false, o))
        throw Error(ErrorKind::InvalidArgument,
                    "einsum: EinsumOptions::path pair " + std::to_string(k) + " (" +
                        std::to_string(o.path[k].first) + ", " + std::to_string(o.path[k].second) +
                        ") makes an intermediate of " +
                        std::to_string(static_cast<std::int64_t>(given.steps[k].size)) +
                        " elements, over memory_limit = " + std::to_string(o.memory_limit) +
                        "; expected a path within the limit, or a larger limit");
    given.strategy = EinsumStrategy::given;
    return given;
  }
  EinsumStrategy strategy = o.strategy;
  if (strategy == EinsumStrategy::automatic && n <= std::min(o.optimal_limit, kMaxOptimalOperands))
    strategy = EinsumStrategy::optimal;
  if (strategy == EinsumStrategy::optimal && n > kMaxOptimalOperands)
    throw Error(ErrorKind::InvalidArgument,
                "einsum: optimal path search supports at most " +
                    std::to_string(kMaxOptimalOperands) + " operands, got " + std::to_string(n) +
                    "; expected the greedy strategy for larger networks");
  RawPath best;
  if (n <= 2 || strategy == EinsumStrategy::sequential) {
    best = evaluate_pairs(p, sequential_pairs(n));
    if (!within_limit(best, o)) memory_error(o);
  } else if (strategy == EinsumStrategy::optimal) {
    best = evaluate_pairs(p, optimal_pairs(p, o));
  } else if (strategy == EinsumStrategy::greedy) {
    best = greedy_path(p, o, 0);
  } else if (strategy == EinsumStrategy::automatic) {
    best = greedy_path(p, o, kAutomaticReconfigureLeaves);
    strategy = EinsumStrategy::greedy;
  } else {
    best = search::hyper_search(p, o, strategy);
    if (best.steps.empty()) memory_error(o);
  }
  best.strategy = strategy;
  return best;
}

}  // namespace tenferro::detail::einsum
