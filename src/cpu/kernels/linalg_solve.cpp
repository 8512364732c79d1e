// cholesky, solve, slogdet, det, triangular_solve kernels: direct loops for small orders (no LAPACK
// call overhead, no workspace query; small::cholesky / lu / lu_solve, and for batches of any float
// dtype their batched twins, Note [Batched small linalg kernels]), LAPACK (potrf, getrf + getrs)
// and BLAS trsm beyond.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cpu/kernels/linalg.hpp"
#include "cpu/kernels/linalg_batch.hpp"
#include "cpu/kernels/linalg_lapack.hpp"
#include "cpu/kernels/linalg_simd_batch.hpp"
#include "cpu/kernels/linalg_small.hpp"

namespace tenferro::detail::linalg {
namespace {

// Whether the batched kernels (Note [Batched small linalg kernels]) take LU / Cholesky of order n.
template <class T>
bool batched_lu(I n) {
  if constexpr (small::has_batch_kernels_v<T>)
    return n >= small::kBatchLuMin && n <= small::kBatchSolveMax && n <= kSmallSolveMax;
  else
    return false;
}
template <class T>
bool batched_cholesky(I n) {
  if constexpr (small::has_batch_kernels_v<T>)
    return n >= small::batch_cholesky_min<T>() && n <= small::kBatchSolveMax && n <= kSmallSolveMax;
  else
    return false;
}

template <class T>
void cholesky_t(ExecContext& ctx, const Tensor& a, Tensor& l) {
  const MatrixBatch A(a);
  const I n = A.rows;
  if (A.count == 0 || n == 0) return;
  T* L = static_cast<T*>(l.data_ptr());
  const bool small = n <= kSmallSolveMax;
  const I work = n * n * n / 3 + 1;
  // One matrix by the loops (small) or potrf, into its output.
  auto one = [&](I b) -> I {
    T* x = L + b * n * n;
    const T* src = A.matrix<T>(b);
    // The lower triangle, row-major; the upper is zeroed at the end.
    for (I i = 0; i < n; ++i)
      for (I j = 0; j <= i; ++j) x[i * n + j] = src[i * A.rs + j * A.cs];
    if (small) return small::cholesky<T>(static_cast<int>(n), x);
    // Read column-major, the row-major lower triangle is the upper triangle of conj(a): potrf 'U'
    // gives conj(a) = U^H U, so a = U^T conj(U) and the buffer read row-major is L = U^T.
    I info = potrf<T>('U', n, x, n);
    // OpenBLAS's potrf lets a NaN pivot through (the small loops above refuse it, `!(d > 0)`): a
    // NaN anywhere in the read triangle reaches the diagonal at or after its row, so the first
    // NaN there is the order of the first failing minor on both paths.
    for (I i = 0; info == 0 && i < n; ++i)
      if (std::isnan(std::real(x[i * n + i]))) info = i + 1;
    for (I i = 0; i < n; ++i)
      for (I j = i + 1; j < n; ++j) x[i * n + j] = T(0);
    return info;
  };
  Failure f;
  if (batched_cholesky<T>(n)) {
    if constexpr (small::has_batch_kernels_v<T>) {
      const I lanes = small::batch_lanes<T>();
      f = for_each_tile(ctx, A.count, lanes, work, [&](I b0, I nb) -> Failure {
        int info[small::kMaxBatchLanes] = {};
        if (small::solve_tile_pays_off(static_cast<int>(nb), static_cast<int>(lanes))) {
          const T* in[small::kMaxBatchLanes] = {};
          T* out[small::kMaxBatchLanes] = {};
          for (I j = 0; j < nb; ++j) {
            in[j] = A.matrix<T>(b0 + j);
            out[j] = L + (b0 + j) * n * n;
          }
          small::cholesky_batch<T>(static_cast<int>(n), static_cast<int>(nb), in, A.rs, A.cs, out,
                                   info);
        } else {
          for (I j = 0; j < nb; ++j) info[j] = static_cast<int>(one(b0 + j));
        }
        for (I j = 0; j < nb; ++j)
          if (info[j] != 0) return Failure{b0 + j, info[j]};
        return Failure{};
      });
    }
  } else {
    f = for_each_matrix(ctx, A.count, work, 0, !small, [&](I b, char*) -> I { return one(b); });
  }
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
  const I work = n * n * (n + r);
  // The loops on one system, lu (n x n) and piv as workspace.
  auto one_small = [&](I bi, T* lu, int* piv) -> I {
    T* xb = X + bi * n * r;
    A.pack_row_major(bi, lu);
    B.pack_row_major(bi, xb);
    const int info = small::lu<T>(static_cast<int>(n), static_cast<int>(n), lu, piv);
    if (info == 0) small::lu_solve<T>(static_cast<int>(n), lu, piv, xb, static_cast<int>(r));
    return info;
  };
  Failure f;
  if (batched_lu<T>(n)) {
    if constexpr (small::has_batch_kernels_v<T>) {
      const I lanes = small::batch_lanes<T>();
      f = for_each_tile(ctx, A.count, lanes, work, [&](I b0, I nb) -> Failure {
        int info[small::kMaxBatchLanes] = {};
        if (small::lu_tile_pays_off<T>(static_cast<int>(nb), static_cast<int>(lanes))) {
          const T* in[small::kMaxBatchLanes] = {};
          const T* rhs[small::kMaxBatchLanes] = {};
          T* out[small::kMaxBatchLanes] = {};
          for (I j = 0; j < nb; ++j) {
            in[j] = A.matrix<T>(b0 + j);
            rhs[j] = B.matrix<T>(b0 + j);
            out[j] = X + (b0 + j) * n * r;
          }
          small::solve_batch<T>(static_cast<int>(n), static_cast<int>(r), static_cast<int>(nb), in,
                                A.rs, A.cs, rhs, B.rs, B.cs, out, info);
        } else {
          T lu[small::kMaxDim * small::kMaxDim];
          int piv[small::kMaxDim];
          for (I j = 0; j < nb; ++j) info[j] = static_cast<int>(one_small(b0 + j, lu, piv));
        }
        for (I j = 0; j < nb; ++j)
          if (info[j] != 0) return Failure{b0 + j, info[j]};
        return Failure{};
      });
    }
  } else {
    const std::size_t bytes =
        ws_bytes<T>(n * n) + ws_bytes<int>(n) + (small ? 0 : ws_bytes<T>(n * r));
    f = for_each_matrix(ctx, A.count, work, bytes, !small, [&](I bi, char* w) -> I {
      WorkspaceCarver c(w);
      T* lu = c.take<T>(n * n);
      int* piv = c.take<int>(n);
      if (small) return one_small(bi, lu, piv);
      T* xb = X + bi * n * r;
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
  }
  if (f) throw_singular("solve", f);
}

// LU of every matrix of a, then f(b, diagonal of U (stride n + 1), n, odd number of row swaps).
template <class T, class F>
void lu_each(ExecContext& ctx, const Tensor& a, F&& f) {
  const MatrixBatch A(a);
  const I n = A.rows;
  const bool small = n <= kSmallSolveMax;
  const I work = n * n * n / 3 + 1;
  // getrf's pivots are 1-based, small::lu's 0-based.
  auto odd_swaps = [n](const int* piv, int base) {
    bool odd = false;
    for (I i = 0; i < n; ++i)
      if (piv[i] != i + base) odd = !odd;
    return odd;
  };
  if (batched_lu<T>(n)) {
    if constexpr (small::has_batch_kernels_v<T>) {
      // Each matrix read transposed (as pack_col_major below): the same determinant.
      for_each_tile(ctx, A.count, small::batch_lanes<T>(), work, [&](I b0, I nb) -> Failure {
        T buf[small::kMaxBatchLanes * small::kMaxDim * small::kMaxDim];
        int pv[small::kMaxBatchLanes * small::kMaxDim];
        T* lo[small::kMaxBatchLanes] = {};
        int* po[small::kMaxBatchLanes] = {};
        for (I j = 0; j < nb; ++j) {
          lo[j] = buf + j * n * n;
          po[j] = pv + j * n;
        }
        lu_tile<T>(A, b0, nb, true, lo, po);
        for (I j = 0; j < nb; ++j) f(b0 + j, lo[j], n, odd_swaps(po[j], 0));
        return Failure{};
      });
    }
    return;
  }
  const std::size_t bytes = ws_bytes<T>(n * n) + ws_bytes<int>(n);
  for_each_matrix(ctx, A.count, work, bytes, !small, [&](I b, char* w) -> I {
    WorkspaceCarver c(w);
    T* lu = c.take<T>(n * n);
    int* piv = c.take<int>(n);
    // Column-major for getrf; the small LU reads the same buffer as the transpose, whose
    // determinant is the same.
    A.pack_col_major(b, lu, n);
    if (small)
      small::lu<T>(static_cast<int>(n), static_cast<int>(n), lu, piv);
    else
      getrf<T>(n, lu, n, piv);
    f(b, lu, n, odd_swaps(piv, small ? 0 : 1));
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
