// Sliced contractions: memory-bounded einsum by fixing ("slicing") a few labels.
//
//   using namespace tenferro;
//   SlicePlan plan = slice_plan("ab,bc,cd,da->", shapes, {.memory_limit = 1 << 20});
//   std::cout << plan.to_string();                  // sliced labels, slices, flops, peak, overhead
//   Tensor r = sliced_einsum("ab,bc,cd,da->", {a, b, c, d}, {.memory_limit = 1 << 20});
//   ValueAndGrad g = sliced_value_and_grad("ab,bc,cd,da->", {a, b, c, d}, {}, options);
//
//   // Integer labels (no alphabet limit), as einsum(operands, labels, output):
//   const std::vector<EinsumLabels> ring{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
//   SlicePlan q = slice_plan(ring, {}, shapes, {.memory_limit = 1 << 20});
//   Tensor s = sliced_einsum({a, b, c, d}, ring, {}, {.memory_limit = 1 << 20});
//
// The standard remedy when a contraction's intermediates do not fit in memory: cut a few labels
// into equal chunks, contract every combination of chunks (a *slice*) independently with the
// same path, and add the slices' results. A summed label's slices add up to the full sum; an
// output label's slices are disjoint blocks of the output, which each slice adds into. Every
// slice has the same operand shapes, so one prepared einsum serves all of them, and slices are
// independent, so they can be spread over processes (tenferro/dist.hpp runs them over MPI).
//
// Every function takes the contraction in either of einsum's forms: a spec string, or integer
// labels (one list per operand, any values >= 0) with an explicit output list. Both forms run the
// same code; only the labels' names differ (SlicedLabel::id and ::name).
//
// Errors (tenferro::Error, nothing computed unless said otherwise): as einsum for the spec (or
// the integer labels) and shapes; InvalidArgument for invalid SliceOptions and for a memory_limit
// that no slicing can meet (the message names the result that stays too large and why its labels
// cannot be cut further). See docs/distributed.md.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

/// Settings of slice_plan, sliced_einsum and sliced_value_and_grad (and of their dist:: forms).
struct SliceOptions {
  /// Elements that the largest result of one slice's contraction may have: every pairwise
  /// step's result (the slice's own result included) and every operand's sum over labels only it
  /// carries. Views cost nothing (operand slices, diagonals, permutations) and the output
  /// accumulator is extra (SlicePlan::output_shape). The working memory of a slice is a small
  /// multiple of it (docs/distributed.md, "Memory"). 0 (or +infinity) means no limit; negative
  /// or NaN is InvalidArgument.
  double memory_limit = 0;
  /// Slice at least this many times (e.g. the number of processes, so that every one has work);
  /// the labels are then cut where the flop overhead is smallest. When every label that may be
  /// cut is cut into single elements first, the plan has fewer (SlicePlan::slices says how many;
  /// under dist the extra ranks get no slice). >= 1, else InvalidArgument.
  std::int64_t min_slices = 1;
  /// Whether output labels may be sliced (each slice then computes a block of the output).
  bool slice_output = true;
  /// Path search of the unsliced contraction; every slice uses the path found for it. Its
  /// memory_limit must be 0 (InvalidArgument otherwise: use SliceOptions::memory_limit); an
  /// explicit `path` is used as given.
  EinsumOptions einsum;
};

/// One sliced label: cut into `chunks` equal pieces of `size / chunks` elements.
struct SlicedLabel {
  /// The label's letter in the spec form; 0 in the integer-label form.
  char label = 0;
  /// The label itself: the integer label in the integer-label form, the letter's character code
  /// (e.g. 'b' = 98) in the spec form.
  std::int64_t id = 0;
  /// The label as text: the letter ("b"), or the integer label ("1007").
  std::string name;
  /// Its full extent.
  std::int64_t size = 0;
  /// Pieces it is cut into (a divisor of size, > 1).
  std::int64_t chunks = 1;
  /// For each operand, the axes that carry the label (two or more for a diagonal).
  std::vector<std::vector<std::int64_t>> axes;
  /// The output axis that carries it, or -1 when the label is summed.
  std::int64_t output_axis = -1;
  /// Elements of one piece.
  std::int64_t extent() const noexcept { return size / chunks; }
};

