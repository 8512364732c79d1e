// Simulated annealing over contraction trees (TreeSA, Kalachev et al., arXiv:2108.05665).
//
// Note [Tree annealing]: a move rotates the tree at an internal node v = (A, B) with B = (C, D)
// into v = (C, (A, D)) or v = (D, (A, C)) (and the mirror moves when A is internal). v keeps its
// set of leaves, so only the new inner node's tensor and the flops of it and of v change: a move
// costs two leg merges. Two energies:
//  - global: log2(total flops) plus, under a size target, one unit per bit by which each
//    intermediate exceeds it;
//  - local (TreeSA's, AnnealParams::local): the change of log2 of the two steps' own flops, plus
//    the change of log2 of the moved result's size when either size exceeds the target. Every
//    subtree is judged at its own scale; under the global energy a move in a small subtree
//    changes the total by nothing and the small subtrees drift (measured on Sycamore: sliced at
//    2^30, 10^18.7 multiply-adds with the local energy, 10^21.6 with the global one).
// Moves are accepted by the Metropolis rule at inverse temperatures (per bit of energy) rising
// geometrically from beta0 to beta1; each temperature sweeps every internal node once in a seeded
// random order. Annealing explores where reconfiguration (a descent) stops; the caller keeps the
// result only when it is better.
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
      const double delta =
          p.local ? std::log2(f_b2 + f_v2) - std::log2(t.flops[bu] + t.flops[u]) +
                        (std::max(size_b2, t.size[bu]) > p.size_target && target > 0
                             ? std::log2(size_b2) - std::log2(t.size[bu])
                             : 0.0)
                  : std::log2(std::max(new_total, 1.0)) - std::log2(std::max(total, 1.0)) +
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

// Note [Sliced annealing]: TreeSA's slicing as a move. A tree that is good unsliced keeps labels
// open for a few steps each, so cutting its results down to a limit multiplies the flops by
// 2^(bits cut) (measured on Sycamore at 2^30: 10^18.3 multiply-adds become 10^29.9). Annealed on
// the *sliced* sizes, the tree instead reorganises around the cut labels, which cost nothing in a
// slice, until the results fit again. So at each temperature: cut (slice_fixed on the sliced
// sizes) while a result exceeds the limit, give back every cut the limit no longer needs, then
// sweep the tree once at that temperature with the limit as the size target.
void anneal_sliced(const Net& net, Tree& t, double limit, std::span<const Label> candidates,
                   const AnnealParams& p, Clock::time_point deadline,
                   std::vector<std::int64_t>& chunks) {
  if (chunks.size() != net.size.size()) chunks.assign(net.size.size(), 1);
  std::mt19937_64 rng(p.seed);
  // One slice's network; `t` stays scored on it (a sweep keeps its scores exact), so it is
  // rebuilt and `t` rescored only when the cuts change.
  Net s = sliced_net(net, chunks);
  t.rescore(s);
  auto recut = [&] {
    s = sliced_net(net, chunks);
    t.rescore(s);
  };
  // Cuts until every result fits (or no candidate helps).
  auto cut = [&] {
    std::vector<std::int64_t> more;
    slice_fixed(s, t, limit, candidates, more);
    if (std::all_of(more.begin(), more.end(), [](std::int64_t m) { return m == 1; })) return;
    for (std::size_t l = 0; l < chunks.size(); ++l) chunks[l] *= more[l];
    recut();
  };
  // Gives back the cut whose label's results would grow least (all its pieces) if every result
  // stays within the limit; false when there is none.
  auto give_back = [&] {
    std::vector<double> largest_with(net.size.size(), 0);
    for (std::size_t v = static_cast<std::size_t>(t.n_leaves()); v < t.left.size(); ++v)
      for (Leg g : t.legs[v]) {
        double& m = largest_with[static_cast<std::size_t>(g.label)];
        m = std::max(m, t.size[v]);
      }
    std::size_t best = chunks.size();
    for (std::size_t l = 0; l < chunks.size(); ++l)
      if (chunks[l] > 1 &&
          (best == chunks.size() || largest_with[l] * static_cast<double>(chunks[l]) <
                                        largest_with[best] * static_cast<double>(chunks[best])))
        best = l;
    if (best == chunks.size() || largest_with[best] * static_cast<double>(chunks[best]) > limit)
      return false;
    chunks[best] = 1;
    recut();
    return true;
  };
  for (int step = 0; step < p.temperatures && Clock::now() < deadline; ++step) {
    cut();
    give_back();
    AnnealParams one;
    one.size_target = limit;
    one.temperatures = 1;
    one.beta0 = one.beta1 =
        p.beta0 *
        std::pow(p.beta1 / p.beta0, static_cast<double>(step) / std::max(1, p.temperatures - 1));
    one.seed = rng();
    one.local = p.local;
    anneal(s, t, one, deadline);
  }
  cut();
  while (give_back()) {
  }
}

}  // namespace tenferro::detail::einsum::search
