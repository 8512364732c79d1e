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

template <class T>
std::string json_array(const std::vector<T>& xs, int precision = 1) {
  std::string s = "[";
  for (std::size_t i = 0; i < xs.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", std::is_integral_v<T> ? 0 : precision,
                  static_cast<double>(xs[i]));
    s += (i ? "," : "") + std::string(buf);
  }
  return s + "]";
}

std::string str(const char* key, const std::string& v) {
  return ",\"" + std::string(key) + "\":\"" + json_escape(v) + "\"";
}
std::string raw(const char* key, const std::string& v) {
  return ",\"" + std::string(key) + "\":" + v;
}

TimingPolicy policy_for(const RunOptions& opt) {
  TimingPolicy p;
  if (opt.quick) {
    p.min_sample_ns = 1e6;
    p.max_case_ns = 1e9;
  } else {
    p.min_sample_ns = 2e6;
    p.max_case_ns = 10e9;
  }
  return p;
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

  const std::string src = TENFERRO_SOURCE_DIR;
  const std::string commit =
      shell_line("git -C '" + src + "' rev-parse --short=12 HEAD 2>/dev/null");
  const bool dirty =
      !shell_line("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null")
           .empty();
  auto env = [](const char* k) {
    const char* v = std::getenv(k);
    return std::string(v ? v : "");
  };

  std::string h = "{\"type\":\"header\"";
  h += str("date", utc_now());
  h += str("commit", commit.empty() ? "unknown" : commit) + raw("dirty", dirty ? "true" : "false");
  h += raw("threads", std::to_string(threads));
  h += str("cpu_model", m.cpu_model) + raw("online_cpus", std::to_string(m.online_cpus));
  // The parent's CPU set (this process was pinned before exec, see main.cpp).
  const std::string parent_cpus = env("TENFERRO_BENCH_PARENT_CPUS");
  h += raw("allowed_cpus", parent_cpus.empty() ? json_array(m.allowed_cpus) : parent_cpus) +
       raw("pinned_cpus", json_array(m.pinned_cpus));
  h += raw("pinned", m.pinned ? "true" : "false") + str("pin_note", m.pin_note);
  h += raw("loadavg", json_array(std::vector<double>(m.loadavg, m.loadavg + 3), 2));
  h += raw("busy_pct", json_array(m.busy_pct)) +
       raw("busy_sample_ms", std::to_string(static_cast<int>(m.busy_sample_ms)));
  h += raw("idle", m.idle ? "true" : "false") + str("idle_note", m.idle_note);
  h += str("libtorch", torch_twin::version()) + str("libtorch_threads", torch_threads);
  h += raw("openblas_threads", std::to_string(blas_threads));
  h += str("env", "OMP_NUM_THREADS=" + env("OMP_NUM_THREADS") +
                      " OPENBLAS_NUM_THREADS=" + env("OPENBLAS_NUM_THREADS") +
                      " OPENBLAS_CORETYPE=" + env("OPENBLAS_CORETYPE"));
  h += str("tenferro", ours::describe_build());
  h += raw("quick", opt.quick ? "true" : "false");
  char pol[160];
  std::snprintf(pol, sizeof pol,
                "{\"min_sample_ns\":%.0f,\"min_batch_small\":%lld,\"small_op_ns\":%.0f,"
                "\"samples\":%d,\"max_case_ns\":%.0f}",
                policy.min_sample_ns, static_cast<long long>(policy.min_batch_small),
                policy.small_op_ns, policy.samples, policy.max_case_ns);
  h += raw("policy", pol) + "}";
  out << h << "\n" << std::flush;
  if (!m.idle) std::cerr << "warning: CPUs not idle before the run: " << m.idle_note << "\n";

  const std::regex case_re(opt.cases), variant_re(opt.variants);
  auto want = [&](std::string_view v) { return std::regex_search(std::string(v), variant_re); };
  auto emit = [&](const Row& r) {
    out << to_json(r) << "\n" << std::flush;
    std::cerr << "  " << r.case_name << " " << r.variant << " T" << r.threads << ": "
              << (r.status == "ok" ? format_ns(r.median_ns) : r.status + " (" + r.note + ")")
              << "\n";
  };
  for (const CaseSpec& c : all_cases()) {
    if (!std::regex_search(c.name, case_re)) continue;
    const std::vector<double> reference = torch_twin::reference(c);
    ours::run_case(c, threads, policy, reference, want, emit);
    if (!want("libtorch")) continue;
    Row r;
    r.case_name = c.name;
    r.variant = "libtorch";
    r.threads = threads;
    r.unit = c.unit;
    std::string why;
    auto twin = torch_twin::make(c, &why);
    if (!twin) {
      r.status = torch_twin::version().empty() ? "n/a" : "error";
      r.note = why;
      emit(r);
      continue;
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
    emit(r);
  }
  return 0;
}

void print_markdown(std::ostream& os, const std::vector<std::string>& json_lines) {
  std::vector<JsonObject> headers;
  std::vector<Row> rows;
  for (const auto& line : json_lines) {
    JsonObject o = parse_json_line(line);
    if (o.empty()) continue;
    if (o["type"] == "header") headers.push_back(o);
    if (o["type"] == "result") rows.push_back(row_from_json(o));
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
    for (const auto& m : mismatches) os << "- " << m << "\n";
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
