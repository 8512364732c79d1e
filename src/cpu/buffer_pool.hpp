// The engine's output buffer pool.
//
// Note [Buffer pool ownership]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The pool hands out tenferro::Storage objects (Note [Storage ownership] in storage.hpp) whose
// header and data live in one 64-byte aligned block: [Storage header | pad to 64 | data].
// Capacities are size classes, powers of two from 64 B. When the last StoragePtr drops -- on any
// thread, inside or outside an operation, even after the backend is gone -- the release hook
// returns the block to its class's free list, or frees it when retaining it would exceed the limit
// (or the engine has closed the pool). The free list is threaded through the free blocks' data, so
// neither path allocates once a class is warm. Lifetime: the engine holds one reference to the pool
// and every outstanding storage holds one more (counted under the pool lock as
// `outstanding_buffers`). The engine's destructor *closes* the pool (frees every retained block);
// whoever drops the last reference -- the engine or the last outstanding storage -- deletes it. So
// storages keep the pool alive, and the pool never keeps anything else alive. Stats are exact:
// every counter changes under the pool lock together with the state it describes. Acquisition needs
// no engine borrow for safety, but the runtime only calls it from an admitted operation's
// ExecContext (the engine is borrowed then).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "cpu/spin_lock.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/storage.hpp"

namespace tenferro::detail {

class BufferPool {
 public:
  static constexpr std::size_t kMinClassBytes = 64;
  static constexpr int kClasses = 48;  // 64 B ... 2^53 B

  /// A new pool with one reference (the creator's); release it with close().
  static BufferPool* create(std::size_t limit_bytes);
  /// Drops the creator's reference: frees retained blocks; the pool dies with its last storage.
  void close() noexcept;

  /// A storage of at least `bytes` usable bytes (64-byte aligned, uninitialised) with one
  /// reference; its `bytes` field is the requested size. Throws Error{OutOfMemory}
  /// (Note [Byte counts], src/core/alloc.hpp) on a heap failure or a size above the limit.
  Storage* acquire(std::size_t bytes);

  BufferPoolStats stats() const;
  /// Frees every retained block, zeroes hits/misses/dropped and restarts the peak.
  void reset() noexcept;
  /// Restarts the peak at the current outstanding bytes.
  void reset_peak() noexcept;
  /// Sets the retention limit, freeing retained blocks beyond it.
  void set_limit(std::size_t bytes) noexcept;

  /// The class capacity serving a request of `bytes`.
  static std::size_t class_capacity(std::size_t bytes) noexcept;

 private:
  explicit BufferPool(std::size_t limit) : limit_(limit) {}
  static void release_hook(Storage* s) noexcept;
  void give_back(Storage* s) noexcept;
  void trim_to(std::size_t bytes) noexcept;          // mu_ held
  static int class_of(std::size_t bytes) noexcept {  // inline: twice per eager op
    if (bytes <= kMinClassBytes) return 0;
    return std::bit_width(bytes - 1) - 6;  // ceil(log2(bytes)) - log2(64)
  }

  std::uint64_t fork_generation_ = 0;  // Note [Fork]: frees, never locks, in a later generation
  mutable SpinLock mu_;
  std::array<Storage*, kClasses> free_{};  // intrusive lists through the blocks' data
  std::size_t limit_;
  std::size_t retained_bytes_ = 0;
  std::size_t retained_buffers_ = 0;
  std::size_t outstanding_buffers_ = 0;
  std::size_t outstanding_bytes_ = 0;
  std::size_t peak_outstanding_bytes_ = 0;  // raised in acquire() only: one compare per acquire
  std::uint64_t hits_ = 0, misses_ = 0, dropped_ = 0;
  bool closed_ = false;
};

}  // namespace tenferro::detail
