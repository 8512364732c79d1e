// `tenferro-bench --self-test`: checks of the harness's own arithmetic and formats (CTest label
// "bench"). Timing itself is not asserted anywhere.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "ours.hpp"
#include "report.hpp"
#include "run.hpp"
#include "spec.hpp"

namespace bench {
namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "self-test FAILED: " << what << "\n";
    ++failures;
  }
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

// A workload that counts calls and retained slots, to check the harness's protocol.
class CountingWorkload final : public Workload {
 public:
  void reserve(std::int64_t iters) override { reserved = iters; }
  void run(std::int64_t iters) override {
    expect(iters <= reserved, "run() within reserved slots");
    calls += iters;
    volatile double x = 0;
    for (int i = 0; i < 200; ++i) x = x + i;
  }
  void release() override { reserved = 0; }
  std::int64_t reserved = 0, calls = 0;
};

}  // namespace

int self_test() {
  {  // Median and IQR with linear interpolation (numpy's default), on unsorted input.
    std::vector<double> xs{5, 1, 4, 2, 3};
    auto [med, iqr] = median_iqr(xs);
    expect(near(med, 3) && near(iqr, 2), "median/IQR of 1..5");
    std::vector<double> ys{4, 1, 3, 2};
    auto [m2, i2] = median_iqr(ys);
    expect(near(m2, 2.5) && near(i2, 1.5), "median/IQR of 1..4");
  }
  {  // JSON round trip, including characters that need escaping.
    Row r;
    r.case_name = "c\"1";
    r.variant = "eager_scope";
    r.threads = 4;
    r.median_ns = 123.5;
    r.iqr_ns = 7;
    r.min_ns = 120;
    r.repeats = 15;
    r.batch = 1000;
    r.executor_entries = 1;
    r.check = "ok";
    r.unit = "value_and_grad";
    r.note = "a\\b\nc\x01";
    r.oversubscribed = true;
    r.series = "add_f32";
    r.size = 10'000'000;
    const Row back = row_from_json(parse_json_line(to_json(r).dump()));
    expect(back.case_name == r.case_name && back.variant == r.variant && back.threads == 4 &&
               near(back.median_ns, 123.5) && near(back.iqr_ns, 7) && back.repeats == 15 &&
               back.batch == 1000 && back.executor_entries == 1 && back.check == "ok" &&
               back.unit == "value_and_grad" && back.note == r.note && back.oversubscribed &&
               back.series == "add_f32" && back.size == 10'000'000,
           "JSON round trip of a row");
    Row u;
    u.status = "unsupported";
    expect(to_json(u)["median_ns"].is_null(), "unsupported rows have no time");
    expect(!to_json(u).contains("series"), "table rows have no series");
    expect(parse_json_line("not json").is_discarded(), "a line that is not JSON is skipped");
  }
  {  // The harness: batches of >= 1000 calls for a small op, `samples` timed batches.
    CountingWorkload w;
    TimingPolicy p;
    p.min_sample_ns = 1e5;
    const Measurement m = measure(w, p);
    expect(m.batch >= 1000, "small op batch >= 1000 calls");
    expect(m.repeats == p.samples, "15 samples");
    expect(m.timed_calls == m.batch * m.repeats, "timed calls = batch x samples");
    expect(m.median_ns > 0 && m.iqr_ns >= 0 && m.min_ns <= m.median_ns, "sane statistics");
    expect(w.reserved == 0, "outputs released after the last sample");
  }
  {  // The markdown table puts each variant in its column with the ratio to libtorch.
    Row a;
    a.case_name = "matmul_2";
    a.variant = "eager";
    a.median_ns = 500;
    a.iqr_ns = 0;
    Row t = a;
    t.variant = "libtorch";
    t.median_ns = 1000;
    std::ostringstream os;
    write_markdown(os, {}, {a, t});
    expect(os.str().find("| matmul_2 |") != std::string::npos &&
               os.str().find("500 ns ±0% (0.50x)") != std::string::npos,
           "markdown row with ratio");
    // Oversubscribed thread counts are marked; einsum's path twin gets a line of its own.
    Row e = a, et = t, ep = t;
    e.case_name = et.case_name = ep.case_name = "einsum_x";
    e.threads = et.threads = ep.threads = 4;
    e.oversubscribed = et.oversubscribed = ep.oversubscribed = true;
    ep.variant = "libtorch_path";
    ep.median_ns = 250;
    std::ostringstream es;
    write_markdown(es, {}, {e, et, ep});
    expect(es.str().find("| 4 (oversubscribed) |") != std::string::npos, "oversubscribed mark");
    expect(
        es.str().find("(libtorch: its default order) | 4 (oversubscribed) | 500 ns ±0% (0.50x)") !=
                std::string::npos &&
            es.str().find("(libtorch: our path) | 4 (oversubscribed) | 500 ns ±0% (2.00x)") !=
                std::string::npos,
        "einsum lines against both libtorch twins");
  }
  {  // Every case is named once and has inputs.
    const auto& cs = all_cases();
    for (std::size_t i = 0; i < cs.size(); ++i) {
      expect(!cs[i].inputs.empty(), cs[i].name + " has inputs");
      for (std::size_t j = 0; j < i; ++j) expect(cs[i].name != cs[j].name, "unique case names");
      if (cs[i].op == Op::einsum) {  // one subscript group per input, before the "->"
        const std::string lhs = cs[i].subscripts.substr(0, cs[i].subscripts.find("->"));
        const auto groups = static_cast<std::size_t>(std::count(lhs.begin(), lhs.end(), ',')) + 1;
        expect(groups == cs[i].inputs.size(), cs[i].name + ": one subscript group per input");
      }
    }
    const auto v = input_values(4, 1);
    for (double x : v) expect(x >= -1 && x < 1, "inputs in [-1, 1)");
    // Every grad case is followed by its value_and_grad twin.
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].mode != Mode::grad) continue;
      expect(i + 1 < cs.size() && cs[i + 1].mode == Mode::value_and_grad &&
                 cs[i + 1].name == "value_and_" + cs[i].name && cs[i + 1].unit == "value_and_grad",
             cs[i].name + " has a value_and_grad twin");
    }
  }
  {  // Sweep points: named uniquely, sizes ascending within a series.
    const auto& sw = sweep_cases();
    for (std::size_t i = 0; i < sw.size(); ++i) {
      expect(!sw[i].series.empty() && sw[i].size > 0, sw[i].name + " has a series and a size");
      if (i > 0 && sw[i].series == sw[i - 1].series) {
        expect(sw[i].size > sw[i - 1].size, sw[i].name + ": sizes ascend");
      }
      for (const auto& c : all_cases()) expect(c.name != sw[i].name, "sweep names are new");
    }
  }
  {  // tenferro's einsum path in torch's format: n - 1 pairs of live positions.
    for (const auto& c : all_cases()) {
      if (c.op != Op::einsum) continue;
      const auto path = ours::torch_einsum_path(c);
      const std::size_t n = c.inputs.size();
      expect(path.size() == 2 * (n - 1), c.name + ": one pair per contraction");
      for (std::size_t k = 0; 2 * k + 1 < path.size(); ++k) {
        const auto live = static_cast<std::int64_t>(n - k);
        expect(path[2 * k] != path[2 * k + 1] && path[2 * k] >= 0 && path[2 * k] < live &&
                   path[2 * k + 1] >= 0 && path[2 * k + 1] < live,
               c.name + ": path positions are live operands");
      }
    }
  }
  std::cerr << (failures ? "self-test: FAILED\n" : "self-test: passed\n");
  return failures ? 1 : 0;
}

}  // namespace bench
