#include "machine.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace bench {
namespace {

std::string read_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto s = line.substr(colon + 1);
        while (!s.empty() && s.front() == ' ') s.erase(s.begin());
        return s;
      }
    }
  }
  return "unknown";
}

struct CpuTimes {
  unsigned long long busy = 0, total = 0;
};

// Per-CPU jiffies from /proc/stat ("cpuN user nice system idle iowait irq softirq steal ...").
std::map<int, CpuTimes> read_proc_stat() {
  std::map<int, CpuTimes> out;
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || line[3] == ' ') continue;
    std::istringstream is(line.substr(3));
    int id = -1;
    is >> id;
    unsigned long long v[8] = {};
    for (auto& x : v) is >> x;
    CpuTimes t;
    for (auto x : v) t.total += x;
    t.busy = t.total - v[3] - v[4];  // minus idle and iowait
    out[id] = t;
  }
  return out;
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

MachineState pin_and_probe(int count, double busy_sample_ms) {
  MachineState m;
  m.cpu_model = read_cpu_model();
  m.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  m.allowed_cpus = allowed_cpus();

  std::vector<int> want(
      m.allowed_cpus.begin(),
      m.allowed_cpus.begin() + std::min<std::size_t>(m.allowed_cpus.size(), std::max(count, 1)));
  if (static_cast<int>(m.allowed_cpus.size()) < count) {
    m.pin_note = std::to_string(count) + " threads on " + std::to_string(m.allowed_cpus.size()) +
                 " allowed CPUs (oversubscribed)";
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : want) CPU_SET(c, &set);
  if (sched_setaffinity(0, sizeof(set), &set) == 0) {
    m.pinned = true;
    m.pinned_cpus = allowed_cpus();
  } else {
    m.pin_note += (m.pin_note.empty() ? "" : "; ") + std::string("sched_setaffinity failed");
    m.pinned_cpus = m.allowed_cpus;
  }

  std::ifstream la("/proc/loadavg");
  la >> m.loadavg[0] >> m.loadavg[1] >> m.loadavg[2];

  m.busy_sample_ms = busy_sample_ms;
  const auto a = read_proc_stat();
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(busy_sample_ms));
  const auto b = read_proc_stat();
  std::string busy_list;
  for (int c : m.pinned_cpus) {
    double pct = -1;
    auto ia = a.find(c), ib = b.find(c);
    if (ia != a.end() && ib != b.end() && ib->second.total > ia->second.total) {
      pct = 100.0 * static_cast<double>(ib->second.busy - ia->second.busy) /
            static_cast<double>(ib->second.total - ia->second.total);
    }
    m.busy_pct.push_back(pct);
    if (pct > 10.0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%scpu%d %.0f%% busy", busy_list.empty() ? "" : ", ", c, pct);
      busy_list += buf;
    }
  }
  // Idle: no pinned CPU above 10% busy during the sample, and the 1-minute load below half the
  // online CPUs (load counts runnable threads anywhere on the machine).
  if (!busy_list.empty()) m.idle_note = busy_list;
  if (m.loadavg[0] > 0.5 * m.online_cpus) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%sloadavg %.2f on %d CPUs", m.idle_note.empty() ? "" : "; ",
                  m.loadavg[0], m.online_cpus);
    m.idle_note += buf;
  }
  m.idle = m.idle_note.empty();
  return m;
}

int set_openblas_threads(int threads) {
  using SetFn = void (*)(int);
  using GetFn = int (*)();
  auto set = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  auto get = reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (!set || !get) return -1;
  set(threads);
  return get();
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace bench
