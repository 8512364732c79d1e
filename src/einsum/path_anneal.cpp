// Simulated annealing over contraction trees (TreeSA, Kalachev et al., arXiv:2108.05665).
//
// Note [Tree annealing]: a move rotates the tree at an internal node v = (A, B) with B = (C, D)
// into v = (C, (A, D)) or v = (D, (A, C)) (and the mirror moves when A is internal). v keeps its
// set of leaves, so only the new inner node's tensor and the flops of it and of v change: a move
// costs two leg merges. The energy is log2(total flops) plus, under a size target, one unit per
// bit by which each intermediate exceeds it (so cuts that reduce the largest results pay, as
// TreeSA's size penalty). Moves are accepted by the Metropolis rule at inverse temperatures
// rising geometrically from 0.1 to 20 per unit of energy; each temperature sweeps every internal
// node once in a seeded random order. Annealing explores where reconfiguration (a descent)
// stops; the caller keeps the result only when it is better.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum::search {
namespace {

double excess_bits(double size, double target_bits) {
  if (target_bits <= 0) return 0;
  return std::max(0.0, std::log2(size) - target_bits);
}

}  // namespace

void anneal(const Net& net, Tree& t, const AnnealParams& p, Clock::time_point deadline) {
  const int n = t.n_leaves();
  if (n < 3) return;
  std::mt19937_64 rng(p.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double target = p.size_target > 0 ? std::log2(p.size_target) : 0;
  double total = t.score().flops;
  std::vector<int> order;
  for (int v = n; v < static_cast<int>(t.left.size()); ++v) order.push_back(v);
  const double beta0 = p.beta0, beta1 = p.beta1;
  for (int step = 0; step < p.temperatures; ++step) {
    if (Clock::now() > deadline) return;
    const double beta = beta0 * std::pow(beta1 / beta0, static_cast<double>(step) /
                                                            std::max(1, p.temperatures - 1));
    std::shuffle(order.begin(), order.end(), rng);
    for (int v : order) {
      const auto u = static_cast<std::size_t>(v);
      // Pick the internal child B and which grandchild moves up.
      const bool right_inner = !t.is_leaf(t.right[u]);
      const bool left_inner = !t.is_leaf(t.left[u]);
      if (!right_inner && !left_inner) continue;
      const bool use_right = right_inner && (!left_inner || unit(rng) < 0.5);
      const int b = use_right ? t.right[u] : t.left[u];
      const int a = use_right ? t.left[u] : t.right[u];
      const auto bu = static_cast<std::size_t>(b);
      const bool up_first = unit(rng) < 0.5;
      const int c = up_first ? t.left[bu] : t.right[bu];  // moves up to v
      const int d = up_first ? t.right[bu] : t.left[bu];  // stays, joined with a
      double f_b2 = 0, f_v2 = 0;
      const Legs legs_b2 = net.merge(t.legs[static_cast<std::size_t>(a)],
                                     t.legs[static_cast<std::size_t>(d)], &f_b2);
      const double size_b2 = net.volume(legs_b2);
      net.merge(t.legs[static_cast<std::size_t>(c)], legs_b2, &f_v2);
      const double new_total = total - t.flops[bu] - t.flops[u] + f_b2 + f_v2;
      const double delta = std::log2(std::max(new_total, 1.0)) - std::log2(std::max(total, 1.0)) +
                           excess_bits(size_b2, target) - excess_bits(t.size[bu], target);
      if (delta > 0 && unit(rng) >= std::exp(-beta * delta)) continue;
      // Apply: v = (c, b'), b' = (a, d), reusing b's slot for b'.
      t.left[bu] = a;
      t.right[bu] = d;
      t.parent[static_cast<std::size_t>(a)] = b;
      t.parent[static_cast<std::size_t>(d)] = b;
      t.legs[bu] = legs_b2;
      t.flops[bu] = f_b2;
      t.size[bu] = size_b2;
      t.left[u] = c;
      t.right[u] = b;
      t.parent[static_cast<std::size_t>(c)] = v;
      t.flops[u] = f_v2;
      total = new_total;
    }
  }
}

}  // namespace tenferro::detail::einsum::search
