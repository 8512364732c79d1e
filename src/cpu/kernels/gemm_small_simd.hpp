// Batched 2x2 real GEMM across SIMD lanes (Note [Tiny GEMM across the batch] in
// gemm_small_simd.cpp): the inner loop of tensor-network code with bond dimension 2.
#pragma once

#include <cstdint>

namespace tenferro::detail::kernels::simd {

/// c[i] = a[i] @ b[i] for the first `count` row-major 2x2 matrices stored back to back (element
/// (r, s) of matrix i at 4 i + 2 r + s); does whole vectors of matrices only and returns how many
/// it did (a multiple of the lane count, <= count): the caller finishes the rest. Bitwise the
/// scalar small_kernel's products (two rounded products, then one rounded sum per element).
std::int64_t gemm_2x2(const float* a, const float* b, float* c, std::int64_t count);
std::int64_t gemm_2x2(const double* a, const double* b, double* c, std::int64_t count);

}  // namespace tenferro::detail::kernels::simd
