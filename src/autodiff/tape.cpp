// Recording: grad mode, tape nodes and the tape interpreter (Note [Tape graph]).
#include "autodiff/tape.hpp"

#include <atomic>

#include "core/pool.hpp"
#include "primitives/interpreters.hpp"
#include "tenferro/autodiff.hpp"

namespace tenferro {

namespace {
thread_local bool t_grad_enabled = true;
}

bool is_grad_enabled() noexcept { return t_grad_enabled; }

GradModeGuard::GradModeGuard(bool enabled) : previous_(t_grad_enabled) { t_grad_enabled = enabled; }
GradModeGuard::~GradModeGuard() { t_grad_enabled = previous_; }

namespace detail {

bool grad_enabled() noexcept { return t_grad_enabled; }

namespace {

std::atomic<std::uint64_t> g_next_seq{1};

// Note [Iterative graph destruction]: dropping the last tensor of a long chain would destroy its
// nodes recursively (node -> edge aux -> grad_fn -> node ...) and overflow the stack for deep
// graphs. A dying node instead hands uniquely owned predecessors to a per-thread list that the
// outermost destructor drains in a loop.
struct DrainState {
  bool active;
  bool dead;
};
thread_local DrainState t_drain_state{};
struct DrainList {
  SmallVector<std::shared_ptr<TapeNode>, 16> nodes;
  ~DrainList() { t_drain_state.dead = true; }
};
thread_local DrainList t_drain_list;

}  // namespace

TapeNode::~TapeNode() {
  if (prim_inline) prim->~Primitive();
  for (std::size_t k = 0; k < kInlineLayers; ++k)
    if (inline_layers & (1u << k)) inline_layer(k)->~TensorAux();
  if (t_drain_state.dead) return;  // thread exit: plain recursive destruction
  for (auto& e : edges) {
    if (!e || e.use_count() != 1 || !e->grad_fn) continue;
    if (e->grad_fn.use_count() == 0) {  // a layer inside its producer, which e alone owns
      TapeNode* producer = tape_node(e.get());
      t_drain_list.nodes.push_back(std::shared_ptr<TapeNode>(std::move(e), producer));
    } else if (e->grad_fn.use_count() == 1) {
      t_drain_list.nodes.push_back(std::static_pointer_cast<TapeNode>(std::move(e->grad_fn)));
    }
  }
  if (t_drain_state.active) return;
  t_drain_state.active = true;
  auto& list = t_drain_list.nodes;
  while (!list.empty()) {
    std::shared_ptr<TapeNode> n = std::move(list.back());
    list.pop_back();
    n.reset();  // may append more predecessors
  }
  t_drain_state.active = false;
}

void TapeNode::set_primitive(const Primitive& p) {
  if (p.is_static()) {  // lives until exit: keep the object itself (no copy, no count, no call)
    prim = &p;
    return;
  }
  prim = p.clone_into(prim_buf, sizeof(prim_buf));
  prim_inline = prim != nullptr;
  if (!prim) {
    prim_shared = p.share();
    prim = prim_shared.get();
  }
}

void TapeNode::release() noexcept {
  saved.clear();
  n_inputs = 0;  // inputs() and outputs() stay empty spans
  edges.clear();
  cotangents.clear();
  versions.clear();
  released = true;
}

namespace {

// The message of every version check: "<api>: <what> was modified in place by '<writer>' after
// <when> (version <saw>, now <now>); <consequence>".
[[noreturn]] void throw_modified(const char* api, const std::string& what, const Tensor& t,
                                 const std::string& when, std::uint32_t saw,
                                 const char* consequence) {
  const Storage& s = *t.storage().get();
  const char* writer = s.writer.load(std::memory_order_relaxed);
  throw Error(ErrorKind::RuntimeState,
              std::string(api) + ": " + what + " was modified in place by '" +
                  (writer ? writer : "an in-place write") + "' after " + when + " (version " +
                  std::to_string(saw) + ", now " + std::to_string(s.current_version()) + "); " +
                  consequence +
                  ". Modify a copy instead, or recompute the forward pass after modifying it");
}

std::string operand(const Tensor& t, const char* role, std::size_t index, std::string_view op) {
  return std::string(role) + " " + std::to_string(index) + " (" +
         describe(std::span<const Tensor>(&t, 1)) + ") of '" + std::string(op) + "'";
}

}  // namespace

void throw_stale_tangent(const Tensor& t, const TensorAux& a, const char* api, std::string_view op,
                         const char* role, std::size_t index) {
  const std::string source = "'" + std::string(a.tangent_source ? a.tangent_source : "jvp") + "'";
  if (version_of(t) != a.primal_version)
    throw_modified(api, operand(t, role, index, op) + ", which carries a tangent from " + source, t,
                   source + " attached the tangent", a.primal_version,
                   "the tangent no longer describes the value, so derivatives would be wrong");
  throw_modified(api, "the tangent of " + operand(t, role, index, op) + ", from " + source,
                 a.tangent, source + " attached it", a.tangent_version,
                 "derivatives would be wrong");
}

void throw_saved_modified(const TapeNode& n, const char* api) {
  const std::size_t ni = n.n_inputs;
  for (std::size_t i = 0; i < n.versions.size(); ++i) {
    const bool input = i < ni;
    const Tensor& t = n.saved[i];
    const char* role = input ? "input" : "output";
    const std::size_t index = input ? i : i - ni;
    if (version_of(t) != n.versions[i]) {
      const std::string op(n.primitive().name());
      throw_modified(api, operand(t, role, index, op) + ", saved for the gradient,", t,
                     "'" + op + "' saved it", n.versions[i], "the gradient would be wrong");
    }
    check_tangent_current(t, api, n.primitive().name(), role, index);
  }
  throw Error(ErrorKind::RuntimeState, std::string(api) + ": internal error: a saved tensor of '" +
                                           std::string(n.primitive().name()) +
                                           "' changed but none was found stale");
}

std::shared_ptr<TensorAux> new_aux() {
  return std::allocate_shared<TensorAux>(PoolAllocator<TensorAux>{});
}

namespace {
// `a` as a layer of `level`'s transform on top of `inner` (trace state copied).
void init_layer(TensorAux& a, const TensorAux& level, std::shared_ptr<TensorAux> inner) {
  a.kind = level.kind;
  a.depth = level.depth;
  a.level = level.level;
  a.copy_trace(inner.get());
  a.inner = std::move(inner);
}
}  // namespace

std::shared_ptr<TensorAux> new_layer(const TensorAux& level, std::shared_ptr<TensorAux> inner) {
  auto a = new_aux();
  init_layer(*a, level, std::move(inner));
  return a;
}

Tensor strip_level(const Tensor& t, const TensorAux& level) {
  const std::shared_ptr<TensorAux>& a = live_aux(t.aux());
  if (is_layer_of(a.get(), level)) return with_aux(t, a->inner);
  return a == t.aux() ? t : with_aux(t, a);
}

TensorList tape_apply(const Primitive& p, std::span<const Tensor> in, const TensorAux& level) {
  // The node is filled in place (no intermediate lists); if bind throws, it goes back to the pool.
  auto node = std::allocate_shared<TapeNode>(PoolAllocator<TapeNode>{});
  bool plain = true;
  for (const Tensor& t : in) {
    const std::shared_ptr<TensorAux>& a = live_aux(t.aux());
    const bool ours = is_layer_of(a.get(), level);
    const std::shared_ptr<TensorAux>& below = ours ? a->inner : a;
    plain = plain && !below;
    Tensor& saved = node->saved.emplace_back();  // t without this level's layer
    saved.set_layout_unchecked(t.storage(), t.layout_ref(), t.offset());
    if (below) saved.set_aux(below);
    node->versions.push_back(version_of(t));  // Note [Saved versions]
    node->edges.push_back(ours && a->has_edge() ? a : nullptr);
  }
  // The lower levels and traces see this bind. Note [Recorded op runs its kernel]: when no input
  // keeps a layer below this level (the common case: one grad, no trace), bind would only
  // re-check the inputs (bind's caller did) and find no aux, so the eager interpreter is called
  // directly.
  node->n_inputs = in.size();
  TensorList out = plain ? eager_apply(p, node->inputs()) : bind(p, node->inputs());
  node->set_primitive(p);
  node->seq = g_next_seq.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t k = 0; k < out.size(); ++k) {
    node->saved.push_back(out[k]);
    node->versions.push_back(version_of(out[k]));
    if (is_integral(out[k].dtype())) continue;  // indices, masks: never differentiable
    if (k < TapeNode::kInlineLayers) {          // Note [Layers inside the node]
      TensorAux* a = new (node->layer_buf[k]) TensorAux();
      node->inline_layers |= static_cast<std::uint8_t>(1u << k);
      init_layer(*a, level, out[k].aux());
      a->grad_fn = std::shared_ptr<GradFnBase>(std::shared_ptr<GradFnBase>(), node.get());
      a->output_index = static_cast<int>(k);
      out[k].set_aux(std::shared_ptr<TensorAux>(node, a));
      continue;
    }
    auto aux = new_layer(level, out[k].aux());
    aux->grad_fn = node;
    aux->output_index = static_cast<int>(k);
    out[k].set_aux(std::move(aux));
  }
  return out;
}

}  // namespace detail
}  // namespace tenferro
