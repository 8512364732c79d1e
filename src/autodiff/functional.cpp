// The functional API: grad, value_and_grad, vjp (pullbacks), jvp, hvp.
//
// Note [Functional leaves]: grad/vjp call f on fresh leaves that share the inputs' storage (and
// keep their tangent and trace state, so that jvp-of-grad and traced gradients work) but have
// their own aux block. Their gradients are captured by the backward engine instead of being
// accumulated, so no tensor's grad() changes, and inputs that do not reach the output get zeros.
#include "autodiff/tape.hpp"
#include "tenferro/autodiff.hpp"

namespace tenferro {

using detail::TensorAux;

namespace {

// Inline storage for the usual few inputs: a grad call allocates no list.
struct Leaves {
  SmallVector<Tensor, 4> tensors;
  SmallVector<std::shared_ptr<TensorAux>, 4> owners;
  SmallVector<TensorAux*, 4> auxes;
  std::span<const Tensor> span() const { return {tensors.data(), tensors.size()}; }
};

void check_defined(std::span<const Tensor> ts, const char* api, const char* what) {
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(api) + ": " + what + " " + std::to_string(i) + " is undefined");
}

// Note [No reverse over reverse]: backward runs the rules with grad mode off, so the result of an
// inner grad/vjp/pullback is never recorded. Called on a tensor an enclosing tape tracks (a leaf
// of an outer grad/vjp, a requires_grad leaf, or a recorded result) with grad mode on, the outer
// derivative through it would be a silent zero (grad of x -> sum(grad(x^3)) gave 0, not 6x).
// That is refused; forward over reverse (hvp) and grad of a traced Program are the supported
// second-order routes, and detach() / NoGradGuard say explicitly that no outer derivative flows.
void refuse_reverse_over_reverse(const Tensor& x, const char* api, const char* what,
                                 std::size_t i) {
  const TensorAux* a = x.aux().get();
  if (a == nullptr || !(a->requires_grad || a->grad_fn) || !is_grad_enabled()) return;
  throw Error(ErrorKind::Unsupported,
              std::string(api) + ": " + what + " " + std::to_string(i) + " (" +
                  detail::describe({&x, 1}) +
                  ") is tracked by an enclosing tape (it requires grad, e.g. inside an outer "
                  "grad or vjp); reverse over reverse (grad of a function that calls grad, vjp "
                  "or a pullback) is not supported and would give the outer derivative as a "
                  "silent zero. Use hvp (forward over reverse) or grad(grad(trace(f))) for second "
                  "derivatives, or detach() the input / use NoGradGuard when no outer derivative "
                  "is wanted");
}

Leaves make_leaves(std::span<const Tensor> inputs, const char* api) {
  check_defined(inputs, api, "input");
  Leaves l;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    refuse_reverse_over_reverse(x, api, "input", i);
    if (is_integral(x.dtype()))
      throw Error(ErrorKind::DTypeMismatch,
                  std::string(api) + ": input " + std::to_string(i) + " has dtype " +
                      std::string(dtype_name(x.dtype())) +
                      "; only floating tensors (f32, f64, c64, c128) can be differentiated "
                      "(capture integer and bool tensors in the function instead)");
    auto a = detail::new_aux();
    a->requires_grad = true;
    if (const TensorAux* b = x.aux().get()) {
      a->copy_tangent(*b);
      a->trace = b->trace;
      a->trace_value = b->trace_value;
    }
    Tensor leaf = x;
    leaf.set_aux(a);
    l.tensors.push_back(std::move(leaf));
    l.auxes.push_back(a.get());
    l.owners.push_back(std::move(a));
  }
  return l;
}

void fill_zeros(std::vector<Tensor>& gs, std::span<const Tensor> like) {
  for (std::size_t i = 0; i < gs.size(); ++i)
    if (!gs[i].defined()) gs[i] = zeros(like[i].shape(), like[i].dtype());
}

void check_like(const Tensor& t, const Tensor& like, const char* api, const char* what,
                std::size_t i) {
  const bool shape_ok = t.shape() == like.shape();
  if (shape_ok && t.dtype() == like.dtype()) return;
  Tensor pair[2] = {like, t};  // the message is built only when throwing
  std::string msg = std::string(api) + ": " + what + " " + std::to_string(i) +
                    " must have the shape and dtype of its value (value, " + what + ": " +
                    detail::describe(pair) + ")";
  throw Error(shape_ok ? ErrorKind::DTypeMismatch : ErrorKind::ShapeMismatch, msg);
}

}  // namespace

