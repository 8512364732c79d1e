// block_assemble: a matrix made of pieces placed at given row/column offsets (zeros elsewhere).
// Internal op of the symmetric tensors (src/symmetric/contract.cpp): it fuses the blocks of a
// BlockTensor into the matrix of one charge sector in one copy, reading each piece (any shape, any
// strides) in row-major order as an nr x nc matrix, instead of a reshape copy per block and a
// concatenation per fused leg.
#pragma once

#include <cstdint>
#include <span>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// One piece's place: rows [row, row + rows), columns [col, col + cols) of the result; the piece
/// has rows * cols elements.
struct BlockPlace {
  std::int64_t row = 0, col = 0, rows = 0, cols = 0;
};

/// The [m, n] matrix with pieces[i] (read row-major as places[i].rows x places[i].cols) at
/// places[i] and zeros elsewhere. Pieces must not overlap and must share one dtype.
/// Differentiable (the jvp is the same op on the tangents; the vjp slices the cotangent).
Tensor block_assemble(std::span<const Tensor> pieces, std::span<const BlockPlace> places,
                      std::int64_t m, std::int64_t n);

}  // namespace tenferro::detail
