// Executors: Note [Executor entry] in executor.hpp.
#include "cpu/executor.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <sched.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "cpu/fork.hpp"
#include "cpu/owner_guard.hpp"

namespace tenferro::detail {
namespace {

std::atomic<std::uint64_t> g_arenas_created{0};

// oneTBB caps the total number of threads (default: the core count). An explicit budget above it
// (4 threads on 2 cores) raises the process-wide cap to the largest budget asked for so far. The
// control is never lowered: arenas of other backends may be relying on it. A smaller cap set by
// the application still wins (oneTBB takes the minimum of all controls).
std::mutex g_capacity_mu;  // Note [Fork]: held across fork() by the prepare handler

void ensure_thread_capacity(int threads) {
  static std::unique_ptr<tbb::global_control> control;  // leaked at exit with the process
  std::lock_guard lock(g_capacity_mu);
  const auto wanted = static_cast<std::size_t>(threads);
  if (wanted <= static_cast<std::size_t>(tbb::info::default_concurrency())) return;
  if (control &&
      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) >= wanted)
    return;
  auto next =
      std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, wanted);
  control = std::move(next);
}

cpu_set_t to_mask(const CpuSet& s) {
  cpu_set_t m;
  CPU_ZERO(&m);
  for (int c = 0; c < CpuSet::max_cpus && c < CPU_SETSIZE; ++c)
    if (s.contains(c)) CPU_SET(c, &m);
  return m;
}

CpuSet from_mask(const cpu_set_t& m) {
  CpuSet s;
  for (int c = 0; c < CpuSet::max_cpus && c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &m)) s.add(c);
  return s;
}

// Executor cells: allocated once, never freed, recycled (see ExecutorCell).
std::mutex g_cells_mu;
ExecutorCell* g_free_cells = nullptr;

ExecutorCell* acquire_cell() {
  std::lock_guard lock(g_cells_mu);
  if (g_free_cells == nullptr)
    return new ExecutorCell;  // reachable from a worker's TLS or the free list
  ExecutorCell* c = g_free_cells;
  g_free_cells = c->next_free;
  c->next_free = nullptr;
  return c;
}

void retire_cell(ExecutorCell* c) noexcept {
  c->active_owner.store(0, std::memory_order_relaxed);
  c->generation.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard lock(g_cells_mu);
  c->next_free = g_free_cells;
  g_free_cells = c;
}

// Per-thread stack of observer entries (entries and exits nest per thread).
struct WorkerFrame {
  const ExecutorCell* cell;  // the executor that pushed this frame, and its generation then
  std::uint64_t gen;
  const ExecutorCell* prev_cell;
  std::uint64_t prev_gen;
  bool restore_mask;
  cpu_set_t old_mask;
};
constexpr int kMaxFrames = 8;
thread_local WorkerFrame tls_frames[kMaxFrames];
thread_local int tls_frame_depth = 0;

void pop_frame() noexcept {
  WorkerFrame& fr = tls_frames[--tls_frame_depth];
  tls_admission.worker_cell = fr.prev_cell;
  tls_admission.worker_gen = fr.prev_gen;
  if (fr.restore_mask) sched_setaffinity(0, sizeof(fr.old_mask), &fr.old_mask);
}

// A frame whose executor died before this worker's exit notification (the observer was gone)
// is undone at the worker's next notification: tag and CPU mask are restored.
void pop_stale_frames() noexcept {
  while (tls_frame_depth > 0 && tls_frame_depth <= kMaxFrames) {
    const WorkerFrame& top = tls_frames[tls_frame_depth - 1];
    if (top.cell->generation.load(std::memory_order_acquire) == top.gen) return;
    pop_frame();
  }
}

class WorkerObserver final : public tbb::task_scheduler_observer {
 public:
  WorkerObserver(tbb::task_arena& arena, Executor& ex)
      : tbb::task_scheduler_observer(arena), ex_(ex) {}
  ~WorkerObserver() override { observe(false); }
  void on_scheduler_entry(bool is_worker) override {
    if (is_worker) ex_.on_worker_entry();
  }
  void on_scheduler_exit(bool is_worker) override {
    if (is_worker) ex_.on_worker_exit();
  }

