// The shared execution scope: Note [Operation loan] in scope.hpp.
#include "cpu/scope.hpp"

#include <string>

#include "cpu/owner_guard.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {

thread_local constinit ScopeRecord* tls_scope_record = nullptr;

namespace {

// Installs the record on the executor thread; on exit hands the permit back to the Admission and
// restores what was installed before, whether the callback returned or threw. The record lives in
// this frame, which spans exactly the callback; tls_scope_record points at it meanwhile. What was
// installed before is nothing, except in a child process that fork()ed inside a callback, where a
// scope may run inside the inherited (forgotten) one (Note [Fork]).
class ScopeInstall {
 public:
  ScopeInstall(std::uint64_t identity, std::shared_ptr<Engine> engine, ResourcePermit& permit)
      : permit_(permit),
        record_{identity, std::move(engine), std::move(permit), false},
        prev_record_(tls_scope_record),
        prev_active_(tls_admission.scope_active) {
    tls_scope_record = &record_;
    tls_admission.scope_active = true;
  }
  ~ScopeInstall() {
    tls_admission.scope_active = prev_active_;
    tls_scope_record = prev_record_;
    permit_ = std::move(record_.permit);
  }
  ScopeInstall(const ScopeInstall&) = delete;
  ScopeInstall& operator=(const ScopeInstall&) = delete;

 private:
  ResourcePermit& permit_;
  ScopeRecord record_;
  ScopeRecord* prev_record_;
  bool prev_active_;
};

// The record to lend from, or null when its loan is already active (the caller falls through to
// the standalone path, where the owner guard rejects the nested entry). The loan applies only to
// the scope's exact engine and a live scope permit (Note [Operation loan]); another witness is
// rejected as `entry` says.
ScopeRecord* loan_record(const BackendState& st, EntryKind entry, const char* op) {
  ScopeRecord& r = *tls_scope_record;
  if (r.operation_active) return nullptr;
  if (!r.lends_to(st))
    reject_entry(entry, std::string(op) + ": the backend (#" + std::to_string(st.id) +
                            ") does not match the active execution scope (of backend #" +
                            std::to_string(r.identity) +
                            "); expected a copy of the scope's backend witness");
  return &r;
}

}  // namespace

bool run_operation_on_loan(const BackendState& st, FunctionRef<void(ExecContext&)> body) {
  ScopeRecord* r = loan_record(st, EntryKind::fallible, "run_operation");
  if (r == nullptr) return false;
  OperationLoan loan(*r);
  run_operation_body(st, body);
  return true;
}

bool enter_session_on_loan(const std::shared_ptr<const BackendState>& sp,
                           FunctionRef<void(Session&)> f) {
  ScopeRecord* r = loan_record(*sp, EntryKind::infallible, "with_session");
  if (r == nullptr) return false;
  OperationLoan loan(*r);
  if (current_backend_state() == sp.get()) {  // the scope's witness is current: no copy needed
    run_session_body(current_backend(), f);
  } else {
    const CpuBackend backend = BackendAccess::make(sp);
    run_session_body(backend, f);
  }
  return true;
}

void enter_execution_scope(const std::shared_ptr<const BackendState>& sp, FunctionRef<void()> f) {
  // Keeps the witness alive for the whole admission (the callback may drop the caller's copy)
  // and is the callback's current backend.
  const CpuBackend backend = BackendAccess::make(sp);
  const BackendState& st = BackendAccess::state(backend);
  check_fork_generation(st, "with_execution_scope");
  const ThreadAdmission& t = tls_admission;
  if (t.scope_active || t.owner != 0 || t.session != nullptr || t.in_operation)
    throw Error(
        ErrorKind::RuntimeState,
        "with_execution_scope: CPU execution is already active on this thread; expected the shared "
        "scope to be opened outside active scopes, backend sessions and operations");
  if (st.external)
    throw Error(ErrorKind::Unsupported,
                "with_execution_scope: the backend runs on an external (caller-owned or attached) "
                "executor domain, which the shared execution scope does not support; expected a "
                "managed backend (operations on external backends keep operation-level "
                "admission)");
  // Held for the whole callback; for blas this is the provider-exclusive permit.
  Admission admission(st, EntryKind::fallible, PermitHolder::Kind::scope, "with_execution_scope");
  admission.enter(
      [&] {  // the scope's single executor entry
        ScopeInstall install(st.id, st.engine, admission.permit());
        CurrentBackendScope current(backend);
        f();
      },
      Executor::Purpose::callback);
}

void run_in_execution_scope(const CpuBackend& backend, FunctionRef<void()> f) {
  const ThreadAdmission& t = tls_admission;
  if (t.scope_active || t.owner != 0 || t.session != nullptr || t.in_operation ||
      BackendAccess::state(backend).external) {
    f();
    return;
  }
  backend.with_execution_scope([&] { f(); });
}

}  // namespace tenferro::detail
