// The parallel kernel paths under ThreadSanitizer (label: concurrency, part of the tsan run):
// elementwise maps, full and axis reductions, the GEMM batch and row splits, 4-thread prepared
// runs and loans inside a 4-thread scope, the linear-algebra batch split (small kernels and
// LAPACK, one workspace per chunk), each with shapes above the fan-out threshold. Each
// checks that the loop really fanned out (CpuBackendDiagnostics::parallel_loops) and that the
// result equals the 1-thread result -- bitwise where the kernels promise thread-count-independent
// results (maps, reductions), to rounding for GEMM.
#include <gtest/gtest.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

struct Case {
  std::string name;
  std::function<Tensor()> run;
  bool bitwise;
};

std::vector<Case> cases() {
  const Tensor big = randn({1 << 17}, 1);  // elementwise work = n x cost >= the threshold
  const Tensor big2 = randn({1 << 17}, 2);
  const Tensor mat = randn({512, 512}, 3);
  const Tensor a = randn({96, 96}, 4), b = randn({96, 96}, 5);
  const Tensor ba = randn({64, 16, 16}, 6), bb = randn({64, 16, 16}, 7);
  // Linear algebra splits the batch into per-chunk workspaces (Note [Linalg provider rules]).
  const Tensor small = randn({256, 4, 4}, 8), mid = randn({16, 12, 12}, 9);
  const Tensor sys = randn({16, 20, 20}, 10) + 20.0 * diag_embed(ones({20})),
               rhs = randn({16, 20}, 11);
  return {
      {"svd_small_kernel_batch_split", [=] { return svd(small).U; }, true},
      {"svd_lapack_batch_split", [=] { return svd(mid).Vh; }, true},
      {"eigh_lapack_batch_split", [=] { return eigh(mid).eigenvectors; }, true},
      {"solve_lapack_batch_split", [=] { return solve(sys, rhs); }, true},
      {"add", [=] { return add(big, big2); }, true},
      {"exp_mul", [=] { return mul(exp(big), big2); }, true},
      {"sum_full", [=] { return sum(big); }, true},
      {"sum_axis", [=] { return sum(mat, {1}); }, true},
      {"sum_leading_axis", [=] { return sum(mat, {0}); }, true},
      {"matmul_row_split", [=] { return matmul(a, b); }, false},
      {"bmm_batch_split", [=] { return bmm(ba, bb); }, false},
  };
}

bool equal(const Tensor& x, const Tensor& y, bool bitwise) {
  return bitwise ? allclose(x, y, 0, 0) : allclose(x, y, 1e-12, 1e-12);
}

Tensor step(std::span<const Tensor> x) { return sum(mul(bmm(x[0], x[1]), x[0])); }

}  // namespace

TEST(ParallelKernels, EveryFanOutPathMatchesOneThread) {
  const CpuBackend one(CpuBackendOptions{.threads = 1});
  const CpuBackend four(CpuBackendOptions{.threads = 4});
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    Tensor want, got, in_scope;
    {
      BackendGuard use(one);
      want = c.run();
    }
    const auto loops0 = four.diagnostics().parallel_loops;
    {
      BackendGuard use(four);
      got = c.run();
    }
    EXPECT_GT(four.diagnostics().parallel_loops, loops0) << "the 4-thread op did not fan out";
    in_scope = four.with_execution_scope(c.run);  // loans fan out on the entered arena
    EXPECT_TRUE(equal(got, want, c.bitwise));
    EXPECT_TRUE(equal(in_scope, want, c.bitwise));
  }
}

TEST(ParallelKernels, FourThreadPreparedRunsMatchOneThread) {
  const std::vector<ValueSpec> specs{ValueSpec{{64, 16, 16}}, ValueSpec{{64, 16, 16}}};
  const Program g = grad(trace(step, specs));
  const Tensor a = randn({64, 16, 16}, 11), b = randn({64, 16, 16}, 12);
  Runtime rt1(CpuBackend(CpuBackendOptions{.threads = 1}));
  const CpuBackend four(CpuBackendOptions{.threads = 4});
  Runtime rt4(four);
  const std::vector<Tensor> want = rt1.run(rt1.prepare(g), {a, b});
  const PreparedProgram plan = rt4.prepare(g);
  const auto loops0 = four.diagnostics().parallel_loops;
  for (int rep = 0; rep < 3; ++rep) {
    const std::vector<Tensor> got = rt4.run(plan, {a, b});
    const std::vector<Tensor> in_scope = four.with_execution_scope([&] {
      return rt4.run(plan, {a, b});
    });
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(allclose(got[i], want[i], 1e-12, 1e-12));
      EXPECT_TRUE(allclose(in_scope[i], want[i], 1e-12, 1e-12));
    }
  }
  EXPECT_GT(four.diagnostics().parallel_loops, loops0) << "the prepared run did not fan out";
}
