// Linear algebra: decompositions, solves, determinants and norms, batched, with autodiff.
//
//   auto [U, S, Vh] = tenferro::svd(a);              // a: [..., m, n]; U [..., m, k], S [..., k]
//   auto t = tenferro::svd_truncated(a, 16, 1e-10);  // at most 16 values above 1e-10 * S[0]
//   Tensor x = tenferro::solve(a, b);                // a [..., n, n], b [..., n] or [..., n, r]
//
// Every op takes a batch of matrices in the last two dimensions (leading dimensions are the batch;
// they broadcast where an op has two operands), any strides, dtypes f32/f64/c64/c128. Real-valued
// outputs (singular values, eigenvalues, norms, log|det|) have the real dtype of the input. Each op
// is a catalog primitive or a composition of them, so eager calls, autodiff (reverse and forward,
// second order), tracing, prepared programs and the execution scope all cover it; derivative
// conventions (complex gauge, degenerate spectra, truncation) are in docs/linalg.md.
//
// Errors (tenferro::Error): a rank below 2 or a non-square matrix where a square one is required
// is ShapeMismatch; an integer or otherwise unsupported dtype is DTypeMismatch; a singular matrix
// (solve, inv, lu_solve: exactly zero pivot), a matrix that is not positive definite (cholesky), a
// non-finite input to an iterative decomposition (svd, eigh, eig, pinv) and an eigensolver that
// does not converge are LinAlgError naming the op and the batch index; LAPACK reporting an illegal
// argument is BackendFailure naming the routine. No error writes into a caller's tensor.
#pragma once

#include <cstdint>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// Broadening of 1/(x - y) in the derivative rules of svd and eigh (docs/linalg.md, "Degenerate
/// spectra"): F = d / (d^2 + eps * scale^2), scale the largest |x| of the matrix. The default
/// (any negative value) is per dtype: gaps below about 1e-12 * scale (f64, c128) or 1e-5 * scale
/// (f32, c64, whose rounding alone splits a repeated value by ~1e-7 * scale) are smoothed.
inline constexpr double kDegeneracyEpsDouble = 1e-24;
inline constexpr double kDegeneracyEpsSingle = 1e-10;
inline constexpr double kDefaultDegeneracyEps = -1.0;

struct SvdOptions {
  /// U is [..., m, m] and Vh [..., n, n] instead of the thin [..., m, k], [..., k, n].
  bool full_matrices = false;
  /// Relative broadening in the derivative rules; negative: the dtype's default (above).
  double degeneracy_eps = kDefaultDegeneracyEps;
};

struct SvdResult {
  Tensor U;   ///< [..., m, k] (full_matrices: [..., m, m]) with orthonormal columns
  Tensor S;   ///< [..., k], k = min(m, n), real, non-negative, descending
  Tensor Vh;  ///< [..., k, n] (full_matrices: [..., n, n]) with orthonormal rows
};

/// Singular value decomposition a = U diag(S) Vh.
SvdResult svd(const Tensor& a, const SvdOptions& options = {});
SvdResult svd(const Tensor& a, bool full_matrices);
/// The singular values alone ([..., k], descending); cheaper than svd() when no gradient is taken.
Tensor svdvals(const Tensor& a);
/// The thin svd keeping the r largest singular values, where r is the number of values with
/// S > cutoff * S[0] (per matrix; the largest such count over the batch), at most max_rank
/// (max_rank <= 0: no rank limit), at least 1 when k > 0. cutoff = 0 tests no value: it keeps
/// min(k, max_rank) values, exactly-zero singular values included (their derivative stays finite,
/// docs/linalg.md), so the output shape is known from the input shape: that is the only form
/// allowed inside trace() (a cutoff > 0 there is Unsupported). Its derivative is exact: the rule of
/// the full thin svd with zero cotangent on the discarded part (docs/linalg.md, "Truncation").
SvdResult svd_truncated(const Tensor& a, std::int64_t max_rank, double cutoff = 0.0,
                        double degeneracy_eps = kDefaultDegeneracyEps);

