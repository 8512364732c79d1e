// Borrowed sessions: one admission for many primitives (cpu.hpp, CpuBackend::with_session).
#include <mutex>

#include "cpu/admission.hpp"
#include "cpu/owner_guard.hpp"
#include "cpu/scope.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {

void enter_session(const BackendState& st, FunctionRef<void(Session&)> f) {
  const ThreadAdmission& t = tls_admission;
  if (t.session != nullptr)
    throw ContractViolation(
        "with_session: a backend session is already active on this thread; expected sessions to be "
        "entered one after another, not nested");
  if (t.in_operation)
    throw ContractViolation(
        "with_session: called from inside an operation body; expected the session to be entered outside "
        "any operation");
  if (t.scope_active && enter_session_on_loan(st, f)) return;

  Executor& ex = st.engine->executor();
  check_owner_guard(ex, EntryKind::infallible, "with_session");
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
    SessionBinding bind(ctx, st.id);
    Session s = BackendAccess::make_session(ctx);
    f(s);
  });
}

}  // namespace tenferro::detail
