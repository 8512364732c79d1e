// C = op(A) op(B) by cblas_{s,d,c,z}gemm in row-major layout (alpha 1, beta 0): the one typed
// dispatch the OpenBLAS provider and the linalg kernels (matrix_exp's products) share. The caller
// owns OpenBLAS's thread count (Note [OpenBLAS threads] in openblas_gemm.cpp).
#pragma once

#include <cblas.h>

#include <complex>
#include <cstdint>
#include <type_traits>

namespace tenferro::detail {

// Note [Vector products through gemv]: OpenBLAS 0.3.21's gemm does not forward a product with
// one row or one column of output to gemv/dot, and its gemm kernels run such shapes several
// times slower (a 40000-element vdot: 48 us through dgemm). The Krylov solvers' inner products and
// projections are exactly these shapes, so they go to dot / gemv here. Complex operands with a
// conjugated vector side (which gemv cannot conjugate) stay with gemm.
template <class T>
bool call_vector_product(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, std::int64_t m, std::int64_t n,
                         std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb,
                         T* c, std::int64_t ldc) {
  constexpr bool real = std::is_same_v<T, float> || std::is_same_v<T, double>;
  if ((m != 1 && n != 1) || m <= 0 || n <= 0 || k <= 0) return false;
  const auto K = static_cast<blasint>(k);
  if (m == 1 && n == 1) {
    // c = op(a)[0, :] . op(b)[:, 0]
    if (!real && tb == CblasConjTrans) return false;
    const auto incx = static_cast<blasint>(ta == CblasNoTrans ? 1 : lda);
    const auto incy = static_cast<blasint>(tb == CblasNoTrans ? ldb : 1);
    if constexpr (std::is_same_v<T, float>) {
      *c = cblas_sdot(K, a, incx, b, incy);
    } else if constexpr (std::is_same_v<T, double>) {
      *c = cblas_ddot(K, a, incx, b, incy);
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      if (ta == CblasConjTrans)
        cblas_cdotc_sub(K, a, incx, b, incy, c);
      else
        cblas_cdotu_sub(K, a, incx, b, incy, c);
    } else {
      if (ta == CblasConjTrans)
        cblas_zdotc_sub(K, a, incx, b, incy, c);
      else
        cblas_zdotu_sub(K, a, incx, b, incy, c);
    }
    return true;
  }
  const T one(1), zero(0);
  auto gemv = [&](CBLAS_TRANSPOSE t, std::int64_t rows, std::int64_t cols, const T* mat,
                  std::int64_t ld, const T* x, std::int64_t incx, T* y, std::int64_t incy) {
    const auto R = static_cast<blasint>(rows), C = static_cast<blasint>(cols);
    const auto L = static_cast<blasint>(ld), IX = static_cast<blasint>(incx),
               IY = static_cast<blasint>(incy);
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemv(CblasRowMajor, t, R, C, 1.0f, mat, L, x, IX, 0.0f, y, IY);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemv(CblasRowMajor, t, R, C, 1.0, mat, L, x, IX, 0.0, y, IY);
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      cblas_cgemv(CblasRowMajor, t, R, C, &one, mat, L, x, IX, &zero, y, IY);
    } else {
      cblas_zgemv(CblasRowMajor, t, R, C, &one, mat, L, x, IX, &zero, y, IY);
    }
  };
  if (n == 1) {
    // c[:, 0] = op(a) x with x = op(b)[:, 0]; a is stored [m, k] (NoTrans) or [k, m].
    if (!real && tb == CblasConjTrans) return false;
    const std::int64_t incx = tb == CblasNoTrans ? ldb : 1;
    if (ta == CblasNoTrans)
      gemv(CblasNoTrans, m, k, a, lda, b, incx, c, ldc);
    else
      gemv(ta, k, m, a, lda, b, incx, c, ldc);
    return true;
  }
  // m == 1: c[0, :] = x op(b) with x = op(a)[0, :], i.e. c = op(b)^T x; b is stored [k, n]
  // (NoTrans) or [n, k].
  if (!real && (ta == CblasConjTrans || tb == CblasConjTrans)) return false;
  const std::int64_t incx = ta == CblasNoTrans ? 1 : lda;
  if (tb == CblasNoTrans)
    gemv(CblasTrans, k, n, b, ldb, a, incx, c, 1);
  else
    gemv(CblasNoTrans, n, k, b, ldb, a, incx, c, 1);
  return true;
}

template <class T>
void call_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, std::int64_t m, std::int64_t n,
               std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T* c,
               std::int64_t ldc) {
  if (call_vector_product(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) return;
  const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n), K = static_cast<blasint>(k);
  const auto LA = static_cast<blasint>(lda), LB = static_cast<blasint>(ldb),
             LC = static_cast<blasint>(ldc);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, a, LA, b, LB, 0.0f, c, LC);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, a, LA, b, LB, 0.0, c, LC);
  } else {
    const T one(1), zero(0);
    if constexpr (std::is_same_v<T, std::complex<float>>)
      cblas_cgemm(CblasRowMajor, ta, tb, M, N, K, &one, a, LA, b, LB, &zero, c, LC);
    else
      cblas_zgemm(CblasRowMajor, ta, tb, M, N, K, &one, a, LA, b, LB, &zero, c, LC);
  }
}

}  // namespace tenferro::detail
