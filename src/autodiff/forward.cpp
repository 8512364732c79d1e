// The forward-mode interpreter: primal by binding again without tangents, then the op's jvp rule.
//
// Note [Tangent levels]: a forward layer carries the tangent of one jvp (Note [Autodiff levels]
// in src/core/tensor_aux.hpp). The primal below it and the tangent itself may carry the layers of
// enclosing jvps and grads, and the jvp rule runs on them, so forward over forward (jvp of jvp)
// and reverse over forward (grad of jvp) nest like every other combination, with no perturbation
// confusion: a layer belongs to its jvp, not to a depth.
//
// Note [Tangent versions]: a tangent is attached (by jvp to its duals, by this interpreter to an
// op's outputs) together with the storage versions of its primal and of itself. A tangent is
// stale when either storage was written in place since: the primal no longer has that
// derivative, or the direction changed half-way through the computation. Every op that reads a
// tangent here, jvp when it returns the outputs' tangents, and backward for the tangents of the
// tensors it saved (forward over reverse) throw Error{RuntimeState} on a stale tangent, naming
// who attached it and who wrote it.
#include "autodiff/tape.hpp"
#include "primitives/interpreters.hpp"

namespace tenferro::detail {

namespace {
void check_rule_result(const Primitive& p, const char* rule, const Tensor& got,
                       const Tensor& like) {
  // One layout record means one shape and dtype (Note [Layout record]): usually the case, as
  // rules build their results from the saved tensors' layouts.
  if (got.layout() == like.layout() || (got.shape() == like.shape() && got.dtype() == like.dtype()))
    return;
  Tensor pair[2] = {got, like};
  throw Error(ErrorKind::RuntimeState, std::string(p.name()) + ": the " + rule +
                                           " rule returned a tensor that does not match its value "
                                           "(got, expected: " +
                                           describe(pair) + "); this is a rule bug");
}
}  // namespace

TensorList forward_apply(const Primitive& p, std::span<const Tensor> in, const TensorAux& level) {
  TensorList primals, tangents;
  bool any = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Tensor& t = in[i];
    const std::shared_ptr<TensorAux>& a = live_aux(t.aux());
    if (is_layer_of(a.get(), level)) {
      if (tangent_is_stale(*a, t))  // Note [Tangent versions]
        throw_stale_tangent(t, *a, "jvp", p.name(), "input", i);
      tangents.push_back(a->tangent);
      primals.push_back(with_aux(t, a->inner));
      any = true;
    } else {
      tangents.emplace_back();
      primals.push_back(a == t.aux() ? t : with_aux(t, a));
    }
  }
  TensorList out = bind(p, primals);
  if (!any || !p.differentiable()) return out;

  TensorList out_tangents;
  out_tangents.resize(out.size());
  p.jvp(primals, out, tangents, out_tangents);
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!out_tangents[k].defined() || is_integral(out[k].dtype())) continue;
    check_rule_result(p, "jvp", out_tangents[k], out[k]);
    auto aux = new_layer(level, out[k].aux());
    aux->set_tangent(std::move(out_tangents[k]), out[k], p.name().data());
    out[k].set_aux(std::move(aux));
  }
  return out;
}

void throw_vjp_mismatch(const Primitive& p, const Tensor& got, const Tensor& input) {
  check_rule_result(p, "vjp", got, input);  // throws: the shapes or dtypes differ
  throw Error(ErrorKind::RuntimeState, std::string(p.name()) +
                                           ": internal error: a vjp result was refused but "
                                           "matches its input");
}

}  // namespace tenferro::detail
