// A small test-and-test-and-set lock for critical sections of a few dozen instructions (arbiter
// bookkeeping, buffer-pool free lists, the engine borrow flag). Uncontended lock+unlock is one
// atomic exchange and one release store (std::mutex costs two locked instructions plus a call).
// Waiters spin briefly, then yield, so a preempted holder on an oversubscribed machine is not
// starved. Satisfies BasicLockable (std::lock_guard).
#pragma once

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tenferro::detail {

class SpinLock {
 public:
  void lock() noexcept {
    if (!flag_.exchange(true, std::memory_order_acquire)) return;
    lock_slow();
  }
  bool try_lock() noexcept {
    return !flag_.load(std::memory_order_relaxed) && !flag_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  void lock_slow() noexcept {
    for (int spins = 0;; ++spins) {
      while (flag_.load(std::memory_order_relaxed)) {
        if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
          _mm_pause();
#endif
          ++spins;
        } else {
          std::this_thread::yield();
        }
      }
      if (!flag_.exchange(true, std::memory_order_acquire)) return;
    }
  }
  std::atomic<bool> flag_{false};
};

}  // namespace tenferro::detail
