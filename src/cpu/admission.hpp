// Operation admission: the internal entry every op interpreter uses.
//
//   detail::run_operation(backend, [&](detail::ExecContext& ctx) {
//     Storage* out = ctx.allocate(bytes);                  // from the engine's buffer pool
//     ctx.parallel_for(n, 4096, [&](std::int64_t b, std::int64_t e) { ... });
//     return StoragePtr(out);
//   });
//
// run_operation outside any scope or session is one standalone Admission (Note [Admission
// sequence] below) with Purpose::kernels. It allocates nothing on the heap (the body may). Inside
// a session of the same witness on this thread it runs in the session's admission with the
// session's ExecContext; inside a scope of the same witness it takes an operation loan (Note
// [Operation loan]). Errors, all thrown before the body runs: Error{RuntimeState} for a backend
// created before a fork, a nested operation, another witness inside a session or scope, a worker
// helping an active operation/scope, or an expired admission_timeout.
//
// Note [Admission sequence]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Operations, sessions and scopes are admitted by the one RAII type Admission, so this order
// exists once:
//   1. the owner guard (Note [Owner guard]) -- may throw; nothing has been taken yet. (The entry
//      points check the fork generation, Note [Fork], before anything else, loans included.)
//   2. the owner: the thread's permit owner if it took a public permit (Note [Thread-bound
//      permits]), else a fresh one;
//   3. the permit from the global arbiter, blocking -- or until admission_timeout, then
//      Error{RuntimeState} naming the holders (Note [Permit ordering]);
//   4. the executor's active owner, then the calling thread's owner;
//   5. Admission::enter: ONE executor entry (Note [Executor entry]), where the executing thread
//      takes the owner too, and the caller's body runs. The engine borrow (EngineBorrow) is
//      taken inside by the body that needs it: per operation, per session, never by a scope.
// Release is the exact reverse, on return or exception: the body's borrow, the executing owner,
// the executor entry, the caller's owner, the executor's active owner, and last the permit -- so
// the next holder of the permit never sees this admission's state. (A scope moves the permit into
// its thread-local record for the callback and back before step 5 unwinds, Note [Operation loan].)
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>

#include "cpu/backend_state.hpp"
#include "cpu/engine.hpp"
#include "cpu/owner_guard.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/storage.hpp"

namespace tenferro::detail {

/// Work (in rough CPU cycles) below which an operation never fans out: the fork/join of a
/// parallel loop costs a few microseconds.
inline constexpr std::int64_t kParallelWorkThreshold = 100'000;

/// What an admitted operation or session may use. Valid only inside that admission, on the thread
/// that runs it; never store it. Holds the engine borrow: allocation and caches need no locking.
class ExecContext {
 public:
  ExecContext(Engine& engine, int threads, BackendKind kind) noexcept
      : engine_(&engine), threads_(threads), kind_(kind) {}
  ExecContext(const ExecContext&) = delete;
  ExecContext& operator=(const ExecContext&) = delete;

  int threads() const noexcept { return threads_; }
  BackendKind kind() const noexcept { return kind_; }

  /// An output storage of `bytes` from the engine's buffer pool, with one reference (wrap it in a
  /// StoragePtr). Data uninitialised, 64-byte aligned. Throws Error{OutOfMemory} on
  /// heap failure.
  Storage* allocate(std::size_t bytes) { return engine_->pool().acquire(bytes); }

  /// True when an op with `work` (rough cycles) should run an intra-op parallel loop: never for
  /// tiny work, budget 1, or the blas kind (OpenBLAS owns its threads there).
  bool may_parallelize(std::int64_t work) const noexcept {
    return threads_ > 1 && kind_ == BackendKind::native && work >= kParallelWorkThreshold;
  }

  /// body(begin, end) over disjoint chunks covering [0, n) exactly once. Parallel
  /// (tbb::parallel_for inside this_task_arena::isolate, on the entered arena) when
  /// may_parallelize(n), else one inline call body(0, n). Exceptions from body propagate.
  /// n is taken as the work: a loop over a few heavy units (blocks, matrices) must say how much
  /// work they hold with parallel_for_work, or it never fans out.
  template <class F>
  void parallel_for(std::int64_t n, std::int64_t grain, F&& body) {
    parallel_for_work(n, grain, n, std::forward<F>(body));
  }
  /// As parallel_for, deciding by an explicit work estimate instead of n.
  template <class F>
  void parallel_for_work(std::int64_t n, std::int64_t grain, std::int64_t work, F&& body) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    if (!may_parallelize(work) || n <= grain) {
      body(std::int64_t{0}, n);
      return;
    }
    parallel_chunks(n, grain, FunctionRef<void(std::int64_t, std::int64_t)>(body));
  }

  /// The engine's instance of cache type T (bounded_cache.hpp), built on first use.
  template <class T>
  T& cache() {
    return engine_->caches().get<T>();
  }
  BufferPool& buffer_pool() const noexcept { return engine_->pool(); }

 private:
  // The parallel half of parallel_for_work (admission.cpp): tbb::parallel_for inside
  // this_task_arena::isolate on the entered arena. Compiled once, so TBB's loop templates are
  // instantiated for one body type instead of once per kernel loop (a chunk costs one indirect
  // call; docs/building.md, "Where the gate's time goes").
  void parallel_chunks(std::int64_t n, std::int64_t grain,
                       FunctionRef<void(std::int64_t, std::int64_t)> body);
  Engine* engine_;
  int threads_;
  BackendKind kind_;
};