ValueAndGrad value_and_grad(const ScalarFn& f, std::span<const Tensor> inputs) {
  Leaves l = make_leaves(inputs, "grad");
  const std::uint64_t first_seq = detail::next_node_seq();
  Tensor out;
  {
    GradModeGuard on(true);
    out = f(l.span());
  }
  if (!out.defined())
    throw Error(ErrorKind::InvalidArgument, "grad: the function returned an undefined tensor");
  if (out.numel() != 1 || is_complex(out.dtype()) || is_integral(out.dtype()))
    throw Error(ErrorKind::InvalidArgument,
                "grad: the function must return a real floating tensor with one element, got " +
                    dims_to_string(out.shape()) + " " + std::string(dtype_name(out.dtype())) +
                    "; use vjp for other outputs");
  std::vector<Tensor> grads(inputs.size());
  if (out.requires_grad()) {
    Tensor seed = ones(out.shape(), out.dtype());
    detail::run_backward({&out, 1}, {&seed, 1}, false, l.auxes, grads, "grad", first_seq);
  }
  fill_zeros(grads, inputs);
  return {detail::without_grad(out), std::move(grads)};
}

ValueAndGrad value_and_grad(const ScalarFn& f, std::initializer_list<Tensor> inputs) {
  return value_and_grad(f, std::span<const Tensor>(inputs.begin(), inputs.size()));
}
std::vector<Tensor> grad(const ScalarFn& f, std::span<const Tensor> inputs) {
  return value_and_grad(f, inputs).grads;
}
std::vector<Tensor> grad(const ScalarFn& f, std::initializer_list<Tensor> inputs) {
  return value_and_grad(f, inputs).grads;
}

struct Pullback::State {
  std::vector<Tensor> outputs;  // with their tape links
  Leaves leaves;
  std::vector<Tensor> primal_like;  // shape/dtype of each primal (undefined aux, shared storage)
  std::uint64_t first_seq = 0;      // Note [Functional passes stay inside their graph]
};

std::vector<Tensor> Pullback::operator()(std::span<const Tensor> cotangents) const {
  if (!state_)
    throw Error(ErrorKind::RuntimeState, "pullback: this Pullback is empty (default-constructed)");
  const State& s = *state_;
  if (cotangents.size() != s.outputs.size())
    throw Error(ErrorKind::InvalidArgument, "pullback: got " + std::to_string(cotangents.size()) +
                                                " cotangents; expected one per output (" +
                                                std::to_string(s.outputs.size()) + ")");
  SmallVector<Tensor, 2> roots, cts;
  for (std::size_t k = 0; k < cotangents.size(); ++k) {
    if (!cotangents[k].defined()) continue;
    check_like(cotangents[k], s.outputs[k], "pullback", "cotangent", k);
    refuse_reverse_over_reverse(cotangents[k], "pullback", "cotangent", k);
    if (!s.outputs[k].requires_grad()) continue;
    roots.push_back(s.outputs[k]);
    cts.push_back(cotangents[k]);
  }
  std::vector<Tensor> grads(s.primal_like.size());
  if (!roots.empty())
    detail::run_backward(roots, cts, true, s.leaves.auxes, grads, "pullback", s.first_seq);
  fill_zeros(grads, s.primal_like);
  return grads;
}

VjpResult vjp(const MultiFn& f, std::span<const Tensor> primals) {
  auto s = std::make_shared<Pullback::State>();
  s->leaves = make_leaves(primals, "vjp");
  s->first_seq = detail::next_node_seq();
  {
    GradModeGuard on(true);
    s->outputs = f(s->leaves.span());
  }
  check_defined(s->outputs, "vjp", "output");
  for (const Tensor& p : primals) s->primal_like.push_back(detach(p));
  VjpResult r;
  for (const Tensor& o : s->outputs) r.outputs.push_back(detail::without_grad(o));
  r.pullback = Pullback(std::move(s));
  return r;
}

VjpResult vjp(const MultiFn& f, std::initializer_list<Tensor> primals) {
  return vjp(f, std::span<const Tensor>(primals.begin(), primals.size()));
}
VjpResult vjp(const ScalarFn& f, std::span<const Tensor> primals) {
  auto multi = [&](std::span<const Tensor> in) { return std::vector<Tensor>{f(in)}; };
  return vjp(MultiFn(multi), primals);
}
VjpResult vjp(const ScalarFn& f, std::initializer_list<Tensor> primals) {
  return vjp(f, std::span<const Tensor>(primals.begin(), primals.size()));
}

