// Layout records (Note [Layout record] in tenferro/detail/layout.hpp).
#include <bit>
#include <new>
#include <utility>

#include "core/pool.hpp"
#include "core/strided.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

const Dims kNoDims{};

namespace {

// Records come from a per-thread free list (Note [Tape pool] in core/pool.hpp): a tiny op makes
// and drops a few per call.
using LayoutBlocks = FreeList<sizeof(Layout), alignof(Layout)>;

Layout* new_layout() { return new (LayoutBlocks::take()) Layout; }

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

}  // namespace

void release_layout(Layout* l) noexcept {
  LayoutRef twin(l->zero_strided.load(std::memory_order_acquire));  // dropped with l
  l->~Layout();
  LayoutBlocks::give(l);
}

LayoutRef zero_strided_layout(const Layout& l) {
  Layout* z = l.zero_strided.load(std::memory_order_acquire);
  if (z == nullptr) {
    bool zero = true;
    for (std::int64_t s : l.strides) zero = zero && s == 0;
    if (zero) {  // its own twin (a reference to itself would keep it alive forever)
      auto& self = const_cast<Layout&>(l);  // records are shared immutable; the count is not
      self.refs.fetch_add(1, std::memory_order_relaxed);
      return LayoutRef(&self);
    }
    LayoutRef made = make_layout(l.shape, Dims(l.shape.size(), 0), l.numel, l.dtype);
    Layout* expected = nullptr;
    if (l.zero_strided.compare_exchange_strong(expected, const_cast<Layout*>(made.get()),
                                               std::memory_order_acq_rel)) {
      z = made.release();  // l owns this reference now
    } else {
      z = expected;  // another thread made it first; `made` is dropped
    }
  }
  z->refs.fetch_add(1, std::memory_order_relaxed);
  return LayoutRef(z);
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

namespace {

// Note [Interned contiguous records]: each thread keeps the contiguous records it made last in a
// small direct-mapped table (by the record's hash), and make_contiguous_layout returns the kept
// record when one of the same shape and dtype is there. So the tensors a program makes of one
// shape -- its inputs, the eager cache's cached outputs (Note [Eager cache]), the gradients of
// those inputs -- usually carry one record, and the comparisons on the hot path (the eager
// cache's key, backward's check of a rule's result against its input, a cotangent's fit to its
// primal) end at the pointer. A slot holds one reference; a record another thread made is never
// in this thread's table, which is harmless (a miss only costs the comparison of dimensions).
constexpr std::size_t kInternSlots = 64;

// Trivially destructible, so it stays usable while other thread_locals are being destroyed; the
// reaper drops the slots' references at thread exit.
struct InternTable {
  Layout* slot[kInternSlots];
  bool armed;
  bool dead;
};
InternTable& intern_table() noexcept {
  thread_local InternTable t{};
  return t;
}
struct InternReaper {
  ~InternReaper() {
    InternTable& t = intern_table();
    t.dead = true;
    for (Layout*& l : t.slot) LayoutRef drop(std::exchange(l, nullptr));
  }
};

bool same_dims(const Dims& a, const Dims& b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace

LayoutRef make_contiguous_layout(Dims shape, DType dtype) {
  // Strides and numel in one pass; the copy of `shape` only sizes the strides (Note [SmallVector
  // fast copy]).
  Dims strides = shape;
  std::int64_t acc = 1, n = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    const std::int64_t d = shape[i];
    strides[i] = acc;
    acc = saturating_mul(acc, d == 0 ? 1 : d);
    n = saturating_mul(n, d);  // a 0 anywhere makes it 0, even after saturating
  }
  const std::uint64_t hash = layout_hash(dtype, shape, strides);
  InternTable& table = intern_table();
  Layout*& slot = table.slot[(hash ^ hash >> 29) % kInternSlots];
  if (slot != nullptr && slot->hash == hash && slot->dtype == dtype &&
      same_dims(slot->shape, shape)) {
    slot->refs.fetch_add(1, std::memory_order_relaxed);
    return LayoutRef(slot);
  }
  Layout* l = new_layout();
  l->dtype = dtype;
  l->numel = n;
  l->contiguous = true;
  l->hash = hash;
  l->shape = std::move(shape);
  l->strides = std::move(strides);
  if (!table.dead) {
    if (!table.armed) {  // first record kept on this thread: arm the thread-exit cleanup
      thread_local InternReaper reaper;
      (void)reaper;
      table.armed = true;
    }
    l->refs.fetch_add(1, std::memory_order_relaxed);  // the slot's reference
    LayoutRef dropped(std::exchange(slot, l));
  }
  return LayoutRef(l);
}

}  // namespace tenferro::detail
