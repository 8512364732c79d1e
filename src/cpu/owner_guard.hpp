// Execution owners and the re-entry guard.
//
// Note [Owner guard]
// ~~~~~~~~~~~~~~~~~~
// Every admission (operation, session, scope) runs under a fresh *execution owner*, recorded in
// the thread-local ThreadAdmission of the thread(s) executing it and in the target executor's
// `active_owner` while it runs. A standalone backend entry (one that is not an operation loan of
// the thread's scope, Note [Operation loan], nor an operation inside the thread's own session) is
// rejected when
//   (a) this thread already has an owner: it is executing for some backend (direct nesting); or
//   (b1) this thread is a worker of a Tenferro-managed arena whose executor is active (a child or
//        stolen task of an operation/scope of that backend -- a stolen sibling is indistinguishable
//        from re-entry, so permission is never inferred from the owner); or
//   (b2) this thread is running inside a oneTBB task (any arena) while the target executor is
//        active -- a parallel_for child of an op/scope, e.g. at budget 1, landing on a default-
//        arena worker.
// Rejecting instead of waiting is what keeps (b) deadlock-free: the helper would block on the
// arbiter behind the very permit whose holder waits for the helper to finish.
// The outcome is Error{RuntimeState} on fallible paths (run_operation, with_execution_scope) and
// ContractViolation on the infallible session entry. Nothing is entered before the check, so the
// thread, the backend and every other backend stay usable.
// Limitation of (b2): oneTBB cannot tell a helping task from an independent one, so a task that
// calls a backend while another thread's operation of that backend is active is rejected rather
// than queued. Call backends from plain threads, or retry, when fanning out over tasks.
// Intra-op loops run under tbb::this_task_arena::isolate (ExecContext::parallel_for), so a thread
// waiting for its own loop never picks up foreign work that could re-enter.
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
  ResourceOwner owner = 0;          // nonzero: this thread executes for a backend
  bool in_operation = false;        // a run_operation body runs on this thread
  bool scope_active = false;        // this thread runs a scope callback (scope.hpp holds the record)
  ExecContext* session = nullptr;   // the borrowed session running on this thread
  std::uint64_t session_identity = 0;
  const ExecutorCell* worker_cell = nullptr;  // set by a managed arena's observer for its workers
  std::uint64_t worker_gen = 0;               // worker_cell's generation when it was set
  std::uint64_t thread_tag = 0;     // owner id prefix of this thread (0 until first use)
  std::uint64_t owner_seq = 0;
};

extern thread_local constinit ThreadAdmission tls_admission;

inline constexpr int kOwnerSeqBits = 40;
void refresh_thread_tag(ThreadAdmission& t) noexcept;

/// A fresh, process-unique, nonzero owner (thread tag in the high bits; no shared atomic).
inline ResourceOwner new_owner() noexcept {
  ThreadAdmission& t = tls_admission;
  if (t.thread_tag == 0 || t.owner_seq == (std::uint64_t{1} << kOwnerSeqBits) - 1) refresh_thread_tag(t);
  return (t.thread_tag << kOwnerSeqBits) | ++t.owner_seq;
}

/// How a rejected entry is reported (DESIGN.md section 4).
enum class EntryKind { fallible, infallible };

/// Throws Error{RuntimeState} (fallible) or ContractViolation (infallible) with `message`.
[[noreturn]] void reject_entry(EntryKind kind, const std::string& message);

void check_owner_guard_slow(const Executor& target, EntryKind kind, const char* op);

/// Note [Owner guard]: throws when a standalone entry into `target` must be rejected.
inline void check_owner_guard(const Executor& target, EntryKind kind, const char* op) {
  const ThreadAdmission& t = tls_admission;
  if (t.owner != 0 || t.worker_cell != nullptr || target.active_owner().load(std::memory_order_acquire) != 0)
    check_owner_guard_slow(target, kind, op);
}

/// True while the calling thread runs inside a oneTBB task.
bool inside_tbb_task() noexcept;

/// RAII: this thread executes for `owner`; restores the previous owner.
class OwnerScope {
 public:
  explicit OwnerScope(ResourceOwner owner) noexcept : prev_(tls_admission.owner) { tls_admission.owner = owner; }
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
