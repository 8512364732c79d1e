// Transforms of traced programs (grad, vjp, jvp, compositions) against eager autodiff.
#include <gtest/gtest.h>

#include "common/trace_helpers.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using trace_test::near;

namespace {
Tensor loss(std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); }
std::vector<ValueSpec> bmm_specs() { return {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}}; }
}  // namespace

TEST(TraceTransform, SumBmmGradVjpJvpEqualEager) {
  Program p = trace(loss, bmm_specs());
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
  Tensor ta = randn({16, 2, 2}, 3), tb = randn({16, 2, 2}, 4), ct = scalar_tensor(0.5);

  std::vector<Tensor> want_g = tenferro::grad(loss, {a, b});
  std::vector<Tensor> got_g = grad(p)({a, b});
  ASSERT_EQ(got_g.size(), 2u);
  EXPECT_TRUE(near(got_g[0], want_g[0]));
  EXPECT_TRUE(near(got_g[1], want_g[1]));

  VjpResult r = tenferro::vjp(ScalarFn(loss), {a, b});
  std::vector<Tensor> want_v = r.pullback({ct});
  std::vector<Tensor> got_v = vjp(p)({a, b, ct});
  EXPECT_TRUE(near(got_v[0], want_v[0]));
  EXPECT_TRUE(near(got_v[1], want_v[1]));

  JvpResult j = tenferro::jvp(ScalarFn(loss), {a, b}, {ta, tb});
  std::vector<Tensor> got_j = jvp(p)({a, b, ta, tb});
  ASSERT_EQ(got_j.size(), 2u);
  EXPECT_TRUE(near(got_j[0], j.outputs[0]));
  EXPECT_TRUE(near(got_j[1], j.tangents[0]));
}

TEST(TraceTransform, GradWrtSubsetAndErrors) {
  Program p = trace(loss, bmm_specs());
  Program g1 = grad(p, {1});
  EXPECT_EQ(g1.outputs.size(), 1u);
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
  EXPECT_TRUE(near(g1({a, b})[0], tenferro::grad(loss, {a, b})[1]));
  EXPECT_THROW(grad(p, {2}), Error);
  Program not_scalar =
      trace([](std::span<const Tensor> x) { return bmm(x[0], x[1]); }, bmm_specs());
  try {
    grad(not_scalar);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

TEST(TraceTransform, JvpOfGradIsAHessianVectorProduct) {
  // f(x) = sum(sin(x) * x): H = diag(2 cos x - x sin x).
  Program p =
      trace([](std::span<const Tensor> x) { return sum(mul(sin(x[0]), x[0])); }, {ValueSpec{{5}}});
  Program hv = jvp(grad(p));  // inputs (x, v) -> (grad, H v)
  Tensor x = randn({5}, 11), v = randn({5}, 12);
  std::vector<Tensor> out = hv({x, v});
  ASSERT_EQ(out.size(), 2u);
  Tensor want = mul(sub(mul(cos(x), 2.0), mul(x, sin(x))), v);
  EXPECT_TRUE(near(out[1], want));
  EXPECT_TRUE(near(out[0], add(sin(x), mul(x, cos(x)))));
  // Reverse over reverse on programs: grad of (x -> sum(grad(p)(x) * v)) is H v too.
  Program gv = trace(
      [&](std::span<const Tensor> xs) {
        return sum(mul(grad(p)(std::vector<Tensor>{xs[0]})[0], xs[1]));
      },
      {ValueSpec{{5}}, ValueSpec{{5}}});
  EXPECT_TRUE(near(grad(gv, {0})({x, v})[0], want));
}
