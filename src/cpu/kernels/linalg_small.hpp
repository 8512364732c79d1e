// Small dense linear-algebra kernels (SVD, Hermitian eigh, Householder QR, Cholesky, LU) for
// matrices of at most kMaxDim x kMaxDim, used instead of LAPACK for batches of tiny matrices.
//
// Note [Small linalg kernels]: a 16 x (2x2) batched svd must not be 16 LAPACK calls with workspace
// queries: for a 2x2 matrix the call overhead (argument checks, workspace query, allocation,
// bidiagonalisation set-up) is far larger than the arithmetic. These kernels keep everything in
// stack arrays (no heap, no exceptions, no virtual calls) and use algorithms whose cost at tiny
// sizes is a handful of vector operations:
//
//  - svd: one-sided (Hestenes) Jacobi on the columns of a (on a^H when m < n, swapping the roles
//    of u and v at the end). Pairs of columns are rotated (complex rotations for complex T) until
//    every pair satisfies |g_p^H g_q| <= sqrt(rows) * eps * |g_p| |g_q| (LAPACK xGESVJ's test).
//    Singular values are the final column norms, so they carry high relative accuracy (small
//    singular values are accurate relative to themselves when the columns are well conditioned
//    after column scaling, and always to O(eps) * s_max). u = A v / s; columns whose singular value
//    is zero or below rows * eps * s_max are re-orthogonalised (and, if that fails, completed from
//    unit vectors by Gram-Schmidt), so u and v^H are orthonormal even for rank-deficient a.
//    A column whose norm falls below eps^2 times its partner's is not rotated further (it is
//    rounding noise of a rank-deficient a; rotating it would only shrink the noise until
//    underflow), so singular values below ~eps^2 s_max are accurate to that absolute level only.
//  - eigh: cyclic two-sided Jacobi on the full Hermitian matrix built from the given triangle.
//    Eigenvalues are accurate to O(n eps |A|) (better for graded definite matrices); eigenvectors
//    are the accumulated rotations, unitary to O(n eps).
//  - qr: unblocked Householder QR exactly as LAPACK's xGEQR2 + xORG2R/xUNG2R (the path xGEQRF /
//    xORGQR take for these sizes), with xLARFG's reflector convention, so q and r agree with
//    LAPACK's elementwise up to rounding (same signs on R's diagonal; for complex T the diagonal
//    of R is real).
//
// svd and eigh scale the input by a power of two (exact) when its largest entry is outside a safe
// range, so squared norms neither overflow nor underflow; results are scaled back exactly.
// All kernels are deterministic: the same input gives bitwise the same output, and the values-only
// variants return bitwise the same values as the full ones.
//
// Matrices are row-major and contiguous (leading dimension = number of columns). Inputs must be
// finite (the caller checks); 1 <= m, n <= kMaxDim.
#pragma once

#include "tenferro/dtype.hpp"

namespace tenferro::detail::small {

inline constexpr int kMaxDim = 16;  // every function accepts 1 <= m, n <= kMaxDim

/// 2^e, exactly, at compile time (the scaling thresholds of svd/eigh and their batched lanes).
template <class Real>
constexpr Real pow2(int e) noexcept {
  Real r = 1;
  for (; e > 0; --e) r *= 2;
  for (; e < 0; ++e) r /= 2;
  return r;
}

/// Thin SVD a (m x n) = u (m x k) diag(s) vh (k x n), k = min(m, n); s real, >= 0, descending.
/// u and vh have orthonormal columns / rows even when a is rank deficient. u == nullptr and
/// vh == nullptr: values only. Returns false only if the Jacobi sweeps did not converge.
template <class T>
bool svd(int m, int n, const T* a, T* u, real_t<T>* s, T* vh);

/// Hermitian eigendecomposition of the n x n matrix whose lower (lower == true) or upper triangle
/// is given in a (the other triangle and the imaginary part of the diagonal are ignored):
/// a = v diag(w) v^H, w ascending, v unitary with eigenvectors as columns. v == nullptr: values
/// only. Returns false only if the Jacobi sweeps did not converge.
template <class T>
bool eigh(int n, const T* a, bool lower, real_t<T>* w, T* v);

/// Householder QR a (m x n) = q r, LAPACK's convention (see Note [Small linalg kernels]).
/// complete == false: q is m x k, r is k x n (k = min(m, n)); complete == true: q is m x m, r is
/// m x n. Zeros below r's diagonal are written.
template <class T>
void qr(int m, int n, const T* a, T* q, T* r, bool complete);

/// Cholesky factor of the n x n matrix whose lower triangle is in x (row-major, in place): on
/// return x holds l (a = l l^H) in its lower triangle and zeros above (the upper triangle is never
/// read). Returns 0, or j + 1 when the leading minor of order j + 1 is not positive (NaN
/// included); x's columns from j on are then left partly computed. Plain loops (the product
/// order below is the one the batched kernel repeats): l_jj = sqrt(a_jj - sum_k |l_jk|^2),
/// l_ij = (a_ij - sum_k l_ik conj(l_jk)) / l_jj, k ascending; complex arithmetic in real
/// operations (Note [Complex batched solve arithmetic] in linalg_small.cpp).
template <class T>
int cholesky(int n, T* x);

/// LU with partial pivoting of the row-major m x n a in place (LAPACK xGETF2's right-looking
/// algorithm and pivot choice: the first entry of largest |re| + |im| in the column): P a = L U,
/// unit L below the diagonal. piv[k] (k < min(m, n)) is the 0-based row swapped with row k.
/// Complex T divides by Smith's formula (Note [Complex batched solve arithmetic]).
/// Returns 0, or 1 + the first column whose pivot is exactly zero (that column is skipped and the
/// factorisation goes on, as getrf).
template <class T>
int lu(int m, int n, T* a, int* piv);

/// Solves a x = b with lu's factors of the n x n a: b row-major n x r, overwritten with x.
template <class T>
void lu_solve(int n, const T* lu, const int* piv, T* b, int r);

// Stages shared with the batched kernels (linalg_simd_batch.hpp), which run the Jacobi sweeps of
// many matrices at once with the same floating-point operations in the same order, then finish
// each matrix with these functions: so a matrix gets bitwise the same result on either path.

/// The power-of-two exponent svd and eigh scale a matrix by, given its largest |entry| (0 when in
/// range). Real = float or double.
template <class Real>
int scale_exponent(Real amax) noexcept;

/// svd after its sweeps: g is the scaled column-major M x N working matrix (M = max(m, n),
/// N = min(m, n); a, or a^H when m < n), v the accumulated N x N rotations (nullptr: values only),
/// nrm the squared column norms of g, e the scale exponent. Sorts, scales back and writes u, s, vh
/// as svd.
template <class T>
void svd_finish(int m, int n, const T* g, const T* v, const real_t<T>* nrm, int e, T* u,
                real_t<T>* s, T* vh);

/// eigh after its sweeps: d the scaled diagonal, V the column-major accumulated rotations
/// (nullptr: values only), e the scale exponent. Sorts, scales back and writes w, v as eigh.
template <class T>
void eigh_finish(int n, const real_t<T>* d, const T* V, int e, real_t<T>* w, T* v);

}  // namespace tenferro::detail::small
