// Admission outside a scope adds no heap allocation (counting global operator new).
#include <gtest/gtest.h>

#include "common/counting_new.hpp"
#include "cpu/admission.hpp"

using namespace tenferro;
using detail::ExecContext;
using detail::run_operation;

class NoAlloc : public ::testing::TestWithParam<std::tuple<int, BackendKind>> {};
INSTANTIATE_TEST_SUITE_P(BudgetsAndKinds, NoAlloc,
                         ::testing::Combine(::testing::Values(1, 2, 4),
                                            ::testing::Values(BackendKind::native,
                                                              BackendKind::blas)));

TEST_P(NoAlloc, EmptyOperationsSessionsAndWarmPoolAllocations) {
  CpuBackendOptions o;
  o.threads = std::get<0>(GetParam());
  o.kind = std::get<1>(GetParam());
  CpuBackend b(o);
  // Warm up: lazy arena start, TLS, pool classes.
  for (int i = 0; i < 10; ++i) {
    run_operation(b, [](ExecContext& ctx) { StoragePtr s(ctx.allocate(64)); });
    b.with_session([](Session&) {});
  }
  long sum = 0;
  const long before = counting_new::count();
  for (int i = 0; i < 1000; ++i) sum += run_operation(b, [&](ExecContext&) { return i; });
  const long after_ops = counting_new::count();
  for (int i = 0; i < 1000; ++i) {
    StoragePtr s = run_operation(b, [](ExecContext& ctx) { return StoragePtr(ctx.allocate(48)); });
    sum += static_cast<long>(s->bytes);
  }
  const long after_alloc = counting_new::count();
  for (int i = 0; i < 1000; ++i)
    b.with_session([&](Session&) { sum += run_operation(b, [&](ExecContext&) { return 1; }); });
  const long after_sessions = counting_new::count();
  EXPECT_EQ(after_ops - before, 0) << "run_operation allocated";
  EXPECT_EQ(after_alloc - after_ops, 0) << "a warm buffer-pool allocation allocated";
  EXPECT_EQ(after_sessions - after_alloc, 0) << "with_session allocated";
  EXPECT_GT(sum, 0);
  // The counter is live: a visible allocation is seen.
  const long c0 = counting_new::count();
  auto* p = new int(1);
  EXPECT_EQ(counting_new::count() - c0, 1);
  delete p;
}
