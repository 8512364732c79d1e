// The output buffer pool: Note [Buffer pool ownership] in buffer_pool.hpp.
#include "cpu/buffer_pool.hpp"

#include <algorithm>
#include <bit>
#include <new>
#include <string>

#include "core/alloc.hpp"
#include "cpu/fork.hpp"

namespace tenferro::detail {
namespace {
constexpr std::size_t kAlign = 64;
constexpr std::size_t kHeader = 64;  // Storage header, padded to keep data 64-byte aligned
static_assert(sizeof(Storage) <= kHeader);

Storage*& next_of(Storage* s) noexcept { return *static_cast<Storage**>(s->data); }

void free_block(Storage* s) noexcept {
  s->~Storage();
  ::operator delete (static_cast<void*>(s), std::align_val_t{kAlign});
}
}  // namespace

std::size_t BufferPool::class_capacity(std::size_t bytes) noexcept {
  return kMinClassBytes << class_of(bytes);
}

BufferPool* BufferPool::create(std::size_t limit_bytes) {
  auto* pool = new BufferPool(limit_bytes);
  pool->fork_generation_ = fork_generation();
  return pool;
}

Storage* BufferPool::acquire(std::size_t bytes) {
  // Note [Byte counts] (src/core/alloc.hpp): OutOfMemory, never std::bad_alloc.
  const int cls = class_of(bytes);
  if (cls >= kClasses || bytes > allocation_limit())
    throw_above_limit("buffer pool", bytes,
                      std::min(allocation_limit(), kMinClassBytes << (kClasses - 1)));
  const std::size_t cap = kMinClassBytes << cls;
  {
    std::lock_guard lock(mu_);
    if (Storage* s = free_[cls]) {
      free_[cls] = next_of(s);
      retained_bytes_ -= cap;
      --retained_buffers_;
      ++hits_;
      ++outstanding_buffers_;
      outstanding_bytes_ += cap;
      peak_outstanding_bytes_ = std::max(peak_outstanding_bytes_, outstanding_bytes_);
      s->refs.store(1, std::memory_order_relaxed);
      s->bytes = bytes;
      // A recycled block is a fresh storage: its in-place writes under the previous owner (an
      // *_into op, backward's in-place accumulation) must not show in the new tensor's version
      // (Note [Version counter] in tenferro/storage.hpp). Nobody else holds it here.
      s->version.store(0, std::memory_order_relaxed);
      s->writer.store(nullptr, std::memory_order_relaxed);
      return s;
    }
    ++outstanding_buffers_;  // counted before the heap call: the pool must outlive the block
    outstanding_bytes_ += cap;
  }
  void* block = nullptr;
  try {
    block = ::operator new (kHeader + cap, std::align_val_t{kAlign});
  } catch (const std::bad_alloc&) {
    bool last = false;
    {
      std::lock_guard lock(mu_);
      --outstanding_buffers_;
      outstanding_bytes_ -= cap;
      last = closed_ && outstanding_buffers_ == 0;
    }
    if (last) delete this;
    throw_out_of_memory("buffer pool",
                        std::to_string(kHeader + cap) + " bytes: the heap is exhausted");
  }
  {
    // Only a block that exists is a miss and counts toward the peak: a failed request leaves
    // every counter as it was (docs/errors.md, "Allocation failure").
    std::lock_guard lock(mu_);
    ++misses_;
    peak_outstanding_bytes_ = std::max(peak_outstanding_bytes_, outstanding_bytes_);
  }
  auto* s = new (block) Storage;
  s->data = static_cast<char*>(block) + kHeader;
  s->bytes = bytes;
  s->release = &BufferPool::release_hook;
  s->library_owned = true;
  s->owner = this;
  return s;
}

void BufferPool::release_hook(Storage* s) noexcept {
  auto* pool = static_cast<BufferPool*>(s->owner);
  if (pool->fork_generation_ != fork_generation()) {
    // Note [Fork]: a parent's pool may have been frozen mid-update (its lock held by a thread
    // that does not exist here). Its storages dying in the child go straight to the heap.
    free_block(s);
    return;
  }
  pool->give_back(s);
}

void BufferPool::give_back(Storage* s) noexcept {
  const int cls = class_of(s->bytes);
  const std::size_t cap = kMinClassBytes << cls;
  bool retained = false;
  bool last = false;
  {
    std::lock_guard lock(mu_);
    --outstanding_buffers_;
    outstanding_bytes_ -= cap;
    if (!closed_ && retained_bytes_ + cap <= limit_) {
      next_of(s) = free_[cls];
      free_[cls] = s;
      retained_bytes_ += cap;
      ++retained_buffers_;
      retained = true;
    } else {
      ++dropped_;
    }
    last = closed_ && outstanding_buffers_ == 0;
  }
  if (!retained) free_block(s);
  if (last) delete this;
}

void BufferPool::trim_to(std::size_t bytes) noexcept {
  // Free the largest classes first: they hold the most bytes per block.
  for (int cls = kClasses - 1; cls >= 0 && retained_bytes_ > bytes; --cls) {
    const std::size_t cap = kMinClassBytes << cls;
    while (free_[cls] != nullptr && retained_bytes_ > bytes) {
      Storage* s = free_[cls];
      free_[cls] = next_of(s);
      retained_bytes_ -= cap;
      --retained_buffers_;
      free_block(s);
    }
  }
}

void BufferPool::close() noexcept {
  bool last = false;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    trim_to(0);
    last = outstanding_buffers_ == 0;
  }
  if (last) delete this;
}

BufferPoolStats BufferPool::stats() const {
  std::lock_guard lock(mu_);
  BufferPoolStats st;
  st.hits = hits_;
  st.misses = misses_;
  st.dropped = dropped_;
  st.retained_bytes = retained_bytes_;
  st.retained_buffers = retained_buffers_;
  st.outstanding_buffers = outstanding_buffers_;
  st.outstanding_bytes = outstanding_bytes_;
  st.peak_outstanding_bytes = peak_outstanding_bytes_;
  st.limit_bytes = limit_;
  return st;
}

void BufferPool::reset() noexcept {
  std::lock_guard lock(mu_);
  trim_to(0);
  hits_ = misses_ = dropped_ = 0;
  peak_outstanding_bytes_ = outstanding_bytes_;
}

void BufferPool::reset_peak() noexcept {
  std::lock_guard lock(mu_);
  peak_outstanding_bytes_ = outstanding_bytes_;
}

void BufferPool::set_limit(std::size_t bytes) noexcept {
  std::lock_guard lock(mu_);
  limit_ = bytes;
  trim_to(bytes);
}

}  // namespace tenferro::detail
