// Einstein summation with contraction-path optimization and prepared plans.
//
//   using namespace tenferro;
//   Tensor c = einsum("ij,jk->ik", a, b);              // matmul
//   Tensor t = einsum("ii", m);                        // trace (implicit output: scalar)
//   Tensor d = einsum("...ij,...jk->...ik", x, y);     // batched, broadcast over '...'
//   Tensor e = einsum({a, b}, {{0, 1}, {1, 2}}, {0, 2});  // integer labels (no alphabet limit)
//
//   EinsumPath p = einsum_path("ab,bc,cd->ad", {{2, 64}, {64, 64}, {64, 2}});
//   std::cout << p.to_string();                       // steps, flops, largest intermediate
//
//   EinsumPlan plan = prepare_einsum("abc,bd,cde->ade", shapes, {DType::f64});
//   Tensor r = plan({x, y, z});                        // parse/path/lowering done once
//
// Grammar (NumPy): terms of letters a-zA-Z separated by ',', optionally "->" and the output
// term; spaces are ignored. A label repeated within one term takes a diagonal (the sizes must
// agree); a label that is absent from the output is summed over. Without "->" the output is the
// '...' dimensions followed by the labels that appear exactly once, in ASCII order (uppercase
// before lowercase, as NumPy). "..." stands for the leading (broadcast) dimensions of an operand:
// they are right-aligned across operands and a size-1 dimension broadcasts; '...' dimensions
// absent from an explicit output are summed (as PyTorch does).
//
// Semantics: every pairwise contraction lowers to the catalog's dot_general, with permute /
// reshape / diag views and sum for labels that only one operand carries, so autodiff (reverse
// and forward) and tracing need nothing einsum-specific: on traced tensors einsum records
// dot_generals. Operands may have any dtypes (the result has their promoted dtype) and any
// strides. A single-operand expression that only permutes or takes diagonals may return a view of
// its operand (as NumPy's einsum does); otherwise the result is a fresh buffer, possibly seen
// through a final permute (so not necessarily contiguous; call contiguous() when that matters).
//
// Errors (tenferro::Error, nothing is computed): InvalidArgument for malformed subscripts, an
// operand count that does not match the terms, a rank that does not match a term, an output
// label repeated or absent from the inputs, negative integer labels, a shape with a negative
// dimension or more than INT64_MAX elements, invalid EinsumOptions; ShapeMismatch for a label
// whose sizes disagree. A result or intermediate too large to allocate is OutOfMemory (from the
// dot_general or sum that would produce it). Messages name the position in the spec string (or the
// operand/entry of the integer form). See docs/einsum.md.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// How einsum orders the pairwise contractions of more than two operands. Every strategy's path
/// is a valid contraction tree. By EinsumOptions::objective, random_greedy, hyper and automatic
/// (above optimal_limit) are never worse than greedy, and greedy never worse than sequential;
/// optimal is exact for flops whatever the objective. docs/einsum.md, "Contraction paths", has
/// measured figures on standard networks.
enum class EinsumStrategy {
  /// By network size, cheap for small einsums: optimal for at most EinsumOptions::optimal_limit
  /// operands; above that greedy refined by one subtree-reconfiguration sweep over subtrees of 6
  /// leaves (milliseconds for a thousand tensors; no threads, no randomness).
  automatic,
  /// Exact minimum of the estimated flops (dynamic programming over subsets of operands);
  /// at most 16 operands (InvalidArgument beyond).
  optimal,
  /// Deterministic greedy in O(E log E) (E: the pairs of operands that share a label): a priority
  /// queue of connected pairs, updated locally after each contraction; hyperedges and output
  /// labels handled; disconnected parts joined last, smallest first. The cheapest (by the
  /// objective) of four paths: the queue keyed by size change |R| - |A| - |B| (opt_einsum's
  /// greedy), by log2|R| - 1.5 log2(|A| + |B|) (cotengra's greedy key), by flops, and left to
  /// right.
  greedy,
  /// Left to right: ((op0 op1) op2) ...
  sequential,
  /// The pairs in EinsumOptions::path, as given. Reported by EinsumPath::strategy when a path was
  /// given; asking for it with an empty EinsumOptions::path is InvalidArgument.
  given,
  /// Randomised greedy: `trials` runs of the greedy queue, each with its own Boltzmann (Gumbel)
  /// noise on the keys and its own sampled temperature and size weight, spread over `threads`;
  /// the best by the objective is kept (ties: the lower trial number), so a seed gives the same
  /// path at every thread count. Stops early at time_budget (then the path depends on timing).
  random_greedy,
  /// Hyper-optimised search: random_greedy trials and recursive bisections of the network graph
  /// (METIS) with sampled parameters, each refined by subtree reconfiguration; then the best
  /// refined further with larger subtrees and tree annealing, until time_budget (or trials and
  /// the refinement) run out.
  hyper,
};

