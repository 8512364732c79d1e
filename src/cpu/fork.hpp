// fork() and the CPU runtime.
//
// Note [Fork]
// ~~~~~~~~~~~
// fork() copies one thread and every lock, permit and arena of the others, frozen in whatever
// state they were in. A child that kept using the parent's backends would wait forever on a
// permit held by a thread that does not exist there, or on an engine, pool or oneTBB lock taken
// mid-update. So the runtime registers pthread_atfork handlers (installed with the first backend):
//   prepare  takes the locks that new backends in the child will need (the global arbiter's, the
//            executor-cell registry's, the thread-capacity control's), so their copies are
//            consistent; parent and child release them;
//   child    bumps the *fork generation*, installs a fresh global arbiter and forgets the default
//            backend (default_backend() makes a new one on its next call).
// Every backend records the generation it was created in. Admissions check it first: a backend
// from before the fork throws Error{RuntimeState} ("used after fork") in the child, before it
// touches any lock. Its engine is leaked, not destroyed (its arena and locks are the parent's),
// and storages from its buffer pool are freed straight to the heap when they die in the child.
// Backends created in the child work normally (oneTBB starts its workers afresh there), also when
// the fork happened inside a scope or session callback: the child handler clears the forking
// thread's admission state (owner, session binding, scope record pointer, worker tag), which named
// the parent's admissions; the callback's frames restore that empty state if the child unwinds
// them.
#pragma once

#include <atomic>
#include <cstdint>

namespace tenferro::detail {

extern std::atomic<std::uint64_t> g_fork_generation;

/// The number of forks this process descends from (0 in the original process).
inline std::uint64_t fork_generation() noexcept {
  return g_fork_generation.load(std::memory_order_relaxed);
}

/// Registers the handlers once per process (idempotent, thread-safe).
void install_fork_handlers();

/// Locks the fork handlers hold across fork() (defined next to what they guard).
void executor_fork_prepare() noexcept;
void executor_fork_parent() noexcept;
void executor_fork_child() noexcept;
void default_backend_fork_child() noexcept;

}  // namespace tenferro::detail
