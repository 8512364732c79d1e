// Note [Byte counts] (src/core/alloc.hpp).
#include "core/alloc.hpp"

#include <atomic>
#include <cstdint>
#include <string>

#include "tenferro/error.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {
namespace {

constexpr std::size_t kDefaultLimit = static_cast<std::size_t>(PTRDIFF_MAX);

std::string u128_to_string(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string s;
  for (; v > 0; v /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  return s;
}

std::string limit_text(std::size_t limit = allocation_limit()) {
  return "more than the largest allocation of " + std::to_string(limit) + " bytes";
}

void check_count(std::int64_t numel, DType dtype, std::string_view op, std::string_view shape) {
  const auto item = static_cast<unsigned __int128>(dtype_size(dtype));
  const unsigned __int128 bytes = static_cast<unsigned __int128>(numel) * item;
  if (numel >= 0 && bytes <= allocation_limit()) return;
  std::string what = std::to_string(numel) + " elements of " + std::string(dtype_name(dtype));
  if (!shape.empty()) what += " (shape " + std::string(shape) + ")";
  what += ", " + u128_to_string(bytes) + " bytes";
  throw_out_of_memory(op, what + ": " + limit_text());
}

}  // namespace

std::atomic<std::size_t> g_allocation_limit{kDefaultLimit};

std::size_t set_allocation_limit(std::size_t bytes) noexcept {
  return g_allocation_limit.exchange(bytes == 0 ? kDefaultLimit : bytes, std::memory_order_relaxed);
}

void throw_out_of_memory(std::string_view op, std::string_view what) {
  throw Error(ErrorKind::OutOfMemory, std::string(op) + ": cannot allocate " + std::string(what));
}

void throw_above_limit(std::string_view op, std::size_t bytes, std::size_t limit) {
  throw_out_of_memory(op, std::to_string(bytes) + " bytes: " + limit_text(limit));
}

std::size_t checked_bytes(std::int64_t numel, DType dtype, std::string_view op) {
  check_count(numel, dtype, op, {});
  return static_cast<std::size_t>(numel) * dtype_size(dtype);
}

std::size_t checked_bytes(std::int64_t count, std::size_t itemsize, std::string_view op) {
  const unsigned __int128 bytes = static_cast<unsigned __int128>(count) * itemsize;
  if (count < 0 || bytes > allocation_limit())
    throw_out_of_memory(op, std::to_string(count) + " items of " + std::to_string(itemsize) +
                                " bytes, " + u128_to_string(bytes) + " bytes: " + limit_text());
  return static_cast<std::size_t>(bytes);
}

std::size_t checked_bytes_slow(std::span<const std::int64_t> shape, DType dtype,
                               std::string_view op) {
  const std::int64_t numel = dims_numel(shape);
  const auto item = static_cast<unsigned __int128>(dtype_size(dtype));
  // An empty shape is checked too: its non-zero dimensions must multiply within int64 as well
  // (e.g. diag_embed of a [0, 1] input with offset 2^62 would give [0, 2^62, 2^62]).
  if (numel <= 0 || static_cast<unsigned __int128>(numel) * item > allocation_limit()) {
    check_shape(shape, op);  // a negative dimension or > INT64_MAX elements: InvalidArgument
    check_count(numel, dtype, op, dims_to_string(shape));
  }
  return static_cast<std::size_t>(numel) * dtype_size(dtype);
}

std::size_t checked_add(std::size_t a, std::size_t b, std::string_view op) {
  std::size_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum) || sum > allocation_limit())
    throw_out_of_memory(
        op, u128_to_string(static_cast<unsigned __int128>(a) + b) + " bytes: " + limit_text());
  return sum;
}

void rethrow_naming(const Error& e, std::string_view op) {
  const std::string& m = e.message();
  if (m.size() > op.size() && m.compare(0, op.size(), op) == 0 && m[op.size()] == ':') throw e;
  throw Error(ErrorKind::OutOfMemory, std::string(op) + ": " + m);
}

void throw_heap_failure(std::string_view op) {
  throw Error(ErrorKind::OutOfMemory,
              std::string(op) + ": out of memory (the heap could not satisfy an allocation)");
}

}  // namespace tenferro::detail
