// The shared state behind a CpuBackend witness.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "cpu/arbiter.hpp"
#include "cpu/engine.hpp"
#include "tenferro/cpu.hpp"

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
  std::shared_ptr<Engine> engine;
  mutable std::atomic<std::uint64_t> permits_acquired{0};
};

/// Counts one admission permit. Exact without a locked RMW: permits of one backend's request
/// conflict with each other, so their holders are ordered by the arbiter's lock.
inline void count_permit(const BackendState& st) noexcept {
  st.permits_acquired.store(st.permits_acquired.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

struct BackendAccess {
  static const BackendState& state(const CpuBackend& b) noexcept { return *b.state_; }
  static CpuBackend make(std::shared_ptr<const BackendState> s) noexcept { return CpuBackend(std::move(s)); }
  static Session make_session(ExecContext& ctx) noexcept { return Session(ctx); }
};

}  // namespace tenferro::detail
