// Subtree reconfiguration.
//
// Note [Subtree reconfiguration]: for an internal node v, grow a frontier from v's children by
// repeatedly replacing the frontier's most expensive internal node with its two children, up to
// `leaves` frontier nodes. The nodes between v and the frontier form a sub-contraction whose
// inputs are the frontier's tensors and whose output is v's tensor; dynamic programming over the
// subsets of the frontier finds its optimal order (O(3^k) splits; a subset's legs follow from the
// summed leg counts, Note [Legs with counts]) and, when cheaper by the objective, the subtree is
// rebuilt in place (same node ids, v keeps its id and its tensor, so nothing outside changes).
// Sweeps visit the internal nodes most expensive first and repeat until one gains nothing, as
// cotengra's subtree_reconfigure does. Under a memory limit (or the size objective) no new
// intermediate may exceed the limit (or the subtree's old largest), so the path stays feasible.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum::search {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxWords = 4;  // local label sets of up to 256 labels

struct Bits {
  std::uint64_t w[kMaxWords] = {0, 0, 0, 0};
};

class Reconfigurer {
 public:
  Reconfigurer(const Net& net, Tree& t, int leaves, const Objective& obj)
      : net_(net), t_(t), k_max_(std::clamp(leaves, 2, 16)), obj_(obj) {}

  bool try_node(int v) {
    // The frontier and the internal nodes above it.
    frontier_.assign({t_.left[static_cast<std::size_t>(v)], t_.right[static_cast<std::size_t>(v)]});
    inner_.assign({v});
    while (static_cast<int>(frontier_.size()) < k_max_) {
      int pick = -1;
      for (std::size_t i = 0; i < frontier_.size(); ++i) {
        const int f = frontier_[i];
        if (t_.is_leaf(f)) continue;
        if (pick < 0 ||
            t_.flops[static_cast<std::size_t>(f)] >
                t_.flops[static_cast<std::size_t>(frontier_[static_cast<std::size_t>(pick)])])
          pick = static_cast<int>(i);
      }
      if (pick < 0) break;
      const int f = frontier_[static_cast<std::size_t>(pick)];
      inner_.push_back(f);
      frontier_[static_cast<std::size_t>(pick)] = t_.left[static_cast<std::size_t>(f)];
      frontier_.push_back(t_.right[static_cast<std::size_t>(f)]);
    }
    const int k = static_cast<int>(frontier_.size());
    if (k < 3) return false;
    double old_cost = 0, old_largest = 0;
    for (int u : inner_) {
      const auto i = static_cast<std::size_t>(u);
      old_cost += obj_.step(t_.flops[i], t_.size[i]);
      if (u != v) old_largest = std::max(old_largest, t_.size[i]);
    }
    if (!local_labels()) return false;
    double cap = obj_.limit > 0 ? obj_.limit : kInf;
    if (obj_.kind == PathObjective::size) cap = std::min(cap, old_largest);
    solve(k, cap);
    const std::uint32_t full = (std::uint32_t{1} << k) - 1;
    // A subtree with results over the cap is replaced by any solution within it.
    const bool improves =
        old_largest > cap ? cost_[full] < kInf : cost_[full] < old_cost * (1 - 1e-12);
    if (!improves) return false;
    slots_.assign(inner_.begin() + 1, inner_.end());
    build(full, v);
    return true;
  }

 private:
  // Indexes the frontier's labels locally; false when there are more than 64 * kMaxWords.
  bool local_labels() {
    labels_.clear();
    for (int f : frontier_)
      for (Leg g : t_.legs[static_cast<std::size_t>(f)]) labels_.push_back(g.label);
    std::sort(labels_.begin(), labels_.end());
    labels_.erase(std::unique(labels_.begin(), labels_.end()), labels_.end());
    return labels_.size() <= 64 * kMaxWords;
  }
  std::size_t local(Label l) const {
    return static_cast<std::size_t>(std::lower_bound(labels_.begin(), labels_.end(), l) -
                                    labels_.begin());
  }
  double volume(const Bits& b) const {
    double v = 1;
    for (int w = 0; w < kMaxWords; ++w)
      for (std::uint64_t x = b.w[w]; x; x &= x - 1)
        v *= net_.size[static_cast<std::size_t>(
            labels_[static_cast<std::size_t>(w * 64 + std::countr_zero(x))])];
    return v;
  }

