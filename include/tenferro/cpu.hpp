// The CPU runtime: backends, resource permits, sessions and the shared execution scope.
//
//   tenferro::CpuBackend backend(tenferro::CpuBackendOptions{.threads = 4});
//   int v = backend.with_execution_scope([&] {
//     // eager ops, AD and prepared traces through copies of `backend` run here under ONE
//     // resource permit and ONE executor entry (docs/notes/runtime.md, Note [Operation loan]).
//     return 17;
//   });
//
// A CpuBackend is a cheap copyable *witness*: copies share one backend (same identity, same
// engine, same thread pool); every constructor makes a new one. Work on a backend is admitted by
// a process-wide arbiter (Note [Permit ordering]) and guarded against re-entry (Note [Owner
// guard]). The admission outcomes are the table in DESIGN.md section 4; the notes named here are
// in docs/notes/runtime.md.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tenferro/detail/callback.hpp"

namespace tenferro {

// ---------------------------------------------------------------------------------------------
// CpuSet

/// A set of logical CPU ids in [0, CpuSet::max_cpus). A plain value; not thread-safe to mutate
/// concurrently, safe to read concurrently.
class CpuSet {
 public:
  static constexpr int max_cpus = 1024;

  CpuSet() noexcept = default;
  /// The set holding exactly `cpus`. Throws Error{InvalidArgument} for an id outside [0, max_cpus).
  CpuSet(std::initializer_list<int> cpus);
  /// The CPUs the process may run on (sched_getaffinity of the process's main thread).
  static CpuSet process_allowed();
  /// The set {0, ..., n-1}.
  static CpuSet first_n(int n);

  /// Adds / removes `cpu`. Throws Error{InvalidArgument} for an id outside [0, max_cpus).
  void add(int cpu);
  void remove(int cpu);
  bool contains(int cpu) const noexcept;
  /// True when every CPU of `other` is in this set.
  bool contains(const CpuSet& other) const noexcept;
  bool overlaps(const CpuSet& other) const noexcept;
  int count() const noexcept;
  bool empty() const noexcept { return count() == 0; }
  /// The lowest CPU id, or -1 when empty.
  int first() const noexcept;
  CpuSet intersect(const CpuSet& other) const noexcept;
  std::vector<int> to_vector() const;
  /// Ranges in ascending order, e.g. "0-3,8,10-11"; "" when empty.
  std::string to_string() const;
  friend bool operator==(const CpuSet&, const CpuSet&) noexcept = default;

