// Slicing interleaved with tree re-optimisation.
//
// Note [Sliced search]: slicing a fixed tree cuts labels the tree happened to make large; after a
// cut the best tree for the remaining (per-slice) sizes is often another one. So, as cotengra's
// slice_and_reconfigure does: while some step result (one slice's result included) exceeds the
// limit, cut one label of an over-limit result, then reconfigure the tree for the sliced sizes
// over `leaves`-leaf subtrees, so the tree adapts to the cuts made so far. Which cut, and whether
// reconfiguration may build intermediates over the limit, is a SliceRule: the cut with the fewest
// total flops after it (one slice's flops times the slices) or the one adding the fewest bits of
// flops per bit of excess size it removes; reconfiguration capped at the limit (a subtree with
// results over the cap is then replaced by any that fits it) or free. No rule wins everywhere
// (measured: free reconfiguration halves the flops on a 3x3 grid at 1/16 of its peak, the cap
// divides them by 3 at 1/64), so slice_plan runs three rules and keeps the cheapest plan. Costs
// follow Note [Einsum cost model] with the per-slice sizes; chunk counts divide sizes (equal
// slices: one prepared einsum serves them all).
#include <algorithm>
#include <cmath>
#include <limits>

#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum::search {
namespace {

std::int64_t next_divisor(std::int64_t size, std::int64_t chunks) {
  for (std::int64_t d = chunks + 1; d <= size; ++d)
    if (size % d == 0) return d;
  return chunks;
}

// Offset of the score's flop bits: a cut that adds no flops still costs its slices a little, so
// among free cuts the one removing the most excess wins.
constexpr double kFlopWeight = 0.05;

// What a cut costs on a fixed tree (Note [Sliced trial cost]): cutting label l by f divides by f
// the flops of every step that contracts or carries l and the size of every result that carries
// l, so a candidate costs the steps that touch it, not a rescoring of the tree.
class CutTable {
 public:
  CutTable(const Net& net, const Tree& t)
      : n_(static_cast<std::size_t>(t.n_leaves())),
        flops_(t.flops),
        size_(t.size),
        steps_of_(net.size.size()),
        results_of_(net.size.size()) {
    for (std::size_t v = n_; v < t.left.size(); ++v) {
      total_ += flops_[v];
      for (Leg g : t.legs[v]) results_of_[static_cast<std::size_t>(g.label)].push_back(v);
      for (int child : {t.left[v], t.right[v]})
        for (Leg g : t.legs[static_cast<std::size_t>(child)]) {
          std::vector<std::size_t>& s = steps_of_[static_cast<std::size_t>(g.label)];
          if (s.empty() || s.back() != v) s.push_back(v);
        }
    }
  }

  /// The largest step result (the root, one slice's own result, included).
  std::size_t peak() const {
    std::size_t p = n_;
    for (std::size_t v = n_; v < size_.size(); ++v)
      if (size_[v] > size_[p]) p = v;
    return p;
  }
  bool over(double limit) const { return size_.size() > n_ && size_[peak()] > limit; }
  /// Flops of one slice.
  double total() const { return total_; }

  struct Effect {
    double total = 0;    // flops of one slice after the cut
    double removed = 0;  // bits of excess over the limit it removes
  };
  Effect effect(Label l, double f, double limit) const {
    Effect e{total_, 0};
    for (std::size_t v : steps_of_[static_cast<std::size_t>(l)]) e.total -= flops_[v] * (1 - 1 / f);
    for (std::size_t v : results_of_[static_cast<std::size_t>(l)])
      if (size_[v] > limit) e.removed += std::min(std::log2(size_[v] / limit), std::log2(f));
    return e;
  }
  void cut(Label l, double f) {
    for (std::size_t v : steps_of_[static_cast<std::size_t>(l)]) {
      total_ -= flops_[v] * (1 - 1 / f);
      flops_[v] /= f;
    }
    for (std::size_t v : results_of_[static_cast<std::size_t>(l)]) size_[v] /= f;
  }
  Score score(double slices) const {
    Score s;
    for (std::size_t v = n_; v < size_.size(); ++v) {
      s.flops += flops_[v] * slices;
      s.write += size_[v] * slices;
      s.largest = std::max(s.largest, size_[v]);
    }
    return s;
  }
  /// Labels of the results over the limit.
  std::vector<bool> over_labels(const Tree& t, double limit) const {
    std::vector<bool> in(results_of_.size(), false);
    for (std::size_t v = n_; v < size_.size(); ++v)
      if (size_[v] > limit)
        for (Leg g : t.legs[v]) in[static_cast<std::size_t>(g.label)] = true;
    return in;
  }

 private:
  std::size_t n_;
  std::vector<double> flops_, size_;
  std::vector<std::vector<std::size_t>> steps_of_, results_of_;
  double total_ = 0;
};

}  // namespace

