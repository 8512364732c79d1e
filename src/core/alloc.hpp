// Byte counts and allocation failures.
//
// Note [Byte counts]: a tensor's element count fits in int64 (every shape is checked when a
// tensor or a spec is made), but its byte count may not: 2^61 f64 elements are 2^64 bytes. Every
// byte count the library forms from a shape -- numel x itemsize for an output, a temporary, a
// workspace buffer, and the sums of such counts -- goes through checked_bytes()/checked_add(), so
// it is either exact and within allocation_limit(), or an Error{OutOfMemory} that names the
// operation and the size it asked for. Every allocator of tensor-sized memory (heap_storage,
// the engine's buffer pool, the trace workspace, kernel temporaries: bind() and the plan runner
// translate what a kernel throws) turns a heap failure into Error{OutOfMemory} as well, so a
// failed tensor-sized allocation never surfaces as std::bad_alloc. docs/errors.md, "Limits", is
// the user-facing form.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "tenferro/dtype.hpp"
#include "tenferro/error.hpp"
#include "tenferro/storage.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

extern std::atomic<std::size_t> g_allocation_limit;
/// The largest single allocation the library attempts, in bytes: PTRDIFF_MAX unless lowered.
inline std::size_t allocation_limit() noexcept {
  return g_allocation_limit.load(std::memory_order_relaxed);
}
/// Sets allocation_limit() for the whole process and returns the previous value. For tests and
/// the fuzzer (a request above the limit fails as a heap failure would, without touching the
/// heap); 0 restores the default.
std::size_t set_allocation_limit(std::size_t bytes) noexcept;

/// Throws Error{OutOfMemory}: "<op>: cannot allocate <what>; ...".
[[noreturn]] void throw_out_of_memory(std::string_view op, std::string_view what);
/// Throws Error{OutOfMemory} for a request of `bytes` above `limit` (allocation_limit(), or an
/// allocator's own smaller maximum).
[[noreturn]] void throw_above_limit(std::string_view op, std::size_t bytes, std::size_t limit);

/// numel * itemsize(dtype), when it is representable and within allocation_limit(); otherwise
/// Error{OutOfMemory} naming `op`, the element count and the dtype. numel must be >= 0.
std::size_t checked_bytes(std::int64_t numel, DType dtype, std::string_view op);
/// count * itemsize for a temporary array of `count` items of `itemsize` bytes (count >= 0).
std::size_t checked_bytes(std::int64_t count, std::size_t itemsize, std::string_view op);
std::size_t checked_bytes_slow(std::span<const std::int64_t> shape, DType dtype,
                               std::string_view op);
/// The same for a shape (the message also names the shape). A shape with a negative dimension
/// or more than INT64_MAX elements (counting the non-zero dimensions only, so also when another
/// dimension is 0) is InvalidArgument naming `op`, as for Tensor::empty. Inline: every eager
/// output passes here, and an ordinary shape costs one overflow-checked multiply per dimension.
inline std::size_t checked_bytes(std::span<const std::int64_t> shape, DType dtype,
                                 std::string_view op) {
  std::uint64_t n = 1;
  bool unusual = false;  // a zero or negative dimension, or an overflow: the slow path decides
  for (const std::int64_t d : shape)
    unusual |= d <= 0 || __builtin_mul_overflow(n, static_cast<std::uint64_t>(d), &n);
  std::uint64_t bytes = 0;
  unusual |= __builtin_mul_overflow(n, static_cast<std::uint64_t>(dtype_size(dtype)), &bytes);
  if (unusual || bytes > allocation_limit()) [[unlikely]]
    return checked_bytes_slow(shape, dtype, op);
  return static_cast<std::size_t>(bytes);
}
/// a + b for byte counts, Error{OutOfMemory} naming `op` when the sum is not representable or
/// exceeds allocation_limit().
std::size_t checked_add(std::size_t a, std::size_t b, std::string_view op);

/// heap_storage(bytes) whose OutOfMemory error names `op` (storage.hpp).
Storage* heap_storage_for(std::size_t bytes, std::string_view op);

/// InvalidArgument naming `op` for a negative dimension or more than INT64_MAX elements.
void check_shape(std::span<const std::int64_t> shape, std::string_view op);
/// Tensor::empty whose errors name `op` (the factories: zeros, rand, arange, ...).
Tensor empty_for(Dims shape, DType dtype, std::string_view op);

/// Error{OutOfMemory} for a std::bad_alloc (or a container's std::length_error) caught while
/// running `op`.
[[noreturn]] void throw_heap_failure(std::string_view op);
/// Rethrows `e` (OutOfMemory) with "<op>: " in front unless its message already starts so.
[[noreturn]] void rethrow_naming(const Error& e, std::string_view op);

/// Runs f() so that running out of memory inside it is an Error{OutOfMemory} whose message
/// starts with `named.name()` (a primitive, or an OpName): a std::bad_alloc or std::length_error
/// (temporaries: vectors, new[]) is translated, an OutOfMemory from a lower layer (the buffer
/// pool, a kernel) gets the name in front. The name is asked for only on a failure, so a cached
/// eager call does not pay for a virtual call it never uses.
template <class Named, class F>
requires requires(const Named& n) { std::string_view(n.name()); }
decltype(auto) translate_heap_failure(const Named& named, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw_heap_failure(named.name());
  } catch (const std::length_error&) {
    throw_heap_failure(named.name());
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::OutOfMemory) throw;
    rethrow_naming(e, named.name());
  }
}
/// A name known up front, for translate_heap_failure.
struct OpName {
  std::string_view op;
  std::string_view name() const noexcept { return op; }
};
/// The same, naming `op`.
template <class F>
decltype(auto) translate_heap_failure(std::string_view op, F&& f) {
  return translate_heap_failure(OpName{op}, std::forward<F>(f));
}

}  // namespace tenferro::detail
