// High-level contract of the shared execution scope (issue 7, tests 1, 6 and 7): eager ops,
// autodiff (recording, backward, grad, vjp, jvp) and prepared traces through copies of one
// backend witness give the closed-form values before, twice inside and after a scope; the whole
// scope is ONE executor entry; a bad op inside a scope throws and the scope goes on working.
// Every case runs at budgets 1 and 4, native and blas kinds.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "common/budget_kind.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

std::vector<double> values(const Tensor& t) { return t.contiguous().to_vector<double>(); }

void expect_near_all(const Tensor& got, const std::vector<double>& want, const char* what) {
  std::vector<double> g = values(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], want[i], 1e-10) << what << " at " << i;
}

// sum(bmm(a, b)) with a, b of shape [batch, n, n] and its closed-form derivatives.
struct BmmCase {
  std::int64_t n, batch;
  Tensor a, b, ta, tb, ct;
  double value = 0, jvp_value = 0;
  std::vector<double> grad_a, grad_b;

  BmmCase(std::int64_t n_, std::int64_t batch_, std::uint64_t seed) : n(n_), batch(batch_) {
    Dims shape{batch, n, n};
    a = randn(shape, seed);
    b = randn(shape, seed + 1);
    ta = randn(shape, seed + 2);
    tb = randn(shape, seed + 3);
    ct = scalar_tensor(0.75);
    auto A = a.to_vector<double>(), B = b.to_vector<double>();
    auto TA = ta.to_vector<double>(), TB = tb.to_vector<double>();
    grad_a.assign(A.size(), 0.0);
    grad_b.assign(B.size(), 0.0);
    auto at = [&](std::int64_t q, std::int64_t i, std::int64_t j) { return (q * n + i) * n + j; };
    for (std::int64_t q = 0; q < batch; ++q)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t k = 0; k < n; ++k)
          for (std::int64_t j = 0; j < n; ++j) {
            value += A[at(q, i, k)] * B[at(q, k, j)];
            jvp_value += TA[at(q, i, k)] * B[at(q, k, j)] + A[at(q, i, k)] * TB[at(q, k, j)];
            grad_a[at(q, i, k)] += B[at(q, k, j)];
            grad_b[at(q, k, j)] += A[at(q, i, k)];
          }
  }
};

Tensor sum_bmm(std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); }

// Prepared programs of the primal, grad, vjp and jvp of one function, on one runtime.
struct Plans {
  PreparedProgram primal, grad, vjp, jvp;
  Plans(Runtime& rt, const Program& p)
      : primal(rt.prepare(p)),
        grad(rt.prepare(tenferro::grad(p))),
        vjp(rt.prepare(tenferro::vjp(p))),
        jvp(rt.prepare(tenferro::jvp(p))) {}
};

// Every mode on `backend` (a copy of the witness) and `rt` (built on another copy).
void check_bmm(const CpuBackend& backend, const Runtime& rt, const Plans& plans, const BmmCase& c) {
  BackendGuard use(backend);
  // Eager primal.
  EXPECT_NEAR(sum(bmm(c.a, c.b)).item<double>(), c.value, 1e-10);
  // Eager backward (fresh leaves each time, so gradients do not accumulate across checks).
  Tensor a = detach(c.a), b = detach(c.b);
  a.requires_grad_();
  b.requires_grad_();
  backward(sum(bmm(a, b)));
  expect_near_all(a.grad(), c.grad_a, "backward grad_a");
  expect_near_all(b.grad(), c.grad_b, "backward grad_b");
  // Functional grad / vjp / jvp.
  auto g = grad(sum_bmm, {c.a, c.b});
  expect_near_all(g[0], c.grad_a, "grad a");
  expect_near_all(g[1], c.grad_b, "grad b");
  auto v = vjp(sum_bmm, {c.a, c.b});
  EXPECT_NEAR(v.outputs[0].item<double>(), c.value, 1e-10);
  auto cts = v.pullback({c.ct});
  std::vector<double> ga = c.grad_a, gb = c.grad_b;
  for (double& x : ga) x *= 0.75;
  for (double& x : gb) x *= 0.75;
  expect_near_all(cts[0], ga, "vjp a");
  expect_near_all(cts[1], gb, "vjp b");
  auto j = jvp(sum_bmm, {c.a, c.b}, {c.ta, c.tb});
  EXPECT_NEAR(j.outputs[0].item<double>(), c.value, 1e-10);
  EXPECT_NEAR(j.tangents[0].item<double>(), c.jvp_value, 1e-10);
  // Prepared traces.
  EXPECT_NEAR(rt.run(plans.primal, {c.a, c.b})[0].item<double>(), c.value, 1e-10);
  auto pg = rt.run(plans.grad, {c.a, c.b});
  expect_near_all(pg[0], c.grad_a, "prepared grad a");
  expect_near_all(pg[1], c.grad_b, "prepared grad b");
  auto pv = rt.run(plans.vjp, {c.a, c.b, c.ct});
  expect_near_all(pv[0], ga, "prepared vjp a");
  expect_near_all(pv[1], gb, "prepared vjp b");
  auto pj = rt.run(plans.jvp, {c.a, c.b, c.ta, c.tb});
  EXPECT_NEAR(pj[0].item<double>(), c.value, 1e-10);
  EXPECT_NEAR(pj[1].item<double>(), c.jvp_value, 1e-10);
}

