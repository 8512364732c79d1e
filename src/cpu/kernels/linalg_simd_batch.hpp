// Small svd / eigh / qr run across a batch: one SIMD lane per matrix.
//
// Note [Batched small linalg kernels]: the scalar kernels of linalg_small.hpp (Note [Small linalg
// kernels]) spend their time in short loops (a 4x4 svd rotates columns of length 4) that do not
// fill a vector register. These kernels put L matrices side by side instead (L = the Highway lane
// count of the element type on the target picked at run time: 8 f64 / 16 f32 on AVX-512, 4 / 8 on
// AVX2): a tile stores element (i, j) of its L matrices as one vector (structure of arrays), and
// every step of the scalar algorithm runs on whole vectors.
//
// Bitwise the scalar kernels' results: the vector code performs, lane by lane, exactly the scalar
// kernel's floating-point operations in the same order (single IEEE operations: add, sub, mul,
// div, sqrt; products are kept from being fused into FMAs, as in the scalar kernels, which are a
// baseline x86-64 build without FMA),
// and every decision (rotate this pair? the rotation formula's range branch, convergence) is taken
// per lane with masks: a lane that does not rotate keeps its old values (a select, never a
// multiplication by c = 1, s = 0). Sweeps go on until no lane rotates; a converged lane's state
// no longer changes, so its further sweeps are no-ops, and a lane that never converges stops
// after the scalar kernel's 60 sweeps with the same state. Sorting, scaling back and the
// left-vector completion run per matrix through the scalar kernels' own finishing stages
// (small::svd_finish / eigh_finish). So a matrix's outputs do not depend on its tile-mates, its
// position in the batch, the chunking or the thread count, nor on whether the batched or the scalar
// kernel ran: the two are interchangeable (tests/linalg/linalg_batched_simd_test.cpp checks
// bitwise equality).
//
// Matrices are row-major and contiguous, finite, 1 <= m, n <= kMaxDim. A null input pointer is an
// unused lane (computed on a zero matrix, outputs not written).
#pragma once

#include <type_traits>

#include "cpu/kernels/linalg_small.hpp"

namespace tenferro::detail::small {

/// The most lanes a tile has on any target (f32 on AVX-512).
inline constexpr int kMaxBatchLanes = 16;

/// Dispatch in linalg_decomp.cpp (measured: docs/linalg.md, "Measured crossover"): f32/f64 svd and
/// eigh with kBatchDecompMin <= max(m, n) <= kBatchDecompMax, and qr with m, n <= kBatchQrMax, run
/// tile by tile; a tile with at least half its lanes used (tile_pays_off) takes the batched
/// kernel, a smaller one (a short batch, or a batch's short last tile) the scalar kernel per
/// matrix. Either way a matrix's result is the same.
inline constexpr int kBatchDecompMin = 3;
inline constexpr int kBatchDecompMax = 8;
inline constexpr int kBatchQrMax = 16;

/// Whether a tile of `count` matrices out of `lanes` is faster batched than one by one.
inline bool tile_pays_off(int count, int lanes) noexcept { return 2 * count >= lanes; }

/// True when the batched kernels exist for T (f32, f64; complex types keep the scalar kernels).
template <class T>
inline constexpr bool has_batch_kernels_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// Matrices per tile for T (float or double) on this CPU.
template <class T>
int batch_lanes();

/// small::svd of count <= batch_lanes<T>() matrices: a[l] row-major m x n; u[l], s[l], vh[l] as
/// small::svd's outputs (u == nullptr and vh == nullptr: values only, for every lane); ok[l] is
/// small::svd's return value.
template <class T>
void svd_batch(int m, int n, int count, const T* const* a, T* const* u, T* const* s, T* const* vh,
               bool* ok);

/// small::eigh of count <= batch_lanes<T>() n x n matrices (v == nullptr: values only).
template <class T>
void eigh_batch(int n, int count, const T* const* a, bool lower, T* const* w, T* const* v,
                bool* ok);

/// small::qr of count <= batch_lanes<T>() m x n matrices: q[l], r[l] as small::qr's outputs.
template <class T>
void qr_batch(int m, int n, int count, const T* const* a, T* const* q, T* const* r, bool complete);

}  // namespace tenferro::detail::small
