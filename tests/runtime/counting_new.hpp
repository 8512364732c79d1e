// A counting replacement of the global operator new, for "no heap allocation" tests.
// Include from exactly ONE .cpp of a test executable: it defines the replacement functions.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace counting_new {
inline std::atomic<long> allocations{0};
inline long count() { return allocations.load(std::memory_order_relaxed); }
}  // namespace counting_new

namespace counting_new::impl {
inline void* allocate(std::size_t n, std::size_t align) {
  counting_new::allocations.fetch_add(1, std::memory_order_relaxed);
  if (n == 0) n = 1;
  void* p = align <= alignof(std::max_align_t) ? std::malloc(n) : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace counting_new::impl

void* operator new(std::size_t n) { return counting_new::impl::allocate(n, 0); }
void* operator new[](std::size_t n) { return counting_new::impl::allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counting_new::impl::allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counting_new::impl::allocate(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try { return counting_new::impl::allocate(n, 0); } catch (...) { return nullptr; }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try { return counting_new::impl::allocate(n, 0); } catch (...) { return nullptr; }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
