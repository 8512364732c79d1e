#include "run.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include "harness.hpp"
#include "machine.hpp"
#include "ours.hpp"
#include "report.hpp"
#include "spec.hpp"
#include "torch_twin.hpp"

#ifndef TENFERRO_SOURCE_DIR
#define TENFERRO_SOURCE_DIR "."
#endif

namespace bench {
namespace {

std::string shell_line(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string env(const char* k) {
  const char* v = std::getenv(k);
  return v ? v : "";
}

// The timing policy of a run (docs/benchmarks.md, "Timing policy").
TimingPolicy policy_for(const RunOptions& opt) {
  TimingPolicy p;
  if (opt.sweep) {
    // ~400 measurements in a few minutes: fewer samples, a tighter cap (a 10^7-element exp
    // gets 3 samples), and outputs dropped per call (a batch of big outputs would not fit).
    p.min_sample_ns = 1e6;
    p.samples = 9;
    p.max_case_ns = 0.3e9;
    p.retain_outputs = false;
  } else if (opt.quick) {
    p.min_sample_ns = 1e6;
    p.max_case_ns = 1e9;
  } else {
    p.min_sample_ns = 2e6;
    p.max_case_ns = 10e9;
  }
  return p;
}

std::string policy_name(const RunOptions& opt) {
  return opt.sweep ? "--sweep" : opt.quick ? "--quick" : "full";
}

// The CPUs the parent was allowed (this process was pinned to the first `threads` of them before
// exec, see main.cpp), as a JSON array.
Json parent_cpus(const MachineState& m) {
  const Json parsed = Json::parse(env("TENFERRO_BENCH_PARENT_CPUS"), nullptr, false);
  return parsed.is_array() ? parsed : Json(m.allowed_cpus);
}

Json header(const RunOptions& opt, int threads, bool oversubscribed, const MachineState& m,
            int blas_threads, const std::string& torch_threads, const TimingPolicy& policy) {
  const std::string src = TENFERRO_SOURCE_DIR;
  const std::string commit =
      shell_line("git -C '" + src + "' rev-parse --short=12 HEAD 2>/dev/null");
  const bool dirty =
      !shell_line("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null")
           .empty();
  return Json{{"type", "header"},
              {"date", utc_now()},
              {"commit", commit.empty() ? "unknown" : commit},
              {"dirty", dirty},
              {"threads", threads},
              {"oversubscribed", oversubscribed},
              {"cpu_model", m.cpu_model},
              {"online_cpus", m.online_cpus},
              {"allowed_cpus", parent_cpus(m)},
              {"pinned_cpus", m.pinned_cpus},
              {"pinned", m.pinned},
              {"pin_note", m.pin_note},
              {"loadavg", std::vector<double>(m.loadavg, m.loadavg + 3)},
              {"busy_pct", m.busy_pct},
              {"busy_sample_ms", static_cast<int>(m.busy_sample_ms)},
              {"idle", m.idle},
              {"idle_note", m.idle_note},
              {"libtorch", torch_twin::version()},
              {"libtorch_threads", torch_threads},
              {"openblas_threads", blas_threads},
              {"env", "OMP_NUM_THREADS=" + env("OMP_NUM_THREADS") +
                          " OPENBLAS_NUM_THREADS=" + env("OPENBLAS_NUM_THREADS") +
                          " OPENBLAS_CORETYPE=" + env("OPENBLAS_CORETYPE")},
              {"quick", opt.quick},
              {"sweep", opt.sweep},
              {"policy_name", policy_name(opt)},
              {"policy",
               {{"min_sample_ns", policy.min_sample_ns},
                {"min_batch_small", policy.min_batch_small},
                {"small_op_ns", policy.small_op_ns},
                {"samples", policy.samples},
                {"max_case_ns", policy.max_case_ns},
                {"retain_outputs", policy.retain_outputs}}}};
}

// The libtorch twin of `c` as `variant` ("libtorch": torch's own einsum order; "libtorch_path":
// einsum given `path`), measured into a row.
Row measure_twin(const CaseSpec& c, std::string_view variant, int threads,
                 const TimingPolicy& policy, const std::vector<std::int64_t>& path) {
  Row r;
  r.case_name = c.name;
  r.variant = std::string(variant);
  r.threads = threads;
  r.unit = c.unit;
  r.series = c.series;
  r.size = c.size;
  std::string why;
  auto twin = torch_twin::make(c, policy.retain_outputs, path, &why);
  if (!twin) {
    r.status = torch_twin::version().empty() ? "n/a" : "error";
    r.note = why;
    return r;
  }
  try {
    set_openblas_threads(threads);  // shared with tenferro, which may have changed it
    const Measurement mm = measure(*twin, policy);
    r.median_ns = mm.median_ns;
    r.iqr_ns = mm.iqr_ns;
    r.min_ns = mm.min_ns;
    r.repeats = mm.repeats;
    r.batch = mm.batch;
  } catch (const std::exception& e) {
    r.status = "error";
    r.note = e.what();
  }
  return r;
}

}  // namespace

int run_child(const RunOptions& opt, int threads, const std::string& out_file) {
  std::ofstream out(out_file, std::ios::app);
  if (!out) {
    std::cerr << "tenferro-bench: cannot write " << out_file << "\n";
    return 1;
  }
  const MachineState m = pin_and_probe(threads, 300.0);
  const int blas_threads = set_openblas_threads(threads);
  const std::string torch_threads = torch_twin::configure_threads(threads);
  const TimingPolicy policy = policy_for(opt);
  const bool oversubscribed = threads > static_cast<int>(parent_cpus(m).size());

  out << header(opt, threads, oversubscribed, m, blas_threads, torch_threads, policy).dump() << "\n"
      << std::flush;
  if (!m.idle) std::cerr << "warning: CPUs not idle before the run: " << m.idle_note << "\n";
  if (oversubscribed) std::cerr << "warning: " << threads << " threads are oversubscribed\n";

  const std::regex case_re(opt.cases), variant_re(opt.variants);
  auto want = [&](std::string_view v) { return std::regex_search(std::string(v), variant_re); };
  auto emit = [&](Row r) {
    r.oversubscribed = oversubscribed;
    out << to_json(r).dump() << "\n" << std::flush;
    std::cerr << "  " << r.case_name << " " << r.variant << " T" << r.threads << ": "
              << (r.status == "ok" ? format_ns(r.median_ns) : r.status + " (" + r.note + ")")
              << "\n";
  };
  for (const CaseSpec& c : opt.sweep ? sweep_cases() : all_cases()) {
    if (!std::regex_search(c.name, case_re)) continue;
    const std::vector<double> reference = torch_twin::reference(c);
    ours::run_case(c, threads, policy, reference, want, emit);
    if (want("libtorch")) emit(measure_twin(c, "libtorch", threads, policy, {}));
    if (c.op == Op::einsum && want("libtorch_path")) {
      emit(measure_twin(c, "libtorch_path", threads, policy, ours::torch_einsum_path(c)));
    }
  }
  return 0;
}

void print_markdown(std::ostream& os, const std::vector<std::string>& json_lines) {
  std::vector<Json> headers;
  std::vector<Row> rows;
  for (const auto& line : json_lines) {
    Json o = parse_json_line(line);
    if (!o.is_object()) continue;
    if (o.value("type", "") == "header") headers.push_back(o);
    if (o.value("type", "") == "result") rows.push_back(row_from_json(o));
  }
  write_markdown(os, headers, rows);
  // Why cells are empty, once per distinct reason, with the variants it applies to.
  std::map<std::string, std::set<std::string>> reasons;
  for (const auto& r : rows) {
    if (r.status != "ok") reasons[r.status + ": " + r.note].insert(r.variant);
  }
  int checked = 0;
  std::vector<std::string> mismatches;
  for (const auto& r : rows) {
    if (r.check == "ok") ++checked;
    if (r.check == "mismatch") {
      mismatches.push_back(r.case_name + " " + r.variant + " T" + std::to_string(r.threads) + ": " +
                           r.note);
    }
  }
  os << "\nResult check: " << checked << " tenferro rows agree with libtorch";
  if (mismatches.empty()) {
    os << ", none differs.\n";
  } else {
    os << "; " << mismatches.size() << " DIFFER:\n";
    for (const auto& mm : mismatches) os << "- " << mm << "\n";
  }
  if (!reasons.empty()) {
    os << "\nNot measured:\n";
    for (const auto& [why, variants] : reasons) {
      os << "- " << why << " (";
      bool first = true;
      for (const auto& v : variants) {
        os << (first ? "" : ", ") << v;
        first = false;
      }
      os << ")\n";
    }
  }
}

}  // namespace bench
