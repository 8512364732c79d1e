// Runtime-level contract tests of CpuBackend::with_execution_scope
// (spec/cpu-shared-execution-scope.md; DESIGN.md section 4, admission outcomes).
// Every case runs at budgets 1 and 4 and for the native and blas kinds.
#include <gtest/gtest.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <memory>
#include <numeric>
#include <thread>
#include <tuple>
#include <vector>

#include "common/budget_kind.hpp"
#include "common/counting_new.hpp"
#include "cpu/admission.hpp"
#include "runtime/test_support.hpp"
#include "tenferro/cpu_external.hpp"
#include "tenferro/error.hpp"

using namespace tenferro;
using detail::ExecContext;
using detail::run_operation;

namespace {

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

// A small real "primitive": out[i] = a[i] + b[i] into a pool buffer, summed back.
double add_and_sum(const CpuBackend& b, int n) {
  StoragePtr out = run_operation(b, [&](ExecContext& ctx) {
    StoragePtr s(ctx.allocate(sizeof(double) * static_cast<std::size_t>(n)));
    auto* d = static_cast<double*>(s->data);
    ctx.parallel_for(n, 256, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) d[i] = static_cast<double>(i) + 1.0;
    });
    return s;
  });
  const auto* d = static_cast<const double*>(out->data);
  return std::accumulate(d, d + n, 0.0);
}
double expected_sum(int n) { return static_cast<double>(n) * (n + 1) / 2.0; }

int session_sum(const CpuBackend& b) {
  return b.with_session([&](Session& s) {
    int total = 0;
    for (int i = 1; i <= 3; ++i)
      total += run_operation(b, [&](ExecContext& ctx) {
        EXPECT_EQ(&ctx, &s.exec_context());
        return i;
      });
    return total;
  });
}

}  // namespace

class Scope : public tenferro::testing::BudgetKindTest {};
INSTANTIATE_TEST_SUITE_P(BudgetsAndKinds, Scope, tenferro::testing::budgets_and_kinds(),
                         tenferro::testing::budget_kind_name);

TEST_P(Scope, OneExecutorEntryForTheWholeScopeAndOneMoreAfterIt) {
  CpuBackend owner = make();
  CpuBackend eager = owner;  // "eager runtime" and "trace runtime" hold clones of one witness
  CpuBackend trace = owner;
  const auto entries0 = owner.executor_entries();
  const auto permits0 = owner.diagnostics().permits_acquired;
  std::thread::id callback_thread;
  owner.with_execution_scope([&] {
    callback_thread = std::this_thread::get_id();
    for (int iter = 0; iter < 16; ++iter) {
      EXPECT_EQ(add_and_sum(eager, 1000), expected_sum(1000));
      EXPECT_EQ(session_sum(trace), 6);
      run_operation(eager, [&](ExecContext& ctx) {
        EXPECT_EQ(std::this_thread::get_id(), callback_thread)
            << "a loan runs inline on the callback thread";
        EXPECT_EQ(ctx.threads(), threads());
        EXPECT_EQ(ctx.may_parallelize(1'000'000), threads() > 1 && kind() == BackendKind::native)
            << "parallel mode is still chosen per operation";
      });
    }
    // A big native op still fans out (and covers each index once) inside the scope.
    EXPECT_EQ(add_and_sum(owner, 1 << 18), expected_sum(1 << 18));
  });
  EXPECT_EQ(owner.executor_entries(), entries0 + 1)
      << "the scope must enter the executor exactly once";
  EXPECT_EQ(owner.diagnostics().permits_acquired, permits0 + 1)
      << "ops in the scope borrow its permit";
  EXPECT_EQ(add_and_sum(eager, 10), expected_sum(10));
  EXPECT_EQ(owner.executor_entries(), entries0 + 2);
}

