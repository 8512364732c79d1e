// Two locks. SpinLock: a small test-and-test-and-set lock for critical sections of a few dozen
// instructions (arbiter bookkeeping, buffer-pool free lists). BlockingLock (below): for sections
// that may run user code or long kernels (the engine borrow).
// SpinLock's uncontended lock+unlock is one atomic exchange and one release store (std::mutex costs
// two locked instructions plus a call). Waiters spin briefly, then yield, so a preempted holder on
// an oversubscribed machine is not starved. Satisfies BasicLockable (std::lock_guard).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tenferro::detail {

/// One spin-wait hint (PAUSE on x86, nothing elsewhere).
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

class SpinLock {
 public:
  void lock() noexcept {
    if (!flag_.exchange(true, std::memory_order_acquire)) return;
    lock_slow();
  }
  bool try_lock() noexcept {
    return !flag_.load(std::memory_order_relaxed) &&
           !flag_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  void lock_slow() noexcept {
    for (int spins = 0;; ++spins) {
      while (flag_.load(std::memory_order_relaxed)) {
        if (spins < 64) {
          cpu_relax();
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

/// A lock that sleeps: for a critical section that can last as long as user code (the engine
/// borrow is held across a whole session callback, or a large kernel). The classic three-state
/// futex mutex (0 free, 1 held, 2 held and maybe waited for) on std::atomic wait/notify:
/// uncontended lock and unlock are one atomic RMW each, a waiter spins briefly and then sleeps
/// instead of burning a core for the holder's whole critical section. Satisfies Lockable.
class BlockingLock {
 public:
  void lock() noexcept {
    std::uint32_t c = 0;
    if (state_.compare_exchange_strong(c, 1, std::memory_order_acquire)) return;
    lock_slow();
  }
  bool try_lock() noexcept {
    std::uint32_t c = 0;
    return state_.compare_exchange_strong(c, 1, std::memory_order_acquire);
  }
  void unlock() noexcept {
    if (state_.exchange(0, std::memory_order_release) == 2) state_.notify_one();
  }

 private:
  void lock_slow() noexcept {
    for (int spins = 0; spins < 64; ++spins) {
      cpu_relax();
      std::uint32_t c = 0;
      if (state_.load(std::memory_order_relaxed) == 0 &&
          state_.compare_exchange_strong(c, 1, std::memory_order_acquire))
        return;
    }
    // Mark "waited for" so the holder's unlock wakes us; whoever takes it in state 2 keeps 2.
    while (state_.exchange(2, std::memory_order_acquire) != 0)
      state_.wait(2, std::memory_order_relaxed);
  }
  std::atomic<std::uint32_t> state_{0};
};

}  // namespace tenferro::detail
