// Note [Contiguous or held]: a kernel that walks an input as one dense row-major array takes the
// tensor's own memory when it already is one (contiguous, of the wanted dtype) and otherwise packs
// it once into a buffer the caller holds. The byte count is checked first (Note [Byte counts] in
// core/alloc.hpp), so a huge view never becomes an overflowing allocation.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "core/alloc.hpp"
#include "core/strided.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// t's elements as a contiguous array of T (converted as copy_to_contiguous does when t's dtype
/// differs): t's memory or `hold`'s. Valid while both live. `op` names the caller in errors.
template <class T>
const T* contiguous_or_held(const Tensor& t, std::unique_ptr<T[]>& hold, std::string_view op) {
  if (t.is_contiguous() && t.dtype() == dtype_v<T>) return static_cast<const T*>(t.data_ptr());
  hold.reset(new T[checked_bytes(t.numel(), dtype_v<T>, op) / sizeof(T)]);
  copy_to_contiguous(t, hold.get(), dtype_v<T>);
  return hold.get();
}

/// The same for t's raw bytes in its own dtype (ops that only move elements of any dtype).
inline const std::byte* contiguous_or_held(const Tensor& t, std::unique_ptr<std::byte[]>& hold,
                                           std::string_view op) {
  if (t.is_contiguous()) return static_cast<const std::byte*>(t.data_ptr());
  hold.reset(new std::byte[checked_bytes(t.numel(), t.dtype(), op)]);
  copy_to_contiguous(t, hold.get(), t.dtype());
  return hold.get();
}

}  // namespace tenferro::detail
