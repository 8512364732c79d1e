// CpuBackend: witness identity, budgets, executors, pinning, external domains, re-entry, sessions.
#include <gtest/gtest.h>
#include <oneapi/tbb/parallel_for.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "cpu/admission.hpp"
#include "cpu/executor.hpp"
#include "runtime/test_support.hpp"
#include "tenferro/cpu_external.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/error.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/reduce.hpp"

using namespace tenferro;
using detail::ExecContext;
using detail::run_operation;

namespace {
CpuBackend make(int threads, BackendKind kind = BackendKind::native) {
  CpuBackendOptions o;
  o.threads = threads;
  o.kind = kind;
  return CpuBackend(o);
}

template <class F>
ErrorKind error_kind_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "expected tenferro::Error";
  return ErrorKind::BackendFailure;
}

int square_via(const CpuBackend& b, int x) {
  return run_operation(b, [&](ExecContext&) { return x * x; });
}
}  // namespace

TEST(CpuBackend, CopiesShareTheWitnessAndConstructorsMakeNewOnes) {
  CpuBackend a = make(1);
  CpuBackend copy = a;
  CpuBackend b = make(1);
  EXPECT_TRUE(a.same_witness(copy));
  EXPECT_EQ(a.identity(), copy.identity());
  EXPECT_FALSE(a.same_witness(b));
  EXPECT_NE(a.identity(), b.identity());
  EXPECT_NE(a.identity(), 0u);
  CpuBackend moved = std::move(copy);
  EXPECT_TRUE(a.same_witness(moved));
  EXPECT_TRUE(default_backend().same_witness(default_backend()));
  EXPECT_EQ(default_backend().threads(), CpuSet::process_allowed().count());
  EXPECT_EQ(default_backend().kind(), BackendKind::native);
}

TEST(CpuBackend, OptionsAreValidated) {
  CpuBackendOptions bad;
  bad.threads = -1;
  EXPECT_EQ(error_kind_of([&] { CpuBackend b(bad); }), ErrorKind::InvalidArgument);
  CpuBackendOptions outside;
  outside.placement = CpuSet{CpuSet::max_cpus - 1};
  EXPECT_EQ(error_kind_of([&] { CpuBackend b(outside); }), ErrorKind::InvalidArgument);
  CpuBackendOptions empty;
  empty.placement = CpuSet{};
  EXPECT_EQ(error_kind_of([&] { CpuBackend b(empty); }), ErrorKind::InvalidArgument);
  CpuBackendOptions zero;
  zero.placement = CpuSet{CpuSet::process_allowed().first()};
  EXPECT_EQ(CpuBackend(zero).threads(), 1) << "threads = 0 means the placement's core count";
}

class Budget : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Budgets, Budget, ::testing::Values(1, 4));

TEST_P(Budget, OperationsRunAndEachEntersTheExecutorOnce) {
  CpuBackend b = make(GetParam());
  EXPECT_EQ(b.threads(), GetParam());
  EXPECT_EQ(b.executor_entries(), 0u);
  EXPECT_FALSE(b.diagnostics().arena_created) << "the arena starts lazily";
  for (int i = 0; i < 10; ++i) EXPECT_EQ(square_via(b, i), i * i);
  EXPECT_EQ(b.executor_entries(), 10u);
  const auto d = b.diagnostics();
  EXPECT_EQ(d.permits_acquired, 10u);
  EXPECT_EQ(d.threads, GetParam());
  EXPECT_EQ(d.arena_created, GetParam() > 1);
  EXPECT_FALSE(d.external);
  run_operation(b, [&](ExecContext& ctx) {
    EXPECT_EQ(ctx.threads(), GetParam());
    EXPECT_FALSE(ctx.may_parallelize(10)) << "tiny work never fans out";
    EXPECT_EQ(ctx.may_parallelize(1'000'000), GetParam() > 1);
    if (GetParam() > 1) EXPECT_EQ(tbb::this_task_arena::max_concurrency(), GetParam());
  });
}

TEST_P(Budget, ParallelForCoversEveryIndexExactlyOnce) {
  CpuBackend b = make(GetParam());
  for (std::int64_t n :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 20}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::mutex mu;
    std::set<std::thread::id> threads;
    run_operation(b, [&](ExecContext& ctx) {
      ctx.parallel_for(n, 1024, [&](std::int64_t lo, std::int64_t hi) {
        {
          std::lock_guard lock(mu);
          threads.insert(std::this_thread::get_id());
        }
        for (std::int64_t i = lo; i < hi; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
      });
    });
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << "index " << i;
    if (GetParam() == 1 && n > 0) EXPECT_EQ(threads.size(), 1u);
  }
}

