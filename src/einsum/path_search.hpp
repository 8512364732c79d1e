// The path searches for large networks: greedy in O(E log E), randomised greedy, subtree
// reconfiguration, recursive bisection (METIS) and the hyper-optimising driver over them.
//
// Note [Legs with counts]: a tensor of the search (an operand, or the result of contracting a set
// of operands) is its list of open legs, sorted by label, each with the number of operands of the
// set that carry the label. `total[l]` counts every operand that carries l, plus one when the
// output does; a label is closed (summed away) once a set holds all its carriers, so
// merge(a, b) adds counts and drops the labels that reach total. This is exact for hyperedges
// (a label on three or more operands) and output labels, and it is what Note [Einsum cost model]
// means by "still needed by another remaining operand or by the output": a merge's legs depend
// only on the set of operands, never on the order that built it.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "einsum/path.hpp"

namespace tenferro::detail::einsum::search {

struct Leg {
  Label label;
  std::int32_t count;
};
using Legs = SmallVector<Leg, 8>;
using Pairs = std::vector<std::pair<int, int>>;

/// The network in search form (Note [Legs with counts]).
struct Net {
  int n = 0;
  std::vector<Legs> leaves;
  std::vector<double> size;
  std::vector<std::int32_t> total;

  Net() = default;
  explicit Net(const PathProblem& p);
  /// Legs of the union of two disjoint sets; *flops gets the step's cost (Note [Einsum cost
  /// model]).
  Legs merge(const Legs& a, const Legs& b, double* flops) const;
  double volume(const Legs& legs) const;
};

/// A path's cost (Note [Einsum cost model]): flops, largest step result, sum of step results.
struct Score {
  double flops = 0, largest = 0, write = 0;
};

/// How paths compare: the objective, and the memory limit (0: none) on every step result but
/// the last.
struct Objective {
  PathObjective kind = PathObjective::flops;
  double combo_factor = 64;
  double limit = 0;
  /// A single number to minimise (size: the largest intermediate dominates, flops break ties).
  double value(const Score& s) const;
  bool better(const Score& a, const Score& b) const;
  /// The cost one step adds under this objective (size: its flops; the size part is judged
  /// through `limit` by the searches).
  double step(double flops, double size) const {
    return kind == PathObjective::combo ? flops + combo_factor * size : flops;
  }
};

/// A binary contraction tree: leaves 0..n-1, internal nodes n..2n-2 (any order), root().
struct Tree {
  std::vector<int> left, right, parent;
  std::vector<Legs> legs;
  std::vector<double> flops, size;
  int root_id = -1;

