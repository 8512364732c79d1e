// The current backend of a thread (tenferro/eager.hpp): BackendGuard and current_backend().
#include "cpu/backend_state.hpp"
#include "tenferro/eager.hpp"

namespace tenferro {

namespace {
thread_local const CpuBackend* t_current_backend = nullptr;
}

BackendGuard::BackendGuard(CpuBackend backend)
    : previous_(t_current_backend), backend_(std::move(backend)) {
  t_current_backend = &backend_;
}
BackendGuard::~BackendGuard() { t_current_backend = previous_; }

const CpuBackend& current_backend() {
  return t_current_backend ? *t_current_backend : default_backend();
}

namespace detail {

CurrentBackendScope::CurrentBackendScope(const CpuBackend& backend) noexcept
    : previous_(t_current_backend) {
  t_current_backend = &backend;
}
CurrentBackendScope::~CurrentBackendScope() { t_current_backend = previous_; }

const BackendState* current_backend_state() noexcept {
  return t_current_backend ? &BackendAccess::state(*t_current_backend) : nullptr;
}

}  // namespace detail
}  // namespace tenferro
