// The autodiff / trace block attached to a tensor (Note [Tensor aux] in tenferro/tensor.hpp).
#pragma once

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

struct TensorAux {
  // Reverse mode: a leaf requires grad and accumulates `grad`; a non-leaf records its producer.
  bool requires_grad = false;
  std::shared_ptr<GradFnBase> grad_fn;  // a TapeNode (src/autodiff)
  int output_index = 0;
  Tensor grad;
  // Backward stages a leaf's gradient here and commits it only when the whole backward pass
  // succeeded (Note [Backward is all-or-nothing] in src/autodiff/tape.hpp). Empty otherwise.
  Tensor pending;
  bool staged = false;
  // Forward mode: the tangent carried by this tensor (undefined = not a dual number), who
  // attached it ("jvp", or the op whose jvp rule computed it; a static string) and the storage
  // versions of the primal and of the tangent at that moment. A tangent whose primal or own
  // storage was written in place since is stale and is refused (Note [Version counter] in
  // tenferro/storage.hpp).
  Tensor tangent;
  const char* tangent_source = nullptr;
  std::uint32_t primal_version = 0;
  std::uint32_t tangent_version = 0;
  // Tracing: the symbolic value this tensor stands for.
  std::shared_ptr<TraceBase> trace;  // a TraceState (src/trace)
  std::int64_t trace_value = -1;

  bool empty() const { return !requires_grad && !grad_fn && !tangent.defined() && !trace; }

  /// Attaches tangent `t` to `primal` (whose aux this is), recording both storage versions.
  void set_tangent(Tensor t, const Tensor& primal, const char* source) noexcept;
  /// Takes `from`'s tangent with its source and recorded versions.
  void copy_tangent(const TensorAux& from) {
    tangent = from.tangent;
    tangent_source = from.tangent_source;
    primal_version = from.primal_version;
    tangent_version = from.tangent_version;
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
