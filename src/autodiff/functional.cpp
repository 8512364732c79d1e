// The functional API: grad, value_and_grad, vjp (pullbacks), jvp, hvp.
//
// Note [Functional leaves]: grad/vjp call f on fresh leaves that share the inputs' storage and
// carry one new layer, of the call's own level (Note [Autodiff levels]), on top of the inputs'
// layers (so the enclosing levels and traces see through f). Their gradients are captured by the
// backward engine instead of being accumulated, so no tensor's grad() changes, and inputs that
// do not reach the output get zeros.
#include "autodiff/tape.hpp"
#include "core/pool.hpp"
#include "tenferro/autodiff.hpp"

namespace tenferro {

using detail::TensorAux;

namespace {

// Inline storage for the usual few inputs: a grad call allocates no list. The tensors own their
// layers; `auxes` names them for the backward engine's capture.
struct Leaves {
  SmallVector<Tensor, 4> tensors;
  SmallVector<TensorAux*, 4> auxes;
  std::span<const Tensor> span() const { return {tensors.data(), tensors.size()}; }
};

void check_defined(std::span<const Tensor> ts, const char* api, const char* what) {
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(api) + ": " + what + " " + std::to_string(i) + " is undefined");
}

// A functional transform's level (Note [Autodiff levels]) for the duration of the call: one
// above the deepest transform running on this thread. `proto` is a layer that names the level
// (kind, depth, AdLevel); the level goes inert when the scope ends, so a tensor that escapes the
// function keeps values but no derivative at this level.
//
// A level nobody else refers to when its scope ends (no escaped tensor, no Pullback) is kept as
// this thread's spare and revived by the next scope: a grad call in a training loop allocates no
// level. Reviving it is safe because nothing can tell the two levels apart: a layer names its
// level by pointer, and no layer of the old one exists (use_count() == 1: copies are only made
// from a reference someone holds).
thread_local std::uint32_t t_depth = 0;
thread_local std::shared_ptr<detail::AdLevel> t_spare_level;

class LevelScope {
 public:
  LevelScope(detail::AuxKind kind, const char* transform) {
    std::shared_ptr<detail::AdLevel> level = std::move(t_spare_level);
    if (level)
      level->live.store(true, std::memory_order_relaxed);
    else
      level = std::allocate_shared<detail::AdLevel>(detail::PoolAllocator<detail::AdLevel>{});
    level->depth = ++t_depth;
    level->transform = transform;
    proto_.kind = kind;
    proto_.depth = level->depth;
    proto_.level = std::move(level);
  }
  ~LevelScope() {
    proto_.level->live.store(false, std::memory_order_relaxed);
    --t_depth;
    if (proto_.level.use_count() == 1 && !t_spare_level) t_spare_level = std::move(proto_.level);
  }
  LevelScope(const LevelScope&) = delete;
  LevelScope& operator=(const LevelScope&) = delete;
  const TensorAux& proto() const { return proto_; }

 private:
  TensorAux proto_;
};

Leaves make_leaves(std::span<const Tensor> inputs, const char* api, const TensorAux& level) {
  Leaves l;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(api) + ": input " + std::to_string(i) + " is undefined");
    if (is_integral(x.dtype()))
      throw Error(ErrorKind::DTypeMismatch,
                  std::string(api) + ": input " + std::to_string(i) + " has dtype " +
                      std::string(dtype_name(x.dtype())) +
                      "; only floating tensors (f32, f64, c64, c128) can be differentiated "
                      "(capture integer and bool tensors in the function instead)");
    // The leaf keeps x's layers below its own, so the enclosing levels see through f.
    auto a = detail::new_layer(level, detail::live_aux(x.aux()));
    a->requires_grad = true;
    l.auxes.push_back(a.get());
    l.tensors.push_back(detail::with_aux(x, std::move(a)));
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
  LevelScope level(detail::AuxKind::tape, "grad");
  Leaves l = make_leaves(inputs, "grad", level.proto());
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
  if (TensorAux* root = detail::layer_of(out, level.proto())) {
    Tensor seed = detail::unit_seed(out, "grad");
    detail::run_backward({&root, 1}, {&seed, 1}, {.api = "grad"}, l.auxes, grads);
  }
  fill_zeros(grads, inputs);
  return {detail::strip_level(out, level.proto()), std::move(grads)};
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
  std::vector<Tensor> outputs;  // with their layer of the vjp's level
  Leaves leaves;
  std::vector<Tensor> primal_like;  // shape/dtype of each primal (undefined aux, shared storage)
  TensorAux level;                  // names the vjp's level (inert once vjp returned)
};