/// What a path search minimises. Flops and sizes follow Note [Einsum cost model] (EinsumStep).
/// Flops under a memory target is slice_plan's search (tenferro/slicing.hpp): it minimises the
/// flops of all slices together while every slice's intermediates fit SliceOptions::memory_limit.
enum class PathObjective {
  /// Total flops; ties broken by the largest intermediate.
  flops,
  /// Largest intermediate first, then total flops.
  size,
  /// flops + combo_factor * total write (sum of the step results' elements): memory traffic
  /// counted alongside arithmetic, as cotengra's "combo" (whose flops count 1 per multiply-add,
  /// ours 2: our combo_factor f weighs writes as cotengra's f / 2 does).
  combo,
};

/// "automatic", "optimal", "greedy", "sequential", "given", "random_greedy", "hyper" ("?" outside
/// the enumerators); "flops", "size", "combo".
std::string_view to_string(EinsumStrategy s) noexcept;
std::string_view to_string(PathObjective o) noexcept;

/// Settings of path search (einsum, einsum_path, prepare_einsum, and SliceOptions::einsum).
struct EinsumOptions {
  EinsumStrategy strategy = EinsumStrategy::automatic;
  /// automatic uses optimal search up to this many operands (>= 0, else InvalidArgument).
  int optimal_limit = 8;
  /// When > 0: no intermediate (every step result but the final one) may have more elements.
  /// A path search that cannot meet it throws InvalidArgument (to fit a contraction into a
  /// memory target by slicing instead, use slice_plan). 0 (or +infinity) means no
  /// limit; a negative or NaN value is InvalidArgument. A strategy outside the enumerators is
  /// InvalidArgument too.
  double memory_limit = 0;
  /// An explicit contraction order, used instead of any search when not empty (the strategy is
  /// then ignored): pairs of operand ids as in EinsumStep (inputs 0..n-1, step k's result n+k),
  /// e.g. {{1, 2}, {0, 3}} for "ab,bc,cd" contracts operands 1 and 2 first. It must name n-1 pairs
  /// that use every id exactly once and only ids that exist at that step (InvalidArgument
  /// otherwise, naming the pair); memory_limit still applies. NumPy's einsum(optimize=path) and
  /// opt_einsum's paths are this form (a pair's ids are then the positions in their shrinking
  /// operand list, not SSA ids: convert them). slice_plan (tenferro/slicing.hpp) uses it to keep
  /// one path for all slices.
  std::vector<std::pair<int, int>> path;
  /// What the search minimises (random_greedy, hyper, the refinement of automatic and the choice
  /// among greedy's candidates; optimal always minimises flops). Outside the enumerators:
  /// InvalidArgument.
  PathObjective objective = PathObjective::flops;
  /// Weight of the total write in PathObjective::combo (>= 0, finite, else InvalidArgument).
  double combo_factor = 64;
  /// Wall-clock seconds random_greedy and hyper may search (>= 0, finite, else InvalidArgument);
  /// 0: their defaults, 1 s for random_greedy and 10 s for hyper. The search checks the clock
  /// between trials and refinement steps and stops itself; the path is then the best so far.
  double time_budget = 0;
  /// Trials of random_greedy and hyper (>= 0, else InvalidArgument); 0: their defaults, 128 for
  /// random_greedy and unlimited (until time_budget) for hyper.
  int trials = 0;
  /// Seed of random_greedy and hyper: equal seeds and trials give equal paths at every thread
  /// count (when the search finishes within time_budget).
  std::uint64_t seed = 0;
  /// Threads random_greedy and hyper spread trials over (>= 0, else InvalidArgument); 0: the
  /// current backend's thread count. 1 searches on the calling thread only.
  int threads = 0;
};
/// One pairwise contraction of a path.
struct EinsumStep {
  /// Operand ids: 0..n-1 are the inputs (after single-operand reductions), n+k is step k's result.
  int lhs = 0, rhs = 0;
  /// The contraction in einsum notation, e.g. "ab,bc->ac" (labels of the result in the order the
  /// lowering produces them: shared kept labels, then lhs's, then rhs's).
  std::string subscripts;
  /// Shape of the step's result.
  Dims shape;
  /// Estimated flops: 2 per multiply-add when a label is summed, 1 per product otherwise.
  double flops = 0;
};

