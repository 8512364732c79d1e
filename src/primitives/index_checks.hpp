// What every index-taking primitive shares (indexing.cpp, scatter.cpp, masking.cpp): the index
// dtype rule, the one out-of-range message, and the row-major odometer their kernels walk.
//
// Indices are tensors of any integer dtype (i8 ... i64, u8 ... u64; bool is no index dtype, as
// NumPy's take); a negative index counts from the end of the axis, as NumPy. An index outside
// [-n, n) throws InvalidArgument naming the op, the index, its position and the axis size;
// kernels check every index before it is used (never an out-of-bounds access). A u64 index above
// INT64_MAX is out of range like any other (never wrapped to a negative one). Kernels read an
// index through load_index (one switch on the index dtype per element) rather than being
// instantiated once per index dtype.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "primitives/primitive.hpp"

namespace tenferro::detail {

/// DTypeMismatch unless `idx` has an integer dtype; `in` are the op's inputs, for the message.
inline void check_index_dtype(const char* op, std::span<const Tensor> in, const Tensor& idx) {
  if (!is_integer(idx.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) +
                    ": indices must have an integer dtype (i8 ... i64, u8 ... u64), got " +
                    describe(in));
}

/// Element `off` (in elements from `p`) of an integer tensor of dtype `d`, as i64 in `v`; false,
/// with v untouched, for a u64 value above INT64_MAX (no axis is that long, so it is out of
/// range; converting it would wrap it to a negative index).
inline bool load_index(const void* p, DType d, std::int64_t off, std::int64_t& v) noexcept {
  switch (d) {
    case DType::i8:
      v = static_cast<const std::int8_t*>(p)[off];
      return true;
    case DType::i16:
      v = static_cast<const std::int16_t*>(p)[off];
      return true;
    case DType::i32:
      v = static_cast<const std::int32_t*>(p)[off];
      return true;
    case DType::u8:
      v = static_cast<const std::uint8_t*>(p)[off];
      return true;
    case DType::u16:
      v = static_cast<const std::uint16_t*>(p)[off];
      return true;
    case DType::u32:
      v = static_cast<const std::uint32_t*>(p)[off];
      return true;
    case DType::u64: {
      const std::uint64_t u = static_cast<const std::uint64_t*>(p)[off];
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
      v = static_cast<std::int64_t>(u);
      return true;
    }
    default:  // i64 (check_index_dtype admitted only the integer dtypes)
      v = static_cast<const std::int64_t*>(p)[off];
      return true;
  }
}

/// Element `off` of an integer tensor as text, exact for every dtype (for messages).
inline std::string index_text(const void* p, DType d, std::int64_t off) {
  std::int64_t v = 0;
  if (load_index(p, d, off, v)) return std::to_string(v);
  return std::to_string(static_cast<const std::uint64_t*>(p)[off]);
}

/// The InvalidArgument for index `j` (its text) at position `pos` of an axis of size n.
[[noreturn]] inline void throw_index_out_of_range(const char* op, const std::string& j,
                                                  const Dims& pos, std::int64_t axis,
                                                  std::int64_t n, std::span<const Tensor> in) {
  throw Error(ErrorKind::InvalidArgument,
              std::string(op) + ": index " + j + " at position " + dims_to_string(pos) +
                  " is out of range for axis " + std::to_string(axis) + " of size " +
                  std::to_string(n) + " (inputs " + describe(in) + "); expected " +
                  std::to_string(-n) + " <= index < " + std::to_string(n));
}

/// The index at element `off` of `idx`'s data (`p`, dtype `d`), normalised into [0, n);
/// throw_index_out_of_range (naming position `pos`) when it lies outside [-n, n).
inline std::int64_t checked_index(const char* op, const void* p, DType d, std::int64_t off,
                                  std::int64_t n, const Dims& pos, std::int64_t axis,
                                  std::span<const Tensor> in) {
  std::int64_t j = 0;
  if (!load_index(p, d, off, j))
    throw_index_out_of_range(op, index_text(p, d, off), pos, axis, n, in);
  const std::int64_t orig = j;
  if (j < 0) j += n;
  if (j < 0 || j >= n) throw_index_out_of_range(op, std::to_string(orig), pos, axis, n, in);
  return j;
}

/// The shape rule scatter and scatter_add share: indices and source of one shape, equal to x's
/// off `axis` (ShapeMismatch otherwise); `in` = {x, indices, source}. Returns the axis in [0,
/// rank).
inline std::int64_t check_scatter_shapes(const char* op, std::int64_t axis,
                                         std::span<const Tensor> in) {
  const Tensor &x = in[0], &idx = in[1], &src = in[2];
  const std::int64_t a = normalize_axis(axis, x.rank(), op);
  bool ok = idx.rank() == x.rank() && idx.shape() == src.shape();
  for (std::int64_t d = 0; ok && d < x.rank(); ++d)
    ok = d == a ||
         idx.shape()[static_cast<std::size_t>(d)] == x.shape()[static_cast<std::size_t>(d)];
  if (!ok)
    throw Error(ErrorKind::ShapeMismatch,
                std::string(op) + ": inputs " + describe(in) +
                    "; expected indices and source of one shape, equal to the input's off the "
                    "axis " +
                    std::to_string(axis));
  return a;
}

/// Visits every position of `shape` in row-major order, keeping one offset per stride list
/// (an odometer): f(pos, offsets). Nothing for an empty shape.
template <std::size_t N, class F>
void for_each_position(const Dims& shape, const Dims (&strides)[N], F&& f) {
  for (std::int64_t d : shape)
    if (d == 0) return;
  const std::size_t r = shape.size();
  Dims pos(r, 0);
  std::int64_t off[N] = {};
  for (;;) {
    f(pos, off);
    std::size_t d = r;
    for (;;) {
      if (d == 0) return;
      --d;
      for (std::size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (++pos[d] < shape[d]) break;
      for (std::size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * shape[d];
      pos[d] = 0;
    }
  }
}

}  // namespace tenferro::detail
