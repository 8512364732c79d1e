// Runtime: prepare/run, plan cache, epochs, errors, allocation budget (label: trace).
#include <gtest/gtest.h>

#include "common/trace_helpers.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using trace_test::near;

namespace {
// Kernels (copies) whose outputs feed views and more kernels, so that buffers get reused, plus
// outputs that are views of an input, of a fresh buffer, and a constant.
Program mixed_program(const Tensor& constant) {
  return trace(
      [&](std::span<const Tensor> x) {
        Tensor t = copy(permute(x[0], {2, 0, 1}));        // kernel -> workspace
        Tensor u = copy(reshape(t, {4, 6}).transpose());  // static view of it, then kernel
        Tensor v = copy(permute(reshape(u, {6, 2, 2}), {1, 0, 2}));
        Tensor w = slice(reshape(v, {24}), 0, 1, 24, 3);     // view of a fresh output root
        Tensor r = copy(reshape(x[0], {6, 4}).transpose());  // reshape may need its fallback
        return std::vector<Tensor>{w, v, reshape(x[0], {24}), constant, r};
      },
      {ValueSpec{{2, 3, 4}}});
}

std::vector<Tensor> eager_mixed(const Tensor& x, const Tensor& constant) {
  Tensor t = copy(permute(x, {2, 0, 1}));
  Tensor u = copy(reshape(t, {4, 6}).transpose());
  Tensor v = copy(permute(reshape(u, {6, 2, 2}), {1, 0, 2}));
  return {slice(reshape(v, {24}), 0, 1, 24, 3), v, reshape(x, {24}), constant,
          copy(reshape(x, {6, 4}).transpose())};
}

ErrorKind kind_of_run(const Runtime& rt, const PreparedProgram& plan, std::vector<Tensor> in) {
  try {
    rt.run(plan, in);
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorKind::BackendFailure;  // stands for "no error"
}
}  // namespace

class TraceRuntimeBudget : public ::testing::TestWithParam<int> {};

TEST_P(TraceRuntimeBudget, ReplayEqualsEagerAndOutputsAreIndependent) {
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = GetParam()}));
  Tensor k = arange(3);
  PreparedProgram plan = rt.prepare(mixed_program(k));
  EXPECT_EQ(plan.kernel_steps(), 4u);
  std::vector<Tensor> first;
  for (int i = 0; i < 20; ++i) {
    Tensor x = randn({2, 3, 4}, static_cast<std::uint64_t>(i));
    if (i % 2) x = permute(copy(permute(x, {2, 1, 0})), {2, 1, 0});  // same values, strided
    std::vector<Tensor> got = rt.run(plan, {x}), want = eager_mixed(x, k);
    ASSERT_EQ(got.size(), 5u);
    for (std::size_t j = 0; j < 5; ++j) EXPECT_TRUE(near(got[j], want[j])) << i << " " << j;
    if (i == 0) first = got;
  }
  // Earlier outputs are not overwritten by later runs; the constant output is a copy.
  EXPECT_TRUE(near(first[1], eager_mixed(randn({2, 3, 4}, 0), k)[1]));
  first[3].set<double>({0}, 42.0);
  EXPECT_EQ(k.at<double>({0}), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Budgets, TraceRuntimeBudget, ::testing::Values(1, 4));

TEST(TraceRuntime, WorkspaceReusesBuffersByLiveness) {
  // A chain of five copies of [64] f64: each buffer dies when the next copy has read it, so two
  // buffers suffice for the four intermediates (the last copy is the output).
  Program p = trace(
      [](std::span<const Tensor> x) {
        Tensor t = x[0];
        for (int i = 0; i < 5; ++i) t = copy(t.transpose(0, 1).transpose(0, 1).reshape({8, 8}));
        return t;
      },
      {ValueSpec{{8, 8}}});
  Runtime rt;
  PreparedProgram plan = rt.prepare(p);
  EXPECT_EQ(plan.kernel_steps(), 5u);
  EXPECT_EQ(plan.workspace_bytes(), 2u * 64u * 8u);
  Tensor x = randn({8, 8}, 3);
  EXPECT_TRUE(near(rt.run(plan, {x})[0], x));
}

