#include "tenferro/storage.hpp"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include "core/alloc.hpp"
#include "core/pool.hpp"

namespace tenferro {
namespace {
constexpr std::size_t kAlign = 64;

// One plain operator new block per storage: the header, then the data at the next kAlign
// boundary. A separate aligned allocation for the data (operator new with align_val_t) goes
// through glibc's memalign, several times the cost of malloc for the small tensors that
// factories and scalar seeds allocate on every call. (Plain operator new, not malloc: tests that
// count heap allocations replace operator new.)
constexpr std::size_t kSlack = sizeof(Storage) + kAlign - 1;

void release_heap(Storage* s) noexcept {
  s->~Storage();
  ::operator delete(static_cast<void*>(s));
}

// Note [Small heap storages]: a payload of at most kSmallBytes (a scalar, a backward seed, a
// small factory result) lives in a block from a per-thread free list (Note [Tape pool] in
// core/pool.hpp): header, then the data at the next kAlign boundary. A backward seed costs a
// heap allocation and a free on every step otherwise.
constexpr std::size_t kSmallBytes = 64;
constexpr std::size_t kSmallHeader = (sizeof(Storage) + kAlign - 1) / kAlign * kAlign;
using SmallBlocks = detail::FreeList<kSmallHeader + kSmallBytes, kAlign>;

void release_small_heap(Storage* s) noexcept {
  s->~Storage();
  SmallBlocks::give(s);
}
}  // namespace

Storage* heap_storage(std::size_t bytes) { return detail::heap_storage_for(bytes, "heap_storage"); }

namespace detail {
// Note [Byte counts]: a request above the allocation limit and a heap failure are both
// Error{OutOfMemory}; std::bad_alloc does not leave.
Storage* heap_storage_for(std::size_t bytes, std::string_view op) {
  if (bytes > allocation_limit()) throw_above_limit(op, bytes, allocation_limit());
  if (bytes <= kSmallBytes) {  // Note [Small heap storages]
    void* block = nullptr;
    try {
      block = SmallBlocks::take();
    } catch (const std::bad_alloc&) {
      throw_out_of_memory(op, std::to_string(bytes) + " bytes: the heap is exhausted");
    }
    Storage* s = new (block) Storage;
    s->data = static_cast<char*>(block) + kSmallHeader;
    s->bytes = bytes;
    s->release = &release_small_heap;
    s->library_owned = true;
    return s;
  }
  void* block = bytes <= SIZE_MAX - kSlack ? ::operator new(kSlack + bytes, std::nothrow) : nullptr;
  if (block == nullptr)
    throw_out_of_memory(op, std::to_string(bytes) + " bytes: the heap is exhausted");
  Storage* s = new (block) Storage;
  const auto data = reinterpret_cast<std::uintptr_t>(block) + sizeof(Storage);
  s->data = reinterpret_cast<void*>((data + kAlign - 1) & ~std::uintptr_t{kAlign - 1});
  s->bytes = bytes;
  s->release = &release_heap;
  s->library_owned = true;
  return s;
}
}  // namespace detail

}  // namespace tenferro
