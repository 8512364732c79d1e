// CpuSet: a fixed 1024-bit set of logical CPU ids.
#include <sched.h>
#include <unistd.h>

#include <bit>
#include <string>

#include "tenferro/cpu.hpp"
#include "tenferro/error.hpp"

namespace tenferro {
namespace {
void check_cpu_id(int cpu, const char* op) {
  if (cpu < 0 || cpu >= CpuSet::max_cpus)
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": CPU id " + std::to_string(cpu) +
                                                " is outside [0, " + std::to_string(CpuSet::max_cpus) + ")");
}
}  // namespace

CpuSet::CpuSet(std::initializer_list<int> cpus) {
  for (int c : cpus) add(c);
}

CpuSet CpuSet::process_allowed() {
  // The main thread's mask (pid == its tid): a pinned worker asking still gets the process's set.
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CpuSet out;
  if (sched_getaffinity(getpid(), sizeof(mask), &mask) != 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return first_n(n > 0 ? static_cast<int>(n) : 1);
  }
  for (int c = 0; c < max_cpus && c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) out.add(c);
  return out;
}

CpuSet CpuSet::first_n(int n) {
  CpuSet out;
  for (int c = 0; c < n && c < max_cpus; ++c) out.add(c);
  return out;
}

void CpuSet::add(int cpu) {
  check_cpu_id(cpu, "CpuSet::add");
  words_[cpu / 64] |= std::uint64_t{1} << (cpu % 64);
}
void CpuSet::remove(int cpu) {
  check_cpu_id(cpu, "CpuSet::remove");
  words_[cpu / 64] &= ~(std::uint64_t{1} << (cpu % 64));
}
bool CpuSet::contains(int cpu) const noexcept {
  if (cpu < 0 || cpu >= max_cpus) return false;
  return (words_[cpu / 64] >> (cpu % 64)) & 1u;
}
bool CpuSet::contains(const CpuSet& other) const noexcept {
  for (int i = 0; i < kWords; ++i)
    if ((other.words_[i] & ~words_[i]) != 0) return false;
  return true;
}
bool CpuSet::overlaps(const CpuSet& other) const noexcept {
  for (int i = 0; i < kWords; ++i)
    if ((other.words_[i] & words_[i]) != 0) return true;
  return false;
}
int CpuSet::count() const noexcept {
  int n = 0;
  for (auto w : words_) n += std::popcount(w);
  return n;
}
int CpuSet::first() const noexcept {
  for (int i = 0; i < kWords; ++i)
    if (words_[i] != 0) return i * 64 + std::countr_zero(words_[i]);
  return -1;
}
CpuSet CpuSet::intersect(const CpuSet& other) const noexcept {
  CpuSet out;
  for (int i = 0; i < kWords; ++i) out.words_[i] = words_[i] & other.words_[i];
  return out;
}
std::vector<int> CpuSet::to_vector() const {
  std::vector<int> out;
  for (int c = 0; c < max_cpus; ++c)
    if (contains(c)) out.push_back(c);
  return out;
}
std::string CpuSet::to_string() const {
  std::string out;
  int c = 0;
  while (c < max_cpus) {
    if (!contains(c)) {
      ++c;
      continue;
    }
    int end = c;
    while (end + 1 < max_cpus && contains(end + 1)) ++end;
    if (!out.empty()) out += ',';
    out += std::to_string(c);
    if (end > c) out += '-' + std::to_string(end);
    c = end + 1;
  }
  return out;
}

std::string_view to_string(BackendKind kind) noexcept {
  switch (kind) {
    case BackendKind::native: return "native";
    case BackendKind::blas: return "blas";
  }
  return "unknown";
}

}  // namespace tenferro
