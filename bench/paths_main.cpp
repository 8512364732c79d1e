// tenferro-paths: contraction-path search on standard tensor networks (docs/einsum.md,
// "Contraction paths"). Every network of networks.hpp goes through every chosen strategy of the
// public einsum_path (integer-label form), one table row each: the path's multiply-adds, largest
// intermediate and total write, the wall time of the call and the trials it ran, and a check
// ("ok") of the strategies' documented ordering: greedy is no worse than left to right, every
// other strategy no worse than greedy (by the objective). A network with slice=K goes through
// slice_plan with memory_limit 2^K instead. Exit status 1 when some row's ok is NO (2 for a bad
// command line).
//
//   build/release/bench/tenferro-paths                          # the default table
//   build/release/bench/tenferro-paths --networks sycamore,peps8 --strategies greedy,hyper:60
//       --json paths.jsonl --svg paths.svg     (one command line)
//
// Nothing here runs a contraction: only path search on shapes.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "machine.hpp"
#include "networks.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/slicing.hpp"

namespace {

using bench::paths::Network;
using tenferro::EinsumLabels;
using tenferro::EinsumOptions;
using tenferro::EinsumPath;
using tenferro::EinsumStrategy;
using tenferro::PathObjective;
using Clock = std::chrono::steady_clock;

// The CPU model of /proc/cpuinfo (the search times depend on it).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      std::string m = line.substr(line.find(':') + 1);
      m.erase(0, m.find_first_not_of(' '));
      return m;
    }
  return "unknown CPU";
}

// A strategy of the command line: "greedy", "random_greedy", "hyper:60" (search for 60 s).
struct Choice {
  std::string label;
  EinsumStrategy strategy = EinsumStrategy::greedy;
  double budget = 0;   // EinsumOptions::time_budget
  bool timed = false;  // ":S" given: trials unlimited unless --trials
};

