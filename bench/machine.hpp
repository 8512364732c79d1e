// The machine a run measures: CPU model, the CPUs the run is pinned to, and how busy they were
// just before it started (a benchmark on a loaded machine is reported, never silently trusted).
#pragma once

#include <string>
#include <vector>

namespace bench {

struct MachineState {
  std::string cpu_model;
  int online_cpus = 0;
  std::vector<int> allowed_cpus;  // before pinning
  std::vector<int> pinned_cpus;   // after pinning (what the run uses)
  bool pinned = false;
  std::string pin_note;
  double loadavg[3] = {0, 0, 0};
  std::vector<double> busy_pct;  // per pinned CPU, over the sample below
  double busy_sample_ms = 0;
  bool idle = true;
  std::string idle_note;  // why not idle
};

/// CPUs this process may run on now (sched_getaffinity).
std::vector<int> allowed_cpus();

/// Pins the calling thread (and so every thread it starts later) to the first `count` allowed
/// CPUs (all of them when fewer are allowed). Threads that already exist keep their affinity, so
/// call this first thing in a run, before any library starts a pool.
MachineState pin_and_probe(int count, double busy_sample_ms);

/// Sets the thread count of the process's OpenBLAS (found with dlsym; OpenBLAS is one library
/// shared by tenferro and libtorch). Returns the count it reports afterwards, or -1 when no
/// OpenBLAS is loaded.
int set_openblas_threads(int threads);

/// "2026-10-08T12:34:56Z"
std::string utc_now();

}  // namespace bench
