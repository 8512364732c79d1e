// The shared execution scope's admission record and operation loans.
//
// Note [Operation loan]
// ~~~~~~~~~~~~~~~~~~~~~
// with_execution_scope is one standalone Admission (Note [Admission sequence]) whose executor
// entry runs the callback: it takes its backend's permit and enters its executor once, then
// installs a ScopeRecord {witness identity, engine (shared_ptr), permit, operation_active} for the
// executor thread that runs the callback (and only there): the record lives in the scope entry's
// frame and a thread_local pointer names it while the callback runs (RAII restores it on return
// or exception), and makes the backend current there (a BackendGuard). The record holds no
// tensor data, no borrowed resources and no raw pointer.
// Inside the callback, run_operation and with_session through a copy of the same witness take an
// *operation loan*: they set `operation_active` (a RAII OperationLoan clears it), reuse the
// record's permit and the entered executor -- no new permit, no new executor entry -- and still
// borrow the engine's resources exclusively for just that op/session (EngineBorrow). A loan is
// granted only when the record's engine is the backend's engine (hence its executor is the
// entered domain) and the record still owns the scope's permit: the exact objects, not equal ones.
// While a loan is active, a nested entry is not a loan: it takes the standalone path, where the
// owner guard rejects it (Note [Owner guard]). Through another witness: run_operation ->
// Error{RuntimeState}; with_session -> ContractViolation (the session entry is infallible). Other
// worker threads do not see the record, so a child task entering the backend meets the owner
// guard. Parallel mode is still chosen per operation (ExecContext::may_parallelize).
// When the callback returns or throws: the current backend is restored, the record is uninstalled
// (its permit moves back to the Admission), then the Admission unwinds (executing owner, executor
// entry, caller owner, active owner, permit) -- so the next holder of the permit never sees this
// scope's state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "cpu/admission.hpp"
#include "cpu/engine.hpp"
#include "tenferro/cpu.hpp"

namespace tenferro::detail {

/// Runs `body` on an operation loan of this thread's scope. Returns false (nothing done) when the
/// scope's loan is already active, so the caller falls through to the standalone path. Throws
/// Error{RuntimeState} when `state` is not the scope's witness.
bool run_operation_on_loan(const BackendState& state, FunctionRef<void(ExecContext&)> body);
/// As above for a session; throws ContractViolation for another witness.
bool enter_session_on_loan(const std::shared_ptr<const BackendState>& state,
                           FunctionRef<void(Session&)> f);
/// Runs `f` inside `backend`'s execution scope, or directly when this thread already executes
/// for a backend (a scope, session or operation: a nested scope is an error there, and the ops
/// in f use the admission that is active) or when the backend is external (no scope: its ops
/// keep operation-level admission). For library functions that run many ops (sliced einsum):
/// they get the scope's single entry without failing inside a caller's scope.
void run_in_execution_scope(const CpuBackend& backend, FunctionRef<void()> f);
/// A session body: engine borrow, session binding, `backend` current (the caller keeps it alive),
/// then f.
void run_session_body(const CpuBackend& backend, FunctionRef<void(Session&)> f);

}  // namespace tenferro::detail
