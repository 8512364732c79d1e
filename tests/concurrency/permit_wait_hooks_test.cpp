// set_permit_wait_hooks (cpu.hpp): the hooks a language binding installs so that no thread sleeps
// on a resource permit while holding its interpreter lock (the Python module releases the GIL in
// them; Note [GIL policy]). They run on the waiting thread, exactly once each around every
// blocking wait -- granted or timed out -- and never when a permit is granted at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

std::atomic<int> g_before{0}, g_after{0};
std::atomic<bool> g_same_thread{true};
thread_local int t_marker = 0;  // its address identifies the thread that made a token

void* before_wait() {
  g_before.fetch_add(1);
  return &t_marker;
}
void after_wait(void* token) {
  if (token != &t_marker) g_same_thread = false;
  g_after.fetch_add(1);
}

/// Installs the counting hooks for one test and removes them again (they are process-wide).
struct CountingHooks {
  CountingHooks() {
    g_before = 0;
    g_after = 0;
    g_same_thread = true;
    set_permit_wait_hooks({&before_wait, &after_wait});
  }
  ~CountingHooks() { set_permit_wait_hooks({}); }
};

Tensor small_op() { return ones({4}) + ones({4}); }

/// Runs `waiter` on a second thread while `b`'s scope is held on a first one; the scope is left
/// once `leave()` is true or after `hold` at most.
template <class F, class L>
void while_scope_held(const CpuBackend& b, F waiter, L leave, std::chrono::milliseconds hold) {
  std::atomic<bool> entered{false};
  std::thread holder([&] {
    b.with_execution_scope([&] {
      entered = true;
      const auto until = std::chrono::steady_clock::now() + hold;
      while (!leave() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    });
  });
  while (!entered) std::this_thread::yield();
  std::thread w(waiter);
  w.join();
  holder.join();
}

bool waiter_started_waiting() { return g_before.load() > 0; }

}  // namespace

TEST(PermitWaitHooks, NotCalledWhenThePermitIsFree) {
  CountingHooks hooks;
  CpuBackend b(CpuBackendOptions{.threads = 1});
  BackendGuard use(b);
  for (int i = 0; i < 10; ++i) small_op();
  b.with_execution_scope([] { small_op(); });
  EXPECT_EQ(g_before.load(), 0);
  EXPECT_EQ(g_after.load(), 0);
}

TEST(PermitWaitHooks, CalledOnceAroundABlockingWaitOnTheWaitingThread) {
  for (int threads : {1, 4}) {
    SCOPED_TRACE(threads);
    CountingHooks hooks;
    CpuBackend b(CpuBackendOptions{.threads = threads});
    Tensor result;
    while_scope_held(
        b,
        [&] {
          BackendGuard use(b);
          result = small_op();  // waits for the scope's permit
        },
        &waiter_started_waiting, std::chrono::seconds(30));
    EXPECT_EQ(g_before.load(), 1);
    EXPECT_EQ(g_after.load(), 1);
    EXPECT_TRUE(g_same_thread.load());
    EXPECT_EQ(contiguous(result).data<double>()[0], 2.0);
  }
}

TEST(PermitWaitHooks, CalledAroundATimedOutWaitAndRemovable) {
  CountingHooks hooks;
  CpuBackend b(CpuBackendOptions{.threads = 1, .admission_timeout = std::chrono::milliseconds(20)});
  std::atomic<bool> timed_out{false}, done{false};
  while_scope_held(
      b,
      [&] {
        BackendGuard use(b);
        try {
          small_op();
        } catch (const Error& e) {
          timed_out = e.kind() == ErrorKind::RuntimeState;
        }
        done = true;
      },
      [&] { return done.load(); }, std::chrono::seconds(30));  // held until the waiter gave up
  EXPECT_TRUE(timed_out);
  EXPECT_EQ(g_before.load(), 1);
  EXPECT_EQ(g_after.load(), 1);
  EXPECT_TRUE(g_same_thread.load());

  set_permit_wait_hooks({});  // removed: a blocking wait calls nothing
  g_before = 0;
  g_after = 0;
  done = false;
  while_scope_held(
      b,
      [&] {
        BackendGuard use(b);
        EXPECT_THROW(small_op(), Error);  // timed out again
        done = true;
      },
      [&] { return done.load(); }, std::chrono::seconds(30));
  EXPECT_EQ(g_before.load(), 0);
  EXPECT_EQ(g_after.load(), 0);
}
