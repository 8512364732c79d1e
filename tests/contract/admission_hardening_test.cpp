// Hardening of the admission paths (issue 12, "Deadlocks and spurious errors" and "Ergonomics"):
// every scenario ends as a success or a typed error, never a hang. Each runs under a watchdog that
// ends the process with the scenario's name if it does not finish. Budgets 1 and 4, native and
// blas kinds (DESIGN.md section 4; docs/execution-scope.md).
#include <gtest/gtest.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/budget_kind.hpp"
#include "common/expect_error.hpp"
#include "common/watchdog.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;
using tenferro::testing::Watchdog;
using namespace std::chrono_literals;

namespace {

struct Outcomes {
  std::atomic<int> ok{0}, runtime_state{0}, other{0};
  template <class F>
  void run(F&& f) {
    try {
      f();
      ++ok;
    } catch (const Error& e) {
      ++(e.kind() == ErrorKind::RuntimeState ? runtime_state : other);
    } catch (...) {
      ++other;
    }
  }
};

// c = a @ b by the definition, for checking results computed by the library.
std::vector<double> reference_matmul(const Tensor& a, const Tensor& b) {
  const std::int64_t n = a.size(0), k = a.size(1), m = b.size(1);
  const std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> c(static_cast<std::size_t>(n * m), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < m; ++j)
        c[static_cast<std::size_t>(i * m + j)] +=
            av[static_cast<std::size_t>(i * k + p)] * bv[static_cast<std::size_t>(p * m + j)];
  return c;
}

bool close_to(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::abs(got[i] - want[i]) > 1e-9 * (1.0 + std::abs(want[i]))) return false;
  return true;
}

double add_sum(const Tensor& x) { return sum(add(x, x)).item<double>(); }

}  // namespace

class Hardening : public tenferro::testing::BudgetKindTest {
 protected:
  CpuBackend make_with_timeout(std::chrono::milliseconds timeout) const {
    CpuBackendOptions o;
    o.threads = threads();
    o.kind = kind();
    o.admission_timeout = timeout;
    return CpuBackend(o);
  }
};
INSTANTIATE_TEST_SUITE_P(BudgetsAndKinds, Hardening, tenferro::testing::budgets_and_kinds(),
                         tenferro::testing::budget_kind_name);

// Scenario 1: inside a scope (or session), a tbb::parallel_for whose body runs ops on the default
// backend or on another backend whose CPU set overlaps the scope's. It deadlocked at budget 1
// (the tasks landed on the default arena and queued for the permit the scope holds while the
// scope waited for them); now every call is a RuntimeState rejection at every budget.
TEST_P(Hardening, ParallelForInsideAScopeOnOverlappingBackendsIsRuntimeStateNotDeadlock) {
  Watchdog dog("parallel_for inside a scope entering overlapping backends");
  const CpuBackend owner = make();
  const CpuBackend overlapping = make();
  const Tensor x = ones({8, 8});
  for (const CpuBackend* target : {&default_backend(), &overlapping}) {
    Outcomes out;
    owner.with_execution_scope([&] {
      tbb::parallel_for(0, 64, [&](int) {
        out.run([&] {
          BackendGuard use(*target);
          (void)add(x, x);
        });
      });
    });
    EXPECT_EQ(out.runtime_state.load(), 64);
    EXPECT_EQ(out.ok.load(), 0);
    EXPECT_EQ(out.other.load(), 0);
  }
  {
    Outcomes out;  // the same pattern inside a session
    owner.with_session([&](Session&) {
      tbb::task_group tg;
      for (int i = 0; i < 16; ++i)
        tg.run([&] {
          out.run([&] {
            BackendGuard use(default_backend());
            (void)add(x, x);
          });
        });
      tg.wait();
    });
    EXPECT_EQ(out.runtime_state.load(), 16);
    EXPECT_EQ(out.ok.load(), 0);
  }
  // Everything still works afterwards.
  EXPECT_EQ(owner.with_execution_scope([&] { return add_sum(x); }), 128.0);
  BackendGuard use(overlapping);
  EXPECT_EQ(add_sum(x), 128.0);
}