Choice parse_choice(const std::string& s) {
  static const std::map<std::string, EinsumStrategy> names = {
      {"sequential", EinsumStrategy::sequential},       {"greedy", EinsumStrategy::greedy},
      {"automatic", EinsumStrategy::automatic},         {"optimal", EinsumStrategy::optimal},
      {"random_greedy", EinsumStrategy::random_greedy}, {"hyper", EinsumStrategy::hyper}};
  Choice c;
  c.label = s;
  const std::size_t colon = s.find(':');
  const auto it = names.find(s.substr(0, colon));
  if (it == names.end()) throw std::invalid_argument("unknown strategy '" + s + "'");
  c.strategy = it->second;
  if (colon != std::string::npos) {
    std::size_t used = 0;
    try {
      c.budget = std::stod(s.substr(colon + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size() - colon - 1 || !(c.budget > 0) || !std::isfinite(c.budget))
      throw std::invalid_argument("strategy '" + s + "': expected NAME:SECONDS with SECONDS > 0");
    if (c.strategy != EinsumStrategy::random_greedy && c.strategy != EinsumStrategy::hyper)
      throw std::invalid_argument("strategy '" + s +
                                  "': only random_greedy and hyper take a time budget");
    c.timed = true;
  }
  return c;
}

struct Settings {
  double budget = 0;
  int trials = 0;
  int threads = 0;
  std::uint64_t seed = 0;
  PathObjective objective = PathObjective::flops;
  double combo_factor = 64;
};

EinsumOptions options_for(const Choice& c, const Settings& s) {
  EinsumOptions o;
  o.strategy = c.strategy;
  o.objective = s.objective;
  o.combo_factor = s.combo_factor;
  o.seed = s.seed;
  o.threads = s.threads;
  o.time_budget = c.timed ? c.budget : s.budget;
  // hyper's default trial count is already unlimited (trials for half the budget, then
  // refinement); random_greedy's is 128, which a timed run lifts.
  o.trials = s.trials > 0 ? s.trials
                          : (c.timed && c.strategy == EinsumStrategy::random_greedy ? INT_MAX : 0);
  return o;
}

// One measured path (or the error it threw).
struct Result {
  bool have = false;
  double flops = 0, largest = 0, write = 0, seconds = 0;
  int trials = 0;
  std::string resolved;  // the strategy the path reports (automatic resolves)
  std::string error;
};

Result run_path(const Network& net, const std::vector<tenferro::Dims>& shapes,
                const EinsumOptions& o) {
  Result r;
  const auto t0 = Clock::now();
  try {
    const EinsumPath p = tenferro::einsum_path(net.inputs, net.output, shapes, o);
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.have = true;
    r.flops = p.flops;
    r.largest = p.largest_intermediate;
    r.write = p.total_write;
    r.trials = p.trials;
    r.resolved = std::string(to_string(p.strategy));
  } catch (const std::exception& e) {
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.error = e.what();
  }
  return r;
}

// The objective's value of a path (what "worse" means in the ok column).
double objective_value(const Result& r, const Settings& s) {
  switch (s.objective) {
    case PathObjective::size:
      return r.largest;
    case PathObjective::combo:
      return r.flops + s.combo_factor * r.write;
    case PathObjective::flops:
      break;
  }
  return r.flops;
}

bool no_worse(const Result& a, const Result& b, const Settings& s) {
  return objective_value(a, s) <= objective_value(b, s) * (1 + 1e-9);
}

double log10_or_nan(double v) { return v > 0 ? std::log10(v) : std::nan(""); }
double log2_or_nan(double v) { return v > 0 ? std::log2(v) : std::nan(""); }

struct Row {
  std::string network, params, strategy;
  std::size_t tensors = 0, indices = 0;
  Result r;
  std::string ok;  // "yes", "NO", "?" (no reference), "-" (no result)
  std::string note;
  nlohmann::json extra = nlohmann::json::object();
};

std::string fmt(const char* f, double v) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void print_header() {
  std::printf("%-16s %7s %7s %-16s %11s %9s %9s %9s %7s %-4s %s\n", "network", "tensors", "indices",
              "strategy", "log10(fl/2)", "log2(max)", "log10(wr)", "seconds", "trials", "ok",
              "note");
}

void print_row(const Row& row) {
  const Result& r = row.r;
  std::string note = row.note;
  if (!r.error.empty()) note = "error: " + r.error + (note.empty() ? "" : "; " + note);
  std::printf("%-16s %7zu %7zu %-16s %11s %9s %9s %9s %7s %-4s %s\n", row.network.c_str(),
              row.tensors, row.indices, row.strategy.c_str(),
              r.have ? fmt("%.2f", log10_or_nan(r.flops / 2)).c_str() : "-",
              r.have ? fmt("%.1f", log2_or_nan(r.largest)).c_str() : "-",
              r.have ? fmt("%.2f", log10_or_nan(r.write)).c_str() : "-",
              fmt("%.3g", r.seconds).c_str(), r.have ? std::to_string(r.trials).c_str() : "-",
              row.ok.c_str(), note.c_str());
  std::fflush(stdout);
}

nlohmann::json row_json(const Row& row, const Settings& s, const std::string& date,
                        const std::string& cpu) {
  const Result& r = row.r;
  nlohmann::json j = {{"date", date},
                      {"cpu", cpu},
                      {"network", row.network},
                      {"params", row.params},
                      {"tensors", row.tensors},
                      {"indices", row.indices},
                      {"strategy", row.strategy},
                      {"resolved", r.resolved},
                      {"threads", s.threads},
                      {"seed", s.seed},
                      {"seconds", r.seconds},
                      {"ok", row.ok}};
  if (r.have) {
    j["flops"] = r.flops;
    j["log10_madds"] = log10_or_nan(r.flops / 2);
    j["largest_intermediate"] = r.largest;
    j["log2_largest"] = log2_or_nan(r.largest);
    j["total_write"] = r.write;
    j["log10_write"] = log10_or_nan(r.write);
    j["trials"] = r.trials;
  }
  if (!r.error.empty()) j["error"] = r.error;
  if (!row.note.empty()) j["note"] = row.note;
  for (auto& [k, v] : row.extra.items()) j[k] = v;
  return j;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A self-contained SVG: one panel per network, log10(multiply-adds) against search seconds (log
// axis), one colour per strategy.
std::string svg_plot(const std::vector<Row>& rows) {
  std::vector<std::string> networks, strategies;
  for (const Row& row : rows) {
    if (!row.r.have || !(row.r.flops > 0)) continue;
    if (std::find(networks.begin(), networks.end(), row.network) == networks.end())
      networks.push_back(row.network);
    if (std::find(strategies.begin(), strategies.end(), row.strategy) == strategies.end())
      strategies.push_back(row.strategy);
  }
  static const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  auto colour = [&](const std::string& s) {
    const auto k = std::find(strategies.begin(), strategies.end(), s) - strategies.begin();
    return palette[static_cast<std::size_t>(k) % 10];
  };
  const double pw = 440, ph = 300, ml = 62, mr = 16, mt = 30, mb = 44;
  const int columns = 2;
  const double legend_h = 24 + 18 * std::ceil(static_cast<double>(strategies.size()) / 4);
  const int panel_rows = static_cast<int>((networks.size() + columns - 1) / columns);
  const double width = pw * columns, height = legend_h + ph * std::max(panel_rows, 1);
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                width, height, width, height);
  s += buf;
  std::snprintf(buf, sizeof buf,
                "<text x=\"10\" y=\"16\" font-size=\"13\">tenferro-paths: log10(multiply-adds) "
                "of the path against search time, per network</text>\n");
  s += buf;
  for (std::size_t k = 0; k < strategies.size(); ++k) {
    const double x = 14 + 210 * static_cast<double>(k % 4),
                 y = 34 + 18 * static_cast<double>(k / 4);
    std::snprintf(buf, sizeof buf,
                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" fill-opacity=\"0.8\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                  x, y - 4, colour(strategies[k]), x + 10, y, xml_escape(strategies[k]).c_str());
    s += buf;
  }
  for (std::size_t n = 0; n < networks.size(); ++n) {
    const double ox = pw * static_cast<double>(n % columns);
    const double oy = legend_h + ph * static_cast<double>(n / columns);
    // The y range covers the searched paths; left to right joins it unless it is more than
    // three decades above them (then it sits on the top edge as a triangle with its value).
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    double seq_y = -INFINITY;
    std::string tensors;
    for (const Row& row : rows) {
      if (row.network != networks[n] || !row.r.have || !(row.r.flops > 0)) continue;
      const double x = std::log10(std::max(row.r.seconds, 1e-6));
      const double y = std::log10(row.r.flops / 2);
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      if (row.strategy == "sequential") {
        seq_y = y;
      } else {
        ymin = std::min(ymin, y);
        ymax = std::max(ymax, y);
      }
      tensors =
          std::to_string(row.tensors) + " tensors, " + std::to_string(row.indices) + " indices";
    }
    if (!std::isfinite(ymin)) ymin = ymax = seq_y;  // left to right alone
    if (std::isfinite(seq_y) && seq_y <= ymax + 3) {
      ymin = std::min(ymin, seq_y);
      ymax = std::max(ymax, seq_y);
    }
    xmin = std::floor(xmin);
    xmax = std::max(std::ceil(xmax), xmin + 1);
    ymin = std::floor(ymin);
    ymax = std::max(std::ceil(ymax), ymin + 1);
    const double x0 = ox + ml, x1 = ox + pw - mr, y0 = oy + ph - mb, y1 = oy + mt;
    auto X = [&](double v) { return x0 + (v - xmin) / (xmax - xmin) * (x1 - x0); };
    auto Y = [&](double v) { return y0 - (v - ymin) / (ymax - ymin) * (y0 - y1); };
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\">%s</text>"
                  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\"> (%s)</text>\n"
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                  "stroke=\"#333\"/>\n",
                  x0, oy + 18, xml_escape(networks[n]).c_str(),
                  x0 + 7.5 * static_cast<double>(networks[n].size()), oy + 18, tensors.c_str(), x0,
                  y1, x1 - x0, y0 - y1);
    s += buf;
    if (!std::isfinite(xmin + xmax + ymin + ymax)) continue;  // nothing to draw
    const int ystep = std::max(1, static_cast<int>(std::ceil((ymax - ymin) / 8)));
    for (double v = ymin; v <= ymax + 1e-9; v += ystep) {
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
                    x0, Y(v), x1, Y(v), x0 - 4, Y(v) + 4, v);
      s += buf;
    }
    for (double v = xmin; v <= xmax + 1e-9; v += 1) {
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%.0f</text>\n",
                    X(v), y0, X(v), y1, X(v), y0 + 14, v);
      s += buf;
    }
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">search seconds</text>"
                  "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">"
                  "log10(multiply-adds)</text>\n",
                  (x0 + x1) / 2, y0 + 30, ox + 16, (y0 + y1) / 2);
    s += buf;
    for (const Row& row : rows) {
      if (row.network != networks[n] || !row.r.have || !(row.r.flops > 0)) continue;
      const double x = std::log10(std::max(row.r.seconds, 1e-6));
      const double y = std::log10(row.r.flops / 2);
      if (y > ymax + 1e-9) {  // off the top: a triangle on the edge, with the value
        std::snprintf(buf, sizeof buf,
                      "<path d=\"M%.1f %.1f l-5 9 h10 z\" fill=\"%s\" stroke=\"#000\" "
                      "stroke-width=\"0.5\"><title>%s %s: 10^%.2f multiply-adds, 2^%.1f "
                      "largest, %.3g s</title></path><text x=\"%.1f\" y=\"%.1f\" "
                      "fill=\"#555\">10^%.1f</text>\n",
                      X(x), y1, colour(row.strategy), xml_escape(row.network).c_str(),
                      xml_escape(row.strategy).c_str(), y, log2_or_nan(row.r.largest),
                      row.r.seconds, X(x) + 7, y1 + 10, y);
        s += buf;
        continue;
      }
      std::snprintf(buf, sizeof buf,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" fill-opacity=\"0.7\" "
                    "stroke=\"#000\" stroke-width=\"0.5\"><title>%s %s: 10^%.2f multiply-adds, "
                    "2^%.1f largest, %.3g s</title></circle>\n",
                    X(x), Y(y), colour(row.strategy), xml_escape(row.network).c_str(),
                    xml_escape(row.strategy).c_str(), y, log2_or_nan(row.r.largest), row.r.seconds);
      s += buf;
    }
  }
  s += "</svg>\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tenferro-paths: contraction-path strategies on standard tensor networks "
      "(docs/einsum.md, \"Contraction paths\")"};
  std::vector<std::string> network_specs = bench::paths::default_networks();
  std::vector<std::string> strategy_specs = {"sequential", "greedy",        "automatic",
                                             "optimal",    "random_greedy", "random_greedy:1",
                                             "hyper:10"};
  std::string slice_strategy = "hyper", objective = "flops", json_path, svg_path;
  Settings s;
  bool list = false;
  app.footer(bench::paths::network_help() +
             "Strategies: sequential, greedy, automatic, optimal (networks of at most 16 tensors "
             "only), random_greedy, hyper; NAME:S (random_greedy and hyper) searches for S "
             "seconds with unlimited trials (hyper:60).");
  app.add_option("--networks", network_specs, "networks, comma-separated (see below)")
      ->delimiter(',');
  app.add_option("--strategies", strategy_specs, "strategies, comma-separated (see below)")
      ->delimiter(',');
  app.add_option("--budget", s.budget,
                 "time_budget (s) of random_greedy / hyper given without :S (0: the library's "
                 "defaults, 1 s and 10 s)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--trials", s.trials, "trials of random_greedy / hyper (0: default)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", s.threads, "search threads (0: the backend's thread count)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", s.seed, "seed of the random networks and of the searches");
  app.add_option("--objective", objective, "what the searches minimise")
      ->check(CLI::IsMember({"flops", "size", "combo"}));
  app.add_option("--combo-factor", s.combo_factor, "write weight of the combo objective")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--slice-strategy", slice_strategy,
                 "path strategy of slice_plan's search for networks with slice=K");
  app.add_option("--json", json_path, "also write one JSON line per row to FILE");
  app.add_option("--svg", svg_path, "also write an SVG plot (flops against search time) to FILE");
  app.add_flag("--list", list, "print the networks' sizes and exit (no search)");
  CLI11_PARSE(app, argc, argv);
  s.objective = objective == "size"    ? PathObjective::size
                : objective == "combo" ? PathObjective::combo
                                       : PathObjective::flops;

  std::vector<Choice> choices;
  Choice slice_choice;
  try {
    for (const std::string& c : strategy_specs) choices.push_back(parse_choice(c));
    slice_choice = parse_choice(slice_strategy);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tenferro-paths: %s\n", e.what());
    return 2;
  }
  std::ofstream json;
  if (!json_path.empty()) {
    json.open(json_path);
    if (!json) {
      std::fprintf(stderr, "tenferro-paths: cannot write %s\n", json_path.c_str());
      return 2;
    }
  }
  const std::string date = bench::utc_now();
  const std::string cpu = cpu_model();

  if (list) {
    std::printf("%-16s %7s %7s %9s  %s\n", "network", "tensors", "indices", "max rank",
                "parameters");
    for (const std::string& spec : network_specs) {
      try {
        const Network net = bench::paths::make_network(spec, s.seed);
        std::size_t rank = 0;
        for (const auto& t : net.inputs) rank = std::max(rank, t.size());
        std::printf("%-16s %7zu %7zu %9zu  %s\n", spec.c_str(), net.tensors(), net.indices(), rank,
                    net.params.c_str());
      } catch (const std::exception& e) {
        std::printf("%-16s error: %s\n", spec.c_str(), e.what());
      }
    }
    return 0;
  }

  std::printf("# tenferro-paths %s, %s; threads %d (0: backend's), seed %llu, objective %s\n",
              date.c_str(), cpu.c_str(), s.threads, static_cast<unsigned long long>(s.seed),
              objective.c_str());
  std::printf(
      "# log10(fl/2): multiply-adds of the path (the cost model counts 2 flops per multiply-add, "
      "so this is the 'cost' of cotengra / opt_einsum); log2(max): largest intermediate "
      "(elements); log10(wr): total write (elements); seconds: wall time of the call\n"
      "# ok: greedy no worse than left to right (rows sequential, greedy), every other strategy "
      "no worse than greedy, by the objective\n");
  print_header();
  std::vector<Row> rows;
  bool all_ok = true;
  auto emit = [&](Row row) {
    print_row(row);
    if (json) json << row_json(row, s, date, cpu).dump() << "\n" << std::flush;
    if (row.ok == "NO") all_ok = false;
    rows.push_back(std::move(row));
  };
  for (const std::string& spec : network_specs) {
    Network net;
    try {
      net = bench::paths::make_network(spec, s.seed);
    } catch (const std::exception& e) {
      Row row;
      row.network = spec;
      row.strategy = "-";
      row.r.error = e.what();
      row.ok = "-";
      emit(std::move(row));
      continue;
    }
    const std::vector<tenferro::Dims> shapes = net.shapes();
    std::printf("# %s: %s; %zu tensors, %zu indices\n", spec.c_str(), net.params.c_str(),
                net.tensors(), net.indices());
    Row base;
    base.network = spec;
    base.params = net.params;
    base.tensors = net.tensors();
    base.indices = net.indices();

    if (net.slice_limit > 0) {
      Row row = base;
      row.strategy = "sliced/" + slice_choice.label;
      tenferro::SliceOptions so;
      so.memory_limit = net.slice_limit;
      so.einsum = options_for(slice_choice, s);
      const auto t0 = Clock::now();
      try {
        const tenferro::SlicePlan plan = tenferro::slice_plan(net.inputs, net.output, shapes, so);
        row.r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        row.r.have = true;
        row.r.flops = plan.total_flops;
        row.r.largest = plan.peak;
        row.r.write = plan.path.total_write * static_cast<double>(plan.slices);
        row.r.trials = plan.path.trials;
        row.r.resolved = std::string(to_string(plan.path.strategy));
        row.ok = plan.peak <= net.slice_limit ? "yes" : "NO";
        row.note = "slices 2^" + fmt("%.1f", std::log2(static_cast<double>(plan.slices))) +
                   ", overhead " + fmt("%.3g", plan.overhead()) + ", unsliced 10^" +
                   fmt("%.2f", log10_or_nan(plan.unsliced_flops / 2)) + " madds, 2^" +
                   fmt("%.1f", log2_or_nan(plan.unsliced_peak)) + "; ok: peak <= limit";
        row.extra = {{"slices", plan.slices},
                     {"overhead", plan.overhead()},
                     {"memory_limit", net.slice_limit},
                     {"unsliced_flops", plan.unsliced_flops},
                     {"unsliced_peak", plan.unsliced_peak}};
      } catch (const std::exception& e) {
        row.r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        row.r.error = e.what();
        row.ok = "-";
      }
      emit(std::move(row));
      continue;
    }

    // The references of the ok column: left to right and greedy, run once whether or not they
    // are rows of the table.
    Choice seq_choice, greedy_choice;
    seq_choice.label = "sequential";
    seq_choice.strategy = EinsumStrategy::sequential;
    greedy_choice.label = "greedy";
    greedy_choice.strategy = EinsumStrategy::greedy;
    const Result seq = run_path(net, shapes, options_for(seq_choice, s));
    if (seq.have)
      std::printf("#   left to right: log10(fl/2) %.2f, log2(max) %.1f, log10(wr) %.2f\n",
                  log10_or_nan(seq.flops / 2), log2_or_nan(seq.largest), log10_or_nan(seq.write));
    const Result greedy = run_path(net, shapes, options_for(greedy_choice, s));
    for (const Choice& c : choices) {
      if (c.strategy == EinsumStrategy::optimal && net.tensors() > 16) continue;
      Row row = base;
      row.strategy = c.label;
      if (c.label == "sequential")
        row.r = seq;
      else if (c.label == "greedy")
        row.r = greedy;
      else
        row.r = run_path(net, shapes, options_for(c, s));
      if (!row.r.have)
        row.ok = "-";
      else if (c.strategy == EinsumStrategy::sequential || c.strategy == EinsumStrategy::greedy)
        row.ok = !(seq.have && greedy.have) ? "?" : no_worse(greedy, seq, s) ? "yes" : "NO";
      else
        row.ok = !greedy.have ? "?" : no_worse(row.r, greedy, s) ? "yes" : "NO";
      if (c.strategy == EinsumStrategy::automatic && row.r.have)
        row.note = "resolved to " + row.r.resolved;
      emit(std::move(row));
    }
  }
  if (!svg_path.empty()) {
    std::ofstream svg(svg_path);
    svg << svg_plot(rows);
    if (!svg) {
      std::fprintf(stderr, "tenferro-paths: cannot write %s\n", svg_path.c_str());
      return 2;
    }
  }
  if (!all_ok) {
    std::printf("# some row broke the documented ordering (ok = NO)\n");
    return 1;
  }
  return 0;
}
