// Execution owners and the re-entry guard: Note [Owner guard] in owner_guard.hpp.
#include "cpu/owner_guard.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include "cpu/executor.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {

thread_local constinit ThreadAdmission tls_admission{};

namespace {
std::atomic<std::uint64_t> g_next_thread_tag{1};
}  // namespace

void refresh_thread_tag(ThreadAdmission& t) noexcept {
  t.thread_tag = g_next_thread_tag.fetch_add(1, std::memory_order_relaxed);
  t.owner_seq = 0;
}

void reject_entry(EntryKind kind, const std::string& message) {
  if (kind == EntryKind::fallible) throw Error(ErrorKind::RuntimeState, message);
  throw ContractViolation(message);
}

int current_tid_slow() noexcept {
  return tls_admission.tid = static_cast<int>(::syscall(SYS_gettid));
}

void check_owner_guard_slow(EntryKind kind, const char* op) {
  const ThreadAdmission& t = tls_admission;
  if (t.owner != 0)
    reject_entry(kind,
                 std::string(op) +
                     ": CpuBackend cannot be re-entered while another CPU backend execution is "
                     "active on this thread; expected entry from outside any operation, session or "
                     "scope callback");
  if (t.worker_cell != nullptr &&
      t.worker_cell->active_owner.load(std::memory_order_acquire) != 0 &&
      t.worker_cell->generation.load(std::memory_order_acquire) == t.worker_gen)
    reject_entry(kind,
                 std::string(op) +
                     ": CpuBackend cannot be entered from a worker of a managed arena while an "
                     "operation, session or scope of that arena's backend is active (a task "
                     "helping it would wait for its own caller); expected entry from the thread "
                     "that owns the operation, session or scope");
}

}  // namespace tenferro::detail
