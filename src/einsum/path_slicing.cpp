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

// The largest step result, the root (one slice's own result) included.
// Offset of the score's flop bits: a cut that adds no flops still costs its slices a little, so
// among free cuts the one removing the most excess wins.
constexpr double kFlopWeight = 0.05;

double peak_of(const Tree& t) {
  double peak = 0;
  for (std::size_t v = static_cast<std::size_t>(t.n_leaves()); v < t.left.size(); ++v)
    peak = std::max(peak, t.size[v]);
  return peak;
}

}  // namespace

bool slice_and_reconfigure(const Net& net, Tree& tree, std::span<const Label> candidates,
                           double limit, int leaves, const SliceRule& rule,
                           Clock::time_point deadline, std::vector<std::int64_t>& chunks) {
  chunks.assign(net.size.size(), 1);
  Net sliced = net;
  Objective obj;  // flops of one slice; with rule.cap, new intermediates must fit the limit
  if (rule.cap) obj.limit = limit;
  double slices = 1;
  while (peak_of(tree) > limit) {
    // Labels of the over-limit results.
    std::vector<bool> in_big(net.size.size(), false);
    for (std::size_t v = static_cast<std::size_t>(tree.n_leaves()); v < tree.left.size(); ++v)
      if (tree.size[v] > limit)
        for (Leg g : tree.legs[v]) in_big[static_cast<std::size_t>(g.label)] = true;
    Label best = -1;
    std::int64_t best_chunks = 0;
    double best_score = std::numeric_limits<double>::infinity();
    const double now_total = tree.score().flops * slices;
    for (Label l : candidates) {
      const auto u = static_cast<std::size_t>(l);
      if (!in_big[u]) continue;
      const auto full = static_cast<std::int64_t>(net.size[u]);
      const std::int64_t k2 = next_divisor(full, chunks[u]);
      if (k2 == chunks[u]) continue;
      const double bits = std::log2(static_cast<double>(k2) / static_cast<double>(chunks[u]));
      // Excess (bits over the limit) the cut removes from the over-limit results.
      double removed = 0;
      for (std::size_t v = static_cast<std::size_t>(tree.n_leaves()); v < tree.left.size(); ++v)
        if (tree.size[v] > limit)
          for (Leg g : tree.legs[v])
            if (g.label == l) removed += std::min(std::log2(tree.size[v] / limit), bits);
      Net trial = sliced;
      trial.size[u] = static_cast<double>(full / k2);
      Tree t = tree;
      t.rescore(trial);
      const double total = t.score().flops * slices * std::exp2(bits);
      const double score = rule.pick == SliceRule::Pick::fewest_flops
                               ? total
                               // Bits of flops the cut adds per bit of excess it removes.
                               : (std::log2(total) - std::log2(now_total) + kFlopWeight) / removed;
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

}  // namespace tenferro::detail::einsum::search
