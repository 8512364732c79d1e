// The interpreters bind() routes to when inputs carry aux state (Note [One catalog, three
// interpreters]). Each is implemented by its module: tape (src/autodiff/tape*), forward mode
// (src/autodiff/forward*), tracer (src/trace/tracer*).
#pragma once

#include "primitives/primitive.hpp"

namespace tenferro::detail {

/// Whether reverse-mode recording is on for this thread (off under a NoGradGuard).
bool grad_enabled() noexcept;
/// Records a tape node for p applied to `in` (some input requires grad) and returns outputs.
TensorList tape_apply(const Primitive& p, std::span<const Tensor> in);
/// Computes outputs and their tangents (some input carries a forward tangent).
TensorList forward_apply(const Primitive& p, std::span<const Tensor> in);
/// Appends p to the program being traced (some input is symbolic) and returns symbolic outputs.
TensorList trace_apply(const Primitive& p, std::span<const Tensor> in);

}  // namespace tenferro::detail
