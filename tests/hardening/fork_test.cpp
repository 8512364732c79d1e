// Issue 12, scenario 5: fork() while another thread is inside a scope. The child's first op used to
// block forever on the permit it inherited from a thread that does not exist there. Now backends
// created before the fork refuse work in the child with RuntimeState ("used after fork"), and new
// backends -- and default_backend(), recreated -- work (Note [Fork], src/cpu/fork.hpp).
// Not in the ThreadSanitizer run: TSan does not support fork() in a multi-threaded process.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "common/watchdog.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

// Child-side checks: gtest is not usable after fork, so each failure prints and sets a bit.
int g_failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fork child: FAILED: %s\n", what);
    ++g_failures;
  }
}

bool refuses_after_fork(const CpuBackend& b) {
  try {
    BackendGuard use(b);
    (void)add(ones({4}), ones({4}));
  } catch (const Error& e) {
    return e.kind() == ErrorKind::RuntimeState && e.message().find("fork") != std::string::npos;
  }
  return false;
}

double add_sum_on(const CpuBackend& b) {
  BackendGuard use(b);
  return sum(add(ones({64, 64}), ones({64, 64}))).item<double>();
}

int run_child(const CpuBackend& held, const CpuBackend& idle4, const CpuBackend& old_default,
              Tensor pooled) {
  alarm(30);  // a hang here kills the child with SIGALRM, which the parent reports
  check(refuses_after_fork(held), "the backend whose scope another thread held refuses work");
  check(refuses_after_fork(idle4), "an idle 4-thread backend from before the fork refuses work");
  check(refuses_after_fork(old_default), "the parent's default backend refuses work");
  try {
    (void)idle4.with_execution_scope([] { return 0; });
    check(false, "a scope on a pre-fork backend is refused");
  } catch (const Error& e) {
    check(e.kind() == ErrorKind::RuntimeState, "a scope on a pre-fork backend is RuntimeState");
  }
  try {
    (void)idle4.acquire_permit();
    check(false, "acquire_permit on a pre-fork backend is refused");
  } catch (const Error& e) {
    check(e.kind() == ErrorKind::RuntimeState, "acquire_permit on a pre-fork backend");
  }
  pooled = Tensor();  // a storage from the parent's pool dies in the child: freed, no lock taken
  check(!default_backend().same_witness(old_default), "default_backend() is recreated");
  check(add_sum_on(default_backend()) == 2.0 * 64 * 64, "the new default backend computes");
  {
    const Tensor x = ones({64, 64});
    check(sum(add(x, x)).item<double>() == 2.0 * 64 * 64, "ops with no guard use the new default");
  }
  for (int threads : {1, 4}) {
    const CpuBackend fresh(CpuBackendOptions{.threads = threads});
    check(add_sum_on(fresh) == 2.0 * 64 * 64, "a backend created in the child computes");
    check(fresh.with_execution_scope([&] { return add_sum_on(fresh); }) == 2.0 * 64 * 64,
          "a scope on a backend created in the child works");
  }
  return g_failures == 0 ? 0 : 1;
}

}  // namespace

