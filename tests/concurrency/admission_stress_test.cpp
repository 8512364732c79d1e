// Stress: 8 threads x 3 backends x 1,000 admissions each, mixing operations, sessions and scopes
// on overlapping and disjoint CPU sets, native and blas kinds. Every admission checks its result
// and the arbiter's mutual-exclusion invariants; the whole run is bounded by a watchdog.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/admission.hpp"
#include "runtime/test_support.hpp"

using namespace tenferro;
using detail::ExecContext;
using detail::run_operation;

namespace {

constexpr int kThreads = 8;
constexpr int kAdmissionsPerBackend = 1000;

struct Invariants {
  std::array<std::atomic<int>, CpuSet::max_cpus> inside{};  // admissions inside, per CPU
  std::atomic<int> blas_inside{0};
  std::atomic<int> any_inside{0};
  std::atomic<long> violations{0};
};

struct Target {
  CpuBackend backend;
  std::vector<int> cpus;
  bool blas;
  bool nested = false;  // inside a scope that already counts as inside
};

// Entered at the start of an admitted body, left at its end.
class Inside {
 public:
  Inside(Invariants& inv, const Target& t) : inv_(inv), t_(t) {
    if (t_.nested) return;
    if (inv_.any_inside.fetch_add(1) != 0 && t_.blas)
      inv_.violations.fetch_add(1);  // blas: nobody else
    if (inv_.blas_inside.load() != 0 && !t_.blas)
      inv_.violations.fetch_add(1);  // nobody beside blas
    if (t_.blas) inv_.blas_inside.fetch_add(1);
    for (int c : t_.cpus)
      if (inv_.inside[c].fetch_add(1) != 0)
        inv_.violations.fetch_add(1);  // overlapping sets exclude
  }
  ~Inside() {
    if (t_.nested) return;
    for (int c : t_.cpus) inv_.inside[c].fetch_sub(1);
    if (t_.blas) inv_.blas_inside.fetch_sub(1);
    inv_.any_inside.fetch_sub(1);
  }

 private:
  Invariants& inv_;
  const Target& t_;
};

// One checked admission: fill a pool buffer with i + k, sum it, compare.
long checked_op(Invariants& inv, const Target& t, long k, int n) {
  return run_operation(t.backend, [&](ExecContext& ctx) {
    Inside in(inv, t);
    StoragePtr s(ctx.allocate(sizeof(long) * static_cast<std::size_t>(n)));
    auto* d = static_cast<long*>(s->data);
    // Work estimate n * 64: the 4096-element admissions fan out on the 2-thread native backend,
    // so ThreadSanitizer sees parallel loops racing with other threads' admissions.
    ctx.parallel_for_work(n, 64, std::int64_t{n} * 64, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) d[i] = i + k;
    });
    long sum = 0;
    for (int i = 0; i < n; ++i) sum += d[i];
    return sum;
  });
}
long expected(long k, int n) { return static_cast<long>(n) * (n - 1) / 2 + k * n; }

}  // namespace

TEST(AdmissionStress, EightThreadsThreeBackendsMutualExclusionHolds) {
  auto [set_a, set_b] = test_support::two_cpu_sets();
  CpuSet both = set_a;
  for (int c : set_b.to_vector()) both.add(c);
  // native {a} budget 1, native {a,b} budget 2 (overlaps the first), blas (excludes everything).
  // With two CPUs, also a disjoint native {b}; the first and this one may run at the same time.
  std::vector<Target> targets;
  targets.push_back(
      {CpuBackend(CpuBackendOptions{.threads = 1, .placement = set_a}), set_a.to_vector(), false});
  targets.push_back(
      {CpuBackend(CpuBackendOptions{.threads = 2, .placement = both}), both.to_vector(), false});
  targets.push_back(
      {CpuBackend(CpuBackendOptions{.threads = 2, .kind = BackendKind::blas}), {}, true});
  if (!(set_a == set_b))
    targets.push_back({CpuBackend(CpuBackendOptions{.threads = 1, .placement = set_b}),
                       set_b.to_vector(), false});

  Invariants inv;
  std::atomic<long> wrong{0}, done_admissions{0};
  std::mutex mu;
  std::condition_variable cv;
  int finished = 0;
  std::vector<std::thread> threads;
  for (int tid = 0; tid < kThreads; ++tid) {
    threads.emplace_back([&, tid] {
      for (int i = 0; i < kAdmissionsPerBackend; ++i) {
        for (std::size_t j = 0; j < targets.size(); ++j) {
          const Target& t = targets[(j + static_cast<std::size_t>(tid)) % targets.size()];
          const long k = tid * 100000L + i;
          const int n = (i % 7 == 0) ? 4096 : 16;
          switch ((i + tid) % 5) {
            case 0:
            case 1:
            case 2:
              if (checked_op(inv, t, k, n) != expected(k, n)) wrong.fetch_add(1);
              break;
            case 3: {  // a session with two primitives
              long r = t.backend.with_session([&](Session&) {
                return checked_op(inv, t, k, n) + checked_op(inv, t, k + 1, n);
              });
              if (r != expected(k, n) + expected(k + 1, n)) wrong.fetch_add(1);
              break;
            }
            case 4: {  // a scope with an op and a session
              const Target loan{t.backend, t.cpus, t.blas, /*nested=*/true};
              long r = loan.backend.with_execution_scope([&] {
                Inside in(inv, t);  // the scope's permit excludes conflicting admissions too
                long a = checked_op(inv, loan, k, n);
                long b = loan.backend.with_session(
                    [&](Session&) { return checked_op(inv, loan, k, n); });
                return a + b;
              });
              if (r != 2 * expected(k, n)) wrong.fetch_add(1);
              break;
            }
          }
          done_admissions.fetch_add(1);
        }
      }
      std::lock_guard lock(mu);
      ++finished;
      cv.notify_all();
    });
  }
  {
    std::unique_lock lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(120), [&] { return finished == kThreads; })) {
      std::fprintf(stderr, "AdmissionStress: deadlock or starvation: %ld admissions done\n",
                   done_admissions.load());
      std::abort();  // threads are stuck: nothing can be joined
    }
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(inv.violations.load(), 0) << "two conflicting admissions ran at the same time";
  EXPECT_EQ(done_admissions.load(),
            static_cast<long>(kThreads) * kAdmissionsPerBackend * targets.size());
  for (const Target& t : targets) {
    EXPECT_EQ(t.backend.buffer_pool_stats().outstanding_buffers, 0u);
    EXPECT_TRUE(t.backend.try_acquire_permit().has_value());
  }
  EXPECT_GT(targets[1].backend.diagnostics().parallel_loops, 0u) << "no admission fanned out";
  EXPECT_EQ(detail::Arbiter::global().active_count(), 0u);
  EXPECT_EQ(detail::Arbiter::global().waiting_count(), 0u);
}
