#include "tenferro/storage.hpp"

#include <cstdlib>
#include <new>
#include <string>

#include "core/alloc.hpp"

namespace tenferro {
namespace {
constexpr std::size_t kAlign = 64;

void release_heap(Storage* s) noexcept {
  ::operator delete (s->data, std::align_val_t{kAlign});
  delete s;
}
}  // namespace

Storage* heap_storage(std::size_t bytes) { return detail::heap_storage_for(bytes, "heap_storage"); }

namespace detail {
// Note [Byte counts]: a request above the allocation limit and a heap failure are both
// Error{OutOfMemory}; std::bad_alloc does not leave.
Storage* heap_storage_for(std::size_t bytes, std::string_view op) {
  if (bytes > allocation_limit()) throw_above_limit(op, bytes, allocation_limit());
  Storage* s = nullptr;
  try {
    s = new Storage;
    s->data = ::operator new (bytes == 0 ? kAlign : bytes, std::align_val_t{kAlign});
  } catch (const std::bad_alloc&) {
    delete s;
    throw_out_of_memory(op, std::to_string(bytes) + " bytes: the heap is exhausted");
  }
  s->bytes = bytes;
  s->release = &release_heap;
  return s;
}
}  // namespace detail

}  // namespace tenferro
