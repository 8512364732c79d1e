// The interpreters bind() routes to when inputs carry aux state (Note [One catalog, three
// interpreters]). Each is implemented by its module: tape (src/autodiff/tape*), forward mode
// (src/autodiff/forward*), tracer (src/trace/tracer*).
#pragma once

#include "core/tensor_aux.hpp"
#include "primitives/primitive.hpp"

namespace tenferro::detail {

/// Whether reverse-mode recording is on for this thread (off under a NoGradGuard).
bool grad_enabled() noexcept;
/// Records a tape node at the level of the reverse-mode layer `level` for p applied to `in` (the
/// inputs whose top layer is of that level lose it) and returns outputs with a layer of it.
TensorList tape_apply(const Primitive& p, std::span<const Tensor> in, const TensorAux& level);
/// Computes outputs and their tangents at the level of the forward layer `level`.
TensorList forward_apply(const Primitive& p, std::span<const Tensor> in, const TensorAux& level);
/// Appends p to the program being traced (some input is symbolic) and returns symbolic outputs.
TensorList trace_apply(const Primitive& p, std::span<const Tensor> in);

}  // namespace tenferro::detail
