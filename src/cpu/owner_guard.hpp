// Execution owners and the re-entry guard.
//
// Note [Owner guard]
// ~~~~~~~~~~~~~~~~~~
// Every admission (operation, session, scope) runs under an *execution owner*, recorded in the
// thread-local ThreadAdmission of the thread(s) executing it and in the target executor's
// `active_owner` while it runs. A standalone backend entry (one that is not an operation loan of
// the thread's scope, Note [Operation loan], nor an operation inside the thread's own session) is
// rejected when
//   (a) this thread already has an owner: it is executing for some backend (direct nesting,
//       including the callback thread of a scope or session entering another backend); or
//   (b) this thread is a worker of a Tenferro-managed arena whose executor is active (a child or
//       stolen task of an operation/session/scope of that backend -- a stolen sibling is
//       indistinguishable from re-entry, so permission is never inferred from the owner).
// Rejecting instead of waiting is what keeps these deadlock-free: the helper would block on the
// arbiter behind the very permit whose holder waits for the helper to finish.
// Why (a) + (b) see every task spawned inside an admission, whatever arena the caller was in:
// user code runs inside an admission only as a session or scope callback, and the executor runs
// those callbacks inside the backend's own arena under this_task_arena::isolate (Note [Executor
// entry]; at budget 1 a one-slot arena without workers). So oneTBB work the callback starts runs
// either on the callback thread (a) or on a worker of that arena (b) -- never on a worker of the
// caller's arena, where it would queue for the permit the callback holds. Operation bodies are
// library code: they start oneTBB work only through ExecContext::parallel_for, also isolated.
// What the guard cannot see: a callback that enters *another* arena (my_arena.execute) or starts
// a plain thread and waits for it while that work enters an overlapping backend. Those wait on
// the arbiter; CpuBackendOptions::admission_timeout turns such a wait into an error naming the
// holder (docs/execution-scope.md, "Helper threads"). Nor a session callback on an external
// backend: it runs in the caller's arena, whose workers are untagged because they also run the
// caller's independent tasks (which must wait, not be rejected; the two are indistinguishable at
// the worker), so a task of that callback entering an overlapping backend waits forever.
// Independent tasks -- a user's tbb::parallel_for running ops outside any admission -- are not
// rejected: they queue on the arbiter like plain threads, and the holder they wait for is an
// admission that does not wait for them.
// The outcome is Error{RuntimeState} on fallible paths (run_operation, with_execution_scope) and
// ContractViolation on the infallible session entry. Nothing is entered before the check, so the
// thread, the backend and every other backend stay usable.
//
// Note [Thread-bound permits]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A permit from the public API (CpuBackend::acquire_permit / try_acquire_permit) reserves CPUs
// for the thread that took it. It is owned by that thread's *permit owner* (ThreadAdmission::
// permit_owner, made on its first public permit and kept for the thread's life), and every later
// standalone admission of that thread runs under the same owner (admission_owner()). So the
// thread's own operations, sessions and scopes on overlapping backends are re-entrant with its
// permits (Note [Permit ordering]) instead of waiting for themselves, while every other thread
// waits. The public requests themselves are never re-entrant (Reentry::counted): try_acquire
// reports any conflicting holder, the caller's own included, and acquire_permit throws
// Error{RuntimeState} when the calling thread (its active scope, session or operation, or its
// permit owner) already holds a conflicting permit, instead of waiting for itself forever.
// Moving a permit to another thread does not move the reservation: its owner stays the acquiring
// thread's. A thread that waits for a permit moved to it is the admission_timeout's case.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "cpu/arbiter.hpp"
#include "cpu/executor.hpp"

