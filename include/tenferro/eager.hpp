// Choosing the backend that runs eager operations.
//
// Every op on concrete tensors runs on the *current backend* of the calling thread: the backend
// of the innermost live BackendGuard on this thread -- inside a with_execution_scope or
// with_session callback, that callback's backend -- else the process default backend
// (default_backend(): budget = available cores, native kind). Example:
//
//   tenferro::CpuBackend cpu(tenferro::CpuBackendOptions{.threads = 1});
//   tenferro::BackendGuard use(cpu);       // ops below run on `cpu`
//   auto c = tenferro::matmul(a, b);
#pragma once

#include "tenferro/cpu.hpp"

namespace tenferro {

namespace detail {
/// One entry of a thread's list of current-backend frames (BackendGuard, and the callback frame
/// of a scope or session; src/cpu/current_backend.cpp). Linked in place: never copied or moved.
struct CurrentBackendFrame {
  const CpuBackend* backend = nullptr;
  CurrentBackendFrame* below = nullptr;  // made earlier on this thread, still live
  CurrentBackendFrame* above = nullptr;  // made later on this thread, still live
};
}  // namespace detail

/// Makes `backend` the current backend of this thread until destruction. Guards nest: the current
/// backend is the one of the innermost live guard (the most recently made one not yet destroyed),
/// also when guards are destroyed out of order -- a guard that ends early just leaves the list,
/// and one made inside a scope or session callback that outlives it stays current until it ends.
/// Thread-bound: destroy it on the thread that created it.
/// CpuBackend::with_execution_scope and with_session install one for their callback.
class BackendGuard {
 public:
  explicit BackendGuard(CpuBackend backend);
  ~BackendGuard();
  BackendGuard(const BackendGuard&) = delete;
  BackendGuard& operator=(const BackendGuard&) = delete;

 private:
  CpuBackend backend_;
  detail::CurrentBackendFrame frame_;
};

/// The backend eager ops on this thread run on.
const CpuBackend& current_backend();

}  // namespace tenferro
