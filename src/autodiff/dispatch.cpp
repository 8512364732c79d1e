// Routing of inputs that carry autodiff/trace state (Note [One catalog, three interpreters]): the
// deepest live autodiff level among the inputs interprets the op (Note [Autodiff levels] in
// src/core/tensor_aux.hpp); it binds the op again on the inputs without its layer, so the lower
// levels, then the tracer, then the kernel see it in turn. Inert layers (of transforms that have
// returned) are removed first; a reverse-mode level that is not recording (NoGradGuard, or a
// non-differentiable op) is removed the same way.
#include <string>

#include "autodiff/tape.hpp"
#include "primitives/interpreters.hpp"

namespace tenferro::detail {

namespace {

[[noreturn]] void throw_confused(const Primitive& p, const TensorAux& a, const TensorAux& b) {
  auto name = [](const TensorAux& x) {
    return std::string(x.level ? x.level->transform : "backward");
  };
  throw Error(ErrorKind::InvalidArgument,
              std::string(p.name()) +
                  ": inputs carry the state of two different transforms at "
                  "the same nesting depth " +
                  std::to_string(a.depth) + " ('" + name(a) + "' and '" + name(b) +
                  "'), e.g. a tensor of one thread's grad/jvp used inside another thread's; "
                  "their derivatives cannot be told apart. Pass detach(x) or compute it inside "
                  "the transform that uses it");
}

TensorList without_layer(std::span<const Tensor> in, const TensorAux* level) {
  TensorList r;
  for (const Tensor& t : in)
    r.push_back(level ? strip_level(t, *level) : with_aux(t, live_aux(t.aux())));
  return r;
}

}  // namespace

TensorList apply_with_aux(const Primitive& p, std::span<const Tensor> in) {
  const TensorAux* top = nullptr;
  bool traced = false, inert = false;
  for (const Tensor& t : in) {
    const TensorAux* a = t.aux().get();
    if (!a) continue;
    traced |= a->trace != nullptr;
    if (a->kind == AuxKind::none) continue;
    if (!a->live()) {
      inert = true;
      continue;
    }
    if (!top || a->depth > top->depth)
      top = a;
    else if (a->depth == top->depth && a->level != top->level)
      throw_confused(p, *top, *a);
  }
  if (inert) return bind(p, without_layer(in, nullptr));
  if (top) {
    if (top->kind == AuxKind::forward) return forward_apply(p, in, *top);
    if (grad_enabled() && p.differentiable()) return tape_apply(p, in, *top);
    return bind(p, without_layer(in, top));
  }
  if (traced) return trace_apply(p, in);
  return eager_apply(p, in);
}

}  // namespace tenferro::detail
