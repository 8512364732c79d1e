// Results: one JSON object per line (a "header" line per run, a "result" line per measurement),
// and the markdown table built from them.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace bench {

/// One measurement (or one variant that could not be measured).
struct Row {
  std::string case_name;
  std::string variant;
  int threads = 1;
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
  std::string unit;            // what one op is ("call", "chain of 10", "fwd+bwd")
  std::string note;            // why unsupported / error text / remarks
};

/// A flat JSON object: string, number, bool and null values; arrays are kept as raw text.
using JsonObject = std::map<std::string, std::string>;

std::string json_escape(const std::string& s);
std::string to_json(const Row& r);
/// Parses one line written by this program (flat objects only). Empty map when not an object.
JsonObject parse_json_line(const std::string& line);
Row row_from_json(const JsonObject& o);

/// Writes the markdown table (one line per case and thread count, one column per variant, each
/// tenferro cell with its ratio to libtorch) for the result lines and headers of a run.
void write_markdown(std::ostream& os, const std::vector<JsonObject>& headers,
                    const std::vector<Row>& rows);

/// "512 ns", "3.41 us", "36.1 ms"
std::string format_ns(double ns);

}  // namespace bench