TEST_P(Scope, WrongWitnessAndNestedScopesAreRejectedAndEverythingRecovers) {
  CpuBackend owner = make();
  CpuBackend clone = owner;
  CpuBackend other = make();  // equal settings, different witness
  owner.with_execution_scope([&] {
    EXPECT_EQ(error_kind_of([&] { add_and_sum(other, 4); }), ErrorKind::RuntimeState);
    EXPECT_THROW(other.with_session([](Session&) {}), ContractViolation);
    EXPECT_EQ(error_kind_of([&] { owner.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
    EXPECT_EQ(error_kind_of([&] { clone.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
    EXPECT_EQ(error_kind_of([&] { other.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
    // Nested op while the loan is active: the ordinary nested-entry guard.
    run_operation(clone, [&](ExecContext&) {
      EXPECT_EQ(error_kind_of([&] { add_and_sum(clone, 4); }), ErrorKind::RuntimeState);
      EXPECT_THROW(clone.with_session([](Session&) {}), ContractViolation);
    });
    EXPECT_EQ(add_and_sum(clone, 100), expected_sum(100)) << "the scope still works";
    EXPECT_EQ(session_sum(clone), 6);
  });
  EXPECT_EQ(add_and_sum(other, 100), expected_sum(100));
  EXPECT_EQ(add_and_sum(owner, 100), expected_sum(100));
  EXPECT_EQ(other.with_execution_scope([&] { return session_sum(other); }), 6);
}

TEST_P(Scope, ScopeInsideASessionOrAnOperationIsARuntimeStateError) {
  CpuBackend owner = make();
  owner.with_session([&](Session&) {
    EXPECT_EQ(error_kind_of([&] { owner.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
  });
  run_operation(owner, [&](ExecContext&) {
    EXPECT_EQ(error_kind_of([&] { owner.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
  });
  owner.with_execution_scope([&] {
    run_operation(owner, [&](ExecContext&) {
      EXPECT_EQ(error_kind_of([&] { owner.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
    });
    owner.with_session([&](Session&) {
      EXPECT_EQ(error_kind_of([&] { owner.with_execution_scope([] {}); }), ErrorKind::RuntimeState);
    });
  });
  EXPECT_EQ(owner.with_execution_scope([&] { return add_and_sum(owner, 50); }), expected_sum(50));
}

TEST_P(Scope, SessionInsideASessionInsideAScopeIsAContractViolationWithRecovery) {
  CpuBackend owner = make();
  owner.with_execution_scope([&] {
    const int r = owner.with_session([&](Session&) {
      EXPECT_THROW(owner.with_session([](Session&) {}), ContractViolation);
      return run_operation(owner, [](ExecContext&) { return 5; });  // the outer session works on
    });
    EXPECT_EQ(r, 5);
    EXPECT_EQ(session_sum(owner), 6);
    EXPECT_EQ(add_and_sum(owner, 20), expected_sum(20));
  });
  EXPECT_EQ(session_sum(owner), 6);
}

TEST_P(Scope, CallbackValuesAndExceptionsPassThroughUnchanged) {
  CpuBackend owner = make();
  EXPECT_EQ(owner.with_execution_scope([] { return 17; }), 17);
  auto up = owner.with_execution_scope([] { return std::make_unique<int>(3); });
  EXPECT_EQ(*up, 3);
  int x = 0;
  int& ref = owner.with_execution_scope([&]() -> int& { return x; });
  EXPECT_EQ(&ref, &x);
  owner.with_execution_scope([] {});  // void

  struct Failure {
    int code;
  };
  const auto entries = owner.executor_entries();
  try {
    owner.with_execution_scope([&]() -> int {
      EXPECT_EQ(add_and_sum(owner, 10), expected_sum(10));
      throw Failure{99};
    });
    FAIL() << "the exception was swallowed";
  } catch (const Failure& f) {
    EXPECT_EQ(f.code, 99);
  }
  // An Error from an op inside the callback also propagates unchanged.
  try {
    owner.with_execution_scope([&] {
      run_operation(owner,
                    [](ExecContext&) { throw Error(ErrorKind::ShapeMismatch, "add: [2] vs [3]"); });
    });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
    EXPECT_EQ(e.message(), "add: [2] vs [3]");
  }
  EXPECT_EQ(owner.executor_entries(), entries + 2);
  EXPECT_TRUE(owner.try_acquire_permit().has_value()) << "the unwind released the permit";
  EXPECT_EQ(owner.with_execution_scope([&] { return add_and_sum(owner, 30); }), expected_sum(30));
  EXPECT_EQ(add_and_sum(owner, 30), expected_sum(30));
}

// A oneTBB task started by the callback never deadlocks and never runs outside the admission. On
// another thread (a worker of the backend's arena, budget 4) its entries are rejected by the owner
// guard. On the callback thread itself -- where every task runs at budget 1, since the callback
// runs in a one-slot arena (Note [Owner guard]) -- it is the callback running an op: ops and
// sessions take the scope's loan, a nested scope is rejected.
TEST_P(Scope, AChildTaskOfTheCallbackIsRejectedOffTheCallbackThreadAndTheBackendWorksAfterwards) {
  CpuBackend owner = make();
  CpuBackend clone = owner;
  struct Tally {
    std::atomic<int> ops{0}, sessions{0}, scopes_rejected{0}, tasks{0};
  } here, elsewhere;
  auto child = [&](Tally& t) {
    ++t.tasks;
    try {
      if (add_and_sum(clone, 4) == expected_sum(4)) ++t.ops;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::RuntimeState);
    }
    try {
      clone.with_session([](Session&) {});
      ++t.sessions;
    } catch (const ContractViolation&) {
    }
    try {
      clone.with_execution_scope([] {});
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::RuntimeState) ++t.scopes_rejected;
    }
  };
  owner.with_execution_scope([&] {
    const auto callback_thread = std::this_thread::get_id();
    tbb::task_group tg;
    for (int i = 0; i < 8; ++i)
      tg.run([&] { child(std::this_thread::get_id() == callback_thread ? here : elsewhere); });
    tg.wait();
    if (threads() > 1) {
      EXPECT_TRUE(test_support::run_on_other_tbb_thread([&] { child(elsewhere); }))
          << "no worker of the backend's arena picked up a child task";
    }
    EXPECT_EQ(add_and_sum(clone, 8), expected_sum(8)) << "the callback thread keeps its loan";
  });
  if (threads() == 1)
    EXPECT_EQ(elsewhere.tasks.load(), 0) << "budget 1: tasks stay on the callback thread";
  EXPECT_EQ(here.ops.load(), here.tasks.load()) << "on the callback thread ops take the loan";
  EXPECT_EQ(here.sessions.load(), here.tasks.load());
  EXPECT_EQ(here.scopes_rejected.load(), here.tasks.load());
  EXPECT_EQ(elsewhere.ops.load(), 0) << "off the callback thread every entry is rejected";
  EXPECT_EQ(elsewhere.sessions.load(), 0);
  EXPECT_EQ(elsewhere.scopes_rejected.load(), elsewhere.tasks.load());
  EXPECT_EQ(here.tasks.load() + elsewhere.tasks.load(), 8 + (threads() > 1 ? 1 : 0));
  EXPECT_EQ(add_and_sum(owner, 40), expected_sum(40));
  EXPECT_EQ(owner.with_execution_scope([&] { return session_sum(owner); }), 6);
}

TEST_P(Scope, ExternalDomainIsUnsupportedAndKeepsOperationLevelAdmission) {
  tbb::task_arena arena(2);
  CpuBackend ext = external_backend(arena, CpuSet{CpuSet::process_allowed().first()}, kind());
  EXPECT_EQ(error_kind_of([&] { ext.with_execution_scope([] { return 1; }); }),
            ErrorKind::Unsupported);
  EXPECT_EQ(ext.executor_entries(), 0u);
  EXPECT_EQ(add_and_sum(ext, 12), expected_sum(12));
  EXPECT_EQ(ext.executor_entries(), 1u);
}

TEST_P(Scope, NoAddedHeapAllocationOnTheAdmissionPath) {
  CpuBackend owner = make();
  for (int i = 0; i < 5; ++i)
    run_operation(owner, [](ExecContext& ctx) { StoragePtr s(ctx.allocate(32)); });
  long sink = 0;
  const long c0 = counting_new::count();
  for (int i = 0; i < 500; ++i) sink += run_operation(owner, [&](ExecContext&) { return i; });
  const long c1 = counting_new::count();
  EXPECT_EQ(c1 - c0, 0) << "ordinary entry outside a scope allocated";
  owner.with_execution_scope([&] {
    const long s0 = counting_new::count();
    for (int i = 0; i < 500; ++i) {
      sink += run_operation(owner, [&](ExecContext&) { return i; });
      owner.with_session([&](Session&) { ++sink; });
    }
    EXPECT_EQ(counting_new::count() - s0, 0) << "operation loans allocated";
  });
  EXPECT_GT(sink, 0);
}

// Blas kind only: the provider-exclusive permit is held for the whole callback.
class BlasScope : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Budgets, BlasScope, ::testing::Values(1, 4));

TEST_P(BlasScope, HoldsProviderExclusionUntilTheCallbackReturnsOrThrows) {
  CpuBackendOptions o;
  o.threads = GetParam();
  o.kind = BackendKind::blas;
  CpuBackend blas(o);
  CpuBackend other_blas(o);
  CpuBackend native(CpuBackendOptions{.threads = 1});
  blas.with_execution_scope([&] {
    EXPECT_FALSE(other_blas.try_acquire_permit().has_value());
    EXPECT_FALSE(native.try_acquire_permit().has_value())
        << "provider-exclusive conflicts with every set";
    EXPECT_EQ(add_and_sum(blas, 10), expected_sum(10));
    EXPECT_FALSE(other_blas.try_acquire_permit().has_value())
        << "still held after an op inside the scope";
  });
  EXPECT_TRUE(other_blas.try_acquire_permit().has_value());
  struct Boom {};
  EXPECT_THROW(blas.with_execution_scope([&] {
    EXPECT_FALSE(other_blas.try_acquire_permit().has_value());
    throw Boom{};
  }),
               Boom);
  EXPECT_TRUE(other_blas.try_acquire_permit().has_value());
  EXPECT_EQ(add_and_sum(other_blas, 10), expected_sum(10));
}

TEST(NativeScope, DisjointBackendsStayIndependentDuringAScope) {
  auto [a_set, b_set] = test_support::two_cpu_sets();
  if (a_set == b_set) GTEST_SKIP() << "needs two CPUs";
  CpuBackend a(CpuBackendOptions{.threads = 1, .placement = a_set});
  CpuBackend b(CpuBackendOptions{.threads = 1, .placement = b_set});
  CpuBackend overlapping(CpuBackendOptions{.threads = 1, .placement = a_set});
  a.with_execution_scope([&] {
    EXPECT_TRUE(b.try_acquire_permit().has_value());
    EXPECT_FALSE(overlapping.try_acquire_permit().has_value());
  });
}
