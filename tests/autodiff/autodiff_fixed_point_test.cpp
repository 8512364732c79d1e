// fixed_point (tenferro/fixed_point.hpp, docs/fixed-point.md): the implicit derivative against
// analytic values and finite differences of the whole fixed-point map (re-solved at perturbed
// params to a tight tolerance), on both derivative routes (dense LU for small x, GMRES), real and
// complex (a non-holomorphic f), eager backward / grad / vjp / jvp; and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro {
namespace {

using testing::expect_error;

double max_abs_diff(const Tensor& a, const Tensor& b) {
  NoGradGuard no_grad;
  return cast(max(abs(sub(detach(a), detach(b)))), DType::f64).item<double>();
}

FixedPointOptions tight(std::int64_t dense_threshold = 64) {
  FixedPointOptions o;
  o.tol = 1e-14;
  o.dense_threshold = dense_threshold;
  return o;
}

// ---- 1. x = cos(x) a (the example) ----

Tensor cos_times(std::span<const Tensor> in) { return mul(cos(in[0]), in[1]); }

Tensor cos_fixed_point(const Tensor& a, const FixedPointOptions& o) {
  return fixed_point(cos_times, zeros(a.shape()), {a}, o);
}

// d x*/d a = cos(x*) / (1 + a sin(x*)), elementwise.
Tensor cos_analytic_grad(const Tensor& a, const Tensor& x) {
  return div(cos(x), add(mul(a, sin(x)), 1.0));
}

Tensor a_values(std::int64_t n) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(0.2 + 0.8 * double(i) / double(n));
  return from_vector<double>(v, {n});
}

TEST(FixedPoint, CosTimesAMatchesTheAnalyticGradientOnBothRoutes) {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{5}, std::int64_t{200}}) {
    for (std::int64_t threshold : {std::int64_t{64}, std::int64_t{0}}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", dense_threshold = " + std::to_string(threshold));
      Tensor a = a_values(n).requires_grad_();
      const Tensor x = cos_fixed_point(a, tight(threshold));
      EXPECT_LT(max_abs_diff(x, mul(cos(detach(x)), detach(a))), 1e-13);
      backward(sum(x));
      const Tensor expected = cos_analytic_grad(detach(a), detach(x));
      EXPECT_LT(max_abs_diff(a.grad(), expected), 1e-10);
      // Functional reverse and forward mode agree with it.
      const Tensor ad = detach(a);
      const Tensor g = grad(
          [&](std::span<const Tensor> in) { return sum(cos_fixed_point(in[0], tight(threshold))); },
          {ad})[0];
      EXPECT_LT(max_abs_diff(g, expected), 1e-10);
      const Tensor t = randn({n}, 3);
      const JvpResult j =
          jvp([&](std::span<const Tensor> in) { return cos_fixed_point(in[0], tight(threshold)); },
              {ad}, {t});
      EXPECT_LT(max_abs_diff(j.tangents[0], mul(expected, t)), 1e-10);
    }
  }
}

TEST(FixedPoint, ClosedOverParametersInEveryMode) {
  // a captured by f instead of passed as a param: reverse and forward mode both see it (the
  // probe f(x*) records it at the enclosing level, and the rule's own jvp of f is a level of its
  // own, Note [Autodiff levels]), on both routes.
  for (std::int64_t threshold : {std::int64_t{64}, std::int64_t{0}}) {
    SCOPED_TRACE("dense_threshold = " + std::to_string(threshold));
    const FixedPointOptions o = tight(threshold);
    auto closed = [&](std::span<const Tensor> in) {
      const Tensor a = in[0];
      return fixed_point([a](std::span<const Tensor> s) { return mul(cos(s[0]), a); },
                         zeros(a.shape()), std::span<const Tensor>(), o);
    };
    const Tensor a = a_values(5), t = a_values(5) * 0.5 + 0.1;
    const Tensor x = cos_fixed_point(a, o);
    const Tensor d = cos_analytic_grad(a, x);
    EXPECT_LT(
        max_abs_diff(grad([&](std::span<const Tensor> in) { return sum(closed(in)); }, {a})[0], d),
        1e-10);
    const Tensor dir[1] = {t};
    EXPECT_LT(max_abs_diff(jvp(ScalarFn(closed), std::span<const Tensor>(&a, 1), dir).tangents[0],
                           mul(d, t)),
              1e-10);
  }
}