// Scenario 2: a user's own tbb::parallel_for (no scope) running independent matmuls on one
// backend. About half the calls used to throw RuntimeState (a task was taken for a helper of
// another task's operation); now all 2,000 succeed with correct values. Every 50th product is
// large enough to fan out at budget 4.
TEST_P(Hardening, UserParallelForOfIndependentMatmulsAllSucceed) {
  Watchdog dog("independent matmuls in a user parallel_for", 300s);
  const CpuBackend b = make();
  constexpr int kDistinct = 8;
  std::vector<Tensor> as, bs;
  std::vector<std::vector<double>> want;
  for (int i = 0; i < kDistinct; ++i) {
    const std::int64_t n = i == 0 ? 96 : 8;
    as.push_back(randn({n, n}, 100 + i));
    bs.push_back(randn({n, n}, 200 + i));
    want.push_back(reference_matmul(as.back(), bs.back()));
  }
  Outcomes out;
  std::atomic<int> wrong{0};
  tbb::parallel_for(0, 2000, [&](int i) {
    const int k = i % 50 == 0 ? 0 : 1 + i % (kDistinct - 1);
    out.run([&] {
      BackendGuard use(b);
      if (!close_to(matmul(as[k], bs[k]).to_vector<double>(), want[k])) ++wrong;
    });
  });
  EXPECT_EQ(out.ok.load(), 2000) << out.runtime_state.load() << " RuntimeState errors, "
                                 << out.other.load() << " other failures";
  EXPECT_EQ(wrong.load(), 0);
}

// Scenario 3: a permit from acquire_permit() held by a thread, then ops, a session and a scope on
// overlapping backends on the same thread. They hung forever (the thread waited for its own
// permit); now they run under it, and other threads still wait for it.
TEST_P(Hardening, HeldPermitThenOpsOnOverlappingBackendsOnTheSameThreadRun) {
  Watchdog dog("ops under the thread's own permit");
  const CpuBackend b = make();
  const CpuBackend overlapping = make();
  const Tensor x = ones({4, 4});
  ResourcePermit permit = b.acquire_permit();
  ASSERT_TRUE(permit.valid());
  {
    BackendGuard use(b);
    EXPECT_EQ(add_sum(x), 32.0);
  }
  {
    BackendGuard use(overlapping);
    EXPECT_EQ(add_sum(x), 32.0);
  }
  EXPECT_EQ(b.with_execution_scope([&] { return add_sum(x); }), 32.0);
  EXPECT_EQ(overlapping.with_session([&](Session&) { return add_sum(x); }), 32.0);
  std::thread([&] { EXPECT_FALSE(b.try_acquire_permit().has_value()); }).join();
  permit.release();
  std::thread([&] { EXPECT_TRUE(b.try_acquire_permit().has_value()); }).join();
}

// Scenario 3b: acquire_permit() inside the thread's own scope or session, or while the thread
// already holds a conflicting permit. It hung forever; now it is RuntimeState naming the holder,
// and nothing is left held.
TEST_P(Hardening, AcquirePermitInsideTheThreadsOwnScopeIsRuntimeStateNotHang) {
  Watchdog dog("acquire_permit inside the thread's own scope");
  const CpuBackend b = make();
  const CpuBackend overlapping = make();
  b.with_execution_scope([&] {
    expect_error(ErrorKind::RuntimeState, [&] { (void)b.acquire_permit(); },
                 {"acquire_permit", "already holds", "execution scope"});
    expect_error(ErrorKind::RuntimeState, [&] { (void)overlapping.acquire_permit(); },
                 {"acquire_permit", "already holds"});
    EXPECT_FALSE(overlapping.try_acquire_permit().has_value()) << "try_acquire is never re-entrant";
  });
  b.with_session([&](Session&) {
    expect_error(ErrorKind::RuntimeState, [&] { (void)b.acquire_permit(); },
                 {"acquire_permit", "session"});
  });
  {
    ResourcePermit first = b.acquire_permit();
    expect_error(ErrorKind::RuntimeState, [&] { (void)overlapping.acquire_permit(); },
                 {"acquire_permit", "acquire_permit"});
  }
  ResourcePermit again = overlapping.acquire_permit();  // all released: granted at once
  EXPECT_TRUE(again.valid());
}

// A permit inside a scope for CPUs the scope does not claim is granted.
TEST(HardeningPermits, AcquirePermitForDisjointCpusInsideAScopeIsGranted) {
  const auto cpus = CpuSet::process_allowed().to_vector();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  Watchdog dog("disjoint permit inside a scope");
  const CpuBackend a(CpuBackendOptions{.threads = 1, .placement = CpuSet{cpus[0]}});
  const CpuBackend b(CpuBackendOptions{.threads = 1, .placement = CpuSet{cpus[1]}});
  a.with_execution_scope([&] {
    ResourcePermit p = b.acquire_permit();
    EXPECT_TRUE(p.valid());
  });
}

