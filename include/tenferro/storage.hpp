// Reference-counted element buffers.
//
// Note [Storage ownership]: a Storage is created by an allocator (the heap, or an engine's buffer
// pool) with one reference. Tensors share it through StoragePtr. When the last reference drops --
// on any thread, inside or outside an operation -- `release` runs and hands the bytes back to
// whoever made them (free, or the pool's free list). An allocator must therefore keep itself alive
// while it has storages outstanding. Data is 64-byte aligned and uninitialised when handed out.
//
// Note [Version counter]: every storage counts the in-place writes made to it through the public
// API (the `_into` ops, Tensor::set, backward's in-place gradient accumulation) and remembers the
// static name of the last writer. Views share their storage and so share the counter (PyTorch's
// Note [Version Counter Sharing]). Autodiff records the version each saved tensor saw and refuses
// to use a tensor whose storage was written since (docs/autodiff.md, "Version counters"). The
// counter is per storage, not per element: writing any view of a storage changes the version
// seen by every tensor on it. Raw writes through data_ptr()/data<T>() are not counted. A block
// the buffer pool recycles keeps its count (placement-new starts a fresh block at 0): no saved
// tensor can refer to a block that was free, and a count only has to differ from the one a saved
// tensor saw. 32 bits, like PyTorch's: exactly 2^32 writes after a save would go unnoticed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace tenferro {

struct Storage {
  std::atomic<std::uint32_t> refs{1};
  std::atomic<std::uint32_t> version{0};  // in-place writes so far (Note [Version counter])
  void* data = nullptr;
  std::size_t bytes = 0;                         // usable bytes at data
  void (*release)(Storage*) noexcept = nullptr;  // frees data and this header
  void* owner = nullptr;                         // allocator-private
  std::atomic<const char*> writer{nullptr};      // static name of the last in-place writer
  // True only for memory the library allocated itself (its heap blocks and buffer pools), never
  // for memory wrapped from outside (NumPy, DLPack, a caller's Storage): backward's in-place
  // accumulation writes only into such storage, whoever else may hold the outside memory.
  bool library_owned = false;

  /// Records an in-place write by `name` (a string literal: only the pointer is kept).
  void note_write(const char* name) noexcept {
    version.fetch_add(1, std::memory_order_relaxed);
    writer.store(name, std::memory_order_relaxed);
  }
  std::uint32_t current_version() const noexcept { return version.load(std::memory_order_relaxed); }
};

/// A heap storage of `bytes` (64-byte aligned data, uninitialised). Never returns null: throws
/// Error{OutOfMemory} when the heap refuses or `bytes` exceeds the allocation limit.
Storage* heap_storage(std::size_t bytes);

/// Intrusive shared pointer to a Storage (one atomic per copy, no control block).
class StoragePtr {
 public:
  StoragePtr() noexcept = default;
  /// Adopts the reference the allocator handed out.
  explicit StoragePtr(Storage* s) noexcept : s_(s) {}
  StoragePtr(const StoragePtr& o) noexcept : s_(o.s_) {
    if (s_) s_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  StoragePtr(StoragePtr&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  StoragePtr& operator=(StoragePtr o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  ~StoragePtr() { reset(); }
  void reset() noexcept {
    if (s_ && s_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) s_->release(s_);
    s_ = nullptr;
  }
  Storage* get() const noexcept { return s_; }
  Storage* operator->() const noexcept { return s_; }
  explicit operator bool() const noexcept { return s_ != nullptr; }
  std::uint32_t use_count() const noexcept {
    return s_ ? s_->refs.load(std::memory_order_relaxed) : 0;
  }

 private:
  Storage* s_ = nullptr;
};

}  // namespace tenferro