 private:
  Executor& ex_;
};

}  // namespace

std::uint64_t managed_arenas_created() noexcept {
  return g_arenas_created.load(std::memory_order_relaxed);
}

std::unique_ptr<Executor> Executor::managed(int threads, std::optional<CpuSet> pin_to) {
  std::unique_ptr<Executor> e(new Executor);
  e->threads_ = threads < 1 ? 1 : threads;
  e->pin_to_ = std::move(pin_to);
  return e;
}

std::unique_ptr<Executor> Executor::external(tbb::task_arena& arena) {
  std::unique_ptr<Executor> e(new Executor);
  e->external_ = &arena;
  e->threads_ = arena.max_concurrency();
  return e;
}

std::unique_ptr<Executor> Executor::attached() {
  std::unique_ptr<Executor> e(new Executor);
  e->attached_ = std::make_unique<tbb::task_arena>(tbb::task_arena::attach());
  if (!e->attached_->is_active()) e->attached_->initialize();  // the thread was in no arena yet
  e->external_ = e->attached_.get();
  e->threads_ = e->attached_->max_concurrency();
  return e;
}

Executor::Executor() : cell_(acquire_cell()) {}

void executor_fork_prepare() noexcept {
  g_capacity_mu.lock();
  g_cells_mu.lock();
}
void executor_fork_parent() noexcept {
  g_cells_mu.unlock();
  g_capacity_mu.unlock();
}
void executor_fork_child() noexcept {
  g_cells_mu.unlock();
  g_capacity_mu.unlock();
}