TEST(FixedPoint, CosTimesAAgreesWithFiniteDifferences) {
  for (std::int64_t threshold : {std::int64_t{64}, std::int64_t{0}}) {
    auto f = [threshold](std::span<const Tensor> in) {
      return std::vector<Tensor>{cos_fixed_point(in[0], tight(threshold))};
    };
    EXPECT_TRUE(adtest::check_vjp(f, {a_values(4)}));
    EXPECT_TRUE(adtest::check_jvp(f, {a_values(4)}));
  }
}

// ---- complex, not holomorphic: x = a cos(x) + b conj(x) ----

Tensor complex_map(std::span<const Tensor> in) {
  return add(mul(in[1], cos(in[0])), mul(in[2], conj(in[0])));
}

TEST(FixedPoint, ComplexNonHolomorphicAgreesWithFiniteDifferences) {
  for (std::int64_t n : {std::int64_t{3}, std::int64_t{40}}) {
    for (std::int64_t threshold : {std::int64_t{64}, std::int64_t{0}}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", dense_threshold = " + std::to_string(threshold));
      NoGradGuard no_grad;
      const Tensor a = add(mul(randn({n}, 11, DType::c128), 0.2), 0.4);
      const Tensor b = mul(randn({n}, 12, DType::c128), 0.15);
      auto f = [threshold](std::span<const Tensor> in) {
        return std::vector<Tensor>{
            fixed_point(complex_map, zeros(in[0].shape(), DType::c128), in, tight(threshold))};
      };
      EXPECT_TRUE(adtest::check_vjp(f, {a, b}));
      EXPECT_TRUE(adtest::check_jvp(f, {a, b}));
    }
  }
}

// ---- 2. a power method: the dominant eigenvector of A(theta) = A0 + theta_0 B0 + theta_1 B1 ----

struct PowerProblem {
  Tensor a0, b0, b1, c;
  std::int64_t n;

  PowerProblem(std::int64_t n_, std::uint64_t seed) : n(n_) {
    NoGradGuard no_grad;
    std::vector<double> w{4.0};  // dominant and positive: v -> A v / |A v| keeps its sign
    for (std::int64_t i = 1; i < n; ++i) w.push_back(-2.0 + 4.0 * double(i) / double(n));
    const Tensor q = qr(randn({n, n}, seed)).Q;
    a0 = matmul(mul(q, from_vector<double>(w, {n}).unsqueeze(0)), q.transpose());
    a0 = mul(add(a0, a0.transpose()), 0.5);
    const Tensor g0 = randn({n, n}, seed + 1), g1 = randn({n, n}, seed + 2);
    b0 = mul(add(g0, g0.transpose()), 0.1);
    b1 = mul(add(g1, g1.transpose()), 0.1);
    c = randn({n}, seed + 3);
  }
  Tensor matrix(const Tensor& theta) const {
    return add(a0, add(mul(b0, slice(theta, 0, 0, 1)), mul(b1, slice(theta, 0, 1, 2))));
  }
  // Invariant under v -> -v, so eigh's sign convention does not matter.
  Tensor loss(const Tensor& v) const {
    const Tensor cv = sum(mul(c, v));
    return add(mul(cv, cv), sum(mul(mul(v, v), mul(v, v))));
  }
  Tensor top_vector(const Tensor& theta, const FixedPointOptions& o) const {
    auto step = [this](std::span<const Tensor> in) {
      const Tensor av = matmul(matrix(in[1]), in[0]);
      return div(av, norm(av));
    };
    return fixed_point(step, full({n}, 1.0 / std::sqrt(double(n))), {theta}, o);
  }
  Tensor top_vector_by_eigh(const Tensor& theta) const {
    return slice(eigh(matrix(theta)).eigenvectors, 1, n - 1, n).reshape({n});
  }
};

