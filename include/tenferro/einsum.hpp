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

/// How einsum orders the pairwise contractions of more than two operands.
enum class EinsumStrategy {
  /// optimal for at most EinsumOptions::optimal_limit operands, greedy above.
  automatic,
  /// Exact minimum of the estimated flops (dynamic programming over subsets of operands);
  /// at most 16 operands (InvalidArgument beyond).
  optimal,
  /// The cheapest of three O(n^3) heuristics: pairwise greedy by intermediate size, pairwise
  /// greedy by flops, and left to right. Never worse than left to right.
  greedy,
  /// Left to right: ((op0 op1) op2) ...
  sequential,
  /// The pairs in EinsumOptions::path, as given. Reported by EinsumPath::strategy when a path was
  /// given; asking for it with an empty EinsumOptions::path is InvalidArgument.
  given,
};

/// Settings of path search (einsum, einsum_path, prepare_einsum).
struct EinsumOptions {
  EinsumStrategy strategy = EinsumStrategy::automatic;
  /// automatic uses optimal search up to this many operands (>= 0, else InvalidArgument).
  int optimal_limit = 8;
  /// When > 0: no intermediate (every step result but the final one) may have more elements.
  /// A path search that cannot meet it throws InvalidArgument. 0 (or +infinity) means no
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

/// A contraction path and its cost estimate. Printable with to_string().
struct EinsumPath {
  /// The spec with its output made explicit, e.g. "ij,jk->ik".
  std::string subscripts;
  /// The strategy that produced the path (automatic resolved to optimal or greedy; `given` for
  /// EinsumOptions::path).
  EinsumStrategy strategy = EinsumStrategy::automatic;
  std::vector<EinsumStep> steps;
  /// Sum of the steps' flops.
  double flops = 0;
  /// Flops of one loop nest over all labels (for comparison).
  double naive_flops = 0;
  /// Elements of the largest step result.
  double largest_intermediate = 0;
  /// A multi-line table: spec, strategy, flops, largest intermediate, one line per step.
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