/// How a contraction is sliced, and what it costs. Printable with to_string(). A plain value:
/// copyable, and safe to read from several threads.
struct SlicePlan {
  /// The spec with its output made explicit, e.g. "ab,bc->ac" (as EinsumPath::subscripts; in the
  /// integer-label form the labels are printed as generated names: letters, then "{k}").
  std::string subscripts;
  /// Operand shapes (unsliced) and the result's shape.
  std::vector<Dims> shapes;
  Dims output_shape;
  /// The sliced labels, in order of first appearance in the spec (in the operands' label lists).
  /// Slice k's piece of each label is k's digit in the mixed radix of the labels' chunk counts
  /// (the last label varies fastest).
  std::vector<SlicedLabel> sliced;
  /// Number of slices: the product of the chunk counts (1: nothing sliced).
  std::int64_t slices = 1;
  /// Operand shapes of one slice, and the shape of one slice's result.
  std::vector<Dims> slice_shapes;
  Dims slice_output_shape;
  /// One slice's contraction path (reported with strategy `given`): the unsliced contraction's
  /// pairs for a fixed path (optimal, sequential, an explicit EinsumOptions::path), else the tree
  /// the search re-optimised for the sliced sizes (see slice_plan). Pass
  /// EinsumOptions{.path = pairs} to prepare_einsum for slice_shapes to get the same plan.
  EinsumPath path;
  std::vector<std::pair<int, int>> pairs;
  /// The limit asked for (0: none) and the largest result of one slice (SliceOptions::
  /// memory_limit says which results count), in elements.
  double memory_limit = 0;
  double peak = 0;
  /// Flops of one slice (EinsumPath's cost model) and of all slices together.
  double flops_per_slice = 0;
  double total_flops = 0;
  /// The unsliced contraction along the same path: its flops and largest result.
  double unsliced_flops = 0;
  double unsliced_peak = 0;

  /// total_flops / unsliced_flops: the arithmetic slicing repeats (1 = none).
  double overhead() const noexcept;
  /// The start of each sliced label's piece in slice k (one entry per `sliced` label).
  /// InvalidArgument unless 0 <= k < slices.
  std::vector<std::int64_t> offsets(std::int64_t k) const;
  /// Slice k of the operands: views (no copy) that narrow each sliced label's axes to its piece.
  /// The operands must have `shapes` (InvalidArgument for another count, ShapeMismatch for
  /// another shape).
  std::vector<Tensor> slice_operands(std::span<const Tensor> operands, std::int64_t k) const;
  std::vector<Tensor> slice_operands(std::initializer_list<Tensor> operands, std::int64_t k) const {
    return slice_operands(std::span<const Tensor>(operands.begin(), operands.size()), k);
  }
  /// The block of a tensor shaped like the output that slice k produces (a view); the tensor
  /// itself when no output label is sliced. ShapeMismatch for another shape.
  Tensor output_block(const Tensor& output, std::int64_t k) const;
  /// A multi-line summary: spec, sliced labels (by name; an integer label also with its generated
  /// name in the subscripts, "1007 as c"), slices, peak vs limit, flops and overhead, and one
  /// slice's path.
  std::string to_string() const;
};

/// Chooses the labels to slice so that the largest result of one slice's contraction fits
/// options.memory_limit. Slicing a fixed tree cuts what that tree happened to make large, so for
/// the strategies that search beyond the exact optimum (automatic and greedy above
/// EinsumOptions::optimal_limit operands, random_greedy, hyper) the search interleaves the two:
/// while a result is too large, cut a label of a too-large result (the one giving the fewest
/// total flops, one slice's flops times the slices, or the fewest flops per bit of excess size
/// removed), then re-optimise the tree for the sliced sizes by subtree reconfiguration (6-leaf
/// subtrees for automatic and greedy; 8-leaf ones within EinsumOptions::time_budget for
/// random_greedy and hyper), free or capped at the limit; three such rules run and the cheapest
/// plan wins. (On a 6x20 grid at 1/64 of the unsliced peak: 4096 slices and 1.4e8 flops,
/// against 8.4e6 slices and 2.1e11 flops for slicing greedy's tree as it is.) random_greedy and
/// hyper also judge every tree they try by its cost after slicing (the tree that is best
/// unsliced can be among the worst sliced). Of EinsumOptions::time_budget (default 10 s, 1 s for
/// random_greedy) that search takes three quarters, and hyper spends most of it on up to 16
/// rounds of tree annealing with slicing as a move (TreeSA's); the re-optimisation above starts
/// from its tree and takes the last quarter. On
/// the 53-qubit, 20-cycle Sycamore amplitude network at 2^30 elements: 10^18.7 multiply-adds in
/// all with hyper and a 60 s budget on 2 cores (docs/einsum.md). Then, on the final
/// tree (and alone for optimal, sequential and explicit paths), a greedy pass: while a result is
/// too large, cut the label (or cut a label finer, into the next divisor of its size) that removes
/// the most excess size of the too-large results per factor of slices; undo any cut the limit no
/// longer needs; while there are fewer than min_slices, cut where the added flops are smallest.
/// Labels of '...' dimensions are never sliced; output labels only with slice_output.
/// Deterministic: equal arguments give equal plans on every machine, except random_greedy and
/// hyper when their search stops on the time budget (see EinsumOptions::trials).
SlicePlan slice_plan(std::string_view spec, const std::vector<Dims>& shapes,
                     const SliceOptions& options = {});