/// A contraction path and its cost estimate. Printable with to_string(): a summary (strategy,
/// objective, log10 flops, log2 largest intermediate, write, search time) and one line per step.
struct EinsumPath {
  /// The spec with its output made explicit, e.g. "ij,jk->ik".
  std::string subscripts;
  /// The strategy that produced the path (automatic resolved to optimal or greedy; `given` for
  /// EinsumOptions::path).
  EinsumStrategy strategy = EinsumStrategy::automatic;
  /// The objective the search minimised (flops for optimal, sequential and given paths).
  PathObjective objective = PathObjective::flops;
  std::vector<EinsumStep> steps;
  /// Sum of the steps' flops (2 per multiply-add where a label is summed: half of it is the
  /// multiply-add count that cotengra and opt_einsum report as their cost).
  double flops = 0;
  /// Flops of one loop nest over all labels (for comparison).
  double naive_flops = 0;
  /// Elements of the largest step result.
  double largest_intermediate = 0;
  /// Sum of the step results' elements (memory written).
  double total_write = 0;
  /// Wall-clock seconds the search took, and the trials it ran (random_greedy, hyper; else 1).
  double search_seconds = 0;
  int trials = 1;
  /// A multi-line summary and step table (see above).
  std::string to_string() const;
};
/// Labels of one operand (or of the output) in the integer-label form; any values >= 0.
using EinsumLabels = std::vector<std::int64_t>;

/// The path einsum would use for operands of these shapes. Throws as einsum does.
EinsumPath einsum_path(std::string_view spec, const std::vector<Dims>& shapes,
                       const EinsumOptions& options = {});
/// Integer-label form of einsum_path (explicit output).
EinsumPath einsum_path(const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                       const std::vector<Dims>& shapes, const EinsumOptions& options = {});

/// Einstein summation over `operands` (see the file comment for the grammar and semantics).
Tensor einsum(std::string_view spec, std::span<const Tensor> operands,
              const EinsumOptions& options = {});
inline Tensor einsum(std::string_view spec, std::initializer_list<Tensor> operands,
                     const EinsumOptions& options = {}) {
  return einsum(spec, std::span<const Tensor>(operands.begin(), operands.size()), options);
}
/// einsum(spec, a, b, c) for any number of operands.
template <class... Ts>
requires(sizeof...(Ts) >= 1 && (std::is_same_v<std::remove_cvref_t<Ts>, Tensor> && ...)) Tensor
    einsum(std::string_view spec, const Ts&... operands) {
  const Tensor list[] = {operands...};
  return einsum(spec, std::span<const Tensor>(list, sizeof...(Ts)), EinsumOptions{});
}

/// Integer-label form: operand k's axes carry labels[k]; the output has `output`'s labels.
Tensor einsum(std::span<const Tensor> operands, const std::vector<EinsumLabels>& labels,
              const EinsumLabels& output, const EinsumOptions& options = {});
inline Tensor einsum(std::initializer_list<Tensor> operands,
                     const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                     const EinsumOptions& options = {}) {
  return einsum(std::span<const Tensor>(operands.begin(), operands.size()), labels, output,
                options);
}
/// Integer-label form with implicit output: the labels that appear exactly once, increasing.
Tensor einsum(std::span<const Tensor> operands, const std::vector<EinsumLabels>& labels);
inline Tensor einsum(std::initializer_list<Tensor> operands,
                     const std::vector<EinsumLabels>& labels) {
  return einsum(std::span<const Tensor>(operands.begin(), operands.size()), labels);
}

namespace detail {
struct EinsumProgram;
struct EinsumPlanAccess;
}  // namespace detail

/// A prepared einsum for fixed operand shapes and dtypes: the parsed spec, the path and the
/// lowering (the list of views, sums and dot_generals) are computed once by prepare_einsum.
/// Cheap to copy (shared, immutable); calling it from several threads at once is safe.
class EinsumPlan {
 public:
  EinsumPlan() = default;
  /// Runs the plan. Operands must have exactly the prepared shapes (ShapeMismatch) and dtypes
  /// (DTypeMismatch) and their count must match (InvalidArgument); any strides. Works on concrete
  /// tensors, on tensors that require grad (recorded) and on traced tensors (captured).
  Tensor operator()(std::span<const Tensor> operands) const;
  Tensor operator()(std::initializer_list<Tensor> operands) const {
    return (*this)(std::span<const Tensor>(operands.begin(), operands.size()));
  }
  bool valid() const noexcept { return static_cast<bool>(program_); }
  const EinsumPath& path() const;
  const Dims& output_shape() const;
  DType output_dtype() const;

 private:
  friend struct detail::EinsumPlanAccess;
  std::shared_ptr<const detail::EinsumProgram> program_;
};

/// Prepares `spec` for operands of these shapes and dtypes (`dtypes` has one entry per operand,
/// or a single entry used for all). Throws as einsum does; InvalidArgument for a dtype count that
/// is neither 1 nor the operand count.
EinsumPlan prepare_einsum(std::string_view spec, const std::vector<Dims>& shapes,
                          const std::vector<DType>& dtypes, const EinsumOptions& options = {});
/// Integer-label form of prepare_einsum.
EinsumPlan prepare_einsum(const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                          const std::vector<Dims>& shapes, const std::vector<DType>& dtypes,
                          const EinsumOptions& options = {});

}  // namespace tenferro
