// Call nodes: program nodes that stand for a whole traced sub-program.
//
// Note [Call nodes]: a user-defined derivative rule (custom_vjp / custom_jvp, docs/custom-rules.md)
// must survive tracing as ONE node, so that grad(Program) / vjp(Program) / jvp(Program), which
// re-interpret the program under autodiff (Note [Transforms re-trace]), meet the custom rule
// instead of the derivative of the ops inside it. Such a node's primitive also derives from
// CallBody: its shape rule traces the user's forward function at the node's input specs, and
// body() returns that traced program. The node cannot run as a kernel (its forward calls other
// ops, Note [Host primitives]), so build_plan() replaces every call node by its body
// (inline_calls, recursively for calls inside bodies) after re-inferring shapes and before
// planning: a prepared plan runs only ordinary kernels. The transforms never inline: they must
// see the call. Nothing else in the trace module knows about calls.
#pragma once

#include <memory>
#include <span>

#include "tenferro/trace.hpp"

namespace tenferro::detail {

/// Mixed into a Primitive whose node is a call of a traced sub-program.
class CallBody {
 public:
  virtual ~CallBody() = default;
  /// The program this call computes for inputs of these specs: one input per node input, one
  /// output per node output (same specs as the node's). Deterministic for equal specs.
  virtual std::shared_ptr<const Program> body(std::span<const ValueSpec> inputs) const = 0;
};

/// True when some node's primitive is a CallBody.
bool has_calls(const Program& p);
/// p with every call node replaced by the nodes of its body (values renumbered, the body's
/// constants added); not compacted. Throws RuntimeState when a body disagrees with its node.
Program inline_calls(const Program& p);

}  // namespace tenferro::detail
