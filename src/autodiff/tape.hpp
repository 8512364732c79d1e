// The eager reverse-mode tape: nodes, aux helpers and the backward engine's entry.
//
// Note [Tape graph]: at each reverse-mode level (Note [Autodiff levels] in
// src/core/tensor_aux.hpp), every op that has an input with a layer of that level (grad mode on)
// records one TapeNode. The node keeps the primitive, its inputs and outputs *without* that layer
// (they keep the lower levels and trace state, see Note [Forward over reverse]) and one edge per
// input: the input's layer of this level when it has one, else null. An edge to a layer with a
// grad_fn leads to the producing node (cotangent slot aux->output_index); an edge to a layer
// without one is a leaf whose gradient is accumulated. Outputs point back at the node through
// their own layer (grad_fn); the node never points at its outputs' layers, so there is no cycle
// and the graph dies with the last tensor that can reach it.
//
// Note [Topological order by sequence]: nodes get an increasing sequence number when recorded. A
// node's inputs were produced before it, so every consumer of a node has a larger number and
// processing the reachable nodes in decreasing sequence order is a reverse topological order.
//
// Note [Backward is all-or-nothing]: backward first walks the reachable graph and checks that no
// node was freed; then it runs the rules, collecting leaf gradients in TensorAux::pending. Only
// when every rule succeeded are the pending gradients committed to the leaves and (without
// retain_graph) the nodes' saved tensors freed. An error leaves the tape and the leaves' grads
// exactly as they were.
//
// Note [Saved versions]: the node records, next to each saved input and output, the version of
// its storage when it was saved (Note [Version counter] in tenferro/storage.hpp). Backward checks
// every reachable node's saved tensors -- and the tangents they carry, for forward over reverse
// -- while it walks the graph, before any rule runs: a tensor written in place since it was saved
// would make the rule compute a wrong gradient silently, so it is Error{RuntimeState} naming the
// op that saved it and the op that wrote it, and nothing changes (Note [Backward is
// all-or-nothing]). The check is conservative: every input and output is saved, including those
// a rule reads only the shape of (add, sum, views). Recording pays one relaxed load per saved
// tensor; a plain op pays nothing.
//
// Note [Forward over reverse]: the saved inputs/outputs keep the layers of the lower levels
// (tangents, other tapes), and the vjp rules that backward runs are ordinary ops on them, so the
// enclosing levels see the rules: jvp of a function that calls grad gives Hessian-vector
// products, grad of it gives reverse over reverse, to any order.
//
// Note [Create graph]: PyTorch's create_graph for the eager tape, which is one level, so its
// backward cannot rely on a lower level to record the rules. With create_graph, backward hands
// the rules the saved tensors with their eager layer restored (inputs: the edge; outputs: a fresh
// layer pointing at the node) and grad mode as the caller has it, so the rules' ops are recorded
// on the same tape and the leaves' gradients carry a graph. Like PyTorch, a leaf's grad() then
// refers to the leaf (a reference cycle): reset it with zero_grad_() when done.
//
// Note [Cheap tape]: a node comes from a per-thread free list (Note [Tape pool]); primitives up
// to kInlinePrimitive (368) bytes are copied into the node itself (Primitive::clone_into), larger
// ones are shared with one allocation (Primitive::share). Backward keeps its work lists in
// SmallVectors and cotangent slots in the nodes.
//
// Note [Layers inside the node]: the reverse-mode layers of a node's first kInlineLayers outputs
// are built inside the node, not allocated one by one: an output tensor's aux is an aliasing
// shared_ptr that owns the node and points at its layer, so the tensor keeps the node alive
// exactly as a separate layer's grad_fn did. Such a layer's grad_fn points at the node without
// owning it (an empty owner): owning would make the node own itself. The node destroys these
// layers with itself; its destructor's drain (Note [Iterative graph destruction]) takes over an
// edge to such a layer as an owner of the producer node.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <span>

#include "core/tensor_aux.hpp"
#include "primitives/primitive.hpp"

namespace tenferro::detail {

// Sized for the largest catalog primitive, dot_general (four Dims of dimension numbers and
// their precomputed masks, Note [dot_general list masks]).
inline constexpr std::size_t kInlinePrimitive = 368;

struct TapeNode : GradFnBase, std::enable_shared_from_this<TapeNode> {
  // User-provided, so that allocate_shared's value-initialisation does not zero the whole node
  // (prim_buf alone is 368 bytes) before the members' own initialisers run.
  TapeNode() {}  // NOLINT(modernize-use-equals-default)
  TapeNode(const TapeNode&) = delete;
  TapeNode& operator=(const TapeNode&) = delete;
  ~TapeNode();

  void set_primitive(const Primitive& p);
  const Primitive& primitive() const { return *prim; }
  /// Drops saved tensors and edges (after a backward without retain_graph).
  void release() noexcept;

  /// The saved inputs and outputs (reverse-mode state of this level stripped).
  std::span<const Tensor> inputs() const noexcept { return {saved.data(), n_inputs}; }
  std::span<const Tensor> outputs() const noexcept {
    return {saved.data() + n_inputs, saved.size() - n_inputs};
  }
  std::size_t output_count() const noexcept { return saved.size() - n_inputs; }