enum class QrMode {
  reduced,   ///< Q [..., m, k], R [..., k, n]
  complete,  ///< Q [..., m, m], R [..., m, n]
};
struct QrResult {
  Tensor Q;
  Tensor R;  ///< upper triangular (upper trapezoidal when m < n)
};
/// QR decomposition a = Q R (Householder, LAPACK's sign convention: R's diagonal may be negative).
/// Derivatives exist for every reduced shape (m < n through the split a = [X | Y], docs/linalg.md)
/// and for complete mode with m <= n (where it equals reduced); complete mode with m > n (whose
/// extra columns of Q are not a function of a) is Unsupported in the rules. R's leading square
/// block must be invertible (full column rank of the first min(m, n) columns).
QrResult qr(const Tensor& a, QrMode mode = QrMode::reduced);

struct QrPivotedResult {
  Tensor Q;  ///< [..., m, k], k = min(m, n), orthonormal columns
  Tensor R;  ///< [..., k, n] upper trapezoidal, |R[i, i]| non-increasing
  Tensor P;  ///< [..., n] i64: the column permutation (0-based), a[..., :, P] = Q R
};
/// QR with column pivoting (LAPACK geqp3, rank revealing: the number of |R[i, i]| above a
/// tolerance estimates the rank). Always LAPACK (no built-in small kernel). Differentiable as the
/// QR of a[:, P] with P held fixed (P is piecewise constant); needs the leading k x k block of R
/// invertible, i.e. full rank.
QrPivotedResult qr_pivoted(const Tensor& a);

enum class Uplo { lower, upper };
struct EighOptions {
  /// The triangle that is read; the other one is ignored (as is the imaginary part of the
  /// diagonal).
  Uplo uplo = Uplo::lower;
  double degeneracy_eps = kDefaultDegeneracyEps;
};
struct EighResult {
  Tensor eigenvalues;   ///< [..., n], real, ascending
  Tensor eigenvectors;  ///< [..., n, n], orthonormal columns
};
/// Eigendecomposition of a Hermitian (real symmetric) matrix a = V diag(w) V^H, read from one
/// triangle. Derivatives are those of that function of the read triangle (docs/linalg.md).
EighResult eigh(const Tensor& a, const EighOptions& options = {});
EighResult eigh(const Tensor& a, Uplo uplo);
/// The eigenvalues alone, ascending.
Tensor eigvalsh(const Tensor& a, Uplo uplo = Uplo::lower);

struct EigResult {
  Tensor eigenvalues;   ///< [..., n] complex (c64 for f32/c64 input, c128 for f64/c128), unsorted
  Tensor eigenvectors;  ///< [..., n, n] complex, unit-norm columns (LAPACK's phase)
};
/// Eigendecomposition of a general square matrix a = V diag(w) V^-1 (LAPACK geev; real input
/// gives complex output). Eigenvalues come in LAPACK's order (conjugate pairs of a real matrix
/// adjacent, positive imaginary part first). LinAlgError for NaN/Inf input or when the QR
/// algorithm does not converge. Derivatives (docs/linalg.md, Note [Eig gauge]): exact for losses
/// invariant under each eigenvector's phase; Inf/NaN in the eigenvector derivative at repeated
/// eigenvalues; a defective matrix has no eigenvector derivative.
EigResult eig(const Tensor& a);
/// The eigenvalues of a general square matrix alone ([..., n] complex, values-only driver). Its
/// derivative needs no gauge: dw = diag(V^-1 dA V).
Tensor eigvals(const Tensor& a);

