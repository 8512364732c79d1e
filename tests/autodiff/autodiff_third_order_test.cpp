// Third derivatives and perturbation confusion (issue 32).
//
// Third order, for the elementwise and contraction rows of hotest::cases() at f64 and c128:
// T(v, v2) = d/dt [H(x + t v2) v] of L(x) = Re<w1, y> + Re<w2, sin(y)> by five nestings --
// jvp of jvp of grad, grad of jvp of grad, grad of grad of grad, jvp of grad of jvp, jvp of grad
// of grad -- and by three eager backward passes (the first two with create_graph). Each must
// match central differences of the (forward over reverse) hvp along v2, and forward^3 (jvp of jvp
// of jvp) must give Re<v3, T(v, v2)>.
//
// Perturbation confusion: closures over an outer transform's variable, in every nesting of grad
// and jvp at two and three levels (d/dx (x d/dy (x + y)) = 1; d/dx [x d/dy [y d/dz (x y z)]] =
// 4 x y; an inner transform taken at the outer variable itself), and tensors leaked out of an
// inner transform's function and used after it returned: the result is right or a
// tenferro::Error, never a wrong number.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "common/higher_order.hpp"

using namespace tenferro;
using namespace tenferro::hotest;

namespace {

constexpr double kAgreeRtol = 1e-7, kAgreeAtol = 1e-9;
constexpr double kFdRtol = 1e-5, kFdAtol = 1e-6;

bool third_order_family(const Instance& in) {
  return in.c->family == Family::elementwise || in.c->family == Family::contraction;
}

/// Central differences of the hvp along v2, once per instance.
const V& fd_reference(const Instance& in) {
  static std::map<const Instance*, V> cache;
  auto it = cache.find(&in);
  if (it == cache.end()) it = cache.emplace(&in, third_fd(in)).first;
  return it->second;
}

using Third = V (*)(const Instance&);

void check_way(const char* way, Third f) {
  int n = 0;
  for (const Instance& in : instances()) {
    if (!third_order_family(in)) continue;
    ++n;
    SCOPED_TRACE(in.label() + " " + way);
    const V t = attempt(way, [&] { return f(in); });
    if (t.empty()) continue;
    EXPECT_TRUE(agree(t, fd_reference(in), kFdRtol, kFdAtol)) << "vs finite differences of hvp";
  }
  EXPECT_GT(n, 40);
}

}  // namespace

TEST(AutodiffThirdOrder, JvpOfJvpOfGrad) { check_way("jvp(jvp(grad))", &third_fwd_fwd_rev); }
TEST(AutodiffThirdOrder, GradOfJvpOfGrad) { check_way("grad(jvp(grad))", &third_rev_fwd_rev); }
TEST(AutodiffThirdOrder, GradOfGradOfGrad) { check_way("grad(grad(grad))", &third_rev_rev_rev); }
TEST(AutodiffThirdOrder, JvpOfGradOfJvp) { check_way("jvp(grad(jvp))", &third_fwd_rev_fwd); }
TEST(AutodiffThirdOrder, JvpOfGradOfGrad) { check_way("jvp(grad(grad))", &third_fwd_rev_rev); }
TEST(AutodiffThirdOrder, EagerBackwardTwiceWithCreateGraph) {
  check_way("backward x3", &third_eager);
}

TEST(AutodiffThirdOrder, NestingsAgreeWithEachOther) {
  // Tighter than the finite differences: every nesting against grad(grad(grad)) at 1e-7.
  for (const Instance& in : instances()) {
    if (!third_order_family(in)) continue;
    SCOPED_TRACE(in.label());
    const V ref = attempt("grad(grad(grad))", [&] { return third_rev_rev_rev(in); });
    if (ref.empty()) continue;
    for (auto [way, f] : {std::pair<const char*, Third>{"jvp(jvp(grad))", &third_fwd_fwd_rev},
                          {"grad(jvp(grad))", &third_rev_fwd_rev},
                          {"jvp(grad(jvp))", &third_fwd_rev_fwd},
                          {"jvp(grad(grad))", &third_fwd_rev_rev}}) {
      const V t = attempt(way, [&] { return f(in); });
      if (!t.empty()) EXPECT_TRUE(agree(t, ref, kAgreeRtol, kAgreeAtol)) << way;
    }
    // Forward^3 is the number Re<v3, T(v, v2)>.
    const V f3 = attempt("jvp(jvp(jvp))", [&] { return V{third_fwd3(in)}; });
    if (!f3.empty()) EXPECT_TRUE(agree(f3, {re_inner(in.v3, ref)}, kAgreeRtol, kAgreeAtol));
  }
}

// ---- perturbation confusion ----

