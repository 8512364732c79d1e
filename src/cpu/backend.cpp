// CpuBackend: witness construction, queries and engine maintenance.
#include <atomic>
#include <mutex>
#include <string>

#include "cpu/admission.hpp"
#include "cpu/backend_state.hpp"
#include "cpu/fork.hpp"
#include "cpu/owner_guard.hpp"
#include "tenferro/cpu_external.hpp"
#include "tenferro/error.hpp"

namespace tenferro {
namespace {

std::atomic<std::uint64_t> g_next_identity{1};

std::shared_ptr<detail::BackendState> new_state() {
  detail::install_fork_handlers();
  auto st = std::make_shared<detail::BackendState>();
  st->id = g_next_identity.fetch_add(1, std::memory_order_relaxed);
  st->fork_generation = detail::fork_generation();
  return st;
}

// Operation-level admission on a caller-owned (or attached) arena.
CpuBackend make_external(std::unique_ptr<detail::Executor> ex, const CpuSet& declared,
                         BackendKind kind, const char* op) {
  if (declared.empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) +
                    ": the declared CPU set is empty; expected the CPUs the caller's arena uses");
  auto st = new_state();
  st->kind = kind;
  st->cpus = declared;
  st->external = true;
  st->request = kind == BackendKind::blas ? detail::ResourceRequest::provider_exclusive()
                                          : detail::ResourceRequest::cpu_set(declared);
  st->threads = ex->threads();
  st->engine =
      std::make_shared<detail::Engine>(std::move(ex), CpuBackendOptions{}.buffer_pool_limit_bytes);
  return detail::BackendAccess::make(std::move(st));
}

std::shared_ptr<detail::BackendState> make_managed(const CpuBackendOptions& o) {
  if (o.threads < 0)
    throw Error(ErrorKind::InvalidArgument, "CpuBackend: threads = " + std::to_string(o.threads) +
                                                "; expected 0 (available cores) or >= 1");
  const CpuSet allowed = CpuSet::process_allowed();
  CpuSet cpus = allowed;
  if (o.placement) {
    if (o.placement->empty())
      throw Error(ErrorKind::InvalidArgument,
                  "CpuBackend: the placement is empty; expected at least one CPU");
    if (!allowed.contains(*o.placement))
      throw Error(ErrorKind::InvalidArgument, "CpuBackend: placement {" + o.placement->to_string() +
                                                  "} is not within the process's allowed CPUs {" +
                                                  allowed.to_string() + "}");
    cpus = *o.placement;
  }
  if (o.admission_timeout && o.admission_timeout->count() < 0)
    throw Error(ErrorKind::InvalidArgument,
                "CpuBackend: admission_timeout = " + std::to_string(o.admission_timeout->count()) +
                    " ms; expected a duration >= 0 (or none: wait as long as it takes)");
  auto st = new_state();
  st->threads = o.threads == 0 ? std::max(1, cpus.count()) : o.threads;
  st->admission_timeout = o.admission_timeout;
  st->kind = o.kind;
  st->cpus = cpus;
  st->external = false;
  st->request = o.kind == BackendKind::blas ? detail::ResourceRequest::provider_exclusive()
                                            : detail::ResourceRequest::cpu_set(cpus);
  st->engine = std::make_shared<detail::Engine>(
      detail::Executor::managed(st->threads,
                                o.pin_workers ? std::optional<CpuSet>(cpus) : std::nullopt),
      o.buffer_pool_limit_bytes);
  return st;
}

}  // namespace

CpuBackend::CpuBackend() : CpuBackend(CpuBackendOptions{}) {}

CpuBackend::CpuBackend(const CpuBackendOptions& options) : state_(make_managed(options)) {}

CpuBackend external_backend(tbb::task_arena& caller_arena, CpuSet declared, BackendKind kind) {
  return make_external(detail::Executor::external(caller_arena), declared, kind,
                       "external_backend");
}

CpuBackend CpuBackend::attach(BackendKind kind, std::optional<CpuSet> declared) {
  return make_external(detail::Executor::attached(),
                       declared ? *declared : CpuSet::process_allowed(), kind,
                       "CpuBackend::attach");
}

std::uint64_t CpuBackend::identity() const noexcept { return state_->id; }
int CpuBackend::threads() const noexcept { return state_->threads; }
BackendKind CpuBackend::kind() const noexcept { return state_->kind; }
const CpuSet& CpuBackend::cpus() const noexcept { return state_->cpus; }
bool CpuBackend::is_external() const noexcept { return state_->external; }
std::uint64_t CpuBackend::executor_entries() const noexcept {
  return state_->engine->executor().entries();
}