std::vector<Tensor> Pullback::operator()(std::span<const Tensor> cotangents) const {
  if (!state_)
    throw Error(ErrorKind::RuntimeState, "pullback: this Pullback is empty (default-constructed)");
  const State& s = *state_;
  if (cotangents.size() != s.outputs.size())
    throw Error(ErrorKind::InvalidArgument, "pullback: got " + std::to_string(cotangents.size()) +
                                                " cotangents; expected one per output (" +
                                                std::to_string(s.outputs.size()) + ")");
  SmallVector<TensorAux*, 2> roots;
  SmallVector<Tensor, 2> cts;
  for (std::size_t k = 0; k < cotangents.size(); ++k) {
    if (!cotangents[k].defined()) continue;
    check_like(cotangents[k], s.outputs[k], "pullback", "cotangent", k);
    // The output's layer, looked up without the liveness test: the vjp has returned.
    TensorAux* root = s.outputs[k].aux().get();
    if (!root || root->kind != detail::AuxKind::tape || root->level != s.level.level) continue;
    roots.push_back(root);
    cts.push_back(cotangents[k]);  // its own layers stay: enclosing levels see the pass
  }
  std::vector<Tensor> grads(s.primal_like.size());
  if (!roots.empty())
    detail::run_backward(roots, cts, {.retain_graph = true, .api = "pullback"}, s.leaves.auxes,
                         grads);
  fill_zeros(grads, s.primal_like);
  return grads;
}

VjpResult vjp(const MultiFn& f, std::span<const Tensor> primals) {
  auto s = std::make_shared<Pullback::State>();
  LevelScope level(detail::AuxKind::tape, "vjp");
  s->level = level.proto();
  s->leaves = make_leaves(primals, "vjp", level.proto());
  {
    GradModeGuard on(true);
    s->outputs = f(s->leaves.span());
  }
  check_defined(s->outputs, "vjp", "output");
  for (Tensor& o : s->outputs) o = detail::with_aux(o, detail::live_aux(o.aux()));
  for (const Tensor& p : primals) s->primal_like.push_back(detach(p));
  VjpResult r;
  for (const Tensor& o : s->outputs) r.outputs.push_back(detail::strip_level(o, level.proto()));
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
  // Note [Tangent levels]: each dual keeps its primal's layers below the new tangent, so the
  // enclosing levels see through f.
  LevelScope level(detail::AuxKind::forward, "jvp");
  std::vector<Tensor> duals;
  for (std::size_t i = 0; i < primals.size(); ++i) {
    const std::shared_ptr<TensorAux>& below = detail::live_aux(primals[i].aux());
    if (!tangents[i].defined()) {
      duals.push_back(detail::with_aux(primals[i], below));
      continue;
    }
    auto a = detail::new_layer(level.proto(), below);
    a->set_tangent(detail::with_aux(tangents[i], detail::live_aux(tangents[i].aux())), primals[i],
                   "jvp");
    duals.push_back(detail::with_aux(primals[i], std::move(a)));
  }
  std::vector<Tensor> outs = f(duals);
  check_defined(outs, "jvp", "output");
  JvpResult r;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const Tensor& o = outs[k];
    const TensorAux* a = detail::layer_of(o, level.proto());
    // Note [Tangent versions]: an output's tangent must still describe it.
    if (a && detail::tangent_is_stale(*a, o))
      detail::throw_stale_tangent(o, *a, "jvp", "f", "output", k);
    r.tangents.push_back(a ? a->tangent : zeros(o.shape(), o.dtype()));
    r.outputs.push_back(detail::strip_level(o, level.proto()));
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