TEST(HardeningFork, ForkWhileAnotherThreadIsInsideAScope) {
  tenferro::testing::Watchdog dog("fork while another thread is inside a scope",
                                  std::chrono::seconds(90));
  const CpuBackend held(CpuBackendOptions{.threads = 1});
  const CpuBackend idle4(CpuBackendOptions{.threads = 4});
  const CpuBackend& old_default = default_backend();
  EXPECT_EQ(add_sum_on(idle4), 2.0 * 64 * 64);  // warm: arena, pool, default backend
  EXPECT_EQ(add_sum_on(old_default), 2.0 * 64 * 64);
  Tensor pooled;
  {
    BackendGuard use(idle4);
    pooled = add(ones({128}), ones({128}));  // an output storage from idle4's buffer pool
  }

  std::atomic<bool> inside{false}, leave{false};
  std::thread holder([&] {
    held.with_execution_scope([&] {
      inside = true;
      while (!leave) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  });
  while (!inside) std::this_thread::yield();

  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0) << "fork failed";
  if (pid == 0) std::_Exit(run_child(held, idle4, old_default, std::move(pooled)));

  leave = true;
  holder.join();
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit normally (signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << "; SIGALRM = 14 means it hung)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the child's FAILED lines above";
  // The parent is untouched.
  EXPECT_EQ(add_sum_on(held), 2.0 * 64 * 64);
  EXPECT_EQ(add_sum_on(default_backend()), 2.0 * 64 * 64);
  EXPECT_TRUE(default_backend().same_witness(old_default));
}

// fork() from inside a scope or session callback (the forking thread is the callback thread). The
// child inherited the callback's thread-local admission state (the scope record, the owner, the
// session binding), so every backend made in the child was refused as "does not match the active
// execution scope" (or the session's witness) and a scope on it as "already active on this
// thread", against Note [Fork]. Now the child's copy of that thread starts with no admission: new
// backends and the recreated default backend work inside the stale callback and after it
// returns, and the callback's own backend refuses work as used after fork.
namespace {

enum class Callback { scope, session };

int run_child_in_callback(const CpuBackend& parents, int threads) {
  alarm(30);
  check(refuses_after_fork(parents), "the callback's backend refuses work in the child");
  // Inside the callback the child inherited from the parent.
  const CpuBackend fresh(CpuBackendOptions{.threads = threads});
  try {
    check(add_sum_on(fresh) == 2.0 * 64 * 64, "a backend created in the child computes");
    check(fresh.with_execution_scope([&] { return add_sum_on(fresh); }) == 2.0 * 64 * 64,
          "a scope on a backend created in the child works");
    check(add_sum_on(default_backend()) == 2.0 * 64 * 64, "the recreated default backend computes");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fork child: %s\n", e.what());
    check(false, "no error inside the inherited callback");
  }
  return g_failures;
}

void fork_inside_callback(Callback where, int threads) {
  const CpuBackend parents(CpuBackendOptions{.threads = threads});
  int status = -1;
  pid_t pid = -1;
  auto body = [&] {
    EXPECT_EQ(add_sum_on(parents), 2.0 * 64 * 64);
    std::fflush(nullptr);
    pid = fork();
    if (pid == 0) {
      const int failures = run_child_in_callback(parents, threads);
      // Returning unwinds the callback's frames in the child; new backends work afterwards too.
      throw failures;
    }
  };
  try {
    if (where == Callback::scope)
      parents.with_execution_scope(body);
    else
      parents.with_session([&](Session&) { body(); });
  } catch (int failures) {  // only the child gets here
    check(add_sum_on(CpuBackend(CpuBackendOptions{.threads = threads})) == 2.0 * 64 * 64,
          "a backend created in the child computes after the callback unwound");
    check(refuses_after_fork(parents), "the callback's backend still refuses work");
    std::_Exit(failures + g_failures == 0 ? 0 : 1);
  }
  ASSERT_GT(pid, 0) << "fork failed";
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit normally (signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << "; SIGALRM = 14 means it hung)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the child's FAILED lines above";
  EXPECT_EQ(add_sum_on(parents), 2.0 * 64 * 64);  // the parent is untouched
}

}  // namespace

TEST(HardeningFork, ForkInsideAScopeCallbackLeavesNewBackendsUsableInTheChild) {
  tenferro::testing::Watchdog dog("fork inside a scope callback", std::chrono::seconds(90));
  for (int threads : {1, 4}) fork_inside_callback(Callback::scope, threads);
}

TEST(HardeningFork, ForkInsideASessionCallbackLeavesNewBackendsUsableInTheChild) {
  tenferro::testing::Watchdog dog("fork inside a session callback", std::chrono::seconds(90));
  for (int threads : {1, 4}) fork_inside_callback(Callback::session, threads);
}