TEST(TraceRuntime, PlanCacheHitsMissesEvictions) {
  Runtime rt(RuntimeOptions{.backend = {.threads = 1}, .plan_cache_capacity = 2});
  Tensor k = arange(3);
  Program a = mixed_program(k), a2 = mixed_program(k);
  PreparedProgram p1 = rt.prepare(a);
  PreparedProgram p2 = rt.prepare(a2);  // an equal program traced again: a hit
  PlanCacheStats s = rt.cache_stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.size, 1u);
  EXPECT_EQ(s.capacity, 2u);
  EXPECT_EQ(p1.workspace_bytes(), p2.workspace_bytes());
  // Other input specs are another key (shapes re-inferred at prepare).
  std::vector<ValueSpec> bigger{ValueSpec{{2, 3, 8}}};
  Program flat = trace([](std::span<const Tensor> x) { return reshape(copy(x[0]), {-1}); },
                       {ValueSpec{{2, 3, 4}}});
  PreparedProgram pb = rt.prepare(flat, bigger);
  EXPECT_EQ(pb.output_specs()[0], (ValueSpec{{48}}));
  EXPECT_TRUE(near(rt.run(pb, {arange(48).reshape({2, 3, 8})})[0], arange(48)));
  rt.prepare(flat);  // third entry: evicts the least recently used (mixed program)
  s = rt.cache_stats();
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.size, 2u);
  rt.prepare(a);
  EXPECT_EQ(rt.cache_stats().misses, 4u);
  rt.clear_cache();
  EXPECT_EQ(rt.cache_stats().size, 0u);
  // A different constant value is a different program.
  rt.prepare(mixed_program(arange(3)));
  rt.prepare(mixed_program(full({3}, 5.0)));
  EXPECT_EQ(rt.cache_stats().misses, 6u);
}

TEST(TraceRuntime, StaleEpochAndOtherRuntimeAreRuntimeStateErrors) {
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1})), other;
  EXPECT_NE(rt.id(), other.id());
  Runtime copy_of_rt = rt;  // a handle: same identity
  EXPECT_EQ(copy_of_rt.id(), rt.id());
  Tensor k = arange(3);
  PreparedProgram plan = rt.prepare(mixed_program(k));
  Tensor x = randn({2, 3, 4}, 1);
  EXPECT_EQ(kind_of_run(other, plan, {x}), ErrorKind::RuntimeState);
  EXPECT_NO_THROW(copy_of_rt.run(plan, {x}));
  std::uint64_t e = rt.epoch();
  rt.reconfigure(CpuBackendOptions{.threads = 4});
  EXPECT_EQ(rt.epoch(), e + 1);
  EXPECT_EQ(rt.backend().threads(), 4);
  try {
    rt.run(plan, {x});
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::RuntimeState);
    EXPECT_NE(err.message().find("epoch"), std::string::npos);
  }
  EXPECT_EQ(rt.cache_stats().size, 0u);  // stale plans were dropped
  PreparedProgram again = rt.prepare(mixed_program(k));
  EXPECT_EQ(again.epoch(), e + 1);
  EXPECT_TRUE(near(rt.run(again, {x})[1], eager_mixed(x, k)[1]));
  rt.set_backend(CpuBackend(CpuBackendOptions{.threads = 1}));
  EXPECT_EQ(kind_of_run(rt, again, {x}), ErrorKind::RuntimeState);
  EXPECT_EQ(kind_of_run(rt, PreparedProgram(), {x}), ErrorKind::RuntimeState);
}