  void solve(int k, double cap) {
    const std::size_t subsets = std::size_t{1} << k;
    const std::size_t nl = labels_.size();
    counts_.assign(subsets * nl, 0);
    kept_.assign(subsets, Bits{});
    size_.assign(subsets, 1);
    cost_.assign(subsets, kInf);
    split_.assign(subsets, 0);
    for (int i = 0; i < k; ++i)
      for (Leg g : t_.legs[static_cast<std::size_t>(frontier_[static_cast<std::size_t>(i)])])
        counts_[(std::size_t{1} << i) * nl + local(g.label)] = g.count;
    const std::uint32_t full = static_cast<std::uint32_t>(subsets - 1);
    for (std::uint32_t s = 1; s <= full; ++s) {
      const std::uint32_t low = s & (~s + 1);
      if (s != low)
        for (std::size_t l = 0; l < nl; ++l)
          counts_[s * nl + l] = counts_[(s ^ low) * nl + l] + counts_[low * nl + l];
      Bits b;
      for (std::size_t l = 0; l < nl; ++l) {
        const std::int32_t c = counts_[s * nl + l];
        if (c > 0 && c < net_.total[static_cast<std::size_t>(labels_[l])])
          b.w[l / 64] |= std::uint64_t{1} << (l % 64);
      }
      kept_[s] = b;
      size_[s] = volume(b);
    }
    for (std::uint32_t s = 1; s <= full; ++s) {
      if (std::has_single_bit(s)) {
        cost_[s] = 0;
        continue;
      }
      if (s != full && size_[s] > cap) continue;
      const std::uint32_t low = s & (~s + 1);
      for (std::uint32_t a = (s - 1) & s; a; a = (a - 1) & s) {
        if (!(a & low)) continue;
        const std::uint32_t b = s ^ a;
        const double base = cost_[a] + cost_[b];
        if (!(base < cost_[s])) continue;
        Bits shared, all;
        bool summed = false;
        for (int w = 0; w < kMaxWords; ++w) {
          shared.w[w] = kept_[a].w[w] & kept_[b].w[w];
          all.w[w] = kept_[a].w[w] | kept_[b].w[w];
          summed = summed || all.w[w] != kept_[s].w[w];
        }
        const double flops = size_[a] * size_[b] / volume(shared) * (summed ? 2 : 1);
        const double c = base + obj_.step(flops, size_[s]);
        if (c < cost_[s]) {
          cost_[s] = c;
          split_[s] = a;
        }
      }
    }
  }

  int build(std::uint32_t s, int id) {
    if (std::has_single_bit(s)) return frontier_[static_cast<std::size_t>(std::countr_zero(s))];
    const int x = build(split_[s], -1);
    const int y = build(s ^ split_[s], -1);
    if (id < 0) {
      id = slots_.back();
      slots_.pop_back();
    }
    const auto u = static_cast<std::size_t>(id);
    t_.left[u] = x;
    t_.right[u] = y;
    t_.parent[static_cast<std::size_t>(x)] = id;
    t_.parent[static_cast<std::size_t>(y)] = id;
    t_.update(net_, id);
    return id;
  }

  const Net& net_;
  Tree& t_;
  int k_max_;
  Objective obj_;
  std::vector<int> frontier_, inner_, slots_;
  std::vector<Label> labels_;
  std::vector<std::int32_t> counts_;
  std::vector<Bits> kept_;
  std::vector<double> size_, cost_;
  std::vector<std::uint32_t> split_;
};

}  // namespace

void reconfigure(const Net& net, Tree& tree, int leaves, const Objective& obj,
                 Clock::time_point deadline) {
  if (tree.n_leaves() < 3) return;
  Reconfigurer r(net, tree, leaves, obj);
  std::vector<int> order;
  for (int sweep = 0; sweep < 16; ++sweep) {
    order.clear();
    for (int v = tree.n_leaves(); v < static_cast<int>(tree.left.size()); ++v) order.push_back(v);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return tree.flops[static_cast<std::size_t>(a)] > tree.flops[static_cast<std::size_t>(b)];
    });
    bool gained = false;
    for (int v : order) {
      if (Clock::now() > deadline) return;
      gained = r.try_node(v) || gained;
    }
    if (!gained) return;
  }
}

Pairs refine_pairs(const PathProblem& p, const Pairs& pairs, const Objective& obj, int leaves) {
  const Net net(p);
  Tree t = tree_from_pairs(net, pairs);
  reconfigure(net, t, leaves, obj, Clock::time_point::max());
  return pairs_from_tree(t);
}

}  // namespace tenferro::detail::einsum::search
