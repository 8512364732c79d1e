// The engine: the executor and the resources operations borrow.
//
// One engine per witness (copies share it). Its resources -- output buffer pool and caches -- are
// borrowed exclusively by one operation or session at a time behind `borrow_mutex`, and released
// before the next (a scope never holds the borrow while user code runs; Note [Operation loan]).
#pragma once

#include <memory>
#include <mutex>

#include "cpu/bounded_cache.hpp"
#include "cpu/buffer_pool.hpp"
#include "cpu/executor.hpp"
#include "cpu/spin_lock.hpp"

namespace tenferro::detail {

class Engine {
 public:
  Engine(std::unique_ptr<Executor> executor, std::size_t pool_limit_bytes)
      : executor_(std::move(executor)), pool_(BufferPool::create(pool_limit_bytes)) {}
  ~Engine() { pool_->close(); }  // Note [Buffer pool ownership]: outstanding storages keep it alive
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Executor& executor() const noexcept { return *executor_; }
  BufferPool& pool() const noexcept { return *pool_; }
  /// The exclusive borrow (a SpinLock: uncontended on the hot path -- admissions of one engine are
  /// already serialised by its permit -- and waited for only by maintenance such as clear_caches).
  SpinLock& borrow_mutex() const noexcept { return borrow_mu_; }
  /// Only while the engine is borrowed (borrow_mutex held by this thread).
  CacheSlots& caches() noexcept { return caches_; }

 private:
  std::unique_ptr<Executor> executor_;
  BufferPool* pool_;
  mutable SpinLock borrow_mu_;
  CacheSlots caches_;
};

}  // namespace tenferro::detail
