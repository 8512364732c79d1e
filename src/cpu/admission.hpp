// Operation admission: the internal entry every op interpreter uses.
//
//   detail::run_operation(backend, [&](detail::ExecContext& ctx) {
//     Storage* out = ctx.allocate(bytes);                  // from the engine's buffer pool
//     ctx.parallel_for(n, 4096, [&](std::int64_t b, std::int64_t e) { ... });
//     return StoragePtr(out);
//   });
//
// run_operation outside any scope or session: owner guard (Note [Owner guard]) -> permit
// (blocking, Note [Permit ordering]) -> ONE executor entry (Note [Executor entry]) -> exclusive
// engine borrow -> body -> release all, in reverse order, on return or exception. It allocates
// nothing on the heap (the body may). Inside a session of the same witness on this thread it runs
// in the session's admission with the session's ExecContext; inside a scope of the same witness it
// takes an operation loan (Note [Operation loan]). Errors, all thrown before the body runs:
// Error{RuntimeState} for a nested operation, another witness inside a session or scope, or a
// worker helping an active operation/scope.
#pragma once

#include <cstdint>
#include <type_traits>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "cpu/backend_state.hpp"
#include "cpu/engine.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/storage.hpp"

namespace tenferro::detail {

/// Work (in rough CPU cycles) below which an operation never fans out: the fork/join of a
/// parallel loop costs a few microseconds.
inline constexpr std::int64_t kParallelWorkThreshold = 100'000;

/// What an admitted operation or session may use. Valid only inside that admission, on the thread
/// that runs it; never store it. Holds the engine borrow: allocation and caches need no locking.
class ExecContext {
 public:
  ExecContext(Engine& engine, int threads, BackendKind kind) noexcept
      : engine_(&engine), threads_(threads), kind_(kind) {}
  ExecContext(const ExecContext&) = delete;
  ExecContext& operator=(const ExecContext&) = delete;

  int threads() const noexcept { return threads_; }
  BackendKind kind() const noexcept { return kind_; }

  /// An output storage of `bytes` from the engine's buffer pool, with one reference (wrap it in a
  /// StoragePtr). Data uninitialised, 64-byte aligned. Throws std::bad_alloc on heap failure.
  Storage* allocate(std::size_t bytes) { return engine_->pool().acquire(bytes); }

  /// True when an op with `work` (rough cycles) should run an intra-op parallel loop: never for
  /// tiny work, budget 1, or the blas kind (OpenBLAS owns its threads there).
  bool may_parallelize(std::int64_t work) const noexcept {
    return threads_ > 1 && kind_ == BackendKind::native && work >= kParallelWorkThreshold;
  }

  /// body(begin, end) over disjoint chunks covering [0, n) exactly once. Parallel (tbb::parallel_for
  /// inside this_task_arena::isolate, on the entered arena) when may_parallelize(n), else one
  /// inline call body(0, n). Exceptions from body propagate.
  template <class F>
  void parallel_for(std::int64_t n, std::int64_t grain, F&& body) {
    parallel_for_work(n, grain, n, std::forward<F>(body));
  }
  /// As parallel_for, deciding by an explicit work estimate instead of n.
  template <class F>
  void parallel_for_work(std::int64_t n, std::int64_t grain, std::int64_t work, F&& body) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    if (!may_parallelize(work) || n <= grain) {
      body(std::int64_t{0}, n);
      return;
    }
    // Note [Owner guard]: isolation keeps this thread from picking up foreign tasks while it waits.
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, grain),
                        [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); });
    });
  }

  /// The engine's instance of cache type T (bounded_cache.hpp), built on first use.
  template <class T>
  T& cache() {
    return engine_->caches().get<T>();
  }
  BufferPool& buffer_pool() const noexcept { return engine_->pool(); }

 private:
  Engine* engine_;
  int threads_;
  BackendKind kind_;
};

/// The non-template core of run_operation (admission.cpp).
void run_operation_impl(const BackendState& state, FunctionRef<void(ExecContext&)> body);

/// Runs body(ExecContext&) admitted on `backend` (see the header comment) and returns its value
/// unchanged. `backend` must outlive the call.
template <class F>
decltype(auto) run_operation(const CpuBackend& backend, F&& body) {
  using R = std::invoke_result_t<F&, ExecContext&>;
  return call_through<R>([&](auto& cb) { run_operation_impl(BackendAccess::state(backend), cb); },
                         [&](ExecContext& c) -> R { return body(c); });
}

/// RAII helpers shared by operations, sessions and scopes (admission.cpp / session.cpp / scope.cpp).
class ActiveOwnerScope {  // Note [Owner guard]: the executor runs for `owner`
 public:
  ActiveOwnerScope(const Executor& ex, ResourceOwner owner) noexcept
      : cell_(ex.active_owner()), prev_(cell_.load(std::memory_order_relaxed)) {
    cell_.store(owner, std::memory_order_release);
  }
  ~ActiveOwnerScope() { cell_.store(prev_, std::memory_order_release); }
  ActiveOwnerScope(const ActiveOwnerScope&) = delete;
  ActiveOwnerScope& operator=(const ActiveOwnerScope&) = delete;

 private:
  std::atomic<ResourceOwner>& cell_;
  ResourceOwner prev_;
};

}  // namespace tenferro::detail
