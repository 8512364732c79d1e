// Batched 2x2 real GEMM across SIMD lanes (Note [Tiny GEMM across the batch] in
// gemm_small_simd.cpp): the inner loop of tensor-network code with bond dimension 2.
#pragma once

#include <cstdint>

namespace tenferro::detail::kernels::simd {

/// c[i] = a[i] @ b[i] for the first `count` 2x2 matrices stored back to back, four elements each:
/// c row-major (element (r, s) of matrix i at 4 i + 2 r + s), a and b row-major too, or stored
/// transposed (column-major: (r, s) at 4 i + r + 2 s) when TA / TB. Does whole vectors of
/// matrices only and returns how many it did (a multiple of the lane count, <= count): the caller
/// finishes the rest. Bitwise the scalar small_kernel's products (two rounded products, then one
/// rounded sum per element). Defined for T = float, double.
template <class T, bool TA, bool TB>
std::int64_t gemm_2x2(const T* a, const T* b, T* c, std::int64_t count);

}  // namespace tenferro::detail::kernels::simd
