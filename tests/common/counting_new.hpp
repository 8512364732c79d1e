// A counting replacement of the global operator new, for "no heap allocation" tests.
// Include from exactly ONE .cpp of a test executable: it defines the replacement functions.
// Every replaceable allocation form is defined (plain, array, aligned, nothrow): a partial set
// pairs a library operator new with our operator delete, which AddressSanitizer reports as an
// alloc-dealloc mismatch (std::stable_sort's nothrow temporary buffer did exactly that).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace counting_new {
inline std::atomic<long> allocations{0};
inline thread_local long thread_allocations = 0;
// Allocations by every thread since start.
inline long count() { return allocations.load(std::memory_order_relaxed); }
// Allocations by the calling thread since start (unaffected by pool workers).
inline long count_on_this_thread() { return thread_allocations; }
}  // namespace counting_new

namespace counting_new::impl {
inline void* allocate(std::size_t n, std::size_t align) {
  counting_new::allocations.fetch_add(1, std::memory_order_relaxed);
  ++counting_new::thread_allocations;
  if (n == 0) n = 1;
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(n)
                : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
inline void* allocate_nothrow(std::size_t n, std::size_t align) noexcept {
  try {
    return allocate(n, align);
  } catch (...) {
    return nullptr;
  }
}
}  // namespace counting_new::impl

void* operator new(std::size_t n) { return counting_new::impl::allocate(n, 0); }
void* operator new[](std::size_t n) { return counting_new::impl::allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  return counting_new::impl::allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return counting_new::impl::allocate(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counting_new::impl::allocate_nothrow(n, 0);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counting_new::impl::allocate_nothrow(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counting_new::impl::allocate_nothrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counting_new::impl::allocate_nothrow(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
