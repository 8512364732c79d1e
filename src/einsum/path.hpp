// Contraction-path search for einsum (pure: label sets and sizes only, no tensors).
//
// Note [Einsum cost model]: a pairwise step contracts tensors X and Y into R, whose labels are
// those of X and Y still needed by another remaining operand or by the output. Its cost is
// prod(sizes of labels(X) u labels(Y)) products, counted twice (multiply + add) when some label
// is summed. The largest intermediate is the largest step result in elements. Sizes and costs
// are doubles: networks with many labels overflow int64 long before they overflow a double.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "einsum/subscripts.hpp"
#include "tenferro/einsum.hpp"

namespace tenferro::detail::einsum {

/// A network reduced to pairwise form: each operand's labels are distinct.
struct PathProblem {
  std::vector<LabelList> operands;
  LabelList output;
  /// Size of every label id (indexed by label).
  SmallVector<std::int64_t, 16> size;
};

struct RawStep {
  int lhs = 0, rhs = 0;
  /// Result labels in lowering order: shared kept labels (lhs order), lhs-only kept, rhs-only kept.
  LabelList result;
  double flops = 0;
  double size = 0;
};

struct RawPath {
  EinsumStrategy strategy = EinsumStrategy::automatic;
  std::vector<RawStep> steps;
  double flops = 0;
  double largest = 0;
  /// Sum of the step results' sizes.
  double write = 0;
  /// Trials the search ran (random_greedy, hyper), else 1; wall-clock seconds of find_path.
  int trials = 1;
  double seconds = 0;
};

/// Largest operand count accepted by the optimal strategy.
inline constexpr int kMaxOptimalOperands = 16;

/// Finds a path for `p` (Note [Einsum cost model]). Throws InvalidArgument when the memory limit
/// cannot be met or optimal search is asked for more than kMaxOptimalOperands operands.
/// Strategies greedy, random_greedy and hyper are in path_search.hpp.
RawPath find_path(const PathProblem& p, const EinsumOptions& options);

/// Costs and result labels of a given sequence of pairs (ids as in EinsumStep).
RawPath evaluate_pairs(const PathProblem& p, std::span<const std::pair<int, int>> pairs);

}  // namespace tenferro::detail::einsum
