// Helpers shared by runtime, concurrency and contract tests.
#pragma once

#include <gtest/gtest.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "tenferro/cpu.hpp"

namespace test_support {

/// Runs `fn` as a oneTBB task that is executed by ANOTHER thread than the caller (the caller
/// spins instead of waiting, so it cannot pick the task up itself), then waits for it.
/// Returns false if no other thread picked the task up within `patience`; then the task is
/// cancelled (fn never runs) -- in a one-slot arena no other thread ever can.
inline bool run_on_other_tbb_thread(const std::function<void()>& fn,
                                    std::chrono::seconds patience = std::chrono::seconds(10)) {
  std::atomic<bool> started{false};
  std::atomic<bool> give_up{false};
  const auto caller = std::this_thread::get_id();
  bool ran_elsewhere = false;
  tbb::task_group tg;
  tg.run([&] {
    if (give_up.load()) return;
    ran_elsewhere = std::this_thread::get_id() != caller;
    started.store(true);
    if (ran_elsewhere) fn();
  });
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (!started.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  give_up.store(true);
  tg.wait();
  return ran_elsewhere;
}

/// The CPU sets used for two disjoint backends on this machine (same CPU twice on 1 CPU).
inline std::pair<tenferro::CpuSet, tenferro::CpuSet> two_cpu_sets() {
  const auto v = tenferro::CpuSet::process_allowed().to_vector();
  tenferro::CpuSet a{v.front()};
  tenferro::CpuSet b{v.size() > 1 ? v[1] : v.front()};
  return {a, b};
}

}  // namespace test_support
