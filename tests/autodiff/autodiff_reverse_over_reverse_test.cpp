// Note [No reverse over reverse] (src/autodiff/functional.cpp): grad/value_and_grad/vjp/pullback
// on a tensor that an enclosing tape tracks, with grad mode on, is Unsupported -- it used to give
// the outer derivative as a silent 0 (grad of x -> sum(grad(x^3)) at 2 returned 0, not 12). The
// supported second-order routes (hvp, grad of a traced Program) give 12.
#include <gtest/gtest.h>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;

namespace {

Tensor cube_sum(std::span<const Tensor> x) { return sum(x[0] * x[0] * x[0]); }

/// x -> sum(d/dx sum(x^3)) = sum(3 x^2), through an inner functional grad.
Tensor sum_of_inner_grad(std::span<const Tensor> x) { return sum(grad(&cube_sum, x)[0]); }

double scalar(const Tensor& t) { return contiguous(t).data<double>()[0]; }

template <class F>
void expect_unsupported(F&& f, const std::string& api) {
  try {
    f();
    ADD_FAILURE() << "expected Error{Unsupported} from " << api;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
    const std::string msg = e.what();
    EXPECT_NE(msg.find(api + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find("reverse over reverse"), std::string::npos) << msg;
  }
}

Tensor two() { return full({1}, 2.0, DType::f64); }

}  // namespace

TEST(AutodiffReverseOverReverse, GradOfGradIsRefused) {
  expect_unsupported([] { grad(&sum_of_inner_grad, {two()}); }, "grad");
  expect_unsupported(
      [] {
        value_and_grad([](std::span<const Tensor> x) { return value_and_grad(&cube_sum, x).value; },
                       {two()});
      },
      "grad");
}

TEST(AutodiffReverseOverReverse, VjpAndPullbackInsideGradAreRefused) {
  expect_unsupported(
      [] {
        grad([](std::span<const Tensor> x) { return sum(vjp(&cube_sum, x).outputs[0]); }, {two()});
      },
      "vjp");
  // The pullback was made outside; its cotangent depends on the outer grad's input.
  const VjpResult r = vjp(&cube_sum, {two()});
  expect_unsupported(
      [&] {
        grad([&](std::span<const Tensor> x) { return sum(r.pullback({sum(x[0])})[0]); }, {two()});
      },
      "pullback");
}

TEST(AutodiffReverseOverReverse, EagerTapeInputsAreRefused) {
  Tensor x = full({1}, 2.0, DType::f64).requires_grad_();
  expect_unsupported([&] { grad(&cube_sum, {x}); }, "grad");
  const Tensor y = x * 3.0;  // recorded
  expect_unsupported([&] { vjp(&cube_sum, {y}); }, "vjp");
  EXPECT_FALSE(x.grad().defined());  // nothing was touched
  // Saying that no outer derivative flows is allowed: NoGradGuard or detach().
  {
    NoGradGuard off;
    EXPECT_DOUBLE_EQ(scalar(grad(&cube_sum, {x})[0]), 12.0);
  }
  EXPECT_DOUBLE_EQ(scalar(grad(&cube_sum, {detach(y)})[0]), 108.0);
}

TEST(AutodiffReverseOverReverse, SupportedSecondOrderRoutesAreExact) {
  // d/dx sum(3 x^2) = 6 x = 12 at x = 2.
  EXPECT_DOUBLE_EQ(scalar(hvp(&cube_sum, {two()}, {full({1}, 1.0, DType::f64)})[0]), 12.0);
  const Program g2 = grad(grad(trace(&cube_sum, {ValueSpec{{1}, DType::f64}})));
  EXPECT_DOUBLE_EQ(scalar(g2({two()})[0]), 12.0);
  // After the refusals above everything still works, and first order is unchanged.
  expect_unsupported([] { grad(&sum_of_inner_grad, {two()}); }, "grad");
  EXPECT_DOUBLE_EQ(scalar(grad(&cube_sum, {two()})[0]), 12.0);
  const Tensor x = two();
  EXPECT_DOUBLE_EQ(scalar(sum_of_inner_grad({&x, 1})), 12.0);  // no outer grad: fine
}
