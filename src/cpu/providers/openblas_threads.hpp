// OpenBLAS's one process-wide thread count, shared by the GEMM provider and the LAPACK kernels.
//
// Note [OpenBLAS threads] (openblas_gemm.cpp) says why switching it is safe: a blas-kind operation
// holds a provider-exclusive permit, and native-kind callers only ever set it to 1. The last value
// set is cached so the steady state makes no call.
#pragma once

#include <atomic>

extern "C" void openblas_set_num_threads(int num_threads);

namespace tenferro::detail {

inline void set_openblas_threads(int n) {
  static std::atomic<int> current{-1};
  if (current.load(std::memory_order_relaxed) != n) {
    openblas_set_num_threads(n);
    current.store(n, std::memory_order_relaxed);
  }
}

}  // namespace tenferro::detail