  int n_leaves() const { return static_cast<int>(left.size() + 1) / 2; }
  int root() const { return root_id; }
  bool is_leaf(int v) const { return v < n_leaves(); }
  /// Recomputes legs, flops and size of internal node v from its children.
  void update(const Net& net, int v);
  /// Recomputes every internal node, children first (after the label sizes changed).
  void rescore(const Net& net);
  Score score() const;
};

/// The leaves of a tree (internal nodes unset, root -1), to be built by a search.
Tree leaves_only(const Net& net);
/// A tree from SSA pairs (ids as in EinsumStep); pairs from a tree, children before parents.
Tree tree_from_pairs(const Net& net, std::span<const std::pair<int, int>> pairs);
Pairs pairs_from_tree(const Tree& t);

/// Parameters of one greedy run (Note [Greedy queue]).
struct GreedyParams {
  enum class Key : std::uint8_t { size_change, log_ratio, flops } key = Key::size_change;
  /// Weight of the operands' sizes in the key (1: the size a contraction removes).
  double costmod = 1;
  /// Gumbel noise scale on the log_ratio key (0: deterministic).
  double temperature = 0;
  std::uint64_t seed = 0;
};

/// Greedy pairs, or empty when the memory limit cannot be met.
Pairs greedy(const Net& net, const GreedyParams& params, double limit);
/// The greedy strategy's candidates: the queue keyed by size change and by flops, and left to
/// right (infeasible ones under `limit` left out).
std::vector<Pairs> greedy_candidates(const Net& net, double limit);
/// Greedy over only the operands in `subset` (output legs: those open to the rest of the network).
/// Returns the root of the subtree built into `tree` from node slots starting at *next.
int greedy_subtree(const Net& net, std::span<const int> subset, Tree& tree, int* next);

using Clock = std::chrono::steady_clock;

/// Subtree reconfiguration (Note [Subtree reconfiguration]): sweeps the tree, re-contracting
/// every subtree of up to `leaves` subtrees optimally, until a sweep gains nothing or `deadline`.
void reconfigure(const Net& net, Tree& tree, int leaves, const Objective& obj,
                 Clock::time_point deadline);

/// Simulated annealing over tree rotations (Note [Tree annealing]).
struct AnnealParams {
  /// Elements no intermediate should exceed (0: none); a penalty, not a constraint.
  double size_target = 0;
  int temperatures = 100;
  /// Inverse temperatures (per bit of energy) of the first and last sweep.
  double beta0 = 4, beta1 = 60;
  std::uint64_t seed = 0;
  /// Energy of a move (Note [Tree annealing]): local (TreeSA's) or global.
  bool local = false;
};
void anneal(const Net& net, Tree& tree, const AnnealParams& params, Clock::time_point deadline);

/// TreeSA with slicing as a move (Note [Sliced annealing]): anneals `t` on the sizes sliced by
/// `chunks` (in: a starting slicing or empty; out: the final one), cutting and giving back
/// `candidates` to keep every result within `limit`; `t` is left scored on the sliced sizes
/// (over the limit only when no candidate could bring it within).
void anneal_sliced(const Net& net, Tree& t, double limit, std::span<const Label> candidates,
                   const AnnealParams& params, Clock::time_point deadline,
                   std::vector<std::int64_t>& chunks);

/// A tree by recursive bisection of the network (Note [Partitioned trees]); empty tree when the
/// partitioner is unavailable.
struct PartitionParams {
  double imbalance = 0.1;
  int cutoff = 10;
  std::uint64_t seed = 0;
};
bool partition_tree(const Net& net, const PartitionParams& params, Tree& out);

/// random_greedy and hyper (Note [Hyper search]).
RawPath hyper_search(const PathProblem& p, const EinsumOptions& options, EinsumStrategy strategy);
/// automatic's refinement for large networks: greedy, then one reconfiguration sweep.
Pairs refine_pairs(const PathProblem& p, const Pairs& pairs, const Objective& obj, int leaves);

/// How slice_and_reconfigure picks a cut and re-optimises (Note [Sliced search]).
struct SliceRule {
  enum class Pick : std::uint8_t {
    /// The fewest total flops after the cut.
    fewest_flops,
    /// The fewest bits of flops added per bit of excess size removed.
    excess_per_flop,
  } pick = Pick::fewest_flops;
  /// Whether reconfiguration may only build intermediates within the limit.
  bool cap = false;
};

/// Note [Sliced search]: slices `tree` until every step result, the root included, fits `limit`,
/// re-optimising the tree for the sliced sizes after every cut (subtree reconfiguration over
/// `leaves` leaves). Sets the chunk count of every label (1: not cut); `tree` is left optimised
/// for the sliced sizes. Only `candidates` are cut, each to the next divisor of its size; false
/// when no candidate helps any more.
bool slice_and_reconfigure(const Net& net, Tree& tree, std::span<const Label> candidates,
                           double limit, int leaves, const SliceRule& rule,
                           Clock::time_point deadline, std::vector<std::int64_t>& chunks);

/// Note [Sliced trial cost]: slices the fixed tree `t` until every step result fits `limit`,
/// cutting only `candidates`; returns the total flops of all slices (infinity when no candidate
/// helps any more), sets the chunk count per label and, if given, the sliced score (flops and
/// write over all slices, largest of one slice).
double slice_fixed(const Net& net, const Tree& t, double limit, std::span<const Label> candidates,
                   std::vector<std::int64_t>& chunks, Score* score = nullptr);
/// The network with every label's size divided by its chunk count (one slice's sizes).
Net sliced_net(const Net& net, std::span<const std::int64_t> chunks);

/// hyper and random_greedy judging every tree by its sliced cost (Note [Sliced trial cost]).
struct SlicedTree {
  Pairs pairs;
  std::vector<std::int64_t> chunks;
  int trials = 0;
};
SlicedTree hyper_search_sliced(const PathProblem& p, const EinsumOptions& options,
                               EinsumStrategy strategy, double limit,
                               std::span<const Label> candidates);

/// splitmix64: the seed of trial k.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t k);

}  // namespace tenferro::detail::einsum::search
