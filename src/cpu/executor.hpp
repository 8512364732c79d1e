// Executors: where an admitted operation runs.
//
// Note [Executor entry]
// ~~~~~~~~~~~~~~~~~~~~~
// Executor::enter is the ONE function that crosses into a backend's executor; operations,
// sessions and scopes all go through it, and it counts every call (`entries`). What it runs on:
//   - budget N > 1: arena.execute on the backend's own oneTBB arena, created lazily on the first
//     entry (oneTBB style lazy start) together with its worker observer;
//   - budget 1, library work (Purpose::kernels: an operation body): inline on the caller, no
//     arena, no pool -- operation bodies never start oneTBB work at budget 1;
//   - budget 1, user code (Purpose::callback: a session or scope callback): a one-slot arena
//     without workers, created lazily. Still no pool and the same thread, but oneTBB work the
//     callback starts now stays on that thread instead of landing on the caller's arena, where
//     a worker would queue for the permit the callback holds (Note [Owner guard]);
//   - external: execute on the caller's arena, which it never creates or destroys.
// A callback runs under this_task_arena::isolate inside the arena, so the entered thread, while
// it waits there, takes only work of its own region; kernels isolate their own loops. Entry into
// an external arena is isolated on the caller's side as well: its slots may be busy, and a caller
// waiting for one must not pick up its own arena's unrelated tasks meanwhile (our own arenas keep
// the master slot free for the permit holder).
// Exceptions propagate unchanged (task_arena::execute rethrows the original exception). An
// operation loan inside a scope does not call enter at all (Note [Operation loan]).
//
// Workers of a managed arena are tagged (ThreadAdmission::worker_cell) by the observer for the
// owner guard (Note [Owner guard]) and, when requested, confined to the placement with
// sched_setaffinity and verified with sched_getaffinity from inside the worker; the previous mask
// is restored when the worker leaves the arena. A refusal is counted and described, never hidden.
// The destructor waits (briefly) for workers to leave, so their exit notifications run; a worker
// that outstays it restores tag and mask at its next notification from any Tenferro arena.
#pragma once

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cpu/arbiter.hpp"
#include "tenferro/cpu.hpp"

namespace tenferro::detail {

/// The part of an executor that worker threads may still name after the executor is gone: cells
/// are never freed, only recycled with a new generation, so a stale ThreadAdmission::worker_cell
/// is detected by its generation instead of being dereferenced after free (Note [Owner guard]).
struct ExecutorCell {
  std::atomic<ResourceOwner> active_owner{0};
  std::atomic<std::uint64_t> generation{1};
  ExecutorCell* next_free = nullptr;  // guarded by the cell registry's mutex
};

struct PinningReport {
  bool requested = false;
  int workers_pinned = 0;
  int failures = 0;
  std::string note;
};

class Executor {
 public:
  /// Budget 1: inline; budget > 1: a lazily created arena of `threads`; `pin_to`: confine workers.
  static std::unique_ptr<Executor> managed(int threads, std::optional<CpuSet> pin_to);
  /// Runs on the caller's arena (never created or destroyed here).
  static std::unique_ptr<Executor> external(tbb::task_arena& arena);
  /// Runs on the arena the calling thread is in now (task_arena::attach), kept alive by this
  /// executor and never terminated by it (an external executor that owns its handle).
  static std::unique_ptr<Executor> attached();
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// What an entry runs (Note [Executor entry]).
  enum class Purpose : std::uint8_t { kernels, callback };
  /// Note [Executor entry]: counts, then runs `f` on this executor; returns when f returns.
  void enter(FunctionRef<void()> f, Purpose purpose = Purpose::kernels);

  std::uint64_t entries() const noexcept { return entries_.load(std::memory_order_relaxed); }
  int threads() const noexcept { return threads_; }
  bool is_external() const noexcept { return external_ != nullptr; }
  /// This executor created its own (N-thread) arena. The budget-1 callback arena is not counted.
  bool arena_created() const noexcept { return arena_ready_.load(std::memory_order_acquire); }
  PinningReport pinning() const;

  /// The owner of the operation/session/scope running on this executor, 0 when idle
  /// (Note [Owner guard]). Written by the admission that holds this executor's permit.
  std::atomic<ResourceOwner>& active_owner() const noexcept { return cell_->active_owner; }
  const ExecutorCell& cell() const noexcept { return *cell_; }

  // Observer callbacks (executor.cpp).
  void on_worker_entry() noexcept;
  void on_worker_exit() noexcept;

 private:
  Executor();
  void create_arena();
  tbb::task_arena& callback_arena();  // budget 1: the one-slot arena for user callbacks

  ExecutorCell* cell_;
  int threads_ = 1;
  tbb::task_arena* external_ = nullptr;
  std::unique_ptr<tbb::task_arena> attached_;  // the handle external_ points at, for attached()
  std::optional<CpuSet> pin_to_;
  std::atomic<std::uint64_t> entries_{0};

  std::atomic<bool> arena_ready_{false};
  std::atomic<bool> published_{false};
  std::atomic<int> workers_inside_{0};
  std::mutex create_mu_;
  std::unique_ptr<tbb::task_arena> arena_;
  std::unique_ptr<tbb::task_scheduler_observer> observer_;
  std::atomic<tbb::task_arena*> solo_ready_{nullptr};
  std::unique_ptr<tbb::task_arena> solo_;

  mutable std::mutex pin_mu_;
  std::atomic<int> pinned_{0};
  std::atomic<int> pin_failures_{0};
  std::string pin_note_;  // first failure, guarded by pin_mu_
};

/// Number of arenas the runtime has created in this process (tests: external never creates one).
std::uint64_t managed_arenas_created() noexcept;

}  // namespace tenferro::detail