  const Primitive* prim = nullptr;
  std::shared_ptr<const Primitive> prim_shared;  // when it is neither static nor inline
  // The inputs, then the outputs: one list for both (a tiny op's node builds, clears and destroys
  // one list instead of two).
  SmallVector<Tensor, 4> saved;
  std::size_t n_inputs = 0;
  SmallVector<std::shared_ptr<TensorAux>, 2> edges;  // per input; null: no gradient needed
  TensorList cotangents;                             // per output, live only during backward
  SmallVector<std::uint32_t, 4> versions;  // per input, then per output (Note [Saved versions])
  std::uint64_t seq = 0;
  std::uint64_t visit = 0;  // backward's walk mark
  bool released = false;
  bool prim_inline = false;        // prim lives in prim_buf (destroyed with the node)
  std::uint8_t inline_layers = 0;  // bit k: output k's layer is built in layer_buf
  alignas(std::max_align_t) unsigned char prim_buf[kInlinePrimitive];
  static constexpr std::size_t kInlineLayers = 2;  // Note [Layers inside the node]
  alignas(TensorAux) unsigned char layer_buf[kInlineLayers][sizeof(TensorAux)];

  TensorAux* inline_layer(std::size_t k) noexcept {
    return std::launder(reinterpret_cast<TensorAux*>(layer_buf[k]));
  }
};

/// The node that produced the tensor owning `a` (null for a leaf, a concrete tensor or no aux);
/// core holds it as a GradFnBase (Note [Core hooks] in src/core/tensor_aux.hpp).
inline TapeNode* tape_node(const TensorAux* a) noexcept {
  return a ? static_cast<TapeNode*>(a->grad_fn.get()) : nullptr;
}

/// A fresh aux block from the tape pool.
std::shared_ptr<TensorAux> new_aux();
/// `t` with autodiff/trace state `a` (shares t's storage).
inline Tensor with_aux(const Tensor& t, std::shared_ptr<TensorAux> a) {
  Tensor r;  // t's three other members, without a count up and down of t's own aux
  r.set_layout_unchecked(t.storage(), t.layout_ref(), t.offset());
  r.set_aux(std::move(a));
  return r;
}
/// `a` without the layers of transforms that have returned (Note [Autodiff levels]).
inline const std::shared_ptr<TensorAux>& live_aux(const std::shared_ptr<TensorAux>& a) noexcept {
  const std::shared_ptr<TensorAux>* p = &a;
  while (*p && (*p)->kind != AuxKind::none && !(*p)->live()) p = &(*p)->inner;
  return *p;
}
/// True when `a` is an autodiff layer of `level`'s transform.
inline bool is_layer_of(const TensorAux* a, const TensorAux& level) noexcept {
  return a && a->kind != AuxKind::none && a->same_level(level);
}
/// The top live layer of `t` when it belongs to `level`'s transform, else null.
inline TensorAux* layer_of(const Tensor& t, const TensorAux& level) noexcept {
  TensorAux* a = live_aux(t.aux()).get();
  return is_layer_of(a, level) ? a : nullptr;
}
/// `t` without its layer of `level` (and without inert layers above it); `t` when it has none.
Tensor strip_level(const Tensor& t, const TensorAux& level);
/// A new layer of `level`'s kind and level on top of `inner` (trace state copied).
std::shared_ptr<TensorAux> new_layer(const TensorAux& level, std::shared_ptr<TensorAux> inner);
/// a + b for equal shapes and dtypes, through bind (so it records tangents and traces).
Tensor accumulate(const Tensor& a, const Tensor& b);
/// True when accumulate_in_place(acc, v) may run: acc is the only reference to its contiguous
/// storage, or v is acc itself and the two are its only references (Note [Twin cotangents] in
/// accumulate.cpp), and neither tensor carries autodiff/trace state (so nobody can observe the
/// update).
bool accumulates_in_place(const Tensor& acc, const Tensor& v) noexcept;
/// acc += v in place, under the conditions of accumulates_in_place(). Runs inline (no backend
/// entry, no allocation): a leaf's gradient accumulation in a training loop costs one pass.
void accumulate_in_place(Tensor& acc, const Tensor& v) noexcept;
/// The seed of a backward pass from a one-element floating `out`: 1 in out's shape and dtype,
/// written directly (no fill kernel, no backend entry; `api` names a failed allocation).
Tensor unit_seed(const Tensor& out, const char* api);
/// slot = slot + v (slot undefined means zero). Note [Accumulating in place]: backward's
/// cotangent slots (a node's output cotangents, a leaf's pending gradient) usually hold the only
/// reference to a rule's fresh result, so a second contribution is added into it in place (no
/// backend entry, no allocation) instead of binding ad_accumulate: the same sum, elementwise
/// a + b, bit for bit. accumulates_in_place() refuses whenever anyone else could observe the
/// write (a shared storage, a view of a saved tensor, the caller's cotangent) or a level or
/// trace must see the add (either tensor carries aux), and then the add is bound as before.
/// v is an rvalue the caller is done with, so that slot can become its only owner; it is left
/// empty either way (its reference must not keep a later in-place accumulation from happening).
inline void accumulate_into(Tensor& slot, Tensor&& v) {
  if (!slot.defined()) {
    slot = std::move(v);
    return;
  }
  if (accumulates_in_place(slot, v))
    accumulate_in_place(slot, v);
  else
    slot = accumulate(slot, v);
  v = Tensor();
}

/// The RuntimeState error for a node whose saved_are_current() is false, naming the stale
/// tensor, the op that saved it and the op that wrote it. `api` opens the message ("backward").
[[noreturn]] void throw_saved_modified(const TapeNode& n, const char* api);
/// Throws RuntimeState for `t`, whose forward layer `a` carries a stale tangent: its primal or
/// the tangent itself was written in place since the tangent was attached. `role` and `index`
/// say which operand of `op` t is ("input", 1); `api` opens the message.
[[noreturn]] void throw_stale_tangent(const Tensor& t, const TensorAux& a, const char* api,
                                      std::string_view op, const char* role, std::size_t index);

inline bool tangent_is_stale(const TensorAux& a, const Tensor& primal) noexcept {
  return version_of(primal) != a.primal_version || version_of(a.tangent) != a.tangent_version;
}
/// Throws RuntimeState when a forward layer of `t` carries a stale tangent.
inline void check_tangent_current(const Tensor& t, const char* api, std::string_view op,
                                  const char* role, std::size_t index) {
  for (const TensorAux* a = t.aux().get(); a; a = a->inner.get())
    if (a->kind == AuxKind::forward && tangent_is_stale(*a, t))
      throw_stale_tangent(t, *a, api, op, role, index);
}
/// True when `t`, saved at version `v`, is unchanged, and so are the tangents it may carry.
inline bool saved_is_current(const Tensor& t, std::uint32_t v) noexcept {
  if (version_of(t) != v) return false;
  for (const TensorAux* a = t.aux().get(); a; a = a->inner.get())
    if (a->kind == AuxKind::forward && tangent_is_stale(*a, t)) return false;
  return true;
}
/// True when no tensor node `n` saved, nor the tangent it carries, was written in place since it
/// was saved (Note [Saved versions]).
inline bool saved_are_current(const TapeNode& n) noexcept {
  const std::uint32_t* v = n.versions.data();
  for (const Tensor& t : n.saved)
    if (!saved_is_current(t, *v++)) return false;
  return true;
}

/// Throws RuntimeState (a rule bug): `got` does not have the shape and dtype of `input`.
[[noreturn]] void throw_vjp_mismatch(const Primitive& p, const Tensor& got, const Tensor& input);
/// Throws RuntimeState (a rule bug) unless `got` has the shape and dtype of `input`. Inline, and
/// the layout records first (one record means one shape and dtype, Note [Layout record]): backward
/// checks every cotangent a rule returns.
inline void check_vjp_result(const Primitive& p, const Tensor& got, const Tensor& input) {
  const Layout* a = got.layout();
  const Layout* b = input.layout();
  if (a == b) return;
  bool same = a && b && a->dtype == b->dtype && a->shape.size() == b->shape.size();
  for (std::size_t i = 0; same && i < a->shape.size(); ++i) same = a->shape[i] == b->shape[i];
  if (!same) [[unlikely]]
    throw_vjp_mismatch(p, got, input);
}

/// How a backward pass runs.
struct BackwardPass {
  bool retain_graph = false;
  /// Run the rules on the saved tensors with their reverse-mode layer of this level restored, so
  /// the pass itself is recorded (eager tape only; Note [Create graph]).
  bool create_graph = false;
  const char* api = "backward";  // opens error messages
};

/// Runs backward from the `roots` layers (all of one level) with `cotangents` (validated by the
/// caller; undefined = zero; moved from: each starts its root's slot without a copy). When
/// `capture` is empty, leaf gradients accumulate into the leaves' grad. Otherwise only the leaves
/// listed in `capture` (distinct layers: each gradient is moved out of its leaf) receive gradients,
/// written to `captured` (same length; undefined where none arrived) and no leaf's grad changes.
/// Throws RuntimeState for a freed graph or a saved tensor written in place since (Note [Saved
/// versions]).
///
/// The walk follows edges, which are layers of the roots' level only (Note [Autodiff levels]),
/// so a pass never leaves its own graph: a pullback called while another backward is running (a
/// Krylov solver's adjoint map applying vjp(f) inside backward, src/krylov) touches neither that
/// pass's staged leaves nor its partial cotangents. The rules run on the saved tensors, which
/// carry only lower levels, so their ops are recorded by the enclosing levels (grad of grad).
void run_backward(std::span<TensorAux* const> roots, std::span<Tensor> cotangents,
                  const BackwardPass& pass, std::span<TensorAux* const> capture,
                  std::span<Tensor> captured);

}  // namespace tenferro::detail
