// OpenBLAS's one process-wide thread count, shared by the GEMM provider and the LAPACK kernels.
//
// Note [OpenBLAS threads] (openblas_gemm.cpp) says why switching it is safe: a blas-kind operation
// holds a provider-exclusive permit, and native-kind callers only ever set it to 1. The count is
// read back from OpenBLAS, not cached here: another library in the process (libtorch, NumPy) may
// change it behind our back, and a native-kind call that believed it was still 1 would then run
// OpenBLAS at that library's count inside our own threads (measured: a 256x256 solve at 4 threads
// on 2 cores went from 0.9 ms to 90 ms). Reading it is a plain load inside OpenBLAS.
#pragma once

extern "C" void openblas_set_num_threads(int num_threads);
extern "C" int openblas_get_num_threads(void);

namespace tenferro::detail {

inline void set_openblas_threads(int n) {
  if (openblas_get_num_threads() != n) openblas_set_num_threads(n);
}

}  // namespace tenferro::detail
