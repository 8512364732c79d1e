// The search form of a network and of a contraction tree (Note [Legs with counts]).
#include <algorithm>

#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum::search {

Net::Net(const PathProblem& p) : n(static_cast<int>(p.operands.size())) {
  size.reserve(p.size.size());
  for (std::int64_t s : p.size) size.push_back(static_cast<double>(s));
  total.assign(p.size.size(), 0);
  for (const LabelList& ls : p.operands) {
    Legs legs;
    for (Label l : ls) legs.push_back({l, 1});
    std::sort(legs.begin(), legs.end(), [](Leg a, Leg b) { return a.label < b.label; });
    for (Leg g : legs) ++total[static_cast<std::size_t>(g.label)];
    leaves.push_back(std::move(legs));
  }
  for (Label l : p.output) ++total[static_cast<std::size_t>(l)];
}

Legs Net::merge(const Legs& a, const Legs& b, double* flops) const {
  Legs r;
  double all = 1;
  bool summed = false;
  std::size_t i = 0, j = 0;
  auto emit = [&](Label l, std::int32_t c) {
    all *= size[static_cast<std::size_t>(l)];
    if (c < total[static_cast<std::size_t>(l)])
      r.push_back({l, c});
    else
      summed = true;
  };
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].label < b[j].label)) {
      emit(a[i].label, a[i].count);
      ++i;
    } else if (i == a.size() || b[j].label < a[i].label) {
      emit(b[j].label, b[j].count);
      ++j;
    } else {
      emit(a[i].label, a[i].count + b[j].count);
      ++i;
      ++j;
    }
  }
  if (flops) *flops = summed ? 2 * all : all;
  return r;
}

double Net::volume(const Legs& legs) const {
  double v = 1;
  for (Leg g : legs) v *= size[static_cast<std::size_t>(g.label)];
  return v;
}

double Objective::value(const Score& s) const {
  switch (kind) {
    case PathObjective::size:
      // The largest intermediate dominates; flops break ties (1e-30 keeps them below any change
      // of the size by a factor of 2 for every network whose flops fit a double).
      return s.largest + 1e-30 * s.flops;
    case PathObjective::combo:
      return s.flops + combo_factor * s.write;
    case PathObjective::flops:
      break;
  }
  return s.flops;
}

bool Objective::better(const Score& a, const Score& b) const {
  const double va = value(a), vb = value(b);
  if (va != vb) return va < vb;
  return a.largest < b.largest;
}

void Tree::update(const Net& net, int v) {
  const auto u = static_cast<std::size_t>(v);
  legs[u] = net.merge(legs[static_cast<std::size_t>(left[u])],
                      legs[static_cast<std::size_t>(right[u])], &flops[u]);
  size[u] = net.volume(legs[u]);
}

void Tree::rescore(const Net& net) {
  // Post-order without SSA ids: children are updated before their parent.
  std::vector<std::pair<int, bool>> stack{{root_id, false}};
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    stack.pop_back();
    if (is_leaf(v)) continue;
    if (expanded) {
      update(net, v);
      continue;
    }
    stack.push_back({v, true});
    stack.push_back({right[static_cast<std::size_t>(v)], false});
    stack.push_back({left[static_cast<std::size_t>(v)], false});
  }
  for (int k = 0; k < n_leaves(); ++k)
    size[static_cast<std::size_t>(k)] = net.volume(legs[static_cast<std::size_t>(k)]);
}

Score Tree::score() const {
  Score s;
  for (std::size_t v = static_cast<std::size_t>(n_leaves()); v < left.size(); ++v) {
    s.flops += flops[v];
    s.write += size[v];
    s.largest = std::max(s.largest, size[v]);
  }
  return s;
}

Tree leaves_only(const Net& net) {
  const auto nodes = static_cast<std::size_t>(std::max(2 * net.n - 1, 0));
  Tree t;
  t.left.assign(nodes, -1);
  t.right.assign(nodes, -1);
  t.parent.assign(nodes, -1);
  t.legs.resize(nodes);
  t.flops.assign(nodes, 0);
  t.size.assign(nodes, 0);
  for (int k = 0; k < net.n; ++k) {
    t.legs[static_cast<std::size_t>(k)] = net.leaves[static_cast<std::size_t>(k)];
    t.size[static_cast<std::size_t>(k)] = net.volume(net.leaves[static_cast<std::size_t>(k)]);
  }
  return t;
}

Tree tree_from_pairs(const Net& net, std::span<const std::pair<int, int>> pairs) {
  Tree t = leaves_only(net);
  int v = net.n;
  for (auto [a, b] : pairs) {
    const auto u = static_cast<std::size_t>(v);
    t.left[u] = a;
    t.right[u] = b;
    t.parent[static_cast<std::size_t>(a)] = v;
    t.parent[static_cast<std::size_t>(b)] = v;
    t.update(net, v);
    ++v;
  }
  t.root_id = v - 1;
  return t;
}

Pairs pairs_from_tree(const Tree& t) {
  const int n = t.n_leaves();
  Pairs pairs;
  if (n < 2) return pairs;
  std::vector<int> ssa(t.left.size(), -1);
  for (int k = 0; k < n; ++k) ssa[static_cast<std::size_t>(k)] = k;
  // Iterative post-order (trees of thousands of leaves may be deep chains).
  std::vector<std::pair<int, bool>> stack{{t.root(), false}};
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    stack.pop_back();
    if (t.is_leaf(v)) continue;
    const auto u = static_cast<std::size_t>(v);
    if (!expanded) {
      stack.push_back({v, true});
      stack.push_back({t.right[u], false});
      stack.push_back({t.left[u], false});
      continue;
    }
    pairs.emplace_back(ssa[static_cast<std::size_t>(t.left[u])],
                       ssa[static_cast<std::size_t>(t.right[u])]);
    ssa[u] = n + static_cast<int>(pairs.size()) - 1;
  }
  return pairs;
}

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t k) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (k + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace tenferro::detail::einsum::search
