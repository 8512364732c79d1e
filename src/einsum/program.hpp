// The lowering of a bound einsum network into catalog ops (an EinsumProgram) and its execution.
//
// Note [Einsum lowering]: operand by operand, (1) '...' dimensions of size 1 that broadcast
// against a larger size are dropped (reshape), (2) each repeated label becomes one axis by a
// permute that moves the pair last and a diag view, (3) labels that no other operand and not
// the output carry are summed. Then each path step (x, y) sums labels of x (or y) needed by
// neither side's future (does not happen for paths from find_path, kept for safety) and calls
// dot_general with batch = shared labels still needed, contract = shared labels not needed;
// its output order [batch, x free, y free] is exactly RawStep::result. A final permute puts the
// labels in output order. Every op is a public catalog op, so the program runs unchanged on
// concrete, autodiff and traced tensors, and einsum needs no derivative rules of its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "einsum/path.hpp"
#include "einsum/subscripts.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops/contract.hpp"

namespace tenferro::detail {

struct EinsumInstr {
  enum class Op : std::uint8_t { reshape, permute, diag, sum, dot };
  Op op = Op::reshape;
  /// Input slots (consumed: every slot is read once); b only for dot.
  std::int32_t a = -1, b = -1;
  std::int32_t out = -1;
  /// reshape: the target shape; permute: the axes; sum: the summed axes.
  Dims dims;
  DotDims dot;
};

/// A prepared einsum (the state behind EinsumPlan).
struct EinsumProgram {
  std::vector<Dims> shapes;
  std::vector<DType> dtypes;
  std::int32_t num_slots = 0;
  std::vector<EinsumInstr> instrs;
  std::int32_t result = 0;
  EinsumPath path;
  /// The pairwise problem the path was found for (operands after the single-operand steps of
  /// the lowering); slice_plan re-costs the path on it with other label sizes.
  einsum::PathProblem problem;
  Dims output_shape;
  DType output_dtype = DType::f64;

  /// Runs the instructions on operands already checked against shapes (dtypes may differ: the
  /// catalog ops promote).
  Tensor run(std::span<const Tensor> operands) const;
};

/// A count or cost as the printed paths and plans show it ("%.4g").
std::string number(double v);
/// "automatic", "optimal", "greedy", "sequential", "given", "random_greedy", "hyper" ("?" outside
/// the enumerators).
const char* strategy_name(EinsumStrategy s);
/// "flops", "size", "combo" ("?" outside the enumerators).
const char* objective_name(PathObjective o);

/// Builds the program for a bound network (Note [Einsum lowering]).
EinsumProgram lower_einsum(const einsum::Network& net, std::span<const einsum::Shape> shapes,
                           std::span<const DType> dtypes, const EinsumOptions& options);

}  // namespace tenferro::detail