 private:
  static constexpr int kWords = max_cpus / 64;
  std::array<std::uint64_t, kWords> words_{};
};

// ---------------------------------------------------------------------------------------------
// Options and reports

/// Who owns the worker threads of an operation's arithmetic.
///  - native: our kernels parallelise on the backend's arena; OpenBLAS runs single-threaded.
///  - blas: OpenBLAS owns its (process-global) worker threads, so every admission holds a
///    provider-exclusive permit that conflicts with every other permit.
enum class BackendKind : std::uint8_t { native, blas };
std::string_view to_string(BackendKind kind) noexcept;

/// Settings of a managed backend. Validated by the CpuBackend constructor.
struct CpuBackendOptions {
  /// Thread budget: 0 = available cores (the placement's count, else the process's allowed CPUs);
  /// 1 = run inline on the caller, no pool; N > 1 = a oneTBB arena of N threads, created lazily on
  /// first use. N may exceed the core count (an explicit 4-thread backend works on 2 cores).
  int threads = 0;
  BackendKind kind = BackendKind::native;
  /// CPUs this backend's permits claim (and workers are pinned to, if pin_workers); default: all
  /// CPUs the process may use. Must be a non-empty subset of CpuSet::process_allowed().
  std::optional<CpuSet> placement;
  /// Confine arena workers to the placement (sched_setaffinity), verified from inside each worker
  /// (see CpuBackendDiagnostics). The calling thread that enters the arena is never re-pinned.
  bool pin_workers = false;
  /// Bytes of free output buffers the engine's buffer pool may retain.
  std::size_t buffer_pool_limit_bytes = std::size_t{256} << 20;
  /// How long an admission of this backend (an operation, session or scope outside a scope, or
  /// acquire_permit) may wait for its resource permit before it gives up with Error{RuntimeState}
  /// naming the holder (its kind, backend, owner id and thread). Default: wait as long as it
  /// takes. A wait that cannot end -- a helper thread joined inside the holder's scope runs an
  /// op on an overlapping backend -- is not always detectable; this turns it into an error
  /// (docs/execution-scope.md, "Helper threads"). Must not be negative; zero gives up at once
  /// when the permit is not free (an uncontended admission never waits, so never times out).
  std::optional<std::chrono::milliseconds> admission_timeout;
};

/// Exact counters of an engine's output buffer pool (Note [Buffer pool ownership]).
struct BufferPoolStats {
  std::uint64_t hits = 0;          // allocations served from a retained buffer
  std::uint64_t misses = 0;        // allocations that went to the heap
  std::uint64_t dropped = 0;       // returned buffers freed instead of retained (over limit)
  std::size_t retained_bytes = 0;  // capacity of the free buffers kept
  std::size_t retained_buffers = 0;
  std::size_t outstanding_buffers = 0;  // handed out and not yet returned
  std::size_t outstanding_bytes = 0;    // their capacity
  /// The most outstanding_bytes there have been since the pool was made, or since the last
  /// reset_peak_memory() / reset_buffer_pool() (which set it to the current outstanding_bytes).
  /// Every eager op's outputs come from the pool, so this is the peak of the tensors the backend's
  /// ops produced and something still held (a tape's saved tensors included).
  std::size_t peak_outstanding_bytes = 0;
  std::size_t limit_bytes = 0;
};

/// A snapshot of what a backend has done, for tests and tuning. Reading it never blocks on work.
struct CpuBackendDiagnostics {
  std::uint64_t executor_entries =
      0;  // entries into this backend's executor (Note [Executor entry])
  std::uint64_t permits_acquired = 0;  // permits taken by admissions of this backend
  std::uint64_t parallel_loops = 0;    // intra-op loops that fanned out across the arena
  int threads = 1;                     // thread budget
  BackendKind kind = BackendKind::native;
  CpuSet cpus;                 // the CPU set its permits claim (or the declared set)
  bool external = false;       // runs on a caller-owned arena
  bool arena_created = false;  // this backend created its own arena (lazy; never for external)
  bool pinning_requested = false;
  bool pinning_verified = false;  // >= 1 worker pinned and verified, and no worker failed
  int workers_pinned = 0;         // workers whose affinity was set and read back equal
  int pin_failures = 0;
  std::string pinning_note;  // why pinning is not verified (OS refusal, no worker yet, ...)
};

class CpuBackend;
class Session;

namespace detail {
class BackendState;
class ExecContext;
class Arbiter;

// Entry points behind the templates below (src/cpu/session.cpp, src/cpu/scope.cpp).
void enter_session(const std::shared_ptr<const BackendState>& state, FunctionRef<void(Session&)> f);
void enter_execution_scope(const std::shared_ptr<const BackendState>& state, FunctionRef<void()> f);

struct BackendAccess;  // internal access to a witness's state (src/cpu/backend_state.hpp)
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// ResourcePermit

/// Proof that the holder may use a set of CPUs (or, provider-exclusive, all of them), issued by
/// the process-wide arbiter (Note [Permit ordering]). Move-only; the destructor releases it, on any
/// thread. An empty (moved-from / default) permit holds nothing.
///
/// A permit from CpuBackend::acquire_permit / try_acquire_permit reserves its CPUs for the thread
/// that acquired it (Note [Thread-bound permits] in src/cpu/owner_guard.hpp): while it is held,
/// that thread's own operations, sessions and scopes on overlapping backends run under it instead
/// of waiting for it; every other thread waits. Moving the permit to another thread does not move
/// the reservation: release it on the thread that acquired it.
class ResourcePermit {
 public:
  ResourcePermit() noexcept = default;
  ResourcePermit(ResourcePermit&& o) noexcept
      : arbiter_(std::exchange(o.arbiter_, nullptr)),
        id_(o.id_),
        owner_(o.owner_),
        reentrant_(o.reentrant_) {}
  ResourcePermit& operator=(ResourcePermit&& o) noexcept;
  ResourcePermit(const ResourcePermit&) = delete;
  ResourcePermit& operator=(const ResourcePermit&) = delete;
  ~ResourcePermit() { release(); }

  /// Releases now (no-op when empty). Wakes waiters that become grantable, in FIFO order.
  void release() noexcept;
  bool valid() const noexcept { return arbiter_ != nullptr; }
  explicit operator bool() const noexcept { return valid(); }
  std::uint64_t id() const noexcept { return id_; }
  std::uint64_t owner() const noexcept { return owner_; }
  /// Granted because the owner already held a permit (not subject to FIFO order).
  bool reentrant() const noexcept { return reentrant_; }