struct LuResult {
  Tensor P;  ///< [..., m, m] permutation matrix in a's dtype
  Tensor L;  ///< [..., m, k] unit lower triangular (trapezoidal), k = min(m, n)
  Tensor U;  ///< [..., k, n] upper triangular (trapezoidal)
};
/// LU with partial pivoting a = P L U of a [..., m, n] (rectangular allowed, as torch.linalg.lu).
/// A singular a is no error (U has a zero on its diagonal). Differentiable for every shape (the
/// derivative needs U's leading k x k block invertible; P is piecewise constant).
LuResult lu(const Tensor& a);
struct LuFactorResult {
  Tensor LU;      ///< [..., m, n]: U on and above the diagonal, L's strict lower part below
  Tensor pivots;  ///< [..., k] i64, 0-based: row i was swapped with row pivots[i], i = 0, 1, ...
};
/// The packed LU factorisation (LAPACK getrf, pivots converted to 0-based as SciPy's lu_factor;
/// LAPACK's are pivots + 1). No error for a singular a. Differentiable in a (through LU).
LuFactorResult lu_factor(const Tensor& a);
/// x with a x = b (adjoint: a^H x = b) from lu_factor(a) of a square a: LU [..., n, n], pivots
/// [..., n], b [..., n] or [..., n, r] (as solve()); batch dims broadcast, dtypes promote.
/// Differentiable in LU and b (not in the pivots). LinAlgError naming the batch index when U has
/// an exactly zero diagonal entry; InvalidArgument for a pivot outside [0, n).
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& b, bool adjoint = false);

/// Matrix exponential of each square matrix: scaling and squaring with a Pade approximant
/// (Higham 2005): degree 3, 5, 7, 9 or 13 chosen by the 1-norm for f64/c128 (3, 5, 7 for
/// f32/c64), scaled by 2^-s when the norm exceeds the largest degree's bound. NaN/Inf input gives
/// a NaN matrix. Derivatives by the block-triangular identity (the top-right block of
/// exp([[A, dA], [0, A]])), through matrix_exp itself, so every order works.
Tensor matrix_exp(const Tensor& a);

/// The default relative cutoff of pinv(): max(m, n) * machine epsilon of a's dtype (as PyTorch's
/// torch.linalg.pinv and NumPy >= 1.14's rtol default).
inline constexpr double kDefaultRcond = -1.0;
/// Moore-Penrose pseudoinverse [..., n, m] of a [..., m, n] through the svd: singular values
/// <= rcond * s_max count as zero (rcond < 0: kDefaultRcond's rule). LinAlgError for NaN/Inf
/// input. Its derivative is the analytic one at constant rank (docs/linalg.md), exact at repeated
/// singular values; it is not defined where the rank changes.
Tensor pinv(const Tensor& a, double rcond = kDefaultRcond);

/// Cholesky factor of a Hermitian positive-definite matrix: a = L L^H (upper: a = U^H U), read
/// from the lower (upper) triangle. LinAlgError naming the batch index and the order of the
/// leading minor that is not positive definite.
Tensor cholesky(const Tensor& a, bool upper = false);

/// x with a x = b. a [..., n, n]; b [..., n] (a vector when b.rank() == 1 or b has exactly a's
/// batch dims plus one) or [..., n, r]; batch dims broadcast. LinAlgError on a singular a.
Tensor solve(const Tensor& a, const Tensor& b);
/// x with op(a) x = b (left) or x op(a) = b (right), a triangular ([..., n, n]), b [..., n, r]
/// (left) or [..., r, n] (right). Only the selected triangle of a is read; with unit_diagonal its
/// diagonal is taken as ones. A zero on the diagonal gives Inf/NaN, as in BLAS trsm.
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool left = true,
                        bool unit_diagonal = false);
/// Least-squares solution of a x ~= b for a full-rank a [..., m, n]: minimises |a x - b| when
/// m >= n, the minimum-norm solution when m < n (through a QR of a or a^H). b: [..., m] or
/// [..., m, r]. A rank-deficient a gives Inf/NaN (no rank detection).
Tensor lstsq(const Tensor& a, const Tensor& b);
/// Inverse of a square matrix; LinAlgError on a singular one.
Tensor inv(const Tensor& a);
/// Determinant ([...] for a [..., n, n]); 0 for a singular matrix (no error). Its derivative is
/// the adjugate (computed through an svd), exact at singular matrices too.
Tensor det(const Tensor& a);
struct SlogdetResult {
  Tensor sign;       ///< det / |det| (0 for a singular matrix), input dtype
  Tensor logabsdet;  ///< log |det| (-inf for a singular matrix), real dtype
};
SlogdetResult slogdet(const Tensor& a);

