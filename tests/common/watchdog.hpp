// A deadlock detector for tests of "never hangs" promises: if the scope it guards has not ended
// within the limit, the process prints the scenario's name and exits with a failure code (a hung
// thread cannot be cancelled, and waiting for CTest's timeout would hide which scenario hung).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace tenferro::testing {

class Watchdog {
 public:
  explicit Watchdog(std::string scenario, std::chrono::seconds limit = std::chrono::seconds(60))
      : scenario_(std::move(scenario)), thread_([this, limit] {
          std::unique_lock lock(mu_);
          if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "\nWATCHDOG: '%s' did not finish within %lld s (deadlock)\n",
                         scenario_.c_str(), static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::_Exit(3);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::string scenario_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace tenferro::testing
