// Admission cost of the CPU runtime: ns per empty operation / session / loan. Reports the median
// and the minimum of 31 repeats of 20k iterations: on a shared machine the minimum is the closest
// to the unloaded cost (a repeat that was never preempted), the median what a loaded machine sees.
// A CMake target outside `all` (bench/CMakeLists.txt; it reaches into src/ internals):
//   cmake --build --preset release --target runtime_admission &&
//   build/release/bench/runtime_admission
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cpu/admission.hpp"

using namespace tenferro;
using detail::ExecContext;
using detail::run_operation;

namespace {
volatile long g_sink = 0;

struct Timing {
  double median, min;
};

template <class F>
Timing median_ns(F&& f, long iters = 20000) {
  for (long i = 0; i < iters; ++i) f();  // warm-up
  std::vector<double> runs;
  for (int r = 0; r < 31; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    runs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                   static_cast<double>(iters));
  }
  std::sort(runs.begin(), runs.end());
  return {runs[runs.size() / 2], runs.front()};
}

CpuBackend make(int threads, BackendKind kind = BackendKind::native) {
  CpuBackendOptions o;
  o.threads = threads;
  o.kind = kind;
  return CpuBackend(o);
}
}  // namespace

int main() {
  std::printf("%-44s %10s %10s\n", "case", "median ns", "min ns");
  for (int t : {1, 2, 4}) {
    for (BackendKind k : {BackendKind::native, BackendKind::blas}) {
      CpuBackend b = make(t, k);
      const char* kn = k == BackendKind::native ? "native" : "blas";
      Timing op =
          median_ns([&] { g_sink = g_sink + run_operation(b, [](ExecContext&) { return 1; }); });
      Timing ses = median_ns([&] { b.with_session([](Session&) { g_sink = g_sink + 1; }); });
      Timing alloc = median_ns([&] {
        StoragePtr s =
            run_operation(b, [](ExecContext& ctx) { return StoragePtr(ctx.allocate(128)); });
        g_sink = g_sink + static_cast<long>(s->bytes);
      });
      Timing loan{}, loan_alloc{}, in_session{};
      b.with_execution_scope([&] {
        loan =
            median_ns([&] { g_sink = g_sink + run_operation(b, [](ExecContext&) { return 1; }); });
        loan_alloc = median_ns([&] {
          StoragePtr s =
              run_operation(b, [](ExecContext& ctx) { return StoragePtr(ctx.allocate(128)); });
          g_sink = g_sink + static_cast<long>(s->bytes);
        });
      });
      b.with_session([&](Session&) {
        in_session =
            median_ns([&] { g_sink = g_sink + run_operation(b, [](ExecContext&) { return 1; }); });
      });
      std::printf("budget %d %-6s empty run_operation            %10.1f %10.1f\n", t, kn, op.median,
                  op.min);
      std::printf("budget %d %-6s empty with_session             %10.1f %10.1f\n", t, kn,
                  ses.median, ses.min);
      std::printf("budget %d %-6s run_operation + 128 B output   %10.1f %10.1f\n", t, kn,
                  alloc.median, alloc.min);
      std::printf("budget %d %-6s op on scope loan               %10.1f %10.1f\n", t, kn,
                  loan.median, loan.min);
      std::printf("budget %d %-6s op on scope loan + 128 B output%10.1f %10.1f\n", t, kn,
                  loan_alloc.median, loan_alloc.min);
      std::printf("budget %d %-6s op inside a session            %10.1f %10.1f\n", t, kn,
                  in_session.median, in_session.min);
    }
  }
  return 0;
}
