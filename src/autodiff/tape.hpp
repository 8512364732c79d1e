// The eager reverse-mode tape: nodes, aux helpers and the backward engine's entry.
//
// Note [Tape graph]: every op that has an input requiring grad (grad mode on) records one
// TapeNode. The node keeps the primitive, its inputs and outputs *without* reverse-mode state
// (they keep a forward tangent and trace state, see Note [Forward over reverse]) and one edge per
// input: the input's TensorAux when that input requires grad, else null. An edge to an aux with a
// grad_fn leads to the producing node (cotangent slot aux->output_index); an edge to an aux
// without one is a leaf whose gradient is accumulated. Outputs point back at the node through
// their own aux (grad_fn); the node never points at its outputs' aux, so there is no cycle and the
// graph dies with the last tensor that can reach it.
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
// Note [Forward over reverse]: the saved inputs/outputs keep their tangents, and backward runs
// the vjp rules with grad mode off, so the rules' ops go to the forward interpreter and
// propagate tangents: jvp of a function that calls grad gives Hessian-vector products.
//
// Note [Cheap tape]: a node and its outputs' aux blocks come from per-thread free lists (Note
// [Tape pool]); primitives up to kInlinePrimitive (352) bytes are copied into the node itself
// (Primitive::clone_into), larger ones are shared with one allocation (Primitive::share).
// Backward keeps its work lists in SmallVectors and cotangent slots in the nodes.
#pragma once

#include <cstdint>
#include <memory>

#include "core/tensor_aux.hpp"
#include "primitives/primitive.hpp"

namespace tenferro::detail {

// Sized for the largest catalog primitive, dot_general (four Dims of dimension numbers and
// their precomputed masks, Note [dot_general list masks]).
inline constexpr std::size_t kInlinePrimitive = 352;

struct TapeNode : GradFnBase {
  TapeNode() = default;
  TapeNode(const TapeNode&) = delete;
  TapeNode& operator=(const TapeNode&) = delete;
  ~TapeNode();

  void set_primitive(const Primitive& p);
  const Primitive& primitive() const { return *prim; }
  /// Drops saved tensors and edges (after a backward without retain_graph).
  void release() noexcept;

