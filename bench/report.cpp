#include "report.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>
#include <string_view>

#include "spec.hpp"

namespace bench {
namespace {

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

double to_double(const JsonObject& o, const char* key, double dflt) {
  auto it = o.find(key);
  if (it == o.end() || it->second == "null" || it->second.empty()) return dflt;
  return std::strtod(it->second.c_str(), nullptr);
}

std::string get(const JsonObject& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? std::string() : it->second;
}

}  // namespace

std::string json_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string to_json(const Row& r) {
  std::string s = "{\"type\":\"result\"";
  s += ",\"case\":\"" + json_escape(r.case_name) + "\"";
  s += ",\"variant\":\"" + json_escape(r.variant) + "\"";
  s += ",\"threads\":" + std::to_string(r.threads);
  s += ",\"status\":\"" + json_escape(r.status) + "\"";
  const bool ok = r.status == "ok";
  s += ",\"median_ns\":" + (ok ? num(r.median_ns) : "null");
  s += ",\"iqr_ns\":" + (ok ? num(r.iqr_ns) : "null");
  s += ",\"min_ns\":" + (ok ? num(r.min_ns) : "null");
  s += ",\"repeats\":" + std::to_string(r.repeats);
  s += ",\"batch\":" + std::to_string(r.batch);
  s += ",\"executor_entries\":" + std::to_string(r.executor_entries);
  s += ",\"check\":\"" + json_escape(r.check) + "\"";
  s += ",\"unit\":\"" + json_escape(r.unit) + "\"";
  s += ",\"note\":\"" + json_escape(r.note) + "\"}";
  return s;
}

JsonObject parse_json_line(const std::string& line) {
  JsonObject o;
  std::size_t i = 0;
  auto ws = [&] {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  };
  auto str = [&]() -> std::string {
    std::string out;
    ++i;  // opening quote
    while (i < line.size() && line[i] != '"') {
      if (line[i] == '\\' && i + 1 < line.size()) {
        char e = line[++i];
        if (e == 'n')
          out += '\n';
        else if (e == 't')
          out += '\t';
        else if (e == 'u' && i + 4 < line.size()) {
          out += static_cast<char>(std::stoi(line.substr(i + 1, 4), nullptr, 16));
          i += 4;
        } else
          out += e;
      } else {
        out += line[i];
      }
      ++i;
    }
    ++i;  // closing quote
    return out;
  };
  ws();
  if (i >= line.size() || line[i] != '{') return {};
  ++i;
  for (;;) {
    ws();
    if (i >= line.size() || line[i] == '}') break;
    if (line[i] != '"') return {};
    std::string key = str();
    ws();
    if (i >= line.size() || line[i] != ':') return {};
    ++i;
    ws();
    std::string value;
    if (i < line.size() && line[i] == '"') {
      value = str();
    } else if (i < line.size() && line[i] == '[') {
      int depth = 0;
      const std::size_t start = i;
      for (; i < line.size(); ++i) {
        if (line[i] == '[') ++depth;
        if (line[i] == ']' && --depth == 0) {
          ++i;
          break;
        }
      }
      value = line.substr(start, i - start);
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ',' && line[i] != '}') ++i;
      value = line.substr(start, i - start);
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
        value.pop_back();
    }
    o[key] = value;
    ws();
    if (i < line.size() && line[i] == ',') ++i;
  }
  return o;
}