// sum(x * x) for a vector of n: value sum x^2, gradient 2x, jvp 2 x.t.
void check_sum_sq(const CpuBackend& backend, const Runtime& rt, const PreparedProgram& grad_plan,
                  std::int64_t n) {
  BackendGuard use(backend);
  Tensor x = randn({n}, 100 + static_cast<std::uint64_t>(n)), t = randn({n}, 7);
  auto xs = x.to_vector<double>(), ts = t.to_vector<double>();
  double value = 0, dir = 0;
  std::vector<double> g2(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    value += xs[i] * xs[i];
    dir += 2 * xs[i] * ts[i];
    g2[i] = 2 * xs[i];
  }
  auto f = [](std::span<const Tensor> v) { return sum(v[0] * v[0]); };
  EXPECT_NEAR(f(std::span<const Tensor>(&x, 1)).item<double>(), value, 1e-9 * n);
  Tensor leaf = detach(x);
  leaf.requires_grad_();
  backward(sum(leaf * leaf));
  expect_near_all(leaf.grad(), g2, "sum_sq backward");
  auto vg = value_and_grad(f, {x});
  EXPECT_NEAR(vg.value.item<double>(), value, 1e-9 * n);
  expect_near_all(vg.grads[0], g2, "sum_sq grad");
  EXPECT_NEAR(jvp(f, {x}, {t}).tangents[0].item<double>(), dir, 1e-9 * n);
  expect_near_all(rt.run(grad_plan, {x})[0], g2, "sum_sq prepared grad");
}

class ScopeValues : public tenferro::testing::BudgetKindTest {};
INSTANTIATE_TEST_SUITE_P(BudgetsAndKinds, ScopeValues, tenferro::testing::budgets_and_kinds(),
                         tenferro::testing::budget_kind_name);

TEST_P(ScopeValues, BmmPrimalAndDerivativesBeforeInsideAndAfter) {
  const CpuBackend owner = make();
  const CpuBackend eager_witness = owner;  // copies of one witness
  Runtime rt(owner);
  Runtime other_rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  for (auto [n, batch] : {std::pair<std::int64_t, std::int64_t>{2, 16}, {4, 3}, {16, 1}}) {
    SCOPED_TRACE("n=" + std::to_string(n) + " batch=" + std::to_string(batch));
    BmmCase c(n, batch, 11 * static_cast<std::uint64_t>(n));
    Program p = trace(sum_bmm, {ValueSpec{{batch, n, n}}, ValueSpec{{batch, n, n}}});
    Plans plans(rt, p);
    check_bmm(eager_witness, rt, plans, c);  // before

    std::uint64_t before = owner.executor_entries();
    owner.with_execution_scope([&] {
      check_bmm(eager_witness, rt, plans, c);
      check_bmm(eager_witness, rt, plans, c);
      // A prepared plan of another runtime is still rejected inside the scope.
      try {
        other_rt.run(plans.primal, {c.a, c.b});
        ADD_FAILURE() << "cross-runtime run must throw";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::RuntimeState);
      }
    });
    EXPECT_EQ(owner.executor_entries(), before + 1) << "the whole scope is one executor entry";

    check_bmm(eager_witness, rt, plans, c);  // after
    std::uint64_t after = owner.executor_entries();
    {
      BackendGuard use(eager_witness);
      (void)bmm(c.a, c.b);
    }
    EXPECT_EQ(owner.executor_entries(), after + 1) << "one op after the scope enters once";
  }
}

TEST_P(ScopeValues, SumOfSquaresAndRecoveryFromBadOps) {
  const CpuBackend owner = make();
  Runtime rt(owner);
  for (std::int64_t n : {3, 64, 1024}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    Program p = trace([](std::span<const Tensor> v) { return sum(v[0] * v[0]); }, {ValueSpec{{n}}});
    PreparedProgram g = rt.prepare(grad(p));
    check_sum_sq(owner, rt, g, n);
    std::uint64_t before = owner.executor_entries();
    owner.with_execution_scope([&] {
      check_sum_sq(owner, rt, g, n);
      {
        BackendGuard use(owner);
        Tensor x = ones({n}), y = ones({n + 1});
        try {
          (void)(x + y);
          ADD_FAILURE() << "mismatched shapes must throw";
        } catch (const Error& e) {
          EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
        }
        try {
          (void)x.reshape({n + 1});
          ADD_FAILURE() << "invalid reshape must throw";
        } catch (const Error& e) {
          EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
        }
        EXPECT_THROW(rt.run(g, {y}), Error);
      }
      check_sum_sq(owner, rt, g, n);  // the scope goes on working after the errors
    });
    EXPECT_EQ(owner.executor_entries(), before + 1);
    check_sum_sq(owner, rt, g, n);
  }
}

}  // namespace