 private:
  friend class detail::Arbiter;
  ResourcePermit(detail::Arbiter* a, std::uint64_t id, std::uint64_t owner, bool reentrant) noexcept
      : arbiter_(a), id_(id), owner_(owner), reentrant_(reentrant) {}
  detail::Arbiter* arbiter_ = nullptr;
  std::uint64_t id_ = 0;
  std::uint64_t owner_ = 0;
  bool reentrant_ = false;
};

// ---------------------------------------------------------------------------------------------
// CpuBackend

/// A CPU backend witness. Copying is cheap (one shared_ptr) and yields the *same* witness: same
/// identity, engine, arena and caches. Every constructor (and CpuBackend::attach,
/// external_backend in tenferro/cpu_external.hpp) makes a new witness, even with equal settings.
/// All member functions are thread-safe.
///
/// After fork(), backends created before the fork refuse work in the child with
/// Error{RuntimeState} ("used after fork"); backends created in the child, and default_backend()
/// (recreated there), work normally (docs/notes/runtime.md, "fork").
class CpuBackend {
 public:
  /// A managed backend with default options (budget = available cores, native kind).
  CpuBackend();
  /// A managed backend. Throws Error{InvalidArgument} for threads < 0, an empty placement, a
  /// placement outside CpuSet::process_allowed(), or a negative admission_timeout. No thread is
  /// started until first use.
  explicit CpuBackend(const CpuBackendOptions& options);

  /// A backend whose operations run on the oneTBB arena the calling thread is in now (oneTBB's
  /// task_arena::attach; the implicit default arena when the thread is in none), claiming
  /// `declared` (default: every CPU the process may use; provider-exclusive for blas). The
  /// backend keeps that arena alive; it never terminates it. Like external_backend, it keeps
  /// operation-level admission only: with_execution_scope is Error{Unsupported}.
  static CpuBackend attach(BackendKind kind = BackendKind::native,
                           std::optional<CpuSet> declared = std::nullopt);

  /// True when both are copies of one witness.
  bool same_witness(const CpuBackend& other) const noexcept { return state_ == other.state_; }
  /// A process-unique id of the witness (never reused).
  std::uint64_t identity() const noexcept;

  int threads() const noexcept;
  BackendKind kind() const noexcept;
  /// The CPU set this backend's permits claim.
  const CpuSet& cpus() const noexcept;
  bool is_external() const noexcept;

  /// Number of entries into this backend's executor so far (Note [Executor entry]).
  std::uint64_t executor_entries() const noexcept;
  CpuBackendDiagnostics diagnostics() const;

  /// Tries, without blocking, to take a permit of this backend's kind (its CPU set, or
  /// provider-exclusive for blas). Never re-entrant: empty when ANY conflicting permit is held --
  /// also one held by the calling thread itself (its scope, session or another permit) -- or an
  /// older conflicting request is waiting. A granted permit is bound to the calling thread.
  std::optional<ResourcePermit> try_acquire_permit() const;
  /// Blocks until a permit of this backend's kind is granted (FIFO), bound to the calling thread.
  /// Throws Error{RuntimeState} instead of waiting for itself: when the calling thread already
  /// holds a conflicting permit (its own scope, session, operation or permit), and when
  /// admission_timeout passes first (the message names the holder).
  ResourcePermit acquire_permit() const;

  /// Buffer pool of this backend's engine. Thread-safe; never blocks on running operations.
  BufferPoolStats buffer_pool_stats() const;
  /// Frees every retained buffer (outstanding ones return to the pool later) and zeroes the
  /// hit/miss/dropped counters; restarts peak_outstanding_bytes (as reset_peak_memory).
  void reset_buffer_pool() const;
  /// Restarts BufferPoolStats::peak_outstanding_bytes from the current outstanding_bytes.
  void reset_peak_memory() const;
  /// Sets the retention limit; frees retained buffers beyond it.
  void set_buffer_pool_limit(std::size_t bytes) const;
  /// Clears the engine's caches: GEMM and LAPACK analysis, and the eager cache (output layouts
  /// and prepared kernels per primitive and input layouts, at most 256 entries, least recently
  /// used evicted first; docs/architecture.md). Results never depend on them. Blocks until no
  /// operation or session of this backend borrows the engine; throws Error{RuntimeState} when
  /// called from inside one.
  void clear_caches() const;