TEST(TraceRuntime, WrongInputsThrowAndLeaveOutputsUntouched) {
  Runtime rt;
  Tensor k = arange(3);
  PreparedProgram plan = rt.prepare(mixed_program(k));
  EXPECT_EQ(kind_of_run(rt, plan, {}), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of_run(rt, plan, {zeros({2, 3, 5})}), ErrorKind::ShapeMismatch);
  EXPECT_EQ(kind_of_run(rt, plan, {zeros({2, 3, 4}, DType::c64)}), ErrorKind::DTypeMismatch);
  EXPECT_EQ(kind_of_run(rt, plan, {Tensor()}), ErrorKind::InvalidArgument);
  std::vector<Tensor> outs(5, scalar_tensor(7.0));
  EXPECT_THROW(rt.run_into(plan, std::vector<Tensor>{zeros({3})}, outs), Error);
  for (const Tensor& t : outs) EXPECT_EQ(t.item<double>(), 7.0);
  // The plan still works after the errors.
  Tensor x = randn({2, 3, 4}, 9);
  EXPECT_TRUE(near(rt.run(plan, {x})[0], eager_mixed(x, k)[0]));
  // Shape errors at prepare time for other input specs.
  std::vector<ValueSpec> bad{ValueSpec{{2, 3}}};
  EXPECT_THROW(rt.prepare(mixed_program(k), bad), Error);
}

TEST(TraceRuntime, RunAllocatesOnlyItsOutputs) {
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  Tensor k = arange(3);
  PreparedProgram plan = rt.prepare(mixed_program(k));
  Tensor x = randn({2, 3, 4}, 5);
  Tensor xs = permute(copy(permute(x, {2, 1, 0})), {2, 1, 0});  // strided: reshape falls back
  std::vector<Tensor> outs(5);
  // Warm: nothing lazily made on first use is counted. Two runs, because view results get fresh
  // layout records (Note [Layout record]) from a per-thread free list, which holds a run's worth
  // only once the first run's results in `outs` have been replaced and their records returned.
  rt.run_into(plan, {&x, 1}, outs);
  rt.run_into(plan, {&x, 1}, outs);
  std::uint64_t before = trace_test::allocations_on_this_thread();
  (void)Tensor::empty({24}, DType::f64);
  const std::uint64_t per_buffer = trace_test::allocations_on_this_thread() - before;
  ASSERT_GT(per_buffer, 0u);  // the counter works
  // Fresh buffers this program returns: v (w is a view of it), r, and the constant's copy; a
  // strided input adds one for reshape(x) (an output), the other fallback is in the workspace.
  before = trace_test::allocations_on_this_thread();
  rt.run_into(plan, {&x, 1}, outs);
  EXPECT_LE(trace_test::allocations_on_this_thread() - before, 3 * per_buffer);
  before = trace_test::allocations_on_this_thread();
  rt.run_into(plan, {&xs, 1}, outs);
  EXPECT_LE(trace_test::allocations_on_this_thread() - before, 4 * per_buffer);
  EXPECT_TRUE(near(outs[4], copy(reshape(x, {6, 4}).transpose())));
  before = trace_test::allocations_on_this_thread();
  for (int i = 0; i < 100; ++i) rt.run_into(plan, {&x, 1}, outs);
  EXPECT_LE(trace_test::allocations_on_this_thread() - before, 300 * per_buffer);
}

TEST(TraceRuntime, OneAdmissionPerRunAndRunsInsideAnExecutionScope) {
  Program p = grad(trace([](std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); },
                         {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}}));
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
  for (int threads : {1, 4}) {
    CpuBackend cpu(CpuBackendOptions{.threads = threads});
    Runtime rt(cpu);
    PreparedProgram plan = rt.prepare(p);
    ASSERT_EQ(plan.kernel_steps(), 2u);
    std::uint64_t before = cpu.executor_entries();
    std::vector<Tensor> want = rt.run(plan, {a, b});
    EXPECT_EQ(cpu.executor_entries() - before, 1u) << threads;  // both kernels, one entry
    // Inside the shared execution scope the run takes an operation loan: no new entry at all.
    before = cpu.executor_entries();
    std::vector<Tensor> got = cpu.with_execution_scope([&] {
      std::vector<Tensor> r;
      for (int i = 0; i < 10; ++i) r = rt.run(plan, {a, b});
      return r;
    });
    EXPECT_EQ(cpu.executor_entries() - before, 1u) << threads;
    EXPECT_TRUE(near(got[0], want[0]));
    EXPECT_TRUE(near(got[1], want[1]));
    // A scope of another witness rejects the run (fallible path) without running anything.
    CpuBackend other(CpuBackendOptions{.threads = 1});
    EXPECT_THROW(other.with_execution_scope([&] { return rt.run(plan, {a, b}); }), Error);
  }
}
