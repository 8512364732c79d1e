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
/// Given as the function of the CPU's Highway target, chosen once: callers keep the pointer (a
/// function-local static), so a call costs no dispatch.
template <class T>
using Gemm2x2Fn = std::int64_t (*)(const T* a, const T* b, T* c, std::int64_t count);
template <class T, bool TA, bool TB>
Gemm2x2Fn<T> gemm_2x2();

/// As gemm_2x2 with one operand the same matrix for every product, given as its four elements
/// u = (u00, u01, u10, u11): UA: the function takes (u, packed, c, count) and makes
/// c[i] = u @ packed[i]; else (packed, u, c, count) and c[i] = packed[i] @ u. TP: `packed` is
/// stored transposed.
template <class T, bool UA, bool TP>
Gemm2x2Fn<T> gemm_2x2_uniform();

}  // namespace tenferro::detail::kernels::simd
