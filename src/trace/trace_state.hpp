// Internal state of a trace in progress and helpers shared by the tracer, passes and transforms.
//
// Note [Traced tensors]: a traced tensor is Tensor::symbolic(shape, dtype) whose aux names the
// TraceState (`trace`) and the value id (`trace_value`). bind() routes any op with such an input
// to trace_apply(), which runs only the primitive's shape rule and appends a node. A trace is
// open while its function runs; a traced tensor used after that throws RuntimeState.
#pragma once

#include <memory>
#include <vector>

#include "core/tensor_aux.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::detail {

struct TraceState : TraceBase {
  Program program;
  std::vector<ValueSpec> specs;  // spec of every value so far, indexed by id
  bool open = true;

  ValueId new_value(ValueSpec spec) {
    specs.push_back(std::move(spec));
    return program.num_values++;
  }
  /// The id of `t` in this trace: its traced id, or a (deduplicated) constant for a concrete t.
  ValueId value_of(const Tensor& t);
};

/// The trace `t` belongs to (null for concrete tensors).
inline TraceState* trace_of(const Tensor& t) {
  const TensorAux* a = t.aux().get();
  return a ? static_cast<TraceState*>(a->trace.get()) : nullptr;  // Note [Core hooks]
}

/// A traced tensor for value `id` of `state`.
Tensor make_traced(const std::shared_ptr<TraceState>& state, ValueId id, const ValueSpec& spec);

/// A concrete tensor without autodiff/trace state, sharing t's storage.
Tensor strip_aux(const Tensor& t);

/// Evaluates program nodes through bind() with `env` (one tensor per value, inputs and constants
/// filled in); fills node outputs. The shared core of Program::operator() and the transforms.
void interpret_nodes(const Program& p, std::vector<Tensor>& env);

/// Renumbers values densely (inputs, then constants by first use, then node outputs) and drops
/// nodes and constants that no output depends on.
Program compact(const Program& p);

/// The elements of a concrete tensor in row-major order, as bytes (for constant equality).
std::vector<unsigned char> contiguous_bytes(const Tensor& t);

/// Checks `args` against specs: count (InvalidArgument), shape (ShapeMismatch), dtype
/// (DTypeMismatch); `what` names the caller in messages.
void check_args(std::span<const Tensor> args, std::span<const ValueSpec> specs, const char* what);

}  // namespace tenferro::detail
