// Uses the installed package's dist component only: public headers + tenferro::dist, one rank
// (MPI's singleton mode, no mpiexec).
#include <cstdio>
#include <tenferro/dist.hpp>
#include <tenferro/einsum.hpp>

int main(int argc, char** argv) {
  using namespace tenferro;
  dist::Environment mpi(argc, argv);
  const dist::Comm comm;
  const Tensor a = randn({6, 8}, 1), b = randn({8, 6}, 2);
  const Tensor sliced = dist::sliced_einsum(comm, "ab,ba->", {a, b}, {.min_slices = 4});
  const Tensor whole = comm.allreduce(einsum("ab,ba->", a, b));
  if (comm.size() != 1 || !allclose(sliced, whole, 1e-12, 1e-12)) {
    std::puts("tenferro consumer dist: sliced_einsum differs from einsum");
    return 1;
  }
  std::puts("tenferro consumer dist: ok");
  return 0;
}
