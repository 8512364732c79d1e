// Small svd / eigh / qr / cholesky / lu run across a batch: one SIMD lane per matrix.
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
// div, sqrt; products are kept from being fused into FMAs, as in the scalar kernels, which are
// compiled with -ffp-contract=off so that no -march can fuse them either),
// and every decision (rotate this pair? the rotation formula's range branch, convergence; the LU
// pivot row, by the first largest |a_ic| as the scalar search, and its row swap; a zero LU pivot;
// a Cholesky pivot that is not positive, which stops that lane only) is taken per lane with masks:
// a lane that does not rotate keeps its old values (a select, never a multiplication by c = 1, s =
// 0). Sweeps go on until no lane rotates; a converged lane's state no longer changes, so its
// further sweeps are no-ops, and a lane that never converges stops after the scalar kernel's 60
// sweeps with the same state. Sorting, scaling back and the left-vector completion run per matrix
// through the scalar kernels' own finishing stages (small::svd_finish / eigh_finish). Cholesky and
// LU (linalg_simd_solve.cpp) mirror small::cholesky, small::lu and small::lu_solve
// (linalg_small.cpp, the loops the ops ran before); for c64 / c128 too
// (linalg_simd_solve_complex.cpp: a complex tile is two real tiles, re and im, and the scalar
// loops spell their complex products and quotients out in real operations for it, Note [Complex
// batched solve arithmetic] in linalg_small.cpp); qr, eigh and svd for c64 / c128 are
// linalg_simd_qr_complex.cpp, linalg_simd_eigh_complex.cpp and linalg_simd_svd_complex.cpp (their
// scalar twins already wrote complex products out; their |x| no longer calls hypot, see abs_ in
// linalg_small.cpp). So a matrix's outputs do not depend on its tile-mates, its position in the
// batch, the chunking or the thread count, nor on whether the batched or the scalar kernel ran:
// the two are interchangeable (tests/linalg/linalg_batched_simd_test.cpp and, for complex dtypes,
// linalg_batched_complex_test.cpp and linalg_batched_complex_decomp_test.cpp check bitwise
// equality).
//
// Comparisons keep C++'s meaning: hn::Ne is an ordered compare (false for NaN), so "x != 0" is
// Not(Eq(x, 0)); the Cholesky and LU kernels (real and complex) also take NaN / Inf input and match
// the scalar loops on it. qr_batch does not on Inf (its reflector norm rounds another way there),
// so qr_t gives a non-finite matrix to the scalar kernel, outside the tile.
//
// svd / eigh / qr: matrices are row-major and contiguous, finite, 1 <= m, n <= kMaxDim; cholesky /
// lu: strided input, any values. A null input pointer is an unused lane (computed on a zero or
// identity matrix, outputs not written).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cpu/kernels/linalg_small.hpp"

