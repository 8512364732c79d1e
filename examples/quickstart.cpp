// tenferro quickstart: one small computation in every mode the library offers.
//
//   loss(a, b) = sum(bmm(a, b))   with a, b of shape [16, 2, 2] (16 tiny 2x2 products)
//
// 1. eager: call ops, get tensors back;
// 2. autodiff: the gradient of the loss with respect to a and b;
// 3. tracing: capture the computation once, take the gradient program, prepare it, replay it;
// 4. the shared execution scope: run all of the above under ONE permit and ONE executor entry,
//    and compare per-op times inside and outside the scope.
#include <chrono>
#include <cstdio>
#include <span>

#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

Tensor loss(std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); }

// Median-free quick timing: the best of 5 batches of `n` calls, in ns per call.
template <class F>
double ns_per_call(int n, F&& f) {
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
  }
  return best;
}

}  // namespace

int main() {
  // A backend is a cheap copyable witness: a thread budget, a kind, a CPU set. Ops on this thread
  // run on it while the guard lives.
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  BackendGuard use(cpu);

  Tensor a = randn({16, 2, 2}, /*seed=*/1), b = randn({16, 2, 2}, /*seed=*/2);

  // 1. Eager.
  Tensor c = bmm(a, b);
  std::printf("c[0] = bmm(a, b)[0]:\n%s\n", c.slice(0, 0, 1).squeeze(0).to_string().c_str());
  std::printf("loss = %.6f\n\n", loss(std::span<const Tensor>({a, b})).item<double>());

  // 2. Autodiff: d loss / d a[q, i, k] = sum_j b[q, k, j].
  std::vector<Tensor> g = grad(loss, {a, b});
  std::printf("grad_a[0]:\n%s\n\n", g[0].slice(0, 0, 1).squeeze(0).to_string().c_str());

  // 3. Tracing: the program, its gradient program, prepared once on a runtime.
  Program program = trace(loss, {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}});
  std::printf("traced program:\n%s\n", program.to_string().c_str());
  Runtime runtime(cpu);  // built on a copy of the same witness
  PreparedProgram step = runtime.prepare(grad(program));
  std::vector<Tensor> pg = runtime.run(step, {a, b});
  std::printf("prepared grad equals eager grad: %s\n\n",
              allclose(pg[0], g[0]) && allclose(pg[1], g[1]) ? "yes" : "NO");

  // 4. The same work outside and inside one execution scope.
  const int n = 2000;
  auto eager_bmm = [&] { (void)bmm(a, b); };
  auto eager_step = [&] { (void)grad(loss, {a, b}); };
  auto prepared_step = [&] { (void)runtime.run(step, {a, b}); };
  double out_bmm = ns_per_call(n, eager_bmm), out_step = ns_per_call(n, eager_step),
         out_prep = ns_per_call(n, prepared_step);
  std::uint64_t entries_before = cpu.executor_entries();
  double in_bmm = 0, in_step = 0, in_prep = 0;
  cpu.with_execution_scope([&] {
    in_bmm = ns_per_call(n, eager_bmm);
    in_step = ns_per_call(n, eager_step);
    in_prep = ns_per_call(n, prepared_step);
  });
  std::uint64_t scope_entries = cpu.executor_entries() - entries_before;

  std::printf("per-op time, 1 thread (best of 5 batches of %d; see docs/benchmarks.md)\n", n);
  std::printf("| %-34s | %12s | %12s |\n", "operation", "outside", "inside scope");
  std::printf("|%s|%s|%s|\n", std::string(36, '-').c_str(), std::string(14, '-').c_str(),
              std::string(14, '-').c_str());
  std::printf("| %-34s | %9.0f ns | %9.0f ns |\n", "bmm 16x2x2", out_bmm, in_bmm);
  std::printf("| %-34s | %9.0f ns | %9.0f ns |\n", "grad of sum(bmm) (eager autodiff)", out_step,
              in_step);
  std::printf("| %-34s | %9.0f ns | %9.0f ns |\n", "grad of sum(bmm) (prepared trace)", out_prep,
              in_prep);
  std::printf("executor entries for the whole scope: %llu\n",
              static_cast<unsigned long long>(scope_entries));
  return 0;
}
