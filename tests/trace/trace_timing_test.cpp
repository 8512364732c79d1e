// A quick timing loop, reported not asserted (disabled by default; run with
//   build/release/tests_trace --gtest_also_run_disabled_tests --gtest_filter='*Timing*').
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;

namespace {
template <class F>
double median_ns_per_call(F&& f, int calls, int repeats) {
  std::vector<double> ns;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}
}  // namespace

TEST(TraceTiming, DISABLED_SumBmmGradReplay) {
  auto loss = [](std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); };
  Program p = trace(loss, {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}});
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
  Tensor in[2] = {a, b};
  for (int threads : {1, 4}) {
    CpuBackend cpu(CpuBackendOptions{.threads = threads});
    Runtime rt(cpu);
    PreparedProgram g = rt.prepare(grad(p)), primal = rt.prepare(p);
    std::vector<Tensor> out(2), out1(1);
    for (int i = 0; i < 1000; ++i) rt.run_into(g, in, out);  // warm up
    double grad_into = median_ns_per_call([&] { rt.run_into(g, in, out); }, 20000, 15);
    double grad_run = median_ns_per_call([&] { (void)rt.run(g, in); }, 20000, 15);
    double primal_into = median_ns_per_call([&] { rt.run_into(primal, in, out1); }, 20000, 15);
    double prepare_hit = median_ns_per_call([&] { (void)rt.prepare(p); }, 2000, 5);
    BackendGuard use(cpu);
    double eager_grad = median_ns_per_call([&] { (void)tenferro::grad(loss, {a, b}); }, 5000, 9);
    std::printf(
        "threads=%d  grad replay run_into: %.0f ns, run: %.0f ns | primal replay: %.0f ns | "
        "prepare (cache hit): %.0f ns | eager autodiff grad: %.0f ns\n",
        threads, grad_into, grad_run, primal_into, prepare_hit, eager_grad);
  }
}
