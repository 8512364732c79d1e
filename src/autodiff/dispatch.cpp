// Routing of inputs that carry autodiff/trace state, in the fixed order tape -> forward ->
// tracer (Note [One catalog, three interpreters]). The tape is outermost so that forward-over-
// reverse (jvp of grad, Hessian-vector products) and traced gradient programs work: the tape's
// own bind of the primal, and the vjp rules it runs in backward, see the tangents/tracers.
#include "core/tensor_aux.hpp"
#include "primitives/interpreters.hpp"

namespace tenferro::detail {

TensorList apply_with_aux(const Primitive& p, std::span<const Tensor> in) {
  bool grad = false, tangent = false, traced = false;
  for (const Tensor& t : in) {
    const TensorAux* a = t.aux().get();
    if (!a) continue;
    grad |= a->requires_grad || a->grad_fn != nullptr;
    tangent |= a->tangent.defined();
    traced |= a->trace != nullptr;
  }
  if (grad && grad_enabled() && p.differentiable()) return tape_apply(p, in);
  if (tangent) return forward_apply(p, in);
  if (traced) return trace_apply(p, in);
  return eager_apply(p, in);
}

}  // namespace tenferro::detail
