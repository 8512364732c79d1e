// The current backend of a thread (tenferro/eager.hpp): BackendGuard and current_backend().
//
// Note [Current backend frames]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each BackendGuard, and the callback frame of every scope and session (CurrentBackendScope),
// is a CurrentBackendFrame linked into a per-thread doubly linked list, most recent on top; the
// current backend is the top frame's (cached in t_current_backend, so current_backend() is one
// load), else the default backend. A frame that ends unlinks itself wherever it is. Restoring
// "the previous pointer" instead, as guards did, is right only for strictly nested lifetimes: a
// guard that ended before a later one (std::optional<BackendGuard> reset early, Python's
// use_backend exited out of order, a guard made inside a callback that outlives it) made the
// thread's current backend a dead guard's or a finished callback frame's, a dangling reference.
// Frames are thread-bound (eager.hpp): the list is only ever touched by its own thread.
#include "cpu/backend_state.hpp"
#include "tenferro/eager.hpp"

namespace tenferro {

namespace {

thread_local constinit const CpuBackend* t_current_backend = nullptr;  // the top frame's backend
thread_local constinit detail::CurrentBackendFrame* t_top = nullptr;

void push(detail::CurrentBackendFrame& f, const CpuBackend* backend) noexcept {
  f.backend = backend;
  f.below = t_top;
  f.above = nullptr;
  if (t_top != nullptr) t_top->above = &f;
  t_top = &f;
  t_current_backend = backend;
}

void unlink(detail::CurrentBackendFrame& f) noexcept {
  if (f.above != nullptr)
    f.above->below = f.below;
  else
    t_top = f.below;  // f was the top
  if (f.below != nullptr) f.below->above = f.above;
  t_current_backend = t_top != nullptr ? t_top->backend : nullptr;
}

}  // namespace

BackendGuard::BackendGuard(CpuBackend backend) : backend_(std::move(backend)) {
  push(frame_, &backend_);
}
BackendGuard::~BackendGuard() { unlink(frame_); }

const CpuBackend& current_backend() {
  return t_current_backend ? *t_current_backend : default_backend();
}

namespace detail {

CurrentBackendScope::CurrentBackendScope(const CpuBackend& backend) noexcept {
  push(frame_, &backend);
}
CurrentBackendScope::~CurrentBackendScope() { unlink(frame_); }

const BackendState* current_backend_state() noexcept {
  return t_current_backend ? &BackendAccess::state(*t_current_backend) : nullptr;
}

}  // namespace detail
}  // namespace tenferro
