// tenferro-bench: our cases and their libtorch twins in one run (docs/benchmarks.md).
//
//   tenferro-bench [--threads 1,2,4] [--cases REGEX] [--variants REGEX] [--quick] [--json FILE]
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

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "machine.hpp"
#include "run.hpp"

namespace {

void usage(std::ostream& os) {
  os << "usage: tenferro-bench [--threads 1,2,4] [--cases REGEX] [--variants REGEX] [--quick]\n"
        "                      [--json FILE]\n"
        "       tenferro-bench --from-json FILE\n"
        "  --threads   thread counts, one child process each, run in order (default 1)\n"
        "  --cases     only cases whose name matches (std::regex_search; default all)\n"
        "  --variants  only variants whose name matches (default all)\n"
        "  --quick     1 ms samples and a 1 s cap per measurement (whole run < 2 min)\n"
        "  --json      also write every JSON line (headers + results) to FILE\n"
        "  --self-test check the harness's statistics, JSON and table code, then exit\n"
        "The markdown table goes to stdout, progress to stderr.\n";
}

std::vector<int> parse_threads(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const int n = std::atoi(item.c_str());
    if (n <= 0) throw std::runtime_error("--threads: bad count '" + item + "'");
    out.push_back(n);
  }
  if (out.empty()) throw std::runtime_error("--threads: empty list");
  return out;
}

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
    argv_s.push_back("--child-threads");
    argv_s.push_back(n);
    argv_s.push_back("--child-out");
    argv_s.push_back(out_file);
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

}  // namespace

int main(int argc, char** argv) {
  bench::RunOptions opt;
  std::string json_file, from_json, child_out;
  int child_threads = 0;
  std::vector<int> thread_counts{1};
  std::vector<std::string> passthrough{argv[0]};
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--threads") {
        thread_counts = parse_threads(value());
      } else if (a == "--cases") {
        opt.cases = value();
        passthrough.insert(passthrough.end(), {a, opt.cases});
      } else if (a == "--variants") {
        opt.variants = value();
        passthrough.insert(passthrough.end(), {a, opt.variants});
      } else if (a == "--quick") {
        opt.quick = true;
        passthrough.push_back(a);
      } else if (a == "--json") {
        json_file = value();
      } else if (a == "--from-json") {
        from_json = value();
      } else if (a == "--child-threads") {
        child_threads = std::atoi(value().c_str());
      } else if (a == "--child-out") {
        child_out = value();
      } else if (a == "--self-test") {
        return bench::self_test();
      } else if (a == "-h" || a == "--help") {
        usage(std::cout);
        return 0;
      } else if (a.empty()) {
        // `make bench` passes "$(ARGS)", which is an empty argument when ARGS is unset.
      } else {
        throw std::runtime_error("unknown option '" + a + "'");
      }
    }
    std::regex(opt.cases);  // validate early: a bad regex should fail before any run
    std::regex(opt.variants);
  } catch (const std::exception& e) {
    std::cerr << "tenferro-bench: " << e.what() << "\n";
    usage(std::cerr);
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
    int failures = 0;
    for (int t : thread_counts) {
      char tmpl[] = "/tmp/tenferro-bench-XXXXXX";
      const int fd = mkstemp(tmpl);
      if (fd < 0) {
        std::perror("tenferro-bench: mkstemp");
        return 1;
      }
      close(fd);
      std::cerr << "== " << t << " thread(s)\n";
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
    if (failures) {
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
