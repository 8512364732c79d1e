// What every index-taking primitive shares (indexing.cpp, scatter.cpp, masking.cpp): the index
// dtype rule, the one out-of-range message, and the row-major odometer their kernels walk.
//
// Indices are i32 or i64 tensors; a negative index counts from the end of the axis, as NumPy.
// An index outside [-n, n) throws InvalidArgument naming the op, the index, its position and the
// axis size; kernels check every index before it is used (never an out-of-bounds access).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "primitives/primitive.hpp"

namespace tenferro::detail {

/// DTypeMismatch unless `idx` is i32 or i64; `in` are the op's inputs, for the message.
inline void check_index_dtype(const char* op, std::span<const Tensor> in, const Tensor& idx) {
  if (idx.dtype() != DType::i32 && idx.dtype() != DType::i64)
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": indices must be i32 or i64, got " + describe(in));
}

/// The InvalidArgument for index `j` at position `pos` of an axis of size n.
[[noreturn]] inline void throw_index_out_of_range(const char* op, std::int64_t j, const Dims& pos,
                                                  std::int64_t axis, std::int64_t n,
                                                  std::span<const Tensor> in) {
  throw Error(ErrorKind::InvalidArgument,
              std::string(op) + ": index " + std::to_string(j) + " at position " +
                  dims_to_string(pos) + " is out of range for axis " + std::to_string(axis) +
                  " of size " + std::to_string(n) + " (inputs " + describe(in) + "); expected " +
                  std::to_string(-n) + " <= index < " + std::to_string(n));
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
