// Contraction trees by recursive bisection of the network graph (METIS).
//
// Note [Partitioned trees]: a contraction tree is a hierarchy of cuts. Splitting the operands in
// two with a small cut (few, small labels between the halves) and recursing gives a tree whose
// top contractions are cheap, which greedy cannot see from below: on circuit and lattice networks
// this is where greedy loses orders of magnitude (Gray & Kourtis, Quantum 5, 410 (2021)). The
// graph has one vertex per operand and, for every label, edges between the operands that carry it
// (a clique for a hyperedge) weighted by log2 of its size, so the cut weight is the log2 size of
// the tensor that crosses it. METIS_PartGraphRecursive bisects with the sampled imbalance and
// seed; parts of at most `cutoff` operands are contracted greedily. A subset METIS cannot split
// (no edges, or one side empty) is halved in operand order. The tree is then refined by subtree
// reconfiguration (Note [Hyper search]).
#include <metis.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum::search {
namespace {

class Bisection {
 public:
  Bisection(const Net& net, const PartitionParams& p, Tree& t)
      : net_(net), p_(p), t_(t), holders_(net.size.size()) {}

  int split(std::vector<int> subset, int depth) {
    if (static_cast<int>(subset.size()) <= std::max(p_.cutoff, 2))
      return greedy_subtree(net_, subset, t_, &next_);
    std::vector<idx_t> part(subset.size(), 0);
    if (!metis(subset, depth, part))
      for (std::size_t i = 0; i < subset.size(); ++i) part[i] = i < subset.size() / 2 ? 0 : 1;
    std::vector<int> a, b;
    for (std::size_t i = 0; i < subset.size(); ++i) (part[i] ? b : a).push_back(subset[i]);
    if (a.empty() || b.empty()) {
      a.assign(subset.begin(), subset.begin() + static_cast<std::ptrdiff_t>(subset.size() / 2));
      b.assign(subset.begin() + static_cast<std::ptrdiff_t>(subset.size() / 2), subset.end());
    }
    const int x = split(std::move(a), depth + 1);
    const int y = split(std::move(b), depth + 1);
    const int v = next_++;
    const auto u = static_cast<std::size_t>(v);
    t_.left[u] = x;
    t_.right[u] = y;
    t_.parent[static_cast<std::size_t>(x)] = v;
    t_.parent[static_cast<std::size_t>(y)] = v;
    t_.update(net_, v);
    return v;
  }

  int next_ = 0;

 private:
  bool metis(const std::vector<int>& subset, int depth, std::vector<idx_t>& part) {
    const std::size_t m = subset.size();
    std::vector<Label> touched;
    for (std::size_t i = 0; i < m; ++i)
      for (Leg g : net_.leaves[static_cast<std::size_t>(subset[i])]) {
        std::vector<int>& hs = holders_[static_cast<std::size_t>(g.label)];
        if (hs.empty()) touched.push_back(g.label);
        hs.push_back(static_cast<int>(i));
      }
    std::vector<std::vector<std::pair<idx_t, idx_t>>> adj(m);
    for (Label l : touched) {
      std::vector<int>& hs = holders_[static_cast<std::size_t>(l)];
      const double s = net_.size[static_cast<std::size_t>(l)];
      const auto w = static_cast<idx_t>(std::max(1.0, std::round(std::log2(std::max(s, 2.0)))));
      if (s > 1)
        for (std::size_t x = 0; x < hs.size(); ++x)
          for (std::size_t y = x + 1; y < hs.size(); ++y) {
            adj[static_cast<std::size_t>(hs[x])].push_back({hs[y], w});
            adj[static_cast<std::size_t>(hs[y])].push_back({hs[x], w});
          }
      hs.clear();
    }
    std::vector<idx_t> xadj{0}, adjncy, adjwgt;
    for (auto& nb : adj) {
      std::sort(nb.begin(), nb.end());
      for (std::size_t k = 0; k < nb.size(); ++k) {
        if (k > 0 && nb[k].first == nb[k - 1].first) {
          adjwgt.back() += nb[k].second;
          continue;
        }
        adjncy.push_back(nb[k].first);
        adjwgt.push_back(nb[k].second);
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    if (adjncy.empty()) return false;
    idx_t nv = static_cast<idx_t>(m), ncon = 1, nparts = 2, cut = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] =
        static_cast<idx_t>(mix_seed(p_.seed, static_cast<std::uint64_t>(depth)) & 0x3fffffff);
    options[METIS_OPTION_UFACTOR] = static_cast<idx_t>(std::clamp(p_.imbalance, 0.001, 0.9) * 1000);
    options[METIS_OPTION_NUMBERING] = 0;
    const int rc = METIS_PartGraphRecursive(&nv, &ncon, xadj.data(), adjncy.data(), nullptr,
                                            nullptr, adjwgt.data(), &nparts, nullptr, nullptr,
                                            options, &cut, part.data());
    return rc == METIS_OK;
  }

  const Net& net_;
  PartitionParams p_;
  Tree& t_;
  std::vector<std::vector<int>> holders_;
};

}  // namespace

bool partition_tree(const Net& net, const PartitionParams& params, Tree& out) {
  if (net.n < 3) return false;
  out = leaves_only(net);
  std::vector<int> all(static_cast<std::size_t>(net.n));
  std::iota(all.begin(), all.end(), 0);
  Bisection b(net, params, out);
  b.next_ = net.n;
  out.root_id = b.split(std::move(all), 0);
  return true;
}

}  // namespace tenferro::detail::einsum::search
