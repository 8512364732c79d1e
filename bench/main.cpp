// tenferro-bench: our cases and their libtorch twins in one run (docs/benchmarks.md).
//
//   tenferro-bench [--threads 1,2] [--cases REGEX] [--variants REGEX] [--quick] [--json FILE]
//   tenferro-bench --sweep [--cases REGEX] [--json FILE]   (the size sweeps, 1 thread)
//   tenferro-bench --from-json FILE     (re-print the markdown table of an earlier run)
//
// One child process per thread count (Note [One process per thread count]); the parent only
// spawns, collects the JSON lines and prints the table.
//
// Note [One process per thread count]: libgomp reads OMP_NUM_THREADS and OpenBLAS reads
// OPENBLAS_NUM_THREADS when they are loaded, before main() runs, and a thread's CPU affinity is
// inherited only by threads created after it is set (OpenBLAS starts its pool at load). So the
// parent forks, pins the child to its CPUs and sets the thread variables, then execs this binary
// again: every thread of the child, including those libraries start at load, is pinned and sized
// for the run. Inside the child, at::set_num_threads and openblas_set_num_threads say the same.
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "machine.hpp"
#include "run.hpp"

namespace {

// The variants of a sweep unless --variants says otherwise: tenferro inside a scope, libtorch
// (and, for einsum, libtorch given tenferro's contraction path).
constexpr const char* kSweepVariants = "^(eager_scope|libtorch|libtorch_path)$";

// Forks, pins, sets the thread variables, re-execs (Note [One process per thread count]).
int spawn_child(const std::vector<std::string>& args, int threads, const std::string& out_file) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const auto cpus = bench::allowed_cpus();
    std::string all = "[";
    for (std::size_t i = 0; i < cpus.size(); ++i) all += (i ? "," : "") + std::to_string(cpus[i]);
    setenv("TENFERRO_BENCH_PARENT_CPUS", (all + "]").c_str(), 1);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < static_cast<int>(cpus.size()) && i < threads; ++i) CPU_SET(cpus[i], &set);
    sched_setaffinity(0, sizeof(set), &set);
    const std::string n = std::to_string(threads);
    for (const char* var : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                            "GOTO_NUM_THREADS", "BLIS_NUM_THREADS"}) {
      setenv(var, n.c_str(), 1);
    }
    std::vector<std::string> argv_s = args;
    argv_s.insert(argv_s.end(), {"--child-threads", n, "--child-out", out_file});
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    std::perror("tenferro-bench: execv");
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Runs one child per thread count, collecting their JSON lines. Returns the number that failed.
int run_children(const std::vector<std::string>& passthrough, const std::vector<int>& threads,
                 std::vector<std::string>& lines) {
  int failures = 0;
  const int allowed = static_cast<int>(bench::allowed_cpus().size());
  for (int t : threads) {
    char tmpl[] = "/tmp/tenferro-bench-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) {
      std::perror("tenferro-bench: mkstemp");
      return static_cast<int>(threads.size());
    }
    close(fd);
    std::cerr << "== " << t << " thread(s)"
              << (t > allowed ? " (oversubscribed: " + std::to_string(allowed) + " CPUs allowed)"
                              : "")
              << "\n";
    const int rc = spawn_child(passthrough, t, tmpl);
    std::ifstream in(tmpl);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::remove(tmpl);
    if (rc != 0) {
      std::cerr << "tenferro-bench: the " << t << "-thread run failed (status " << rc
                << "); its rows so far are kept\n";
      ++failures;
    }
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  bench::RunOptions opt;
  std::string json_file, from_json, child_out;
  int child_threads = 0;
  std::vector<int> thread_counts{1};
  bool self_test = false;

  CLI::App app{
      "tenferro-bench: tenferro's cases and their libtorch twins in one run "
      "(docs/benchmarks.md). The markdown table goes to stdout, progress to stderr."};
  app.add_option("--threads", thread_counts,
                 "thread counts, one child process each, run in order (default 1); counts above "
                 "the allowed CPUs are run but marked oversubscribed")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--cases", opt.cases, "only cases whose name matches (std::regex_search)");
  auto* variants = app.add_option("--variants", opt.variants,
                                  "only variants whose name matches (default all; with --sweep "
                                  "eager_scope, libtorch and libtorch_path)");
  app.add_flag("--quick", opt.quick, "1 ms samples and a 1 s cap per measurement");
  app.add_flag("--sweep", opt.sweep,
               "the size sweeps instead of the table's cases (9 samples, 0.3 s cap, outputs "
               "dropped per call); scripts/plot-sweeps draws them");
  app.add_option("--json", json_file, "also write every JSON line (headers + results) to FILE");
  app.add_option("--from-json", from_json, "re-print the markdown table of an earlier run");
  app.add_flag("--self-test", self_test,
               "check the harness's statistics, JSON and table code, then exit");
  // The child side of Note [One process per thread count]: not for users.
  app.add_option("--child-threads", child_threads)->group("");
  app.add_option("--child-out", child_out)->group("");
  CLI11_PARSE(app, argc, argv);

  if (self_test) return bench::self_test();
  if (opt.sweep && variants->count() == 0) opt.variants = kSweepVariants;
  try {  // a bad regex should fail before any run
    (void)std::regex(opt.cases);
    (void)std::regex(opt.variants);
  } catch (const std::regex_error& e) {
    std::cerr << "tenferro-bench: bad regular expression: " << e.what() << "\n";
    return 2;
  }
  if (child_threads > 0) return bench::run_child(opt, child_threads, child_out);

  std::vector<std::string> lines;
  int exit_code = 0;
  if (!from_json.empty()) {
    std::ifstream in(from_json);
    if (!in) {
      std::cerr << "tenferro-bench: cannot read " << from_json << "\n";
      return 2;
    }
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  } else {
    std::vector<std::string> passthrough{argv[0], "--cases", opt.cases, "--variants", opt.variants};
    if (opt.quick) passthrough.push_back("--quick");
    if (opt.sweep) passthrough.push_back("--sweep");
    if (const int failures = run_children(passthrough, thread_counts, lines)) {
      std::cerr << "tenferro-bench: " << failures << " run(s) failed\n";
      exit_code = 1;
    }
  }
  if (!json_file.empty()) {
    std::ofstream out(json_file);
    for (const auto& l : lines) out << l << "\n";
    if (!out) {
      std::cerr << "tenferro-bench: cannot write " << json_file << "\n";
      return 1;
    }
  }
  bench::print_markdown(std::cout, lines);
  return exit_code;
}
