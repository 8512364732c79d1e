// User-defined derivative rules (custom_vjp, custom_jvp) and gradient checkpointing.
//
//   using namespace tenferro;
//   // |x| with a rule that is finite at x = 0, where the derivative of sqrt(sum(x * x)) is nan.
//   CustomVjp norm(
//       [](std::span<const Tensor> x) { return std::vector<Tensor>{sqrt(sum(x[0] * x[0]))}; },
//       [](std::span<const Tensor> x) {  // fwd: outputs and the residuals bwd needs
//         Tensor n = sqrt(sum(x[0] * x[0]));
//         return VjpFwdResult{{n}, {x[0], n}};
//       },
//       [](std::span<const Tensor> r, std::span<const Tensor> ct) {  // bwd
//         Tensor safe = where(gt(r[1], 0.0), r[1], ones({}));
//         return std::vector<Tensor>{ct[0] * r[0] / safe};
//       });
//   Tensor y = norm({x})[0];              // eager, taped, functional, traced: all use bwd
//
//   MultiFn step = checkpoint([](std::span<const Tensor> s) { ... });  // recompute in backward
//
// Semantics (docs/custom-rules.md):
//  - A custom call is ONE primitive (Note [Custom calls] in src/custom_rules/custom_call.hpp):
//    its reverse rule is the user's, its forward value is f's. Inputs with no autodiff or trace
//    state run f directly.
//  - CustomVjp: reverse mode (backward, grad, vjp, pullbacks, grad/vjp of a traced Program) calls
//    bwd. Forward mode (jvp, hvp, jvp of a Program) differentiates fwd's own ops: the custom rule
//    is a reverse rule and C++ cannot be transposed. So forward mode sees f's derivative.
//    Under reverse over reverse, cotangents that reach the residuals (bwd read them) are pulled
//    back through fwd's own ops too (Note [Residual cotangents] in custom_call.cpp).
//  - CustomJvp: forward mode calls the jvp rule. Reverse mode calls the vjp rule given to the
//    constructor; without one it throws Error{Unsupported} naming custom_jvp (JAX transposes a
//    linear jvp rule; an arbitrary C++ rule cannot be transposed).
//  - Every tensor to differentiate must be an input: a function that closes over a tensor that
//    requires grad, carries a tangent or is traced throws Error{InvalidArgument} (its
//    derivative would bypass the rule).
//  - f, fwd and the rules run again when a Program holding the call is transformed or prepared;
//    the call keeps them (and what they capture) alive. They must be deterministic functions of
//    their inputs and return the same number of outputs every call.
//  - Rule results are checked: count (InvalidArgument), shape (ShapeMismatch), dtype
//    (DTypeMismatch), each naming the rule, the input index and both shapes/dtypes. An undefined
//    result means zero. Backward is all-or-nothing, so nothing changes on such an error.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

namespace detail {
struct CustomRules;
}

/// What a CustomVjp's fwd returns: f's outputs, and the tensors bwd needs (any number, any
/// shapes; the inputs themselves are fine).
struct VjpFwdResult {
  std::vector<Tensor> outputs;
  std::vector<Tensor> residuals;
};
/// fwd(inputs): f's outputs plus residuals.
using VjpFwdFn = std::function<VjpFwdResult(std::span<const Tensor> inputs)>;
/// bwd(residuals, cotangents): one cotangent per input (undefined = zero), given one cotangent
/// per output (zeros where nothing flows). Called on tensors that may carry autodiff state: a
/// bwd written with differentiable ops gives second derivatives.
using VjpBwdFn = std::function<std::vector<Tensor>(std::span<const Tensor> residuals,
                                                   std::span<const Tensor> cotangents)>;
/// jvp(primals, tangents): one tangent per output (undefined = zero), given one tangent per
/// input (zeros for inputs without one).
using JvpRuleFn = std::function<std::vector<Tensor>(std::span<const Tensor> primals,
                                                    std::span<const Tensor> tangents)>;
/// vjp(primals, outputs, cotangents): one cotangent per input, the reverse rule of a CustomJvp.
using VjpRuleFn = std::function<std::vector<Tensor>(std::span<const Tensor> primals,
                                                    std::span<const Tensor> outputs,
                                                    std::span<const Tensor> cotangents)>;

/// What CustomVjp and CustomJvp share: the call and the label of their rules.
class CustomFunction {
 public:
  /// f's outputs. Recorded on the tape, carried through jvp, or traced as one call node,
  /// according to the inputs' state.
  std::vector<Tensor> operator()(std::span<const Tensor> inputs) const;
  std::vector<Tensor> operator()(std::initializer_list<Tensor> inputs) const {
    return (*this)(std::span<const Tensor>(inputs.begin(), inputs.size()));
  }
  const std::string& name() const noexcept;

 protected:
  explicit CustomFunction(std::shared_ptr<const detail::CustomRules> rules)
      : rules_(std::move(rules)) {}

 private:
  std::shared_ptr<const detail::CustomRules> rules_;
};

/// A function with a user-defined reverse rule (JAX's custom_vjp). Cheap to copy (shared rules);
/// usable wherever a MultiFn is. Thread-safe to call if f, fwd and bwd are.
class CustomVjp : public CustomFunction {
 public:
  /// `name` labels the rule in errors and program printing. Throws InvalidArgument when f, fwd
  /// or bwd is empty.
  CustomVjp(MultiFn f, VjpFwdFn fwd, VjpBwdFn bwd, std::string name = "custom_vjp");
};

/// A function with a user-defined forward rule (JAX's custom_jvp), and optionally a reverse rule.
class CustomJvp : public CustomFunction {
 public:
  /// Forward mode uses `jvp`; reverse mode uses `vjp` when given, else throws Unsupported.
  CustomJvp(MultiFn f, JvpRuleFn jvp, VjpRuleFn vjp = {}, std::string name = "custom_jvp");
};

/// Gradient checkpointing: a function with f's values whose reverse rule recomputes f's forward
/// pass (vjp(f, inputs)) instead of keeping f's intermediates on the tape; only the inputs are
/// saved. A CustomVjp underneath: works with backward, grad, vjp, nested checkpoints and jvp
/// (which just differentiates f). In a traced Program the recomputation becomes ordinary nodes
/// that common-subexpression elimination merges with the forward pass (a prepared plan already
/// reuses buffers by liveness), so it saves no memory there. f must not close over tensors that
/// are differentiated: pass them as inputs.
MultiFn checkpoint(MultiFn f);

}  // namespace tenferro
