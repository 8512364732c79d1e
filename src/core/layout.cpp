// Layout records (Note [Layout record] in tenferro/detail/layout.hpp).
#include <bit>
#include <limits>
#include <new>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

const Dims kNoDims{};

namespace {

// Freed records, kept as raw memory per thread: a tiny op makes and drops a few records per call,
// and a free list is a few instructions where the heap is tens. A record freed on another thread
// than the one that made it goes to that thread's list.
struct FreeLayouts {
  static constexpr std::uint32_t kKeep = 64;
  void* head = nullptr;
  std::uint32_t count = 0;
  ~FreeLayouts() {
    while (head) {
      void* next = *static_cast<void**>(head);
      ::operator delete(head);
      head = next;
    }
    // A record dropped later by another thread_local's destructor on this thread is freed, not
    // kept: the list is full from now on.
    count = kKeep;
  }
};
thread_local FreeLayouts t_free;

Layout* new_layout() {
  if (void* p = t_free.head) {
    t_free.head = *static_cast<void**>(p);
    --t_free.count;
    return new (p) Layout;
  }
  return new Layout;
}

bool row_major(const Dims& shape, const Dims& strides) noexcept {
  std::int64_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (shape[i] == 0) return true;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

// Dimensions fold in with a rotate-xor (two instructions each); the eager cache mixes this word
// into its key hash (eager_key_hash), so a collision costs only a layout comparison.
std::uint64_t layout_hash(DType dtype, const Dims& shape, const Dims& strides) noexcept {
  std::uint64_t w = static_cast<std::uint64_t>(dtype) | shape.size() << 8;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    w = std::rotl(w, 7) ^ static_cast<std::uint64_t>(shape[i]);
    w = std::rotl(w, 7) ^ static_cast<std::uint64_t>(strides[i]);
  }
  return w;
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

}  // namespace

void release_layout(Layout* l) noexcept {
  l->~Layout();
  if (t_free.count < FreeLayouts::kKeep) {
    *reinterpret_cast<void**>(l) = t_free.head;
    t_free.head = l;
    ++t_free.count;
    return;
  }
  ::operator delete(l);
}

LayoutRef make_layout(Dims shape, Dims strides, std::int64_t numel, DType dtype) {
  Layout* l = new_layout();
  l->dtype = dtype;
  l->numel = numel;
  l->contiguous = row_major(shape, strides);
  l->hash = layout_hash(dtype, shape, strides);
  l->shape = std::move(shape);
  l->strides = std::move(strides);
  return LayoutRef(l);
}

LayoutRef make_contiguous_layout(Dims shape, DType dtype) {
  // Strides and numel in one pass; the copy of `shape` only sizes the strides (Note [SmallVector
  // fast copy]).
  Layout* l = new_layout();
  l->strides = shape;
  std::int64_t acc = 1, n = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    const std::int64_t d = shape[i];
    l->strides[i] = acc;
    acc = saturating_mul(acc, d == 0 ? 1 : d);
    n = saturating_mul(n, d);  // a 0 anywhere makes it 0, even after saturating
  }
  l->dtype = dtype;
  l->numel = n;
  l->contiguous = true;
  l->hash = layout_hash(dtype, shape, l->strides);
  l->shape = std::move(shape);
  return LayoutRef(l);
}

}  // namespace tenferro::detail
