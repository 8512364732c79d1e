// Nested transforms (Note [Autodiff levels] in src/core/tensor_aux.hpp): every nesting of grad,
// vjp/pullback, jvp and eager backward(create_graph) to third order on small closed forms, the
// perturbation-confusion classics, tensors that escape a transform, and the misuses that stay
// refused. The per-primitive sweep is autodiff_higher_order_test.cpp / _third_order_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;

namespace {

double scalar(const Tensor& t) { return contiguous(t).data<double>()[0]; }
Tensor num(double v) { return full({1}, v, DType::f64); }
Tensor one() { return num(1.0); }

Tensor cube_sum(std::span<const Tensor> x) { return sum(x[0] * x[0] * x[0]); }
/// x -> sum(d/dx sum(x^3)) = sum(3 x^2)
Tensor sum_of_inner_grad(std::span<const Tensor> x) { return sum(grad(&cube_sum, x)[0]); }

template <class F>
void expect_error(F&& f, ErrorKind kind, const std::string& says) {
  try {
    f();
    ADD_FAILURE() << "expected an error saying " << says;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(AutodiffNesting, GradOfGrad) {
  // d/dx sum(3 x^2) = 6 x = 12 at 2; the third derivative is 6.
  EXPECT_DOUBLE_EQ(scalar(grad(&sum_of_inner_grad, {num(2)})[0]), 12.0);
  auto second = [](std::span<const Tensor> x) { return sum(grad(&sum_of_inner_grad, x)[0]); };
  EXPECT_DOUBLE_EQ(scalar(grad(second, {num(2)})[0]), 6.0);
  // value_and_grad inside: the value is differentiable too.
  auto vg = [](std::span<const Tensor> x) { return value_and_grad(&cube_sum, x).value; };
  EXPECT_DOUBLE_EQ(scalar(grad(vg, {num(2)})[0]), 12.0);
}

TEST(AutodiffNesting, VjpOfAPullback) {
  // p(x) = pullback of x -> sin(x) at x, applied to u: u cos(x). d/dx sum(p) = -u sin(x);
  // d/du sum(p) = cos(x).
  auto f = [](std::span<const Tensor> in) {
    VjpResult r = vjp([](std::span<const Tensor> x) { return sin(x[0]); }, {in[0]});
    return sum(r.pullback({in[1]})[0]);
  };
  std::vector<Tensor> g = grad(f, {num(0.7), num(1.3)});
  EXPECT_NEAR(scalar(g[0]), -1.3 * std::sin(0.7), 1e-15);
  EXPECT_NEAR(scalar(g[1]), std::cos(0.7), 1e-15);
  // A pullback made outside, called inside with a cotangent that depends on the outer input.
  const VjpResult r = vjp(&cube_sum, {num(2)});
  auto h = [&](std::span<const Tensor> x) { return sum(r.pullback({sum(x[0] * x[0])})[0]); };
  EXPECT_DOUBLE_EQ(scalar(grad(h, {num(3)})[0]), 2 * 3 * 12.0);  // d/dx (x^2 * 12)
}

TEST(AutodiffNesting, ForwardOverForwardAndReverseOverForward) {
  auto df = [](std::span<const Tensor> x) {  // d/dx sin(x) along 1 = cos(x)
    return jvp([](std::span<const Tensor> y) { return sin(y[0]); }, {x[0]}, {one()}).tangents[0];
  };
  const Tensor x = num(0.4);
  EXPECT_NEAR(scalar(jvp(df, {x}, {one()}).tangents[0]), -std::sin(0.4), 1e-15);
  EXPECT_NEAR(scalar(grad([&](std::span<const Tensor> y) { return sum(df(y)); }, {x})[0]),
              -std::sin(0.4), 1e-15);
  // Third order through jvp of jvp of jvp: -cos.
  auto d2 = [&](std::span<const Tensor> y) { return jvp(df, {y[0]}, {one()}).tangents[0]; };
  EXPECT_NEAR(scalar(jvp(d2, {x}, {one()}).tangents[0]), -std::cos(0.4), 1e-15);
}

TEST(AutodiffNesting, PerturbationConfusionIsImpossible) {
  // d/dx (x * d/dy (x + y)) = 1, in the four nestings of grad and jvp.
  const Tensor x = num(2.5), y = num(-1.5);
  auto inner_rev = [&](const Tensor& xo) {
    return grad([&](std::span<const Tensor> v) { return sum(xo + v[0]); }, {y})[0];
  };
  auto inner_fwd = [&](const Tensor& xo) {
    return jvp([&](std::span<const Tensor> v) { return xo + v[0]; }, {y}, {one()}).tangents[0];
  };
  EXPECT_DOUBLE_EQ(
      scalar(grad([&](std::span<const Tensor> v) { return sum(v[0] * inner_rev(v[0])); }, {x})[0]),
      1.0);
  EXPECT_DOUBLE_EQ(
      scalar(grad([&](std::span<const Tensor> v) { return sum(v[0] * inner_fwd(v[0])); }, {x})[0]),
      1.0);
  EXPECT_DOUBLE_EQ(
      scalar(jvp([&](std::span<const Tensor> v) { return v[0] * inner_rev(v[0]); }, {x}, {one()})
                 .tangents[0]),
      1.0);
  EXPECT_DOUBLE_EQ(
      scalar(jvp([&](std::span<const Tensor> v) { return v[0] * inner_fwd(v[0]); }, {x}, {one()})
                 .tangents[0]),
      1.0);
  // Three levels: d/dx [x d/dy [y d/dz (x y z)]] = d/dx [x d/dy (x y^2)] = d/dx 2 x^2 y = 4 x y.
  auto level3 = [&](std::span<const Tensor> xv) {
    auto fy = [&](std::span<const Tensor> yv) {
      auto fz = [&](std::span<const Tensor> zv) { return sum(xv[0] * yv[0] * zv[0]); };
      return sum(yv[0] * grad(fz, {num(0.3)})[0]);
    };
    return sum(xv[0] * grad(fy, {y})[0]);
  };
  EXPECT_DOUBLE_EQ(scalar(grad(level3, {x})[0]), 4 * 2.5 * -1.5);
  // The inner transform taken at the outer variable itself: d/dx [x * d/dx' (x'^2)|x'=x] = 4x.
  auto same = [](std::span<const Tensor> v) {
    return sum(v[0] * grad([](std::span<const Tensor> w) { return sum(w[0] * w[0]); }, v)[0]);
  };
  EXPECT_DOUBLE_EQ(scalar(grad(same, {x})[0]), 4 * 2.5);
}

TEST(AutodiffNesting, EagerBackwardWithCreateGraph) {
  Tensor x = num(2).requires_grad_();
  backward(cube_sum({&x, 1}), BackwardOptions{.create_graph = true});
  Tensor g = x.grad();  // 3 x^2 = 12, with a graph
  EXPECT_DOUBLE_EQ(scalar(g), 12.0);
  EXPECT_TRUE(g.requires_grad());
  x.zero_grad_();
  backward(sum(g), BackwardOptions{.create_graph = true});  // 6 x = 12
  Tensor g2 = x.grad();
  EXPECT_DOUBLE_EQ(scalar(g2), 12.0);
  x.zero_grad_();
  backward(sum(g2));  // 6
  EXPECT_DOUBLE_EQ(scalar(x.grad()), 6.0);
  EXPECT_FALSE(x.grad().requires_grad());  // without create_graph the pass is not recorded
  x.zero_grad_();
  // Without create_graph, a gradient carries no graph.
  Tensor z = num(1.5).requires_grad_();
  backward(cube_sum({&z, 1}));
  EXPECT_FALSE(z.grad().requires_grad());
}

TEST(AutodiffNesting, EagerTapeSeesThroughFunctionalTransforms) {
  // An eager leaf used inside grad/jvp: the eager tape records through them.
  Tensor x = num(2).requires_grad_();
  Tensor g = grad(&cube_sum, {x})[0];  // 3 x^2, recorded on the eager tape
  backward(sum(g));
  EXPECT_DOUBLE_EQ(scalar(x.grad()), 12.0);
  x.zero_grad_();
  Tensor t = jvp([](std::span<const Tensor> v) { return sin(v[0]); }, {x}, {one()}).tangents[0];
  backward(sum(t));  // d/dx cos(x)
  EXPECT_NEAR(scalar(x.grad()), -std::sin(2.0), 1e-15);
  x.zero_grad_();
}

TEST(AutodiffNesting, EscapedTensorsGiveTheRightValueOrAnError) {
  // A tensor stored out of an inner grad's function is used after that grad returned: its inner
  // layer is inert, and the outer derivative is that of the value it had (x * y at y = 3).
  Tensor leak;
  auto outer = [&](std::span<const Tensor> xv) {
    grad(
        [&](std::span<const Tensor> yv) {
          leak = xv[0] * yv[0];
          return sum(leak);
        },
        {num(3)});
    return sum(leak * leak);  // (3x)^2 -> 18 x
  };
  EXPECT_DOUBLE_EQ(scalar(grad(outer, {num(2)})[0]), 36.0);
  // After everything returned the leaked tensor is a plain value.
  EXPECT_DOUBLE_EQ(scalar(leak * 1.0), 6.0);
  EXPECT_FALSE((leak * 1.0).requires_grad());
}

// A grad call revives its thread's spare level (functional.cpp, LevelScope) only when nothing
// refers to the old one: a tensor that escaped a call keeps its level, which stays inert, so the
// next call sees that tensor as a constant (its graph was freed by the first call's backward;
// taking it for a live layer would walk into that freed graph).
TEST(AutodiffNesting, ALevelIsRevivedOnlyWhenNothingRefersToIt) {
  Tensor leak;
  auto first = [&](std::span<const Tensor> xv) {
    leak = xv[0] * 2.0;
    return sum(leak);
  };
  EXPECT_DOUBLE_EQ(scalar(grad(first, {num(3)})[0]), 2.0);
  auto second = [&](std::span<const Tensor> yv) { return sum(yv[0] * leak) + sum(leak); };
  EXPECT_DOUBLE_EQ(scalar(grad(second, {num(5)})[0]), 6.0);
  EXPECT_FALSE((leak * 1.0).requires_grad());
  for (int i = 0; i < 3; ++i)  // levels nobody kept: revived, and right each time
    EXPECT_DOUBLE_EQ(scalar(grad(&cube_sum, {num(2)})[0]), 12.0);
}

TEST(AutodiffNesting, MisusesAreRefused) {
  // Eager backward inside a transform, on an output that depends on the transform's inputs.
  expect_error(
      [] {
        grad(
            [](std::span<const Tensor> x) {
              backward(cube_sum(x));
              return sum(x[0]);
            },
            {num(2)});
      },
      ErrorKind::Unsupported, "backward: the output");
  // requires_grad_ on a transform's input.
  expect_error(
      [] {
        grad(
            [](std::span<const Tensor> x) {
              Tensor y = x[0];
              y.requires_grad_();
              return sum(y);
            },
            {num(2)});
      },
      ErrorKind::InvalidArgument, "requires_grad_");
  // Jacobians of complex functions are not one matrix.
  expect_error([] { jacrev(&cube_sum, {full({1}, 1.0, DType::c128)}); }, ErrorKind::InvalidArgument,
               "jacrev: input 0 is complex");
  // Nothing was left behind: first order still works.
  EXPECT_DOUBLE_EQ(scalar(grad(&cube_sum, {num(2)})[0]), 12.0);
}

TEST(AutodiffNesting, JacobiansAndHessians) {
  // f(x, y) = [x0 y, x1^2 y^2]: J_x = [[y, 0], [0, 2 x1 y^2]], J_y = [x0, 2 x1^2 y].
  auto f = [](std::span<const Tensor> in) {
    Tensor x0 = slice(in[0], 0, 0, 1), x1 = slice(in[0], 0, 1, 2);
    std::vector<Tensor> parts{x0 * in[1], x1 * x1 * in[1] * in[1]};
    return concatenate(parts, 0);
  };
  Tensor x = from_values({1.5, -2.0}, {2});
  Tensor y = num(0.5);
  using Jac = std::vector<Tensor> (*)(const ScalarFn&, std::span<const Tensor>);
  for (Jac jac : {Jac(&jacrev), Jac(&jacfwd)}) {
    const std::vector<Tensor> xy{x, y};
    std::vector<Tensor> j = jac(f, xy);
    ASSERT_EQ(j[0].shape(), (Dims{2, 2}));
    ASSERT_EQ(j[1].shape(), (Dims{2, 1}));
    const Tensor jx = contiguous(j[0]), jy = contiguous(j[1]);
    EXPECT_DOUBLE_EQ(jx.data<double>()[0], 0.5);
    EXPECT_DOUBLE_EQ(jx.data<double>()[1], 0.0);
    EXPECT_DOUBLE_EQ(jx.data<double>()[2], 0.0);
    EXPECT_DOUBLE_EQ(jx.data<double>()[3], 2 * -2.0 * 0.25);
    EXPECT_DOUBLE_EQ(jy.data<double>()[0], 1.5);
    EXPECT_DOUBLE_EQ(jy.data<double>()[1], 2 * 4.0 * 0.5);
  }
  // Hessian of sum(x^3) + x0 x1: [[6 x0, 1], [1, 6 x1]].
  auto g = [](std::span<const Tensor> in) {
    return sum(in[0] * in[0] * in[0]) + sum(slice(in[0], 0, 0, 1) * slice(in[0], 0, 1, 2));
  };
  const Tensor h = contiguous(hessian(g, {x})[0][0]);
  ASSERT_EQ(h.shape(), (Dims{2, 2}));
  EXPECT_DOUBLE_EQ(h.data<double>()[0], 9.0);
  EXPECT_DOUBLE_EQ(h.data<double>()[1], 1.0);
  EXPECT_DOUBLE_EQ(h.data<double>()[2], 1.0);
  EXPECT_DOUBLE_EQ(h.data<double>()[3], -12.0);
  // jacrev is differentiable: the Hessian as jacrev of jacrev (reverse over reverse).
  auto grad_g = [&](std::span<const Tensor> in) { return grad(g, in)[0]; };
  const Tensor h2 = contiguous(jacrev(grad_g, {x})[0]);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(h2.data<double>()[i], h.data<double>()[i]);
}

TEST(AutodiffNesting, TracedProgramsStillDifferentiateTwice) {
  const Program g2 = grad(grad(trace(&cube_sum, {ValueSpec{{1}, DType::f64}})));
  EXPECT_DOUBLE_EQ(scalar(g2({num(2)})[0]), 12.0);
  // Tracing a function that nests functional transforms gives the same program values.
  const Program p = trace(&sum_of_inner_grad, {ValueSpec{{1}, DType::f64}});
  EXPECT_DOUBLE_EQ(scalar(p({num(2)})[0]), 12.0);
  EXPECT_DOUBLE_EQ(scalar(grad(p)({num(2)})[0]), 12.0);
}
