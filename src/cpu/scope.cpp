// The shared execution scope: Note [Operation loan] in scope.hpp.
#include "cpu/scope.hpp"

#include <mutex>
#include <string>

#include "cpu/owner_guard.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {
namespace {

thread_local std::optional<ScopeRecord> tls_scope;

class OperationLoan {
 public:
  explicit OperationLoan(ScopeRecord& r) noexcept : r_(r) { r_.operation_active = true; }
  ~OperationLoan() { r_.operation_active = false; }
  OperationLoan(const OperationLoan&) = delete;
  OperationLoan& operator=(const OperationLoan&) = delete;

 private:
  ScopeRecord& r_;
};

// Installs the record on the executor thread; on exit hands the permit back to the scope frame and
// clears the record, whether the callback returned or threw.
class ScopeInstall {
 public:
  ScopeInstall(std::uint64_t identity, std::shared_ptr<Engine> engine, std::optional<ResourcePermit>& permit)
      : permit_(permit) {
    tls_scope.emplace(ScopeRecord{identity, std::move(engine), std::move(*permit), false});
    tls_admission.scope_active = true;
  }
  ~ScopeInstall() {
    tls_admission.scope_active = false;
    permit_ = std::move(tls_scope->permit);
    tls_scope.reset();
  }
  ScopeInstall(const ScopeInstall&) = delete;
  ScopeInstall& operator=(const ScopeInstall&) = delete;

 private:
  std::optional<ResourcePermit>& permit_;
};

// The loan applies only to the scope's exact engine and a live scope permit (Note [Operation loan]).
bool loan_matches(const ScopeRecord& r, const BackendState& st) noexcept {
  return r.identity == st.id && r.engine.get() == st.engine.get() && r.permit.valid();
}

}  // namespace

bool run_operation_on_loan(const BackendState& st, FunctionRef<void(ExecContext&)> body) {
  ScopeRecord& r = *tls_scope;
  if (r.operation_active) return false;
  if (!loan_matches(r, st))
    throw Error(ErrorKind::RuntimeState,
                "run_operation: the operation's backend does not match the active execution scope; expected "
                "a copy of the scope's backend witness");
  OperationLoan loan(r);
  Engine& engine = *st.engine;
  std::lock_guard borrow(engine.borrow_mutex());
  ExecContext ctx(engine, st.threads, st.kind);
  InOperation op;
  body(ctx);
  return true;
}

bool enter_session_on_loan(const BackendState& st, FunctionRef<void(Session&)> f) {
  ScopeRecord& r = *tls_scope;
  if (r.operation_active) return false;
  if (!loan_matches(r, st))
    throw ContractViolation(
        "with_session: the session's backend does not match the active execution scope; expected a copy "
        "of the scope's backend witness");
  OperationLoan loan(r);
  Engine& engine = *st.engine;
  std::lock_guard borrow(engine.borrow_mutex());
  ExecContext ctx(engine, st.threads, st.kind);
  SessionBinding bind(ctx, st.id);
  Session s = BackendAccess::make_session(ctx);
  f(s);
  return true;
}

void enter_execution_scope(const std::shared_ptr<const BackendState>& sp, FunctionRef<void()> f) {
  const std::shared_ptr<const BackendState> keep = sp;  // the callback may drop the caller's witness
  const BackendState& st = *keep;
  const ThreadAdmission& t = tls_admission;
  if (t.scope_active || t.owner != 0 || t.session != nullptr || t.in_operation)
    throw Error(ErrorKind::RuntimeState,
                "with_execution_scope: CPU execution is already active on this thread; expected the shared "
                "scope to be opened outside active scopes, backend sessions and operations");
  if (st.external)
    throw Error(ErrorKind::Unsupported,
                "with_execution_scope: the backend runs on an external (caller-owned) executor domain, which "
                "the shared execution scope does not support; expected a managed backend (operations on "
                "external backends keep operation-level admission)");
  Executor& ex = st.engine->executor();
  check_owner_guard(ex, EntryKind::fallible, "with_execution_scope");
  const ResourceOwner owner = new_owner();
  // Held for the whole callback; for blas this is the provider-exclusive permit.
  std::optional<ResourcePermit> permit(Arbiter::global().acquire(st.request, owner));
  count_permit(st);
  ActiveOwnerScope active(ex, owner);
  OwnerScope caller(owner);
  ex.enter([&] {  // the scope's single executor entry
    OwnerScope executing(owner);
    ScopeInstall install(st.id, st.engine, permit);
    f();
  });
}

}  // namespace tenferro::detail