  const Primitive* prim = nullptr;
  std::shared_ptr<const Primitive> prim_shared;      // when the primitive is not inline
  TensorList inputs;                                 // reverse-mode state stripped
  TensorList outputs;                                // reverse-mode state stripped
  SmallVector<std::shared_ptr<TensorAux>, 2> edges;  // per input; null: no gradient needed
  TensorList cotangents;                             // per output, live only during backward
  SmallVector<std::uint32_t, 4> versions;  // per input, then per output (Note [Saved versions])
  std::uint64_t seq = 0;
  std::uint64_t visit = 0;  // backward's walk mark
  bool released = false;
  alignas(std::max_align_t) unsigned char prim_buf[kInlinePrimitive];
};

/// The node that produced the tensor owning `a` (null for a leaf, a concrete tensor or no aux);
/// core holds it as a GradFnBase (Note [Core hooks] in src/core/tensor_aux.hpp).
inline TapeNode* tape_node(const TensorAux* a) noexcept {
  return a ? static_cast<TapeNode*>(a->grad_fn.get()) : nullptr;
}

/// A fresh aux block from the tape pool.
std::shared_ptr<TensorAux> new_aux();
/// `t` without reverse-mode state (keeps tangent and trace state); no allocation when nothing is
/// kept.
Tensor without_grad(const Tensor& t);
/// `t` without its tangent (keeps reverse-mode and trace state).
Tensor without_tangent(const Tensor& t);
/// The tangent `t` carries (undefined when none).
inline const Tensor& tangent_of(const Tensor& t) {
  static const Tensor none{};
  return t.aux() ? t.aux()->tangent : none;
}
/// a + b for equal shapes and dtypes, through bind (so it records tangents and traces).
Tensor accumulate(const Tensor& a, const Tensor& b);
/// True when accumulate_in_place(acc, v) may run: acc is the only reference to its contiguous
/// storage and neither tensor carries autodiff/trace state (so nobody can observe the update).
bool accumulates_in_place(const Tensor& acc, const Tensor& v) noexcept;
/// acc += v in place, under the conditions of accumulates_in_place(). Runs inline (no backend
/// entry, no allocation): a leaf's gradient accumulation in a training loop costs one pass.
void accumulate_in_place(Tensor& acc, const Tensor& v) noexcept;
/// slot = slot + v (slot undefined means zero).
inline void accumulate_into(Tensor& slot, const Tensor& v) {
  slot = slot.defined() ? accumulate(slot, v) : v;
}

/// The RuntimeState error for a node whose saved_are_current() is false, naming the stale
/// tensor, the op that saved it and the op that wrote it. `api` opens the message ("backward").
[[noreturn]] void throw_saved_modified(const TapeNode& n, const char* api);
/// Throws RuntimeState when `t` carries a stale tangent: its primal or the tangent itself was
/// written in place since the tangent was attached. `role` and `index` say which operand of `op`
/// t is ("input", 1); `api` opens the message.
[[noreturn]] void throw_stale_tangent(const Tensor& t, const char* api, std::string_view op,
                                      const char* role, std::size_t index);

inline bool tangent_is_stale(const TensorAux& a, const Tensor& primal) noexcept {
  return version_of(primal) != a.primal_version || version_of(a.tangent) != a.tangent_version;
}
inline void check_tangent_current(const Tensor& t, const char* api, std::string_view op,
                                  const char* role, std::size_t index) {
  const TensorAux* a = t.aux().get();
  if (a && a->tangent.defined() && tangent_is_stale(*a, t))
    throw_stale_tangent(t, api, op, role, index);
}
/// True when `t`, saved at version `v`, is unchanged, and so is the tangent it may carry.
inline bool saved_is_current(const Tensor& t, std::uint32_t v) noexcept {
  if (version_of(t) != v) return false;
  const TensorAux* a = t.aux().get();
  return !a || !a->tangent.defined() || !tangent_is_stale(*a, t);
}
/// True when no tensor node `n` saved, nor the tangent it carries, was written in place since it
/// was saved (Note [Saved versions]).
inline bool saved_are_current(const TapeNode& n) noexcept {
  const std::uint32_t* v = n.versions.data();
  for (const Tensor& t : n.inputs)
    if (!saved_is_current(t, *v++)) return false;
  for (const Tensor& t : n.outputs)
    if (!saved_is_current(t, *v++)) return false;
  return true;
}

/// Throws RuntimeState (a rule bug) unless `got` has the shape and dtype of `input`.
void check_vjp_result(const Primitive& p, const Tensor& got, const Tensor& input);

/// Runs backward from `roots` with `cotangents` (validated by the caller; undefined = zero).
/// When `capture` is empty, leaf gradients accumulate into the leaves' grad. Otherwise only the
/// leaves listed in `capture` receive gradients, written to `captured` (same length; undefined
/// where none arrived) and no leaf's grad changes. Throws RuntimeState for a freed graph or a
/// saved tensor written in place since (Note [Saved versions]), messages opening with `api`.
///
/// Note [Functional passes stay inside their graph]: with `capture`, the pass visits only nodes
/// recorded since `first_seq` (next_node_seq() before the function ran; older nodes cannot depend
/// on the fresh leaves) and stages no other leaf. A pullback called while another backward is
/// running (a Krylov solver's adjoint map applying vjp(f) inside backward, src/krylov) therefore
/// never touches that pass's staged leaves or partial cotangents, and costs only its own graph.
void run_backward(std::span<const Tensor> roots, std::span<const Tensor> cotangents,
                  bool retain_graph, std::span<TensorAux* const> capture,
                  std::span<Tensor> captured, const char* api, std::uint64_t first_seq = 0);
/// The sequence number the next recorded node will get.
std::uint64_t next_node_seq() noexcept;

}  // namespace tenferro::detail
