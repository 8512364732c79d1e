// Greedy contraction paths in O(E log E).
//
// Note [Greedy queue]: a priority queue holds every pair of live tensors that share a label, keyed
// by what contracting it costs; the smallest key is contracted, and only the pairs of the new
// tensor with the live tensors that share one of its labels are pushed (a label's holders are
// kept per label, so a step touches only its neighbourhood). A popped pair whose side is already
// contracted is stale and skipped. Each pair is pushed once (SSA ids never repeat), so randomised
// keys (Gumbel noise drawn at push time) keep the queue a valid Boltzmann choice among candidates,
// as opt_einsum's and cotengra's random greedy do. Ties go to the smaller ids: deterministic.
// When no connected pair is left, the remaining tensors (disconnected parts) are joined smallest
// first. Keys:
//   size_change  |R| - costmod (|A| + |B|)         (opt_einsum's greedy)
//   log_ratio    log2|R| - costmod log2(|A| + |B|) - temperature * gumbel   (cotengra's)
//   flops        the step's flops
// A memory limit drops the pairs whose result exceeds it (but for the very last contraction).
#include <algorithm>
#include <cmath>
#include <queue>
#include <random>

#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum::search {
namespace {

struct Candidate {
  double key;
  int a, b;
  bool operator>(const Candidate& o) const {
    if (key != o.key) return key > o.key;
    if (a != o.a) return a > o.a;
    return b > o.b;
  }
};

class Greedy {
 public:
  Greedy(const Net& net, const GreedyParams& p, double limit)
      : net_(net), p_(p), limit_(limit), rng_(p.seed) {
    const auto nodes = static_cast<std::size_t>(2 * net.n);
    legs_.resize(nodes);
    size_.assign(nodes, 0);
    alive_.assign(nodes, false);
    stamp_.assign(nodes, -1);
    holders_.resize(net.size.size());
    for (int k = 0; k < net.n; ++k) add(net.leaves[static_cast<std::size_t>(k)]);
    for (int k = 0; k < net.n; ++k) push_neighbours(k);
  }

  Pairs run() {
    while (!queue_.empty() && live_ > 1) {
      const Candidate c = queue_.top();
      queue_.pop();
      if (!alive_[static_cast<std::size_t>(c.a)] || !alive_[static_cast<std::size_t>(c.b)])
        continue;
      const int r = contract(c.a, c.b);
      if (live_ > 1) push_neighbours(r);
    }
    if (live_ > 1 && !join_rest()) return {};
    return std::move(pairs_);
  }

 private:
  int add(Legs legs) {
    const int id = next_++;
    const auto u = static_cast<std::size_t>(id);
    size_[u] = net_.volume(legs);
    for (Leg g : legs) holders_[static_cast<std::size_t>(g.label)].push_back(id);
    legs_[u] = std::move(legs);
    alive_[u] = true;
    ++live_;
    return id;
  }

  int contract(int a, int b) {
    alive_[static_cast<std::size_t>(a)] = alive_[static_cast<std::size_t>(b)] = false;
    live_ -= 2;
    pairs_.emplace_back(a, b);
    return add(net_.merge(legs_[static_cast<std::size_t>(a)], legs_[static_cast<std::size_t>(b)],
                          nullptr));
  }

  double gumbel() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double x = u(rng_);
    while (x <= 0.0) x = u(rng_);
    return -std::log(-std::log(x));
  }

  void push(int a, int b) {
    double flops = 0;
    const Legs r =
        net_.merge(legs_[static_cast<std::size_t>(a)], legs_[static_cast<std::size_t>(b)], &flops);
    const double sr = net_.volume(r);
    const double sa = size_[static_cast<std::size_t>(a)], sb = size_[static_cast<std::size_t>(b)];
    if (limit_ > 0 && sr > limit_ && live_ > 2) return;
    double key = 0;
    switch (p_.key) {
      case GreedyParams::Key::size_change:
        key = sr - p_.costmod * (sa + sb);
        break;
      case GreedyParams::Key::log_ratio:
        key = std::log2(sr) - p_.costmod * std::log2(sa + sb);
        if (p_.temperature > 0) key -= p_.temperature * gumbel();
        break;
      case GreedyParams::Key::flops:
        key = flops;
        break;
    }
    queue_.push({key, std::min(a, b), std::max(a, b)});
  }