bool slice_and_reconfigure(const Net& net, Tree& tree, std::span<const Label> candidates,
                           double limit, int leaves, const SliceRule& rule,
                           Clock::time_point deadline, std::vector<std::int64_t>& chunks) {
  chunks.assign(net.size.size(), 1);
  Net sliced = net;
  Objective obj;  // flops of one slice; with rule.cap, new intermediates must fit the limit
  if (rule.cap) obj.limit = limit;
  double slices = 1;
  for (;;) {
    const CutTable table(sliced, tree);
    if (!table.over(limit)) break;
    const std::vector<bool> in_big = table.over_labels(tree, limit);
    Label best = -1;
    std::int64_t best_chunks = 0;
    double best_score = std::numeric_limits<double>::infinity();
    const double now_total = table.total() * slices;
    for (Label l : candidates) {
      const auto u = static_cast<std::size_t>(l);
      if (!in_big[u]) continue;
      const std::int64_t k2 = next_divisor(static_cast<std::int64_t>(net.size[u]), chunks[u]);
      if (k2 == chunks[u]) continue;
      const double f = static_cast<double>(k2) / static_cast<double>(chunks[u]);
      const CutTable::Effect e = table.effect(l, f, limit);
      const double total = e.total * slices * f;
      const double score =
          rule.pick == SliceRule::Pick::fewest_flops
              ? total
              // Bits of flops the cut adds per bit of excess it removes.
              : (std::log2(total) - std::log2(now_total) + kFlopWeight) / e.removed;
      if (score < best_score) {
        best = l;
        best_chunks = k2;
        best_score = score;
      }
    }
    if (best < 0) return false;
    const auto u = static_cast<std::size_t>(best);
    slices *= static_cast<double>(best_chunks) / static_cast<double>(chunks[u]);
    chunks[u] = best_chunks;
    sliced.size[u] = static_cast<double>(static_cast<std::int64_t>(net.size[u]) / best_chunks);
    tree.rescore(sliced);
    if (Clock::now() < deadline) reconfigure(sliced, tree, leaves, obj, deadline);
  }
  return true;
}

// Note [Sliced trial cost]: how good a tree is under a memory limit is its cost *after slicing*,
// and trees with equal unsliced flops differ by orders of magnitude there (Sycamore at 2^30:
// the tree of 10^18.3 multiply-adds needs 10^29.9 once sliced, others 10^23.5). So the sliced
// hyper search judges every trial by this quick slicing of its fixed tree, as cotengra's
// SliceFinder does: while the largest step result exceeds the limit, cut the one label of it (to
// the next divisor of its size) that leaves the fewest total flops, ties to the label that
// removes more excess, then the lower id.
double slice_fixed(const Net& net, const Tree& t, double limit, std::span<const Label> candidates,
                   std::vector<std::int64_t>& chunks, Score* score) {
  chunks.assign(net.size.size(), 1);
  std::vector<bool> cuttable(net.size.size(), false);
  for (Label l : candidates) cuttable[static_cast<std::size_t>(l)] = true;
  CutTable table(net, t);
  double slices = 1;
  while (table.over(limit)) {
    const std::size_t peak = table.peak();
    Label best = -1;
    std::int64_t best_chunks = 0;
    double best_total = std::numeric_limits<double>::infinity(), best_removed = 0;
    for (Leg g : t.legs[peak]) {
      const auto u = static_cast<std::size_t>(g.label);
      if (!cuttable[u]) continue;
      const std::int64_t k2 = next_divisor(static_cast<std::int64_t>(net.size[u]), chunks[u]);
      if (k2 == chunks[u]) continue;
      const double f = static_cast<double>(k2) / static_cast<double>(chunks[u]);
      const CutTable::Effect e = table.effect(g.label, f, limit);
      const double after = slices * f * e.total;
      if (after < best_total * (1 - 1e-12) ||
          (after <= best_total * (1 + 1e-12) && e.removed > best_removed)) {
        best = g.label;
        best_chunks = k2;
        best_total = after;
        best_removed = e.removed;
      }
    }
    if (best < 0) return std::numeric_limits<double>::infinity();
    const auto u = static_cast<std::size_t>(best);
    const double f = static_cast<double>(best_chunks) / static_cast<double>(chunks[u]);
    chunks[u] = best_chunks;
    slices *= f;
    table.cut(best, f);
  }
  if (score) *score = table.score(slices);
  return table.total() * slices;
}

Net sliced_net(const Net& net, std::span<const std::int64_t> chunks) {
  Net s = net;
  for (std::size_t l = 0; l < chunks.size(); ++l)
    s.size[l] = static_cast<double>(static_cast<std::int64_t>(net.size[l]) / chunks[l]);
  return s;
}

}  // namespace tenferro::detail::einsum::search