enum class MatrixNormOrd {
  fro,       ///< sqrt(sum |a_ij|^2)
  nuc,       ///< sum of singular values
  spectral,  ///< largest singular value (ord = 2)
};
/// Norm of each matrix in the last two dims ([...]).
Tensor matrix_norm(const Tensor& a, MatrixNormOrd ord = MatrixNormOrd::fro, bool keepdims = false);
/// (sum |x|^p)^(1/p) over `axes` (all when empty); p = +inf is max |x|, p = -inf min |x|, p = 0
/// the number of non-zeros (no gradient). Real output dtype. p must not be NaN.
Tensor vector_norm(const Tensor& x, double ord = 2.0, Dims axes = {}, bool keepdims = false);

// ---- The Array API's linalg extension (src/primitives/array_api_linalg.cpp) ----
// Compositions of elementwise ops, reductions, matmul, inv and svdvals: autodiff and tracing
// cover them through those. Errors name the function.

/// sum over `axis` of conj(a) * b (the Array API's vecdot: the first argument is conjugated),
/// a and b broadcast against each other; `axis` counts in the broadcast shape (negative from the
/// end, InvalidArgument outside [-N, N)) and both operands must have it, of one size
/// (ShapeMismatch naming vecdot otherwise: the contracted axis does not broadcast). Result dtype
/// promote(a, b); bool operands are DTypeMismatch. Differentiable in a and b.
Tensor vecdot(const Tensor& a, const Tensor& b, std::int64_t axis = -1);
/// The cross product of 3-vectors along `axis` of a and b (broadcast against each other, the
/// axis counted in the broadcast shape as in vecdot), no conjugation (the standard's
/// linalg.cross). Both must have that axis with size 3 (ShapeMismatch otherwise; NumPy's 2-vector
/// forms are not supported). Result dtype promote(a, b); bool is DTypeMismatch. Differentiable.
Tensor cross(const Tensor& a, const Tensor& b, std::int64_t axis = -1);
/// x^n for square matrices x [..., m, m]: n > 0 by repeated squaring (matmul), n = 0 the
/// identity (in x's dtype, for every x, also singular), n < 0 the |n|-th power of inv(x)
/// (LinAlgError for a singular x). Floating dtypes only, as the standard asks (integers are
/// DTypeMismatch: matmul has no integer kernel; NumPy would accept them). Rank < 2 or a
/// non-square x is ShapeMismatch. A fresh tensor for every n (also n = 1). Differentiable
/// through matmul and inv (n = 0: a constant).
Tensor matrix_power(const Tensor& x, std::int64_t n);
/// The default of matrix_rank's rtol: max(m, n) * machine epsilon of x's dtype (the standard's).
inline constexpr double kDefaultRankRtol = -1.0;
/// The number of singular values of each matrix in x [..., m, n] greater than rtol * the largest
/// singular value (rtol < 0: kDefaultRankRtol's rule), as i64 [...] (the Array API's
/// linalg.matrix_rank). An empty matrix (m or n zero) has rank 0; a zero matrix rank 0. Rank < 2
/// is ShapeMismatch; floating dtypes (svdvals's; NaN/Inf input is LinAlgError). Not
/// differentiable (an integer result).
Tensor matrix_rank(const Tensor& x, double rtol = kDefaultRankRtol);
/// matrix_rank with one rtol per matrix: a real `rtol` tensor broadcast against x's batch shape
/// [...] (the standard's array rtol); the result has the broadcast batch shape. Complex or bool
/// rtol is DTypeMismatch, a shape that does not broadcast ShapeMismatch, a NaN in a concrete
/// rtol InvalidArgument (a traced rtol cannot be read: there a NaN counts nothing, rank 0).
Tensor matrix_rank(const Tensor& x, const Tensor& rtol);

}  // namespace tenferro