namespace tenferro::detail {

class ExecContext;

/// Per-thread admission state (trivially destructible: no TLS wrapper on the hot path).
struct ThreadAdmission {
  ResourceOwner owner = 0;         // nonzero: this thread executes for a backend
  bool in_operation = false;       // a run_operation body runs on this thread
  bool scope_active = false;       // this thread runs a scope callback (scope.hpp holds the record)
  ExecContext* session = nullptr;  // the borrowed session running on this thread
  std::uint64_t session_identity = 0;
  const ExecutorCell* worker_cell = nullptr;  // set by a managed arena's observer for its workers
  std::uint64_t worker_gen = 0;               // worker_cell's generation when it was set
  std::uint64_t thread_tag = 0;               // owner id prefix of this thread (0 until first use)
  std::uint64_t owner_seq = 0;
  // Note [Thread-bound permits]: the owner of the public permits this thread acquired (0 until
  // its first). This thread's admissions run under it, so they are re-entrant with those permits.
  ResourceOwner permit_owner = 0;
  int tid = 0;  // Linux thread id, for diagnostics (0 until first asked)
};
extern thread_local constinit ThreadAdmission tls_admission;

inline constexpr int kOwnerSeqBits = 40;
void refresh_thread_tag(ThreadAdmission& t) noexcept;

/// A fresh, process-unique, nonzero owner (thread tag in the high bits; no shared atomic).
inline ResourceOwner new_owner() noexcept {
  ThreadAdmission& t = tls_admission;
  if (t.thread_tag == 0 || t.owner_seq == (std::uint64_t{1} << kOwnerSeqBits) - 1)
    refresh_thread_tag(t);
  return (t.thread_tag << kOwnerSeqBits) | ++t.owner_seq;
}

/// The owner of a new standalone admission on this thread: the thread's permit owner once it has
/// taken a public permit (Note [Thread-bound permits]), else a fresh one.
inline ResourceOwner admission_owner() noexcept {
  const ResourceOwner p = tls_admission.permit_owner;
  return p != 0 ? p : new_owner();
}

int current_tid_slow() noexcept;
/// The calling thread's Linux thread id (cached).
inline int current_tid() noexcept {
  const int tid = tls_admission.tid;
  return tid != 0 ? tid : current_tid_slow();
}

/// How a rejected entry is reported (DESIGN.md section 4).
enum class EntryKind { fallible, infallible };

/// Throws Error{RuntimeState} (fallible) or ContractViolation (infallible) with `message`.
[[noreturn]] void reject_entry(EntryKind kind, const std::string& message);

void check_owner_guard_slow(EntryKind kind, const char* op);

/// Note [Owner guard]: throws when a standalone entry on this thread must be rejected.
inline void check_owner_guard(EntryKind kind, const char* op) {
  const ThreadAdmission& t = tls_admission;
  if (t.owner != 0 || t.worker_cell != nullptr) check_owner_guard_slow(kind, op);
}

/// RAII: this thread executes for `owner`; restores the previous owner.
class OwnerScope {
 public:
  explicit OwnerScope(ResourceOwner owner) noexcept : prev_(tls_admission.owner) {
    tls_admission.owner = owner;
  }
  ~OwnerScope() { tls_admission.owner = prev_; }
  OwnerScope(const OwnerScope&) = delete;
  OwnerScope& operator=(const OwnerScope&) = delete;

 private:
  ResourceOwner prev_;
};

/// RAII: an operation body runs on this thread (blocks nested operations and sessions).
class InOperation {
 public:
  InOperation() noexcept : prev_(tls_admission.in_operation) { tls_admission.in_operation = true; }
  ~InOperation() { tls_admission.in_operation = prev_; }
  InOperation(const InOperation&) = delete;
  InOperation& operator=(const InOperation&) = delete;

 private:
  bool prev_;
};

/// RAII: `ctx` is the borrowed session of witness `identity` on this thread.
class SessionBinding {
 public:
  SessionBinding(ExecContext& ctx, std::uint64_t identity) noexcept
      : prev_(tls_admission.session), prev_id_(tls_admission.session_identity) {
    tls_admission.session = &ctx;
    tls_admission.session_identity = identity;
  }
  ~SessionBinding() {
    tls_admission.session = prev_;
    tls_admission.session_identity = prev_id_;
  }
  SessionBinding(const SessionBinding&) = delete;
  SessionBinding& operator=(const SessionBinding&) = delete;

 private:
  ExecContext* prev_;
  std::uint64_t prev_id_;
};

}  // namespace tenferro::detail