namespace {

using Fn1 = std::function<Tensor(const Tensor&)>;

Tensor scalar(double v) { return scalar_tensor(v, DType::f64); }
double value(const Tensor& t) { return adtest::fd::values(t)[0].real(); }

/// d f / d t at `at` (a rank-0 f64 tensor) by reverse (grad) or forward (jvp) mode.
Tensor d(bool reverse, const Fn1& f, const Tensor& at) {
  const ScalarFn F = [&f](In in) { return f(in[0]); };
  if (reverse) return grad(F, {at})[0];
  return jvp(F, {at}, {scalar(1.0)}).tangents[0];
}

std::string mode(bool reverse) { return reverse ? "grad" : "jvp"; }

}  // namespace

TEST(AutodiffPerturbationConfusion, TwoLevels) {
  const Tensor x0 = scalar(1.3), y0 = scalar(-0.4);
  for (bool outer : {true, false})
    for (bool inner : {true, false}) {
      SCOPED_TRACE(mode(outer) + " of " + mode(inner));
      // d/dx (x * d/dy (x + y)) = d/dx (x * 1) = 1 (a confused inner derivative would see x's
      // perturbation too and give 2).
      const V r = attempt("d/dx (x d/dy (x + y))", [&] {
        return V{d(
            outer,
            [&](const Tensor& x) {
              return x * d(
                             inner, [&](const Tensor& y) { return x + y; }, y0);
            },
            x0)};
      });
      if (!r.empty()) EXPECT_NEAR(value(r[0]), 1.0, 1e-14);
      // The inner derivative taken at the outer variable itself: d/dx [d/dy (x y^2)]_{y = x} =
      // d/dx (2 x^2) = 4 x.
      const V s = attempt("d/dx [d/dy (x y^2)](y = x)", [&] {
        return V{d(
            outer,
            [&](const Tensor& x) {
              return d(
                  inner, [&](const Tensor& y) { return x * y * y; }, x);
            },
            x0)};
      });
      if (!s.empty()) EXPECT_NEAR(value(s[0]), 4 * 1.3, 1e-13);
    }
}

TEST(AutodiffPerturbationConfusion, ThreeLevels) {
  // d/dx [x * d/dy [y * d/dz (x y z)]] = d/dx [x * d/dy (x y^2)] = d/dx (2 x^2 y) = 4 x y.
  const double xv = 1.3, yv = -0.4;
  const Tensor x0 = scalar(xv), y0 = scalar(yv), z0 = scalar(0.9);
  for (int k = 0; k < 8; ++k) {
    const bool a = k & 1, b = k & 2, c = k & 4;
    SCOPED_TRACE(mode(a) + " / " + mode(b) + " / " + mode(c));
    const V r = attempt("three levels", [&] {
      return V{d(
          a,
          [&](const Tensor& x) {
            return x * d(
                           b,
                           [&](const Tensor& y) {
                             return y * d(
                                            c, [&](const Tensor& z) { return x * y * z; }, z0);
                           },
                           y0);
          },
          x0)};
    });
    if (!r.empty()) EXPECT_NEAR(value(r[0]), 4 * xv * yv, 1e-13);
  }
}

TEST(AutodiffPerturbationConfusion, EagerTapeAroundFunctionalTransforms) {
  // The eager tape is the outermost level: x requires grad, an inner functional grad closes over
  // x. L = x * d/dy (x y)|_{y0} = x^2, so x.grad() = 2 x; then backward(create_graph) of L2 = x *
  // d/dy (x + y) = x gives 1.
  Tensor x = scalar(1.3);
  x.requires_grad_();
  const Tensor y0 = scalar(-0.4);
  const V r = attempt("eager over grad", [&] {
    const Tensor inner = grad([&](In y) { return x * y[0]; }, {y0})[0];
    backward(x * inner);
    return V{x.grad()};
  });
  if (!r.empty()) EXPECT_NEAR(value(r[0]), 2 * 1.3, 1e-14);
  x.zero_grad_();
  const V s = attempt("eager over jvp", [&] {
    const Tensor inner =
        jvp(ScalarFn([&](In y) { return x + y[0]; }), {y0}, {scalar(1.0)}).tangents[0];
    backward(x * inner);
    return V{x.grad()};
  });
  if (!s.empty()) EXPECT_NEAR(value(s[0]), 1.0, 1e-14);
  x.zero_grad_();
}

namespace {

/// Right value or a tenferro::Error, never a wrong number.
template <class F>
void right_or_error(const char* what, double want, F&& f) {
  double got = 0;
  try {
    got = f();
  } catch (const Error& e) {
    std::printf("[ leak ] %s: refused (%s)\n", what, e.what());
    return;
  }
  EXPECT_NEAR(got, want, 1e-13 * (1 + std::abs(want))) << what;
}

}  // namespace

