// Note [Fork] in fork.hpp.
#include "cpu/fork.hpp"

#include <pthread.h>

#include <mutex>

#include "cpu/admission.hpp"
#include "cpu/arbiter.hpp"
#include "cpu/owner_guard.hpp"

namespace tenferro::detail {

std::atomic<std::uint64_t> g_fork_generation{0};

namespace {

// The forking thread may be running a scope or session callback (or a worker's task): its admission
// state names the parent's backends, whose admissions cannot end in the child. The child's copy of
// the thread starts with none, so backends made here are entered as on any fresh thread; the
// callback's frames, if the child unwinds them, restore this empty state (their guards restore
// what they saw, and a scope record lives in its own frame).
void forget_thread_admission() noexcept {
  ThreadAdmission& t = tls_admission;
  t.owner = 0;
  t.in_operation = false;
  t.scope_active = false;
  t.session = nullptr;
  t.session_identity = 0;
  t.worker_cell = nullptr;
  t.worker_gen = 0;
  t.tid = 0;  // the forking thread has a new thread id here
  tls_scope_record = nullptr;
}

void prepare() noexcept {
  // Same order every time; the runtime never holds two of these at once otherwise.
  Arbiter::fork_prepare();
  executor_fork_prepare();
}

void parent() noexcept {
  executor_fork_parent();
  Arbiter::fork_parent();
}

void child() noexcept {
  g_fork_generation.fetch_add(1, std::memory_order_relaxed);
  executor_fork_child();
  Arbiter::fork_child();
  default_backend_fork_child();
  forget_thread_admission();
}

}  // namespace

void install_fork_handlers() {
  static std::once_flag once;
  std::call_once(once, [] { ::pthread_atfork(&prepare, &parent, &child); });
}

}  // namespace tenferro::detail
