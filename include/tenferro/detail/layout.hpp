// The shared layout record a Tensor handle points to. A user never names these.
//
// Note [Layout record]
// ~~~~~~~~~~~~~~~~~~~~
// A Tensor used to carry its shape and strides inline (two SmallVectors, ~190 bytes a handle), so
// every copy into an operand list, a tape node or an autodiff layer copied both, and a tiny AD
// step built and destroyed ~150 of them. Now a handle is storage + layout + offset + aux (40
// bytes): the layout record holds what a view's geometry is -- dtype, shape, strides, element
// count, whether it is row-major -- and is immutable once made and shared by reference count,
// like the storage. Copying a handle bumps two counters and copies nothing else.
//
// The offset stays in the handle, not in the record: a record is a geometry independent of where
// it starts, which is exactly what the eager cache keys on (it ignores offsets), so a row of a
// matrix and the next row can carry one record, and op results at any offset share theirs.
//
// Records are shared: the eager cache keeps the records of the layouts it has seen (Note [Eager
// cache]) and hands its cached output records to the op's results, so in a loop the next op's
// inputs carry the very records its own key holds, and the key compares by pointer before it
// compares dimensions. Contiguous records are also interned per thread in a small table (Note
// [Interned contiguous records] in src/core/layout.cpp), so tensors of one shape made on one
// thread usually share a record; nothing depends on it (equal layouts may still be two records).
// The record also keeps its own key hash, computed once when it is made instead of on every
// eager call.
//
// A record is made with make_layout / make_contiguous_layout and freed by the last reference;
// freed records go to a per-thread free list (src/core/pool.hpp), since a tiny op makes
// and drops a few per call.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

#include "tenferro/dtype.hpp"
#include "tenferro/small_vector.hpp"

namespace tenferro {

/// Shape or strides; up to 6 dimensions inline, more on the heap.
using Dims = SmallVector<std::int64_t, 6>;

namespace detail {

struct Layout {
  std::atomic<std::uint32_t> refs{1};
  DType dtype = DType::f64;
  bool contiguous = true;  // row-major for the shape, size-1 dims ignoring their stride
  std::uint64_t hash = 0;  // of dtype, shape and strides (the eager cache's key part)
  std::int64_t numel = 0;
  Dims shape, strides;
  // Note [Zero-strided twin]: the record of this shape and dtype with every stride 0 (one element
  // broadcast to this shape: the cotangent of a full sum() in backward), made on first request
  // by zero_strided_layout() and owned (one reference) by this record. Kept here so that the
  // broadcast of each step's scalar cotangent to the same primal carries the same record, which
  // the eager cache then finds by pointer (Note [Eager cache]), and costs no record of its own.
  mutable std::atomic<Layout*> zero_strided{nullptr};
};

/// Frees a record whose last reference dropped (to the thread's free list when it has room).
void release_layout(Layout* l) noexcept;

/// Intrusive shared pointer to an immutable Layout (one atomic per copy, no control block).
class LayoutRef {
 public:
  LayoutRef() noexcept = default;
  /// Adopts one reference (a record from make_layout starts with one).
  explicit LayoutRef(Layout* l) noexcept : l_(l) {}
  LayoutRef(const LayoutRef& o) noexcept : l_(o.l_) {
    if (l_) l_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  LayoutRef(LayoutRef&& o) noexcept : l_(std::exchange(o.l_, nullptr)) {}
  LayoutRef& operator=(const LayoutRef& o) noexcept {
    if (o.l_) o.l_->refs.fetch_add(1, std::memory_order_relaxed);
    reset();
    l_ = o.l_;
    return *this;
  }
  LayoutRef& operator=(LayoutRef&& o) noexcept {
    if (this != &o) {
      reset();
      l_ = std::exchange(o.l_, nullptr);
    }
    return *this;
  }
  ~LayoutRef() { reset(); }
  void reset() noexcept {
    if (l_ && l_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) release_layout(l_);
    l_ = nullptr;
  }
  const Layout* get() const noexcept { return l_; }
  /// Gives up the reference without dropping it (the caller now owns it).
  Layout* release() noexcept { return std::exchange(l_, nullptr); }
  const Layout* operator->() const noexcept { return l_; }
  explicit operator bool() const noexcept { return l_ != nullptr; }

 private:
  Layout* l_ = nullptr;
};

/// A record of `shape` with `strides` (one per dimension) and `numel` elements (the caller
/// computed and checked them).
LayoutRef make_layout(Dims shape, Dims strides, std::int64_t numel, DType dtype);
/// A row-major record of `shape` (strides saturating as contiguous_strides does).
LayoutRef make_contiguous_layout(Dims shape, DType dtype);
/// The record of l's shape and dtype with every stride 0 (Note [Zero-strided twin]); `l` itself
/// when its strides are all 0 already. Thread-safe: the first caller's record wins.
LayoutRef zero_strided_layout(const Layout& l);

/// The dimensions of an undefined tensor.
extern const Dims kNoDims;

}  // namespace detail
}  // namespace tenferro