TEST_P(Budget, ResultsAndExceptionsPassThroughUnchanged) {
  CpuBackend b = make(GetParam());
  auto up = run_operation(b, [](ExecContext&) { return std::make_unique<int>(5); });
  EXPECT_EQ(*up, 5);
  int x = 3;
  int& ref = run_operation(b, [&](ExecContext&) -> int& { return x; });
  EXPECT_EQ(&ref, &x);
  struct Custom {
    int code;
  };
  try {
    run_operation(b, [](ExecContext&) -> int { throw Custom{42}; });
    FAIL();
  } catch (const Custom& c) {
    EXPECT_EQ(c.code, 42);
  }
  EXPECT_TRUE(b.try_acquire_permit().has_value()) << "the permit was released by the unwind";
  EXPECT_EQ(square_via(b, 4), 16);
}

TEST(CpuBackend, PinnedWorkersAreVerifiedOrTheDiagnosticSaysWhy) {
  const CpuSet one{CpuSet::process_allowed().first()};
  CpuBackendOptions o;
  o.threads = 2;
  o.placement = one;
  o.pin_workers = true;
  CpuBackend b(o);
  EXPECT_TRUE(b.diagnostics().pinning_requested);
  EXPECT_FALSE(b.diagnostics().pinning_note.empty()) << "before any worker joined the note says so";
  const auto caller = std::this_thread::get_id();
  std::mutex mu;
  std::vector<CpuSet> worker_masks;
  for (int attempt = 0; attempt < 20 && worker_masks.empty(); ++attempt) {
    run_operation(b, [&](ExecContext& ctx) {
      ctx.parallel_for(1 << 20, 1 << 12, [&](std::int64_t, std::int64_t) {
        if (std::this_thread::get_id() == caller) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          return;
        }
        cpu_set_t m;
        CPU_ZERO(&m);
        ASSERT_EQ(sched_getaffinity(0, sizeof(m), &m), 0);
        CpuSet s;
        for (int c = 0; c < CPU_SETSIZE && c < CpuSet::max_cpus; ++c)
          if (CPU_ISSET(c, &m)) s.add(c);
        std::lock_guard lock(mu);
        worker_masks.push_back(s);
      });
    });
  }
  const auto d = b.diagnostics();
  if (d.pinning_verified) {
    EXPECT_GT(d.workers_pinned, 0);
    EXPECT_EQ(d.pin_failures, 0);
    ASSERT_FALSE(worker_masks.empty());
    for (const CpuSet& s : worker_masks) EXPECT_EQ(s, one) << "a worker ran outside its placement";
  } else {
    EXPECT_FALSE(d.pinning_note.empty()) << "unverified pinning must say why";
    std::cerr << "pinning not verified: " << d.pinning_note << "\n";
  }
  // Unpinned backends never claim pinning.
  EXPECT_FALSE(make(2).diagnostics().pinning_requested);
}

TEST(CpuBackend, WorkersPinnedByADestroyedBackendGetTheirMaskBack) {
  const CpuSet allowed = CpuSet::process_allowed();
  if (allowed.count() < 2)
    GTEST_SKIP() << "needs two CPUs to tell a pinned mask from the process's";
  {
    CpuBackendOptions o;
    o.threads = 2;
    o.placement = CpuSet{allowed.first()};
    o.pin_workers = true;
    CpuBackend b(o);
    run_operation(b, [](ExecContext& ctx) {
      ctx.parallel_for(1 << 20, 1 << 12, [](std::int64_t, std::int64_t) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      });
    });
  }
  std::mutex mu;
  std::vector<CpuSet> masks;
  tbb::task_arena plain(2);
  plain.execute([&] {
    tbb::parallel_for(0, 256, [&](int) {
      cpu_set_t m;
      CPU_ZERO(&m);
      sched_getaffinity(0, sizeof(m), &m);
      CpuSet s;
      for (int c = 0; c < CPU_SETSIZE && c < CpuSet::max_cpus; ++c)
        if (CPU_ISSET(c, &m)) s.add(c);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      std::lock_guard lock(mu);
      masks.push_back(s);
    });
  });
  for (const CpuSet& s : masks)
    EXPECT_EQ(s, allowed) << "a TBB worker kept a destroyed backend's pinning";
}

