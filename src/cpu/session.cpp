// Borrowed sessions: one admission for many primitives (cpu.hpp, CpuBackend::with_session).
#include "cpu/admission.hpp"
#include "cpu/owner_guard.hpp"
#include "cpu/scope.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {

void run_session_body(const CpuBackend& backend, FunctionRef<void(Session&)> f) {
  const BackendState& st = BackendAccess::state(backend);
  EngineBorrow borrow(st);
  SessionBinding bind(borrow.ctx(), st.id);
  CurrentBackendScope current(backend);
  Session s = BackendAccess::make_session(borrow.ctx());
  f(s);
}

void enter_session(const std::shared_ptr<const BackendState>& sp, FunctionRef<void(Session&)> f) {
  const BackendState& st = *sp;
  check_fork_generation(st, "with_session");
  const ThreadAdmission& t = tls_admission;
  if (t.session != nullptr)
    throw ContractViolation(
        "with_session: a backend session is already active on this thread; expected sessions to be "
        "entered one after another, not nested");
  if (t.in_operation)
    throw ContractViolation(
        "with_session: called from inside an operation body; expected the session to be entered "
        "outside any operation");
  if (t.scope_active && enter_session_on_loan(sp, f)) return;

  // Keeps the witness alive for the whole admission (the callback may drop the caller's copy)
  // and is the session's current backend.
  const CpuBackend backend = BackendAccess::make(sp);
  Admission admission(st, EntryKind::infallible, PermitHolder::Kind::session, "with_session");
  admission.enter([&] { run_session_body(backend, f); }, Executor::Purpose::callback);
}

}  // namespace tenferro::detail
