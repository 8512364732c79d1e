// Timing: calibrated batches, samples, median and IQR (docs/benchmarks.md, "Timing policy").
//
// A Workload is one variant of one case, fully set up (inputs, backend, prepared program...).
// The harness calls reserve(n) and release() outside the clock and run(n) inside it; run(n)
// performs n calls back to back. The table's workloads keep the outputs of a batch alive (in
// slots made by reserve), so that output allocation is timed and output release is not; the size
// sweeps' workloads drop each output when the next call starts (a batch of 10^7-element outputs
// would not fit in memory), so a call's release is timed and its buffer can be reused. There is
// one virtual call per batch, never per op.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bench {

class Workload {
 public:
  virtual ~Workload() = default;
  /// Outside the clock: room to retain the outputs of `iters` calls.
  virtual void reserve(std::int64_t iters) = 0;
  /// Timed: `iters` calls, outputs retained.
  virtual void run(std::int64_t iters) = 0;
  /// Outside the clock: drops the retained outputs.
  virtual void release() = 0;
};

/// A Workload from a callable `op() -> Out`; Out is what a call returns (a tensor, a vector of
/// gradients, ...). The loop is compiled per op, so timing includes no indirection per call.
template <class Out, class F>
class RetainingWorkload final : public Workload {
 public:
  explicit RetainingWorkload(F op) : op_(std::move(op)) {}
  void reserve(std::int64_t iters) override {
    slots_.clear();
    slots_.resize(static_cast<std::size_t>(iters));
  }
  void run(std::int64_t iters) override {
    Out* slot = slots_.data();
    for (std::int64_t i = 0; i < iters; ++i) slot[i] = op_();
  }
  void release() override { slots_.clear(); }

 private:
  F op_;
  std::vector<Out> slots_;
};

/// A Workload from a callable `op() -> Out` whose output is dropped at the end of each call.
template <class F>
class DroppingWorkload final : public Workload {
 public:
  explicit DroppingWorkload(F op) : op_(std::move(op)) {}
  void reserve(std::int64_t) override {}
  void run(std::int64_t iters) override {
    for (std::int64_t i = 0; i < iters; ++i) (void)op_();
  }
  void release() override {}

 private:
  F op_;
};

/// The workload of `op`: retaining its outputs over a batch, or dropping each one.
template <class F>
std::unique_ptr<Workload> make_workload(F op, bool retain_outputs = true) {
  using Out = std::decay_t<decltype(op())>;
  if (!retain_outputs) return std::make_unique<DroppingWorkload<F>>(std::move(op));
  return std::make_unique<RetainingWorkload<Out, F>>(std::move(op));
}

struct TimingPolicy {
  double min_sample_ns = 1e6;           // a sample lasts at least this long (1 ms)
  std::int64_t min_batch_small = 1000;  // calls per sample for ops under small_op_ns
  double small_op_ns = 10e3;            // "small": one call under 10 us
  int samples = 15;
  int warmup_calls = 3;
  double max_case_ns = 20e9;   // shrink the sample count when 15 samples would take longer
  bool retain_outputs = true;  // keep a batch's outputs (table) or drop each (size sweeps)
};

struct Measurement {
  double median_ns = 0;    // per call
  double iqr_ns = 0;       // per call
  double min_ns = 0;       // per call, fastest sample
  int repeats = 0;         // samples
  std::int64_t batch = 0;  // calls per sample
  std::int64_t timed_calls = 0;
  std::int64_t counter = 0;  // sum of counter() deltas over the timed batches
};

/// Warms up, calibrates the batch, then times `policy.samples` batches. `counter`, when given,
/// is read just before and after each timed batch (executor entries); its deltas are summed.
Measurement measure(Workload& w, const TimingPolicy& policy,
                    const std::function<std::int64_t()>& counter = {});

/// Median and interquartile range (linear interpolation) of `xs` (sorted in place).
std::pair<double, double> median_iqr(std::vector<double>& xs);

}  // namespace bench
