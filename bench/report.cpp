#include "report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <string_view>

#include "spec.hpp"

namespace bench {
namespace {

// A header field as text: strings as they are, other values as JSON ("[0,1]", "true").
std::string text(const Json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// A time, or null when there is none (a row that was not measured, a non-finite value).
Json time_or_null(const Row& r, double ns) {
  return r.status == "ok" && std::isfinite(ns) ? Json(ns) : Json(nullptr);
}

double time_of(const Json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : -1;
}

std::string ratio_text(double ours, double theirs) {
  const double ratio = ours / theirs;
  char buf[32];
  std::snprintf(buf, sizeof buf, ratio < 0.1 ? " (%.2gx)" : " (%.2fx)", ratio);
  return buf;
}

std::string cell(const Row& r, const Row* torch) {
  if (r.status != "ok") return r.status == "unsupported" ? "unsupp." : r.status;
  std::string s = format_ns(r.median_ns);
  if (r.median_ns > 0 && r.iqr_ns >= 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " ±%.0f%%", 100.0 * r.iqr_ns / r.median_ns);
    s += buf;
  }
  const bool have_torch = torch && torch->status == "ok" && torch->median_ns > 0;
  if (!r.variant.starts_with("libtorch") && have_torch)
    s += ratio_text(r.median_ns, torch->median_ns);
  return s;
}

// "1 / 1": executor entries of the two *_scope variants ("(!)" unless 1).
std::string scope_entries(const std::map<std::string, const Row*>& vs) {
  std::string entries;
  bool any = false;
  for (const char* v : {"eager_scope", "trace_prepared_scope"}) {
    const auto it = vs.find(v);
    entries += entries.empty() ? "" : " / ";
    if (it == vs.end() || it->second->status != "ok") {
      entries += "—";
      continue;
    }
    any = true;
    const auto e = it->second->executor_entries;
    entries += std::to_string(e) + (e == 1 ? "" : " (!)");
  }
  return any ? entries : "—";
}

}  // namespace

Json to_json(const Row& r) {
  Json o = {{"type", "result"},
            {"case", r.case_name},
            {"variant", r.variant},
            {"threads", r.threads},
            {"oversubscribed", r.oversubscribed},
            {"status", r.status},
            {"median_ns", time_or_null(r, r.median_ns)},
            {"iqr_ns", time_or_null(r, r.iqr_ns)},
            {"min_ns", time_or_null(r, r.min_ns)},
            {"repeats", r.repeats},
            {"batch", r.batch},
            {"executor_entries", r.executor_entries},
            {"check", r.check},
            {"unit", r.unit},
            {"note", r.note}};
  if (!r.series.empty()) {
    o["series"] = r.series;
    o["size"] = r.size;
  }
  return o;
}

Row row_from_json(const Json& o) {
  Row r;
  r.case_name = o.value("case", "");
  r.variant = o.value("variant", "");
  r.threads = o.value("threads", 1);
  r.oversubscribed = o.value("oversubscribed", false);
  r.status = o.value("status", "");
  r.median_ns = time_of(o, "median_ns");
  r.iqr_ns = time_of(o, "iqr_ns");
  r.min_ns = time_of(o, "min_ns");
  r.repeats = o.value("repeats", 0);
  r.batch = o.value("batch", std::int64_t{0});
  r.executor_entries = o.value("executor_entries", std::int64_t{-1});
  r.check = o.value("check", "none");
  r.unit = o.value("unit", "");
  r.note = o.value("note", "");
  r.series = o.value("series", "");
  r.size = o.value("size", std::int64_t{0});
  return r;
}

Json parse_json_line(const std::string& line) {
  return Json::parse(line, nullptr, /*allow_exceptions=*/false);
}

std::string format_ns(double ns) {
  char buf[32];
  if (ns < 0) return "?";
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.3g µs", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  return buf;
}

void write_markdown(std::ostream& os, const std::vector<Json>& headers,
                    const std::vector<Row>& rows) {
  if (!headers.empty()) {
    const auto& h = headers.front();
    os << "Run " << text(h, "date") << ", commit `" << text(h, "commit") << "`"
       << (text(h, "dirty") == "true" ? " (with uncommitted changes)" : "") << ", "
       << text(h, "cpu_model") << ", " << text(h, "policy_name") << " policy\n\n";
  }
  for (const auto& h : headers) {
    os << "- **" << text(h, "threads") << " thread(s)**"
       << (text(h, "oversubscribed") == "true" ? " (oversubscribed)" : "") << ": CPUs "
       << text(h, "pinned_cpus") << " of " << text(h, "online_cpus") << " (" << text(h, "cpu_model")
       << "); loadavg " << text(h, "loadavg") << ", busy " << text(h, "busy_pct") << "% over "
       << text(h, "busy_sample_ms") << " ms before the run: "
       << (text(h, "idle") == "true" ? "idle" : "NOT idle (" + text(h, "idle_note") + ")")
       << "; libtorch " << (text(h, "libtorch").empty() ? "absent" : text(h, "libtorch")) << "\n";
  }
  os << "\n";

  // (case, threads) -> variant -> row, in case-table order.
  std::map<std::pair<std::string, int>, std::map<std::string, const Row*>> by_case;
  std::map<int, bool> threads;  // -> oversubscribed
  for (const auto& r : rows) {
    by_case[{r.case_name, r.threads}][r.variant] = &r;
    threads[r.threads] = threads[r.threads] || r.oversubscribed;
  }
  std::vector<std::string> order;
  std::set<std::string> known;
  for (const auto* list : {&all_cases(), &sweep_cases()}) {
    for (const auto& c : *list) {
      if (known.insert(c.name).second) order.push_back(c.name);
    }
  }
  for (const auto& [key, _] : by_case) {
    if (known.insert(key.first).second) order.push_back(key.first);
  }

  // The libtorch column holds the twin a line compares with; libtorch_path gets its own line.
  std::vector<std::string_view> columns;
  for (auto v : kVariants) {
    if (v != "libtorch_path") columns.push_back(v);
  }
  os << "| case | per | T |";
  for (auto v : columns) os << " " << v << " |";
  os << " scope entries |\n|---|---|---|";
  for (std::size_t i = 0; i < columns.size(); ++i) os << "---:|";
  os << "---|\n";
  for (const auto& name : order) {
    for (const auto& [t, oversubscribed] : threads) {
      const auto it = by_case.find({name, t});
      if (it == by_case.end()) continue;
      const auto& vs = it->second;
      auto find = [&](std::string_view v) -> const Row* {
        const auto vit = vs.find(std::string(v));
        return vit == vs.end() ? nullptr : vit->second;
      };
      std::string unit;
      for (const auto& [_, r] : vs) unit = r->unit.empty() ? unit : r->unit;
      // Einsum cases: one line against libtorch's default order, one against our path.
      std::vector<std::pair<std::string, const Row*>> lines{{"", find("libtorch")}};
      if (const Row* path = find("libtorch_path")) {
        lines = {{" (libtorch: its default order)", find("libtorch")},
                 {" (libtorch: our path)", path}};
      }
      for (const auto& [label, torch] : lines) {
        os << "| " << name << " | " << unit << label << " | " << t
           << (oversubscribed ? " (oversubscribed)" : "") << " |";
        for (auto v : columns) {
          const Row* r = v == "libtorch" ? torch : find(v);
          os << " " << (r ? cell(*r, torch) : "—") << " |";
        }
        os << " " << scope_entries(vs) << " |\n";
      }
    }
  }
  os << "\nCells: median per op, ±IQR as a share of the median; (ratio) = tenferro / libtorch "
        "in the same run (below 1: faster than libtorch). \"per\": what one op is; \"grad\" rows "
        "return the gradients only (a traced grad program drops the forward values no gradient "
        "needs; libtorch always runs the forward), \"value_and_grad\" rows return the value too "
        "(forward and backward on both sides). Einsum cases have two lines: libtorch's default "
        "contraction order, and libtorch given tenferro's path (torch::einsum's path argument). "
        "\"(oversubscribed)\": more threads than the CPUs the run was allowed; such rows say "
        "nothing about scaling. \"scope entries\": executor entries of the whole eager_scope / "
        "trace_prepared_scope run, must be 1.\n";
}

}  // namespace bench
