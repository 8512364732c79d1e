// The engine: the executor and the resources operations borrow.
//
// One engine per witness (copies share it). Its resources -- output buffer pool and caches -- are
// borrowed exclusively by one operation or session at a time behind `borrow_mutex`, and released
// before the next (a scope never holds the borrow while user code runs; Note [Operation loan]).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "cpu/bounded_cache.hpp"
#include "cpu/buffer_pool.hpp"
#include "cpu/executor.hpp"
#include "cpu/fork.hpp"
#include "cpu/spin_lock.hpp"

namespace tenferro::detail {

class Engine {
 public:
  Engine(std::unique_ptr<Executor> executor, std::size_t pool_limit_bytes)
      : executor_(std::move(executor)),
        pool_(BufferPool::create(pool_limit_bytes)),
        fork_generation_(detail::fork_generation()) {}
  ~Engine() {
    if (fork_generation_ != detail::fork_generation()) {
      // Note [Fork]: the parent's arena and locks are not ours to touch in a child: leak them.
      (void)executor_.release();
      return;
    }
    pool_->close();  // Note [Buffer pool ownership]: outstanding storages keep it alive
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Executor& executor() const noexcept { return *executor_; }
  BufferPool& pool() const noexcept { return *pool_; }
  /// The exclusive borrow. A sleeping lock: a session holds it across its whole callback and an
  /// operation across its kernel, so a maintenance call (clear_caches) must not spin for that
  /// long. Uncontended on the hot path: admissions of one engine are already serialised by its
  /// permit.
  BlockingLock& borrow_mutex() const noexcept { return borrow_mu_; }
  /// Only while the engine is borrowed (borrow_mutex held by this thread).
  CacheSlots& caches() noexcept { return caches_; }
  /// Intra-op loops that fanned out (CpuBackendDiagnostics::parallel_loops). Written under the
  /// borrow, read by anyone: a relaxed load+store, never a locked RMW on the kernel path.
  void count_parallel_loop() noexcept {
    parallel_loops_.store(parallel_loops_.load(std::memory_order_relaxed) + 1,
                          std::memory_order_relaxed);
  }
  std::uint64_t parallel_loops() const noexcept {
    return parallel_loops_.load(std::memory_order_relaxed);
  }

 private:
  std::unique_ptr<Executor> executor_;
  BufferPool* pool_;
  std::uint64_t fork_generation_;
  mutable BlockingLock borrow_mu_;
  CacheSlots caches_;
  std::atomic<std::uint64_t> parallel_loops_{0};
};

}  // namespace tenferro::detail