/// Integer-label form: operand k's axes carry labels[k], the output has `output`'s labels (as
/// einsum(operands, labels, output)). The same search; labels are candidates in order of first
/// appearance in `labels`.
SlicePlan slice_plan(const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                     const std::vector<Dims>& shapes, const SliceOptions& options = {});

/// einsum(spec, operands) computed slice by slice under slice_plan(spec, shapes, options): one
/// prepared einsum for all slices, inside one execution scope of the current backend (or the
/// admission already active on this thread), adding each slice into one output. Equal to einsum
/// up to rounding. Operands must be floating (DTypeMismatch otherwise, as prepare_einsum);
/// operands that require grad (with grad mode on), carry a tangent or are traced are
/// Unsupported: the result is not recorded by autodiff (use sliced_value_and_grad).
Tensor sliced_einsum(std::string_view spec, std::span<const Tensor> operands,
                     const SliceOptions& options = {});
inline Tensor sliced_einsum(std::string_view spec, std::initializer_list<Tensor> operands,
                            const SliceOptions& options = {}) {
  return sliced_einsum(spec, std::span<const Tensor>(operands.begin(), operands.size()), options);
}
/// Integer-label form: einsum(operands, labels, output) computed slice by slice under
/// slice_plan(labels, output, shapes, options).
Tensor sliced_einsum(std::span<const Tensor> operands, const std::vector<EinsumLabels>& labels,
                     const EinsumLabels& output, const SliceOptions& options = {});
inline Tensor sliced_einsum(std::initializer_list<Tensor> operands,
                            const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                            const SliceOptions& options = {}) {
  return sliced_einsum(std::span<const Tensor>(operands.begin(), operands.size()), labels, output,
                       options);
}

/// For a scalar loss of the contraction's output: value = loss(einsum(spec, operands)) and the
/// gradient with respect to every operand, computed slice by slice: the sliced forward pass
/// gives the output C, grad(loss)(C) gives its cotangent G, and each slice's reverse pass (one
/// prepared VJP program for all slices, recomputing the slice's forward) adds its cotangents
/// into the pieces of the operands' gradients. Equal to value_and_grad of the unsliced
/// expression up to rounding (complex operands: the conjugate-Wirtinger convention of
/// docs/autodiff.md). `loss` receives {C} and must return a real one-element tensor
/// (InvalidArgument otherwise, as grad); an empty loss means the output itself is that scalar.
/// One slice's reverse pass needs about twice the forward's working memory (docs/distributed.md,
/// "Memory"). Nothing is recorded and no grad() changes, so operands that carry a tangent, are
/// traced, or require grad while grad mode is on are Unsupported (inside an outer grad the
/// result would silently have no derivative: detach() them or use a NoGradGuard). Errors of the
/// loss (not a real one-element tensor, or its own) come after the forward pass, prefixed with
/// the op's name.
ValueAndGrad sliced_value_and_grad(std::string_view spec, std::span<const Tensor> operands,
                                   const ScalarFn& loss, const SliceOptions& options = {});
inline ValueAndGrad sliced_value_and_grad(std::string_view spec,
                                          std::initializer_list<Tensor> operands,
                                          const ScalarFn& loss, const SliceOptions& options = {}) {
  return sliced_value_and_grad(spec, std::span<const Tensor>(operands.begin(), operands.size()),
                               loss, options);
}
/// Integer-label form: value and gradients of loss(einsum(operands, labels, output)).
ValueAndGrad sliced_value_and_grad(std::span<const Tensor> operands,
                                   const std::vector<EinsumLabels>& labels,
                                   const EinsumLabels& output, const ScalarFn& loss,
                                   const SliceOptions& options = {});
inline ValueAndGrad sliced_value_and_grad(std::initializer_list<Tensor> operands,
                                          const std::vector<EinsumLabels>& labels,
                                          const EinsumLabels& output, const ScalarFn& loss,
                                          const SliceOptions& options = {}) {
  return sliced_value_and_grad(std::span<const Tensor>(operands.begin(), operands.size()), labels,
                               output, loss, options);
}

}  // namespace tenferro
