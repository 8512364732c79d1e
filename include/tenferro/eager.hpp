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

/// Makes `backend` the current backend of this thread until destruction (guards nest; each
/// restores the previous one). Thread-bound: destroy it on the thread that created it.
/// CpuBackend::with_execution_scope and with_session install one for their callback.
class BackendGuard {
 public:
  explicit BackendGuard(CpuBackend backend);
  ~BackendGuard();
  BackendGuard(const BackendGuard&) = delete;
  BackendGuard& operator=(const BackendGuard&) = delete;

 private:
  const CpuBackend* previous_;
  CpuBackend backend_;
};

/// The backend eager ops on this thread run on.
const CpuBackend& current_backend();

}  // namespace tenferro