TEST(AutodiffPerturbationConfusion, LeakedTensorsAreRightOrRefused) {
  const double xv = 1.3, yv = -0.4, zv = 0.9;
  const Tensor x0 = scalar(xv), y0 = scalar(yv), z0 = scalar(zv), one = scalar(1.0);

  // A tensor made inside jvp's function carries jvp's tangent; used later in another jvp, only
  // the new tangent may count: d/dz (sin(x0) z) = sin(x0), not sin(x0) + cos(x0) z.
  right_or_error("tangent leaked out of jvp", std::sin(xv), [&] {
    Tensor leak;
    jvp(ScalarFn([&](In xs) { return leak = sin(xs[0]); }), {x0}, {one});
    return value(jvp(ScalarFn([&](In zs) { return leak * zs[0]; }), {z0}, {one}).tangents[0]);
  });
  right_or_error("tangent leaked out of jvp, then grad", std::sin(xv), [&] {
    Tensor leak;
    jvp(ScalarFn([&](In xs) { return leak = sin(xs[0]); }), {x0}, {one});
    return value(grad([&](In zs) { return leak * zs[0]; }, {z0})[0]);
  });
  // A tensor made inside grad's function is on grad's (finished) tape: d/dz (x0^2 z) = x0^2.
  right_or_error("tape leaked out of grad", xv * xv, [&] {
    Tensor leak;
    grad([&](In xs) { return leak = xs[0] * xs[0]; }, {x0});
    return value(grad([&](In zs) { return leak * zs[0]; }, {z0})[0]);
  });
  right_or_error("tape leaked out of grad, then eager backward", xv * xv, [&] {
    Tensor leak;
    grad([&](In xs) { return leak = xs[0] * xs[0]; }, {x0});
    Tensor z = scalar(zv);
    z.requires_grad_();
    backward(leak * z);
    return value(z.grad());
  });
  right_or_error("leaked tensor as the input of a new grad", 2 * xv * xv, [&] {
    Tensor leak;
    grad([&](In xs) { return leak = xs[0] * xs[0]; }, {x0});
    return value(grad([](In zs) { return zs[0] * zs[0]; }, {leak})[0]);
  });
  // Leaked out of an inner transform and used by the enclosing one, which is still running:
  // F(x) = leak(x) * x + d/dy (y x) with leak = y0 x, i.e. y0 x^2 + x: F'(x) = 2 y0 x + 1.
  right_or_error("inner grad's tensor used by the outer grad", 2 * yv * xv + 1, [&] {
    return value(grad(
        [&](In xs) {
          Tensor leak;
          const Tensor g = grad([&](In ys) { return leak = ys[0] * xs[0]; }, {y0})[0];
          return leak * xs[0] + g;
        },
        {x0})[0]);
  });
  right_or_error("inner jvp's tensor used by the outer jvp", 2 * yv * xv + 1, [&] {
    return value(jvp(ScalarFn([&](In xs) {
                       Tensor leak;
                       const Tensor t =
                           jvp(ScalarFn([&](In ys) { return leak = ys[0] * xs[0]; }), {y0}, {one})
                               .tangents[0];
                       return leak * xs[0] + t;
                     }),
                     {x0}, {one})
                     .tangents[0]);
  });
  right_or_error("inner jvp's tensor used by the outer grad", 2 * yv * xv + 1, [&] {
    return value(grad(
        [&](In xs) {
          Tensor leak;
          const Tensor t =
              jvp(ScalarFn([&](In ys) { return leak = ys[0] * xs[0]; }), {y0}, {one}).tangents[0];
          return leak * xs[0] + t;
        },
        {x0})[0]);
  });
  // Pullbacks: one made before the outer grad, called with a cotangent that depends on the outer
  // variable (d/dx [2 y0 * sum(x)] = 2 y0), and one made inside it on a closure over x
  // (F(x) = x * d/dy (x y^2) = 2 y0 x^2, F' = 4 y0 x).
  right_or_error("pullback made outside, cotangent from the outer grad", 2 * yv, [&] {
    const VjpResult r = vjp(ScalarFn([](In ys) { return ys[0] * ys[0]; }), {y0});
    return value(grad([&](In xs) { return r.pullback({xs[0]})[0]; }, {x0})[0]);
  });
  right_or_error("pullback of a closure over the outer variable", 4 * yv * xv, [&] {
    return value(grad(
        [&](In xs) {
          const VjpResult r = vjp(ScalarFn([&](In ys) { return xs[0] * ys[0] * ys[0]; }), {y0});
          return xs[0] * r.pullback({one})[0];
        },
        {x0})[0]);
  });
  right_or_error("pullback leaked out of grad's function, called afterwards", 2 * yv * xv, [&] {
    Pullback leak;
    grad(
        [&](In xs) {
          VjpResult r = vjp(ScalarFn([&](In ys) { return xs[0] * ys[0] * ys[0]; }), {y0});
          leak = r.pullback;
          return r.outputs[0];
        },
        {x0});
    return value(leak({one})[0]);
  });
  right_or_error("inner grad's tensor used by the outer jvp", 2 * yv * xv + 1, [&] {
    return value(jvp(ScalarFn([&](In xs) {
                       Tensor leak;
                       const Tensor g = grad([&](In ys) { return leak = ys[0] * xs[0]; }, {y0})[0];
                       return leak * xs[0] + g;
                     }),
                     {x0}, {one})
                     .tangents[0]);
  });
}
