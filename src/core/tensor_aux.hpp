// The autodiff / trace block attached to a tensor (Note [Tensor aux] in tenferro/tensor.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

// Note [Core hooks]
// Core knows nothing of the layers above it (arrows point downward only). What autodiff and
// tracing attach to a tensor is held through two opaque bases that core owns, as c10's TensorImpl
// holds an AutogradMetaInterface: autodiff's TapeNode derives from GradFnBase and trace's
// TraceState from TraceBase, and only those layers downcast (tape_node() in src/autodiff/tape.hpp,
// trace_of() in src/trace/trace_state.hpp). The bases have no virtual functions: a shared_ptr made
// from the derived type keeps the derived deleter, so nothing pays for a vtable. Likewise the view
// methods of Tensor (reshape, permute, ...) are defined in core and call the catalog ops through a
// table the op layer installs (src/core/tensor_hooks.hpp).
struct GradFnBase {
 protected:
  GradFnBase() = default;
  ~GradFnBase() = default;
};
struct TraceBase {
 protected:
  TraceBase() = default;
  ~TraceBase() = default;
};

// Note [Autodiff levels]: every transform that differentiates -- the eager tape, and each call
// of grad / value_and_grad / vjp / jvp -- is a *level*. The eager tape (requires_grad_ leaves,
// backward) is depth 0; a functional transform gets the depth one above the deepest transform
// running on its thread, and an AdLevel of its own that says whether it is still running. A
// tensor's autodiff state is a stack of layers, one per level it takes part in, the deepest
// level on top: `TensorAux::inner` is the same tensor with the top layer removed. An op is
// interpreted by the level of the highest layer among its inputs, which removes that layer,
// binds the op again on what is below (other levels, tracing, the concrete kernel) and puts its
// own layer on the results. So the rules of a level run on tensors that carry the lower levels,
// and every derivative is itself differentiable by the enclosing levels: reverse over reverse,
// forward over forward and all mixtures, to any order (JAX's design). Two levels are never
// confused: a layer is matched by its AdLevel, not by its depth, and a layer of a transform that
// has returned (a tensor that escaped its function) is inert -- removed before dispatch -- since
// no derivative can be taken at that level any more.
enum class AuxKind : std::uint8_t {
  none,     // no autodiff layer: only trace state
  tape,     // reverse mode: a leaf requiring grad, or the output of a recorded node
  forward,  // forward mode: a tangent
};

/// A functional transform's level (Note [Autodiff levels]); the eager tape has none.
struct AdLevel {
  std::uint32_t depth = 1;
  std::atomic<bool> live{true};
  const char* transform = "";  // "grad", "vjp", "jvp": a static string, for messages
};

struct TensorAux {
  // User-provided, so that allocate_shared's value-initialisation does not zero the block before
  // the members' own initialisers run.
  TensorAux() {}  // NOLINT(modernize-use-equals-default)

  AuxKind kind = AuxKind::none;
  std::uint32_t depth = 0;           // 0: the eager tape; >= 1: level->depth
  std::shared_ptr<AdLevel> level;    // null for the eager tape and for kind none
  std::shared_ptr<TensorAux> inner;  // the state below this layer (null: none)

  // Reverse mode: a leaf requires grad and accumulates `grad`; a non-leaf records its producer.
  bool requires_grad = false;
  std::shared_ptr<GradFnBase> grad_fn;  // a TapeNode (src/autodiff)
  int output_index = 0;
  Tensor grad;
  // Backward stages a leaf's gradient here and commits it only when the whole backward pass
  // succeeded (Note [Backward is all-or-nothing] in src/autodiff/tape.hpp). Empty otherwise.
  Tensor pending;
  bool staged = false;
  // Forward mode: the tangent carried by this tensor at this level, who attached it ("jvp", or
  // the op whose jvp rule computed it; a static string) and the storage versions of the primal
  // and of the tangent at that moment. A tangent whose primal or own storage was written in
  // place since is stale and is refused (Note [Version counter] in tenferro/storage.hpp).
  Tensor tangent;
  const char* tangent_source = nullptr;
  std::uint32_t primal_version = 0;
  std::uint32_t tangent_version = 0;
  // Tracing: the symbolic value this tensor stands for (copied into every layer, so the top
  // layer answers for the tensor).
  std::shared_ptr<TraceBase> trace;  // a TraceState (src/trace)
  std::int64_t trace_value = -1;

  bool empty() const { return kind == AuxKind::none && !trace; }
  /// A reverse-mode layer with a gradient edge (a requires_grad leaf or a recorded output).
  bool has_edge() const { return kind == AuxKind::tape && (requires_grad || grad_fn); }
  /// False once the transform that made this layer has returned (Note [Autodiff levels]).
  bool live() const noexcept { return !level || level->live.load(std::memory_order_relaxed); }
  /// True when `o` is a layer of the same level.
  bool same_level(const TensorAux& o) const noexcept {
    return depth == o.depth && level == o.level;
  }

  /// Attaches tangent `t` to `primal` (whose aux this is), recording both storage versions.
  void set_tangent(Tensor t, const Tensor& primal, const char* source) noexcept;
  /// Takes `from`'s trace state.
  void copy_trace(const TensorAux* from) {
    if (!from) return;
    trace = from->trace;
    trace_value = from->trace_value;
  }
};

/// The version of t's storage (Note [Version counter]); 0 for symbolic tensors.
inline std::uint32_t version_of(const Tensor& t) noexcept {
  return t.has_storage() ? t.storage()->current_version() : 0;
}

inline void TensorAux::set_tangent(Tensor t, const Tensor& primal, const char* source) noexcept {
  tangent_version = version_of(t);
  primal_version = version_of(primal);
  tangent_source = source;
  tangent = std::move(t);
}

}  // namespace tenferro::detail