JvpResult jvp(const MultiFn& f, std::span<const Tensor> primals, std::span<const Tensor> tangents) {
  check_defined(primals, "jvp", "primal");
  if (tangents.size() != primals.size())
    throw Error(ErrorKind::InvalidArgument, "jvp: got " + std::to_string(primals.size()) +
                                                " primals and " + std::to_string(tangents.size()) +
                                                " tangents; expected one each");
  for (std::size_t i = 0; i < primals.size(); ++i)
    if (tangents[i].defined()) {
      check_like(tangents[i], primals[i], "jvp", "tangent", i);
      if (is_integral(primals[i].dtype()))
        throw Error(ErrorKind::DTypeMismatch,
                    "jvp: primal " + std::to_string(i) + " has dtype " +
                        std::string(dtype_name(primals[i].dtype())) +
                        " and a tangent; only floating tensors carry tangents (pass an undefined "
                        "tangent for integer and bool inputs)");
    }
  // Note [One tangent level]: the duals carry only the new tangent (and trace state). A primal
  // that already carries a tangent comes from an enclosing jvp; replacing that tangent would give
  // a silently wrong result for the outer jvp, so nesting is refused.
  for (std::size_t i = 0; i < primals.size(); ++i)
    if (detail::tangent_of(primals[i]).defined())
      throw Error(ErrorKind::Unsupported,
                  "jvp: primal " + std::to_string(i) + " (" +
                      detail::describe(primals.subspan(i, 1)) + ")" +
                      " carries the tangent of an enclosing jvp; nested forward mode (jvp or hvp "
                      "inside jvp, e.g. third derivatives) is not supported");
  std::vector<Tensor> duals;
  for (std::size_t i = 0; i < primals.size(); ++i) {
    Tensor d = detach(primals[i]);
    if (tangents[i].defined()) {
      auto a = d.aux() ? std::make_shared<TensorAux>(*d.aux()) : detail::new_aux();
      a->set_tangent(tangents[i], d, "jvp");
      d.set_aux(std::move(a));
    }
    duals.push_back(std::move(d));
  }
  std::vector<Tensor> outs = f(duals);
  check_defined(outs, "jvp", "output");
  // Note [Tangent versions]: an output's tangent must still describe it.
  for (std::size_t k = 0; k < outs.size(); ++k)
    detail::check_tangent_current(outs[k], "jvp", "f", "output", k);
  JvpResult r;
  for (const Tensor& o : outs) {
    const Tensor& t = detail::tangent_of(o);
    r.tangents.push_back(t.defined() ? detail::without_tangent(t) : zeros(o.shape(), o.dtype()));
    r.outputs.push_back(detail::without_tangent(o));
  }
  return r;
}

JvpResult jvp(const MultiFn& f, std::initializer_list<Tensor> primals,
              std::initializer_list<Tensor> tangents) {
  return jvp(f, std::span<const Tensor>(primals.begin(), primals.size()),
             std::span<const Tensor>(tangents.begin(), tangents.size()));
}
JvpResult jvp(const ScalarFn& f, std::span<const Tensor> primals,
              std::span<const Tensor> tangents) {
  auto multi = [&](std::span<const Tensor> in) { return std::vector<Tensor>{f(in)}; };
  return jvp(MultiFn(multi), primals, tangents);
}
JvpResult jvp(const ScalarFn& f, std::initializer_list<Tensor> primals,
              std::initializer_list<Tensor> tangents) {
  return jvp(f, std::span<const Tensor>(primals.begin(), primals.size()),
             std::span<const Tensor>(tangents.begin(), tangents.size()));
}

std::vector<Tensor> hvp(const ScalarFn& f, std::span<const Tensor> primals,
                        std::span<const Tensor> v) {
  auto g = [&](std::span<const Tensor> in) { return grad(f, in); };
  return jvp(MultiFn(g), primals, v).tangents;
}
std::vector<Tensor> hvp(const ScalarFn& f, std::initializer_list<Tensor> primals,
                        std::initializer_list<Tensor> v) {
  return hvp(f, std::span<const Tensor>(primals.begin(), primals.size()),
             std::span<const Tensor>(v.begin(), v.size()));
}

}  // namespace tenferro
