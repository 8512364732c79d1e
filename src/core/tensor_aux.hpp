// The autodiff / trace block attached to a tensor (Note [Tensor aux] in tenferro/tensor.hpp).
#pragma once

#include <cstdint>
#include <memory>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

struct TapeNode;    // src/autodiff
struct TraceState;  // src/trace

struct TensorAux {
  // Reverse mode: a leaf requires grad and accumulates `grad`; a non-leaf records its producer.
  bool requires_grad = false;
  std::shared_ptr<TapeNode> grad_fn;
  int output_index = 0;
  Tensor grad;
  // Backward stages a leaf's gradient here and commits it only when the whole backward pass
  // succeeded (Note [Backward is all-or-nothing] in src/autodiff/tape.hpp). Empty otherwise.
  Tensor pending;
  bool staged = false;
  // Forward mode: the tangent carried by this tensor (undefined = not a dual number).
  Tensor tangent;
  // Tracing: the symbolic value this tensor stands for.
  std::shared_ptr<TraceState> trace;
  std::int64_t trace_value = -1;

  bool empty() const { return !requires_grad && !grad_fn && !tangent.defined() && !trace; }
};

}  // namespace tenferro::detail
