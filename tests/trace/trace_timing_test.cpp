// A quick timing loop, reported not asserted (disabled by default; run with
//   build/release/tests_trace --gtest_also_run_disabled_tests --gtest_filter='*Timing*').
// Prints the median over repeats of wall-clock and of this thread's CPU time per call; on a
// shared, loaded machine the CPU time is the steadier of the two.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;

namespace {
double thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

struct Timing {
  double wall_ns, cpu_ns;
};

template <class F>
Timing per_call(F&& f, int calls, int repeats) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < repeats; ++r) {
    double c0 = thread_cpu_ns();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    cpu.push_back((thread_cpu_ns() - c0) / calls);
    wall.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void report(int threads, const char* what, Timing t) {
  std::printf("threads=%d  %-32s wall %7.0f ns   cpu %7.0f ns\n", threads, what, t.wall_ns,
              t.cpu_ns);
}
}  // namespace

TEST(TraceTiming, DISABLED_SumBmmGradReplay) {
  auto loss = [](std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); };
  Program p = trace(loss, {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}});
  Program identity = trace([](std::span<const Tensor> x) { return x[0]; }, {ValueSpec{{16, 2, 2}}});
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
  Tensor in[2] = {a, b};
  for (int threads : {1, 4}) {
    CpuBackend cpu(CpuBackendOptions{.threads = threads});
    Runtime rt(cpu);
    PreparedProgram g = rt.prepare(grad(p)), primal = rt.prepare(p), id = rt.prepare(identity);
    std::vector<Tensor> out(2), out1(1);
    for (int i = 0; i < 1000; ++i) rt.run_into(g, in, out);  // warm up
    report(threads, "grad replay (run_into)",
           per_call([&] { rt.run_into(g, in, out); }, 20000, 15));
    report(threads, "grad replay (run)", per_call([&] { (void)rt.run(g, in); }, 20000, 15));
    report(threads, "primal replay (run_into)",
           per_call([&] { rt.run_into(primal, in, out1); }, 20000, 15));
    report(threads, "identity replay (fixed cost)",
           per_call(
               [&] {
                 rt.run_into(id, {in, 1}, out1);
               },
               20000, 15));
    report(threads, "prepare, cache hit", per_call([&] { (void)rt.prepare(p); }, 2000, 5));
    BackendGuard use(cpu);
    report(threads, "eager bmm", per_call([&] { (void)bmm(a, b); }, 20000, 9));
    report(threads, "eager autodiff grad",
           per_call(
               [&] {
                 (void)tenferro::grad(loss, {a, b});
               },
               5000, 9));
  }
}
