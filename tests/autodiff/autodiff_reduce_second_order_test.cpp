// Second derivatives through every reduction of reduce_table() (Note [Reduction rules]): the HVP
// (jvp of grad, forward over reverse) matches central differences of the gradient, for real and
// complex inputs, full and partial reductions, with and without keepdims, and at a zero of the
// input (prod's exact derivative without division; norm's masked divide at the origin).
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "common/autodiff_fd.hpp"
#include "common/reduce_table.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using namespace tenferro::adtest;

namespace {

using Reduction = Tensor (*)(const Tensor&, Dims, bool);
using tenferro::testing::reduce_table;

Reduction reduction(std::string_view name) {
  for (const auto& row : reduce_table())
    if (name == row.name) return row.op;
  ADD_FAILURE() << "no reduction " << name;
  return nullptr;
}

// A real scalar loss with a non-trivial second derivative for real and complex results.
Tensor loss_of(const Tensor& y) { return sum_squares(sin(y)); }

// The gradient of loss(reduce(x)) as a function of x: its JVP is the HVP.
FdFn gradient_of(Reduction op, Dims axes, bool keepdims) {
  return [op, axes, keepdims](std::span<const Tensor> in) {
    auto f = [&](std::span<const Tensor> x) { return loss_of(op(x[0], axes, keepdims)); };
    return grad(f, in);
  };
}

}  // namespace

TEST(AutodiffReduceSecondOrder, HvpMatchesFiniteDifferencesOfTheGradient) {
  for (const auto& c : reduce_table())
    for (DType dt : {DType::f64, DType::c128}) {
      if (dt == DType::c128 && c.real_only) continue;
      for (const Dims& axes : {Dims{}, Dims{1}, Dims{0, 2}})
        for (bool keepdims : {false, true}) {
          SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)) + " axes " +
                       dims_to_string(axes) + (keepdims ? " keepdims" : ""));
          Tensor x = randn({2, 3, 2}, 41, dt);
          EXPECT_TRUE(check_jvp(gradient_of(c.op, axes, keepdims), {x}));
          // The hvp() entry point agrees with the explicit jvp of grad.
          Tensor v = randn({2, 3, 2}, 42, dt);
          auto f = [&](std::span<const Tensor> in) { return loss_of(c.op(in[0], axes, keepdims)); };
          JvpResult r = jvp(MultiFn(gradient_of(c.op, axes, keepdims)), {x}, {v});
          EXPECT_TRUE(allclose(hvp(f, {x}, {v})[0], r.tangents[0], 1e-12, 1e-12));
        }
    }
}

TEST(AutodiffReduceSecondOrder, ProdHvpIsExactWithZerosInTheRun) {
  // One zero and then two zeros in a run: the product of the others is computed without
  // division, and so is its derivative.
  for (DType dt : {DType::f64, DType::c128}) {
    Tensor one_zero = from_vector<double>({0.0, 1.5, -0.7, 2.0, 0.3, -1.1}, {2, 3});
    Tensor two_zeros = from_vector<double>({0.0, 0.0, -0.7, 2.0, 0.0, -1.1}, {2, 3});
    for (const Tensor& x : {cast(one_zero, dt), cast(two_zeros, dt)}) {
      EXPECT_TRUE(check_jvp(gradient_of(reduction("prod"), {1}, false), {x}));
      EXPECT_TRUE(check_jvp(gradient_of(reduction("prod"), {}, false), {x}));
    }
  }
}

TEST(AutodiffReduceSecondOrder, NormSecondDerivativeIsFiniteAtTheOrigin) {
  // A run that is entirely zero: the gradient there is 0 (masked divide) and the HVP must be
  // finite (the masked branch must not leak nan through the divide's rule).
  Tensor x = from_vector<double>({0.0, 0.0, 0.0, 1.0, -2.0, 0.5}, {2, 3});
  Tensor v = ones({2, 3});
  auto f = [](std::span<const Tensor> in) { return sum(norm(in[0], {1}, false)); };
  std::vector<double> g = grad(f, {x})[0].to_vector<double>();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(g[static_cast<std::size_t>(i)], 0.0) << i;
  for (double h : hvp(f, {x}, {v})[0].to_vector<double>()) EXPECT_TRUE(std::isfinite(h));
  // Away from the origin the HVP matches finite differences.
  Tensor y = randn({2, 3}, 43);
  EXPECT_TRUE(check_jvp([&](std::span<const Tensor> in) { return grad(f, in); }, {y}));
}

TEST(AutodiffReduceSecondOrder, ThirdDerivativeIsATypedErrorNotAWrongNumber) {
  // Transforms nest to any order (Note [Autodiff levels]), but prod's second-order helper
  // (reduce_prod_others_tangent) has no rules of its own: a third derivative of prod is refused
  // with the primitive's name, never a wrong number.
  Tensor x = randn({3}, 44), v = randn({3}, 45), w = randn({3}, 46);
  auto f = [](std::span<const Tensor> in) { return prod(in[0], {}, false); };
  auto h = [&](std::span<const Tensor> in) {
    const Tensor dir[1] = {v};
    return hvp(f, in, dir);
  };
  try {
    jvp(MultiFn(h), {x}, {w});
    ADD_FAILURE() << "expected Unsupported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("reduce_prod_others_tangent"), std::string::npos)
        << e.what();
  }
  // The inputs are unchanged by the failed call and a plain hvp still works.
  EXPECT_FALSE(x.requires_grad());
  EXPECT_EQ(h(std::span<const Tensor>(&x, 1)).size(), 1u);
}