namespace tenferro::detail::small {

/// The most lanes a tile has on any target (f32 on AVX-512).
inline constexpr int kMaxBatchLanes = 16;

/// Dispatch in linalg_decomp.cpp (measured: docs/linalg.md, "Measured crossover"): svd and eigh
/// with batch_decomp_min<T>() <= max(m, n) <= kBatchDecompMax, and qr with m, n <= kBatchQrMax
/// (every float dtype), run tile by tile; a tile with at least half its lanes used
/// (tile_pays_off; complex qr: a quarter, qr_tile_pays_off) takes the batched kernel, a smaller
/// one (a short batch, or a batch's short last tile) the scalar kernel per matrix. Either way a
/// matrix's result is the same.
inline constexpr int kBatchDecompMin = 3;
inline constexpr int kBatchComplexDecompMin = 2;  // c64 / c128 svd, eigh: 2x2 gains 1.6-2x
inline constexpr int kBatchDecompMax = 8;
inline constexpr int kBatchQrMax = 16;
/// cholesky (linalg_solve.cpp) of order batch_cholesky_min<T>()..kBatchSolveMax, and the LU of
/// solve, det, slogdet (linalg_solve.cpp) and lu_factor (linalg_more.cpp; min(m, n) >=
/// kBatchLuMin, m, n <= kBatchSolveMax) likewise, tile by tile, batched where
/// solve_tile_pays_off (cholesky) / lu_tile_pays_off<T> (LU): these scalar loops are cheap (a 4x4
/// f64 Cholesky is about 40 ns), so the batched kernel needs fuller tiles than svd/eigh/qr to win.
/// Complex T does four real products per complex one, so its batched kernels win earlier: from
/// order 3 for Cholesky and from half-full tiles for LU.
inline constexpr int kBatchCholeskyMin = 6;         // f32, f64
inline constexpr int kBatchComplexCholeskyMin = 3;  // c64, c128
inline constexpr int kBatchLuMin = 3;
inline constexpr int kBatchSolveMax = 16;

/// Whether a tile of `count` matrices out of `lanes` is faster batched than one by one.
inline bool tile_pays_off(int count, int lanes) noexcept { return 2 * count >= lanes; }
/// The same for cholesky and real LU: at least 3/4 of the lanes used.
inline bool solve_tile_pays_off(int count, int lanes) noexcept { return 4 * count >= 3 * lanes; }
/// The same for the LU of T: 3/4 of the lanes for f32/f64, half of them for c64/c128.
template <class T>
bool lu_tile_pays_off(int count, int lanes) noexcept {
  return is_complex_v<T> ? tile_pays_off(count, lanes) : solve_tile_pays_off(count, lanes);
}
/// The same for qr of T: half the lanes for f32/f64 (tile_pays_off), a quarter for c64/c128 (the
/// scalar complex qr is slow enough that 2 of 8 c128 / 4 of 16 c64 matrices already win).
template <class T>
bool qr_tile_pays_off(int count, int lanes) noexcept {
  return is_complex_v<T> ? 4 * count >= lanes : tile_pays_off(count, lanes);
}
/// The smallest max(m, n) whose svd / eigh runs batched (Measured crossover in docs/linalg.md).
template <class T>
constexpr int batch_decomp_min() noexcept {
  return is_complex_v<T> ? kBatchComplexDecompMin : kBatchDecompMin;
}
/// The smallest order whose cholesky runs batched (Measured crossover in docs/linalg.md).
template <class T>
constexpr int batch_cholesky_min() noexcept {
  return is_complex_v<T> ? kBatchComplexCholeskyMin : kBatchCholeskyMin;
}

/// True when the batched kernels exist for T: every float dtype (f32, f64 in
/// linalg_simd_batch.cpp and linalg_simd_solve.cpp; c64, c128 in linalg_simd_*_complex.cpp).
template <class T>
inline constexpr bool has_batch_kernels_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                            std::is_same_v<T, c64> || std::is_same_v<T, c128>;

/// Matrices per tile for T on this CPU (complex T: the lanes of its real type).
template <class T>
int batch_lanes();

/// small::svd of count <= batch_lanes<T>() matrices: a[l] row-major m x n; u[l], s[l], vh[l] as
/// small::svd's outputs (u == nullptr and vh == nullptr: values only, for every lane); ok[l] is
/// small::svd's return value.
template <class T>
void svd_batch(int m, int n, int count, const T* const* a, T* const* u, real_t<T>* const* s,
               T* const* vh, bool* ok);

/// small::eigh of count <= batch_lanes<T>() n x n matrices (v == nullptr: values only).
template <class T>
void eigh_batch(int n, int count, const T* const* a, bool lower, real_t<T>* const* w, T* const* v,
                bool* ok);

/// small::qr of count <= batch_lanes<T>() m x n matrices: q[l], r[l] as small::qr's outputs.
template <class T>
void qr_batch(int m, int n, int count, const T* const* a, T* const* q, T* const* r, bool complete);

/// small::cholesky of count <= batch_lanes<T>() n x n matrices: element (i, j) of matrix l is
/// a[l][i * rs + j * cs] (only the lower triangle is read; a[l] == nullptr: an unused lane);
/// l_out[l] (row-major n x n) and info[l] get small::cholesky's result on a row-major copy.
template <class T>
void cholesky_batch(int n, int count, const T* const* a, std::int64_t rs, std::int64_t cs,
                    T* const* l_out, int* info);

/// small::lu of count <= batch_lanes<T>() m x n matrices (element (i, j) of matrix l at
/// a[l][i * rs + j * cs]; nullptr: an unused lane): lu_out[l] row-major m x n, piv[l] (min(m, n)
/// entries) and info[l] as small::lu on a row-major copy.
template <class T>
void lu_batch(int m, int n, int count, const T* const* a, std::int64_t rs, std::int64_t cs,
              T* const* lu_out, int* const* piv, int* info);

/// small::lu then, where it succeeds, small::lu_solve of count <= batch_lanes<T>() n x n systems
/// with r >= 1 right-hand sides (element (i, j) of b[l] at b[l][i * brs + j * bcs]): x[l]
/// row-major n x r, info[l] small::lu's return value (x[l] is unspecified where it is not 0).
template <class T>
void solve_batch(int n, int r, int count, const T* const* a, std::int64_t rs, std::int64_t cs,
                 const T* const* b, std::int64_t brs, std::int64_t bcs, T* const* x, int* info);

}  // namespace tenferro::detail::small