TEST(CpuBackend, ExternalDomainRunsOnTheCallersArenaAndNeverCreatesOne) {
  tbb::task_arena arena(3);
  arena.initialize();
  const std::uint64_t created_before = detail::managed_arenas_created();
  {
    CpuBackend ext = external_backend(arena, CpuSet{CpuSet::process_allowed().first()});
    EXPECT_TRUE(ext.is_external());
    EXPECT_EQ(ext.threads(), 3);
    for (int i = 0; i < 5; ++i) {
      run_operation(ext, [&](ExecContext& ctx) {
        EXPECT_EQ(tbb::this_task_arena::max_concurrency(), 3)
            << "not running in the caller's arena";
        EXPECT_GE(tbb::this_task_arena::current_thread_index(), 0);
        EXPECT_EQ(ctx.threads(), 3);
      });
    }
    EXPECT_EQ(ext.executor_entries(), 5u);
    const auto d = ext.diagnostics();
    EXPECT_TRUE(d.external);
    EXPECT_FALSE(d.arena_created);
    EXPECT_EQ(error_kind_of([&] { ext.with_execution_scope([] {}); }), ErrorKind::Unsupported);
    EXPECT_EQ(ext.with_session([](Session& s) { return s.threads(); }), 3);
  }
  EXPECT_EQ(detail::managed_arenas_created(), created_before);
  EXPECT_TRUE(arena.is_active()) << "the backend must not terminate the caller's arena";
  int v = 0;
  arena.execute([&] { v = 1; });
  EXPECT_EQ(v, 1);
}

TEST(CpuBackend, AttachAdoptsTheCallersArenaAndKeepsItAlive) {
  const std::uint64_t created_before = detail::managed_arenas_created();
  std::optional<CpuBackend> attached;
  {
    tbb::task_arena mine(3);
    mine.execute([&] { attached = CpuBackend::attach(); });
  }  // the caller's handle is gone; the backend's attached handle keeps the arena alive
  ASSERT_TRUE(attached.has_value());
  EXPECT_TRUE(attached->is_external());
  EXPECT_EQ(attached->threads(), 3);
  EXPECT_EQ(attached->cpus(), CpuSet::process_allowed());
  for (int i = 0; i < 4; ++i)
    run_operation(*attached, [&](ExecContext& ctx) {
      EXPECT_EQ(tbb::this_task_arena::max_concurrency(), 3) << "not running in the adopted arena";
      EXPECT_EQ(ctx.threads(), 3);
    });
  EXPECT_EQ(attached->executor_entries(), 4u);
  EXPECT_EQ(error_kind_of([&] { attached->with_execution_scope([] {}); }), ErrorKind::Unsupported);
  EXPECT_EQ(detail::managed_arenas_created(), created_before);
  // From a thread in no arena yet, attach adopts a default one; a declared set is kept.
  const CpuSet first{CpuSet::process_allowed().first()};
  std::thread([&] {
    const CpuBackend fresh = CpuBackend::attach(BackendKind::blas, first);
    EXPECT_EQ(fresh.cpus(), first);
    EXPECT_EQ(fresh.kind(), BackendKind::blas);
    EXPECT_EQ(square_via(fresh, 7), 49);
  }).join();
  EXPECT_EQ(error_kind_of([] { (void)CpuBackend::attach(BackendKind::native, CpuSet{}); }),
            ErrorKind::InvalidArgument);
}

