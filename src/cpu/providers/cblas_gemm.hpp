// C = op(A) op(B) by cblas_{s,d,c,z}gemm in row-major layout (alpha 1, beta 0): the one typed
// dispatch the OpenBLAS provider and the linalg kernels (matrix_exp's products) share. The caller
// owns OpenBLAS's thread count (Note [OpenBLAS threads] in openblas_gemm.cpp).
#pragma once

#include <cblas.h>

#include <complex>
#include <cstdint>
#include <type_traits>

namespace tenferro::detail {

template <class T>
void call_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, std::int64_t m, std::int64_t n,
               std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T* c,
               std::int64_t ldc) {
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
