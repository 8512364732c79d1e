// cholesky, solve, slogdet, det, triangular_solve kernels: direct loops for small orders (no LAPACK
// call overhead, no workspace query), LAPACK (potrf, getrf + getrs) and BLAS trsm beyond.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cpu/kernels/linalg.hpp"
#include "cpu/kernels/linalg_batch.hpp"
#include "cpu/kernels/linalg_lapack.hpp"

namespace tenferro::detail::linalg {
namespace {

// In-place LU with partial pivoting of row-major n x n a: P a = L U (unit L below the diagonal).
// piv[k] is the row swapped with row k. Returns 0, or 1 + the first exactly zero pivot (the
// factorisation still completes, as getrf).
template <class T>
I lu_small(I n, T* a, int* piv) {
  I info = 0;
  for (I k = 0; k < n; ++k) {
    I p = k;
    real_t<T> best = abs1(a[k * n + k]);
    for (I i = k + 1; i < n; ++i)
      if (abs1(a[i * n + k]) > best) best = abs1(a[i * n + k]), p = i;
    piv[k] = static_cast<int>(p);
    if (p != k)
      for (I j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    const T d = a[k * n + k];
    if (d == T(0)) {
      if (info == 0) info = k + 1;
      continue;
    }
    for (I i = k + 1; i < n; ++i) {
      const T l = a[i * n + k] / d;
      a[i * n + k] = l;
      for (I j = k + 1; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
    }
  }
  return info;
}

// Solves with lu_small's factors, b row-major n x r in place.
template <class T>
void lu_solve_small(I n, const T* lu, const int* piv, T* b, I r) {
  for (I k = 0; k < n; ++k)
    if (piv[k] != k)
      for (I j = 0; j < r; ++j) std::swap(b[k * r + j], b[piv[k] * r + j]);
  for (I i = 0; i < n; ++i)
    for (I k = 0; k < i; ++k) {
      const T l = lu[i * n + k];
      for (I j = 0; j < r; ++j) b[i * r + j] -= l * b[k * r + j];
    }
  for (I i = n; i-- > 0;) {
    for (I k = i + 1; k < n; ++k) {
      const T u = lu[i * n + k];
      for (I j = 0; j < r; ++j) b[i * r + j] -= u * b[k * r + j];
    }
    const T d = lu[i * n + i];
    for (I j = 0; j < r; ++j) b[i * r + j] /= d;
  }
}

template <class T>
void cholesky_t(ExecContext& ctx, const Tensor& a, Tensor& l) {
  using R = real_t<T>;
  const MatrixBatch A(a);
  const I n = A.rows;
  if (A.count == 0 || n == 0) return;
  T* L = static_cast<T*>(l.data_ptr());
  const bool small = n <= kSmallSolveMax;
  const Failure f =
      for_each_matrix(ctx, A.count, n * n * n / 3 + 1, 0, !small, [&](I b, char*) -> I {
        T* x = L + b * n * n;
        const T* src = A.matrix<T>(b);
        // The lower triangle, row-major; the upper is zeroed at the end.
        for (I i = 0; i < n; ++i)
          for (I j = 0; j <= i; ++j) x[i * n + j] = src[i * A.rs + j * A.cs];
        I info = 0;
        if (small) {
          for (I j = 0; j < n && info == 0; ++j) {
            R d = std::real(x[j * n + j]);
            for (I k = 0; k < j; ++k) d -= std::norm(x[j * n + k]);
            if (!(d > R(0))) {  // also NaN
              info = j + 1;
              break;
            }
            const R ljj = std::sqrt(d);
            x[j * n + j] = T(ljj);
            for (I i = j + 1; i < n; ++i) {
              T s = x[i * n + j];
              for (I k = 0; k < j; ++k) s -= x[i * n + k] * conj_of(x[j * n + k]);
              x[i * n + j] = s / ljj;
            }
          }
        } else {
          // Read column-major, the row-major lower triangle is the upper triangle of conj(a): potrf
          // 'U' gives conj(a) = U^H U, so a = U^T conj(U) and the buffer read row-major is L = U^T.
          info = potrf<T>('U', n, x, n);
        }
        for (I i = 0; i < n; ++i)
          for (I j = i + 1; j < n; ++j) x[i * n + j] = T(0);
        return info;
      });
  if (f)
    throw Error(ErrorKind::LinAlgError,
                "cholesky: the matrix at batch index " + std::to_string(f.batch) +
                    " is not positive definite (its leading minor of order " +
                    std::to_string(f.info) + " is not positive)");
}

[[noreturn]] void throw_singular(const char* op, const Failure& f) {
  throw Error(ErrorKind::LinAlgError,
              std::string(op) + ": the matrix at batch index " + std::to_string(f.batch) +
                  " is singular (U[" + std::to_string(f.info - 1) + ", " +
                  std::to_string(f.info - 1) + "] of its LU factorization is exactly zero)");
}

template <class T>
void solve_t(ExecContext& ctx, const Tensor& a, const Tensor& b, Tensor& x) {
  const MatrixBatch A(a), B(b);
  const I n = A.rows, r = B.cols;
  if (A.count == 0 || n == 0 || r == 0) return;
  T* X = static_cast<T*>(x.data_ptr());
  const bool small = n <= kSmallSolveMax;
  const std::size_t bytes =
      ws_bytes<T>(n * n) + ws_bytes<int>(n) + (small ? 0 : ws_bytes<T>(n * r));
  const Failure f =
      for_each_matrix(ctx, A.count, n * n * (n + r), bytes, !small, [&](I bi, char* w) -> I {
        WorkspaceCarver c(w);
        T* lu = c.take<T>(n * n);
        int* piv = c.take<int>(n);
        T* xb = X + bi * n * r;
        if (small) {
          A.pack_row_major(bi, lu);
          B.pack_row_major(bi, xb);
          const I info = lu_small<T>(n, lu, piv);
          if (info == 0) lu_solve_small<T>(n, lu, piv, xb, r);
          return info;
        }
        T* rhs = c.take<T>(n * r);
        A.pack_col_major(bi, lu, n);
        B.pack_col_major(bi, rhs, n);
        const I info = getrf<T>(n, lu, n, piv);
        if (info != 0) return info;
        getrs<T>('N', n, r, lu, n, piv, rhs, n);
        for (I i = 0; i < n; ++i)
          for (I j = 0; j < r; ++j) xb[i * r + j] = rhs[i + j * n];
        return 0;
      });
  if (f) throw_singular("solve", f);
}

// LU of every matrix of a, then f(b, diagonal of U (stride n + 1), n, odd number of row swaps).
template <class T, class F>
void lu_each(ExecContext& ctx, const Tensor& a, F&& f) {
  const MatrixBatch A(a);
  const I n = A.rows;
  const bool small = n <= kSmallSolveMax;
  const std::size_t bytes = ws_bytes<T>(n * n) + ws_bytes<int>(n);
  for_each_matrix(ctx, A.count, n * n * n / 3 + 1, bytes, !small, [&](I b, char* w) -> I {
    WorkspaceCarver c(w);
    T* lu = c.take<T>(n * n);
    int* piv = c.take<int>(n);
    // Column-major for getrf; the small LU reads the same buffer as the transpose, whose
    // determinant is the same.
    A.pack_col_major(b, lu, n);
    if (small)
      lu_small<T>(n, lu, piv);
    else
      getrf<T>(n, lu, n, piv);
    bool odd = false;
    for (I i = 0; i < n; ++i)  // getrf's pivots are 1-based, lu_small's 0-based
      if (piv[i] != (small ? i : i + 1)) odd = !odd;
    f(b, lu, n, odd);
    return 0;
  });
}

template <class T>
void slogdet_t(ExecContext& ctx, const Tensor& a, Tensor& sign, Tensor& logabs) {
  using R = real_t<T>;
  T* SG = static_cast<T*>(sign.data_ptr());
  R* LA = static_cast<R*>(logabs.data_ptr());
  lu_each<T>(ctx, a, [&](I b, const T* lu, I n, bool odd) {
    T sg(odd ? -1 : 1);
    R la(0);
    for (I i = 0; i < n; ++i) {
      const T d = lu[i * n + i];
      const R ad = std::abs(d);
      if (ad == R(0)) {
        sg = T(0);
        la = -std::numeric_limits<R>::infinity();
        break;
      }
      sg *= d / ad;
      la += std::log(ad);
    }
    SG[b] = sg;
    LA[b] = la;
  });
}

template <class T>
void det_t(ExecContext& ctx, const Tensor& a, Tensor& out) {
  T* D = static_cast<T*>(out.data_ptr());
  lu_each<T>(ctx, a, [&](I b, const T* lu, I n, bool odd) {
    T d(odd ? -1 : 1);
    for (I i = 0; i < n; ++i) d *= lu[i * n + i];
    D[b] = d;
  });
}

template <class T>
void trsm(bool upper, bool left, bool unit, I m, I n, const T* a, I lda, T* b, I ldb) {
  const auto side = left ? CblasLeft : CblasRight;
  const auto uplo = upper ? CblasUpper : CblasLower;
  const auto diag = unit ? CblasUnit : CblasNonUnit;
  const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n);
  const auto LA = static_cast<blasint>(lda), LB = static_cast<blasint>(ldb);
  if constexpr (std::is_same_v<T, float>) {
    cblas_strsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, M, N, 1.0f, a, LA, b, LB);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dtrsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, M, N, 1.0, a, LA, b, LB);
  } else {
    const T one(1);
    if constexpr (std::is_same_v<T, c64>)
      cblas_ctrsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, M, N, &one, a, LA, b, LB);
    else
      cblas_ztrsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, M, N, &one, a, LA, b, LB);
  }
}

