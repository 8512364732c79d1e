// The machinery shared by the sliced contractions of one process (tenferro/slicing.hpp) and of
// many (tenferro/dist.hpp): a prepared sliced contraction that runs any range of its slices.
//
// Note [Sliced execution]: everything that does not depend on the slice is done once -- the
// slice plan, one prepared einsum for the slice shapes along the plan's path, and (for
// gradients) one prepared VJP program of that einsum. A range of slices then runs inside one
// execution scope of the current backend (or the admission already active on the thread): each
// slice takes views of the operands (no copy), runs the prepared einsum, and adds its result
// into the block of one output accumulator that it covers (the whole output when no output
// label is sliced); the reverse pass adds each slice's cotangents into the pieces of the
// operands' gradient accumulators. Slices are visited in increasing order, so a range's sum is
// the same on every run (Note [Deterministic reductions] makes each kernel reproducible too).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "einsum/subscripts.hpp"
#include "tenferro/slicing.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::detail {

/// slice_plan's checks of SliceOptions (InvalidArgument, messages starting "slice_plan: ").
void check_slice_options(const SliceOptions& options);

/// slice_plan for parsed subscripts of either form, with options already checked: the one
/// implementation behind both public slice_plan forms and the sliced calls (Note [Slice search]
/// in slicing.cpp). Throws as einsum does for the shapes, and as slice_plan for the limit.
SlicePlan slice_plan_impl(const einsum::Subscripts& subs, const std::vector<Dims>& shapes,
                          const SliceOptions& options);

/// A contraction as the caller of a sliced op wrote it: a spec string, or (`labels` set) integer
/// labels with an explicit output. Views: the strings and lists must outlive it.
struct SliceSpec {
  std::string_view spec = {};
  const std::vector<EinsumLabels>* labels = nullptr;
  const EinsumLabels* output = nullptr;

  /// The parsed subscripts (throws as einsum does).
  einsum::Subscripts parse() const;
  /// prepare_einsum of this contraction.
  EinsumPlan prepare(const std::vector<Dims>& shapes, const std::vector<DType>& dtypes,
                     const EinsumOptions& options) const;
};

/// What an op outside the catalog (sliced contractions, tenferro::dist's collectives) would
/// have to record for `t` and cannot: a trace, a forward-mode tangent, or -- with grad mode on --
/// a tape (requires grad, or produced by a recorded op). The one rule those ops refuse by.
enum class Unrecorded { none, traced, tangent, requires_grad };
Unrecorded unrecorded_state(const Tensor& t);

/// The operands as the sliced ops compute on them: defined, floating, not traced, without
/// tangents, and not requiring grad while grad mode is on (Unsupported: nothing sliced is
/// recorded, so an outer differentiation would silently see zero); returned detached.
/// `differentiating` (sliced_value_and_grad) only changes the advice in the message.
std::vector<Tensor> sliced_inputs(std::span<const Tensor> operands, const char* op,
                                  bool differentiating);

/// Slices [first, last) of `count` slices that rank `rank` of `ranks` runs: contiguous blocks,
/// the first count % ranks ranks one slice more (a rank may get none).
std::pair<std::int64_t, std::int64_t> slice_range(std::int64_t count, int rank, int ranks);

/// A prepared sliced contraction (Note [Sliced execution]). Immutable after construction.
class SlicedContraction {
 public:
  /// Plans and prepares `spec` (either form) for `operands` (already checked by sliced_inputs).
  /// With `differentiating`, also traces and prepares the VJP program of one slice on the current
  /// backend. Errors are tenferro::Error with messages that start with `op`.
  static SlicedContraction prepare(const char* op, const SliceSpec& spec,
                                   std::span<const Tensor> operands, const SliceOptions& options,
                                   bool differentiating);

  const SlicePlan& plan() const noexcept { return plan_; }
  /// The result's dtype (the operands' promoted dtype).
  DType output_dtype() const noexcept { return einsum_.output_dtype(); }

  /// The sum of slices [first, last) in a fresh tensor of the output's shape (zeros when the
  /// range is empty).
  Tensor contract(std::span<const Tensor> operands, std::int64_t first, std::int64_t last) const;
  /// The operands' gradients for the output cotangent `cotangent`, from slices [first, last):
  /// fresh tensors shaped like the operands (zeros when the range is empty).
  std::vector<Tensor> pullback(std::span<const Tensor> operands, const Tensor& cotangent,
                               std::int64_t first, std::int64_t last) const;

 private:
  SlicedContraction(const SliceSpec& spec, std::span<const Tensor> operands,
                    const SliceOptions& options, bool differentiating);
  SlicePlan plan_;
  EinsumPlan einsum_;
  std::optional<Runtime> runtime_;
  PreparedProgram vjp_;
};

/// loss(c) and its cotangent grad(loss)(c) (an empty loss: c itself, which must then be a real
/// one-element tensor). Errors as grad's, their messages prefixed with "<op>: loss: ".
std::pair<Tensor, Tensor> loss_and_cotangent(const char* op, const ScalarFn& loss, const Tensor& c);

}  // namespace tenferro::detail
