// Uses the installed package's dist component only: public headers + tenferro::dist, one rank
// (MPI's singleton mode, no mpiexec). Under ASan, LeakSanitizer skips MPI_Init's allocations and
// checks before MPI_Finalize, as tests/dist/main.cpp explains.
#include <cstdio>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif
#include <tenferro/dist.hpp>
#include <tenferro/einsum.hpp>

int main(int argc, char** argv) {
  using namespace tenferro;
#if defined(__SANITIZE_ADDRESS__)
  __lsan_disable();
#endif
  dist::Environment mpi(argc, argv);
#if defined(__SANITIZE_ADDRESS__)
  __lsan_enable();
#endif
  const dist::Comm comm;
  const Tensor a = randn({6, 8}, 1), b = randn({8, 6}, 2);
  const Tensor sliced = dist::sliced_einsum(comm, "ab,ba->", {a, b}, {.min_slices = 4});
  const Tensor whole = comm.allreduce(einsum("ab,ba->", a, b));
  if (comm.size() != 1 || !allclose(sliced, whole, 1e-12, 1e-12)) {
    std::puts("tenferro consumer dist: sliced_einsum differs from einsum");
    return 1;
  }
  std::puts("tenferro consumer dist: ok");
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();
#endif
  return 0;
}
