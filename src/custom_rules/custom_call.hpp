// The one primitive behind custom_vjp, custom_jvp and checkpoint (docs/custom-rules.md).
//
// Note [Custom calls]: a call of a CustomVjp / CustomJvp on tensors that carry autodiff or trace
// state binds ONE primitive, CustomCallPrim, holding the user's functions (CustomRules). It is a
// host primitive (Note [Host primitives] in src/primitives/primitive.hpp): each interpreter
// peels its own state off the inputs and binds it again, so at the bottom the eager interpreter
// calls apply_on_host() on plain tensors, which runs the user's forward function there -- its ops
// run as ordinary eager ops (on the current backend, inside an execution scope too) and record
// nothing. The levels above see one node and run its rules:
//  - outputs: for a CustomVjp, [f's outputs..., residuals...] (fwd's result, flattened). The
//    residuals are outputs so that the tape saves them with the node and a trace gives them ids;
//    the public call returns only the first n_out. A CustomJvp has no residuals.
//  - vjp(): the user's bwd (CustomVjp) or vjp rule (CustomJvp; Unsupported without one), on the
//    saved primals/outputs, which may carry lower-level state: a differentiable rule gives second
//    derivatives.
//  - jvp(): the user's jvp rule (CustomJvp), or jvp of fwd's own ops (CustomVjp; this also gives
//    the residuals' tangents, which forward over reverse needs since bwd reads them).
//  - infer(): only the tracer (and prepare's re-inference) calls it. It traces the forward
//    function at the input specs and keeps that body (Note [Call nodes] in trace/call_body.hpp):
//    the call stays one node through grad/vjp/jvp of the Program and is inlined before planning.
// Plain inputs skip the primitive: the public call runs f directly.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tenferro/custom_rules.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::detail {

struct CustomRules {
  enum class Kind : std::uint8_t { vjp, jvp };
  Kind kind = Kind::vjp;
  std::string label;  // the user's name for the rule, in messages and program printing
  MultiFn f;
  VjpFwdFn fwd;   // vjp kind
  VjpBwdFn bwd;   // vjp kind
  JvpRuleFn jvp;  // jvp kind
  VjpRuleFn vjp;  // jvp kind; empty: reverse mode is Unsupported

  /// "custom_vjp 'label'", the prefix of every message.
  std::string who() const;
  /// How many outputs f returns: learned on the first call, checked on every later one.
  mutable std::atomic<int> n_out{-1};
  // Traced forward bodies by input specs (Note [Call nodes]); a few entries, cleared when full.
  mutable std::mutex mu;
  mutable std::vector<std::pair<std::vector<ValueSpec>, std::shared_ptr<const Program>>> bodies;
};

/// The public call: f on plain inputs, else one CustomCallPrim bound on `in`; f's outputs.
std::vector<Tensor> call_custom(const std::shared_ptr<const CustomRules>& rules,
                                std::span<const Tensor> in);

}  // namespace tenferro::detail