// Scenario 4: a helper thread that runs an op on the scope's backend and is joined inside the
// scope. It hung; with admission_timeout the helper's admission gives up with RuntimeState naming
// the holder (kind, backend, thread).
TEST_P(Hardening, HelperThreadJoinedInsideAScopeTimesOutNamingTheHolder) {
  Watchdog dog("helper thread joined inside a scope, with admission_timeout");
  const CpuBackend b = make_with_timeout(200ms);
  const Tensor x = ones({4, 4});
  const std::string holder = "an execution scope of backend #" + std::to_string(b.identity());
  b.with_execution_scope([&] {
    auto helper = std::async(std::launch::async, [&] {
      BackendGuard use(b);
      return add_sum(x);
    });
    expect_error(ErrorKind::RuntimeState, [&] { (void)helper.get(); },
                 {"admission timeout of 200 ms", holder.c_str(), "on thread", "Helper threads"});
  });
  b.with_session([&](Session&) {  // a session holder, and acquire_permit as the waiter
    auto helper = std::async(std::launch::async, [&] { return b.acquire_permit(); });
    expect_error(ErrorKind::RuntimeState, [&] { (void)helper.get(); },
                 {"acquire_permit", "a session of backend"});
  });
  BackendGuard use(b);
  EXPECT_EQ(add_sum(x), 32.0) << "the backend works after the timeouts";
}

TEST(HardeningOptions, AdmissionTimeoutDefaultsToNoneAndRejectsNegative) {
  EXPECT_FALSE(CpuBackendOptions{}.admission_timeout.has_value());
  CpuBackendOptions o;
  o.admission_timeout = std::chrono::milliseconds(-1);
  expect_error(ErrorKind::InvalidArgument, [&] { CpuBackend b(o); }, {"admission_timeout"});
}

// A zero timeout means "do not wait", not "no timeout" (it hung like the default before).
TEST(HardeningOptions, AdmissionTimeoutOfZeroGivesUpWithoutWaiting) {
  Watchdog dog("admission_timeout = 0 ms");
  CpuBackendOptions o;
  o.threads = 1;
  o.admission_timeout = 0ms;
  const CpuBackend b(o);
  const Tensor x = ones({4, 4});
  b.with_execution_scope([&] {
    auto helper = std::async(std::launch::async, [&] {
      BackendGuard use(b);
      return add_sum(x);
    });
    expect_error(ErrorKind::RuntimeState, [&] { (void)helper.get(); },
                 {"admission timeout of 0 ms", "an execution scope of backend"});
  });
  BackendGuard use(b);
  EXPECT_EQ(add_sum(x), 32.0) << "uncontended admissions never wait, so never time out";
}

// Ergonomics: the scope (and a session) make their backend current for the callback; outside it
// the previous current backend is back.
TEST_P(Hardening, ScopeAndSessionMakeTheirBackendCurrent) {
  const CpuBackend b = make();
  const CpuBackend other = make();
  const Tensor a = randn({16, 2, 2}, 1), c = randn({16, 2, 2}, 2);
  Tensor want;
  {
    BackendGuard use(b);
    want = bmm(a, c);
  }
  const auto entries = b.executor_entries();
  const Tensor got = b.with_execution_scope([&] {
    EXPECT_TRUE(current_backend().same_witness(b));
    return bmm(a, c);  // no BackendGuard: it threw RuntimeState before
  });
  EXPECT_EQ(b.executor_entries(), entries + 1) << "the op ran on the scope's loan";
  EXPECT_TRUE(allclose(got, want, 0, 0));
  EXPECT_TRUE(current_backend().same_witness(default_backend()));
  BackendGuard outer(other);
  b.with_session([&](Session&) { EXPECT_TRUE(current_backend().same_witness(b)); });
  struct Boom {};
  EXPECT_THROW(b.with_execution_scope([&] { throw Boom{}; }), Boom);
  EXPECT_TRUE(current_backend().same_witness(other)) << "restored after return and unwind";
}

// Ergonomics: callbacks of every value category pass through unchanged (T&& did not compile).
TEST(HardeningCallbacks, EveryValueCategoryPassesThroughScopeAndSession) {
  const CpuBackend b(CpuBackendOptions{.threads = 1});
  int x = 5;
  const int cx = 6;
  int& r = b.with_execution_scope([&]() -> int& { return x; });
  EXPECT_EQ(&r, &x);
  const int& cr = b.with_execution_scope([&]() -> const int& { return cx; });
  EXPECT_EQ(&cr, &cx);
  int&& rr = b.with_execution_scope([&]() -> int&& { return std::move(x); });
  EXPECT_EQ(&rr, &x);
  std::unique_ptr<int> owned = std::make_unique<int>(7);
  std::unique_ptr<int>&& moved =
      b.with_session([&](Session&) -> std::unique_ptr<int>&& { return std::move(owned); });
  EXPECT_EQ(&moved, &owned);
  std::unique_ptr<int> value = b.with_session([](Session&) { return std::make_unique<int>(8); });
  EXPECT_EQ(*value, 8);
  int& sr = b.with_session([&](Session&) -> int& { return x; });
  EXPECT_EQ(&sr, &x);
  b.with_execution_scope([] {});
}
