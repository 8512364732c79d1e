// FFTs from several threads at once (label: concurrency; runs under TSan in the gate). FFTW's
// planner is not thread-safe (Note [FFTW plans], src/cpu/kernels/fft_fftw.hpp): plans are made
// and destroyed under one process-wide lock while executions run unlocked. Here threads on their
// own backends (separate engines, so separate plan caches that plan and evict at the same time)
// and threads sharing one backend run transforms of many lengths, each result compared with the
// one computed beforehand on the main thread.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/ops/fft.hpp"

using namespace tenferro;

namespace {

struct Case {
  Tensor x, fx, rx;
};

std::vector<Case> make_cases() {
  std::vector<Case> cs;
  for (std::int64_t n = 1; n <= 40; ++n) {
    const Tensor x = randn({3, n}, static_cast<std::uint64_t>(n), n % 2 ? DType::f64 : DType::f32);
    cs.push_back({x, fft(x), irfft(rfft(x), n)});
  }
  return cs;
}

void run_all(const std::vector<Case>& cs, int rounds, int& failures) {
  for (int r = 0; r < rounds; ++r)
    for (const Case& c : cs) {
      if (!allclose(fft(c.x), c.fx, 0, 0)) ++failures;
      if (!allclose(irfft(rfft(c.x), c.x.shape()[1]), c.rx, 0, 0)) ++failures;
    }
}

}  // namespace

TEST(FftConcurrency, ThreadsOnTheirOwnBackendsPlanAndRunAtOnce) {
  const std::vector<Case> cs = make_cases();
  int failures[4] = {};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      CpuBackend cpu(CpuBackendOptions{.threads = 1});
      BackendGuard use(cpu);
      run_all(cs, 3, failures[t]);
    });
  for (std::thread& t : ts) t.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

TEST(FftConcurrency, ThreadsSharingOneBackend) {
  const std::vector<Case> cs = make_cases();
  CpuBackend cpu(CpuBackendOptions{.threads = 2});
  int failures[2] = {};
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; ++t)
    ts.emplace_back([&, t] {
      BackendGuard use(cpu);
      run_all(cs, 2, failures[t]);
    });
  for (std::thread& t : ts) t.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

TEST(FftConcurrency, ClearingCachesWhileAnotherBackendPlans) {
  // Destroying plans (clear_caches takes the planner lock per plan) races with planning elsewhere.
  const std::vector<Case> cs = make_cases();
  CpuBackend a(CpuBackendOptions{.threads = 1});
  int failures = 0, planner_failures = 0;
  std::thread planner([&] {
    CpuBackend b(CpuBackendOptions{.threads = 1});
    BackendGuard use(b);
    run_all(cs, 3, planner_failures);
  });
  for (int r = 0; r < 3; ++r) {
    {
      BackendGuard use(a);
      for (const Case& c : cs)
        if (!allclose(fft(c.x), c.fx, 0, 0)) ++failures;
    }
    a.clear_caches();
  }
  planner.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(planner_failures, 0);
}
