// Admission cost of the CPU runtime: ns per empty operation / session / loan, medians of 7 repeats.
// Not built by CMake (bench/ is a standalone area). Build and run after a release build:
//   g++ -O2 -std=c++20 -Iinclude -Isrc bench/runtime_admission.cpp build/release/libtenferro.a \
//       -ltbb -lpthread -o build/release/runtime_admission && build/release/runtime_admission
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

template <class F>
double median_ns(F&& f, long iters = 200000) {
  for (long i = 0; i < iters / 10; ++i) f();  // warm-up
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    runs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                   static_cast<double>(iters));
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

CpuBackend make(int threads, BackendKind kind = BackendKind::native) {
  CpuBackendOptions o;
  o.threads = threads;
  o.kind = kind;
  return CpuBackend(o);
}
}  // namespace

int main() {
  std::printf("%-44s %10s\n", "case", "ns/op");
  for (int t : {1, 2, 4}) {
    for (BackendKind k : {BackendKind::native, BackendKind::blas}) {
      CpuBackend b = make(t, k);
      const char* kn = k == BackendKind::native ? "native" : "blas";
      double op =
          median_ns([&] { g_sink = g_sink + run_operation(b, [](ExecContext&) { return 1; }); });
      double ses = median_ns([&] { b.with_session([](Session&) { g_sink = g_sink + 1; }); });
      double alloc = median_ns([&] {
        StoragePtr s =
            run_operation(b, [](ExecContext& ctx) { return StoragePtr(ctx.allocate(128)); });
        g_sink = g_sink + static_cast<long>(s->bytes);
      });
      double loan = 0, loan_alloc = 0, in_session = 0;
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
      std::printf("budget %d %-6s empty run_operation            %10.1f\n", t, kn, op);
      std::printf("budget %d %-6s empty with_session             %10.1f\n", t, kn, ses);
      std::printf("budget %d %-6s run_operation + 128 B output   %10.1f\n", t, kn, alloc);
      std::printf("budget %d %-6s op on scope loan               %10.1f\n", t, kn, loan);
      std::printf("budget %d %-6s op on scope loan + 128 B output%10.1f\n", t, kn, loan_alloc);
      std::printf("budget %d %-6s op inside a session            %10.1f\n", t, kn, in_session);
    }
  }
  return 0;
}