TEST(FixedPoint, PowerMethodMatchesTheEigenvectorDerivative) {
  for (std::int64_t n : {std::int64_t{6}, std::int64_t{90}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const PowerProblem p(n, 40);
    const Tensor theta = from_vector<double>({0.3, -0.2}, {2});
    const Tensor g_fp =
        grad([&](std::span<const Tensor> in) { return p.loss(p.top_vector(in[0], tight())); },
             {theta})[0];
    const Tensor g_eigh =
        grad([&](std::span<const Tensor> in) { return p.loss(p.top_vector_by_eigh(in[0])); },
             {theta})[0];
    EXPECT_LT(max_abs_diff(g_fp, g_eigh), 1e-9 * (1 + max_abs_diff(g_eigh, zeros({2}))));
    auto f = [&](std::span<const Tensor> in) {
      return std::vector<Tensor>{p.loss(p.top_vector(in[0], tight()))};
    };
    EXPECT_TRUE(adtest::check_vjp(f, {theta}));
  }
}

// ---- 5. the backward pass does not depend on the forward iteration count ----

TEST(FixedPoint, BackwardCostDoesNotGrowWithIterations) {
  for (std::int64_t threshold : {std::int64_t{64}, std::int64_t{0}}) {
    std::vector<std::int64_t> forward_iterations, backward_calls;
    std::vector<Tensor> grads;
    for (double mixing : {1.0, 0.01}) {
      std::int64_t calls = 0;
      auto f = [&calls](std::span<const Tensor> in) {
        ++calls;
        return mul(cos(in[0]), in[1]);
      };
      Tensor a = a_values(8).requires_grad_();
      FixedPointOptions o = tight(threshold);
      o.mixing = mixing;
      o.max_iterations = 100000;
      const FixedPointResult r = fixed_point_with_info(std::ref(f), zeros({8}), {a}, o);
      // Exactly one call beyond the iterations is recorded: the derivative probe.
      EXPECT_EQ(calls, r.iterations + 1);
      calls = 0;
      backward(sum(r.x));
      forward_iterations.push_back(r.iterations);
      backward_calls.push_back(calls);
      grads.push_back(a.grad());
      EXPECT_LT(max_abs_diff(a.grad(), cos_analytic_grad(detach(a), detach(r.x))), 1e-10);
    }
    EXPECT_GT(forward_iterations[1], 20 * forward_iterations[0]);
    // The pullback of f is built once (dense: it also fills J); GMRES calls jvp's f per step only
    // in forward mode.
    EXPECT_EQ(backward_calls[0], backward_calls[1]);
    EXPECT_LE(backward_calls[0], 1);
    EXPECT_LT(max_abs_diff(grads[0], grads[1]), 1e-10);
  }
}

TEST(FixedPoint, AndersonAndMixingReachTheSameFixedPointFaster) {
  const Tensor a = a_values(50);
  FixedPointOptions plain = tight(), anderson = tight();
  anderson.anderson_depth = 5;
  const FixedPointResult r0 = fixed_point_with_info(cos_times, zeros({50}), {a}, plain);
  const FixedPointResult r1 = fixed_point_with_info(cos_times, zeros({50}), {a}, anderson);
  EXPECT_TRUE(r0.converged && r1.converged);
  EXPECT_LT(r1.iterations, r0.iterations);
  EXPECT_LT(max_abs_diff(r0.x, r1.x), 1e-12);
}

// ---- 4. errors ----

TEST(FixedPointErrors, NonConvergenceNamesResidualAndIterations) {
  FixedPointOptions o;
  o.max_iterations = 3;
  expect_error(ErrorKind::LinAlgError, [&] { cos_fixed_point(a_values(4), o); },
               {"fixed_point", "did not converge", "after 3 iterations", "[4] f64"});
  o.require_convergence = false;
  const FixedPointResult r = fixed_point_with_info(cos_times, zeros({4}), {a_values(4)}, o);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_GT(r.residual, 1e-3);
  expect_error(ErrorKind::LinAlgError,
               [&] {
                 fixed_point([](std::span<const Tensor> in) { return add(mul(in[0], 3.0), 1.0); },
                             zeros({2}), {}, FixedPointOptions{.max_iterations = 2000});
               },
               {"fixed_point", "diverged"});
}

TEST(FixedPointErrors, BadInputNamesShapesAndDTypes) {
  const Tensor a = a_values(4);
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 fixed_point(
                     [](std::span<const Tensor> in) {
                       return concatenate({in[0], in[0]});
                     },
                     zeros({4}), {a});
               },
               {"fixed_point", "x [4] f64", "[8] f64"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] {
                 fixed_point([](std::span<const Tensor> in) { return cast(in[0], DType::f32); },
                             zeros({4}), {a});
               },
               {"fixed_point", "x [4] f64", "[4] f32"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { fixed_point(cos_times, zeros({4}, DType::i64), {a}); },
               {"fixed_point", "x0", "i64"});
  expect_error(ErrorKind::InvalidArgument, [&] { fixed_point(ScalarFn{}, zeros({4}), {a}); },
               {"fixed_point", "empty"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { fixed_point(cos_times, zeros({4}), {a}, FixedPointOptions{.mixing = 0}); },
               {"fixed_point", "mixing"});
}

TEST(FixedPointErrors, SecondOrderIsUnsupported) {
  auto loss = [](std::span<const Tensor> in) { return sum(cos_fixed_point(in[0], tight())); };
  expect_error(ErrorKind::Unsupported, [&] { hvp(loss, {a_values(3)}, {ones({3})}); },
               {"fixed_point", "second derivatives"});
}

// A fixed point that is not isolated: f(x, q) = x / |x| sum(q) keeps any direction, so I - J =
// u u^T (u = x / |x|) has rank 1. The dense route's LU found pivots at the rounding level, not
// zero, and returned a meaningless gradient ([4, 4, 4] for x0 = 1, [3.5, ...] for x0 = (1, 2, 2))
// and tangent with no error, where docs/fixed-point.md promises LinAlgError.
TEST(FixedPointErrors, NonIsolatedFixedPointIsALinAlgErrorOnTheDenseRoute) {
  auto f = [](std::span<const Tensor> in) {
    return mul(div(in[0], vector_norm(in[0])), sum(in[1]));
  };
  const Tensor c = from_vector<double>({1, 2, 3}, {3});
  for (const Tensor& x0 : {ones({3}), from_vector<double>({1, 2, 2}, {3})}) {
    auto loss = [&](std::span<const Tensor> in) {
      return sum(mul(fixed_point(f, x0, {in[0]}, tight()), c));
    };
    expect_error(ErrorKind::LinAlgError, [&] { grad(loss, {a_values(3)}); },
                 {"fixed_point", "(I - J^H) w = x_bar", "singular"});
    expect_error(ErrorKind::LinAlgError, [&] { jvp(loss, {a_values(3)}, {ones({3})}); },
                 {"fixed_point", "(I - J) dx", "singular"});
    // eager backward: all-or-nothing, the leaf's gradient is unchanged
    Tensor a = a_values(3).requires_grad_();
    backward(sum(mul(a, a)));
    const Tensor before = a.grad();
    Tensor y = loss({&a, 1});
    expect_error(ErrorKind::LinAlgError, [&] { backward(y); }, {"fixed_point"});
    EXPECT_EQ(max_abs_diff(a.grad(), before), 0.0);
  }
  // An isolated fixed point of the same size still differentiates (cos x a, checked above).
  EXPECT_NO_THROW(
      grad([](std::span<const Tensor> in) { return sum(cos_fixed_point(in[0], tight())); },
           {a_values(3)}));
}

TEST(FixedPointErrors, TracingIsUnsupported) {
  const ValueSpec spec{{4}, DType::f64};
  expect_error(ErrorKind::Unsupported,
               [&] {
                 trace([](std::span<const Tensor> in) { return cos_fixed_point(in[0], {}); },
                       std::span<const ValueSpec>(&spec, 1));
               },
               {"fixed_point", "cannot be traced"});
}

}  // namespace
}  // namespace tenferro