  // Pairs of `a` with every live tensor sharing one of its labels (each neighbour once).
  void push_neighbours(int a) {
    for (Leg g : legs_[static_cast<std::size_t>(a)]) {
      std::vector<int>& hs = holders_[static_cast<std::size_t>(g.label)];
      std::erase_if(hs, [&](int h) { return !alive_[static_cast<std::size_t>(h)]; });
      for (int h : hs) {
        if (h == a || stamp_[static_cast<std::size_t>(h)] == a) continue;
        // Pairs of two leaves are pushed once, by the smaller leaf.
        if (h < net_.n && a < net_.n && h < a) continue;
        stamp_[static_cast<std::size_t>(h)] = a;
        push(a, h);
      }
    }
  }

  // Disconnected parts: join the smallest two until one is left.
  bool join_rest() {
    std::vector<int> rest;
    for (int id = 0; id < next_; ++id)
      if (alive_[static_cast<std::size_t>(id)]) rest.push_back(id);
    auto by_size = [&](int x, int y) {
      const double sx = size_[static_cast<std::size_t>(x)], sy = size_[static_cast<std::size_t>(y)];
      return sx != sy ? sx > sy : x > y;  // a min-heap through std::push_heap's max order
    };
    std::make_heap(rest.begin(), rest.end(), by_size);
    while (rest.size() > 1) {
      std::pop_heap(rest.begin(), rest.end(), by_size);
      const int a = rest.back();
      rest.pop_back();
      std::pop_heap(rest.begin(), rest.end(), by_size);
      const int b = rest.back();
      rest.pop_back();
      const int r = contract(std::min(a, b), std::max(a, b));
      if (limit_ > 0 && live_ > 1 && size_[static_cast<std::size_t>(r)] > limit_) return false;
      rest.push_back(r);
      std::push_heap(rest.begin(), rest.end(), by_size);
    }
    return true;
  }

  const Net& net_;
  GreedyParams p_;
  double limit_;
  std::mt19937_64 rng_;
  std::vector<Legs> legs_;
  std::vector<double> size_;
  std::vector<bool> alive_;
  std::vector<int> stamp_;
  std::vector<std::vector<int>> holders_;
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue_;
  Pairs pairs_;
  int next_ = 0;
  int live_ = 0;
};

}  // namespace

Pairs greedy(const Net& net, const GreedyParams& params, double limit) {
  if (net.n < 2) return {};
  return Greedy(net, params, limit).run();
}

std::vector<Pairs> greedy_candidates(const Net& net, double limit) {
  std::vector<Pairs> out;
  if (net.n < 2) return {Pairs{}};
  for (auto key :
       {GreedyParams::Key::size_change, GreedyParams::Key::log_ratio, GreedyParams::Key::flops}) {
    GreedyParams gp;
    gp.key = key;
    gp.costmod = key == GreedyParams::Key::log_ratio ? 1.5 : 1.0;
    Pairs pairs = greedy(net, gp, limit);
    if (!pairs.empty()) out.push_back(std::move(pairs));
  }
  Pairs seq;
  for (int k = 1; k < net.n; ++k) seq.emplace_back(k == 1 ? 0 : net.n + k - 2, k);
  out.push_back(std::move(seq));  // checked against the limit by the caller
  return out;
}

int greedy_subtree(const Net& net, std::span<const int> subset, Tree& tree, int* next) {
  if (subset.size() == 1) return subset[0];
  // The subset as a network of its own: labels open to the rest count one extra carrier, as
  // output labels do.
  Net local;
  local.n = static_cast<int>(subset.size());
  local.size = net.size;
  local.total.assign(net.total.size(), 0);
  std::vector<Label> labels;
  for (int k : subset) {
    local.leaves.push_back(net.leaves[static_cast<std::size_t>(k)]);
    for (Leg g : local.leaves.back()) {
      if (local.total[static_cast<std::size_t>(g.label)]++ == 0) labels.push_back(g.label);
    }
  }
  for (Label l : labels) {
    const auto u = static_cast<std::size_t>(l);
    if (local.total[u] < net.total[u]) ++local.total[u];
  }
  const Pairs pairs = greedy(local, GreedyParams{}, 0);
  std::vector<int> id(subset.begin(), subset.end());
  for (auto [a, b] : pairs) {
    const int v = (*next)++;
    const auto u = static_cast<std::size_t>(v);
    tree.left[u] = id[static_cast<std::size_t>(a)];
    tree.right[u] = id[static_cast<std::size_t>(b)];
    tree.parent[static_cast<std::size_t>(tree.left[u])] = v;
    tree.parent[static_cast<std::size_t>(tree.right[u])] = v;
    tree.update(net, v);
    id.push_back(v);
  }
  return id.back();
}

}  // namespace tenferro::detail::einsum::search