Row row_from_json(const JsonObject& o) {
  Row r;
  r.case_name = get(o, "case");
  r.variant = get(o, "variant");
  r.threads = static_cast<int>(to_double(o, "threads", 1));
  r.status = get(o, "status");
  r.median_ns = to_double(o, "median_ns", -1);
  r.iqr_ns = to_double(o, "iqr_ns", -1);
  r.min_ns = to_double(o, "min_ns", -1);
  r.repeats = static_cast<int>(to_double(o, "repeats", 0));
  r.batch = static_cast<std::int64_t>(to_double(o, "batch", 0));
  r.executor_entries = static_cast<std::int64_t>(to_double(o, "executor_entries", -1));
  r.check = get(o, "check");
  r.unit = get(o, "unit");
  r.note = get(o, "note");
  return r;
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

void write_markdown(std::ostream& os, const std::vector<JsonObject>& headers,
                    const std::vector<Row>& rows) {
  if (!headers.empty()) {
    const auto& h = headers.front();
    os << "Run " << get(h, "date") << ", commit `" << get(h, "commit") << "`"
       << (get(h, "dirty") == "true" ? " (with uncommitted changes)" : "") << ", "
       << get(h, "cpu_model") << ", " << (get(h, "quick") == "true" ? "--quick" : "full")
       << " policy; tenferro build: " << get(h, "tenferro") << "\n\n";
  }
  for (const auto& h : headers) {
    os << "- **" << get(h, "threads") << " thread(s)**: CPUs " << get(h, "pinned_cpus") << " of "
       << get(h, "online_cpus") << " (" << get(h, "cpu_model") << "); loadavg " << get(h, "loadavg")
       << ", busy " << get(h, "busy_pct") << "% over " << get(h, "busy_sample_ms")
       << " ms before the run: "
       << (get(h, "idle") == "true" ? "idle" : "NOT idle (" + get(h, "idle_note") + ")")
       << "; libtorch " << (get(h, "libtorch").empty() ? "absent" : get(h, "libtorch")) << "\n";
  }
  os << "\n";

  // (case, threads) -> variant -> row, in case-table order.
  std::map<std::pair<std::string, int>, std::map<std::string, const Row*>> cell;
  std::set<int> threads;
  for (const auto& r : rows) {
    cell[{r.case_name, r.threads}][r.variant] = &r;
    threads.insert(r.threads);
  }
  std::vector<std::string> order;
  for (const auto& c : all_cases()) order.push_back(c.name);
  for (const auto& [key, _] : cell) {
    bool known = false;
    for (const auto& n : order) known = known || n == key.first;
    if (!known) order.push_back(key.first);
  }

  os << "| case | per | T |";
  for (auto v : kVariants) os << " " << v << " |";
  os << " scope entries |\n|---|---|---|";
  for (std::size_t i = 0; i < std::size(kVariants); ++i) os << "---:|";
  os << "---|\n";
  for (const auto& name : order) {
    for (int t : threads) {
      auto it = cell.find({name, t});
      if (it == cell.end()) continue;
      const auto& vs = it->second;
      const Row* torch = vs.count("libtorch") ? vs.at("libtorch") : nullptr;
      const bool have_torch = torch && torch->status == "ok" && torch->median_ns > 0;
      std::string unit;
      for (const auto& [_, r] : vs) unit = r->unit.empty() ? unit : r->unit;
      os << "| " << name << " | " << unit << " | " << t << " |";
      for (auto v : kVariants) {
        auto vit = vs.find(std::string(v));
        if (vit == vs.end()) {
          os << " — |";
          continue;
        }
        const Row& r = *vit->second;
        if (r.status != "ok") {
          os << " " << (r.status == "unsupported" ? "unsupp." : r.status) << " |";
          continue;
        }
        os << " " << format_ns(r.median_ns);
        if (r.median_ns > 0 && r.iqr_ns >= 0) {
          char buf[32];
          std::snprintf(buf, sizeof buf, " ±%.0f%%", 100.0 * r.iqr_ns / r.median_ns);
          os << buf;
        }
        if (v != "libtorch" && have_torch) {
          const double ratio = r.median_ns / torch->median_ns;
          char buf[32];
          std::snprintf(buf, sizeof buf, ratio < 0.1 ? " (%.2gx)" : " (%.2fx)", ratio);
          os << buf;
        }
        os << " |";
      }
      std::string entries;
      bool any = false;
      for (auto v : {"eager_scope", "trace_prepared_scope"}) {
        auto vit = vs.find(v);
        entries += entries.empty() ? "" : " / ";
        if (vit == vs.end() || vit->second->status != "ok") {
          entries += "—";
          continue;
        }
        any = true;
        const auto e = vit->second->executor_entries;
        entries += std::to_string(e) + (e == 1 ? "" : " (!)");
      }
      os << " " << (any ? entries : "—") << " |\n";
    }
  }
  os << "\nCells: median per op, ±IQR as a share of the median; (ratio) = tenferro / libtorch "
        "in the same run (below 1: faster than libtorch). \"scope entries\": executor entries of "
        "the whole eager_scope / "
        "trace_prepared_scope run, must be 1.\n";
}

}  // namespace bench
