// Slicing interleaved with tree re-optimisation.
//
// Note [Sliced search]: slicing a fixed tree cuts labels the tree happened to make large; after a
// cut the best tree for the remaining (per-slice) sizes is often another one. So, as cotengra's
// slice_and_reconfigure does: while some step result (one slice's result included) exceeds the
// limit, cut the candidate label of an over-limit result whose cut gives the smallest total flops
// (flops of one slice times the slices; ties: the smaller peak, then the lower label), then
// reconfigure the tree for the sliced sizes over `leaves`-leaf subtrees with the limit as a cap on
// new intermediates (a subtree with results over the cap is replaced by any that fits it), so the
// tree adapts to the cuts made so far. Costs follow Note [Einsum cost model] with the per-slice
// sizes; chunk counts divide sizes (equal slices: one prepared einsum serves them all).
#include <algorithm>
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
double peak_of(const Tree& t) {
  double peak = 0;
  for (std::size_t v = static_cast<std::size_t>(t.n_leaves()); v < t.left.size(); ++v)
    peak = std::max(peak, t.size[v]);
  return peak;
}

}  // namespace

bool slice_and_reconfigure(const Net& net, Tree& tree, std::span<const Label> candidates,
                           double limit, int leaves, Clock::time_point deadline,
                           std::vector<std::int64_t>& chunks) {
  chunks.assign(net.size.size(), 1);
  Net sliced = net;
  Objective obj;
  obj.limit = limit;
  double slices = 1;
  while (peak_of(tree) > limit) {
    // Labels of the over-limit results.
    std::vector<bool> in_big(net.size.size(), false);
    for (std::size_t v = static_cast<std::size_t>(tree.n_leaves()); v < tree.left.size(); ++v)
      if (tree.size[v] > limit)
        for (Leg g : tree.legs[v]) in_big[static_cast<std::size_t>(g.label)] = true;
    Label best = -1;
    std::int64_t best_chunks = 0;
    double best_total = std::numeric_limits<double>::infinity(), best_peak = best_total;
    for (Label l : candidates) {
      const auto u = static_cast<std::size_t>(l);
      if (!in_big[u]) continue;
      const auto full = static_cast<std::int64_t>(net.size[u]);
      const std::int64_t k2 = next_divisor(full, chunks[u]);
      if (k2 == chunks[u]) continue;
      Net trial = sliced;
      trial.size[u] = static_cast<double>(full / k2);
      Tree t = tree;
      t.rescore(trial);
      const double total =
          t.score().flops * slices * static_cast<double>(k2) / static_cast<double>(chunks[u]);
      const double peak = peak_of(t);
      if (total < best_total || (total == best_total && peak < best_peak)) {
        best = l;
        best_chunks = k2;
        best_total = total;
        best_peak = peak;
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
