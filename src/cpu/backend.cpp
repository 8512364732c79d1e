// CpuBackend: witness construction, queries and engine maintenance.
#include <atomic>
#include <mutex>
#include <string>

#include "cpu/admission.hpp"
#include "cpu/backend_state.hpp"
#include "cpu/owner_guard.hpp"
#include "tenferro/error.hpp"

namespace tenferro {
namespace {

std::atomic<std::uint64_t> g_next_identity{1};

std::shared_ptr<detail::BackendState> make_managed(const CpuBackendOptions& o) {
  if (o.threads < 0)
    throw Error(ErrorKind::InvalidArgument,
                "CpuBackend: threads = " + std::to_string(o.threads) + "; expected 0 (available cores) or >= 1");
  const CpuSet allowed = CpuSet::process_allowed();
  CpuSet cpus = allowed;
  if (o.placement) {
    if (o.placement->empty())
      throw Error(ErrorKind::InvalidArgument, "CpuBackend: the placement is empty; expected at least one CPU");
    if (!allowed.contains(*o.placement))
      throw Error(ErrorKind::InvalidArgument, "CpuBackend: placement {" + o.placement->to_string() +
                                                  "} is not within the process's allowed CPUs {" +
                                                  allowed.to_string() + "}");
    cpus = *o.placement;
  }
  auto st = std::make_shared<detail::BackendState>();
  st->id = g_next_identity.fetch_add(1, std::memory_order_relaxed);
  st->threads = o.threads == 0 ? std::max(1, cpus.count()) : o.threads;
  st->kind = o.kind;
  st->cpus = cpus;
  st->external = false;
  st->request = o.kind == BackendKind::blas ? detail::ResourceRequest::provider_exclusive()
                                            : detail::ResourceRequest::cpu_set(cpus);
  st->engine = std::make_shared<detail::Engine>(
      detail::Executor::managed(st->threads, o.pin_workers ? std::optional<CpuSet>(cpus) : std::nullopt),
      o.buffer_pool_limit_bytes);
  return st;
}

}  // namespace

CpuBackend::CpuBackend() : CpuBackend(CpuBackendOptions{}) {}

CpuBackend::CpuBackend(const CpuBackendOptions& options) : state_(make_managed(options)) {}

CpuBackend CpuBackend::external(tbb::task_arena& caller_arena, CpuSet declared, BackendKind kind) {
  if (declared.empty())
    throw Error(ErrorKind::InvalidArgument,
                "CpuBackend::external: the declared CPU set is empty; expected the CPUs the caller's arena uses");
  auto st = std::make_shared<detail::BackendState>();
  st->id = g_next_identity.fetch_add(1, std::memory_order_relaxed);
  st->kind = kind;
  st->cpus = declared;
  st->external = true;
  st->request = kind == BackendKind::blas ? detail::ResourceRequest::provider_exclusive()
                                          : detail::ResourceRequest::cpu_set(declared);
  auto ex = detail::Executor::external(caller_arena);
  st->threads = ex->threads();
  st->engine = std::make_shared<detail::Engine>(std::move(ex), CpuBackendOptions{}.buffer_pool_limit_bytes);
  return CpuBackend(std::shared_ptr<const detail::BackendState>(std::move(st)));
}

std::uint64_t CpuBackend::identity() const noexcept { return state_->id; }
int CpuBackend::threads() const noexcept { return state_->threads; }
BackendKind CpuBackend::kind() const noexcept { return state_->kind; }
const CpuSet& CpuBackend::cpus() const noexcept { return state_->cpus; }
bool CpuBackend::is_external() const noexcept { return state_->external; }
std::uint64_t CpuBackend::executor_entries() const noexcept { return state_->engine->executor().entries(); }

CpuBackendDiagnostics CpuBackend::diagnostics() const {
  const detail::Executor& ex = state_->engine->executor();
  CpuBackendDiagnostics d;
  d.executor_entries = ex.entries();
  d.permits_acquired = state_->permits_acquired.load(std::memory_order_relaxed);
  d.threads = state_->threads;
  d.kind = state_->kind;
  d.cpus = state_->cpus;
  d.external = state_->external;
  d.arena_created = ex.arena_created();
  const detail::PinningReport pin = ex.pinning();
  d.pinning_requested = pin.requested;
  d.workers_pinned = pin.workers_pinned;
  d.pin_failures = pin.failures;
  d.pinning_verified = pin.requested && pin.workers_pinned > 0 && pin.failures == 0;
  d.pinning_note = pin.note;
  return d;
}

std::optional<ResourcePermit> CpuBackend::try_acquire_permit() const {
  return detail::Arbiter::global().try_acquire(state_->request, detail::new_owner());
}

ResourcePermit CpuBackend::acquire_permit() const {
  return detail::Arbiter::global().acquire(state_->request, detail::new_owner());
}

BufferPoolStats CpuBackend::buffer_pool_stats() const { return state_->engine->pool().stats(); }
void CpuBackend::reset_buffer_pool() const { state_->engine->pool().reset(); }
void CpuBackend::set_buffer_pool_limit(std::size_t bytes) const { state_->engine->pool().set_limit(bytes); }

void CpuBackend::clear_caches() const {
  const detail::ThreadAdmission& t = detail::tls_admission;
  if (t.in_operation || t.session != nullptr)
    throw Error(ErrorKind::RuntimeState,
                "CpuBackend::clear_caches: called from inside an operation or session; expected a call "
                "outside any admission (the caches are borrowed there)");
  std::lock_guard borrow(state_->engine->borrow_mutex());
  state_->engine->caches().clear_all();
}

int Session::threads() const noexcept { return ctx_->threads(); }
BackendKind Session::kind() const noexcept { return ctx_->kind(); }

const CpuBackend& default_backend() {
  static const CpuBackend* const instance = new CpuBackend();  // never destroyed: outlives statics
  return *instance;
}

namespace detail {
int CacheSlots::next_slot_id() {
  static std::atomic<int> next{0};
  const int id = next.fetch_add(1, std::memory_order_relaxed);
  if (id >= kMaxSlots) throw Error(ErrorKind::BackendFailure, "CacheSlots: more than 32 engine cache types");
  return id;
}
}  // namespace detail

}  // namespace tenferro