Executor::~Executor() {
  if (observer_) {
    // Let idle workers leave first so their exit notifications restore tag and CPU mask (they leave
    // an arena without work within microseconds); a straggler is repaired by pop_stale_frames.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
    while (workers_inside_.load(std::memory_order_acquire) != 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  observer_.reset();  // stop notifications before the arena goes
  if (arena_) arena_->terminate();
  if (solo_) solo_->terminate();
  retire_cell(cell_);  // workers still tagged with it now see a stale generation
}

void Executor::create_arena() {
  std::lock_guard lock(create_mu_);
  if (arena_ready_.load(std::memory_order_relaxed)) return;
  ensure_thread_capacity(threads_);
  auto arena = std::make_unique<tbb::task_arena>(threads_, /*reserved_for_masters=*/1);
  arena->initialize();
  auto observer = std::make_unique<WorkerObserver>(*arena, *this);
  published_.store(
      true, std::memory_order_release);  // an edge TSan sees (oneTBB's own is not instrumented)
  observer->observe(true);
  arena_ = std::move(arena);
  observer_ = std::move(observer);
  g_arenas_created.fetch_add(1, std::memory_order_relaxed);
  arena_ready_.store(true, std::memory_order_release);
}

tbb::task_arena& Executor::callback_arena() {
  if (tbb::task_arena* a = solo_ready_.load(std::memory_order_acquire)) return *a;
  std::lock_guard lock(create_mu_);
  if (!solo_) {
    auto a = std::make_unique<tbb::task_arena>(1, /*reserved_for_masters=*/1);  // no workers
    a->initialize();
    solo_ = std::move(a);
  }
  solo_ready_.store(solo_.get(), std::memory_order_release);
  return *solo_;
}

void Executor::enter(FunctionRef<void()> f, Purpose purpose) {
  // Exact without a locked RMW: every entry of one executor holds a permit of its backend's
  // request, and those conflict with each other, so entries are ordered by the arbiter's lock.
  entries_.store(entries_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  tbb::task_arena* arena = external_;
  if (arena == nullptr) {
    if (threads_ == 1) {
      if (purpose == Purpose::kernels) {
        f();
        return;
      }
      arena = &callback_arena();
    } else {
      if (!arena_ready_.load(std::memory_order_acquire)) create_arena();
      arena = arena_.get();
    }
  }
  // Inside: a callback's waits take only work of its own region (kernels isolate their loops
  // themselves, ExecContext::parallel_for).
  auto body = [&] {
    if (purpose == Purpose::callback)
      tbb::this_task_arena::isolate([&] { f(); });
    else
      f();
  };
  if (external_ != nullptr) {
    // A caller-owned arena may have no free slot: then execute waits, and must not pick up the
    // caller's own unrelated tasks meanwhile. Our arenas always have the master slot free for the
    // permit holder (one admission per backend at a time), so they skip this.
    tbb::this_task_arena::isolate([&] { arena->execute(body); });
    return;
  }
  arena->execute(body);
}

void Executor::on_worker_entry() noexcept {
  if (!published_.load(std::memory_order_acquire)) return;  // unreachable: observe(true) follows it
  workers_inside_.fetch_add(1, std::memory_order_relaxed);
  ThreadAdmission& t = tls_admission;
  pop_stale_frames();
  if (tls_frame_depth >= kMaxFrames) {  // pathological nesting: tag nothing, change nothing
    ++tls_frame_depth;
    return;
  }
  WorkerFrame& fr = tls_frames[tls_frame_depth++];
  fr.cell = cell_;
  fr.gen = cell_->generation.load(std::memory_order_acquire);
  fr.prev_cell = t.worker_cell;
  fr.prev_gen = t.worker_gen;
  fr.restore_mask = false;
  t.worker_cell = cell_;
  t.worker_gen = fr.gen;
  if (!pin_to_) return;
  if (sched_getaffinity(0, sizeof(fr.old_mask), &fr.old_mask) != 0) {
    pin_failures_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(pin_mu_);
    if (pin_note_.empty())
      pin_note_ = std::string("sched_getaffinity failed: ") + std::strerror(errno);
    return;
  }
  const cpu_set_t want = to_mask(*pin_to_);
  if (sched_setaffinity(0, sizeof(want), &want) != 0) {
    const int err = errno;
    pin_failures_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(pin_mu_);
    if (pin_note_.empty())
      pin_note_ = "the OS refused to pin a worker to CPUs " + pin_to_->to_string() +
                  ": sched_setaffinity: " + std::strerror(err);
    return;
  }
  fr.restore_mask = true;
  cpu_set_t got;
  CPU_ZERO(&got);
  if (sched_getaffinity(0, sizeof(got), &got) != 0 || !(from_mask(got) == *pin_to_)) {
    pin_failures_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(pin_mu_);
    if (pin_note_.empty())
      pin_note_ = "a worker asked for CPUs " + pin_to_->to_string() + " but runs on " +
                  from_mask(got).to_string();
    return;
  }
  pinned_.fetch_add(1, std::memory_order_relaxed);
}

void Executor::on_worker_exit() noexcept {
  pop_stale_frames();
  if (tls_frame_depth > kMaxFrames) {
    --tls_frame_depth;
  } else if (tls_frame_depth > 0 && tls_frames[tls_frame_depth - 1].cell == cell_) {
    pop_frame();
  }
  workers_inside_.fetch_sub(1, std::memory_order_release);  // ~Executor waits for zero
}

PinningReport Executor::pinning() const {
  PinningReport r;
  r.requested = pin_to_.has_value();
  r.workers_pinned = pinned_.load(std::memory_order_relaxed);
  r.failures = pin_failures_.load(std::memory_order_relaxed);
  std::lock_guard lock(pin_mu_);
  r.note = pin_note_;
  if (r.requested && r.note.empty()) {
    if (threads_ == 1)
      r.note = "budget 1 runs inline on the caller: there are no workers to pin";
    else if (r.workers_pinned == 0)
      r.note = "no worker has entered the arena yet; pinning is applied when a worker joins";
  }
  return r;
}

}  // namespace tenferro::detail
