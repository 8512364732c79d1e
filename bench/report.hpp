// Results: one JSON object per line (a "header" line per run, a "result" line per measurement),
// and the markdown table built from them.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bench {

/// One measurement (or one variant that could not be measured).
struct Row {
  std::string case_name;
  std::string variant;
  int threads = 1;
  /// More threads than the CPUs the run was allowed (the threads time-share CPUs): such a row
  /// says nothing about scaling and is kept out of goal statements.
  bool oversubscribed = false;
  std::string status = "ok";  // ok | unsupported | error | n/a
  double median_ns = -1;      // per op (see unit)
  double iqr_ns = -1;
  double min_ns = -1;
  int repeats = 0;
  std::int64_t batch = 0;  // calls per sample
  /// *_scope variants: entries from just before the scope is entered until it has ended (must be
  /// 1); other tenferro variants: entries during the timed batches; -1 for libtorch.
  std::int64_t executor_entries = -1;
  std::string check = "none";  // result vs libtorch: ok | mismatch | none
  std::string unit;            // what one op is ("call", "chain of 10", "grad", "value_and_grad")
  std::string note;            // why unsupported / error text / remarks
  std::string series;          // size sweeps: the series ("add_f32"); empty in the table
  std::int64_t size = 0;       // size sweeps: the point's size
};

using Json = nlohmann::ordered_json;  // keys in the order written: lines read well

Json to_json(const Row& r);
/// The row of a "result" line (missing fields keep their defaults; null times read as -1).
Row row_from_json(const Json& o);
/// One line of a run's output: the object, or a discarded value when the line is not JSON.
Json parse_json_line(const std::string& line);

/// Writes the markdown table (one line per case and thread count, one column per variant, each
/// tenferro cell with its ratio to libtorch) for the result lines and headers of a run.
void write_markdown(std::ostream& os, const std::vector<Json>& headers,
                    const std::vector<Row>& rows);

/// "512 ns", "3.41 us", "36.1 ms"
std::string format_ns(double ns);

}  // namespace bench
