// Note [Fork] in fork.hpp.
#include "cpu/fork.hpp"

#include <pthread.h>

#include <mutex>

#include "cpu/arbiter.hpp"
#include "cpu/owner_guard.hpp"

namespace tenferro::detail {

std::atomic<std::uint64_t> g_fork_generation{0};

namespace {

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
  tls_admission.tid = 0;  // the forking thread has a new thread id here
}

}  // namespace

void install_fork_handlers() {
  static std::once_flag once;
  std::call_once(once, [] { ::pthread_atfork(&prepare, &parent, &child); });
}

}  // namespace tenferro::detail