TEST_P(Budget, ReentryFromTheSameThreadIsRejectedAndEverythingRecovers) {
  CpuBackend b = make(GetParam());
  CpuBackend other = make(GetParam());
  run_operation(b, [&](ExecContext&) {
    EXPECT_EQ(error_kind_of([&] { square_via(b, 2); }), ErrorKind::RuntimeState);
    EXPECT_EQ(error_kind_of([&] { square_via(other, 2); }), ErrorKind::RuntimeState);
    EXPECT_THROW(b.with_session([](Session&) {}), ContractViolation);
    EXPECT_EQ(error_kind_of([&] { b.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
  });
  EXPECT_EQ(square_via(b, 3), 9);
  EXPECT_EQ(square_via(other, 3), 9);
}

// A worker task of an active session's callback that enters the backend is rejected by the owner
// guard (Note [Owner guard], (b)) instead of queueing for the permit its caller holds. Sessions
// and scopes are where user code runs inside an admission; their callbacks run in the backend's
// arena, so at budget 1 (one-slot arena) no other thread can pick the task up: it runs on the
// session thread, inside the session.
TEST_P(Budget, ReentryFromAWorkerTaskIsRejectedWithoutDeadlock) {
  CpuBackend b = make(GetParam());
  int fallible_rejections = 0, infallible_rejections = 0;
  b.with_session([&](Session&) {
    const bool elsewhere = test_support::run_on_other_tbb_thread(
        [&] {
          try {
            square_via(b, 2);
          } catch (const Error& e) {
            if (e.kind() == ErrorKind::RuntimeState) ++fallible_rejections;
          }
          try {
            b.with_session([](Session&) {});
          } catch (const ContractViolation&) {
            ++infallible_rejections;
          }
        },
        std::chrono::seconds(GetParam() > 1 ? 10 : 0));
    EXPECT_EQ(elsewhere, GetParam() > 1) << "which thread picked up the child task";
  });
  if (GetParam() > 1) {
    EXPECT_EQ(fallible_rejections, 1);
    EXPECT_EQ(infallible_rejections, 1);
  } else {
    EXPECT_EQ(fallible_rejections, 0) << "on the session thread the op runs in the session";
    EXPECT_EQ(infallible_rejections, 0) << "the task did not run: not elsewhere";
  }
  EXPECT_EQ(square_via(b, 5), 25);
  // With nothing active, a task of the caller's arena may use the backend (it helps nothing).
  EXPECT_TRUE(test_support::run_on_other_tbb_thread([&] { EXPECT_EQ(square_via(b, 6), 36); }));
}

TEST_P(Budget, SessionsShareOneAdmission) {
  CpuBackend b = make(GetParam());
  CpuBackend other = make(GetParam());
  const auto e0 = b.executor_entries();
  const int r = b.with_session([&](Session& s) {
    EXPECT_EQ(s.threads(), GetParam());
    for (int i = 0; i < 5; ++i) {
      run_operation(b, [&](ExecContext& ctx) { EXPECT_EQ(&ctx, &s.exec_context()); });
    }
    EXPECT_EQ(error_kind_of([&] { square_via(other, 2); }), ErrorKind::RuntimeState);
    EXPECT_THROW(b.with_session([](Session&) {}), ContractViolation);
    EXPECT_THROW(other.with_session([](Session&) {}), ContractViolation);
    EXPECT_EQ(error_kind_of([&] { b.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
    // The outer session still works after the rejected nested entries.
    return square_via(b, 7);
  });
  EXPECT_EQ(r, 49);
  EXPECT_EQ(b.executor_entries(), e0 + 1);
  EXPECT_EQ(other.with_session([](Session& s) { return s.threads(); }), GetParam());
  struct Custom {};
  EXPECT_THROW(b.with_session([](Session&) { throw Custom{}; }), Custom);
  EXPECT_TRUE(b.try_acquire_permit().has_value());
  EXPECT_EQ(square_via(b, 2), 4);
}

TEST(CpuBackend, BlasKindHoldsAProviderExclusivePermitPerOperation) {
  CpuBackend blas = make(1, BackendKind::blas);
  CpuBackend native = make(1);
  run_operation(blas, [&](ExecContext& ctx) {
    EXPECT_FALSE(ctx.may_parallelize(1'000'000'000)) << "OpenBLAS owns the threads";
    EXPECT_FALSE(native.try_acquire_permit().has_value());
    EXPECT_FALSE(make(1, BackendKind::blas).try_acquire_permit().has_value());
  });
  EXPECT_TRUE(native.try_acquire_permit().has_value());
}

TEST(CpuBackend, ClearCachesIsRejectedInsideAnOperation) {
  CpuBackend b = make(1);
  run_operation(b, [&](ExecContext&) {
    EXPECT_EQ(error_kind_of([&] { b.clear_caches(); }), ErrorKind::RuntimeState);
  });
  b.clear_caches();
}

// An op through another witness inside a scope or session names both backends.
TEST(CpuBackend, WrongWitnessErrorsNameBothBackends) {
  CpuBackend b = make(1), other = make(1);
  const std::string mine = "#" + std::to_string(b.identity());
  const std::string theirs = "#" + std::to_string(other.identity());
  auto message = [&] {
    try {
      run_operation(other, [](ExecContext&) {});
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::RuntimeState);
      return e.message();
    }
    return std::string("no error");
  };
  const std::string in_scope = b.with_execution_scope(message);
  EXPECT_NE(in_scope.find(mine), std::string::npos) << in_scope;
  EXPECT_NE(in_scope.find(theirs), std::string::npos) << in_scope;
  const std::string in_session = b.with_session([&](Session&) { return message(); });
  EXPECT_NE(in_session.find(mine), std::string::npos) << in_session;
  EXPECT_NE(in_session.find(theirs), std::string::npos) << in_session;
}

// clear_caches is rejected inside a session of ITS backend (the session borrows that engine), as
// cpu.hpp says; inside another backend's session -- also one on a scope's loan -- it clears (it
// threw RuntimeState there, though that engine is not borrowed by this thread).
TEST(CpuBackend, ClearCachesInsideAnotherBackendsSessionClears) {
  CpuBackend b = make(1), other = make(1);
  auto check = [&](Session&) {
    EXPECT_EQ(error_kind_of([&] { b.clear_caches(); }), ErrorKind::RuntimeState);
    EXPECT_NO_THROW(other.clear_caches());
  };
  b.with_session(check);
  b.with_execution_scope([&] {
    EXPECT_NO_THROW(other.clear_caches());
    EXPECT_NO_THROW(b.clear_caches());  // a scope borrows nothing between its ops
    b.with_session(check);              // a session on the scope's loan
  });
}

// The current backend is the innermost LIVE guard (eager.hpp), also when guards end out of order:
// a std::optional<BackendGuard> reset early, Python's use_backend exited out of order, or a guard
// made inside a scope or session callback that outlives the callback. Each guard restored the
// pointer it saw at construction, so the thread's current backend became another guard's (or a
// scope frame's) backend after it had died: the wrong backend, then a dangling reference (Python:
// "Unregistered type" garbage or a segfault). Guards and callback frames now form a list per
// thread; each unlinks itself, and the current backend is always a live one.
TEST(BackendGuard, GuardsEndingOutOfOrderLeaveTheInnermostLiveGuardCurrent) {
  const CpuBackend b1(CpuBackendOptions{.threads = 1}), b2(CpuBackendOptions{.threads = 1});
  const CpuBackend b3(CpuBackendOptions{.threads = 1});
  const Tensor x = ones({4});
  {
    std::optional<BackendGuard> g1, g2, g3;
    g1.emplace(b1);
    g2.emplace(b2);
    g3.emplace(b3);
    EXPECT_TRUE(current_backend().same_witness(b3));
    g2.reset();  // from the middle
    EXPECT_TRUE(current_backend().same_witness(b3));
    g3.reset();  // the top: back to the innermost live one
    EXPECT_TRUE(current_backend().same_witness(b1));
    g2.emplace(b2);
    g1.reset();  // from the bottom
    EXPECT_TRUE(current_backend().same_witness(b2));
    EXPECT_EQ(sum(add(x, x)).item<double>(), 8.0);
    g2.reset();
  }
  EXPECT_TRUE(current_backend().same_witness(default_backend()));
  EXPECT_EQ(sum(add(x, x)).item<double>(), 8.0);
}

TEST(BackendGuard, AGuardMadeInsideACallbackThatOutlivesItStaysCurrentUntilItEnds) {
  const CpuBackend b(CpuBackendOptions{.threads = 1}), other(CpuBackendOptions{.threads = 1});
  const Tensor x = ones({4});
  for (int session = 0; session < 2; ++session) {
    std::optional<BackendGuard> g;
    auto body = [&] {
      EXPECT_TRUE(current_backend().same_witness(b));
      g.emplace(other);
      EXPECT_TRUE(current_backend().same_witness(other));
    };
    if (session)
      b.with_session([&](Session&) { body(); });
    else
      b.with_execution_scope(body);
    EXPECT_TRUE(current_backend().same_witness(other)) << "session " << session;
    EXPECT_EQ(sum(add(x, x)).item<double>(), 8.0);
    g.reset();
    EXPECT_TRUE(current_backend().same_witness(default_backend())) << "session " << session;
    EXPECT_EQ(sum(add(x, x)).item<double>(), 8.0);
    // The callback's frame ends inside a guard's lifetime the other way round too.
    BackendGuard outer(other);
    b.with_execution_scope([&] { EXPECT_TRUE(current_backend().same_witness(b)); });
    EXPECT_TRUE(current_backend().same_witness(other));
  }
}