  /// Runs `f(Session&)` under one admission -- one permit, one executor entry, one exclusive
  /// borrow of the engine -- and returns f's value unchanged (any value category). Blocks until
  /// the permit is granted. f runs on this backend's executor with this backend as the current
  /// backend of the thread (eager ops in f run here, as under a BackendGuard); oneTBB work that f
  /// starts stays on the backend's executor (at budget 1: on the calling thread; for an external
  /// backend that is the caller's arena, whose workers are not guarded: a task of f entering an
  /// overlapping backend from one of them waits for this session forever, docs/execution-scope.md,
  /// "oneTBB work inside the callback"). Entry is
  /// infallible: a session inside a session on this thread, a session through another witness
  /// inside a scope, or entry from a worker helping an active operation/scope throws
  /// ContractViolation (nothing was entered; everything stays usable). Error{RuntimeState}: the
  /// backend was created before a fork, or admission_timeout passed. Exceptions from f propagate
  /// after every guard and the permit are released. The Session is bound to the calling thread.
  template <class F>
  decltype(auto) with_session(F&& f) const {
    using R = std::invoke_result_t<F&, Session&>;
    return detail::call_through<R>([&](auto& cb) { detail::enter_session(state_, cb); },
                                   [&](Session& s) -> R { return f(s); });
  }

  /// The shared execution scope (spec/cpu-shared-execution-scope.md): takes this backend's
  /// permit (provider-exclusive for blas, held the whole callback), enters its executor ONCE, and
  /// runs `f()` there with this backend as the thread's current backend; eager ops, autodiff,
  /// prepared runs and sessions through copies of this witness inside f reuse the permit and the
  /// entry (Note [Operation loan]). oneTBB work that f starts stays on the backend's executor (at
  /// budget 1: on the calling thread), so a task of f that enters a backend is rejected instead
  /// of deadlocking. Returns f's value unchanged (any value category); exceptions propagate after
  /// the scope record, current backend, owner, executor entry and permit are released. Blocks
  /// until the permit is granted. Errors (nothing entered): Error{RuntimeState} inside a scope,
  /// session or operation, from a worker helping an active operation/scope, for a backend
  /// created before a fork, or when admission_timeout passed; Error{Unsupported} for an
  /// attached or external backend.
  template <class F>
  decltype(auto) with_execution_scope(F&& f) const {
    using R = std::invoke_result_t<F&>;
    return detail::call_through<R>([&](auto& cb) { detail::enter_execution_scope(state_, cb); },
                                   [&]() -> R { return f(); });
  }

 private:
  friend struct detail::BackendAccess;
  explicit CpuBackend(std::shared_ptr<const detail::BackendState> s) noexcept
      : state_(std::move(s)) {}
  std::shared_ptr<const detail::BackendState> state_;
};

/// A borrowed session: valid only inside with_session's callback, on its thread. Primitives run
/// through it share the session's admission (src/cpu/admission.hpp).
class Session {
 public:
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int threads() const noexcept;
  BackendKind kind() const noexcept;
  /// The session's execution context (internal: used by op interpreters).
  detail::ExecContext& exec_context() const noexcept { return *ctx_; }

 private:
  friend struct detail::BackendAccess;
  explicit Session(detail::ExecContext& ctx) noexcept : ctx_(&ctx) {}
  detail::ExecContext* ctx_;
};

/// The process default backend (budget = available cores, native kind), created on first call,
/// never destroyed. Thread-safe. In a child process after fork() the first call makes a new one
/// (the parent's refuses work there); references obtained before the fork stay valid.
const CpuBackend& default_backend();

/// Calls a language binding installs around every blocking wait for a resource permit, so that
/// no thread sleeps on a permit while holding a lock the permit's holder needs (Python's GIL: a
/// scope whose Python body needs the GIL holds the permit that an op on another thread waits
/// for; Note [GIL policy] in python/src/common.hpp). `before_wait` runs on the waiting thread
/// right before it blocks (never when a permit is granted at once) and returns a token;
/// `after_wait(token)` runs on that thread as soon as the wait ends, granted or timed out. Neither
/// may throw or call into tenferro. Process-wide: install them once, before other threads use
/// backends (the Python module does so at import); {} removes them.
struct PermitWaitHooks {
  void* (*before_wait)() = nullptr;
  void (*after_wait)(void* token) = nullptr;
};
void set_permit_wait_hooks(PermitWaitHooks hooks) noexcept;

}  // namespace tenferro
