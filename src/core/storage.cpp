#include "tenferro/storage.hpp"

#include <cstdlib>
#include <new>

namespace tenferro {
namespace {
constexpr std::size_t kAlign = 64;

void release_heap(Storage* s) noexcept {
  ::operator delete (s->data, std::align_val_t{kAlign});
  delete s;
}
}  // namespace

Storage* heap_storage(std::size_t bytes) {
  auto* s = new Storage;
  try {
    s->data = ::operator new (bytes == 0 ? kAlign : bytes, std::align_val_t{kAlign});
  } catch (...) {
    delete s;
    throw;
  }
  s->bytes = bytes;
  s->release = &release_heap;
  return s;
}

}  // namespace tenferro