template <class T>
void triangular_solve_t(ExecContext& ctx, const Tensor& a, const Tensor& b, Tensor& x, bool upper,
                        bool left, bool unit) {
  const MatrixBatch A(a), B(b);
  const I n = A.rows, rows = B.rows, cols = B.cols;
  if (A.count == 0 || rows == 0 || cols == 0) return;
  if (n > INT32_MAX || rows > INT32_MAX || cols > INT32_MAX)
    throw Error(ErrorKind::BackendFailure, "triangular_solve: sizes exceed BLAS's 32-bit integers");
  T* X = static_cast<T*>(x.data_ptr());
  for_each_matrix(ctx, A.count, n * rows * cols, ws_bytes<T>(n * n), true, [&](I bi, char* w) -> I {
    T* ab = reinterpret_cast<T*>(w);
    A.pack_row_major(bi, ab);
    T* xb = X + bi * rows * cols;
    B.pack_row_major(bi, xb);
    trsm<T>(upper, left, unit, rows, cols, ab, n, xb, cols);
    return 0;
  });
}

}  // namespace

void cholesky(ExecContext& ctx, const Tensor& a, Tensor& l) {
  by_dtype(a, [&](auto z) { cholesky_t<decltype(z)>(ctx, a, l); });
}
void solve(ExecContext& ctx, const Tensor& a, const Tensor& b, Tensor& x) {
  by_dtype(a, [&](auto z) { solve_t<decltype(z)>(ctx, a, b, x); });
}
void slogdet(ExecContext& ctx, const Tensor& a, Tensor& sign, Tensor& logabsdet) {
  by_dtype(a, [&](auto z) { slogdet_t<decltype(z)>(ctx, a, sign, logabsdet); });
}
void det(ExecContext& ctx, const Tensor& a, Tensor& out) {
  by_dtype(a, [&](auto z) { det_t<decltype(z)>(ctx, a, out); });
}
void triangular_solve(ExecContext& ctx, const Tensor& a, const Tensor& b, Tensor& x, bool upper,
                      bool left, bool unit) {
  by_dtype(a, [&](auto z) { triangular_solve_t<decltype(z)>(ctx, a, b, x, upper, left, unit); });
}

}  // namespace tenferro::detail::linalg
