// One run (one thread count, one process) and the table of a set of runs.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace bench {

struct RunOptions {
  std::string cases = ".*";
  std::string variants = ".*";
  bool quick = false;
  bool sweep = false;  // the size sweeps (sweep_cases) instead of the table's cases
};

/// The child side of Note [One process per thread count] (main.cpp): probes and pins, writes the
/// header line, then measures every selected case and variant, appending one JSON line per row to
/// `out_file` (flushed per row, so a crash keeps what was measured). Returns the exit status.
int run_child(const RunOptions& opt, int threads, const std::string& out_file);

/// Checks of the harness itself (selftest.cpp); returns the exit status.
int self_test();

/// The markdown report of the JSON lines of one or more runs.
void print_markdown(std::ostream& os, const std::vector<std::string>& json_lines);

}  // namespace bench
