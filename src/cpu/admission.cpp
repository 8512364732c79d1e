// run_operation and the one admission sequence: see admission.hpp and docs/notes/runtime.md.
#include "cpu/admission.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "cpu/owner_guard.hpp"
#include "cpu/scope.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {

void ExecContext::parallel_chunks(std::int64_t n, std::int64_t grain,
                                  FunctionRef<void(std::int64_t, std::int64_t)> body) {
  engine_->count_parallel_loop();
  // Note [Owner guard]: isolation keeps this thread from picking up foreign tasks while it waits.
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, grain),
                      [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); });
  });
}
namespace {

// Step 1 of Note [Admission sequence]: the owner guard, before anything is taken. (The entry
// points have checked the fork generation earlier still, before their loan and session paths.)
Executor& checked_executor(const BackendState& st, EntryKind entry, const char* op) {
  check_owner_guard(entry, op);
  return st.engine->executor();
}

}  // namespace

ResourcePermit acquire_backend_permit(const BackendState& st, ResourceOwner owner,
                                      const PermitHolder& who, Reentry reentry, const char* op) {
  if (!st.admission_timeout) return Arbiter::global().acquire(st.request, owner, who, reentry);
  std::string holders;
  auto permit = Arbiter::global().acquire_until(
      st.request, owner, who, reentry, Arbiter::Clock::now() + *st.admission_timeout, &holders);
  if (!permit)
    throw Error(ErrorKind::RuntimeState,
                std::string(op) + ": gave up after the admission timeout of " +
                    std::to_string(st.admission_timeout->count()) +
                    " ms waiting for the resource permit of backend #" + std::to_string(st.id) +
                    " (" +
                    (st.request.kind == ResourceRequest::Kind::provider_exclusive
                         ? std::string("provider-exclusive")
                         : "CPUs " + st.cpus.to_string()) +
                    "); held by " + holders +
                    ". If that holder waits for this thread (a helper thread joined inside its "
                    "scope or session), the wait could never end: see docs/execution-scope.md, "
                    "\"Helper threads\"");
  return std::move(*permit);
}

void throw_used_after_fork(const BackendState& st, const char* op) {
  throw Error(ErrorKind::RuntimeState,
              std::string(op) + ": backend #" + std::to_string(st.id) +
                  " was created before this process forked and is not usable after fork (its "
                  "permits, locks and threads belong to the parent); expected a backend created "
                  "in this process (default_backend() makes a new one here)");
}

Admission::Admission(const BackendState& st, EntryKind entry, PermitHolder::Kind kind,
                     const char* op)
    : ex_(checked_executor(st, entry, op)),
      owner_(admission_owner()),
      permit_(acquire_backend_permit(st, owner_, PermitHolder{kind, st.id, current_tid()},
                                     Reentry::allowed, op)),
      active_(ex_, owner_),
      caller_(owner_) {
  count_permit(st);
}

void run_operation_impl(const BackendState& st, FunctionRef<void(ExecContext&)> body) {
  check_fork_generation(st, "run_operation");
  ThreadAdmission& t = tls_admission;
  if (t.in_operation)
    throw Error(
        ErrorKind::RuntimeState,
        "run_operation: an operation body is already running on this thread; expected operations "
        "to be called one after another, not from inside another operation");
  if (t.session != nullptr) {  // one admission for the whole session: reuse it
    if (t.session_identity != st.id)
      throw Error(ErrorKind::RuntimeState,
                  "run_operation: the operation's backend (#" + std::to_string(st.id) +
                      ") is not the witness of the session active on this thread (of backend #" +
                      std::to_string(t.session_identity) +
                      "); expected a copy of the session's backend");
    InOperation op;
    body(*t.session);
    return;
  }
  if (t.scope_active && run_operation_on_loan(st, body)) return;

  Admission admission(st, EntryKind::fallible, PermitHolder::Kind::operation, "run_operation");
  admission.enter([&] { run_operation_body(st, body); }, Executor::Purpose::kernels);
}

}  // namespace tenferro::detail
