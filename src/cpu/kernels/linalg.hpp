// Linear-algebra kernels of the catalog's linalg primitives (src/primitives/linalg_*.cpp).
//
// Inputs are strided batches of matrices (last two dims; equal batch dims across operands,
// broadcasting is the public op's job); outputs are the freshly allocated contiguous row-major
// tensors of the primitive. Small matrices go to the built-in kernels (linalg_small.hpp, direct
// loops here), larger ones to LAPACK under Note [Linalg provider rules] (linalg_batch.hpp).
// Numerical failures throw Error{LinAlgError} naming `op` and the lowest failing batch index.
#pragma once

#include "cpu/admission.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail::linalg {

/// Largest dimension the built-in Jacobi svd and eigh take before LAPACK; measured
/// in docs/linalg.md ("Small sizes").
inline constexpr std::int64_t kSmallDecompMax = 8;
/// Largest dimension of the built-in Householder QR (faster than geqrf + orgqr up to 16).
inline constexpr std::int64_t kSmallQrMax = 16;
/// Largest order solved by the built-in LU / Cholesky loops before LAPACK.
inline constexpr std::int64_t kSmallSolveMax = 16;

/// Thin (or full) svd of a [..., m, n]; u / vh null: values only.
void svd(ExecContext& ctx, const Tensor& a, Tensor* u, Tensor& s, Tensor* vh, bool full);
/// Hermitian eigendecomposition read from one triangle; v null: values only.
void eigh(ExecContext& ctx, const Tensor& a, bool lower, Tensor& w, Tensor* v);
void qr(ExecContext& ctx, const Tensor& a, Tensor& q, Tensor& r, bool complete);
/// Lower Cholesky factor, reading the lower triangle.
void cholesky(ExecContext& ctx, const Tensor& a, Tensor& l);
/// x = a^-1 b with b [..., n, r].
void solve(ExecContext& ctx, const Tensor& a, const Tensor& b, Tensor& x);
/// op(a) x = b (left) or x op(a) = b, a triangular.
void triangular_solve(ExecContext& ctx, const Tensor& a, const Tensor& b, Tensor& x, bool upper,
                      bool left, bool unit);
/// sign (input dtype) and log|det| (real dtype) of each square matrix.
void slogdet(ExecContext& ctx, const Tensor& a, Tensor& sign, Tensor& logabsdet);
/// det of each square matrix (product of the LU pivots).
void det(ExecContext& ctx, const Tensor& a, Tensor& out);
/// Eigenvalues w (complex) and, v non-null, unit-norm right eigenvectors (complex columns) of a
/// general square matrix (geev).
void eig(ExecContext& ctx, const Tensor& a, Tensor& w, Tensor* v);
/// LU with partial pivoting of a [..., m, n]: packed LU [..., m, n] (unit L below the diagonal),
/// 0-based pivots [..., min(m, n)] (i64) and the row permutation perm [..., m] (i64, (P^T a)[i] =
/// a[perm[i]]).
void lu_factor(ExecContext& ctx, const Tensor& a, Tensor& lu, Tensor& pivots, Tensor& perm);
/// x = a^-1 b (adjoint: a^-H b) from lu_factor's LU [..., n, n] and pivots [..., n], b [..., n, r].
void lu_solve(ExecContext& ctx, const Tensor& lu, const Tensor& pivots, const Tensor& b, Tensor& x,
              bool adjoint);
/// exp of each square matrix: scaling and squaring with Pade (Higham 2005).
void matrix_exp(ExecContext& ctx, const Tensor& a, Tensor& out);
/// Pseudoinverse [..., n, m] of a [..., m, n] through the svd; values <= rcond * s_max are zero.
void pinv(ExecContext& ctx, const Tensor& a, Tensor& out, double rcond);
/// QR with column pivoting (geqp3): Q [..., m, k], R [..., k, n], P [..., n] (i64, 0-based) with
/// a[:, P] = Q R.
void qr_pivoted(ExecContext& ctx, const Tensor& a, Tensor& q, Tensor& r, Tensor& p);

}  // namespace tenferro::detail::linalg
