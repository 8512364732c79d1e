// Quick timing loops (report only, never asserted; disabled by default). Run with
//   build/release/tests_einsum --gtest_also_run_disabled_tests --gtest_filter='*Timing*'
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"

namespace {

using namespace tenferro;

// Median over `repeats` of the mean ns per call over `inner` calls.
template <class F>
double median_ns(F&& f, int inner, int repeats = 7) {
  f();  // warm-up (fills caches and the einsum plan cache)
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) f();
    const auto stop = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(stop - start).count() / inner);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

TEST(EinsumTiming, DISABLED_Report) {
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  BackendGuard use(cpu);
  {
    // Matrix chain of 10 operands where the order matters.
    const std::vector<std::int64_t> d = {64, 8, 128, 16, 256, 4, 64, 32, 128, 8, 64};
    std::vector<Tensor> ops;
    std::vector<Dims> shapes;
    std::string spec;
    for (std::size_t k = 0; k + 1 < d.size(); ++k) {
      shapes.push_back({d[k], d[k + 1]});
      ops.push_back(randn(shapes.back(), k + 1));
      if (k) spec += ',';
      spec += static_cast<char>('a' + k);
      spec += static_cast<char>('a' + k + 1);
    }
    spec += "->ak";
    const EinsumPath opt = einsum_path(spec, shapes);
    const EinsumPath seq = einsum_path(spec, shapes, {.strategy = EinsumStrategy::sequential});
    const EinsumPath best = einsum_path(spec, shapes, {.strategy = EinsumStrategy::optimal});
    EinsumPlan plan = prepare_einsum(spec, shapes, {DType::f64});
    const double t_einsum = median_ns([&] { (void)einsum(spec, ops); }, 200);
    const double t_plan = median_ns([&] { (void)plan(ops); }, 200);
    const double t_seq =
        median_ns([&] { (void)einsum(spec, ops, {.strategy = EinsumStrategy::sequential}); }, 200);
    const double t_matmul = median_ns(
        [&] {
          Tensor r = ops[0];
          for (std::size_t k = 1; k < ops.size(); ++k) r = matmul(r, ops[k]);
        },
        200);
    std::printf("matrix chain (10 operands, f64, 1 thread): %s\n", spec.c_str());
    std::printf("  flops: automatic (%s) %.4g, optimal %.4g, left-to-right %.4g; per call:\n",
                opt.strategy == EinsumStrategy::greedy ? "greedy" : "optimal", opt.flops,
                best.flops, seq.flops);
    std::printf("  einsum %.0f ns, plan %.0f ns, einsum sequential %.0f ns, matmul chain %.0f ns\n",
                t_einsum, t_plan, t_seq, t_matmul);
    std::printf("  path search alone (einsum_path): %.0f ns\n",
                median_ns([&] { (void)einsum_path(spec, shapes); }, 50));
  }
  {
    const char* spec = "abc,bd,cde->ade";
    const std::vector<Dims> shapes = {{64, 64, 64}, {64, 64}, {64, 64, 64}};
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < 3; ++k) ops.push_back(randn(shapes[k], 10 + k));
    EinsumPlan plan = prepare_einsum(spec, shapes, {DType::f64});
    const double t_einsum = median_ns([&] { (void)einsum(spec, ops); }, 5);
    const double t_plan = median_ns([&] { (void)plan(ops); }, 5);
    const double t_manual = median_ns(
        [&] {
          Tensor acd = tensordot(ops[0], ops[1], Dims{1}, Dims{0});
          (void)permute(dot_general(acd, ops[2], {{2}, {1}, {1}, {0}}), {1, 0, 2});
        },
        5);
    std::printf("MPS-style %s, dims 64, f64, 1 thread: flops %.4g\n", spec, plan.path().flops);
    std::printf("%s", plan.path().to_string().c_str());
    std::printf("  einsum %.0f us, plan %.0f us, hand-written tensordot + dot_general %.0f us\n",
                t_einsum / 1e3, t_plan / 1e3, t_manual / 1e3);
  }
  {
    Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
    EinsumPlan plan = prepare_einsum("bij,bjk->bik", {{16, 2, 2}, {16, 2, 2}}, {DType::f64});
    std::printf("tiny bij,bjk->bik 16x2x2 f64: einsum %.0f ns, plan %.0f ns, bmm %.0f ns\n",
                median_ns([&] { (void)einsum("bij,bjk->bik", a, b); }, 20000),
                median_ns(
                    [&] {
                      (void)plan({a, b});
                    },
                    20000),
                median_ns([&] { (void)bmm(a, b); }, 20000));
  }
}

}  // namespace
