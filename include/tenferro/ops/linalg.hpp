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
// (solve, inv, exactly zero pivot), a matrix that is not positive definite (cholesky) and a
// non-finite input to an iterative decomposition (svd, eigh) are LinAlgError naming the op and the
// batch index; LAPACK reporting an illegal argument is BackendFailure naming the routine. No error
// writes into a caller's tensor.
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
/// Derivatives need m >= n for reduced mode or m == n (complete); other shapes are Unsupported in
/// the rules (docs/linalg.md).
QrResult qr(const Tensor& a, QrMode mode = QrMode::reduced);

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

}  // namespace tenferro
