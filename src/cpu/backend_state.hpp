// The shared state behind a CpuBackend witness.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "cpu/arbiter.hpp"
#include "cpu/engine.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/eager.hpp"

namespace tenferro::detail {

/// Immutable after construction except for counters. Copies of a witness share one instance; its
/// address and `id` are the witness identity.
class BackendState {
 public:
  std::uint64_t id = 0;  // process-unique, never reused
  int threads = 1;
  BackendKind kind = BackendKind::native;
  CpuSet cpus;
  bool external = false;
  ResourceRequest request;  // what every admission of this backend claims
  std::optional<std::chrono::milliseconds> admission_timeout;  // none: wait as long as it takes
  std::uint64_t fork_generation = 0;  // Note [Fork]: refuses work in a later generation
  std::shared_ptr<Engine> engine;
  mutable std::atomic<std::uint64_t> permits_acquired{0};
};

/// Counts one admission permit. Exact without a locked RMW: permits of one backend's request
/// conflict with each other, so their holders are ordered by the arbiter's lock.
inline void count_permit(const BackendState& st) noexcept {
  st.permits_acquired.store(st.permits_acquired.load(std::memory_order_relaxed) + 1,
                            std::memory_order_relaxed);
}

/// Note [Fork]: throws Error{RuntimeState} when `st` was created before a fork of this process.
void throw_used_after_fork(const BackendState& st, const char* op);
inline void check_fork_generation(const BackendState& st, const char* op) {
  if (st.fork_generation != fork_generation()) [[unlikely]]
    throw_used_after_fork(st, op);
}

/// BackendGuard's internal form (src/cpu/current_backend.cpp): makes `backend` the thread's
/// current backend until destruction WITHOUT copying it -- the caller owns it and keeps it alive
/// longer (sessions and scopes hold their witness copy in their entry frame).
class CurrentBackendScope {
 public:
  explicit CurrentBackendScope(const CpuBackend& backend) noexcept;
  ~CurrentBackendScope();
  CurrentBackendScope(const CurrentBackendScope&) = delete;
  CurrentBackendScope& operator=(const CurrentBackendScope&) = delete;

 private:
  CurrentBackendFrame frame_;
};
/// The state of the thread's current backend when a guard or scope set one, else null (the
/// default backend is not created by asking).
const BackendState* current_backend_state() noexcept;

struct BackendAccess {
  static const BackendState& state(const CpuBackend& b) noexcept { return *b.state_; }
  static CpuBackend make(std::shared_ptr<const BackendState> s) noexcept {
    return CpuBackend(std::move(s));
  }
  static Session make_session(ExecContext& ctx) noexcept { return Session(ctx); }
};

}  // namespace tenferro::detail