/// The exclusive engine borrow and the ExecContext that carries it (operations and sessions,
/// standalone or on a loan). Blocks while another thread borrows the engine.
class EngineBorrow {
 public:
  explicit EngineBorrow(const BackendState& st)
      : lock_(st.engine->borrow_mutex()), ctx_(*st.engine, st.threads, st.kind) {}
  EngineBorrow(const EngineBorrow&) = delete;
  EngineBorrow& operator=(const EngineBorrow&) = delete;
  ExecContext& ctx() noexcept { return ctx_; }

 private:
  std::lock_guard<BlockingLock> lock_;
  ExecContext ctx_;
};

/// Takes the permit of `st` for `owner`: blocking, or within st.admission_timeout when it is set,
/// else throws Error{RuntimeState} naming `op`, the backend and the holders it waited for.
ResourcePermit acquire_backend_permit(const BackendState& st, ResourceOwner owner,
                                      const PermitHolder& who, Reentry reentry, const char* op);
/// An operation body under its own engine borrow (standalone and loaned operations).
inline void run_operation_body(const BackendState& st, FunctionRef<void(ExecContext&)> body) {
  EngineBorrow borrow(st);
  InOperation op;
  body(borrow.ctx());
}

/// The non-template core of run_operation (admission.cpp).
void run_operation_impl(const BackendState& state, FunctionRef<void(ExecContext&)> body);

/// The shared execution scope's record on the thread that runs its callback (Note [Operation
/// loan] in scope.hpp); installed and cleared by scope.cpp.
struct ScopeRecord {
  std::uint64_t identity = 0;
  std::shared_ptr<Engine> engine;
  ResourcePermit permit;
  bool operation_active = false;
  /// True when an operation on `st` may borrow this record: the scope's exact engine and a live
  /// scope permit (Note [Operation loan]).
  bool lends_to(const BackendState& st) const noexcept {
    return identity == st.id && engine.get() == st.engine.get() && permit.valid();
  }
};
/// This thread's scope record while tls_admission.scope_active, else null. A plain pointer
/// (constinit, trivially destructible): reading it costs no TLS wrapper call.
extern thread_local constinit ScopeRecord* tls_scope_record;

/// Sets the record's operation_active for one loaned operation or session.
class OperationLoan {
 public:
  explicit OperationLoan(ScopeRecord& r) noexcept : r_(r) { r_.operation_active = true; }
  ~OperationLoan() { r_.operation_active = false; }
  OperationLoan(const OperationLoan&) = delete;
  OperationLoan& operator=(const OperationLoan&) = delete;

 private:
  ScopeRecord& r_;
};

/// Note [Inline loan]: the record to lend from when an operation on `st` inside this thread's
/// scope can take its loan with nothing to report -- the same decisions run_operation_impl and
/// run_operation_on_loan make, in their order, for the one outcome that is not an error or a
/// fall-through: no fork since `st` was made, no operation or session running on this thread,
/// the scope's own engine and permit, its loan free. Null sends the caller to the full path,
/// which makes the same checks again and reports whatever failed. Inline, so that an eager op in
/// a scope reaches its body without the type-erased layers of the general path.
inline ScopeRecord* inline_loan(const BackendState& st) noexcept {
  const ThreadAdmission& t = tls_admission;
  if (!t.scope_active || t.in_operation || t.session != nullptr) return nullptr;
  ScopeRecord* r = tls_scope_record;
  if (r == nullptr || r->operation_active || !r->lends_to(st) ||
      st.fork_generation != fork_generation())
    return nullptr;
  return r;
}

/// Runs body(ExecContext&) admitted on `backend` (see the header comment) and returns its value
/// unchanged. `backend` must outlive the call.
template <class F>
decltype(auto) run_operation(const CpuBackend& backend, F&& body) {
  using R = std::invoke_result_t<F&, ExecContext&>;
  const BackendState& st = BackendAccess::state(backend);
  if (ScopeRecord* r = inline_loan(st)) {  // Note [Inline loan]
    OperationLoan loan(*r);
    EngineBorrow borrow(st);
    InOperation op;
    return static_cast<R>(body(borrow.ctx()));
  }
  return call_through<R>([&](auto& cb) { run_operation_impl(st, cb); },
                         [&](ExecContext& c) -> R { return body(c); });
}

class ActiveOwnerScope {  // Note [Owner guard]: the executor runs for `owner`
 public:
  ActiveOwnerScope(const Executor& ex, ResourceOwner owner) noexcept
      : cell_(ex.active_owner()), prev_(cell_.load(std::memory_order_relaxed)) {
    cell_.store(owner, std::memory_order_release);
  }
  ~ActiveOwnerScope() { cell_.store(prev_, std::memory_order_release); }
  ActiveOwnerScope(const ActiveOwnerScope&) = delete;
  ActiveOwnerScope& operator=(const ActiveOwnerScope&) = delete;

 private:
  std::atomic<ResourceOwner>& cell_;
  ResourceOwner prev_;
};

/// One standalone admission of an operation, session or scope (Note [Admission sequence]). The
/// constructor performs steps 1-4 (or throws with nothing taken); enter() is step 5; the
/// destructor releases in reverse.
class Admission {
 public:
  Admission(const BackendState& st, EntryKind entry, PermitHolder::Kind kind, const char* op);
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  /// Enters the executor once and runs f there with this admission's owner on the executing
  /// thread. Exceptions from f propagate.
  template <class F>
  void enter(F&& f, Executor::Purpose purpose) {
    ex_.enter(
        [&] {
          OwnerScope executing(owner_);
          f();
        },
        purpose);
  }
  /// The admission's permit (a scope lends it to its thread-local record during the callback).
  ResourcePermit& permit() noexcept { return permit_; }

 private:
  Executor& ex_;
  ResourceOwner owner_;
  ResourcePermit permit_;
  ActiveOwnerScope active_;
  OwnerScope caller_;
};

}  // namespace tenferro::detail
