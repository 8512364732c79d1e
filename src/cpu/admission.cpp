// run_operation: see admission.hpp and docs/notes/runtime.md.
#include "cpu/admission.hpp"

#include "cpu/owner_guard.hpp"
#include "cpu/scope.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {

void run_operation_impl(const BackendState& st, FunctionRef<void(ExecContext&)> body) {
  ThreadAdmission& t = tls_admission;
  if (t.in_operation)
    throw Error(ErrorKind::RuntimeState,
                "run_operation: an operation body is already running on this thread; expected operations "
                "to be called one after another, not from inside another operation");
  if (t.session != nullptr) {  // one admission for the whole session: reuse it
    if (t.session_identity != st.id)
      throw Error(ErrorKind::RuntimeState,
                  "run_operation: the operation's backend is not the witness of the session active on this "
                  "thread; expected a copy of the session's backend");
    InOperation op;
    body(*t.session);
    return;
  }
  if (t.scope_active && run_operation_on_loan(st, body)) return;

  // Standalone admission. Destruction order releases borrow, owner, active owner, then permit.
  Executor& ex = st.engine->executor();
  check_owner_guard(ex, EntryKind::fallible, "run_operation");
  const ResourceOwner owner = new_owner();
  ResourcePermit permit = Arbiter::global().acquire(st.request, owner);
  count_permit(st);
  ActiveOwnerScope active(ex, owner);
  OwnerScope caller(owner);
  ex.enter([&] {
    OwnerScope executing(owner);
    Engine& engine = *st.engine;
    std::lock_guard borrow(engine.borrow_mutex());
    ExecContext ctx(engine, st.threads, st.kind);
    InOperation op;
    body(ctx);
  });
}

}  // namespace tenferro::detail
