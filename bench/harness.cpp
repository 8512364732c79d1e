#include "harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

double time_batch(Workload& w, std::int64_t iters) {
  w.reserve(iters);
  const auto t0 = Clock::now();
  w.run(iters);
  const auto t1 = Clock::now();
  w.release();
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
}

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

std::pair<double, double> median_iqr(std::vector<double>& xs) {
  std::sort(xs.begin(), xs.end());
  return {quantile(xs, 0.5), quantile(xs, 0.75) - quantile(xs, 0.25)};
}

Measurement measure(Workload& w, const TimingPolicy& policy,
                    const std::function<std::int64_t()>& counter) {
  // Warm-up: first-touch of caches, buffer pools, lazily created thread pools, plan caches.
  // A very slow op gets one warm-up call only.
  for (int i = 0; i < policy.warmup_calls; ++i) {
    if (time_batch(w, 1) > policy.max_case_ns / 10) break;
  }

  // Calibration: grow the batch until one batch lasts at least min_sample_ns (or a single call
  // is already that slow), then time two more batches of that size. The per-call estimate is the
  // fastest of them, so one preemption on a busy machine does not inflate it.
  std::int64_t iters = 1;
  double per_call = 0;
  for (;;) {
    const double t = time_batch(w, iters);
    per_call = t / static_cast<double>(iters);
    if (t >= policy.min_sample_ns || iters >= (std::int64_t{1} << 24)) break;
    const double want = policy.min_sample_ns / std::max(per_call, 1.0);
    iters = std::max<std::int64_t>(iters * 2, static_cast<std::int64_t>(std::ceil(want * 1.2)));
  }
  if (per_call * static_cast<double>(iters) < policy.max_case_ns / 20) {
    for (int i = 0; i < 2; ++i) {
      per_call = std::min(per_call, time_batch(w, iters) / static_cast<double>(iters));
    }
  }
  std::int64_t batch = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(policy.min_sample_ns / per_call)));
  if (per_call < policy.small_op_ns) batch = std::max(batch, policy.min_batch_small);

  int samples = policy.samples;
  const double projected = per_call * static_cast<double>(batch) * samples;
  if (projected > policy.max_case_ns) {
    samples = std::max(3, static_cast<int>(policy.max_case_ns / (per_call * batch)));
  }

  Measurement m;
  m.batch = batch;
  m.repeats = samples;
  std::vector<double> per_op;
  per_op.reserve(static_cast<std::size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    w.reserve(batch);
    const std::int64_t c0 = counter ? counter() : 0;
    const auto t0 = Clock::now();
    w.run(batch);
    const auto t1 = Clock::now();
    const std::int64_t c1 = counter ? counter() : 0;
    w.release();
    m.counter += c1 - c0;
    const double ns =
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    per_op.push_back(ns / static_cast<double>(batch));
  }
  m.timed_calls = batch * samples;
  auto [med, iqr] = median_iqr(per_op);
  m.median_ns = med;
  m.iqr_ns = iqr;
  m.min_ns = per_op.front();
  return m;
}

}  // namespace bench