CpuBackendDiagnostics CpuBackend::diagnostics() const {
  const detail::Executor& ex = state_->engine->executor();
  CpuBackendDiagnostics d;
  d.executor_entries = ex.entries();
  d.permits_acquired = state_->permits_acquired.load(std::memory_order_relaxed);
  d.parallel_loops = state_->engine->parallel_loops();
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

// Note [Thread-bound permits]: public permits are owned by the calling thread's permit owner,
// which the thread's own admissions reuse (admission_owner), so they run under them.
namespace {
detail::ResourceOwner thread_permit_owner() noexcept {
  detail::ThreadAdmission& t = detail::tls_admission;
  if (t.permit_owner == 0) t.permit_owner = detail::new_owner();
  return t.permit_owner;
}
detail::PermitHolder public_permit_holder(const detail::BackendState& st) noexcept {
  return {detail::PermitHolder::Kind::permit, st.id, detail::current_tid()};
}
}  // namespace

std::optional<ResourcePermit> CpuBackend::try_acquire_permit() const {
  detail::check_fork_generation(*state_, "try_acquire_permit");
  return detail::Arbiter::global().try_acquire(state_->request, thread_permit_owner(),
                                               public_permit_holder(*state_),
                                               detail::Reentry::counted);
}

ResourcePermit CpuBackend::acquire_permit() const {
  const detail::BackendState& st = *state_;
  detail::check_fork_generation(st, "acquire_permit");
  const detail::ThreadAdmission& t = detail::tls_admission;
  for (detail::ResourceOwner mine : {t.owner, t.permit_owner}) {
    if (mine == 0) continue;
    if (auto held = detail::Arbiter::global().held_conflict(st.request, mine))
      throw Error(ErrorKind::RuntimeState,
                  "acquire_permit: the calling thread already holds a conflicting permit (" +
                      detail::describe(*held, mine) + ") for backend #" + std::to_string(st.id) +
                      "'s CPUs; waiting would wait for itself forever; expected the permit to be "
                      "taken outside this thread's scope, session or other permit (its own "
                      "operations run under what it holds)");
  }
  return detail::acquire_backend_permit(st, thread_permit_owner(), public_permit_holder(st),
                                        detail::Reentry::counted, "acquire_permit");
}

// The pool and the caches sit behind locks a fork may have frozen: Note [Fork].
BufferPoolStats CpuBackend::buffer_pool_stats() const {
  detail::check_fork_generation(*state_, "buffer_pool_stats");
  return state_->engine->pool().stats();
}
void CpuBackend::reset_buffer_pool() const {
  detail::check_fork_generation(*state_, "reset_buffer_pool");
  state_->engine->pool().reset();
}
void CpuBackend::reset_peak_memory() const {
  detail::check_fork_generation(*state_, "reset_peak_memory");
  state_->engine->pool().reset_peak();
}
void CpuBackend::set_buffer_pool_limit(std::size_t bytes) const {
  detail::check_fork_generation(*state_, "set_buffer_pool_limit");
  state_->engine->pool().set_limit(bytes);
}

void CpuBackend::clear_caches() const {
  detail::check_fork_generation(*state_, "clear_caches");
  // This thread must not hold the engine borrow it is about to take: inside an operation body
  // (library code, whichever engine), or inside a session of this witness. Another backend's
  // session borrows another engine, which waits for nothing here.
  const detail::ThreadAdmission& t = detail::tls_admission;
  if (t.in_operation || (t.session != nullptr && t.session_identity == state_->id))
    throw Error(ErrorKind::RuntimeState,
                "CpuBackend::clear_caches: called from inside an operation or a session of this "
                "backend; expected a call outside them (the caches are borrowed there)");
  std::lock_guard borrow(state_->engine->borrow_mutex());
  state_->engine->caches().clear_all();
}

int Session::threads() const noexcept { return ctx_->threads(); }
BackendKind Session::kind() const noexcept { return ctx_->kind(); }

namespace {
// Never destroyed (outlives statics). Note [Fork]: a fork child forgets it and makes a new one; the
// parent's stays allocated, so references taken before the fork stay valid (and refuse work).
std::atomic<const CpuBackend*> g_default_backend{nullptr};
}  // namespace

const CpuBackend& default_backend() {
  if (const CpuBackend* b = g_default_backend.load(std::memory_order_acquire)) return *b;
  auto* fresh = new CpuBackend();
  const CpuBackend* expected = nullptr;
  if (g_default_backend.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel))
    return *fresh;
  delete fresh;  // another thread installed one first
  return *expected;
}

namespace detail {
void default_backend_fork_child() noexcept {
  g_default_backend.store(nullptr, std::memory_order_release);
}

int CacheSlots::next_slot_id() {
  static std::atomic<int> next{0};
  const int id = next.fetch_add(1, std::memory_order_relaxed);
  if (id >= kMaxSlots)
    throw Error(ErrorKind::BackendFailure, "CacheSlots: more than 32 engine cache types");
  return id;
}
}  // namespace detail

}  // namespace tenferro
