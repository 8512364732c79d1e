// Functional API (grad, value_and_grad, vjp, jvp, hvp), forward mode, second order, complex.
#include <gtest/gtest.h>

#include <cmath>

#include "common/autodiff_test_ops.hpp"
#include "common/expect_error.hpp"
#include "core/tensor_aux.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;
using namespace tenferro::adtest;

namespace {

template <class T>
void expect_near(const Tensor& t, const std::vector<T>& want, double tol = 1e-10) {
  ASSERT_TRUE(t.defined());
  std::vector<T> got = t.to_vector<T>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]), tol) << "element " << i;
}

// x^T A x via bmm on [1, n, n] x [1, n, 1]
Tensor matvec(const Tensor& A, const Tensor& x) {
  std::int64_t n = x.numel();
  return reshape(tbmm(A, reshape(x, {1, n, 1})), {n});
}

std::vector<double> mv(const std::vector<double>& A, const std::vector<double>& x,
                       bool transposed) {
  std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) y[i] += (transposed ? A[j * n + i] : A[i * n + j]) * x[j];
  return y;
}

}  // namespace

TEST(AutodiffFunctional, GradValueAndGradZerosForUnusedInputs) {
  Tensor x = from_values({1, 2, 3}, {3}), y = from_values({4, 5}, {2});
  auto f = [](std::span<const Tensor> in) { return tsum(tadd(tmul(in[0], in[0]), tsin(in[0]))); };
  std::vector<Tensor> g = grad(f, {x, y});
  ASSERT_EQ(g.size(), 2u);
  expect_near<double>(g[0], {2 + std::cos(1.0), 4 + std::cos(2.0), 6 + std::cos(3.0)});
  expect_near<double>(g[1], {0, 0});  // JAX-like zeros for an input that does not matter
  ValueAndGrad vg = value_and_grad(f, {x, y});
  EXPECT_NEAR(vg.value.item<double>(), 14 + std::sin(1.0) + std::sin(2.0) + std::sin(3.0), 1e-12);
  EXPECT_FALSE(vg.value.requires_grad());
  // A function of a vector argument works too.
  auto fv = [](const std::vector<Tensor>& in) { return tsum(in[0]); };
  expect_near<double>(grad(fv, {x})[0], {1, 1, 1});
}

TEST(AutodiffFunctional, GradLeavesUserGradsAloneAndWorksUnderNoGrad) {
  Tensor x = from_values({1, 2}, {2}).requires_grad_();
  auto f = [](std::span<const Tensor> in) { return tsum(tmul(in[0], in[0])); };
  NoGradGuard ng;
  expect_near<double>(grad(f, {x})[0], {2, 4});
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(is_grad_enabled());
}

TEST(AutodiffFunctional, GradErrors) {
  Tensor x = from_values({1, 2}, {2});
  expect_error([&] { grad([](std::span<const Tensor> in) { return tmul(in[0], in[0]); }, {x}); },
               ErrorKind::InvalidArgument);  // not a scalar
  expect_error([&] { grad([](std::span<const Tensor>) { return Tensor(); }, {x}); },
               ErrorKind::InvalidArgument);
  expect_error([&] { grad([](std::span<const Tensor> in) { return tsum(in[0]); }, {Tensor()}); },
               ErrorKind::InvalidArgument);
  // f that ignores its input entirely: zeros.
  expect_near<double>(grad([](std::span<const Tensor>) { return scalar_tensor(3.0); }, {x})[0],
                      {0, 0});
}

TEST(AutodiffFunctional, VjpPullbackReusableAndChecked) {
  Tensor x = from_values({1, 2, 3}, {3});
  auto f = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{tmul(in[0], in[0]), tsum(in[0])};
  };
  VjpResult r = vjp(f, {x});
  ASSERT_EQ(r.outputs.size(), 2u);
  expect_near<double>(r.outputs[0], {1, 4, 9});
  EXPECT_FALSE(r.outputs[0].requires_grad());
  Tensor u = from_values({1, 0, 2}, {3});
  auto g1 = r.pullback({u, scalar_tensor(1.0)});
  expect_near<double>(g1[0], {2 + 1, 1, 12 + 1});
  auto g2 = r.pullback({u, Tensor()});  // undefined cotangent = zero; callable again
  expect_near<double>(g2[0], {2, 0, 12});
  expect_error([&] { r.pullback({u}); }, ErrorKind::InvalidArgument);
  expect_error([&] { r.pullback({from_values({1, 2}, {2}), Tensor()}); }, ErrorKind::ShapeMismatch);
  expect_error([&] { r.pullback({ones({3}, DType::f32), Tensor()}); }, ErrorKind::DTypeMismatch);
  auto g3 = r.pullback({u, scalar_tensor(1.0)});  // still intact after the errors
  expect_near<double>(g3[0], {3, 1, 13});
  // Scalar-function form.
  VjpResult s = vjp([](std::span<const Tensor> in) { return tsum(tsin(in[0])); }, {x});
  expect_near<double>(s.pullback({scalar_tensor(2.0)})[0],
                      {2 * std::cos(1.0), 2 * std::cos(2.0), 2 * std::cos(3.0)});
}

TEST(AutodiffFunctional, JvpForwardMode) {
  Tensor x = from_values({0.5, 1.5}, {2}), t = from_values({1, -2}, {2});
  auto f = [](std::span<const Tensor> in) {
    return tsin(tmul(in[0], in[0]));
  };  // d = cos(x^2) 2x t
  JvpResult r = jvp(f, {x}, {t});
  expect_near<double>(r.outputs[0], {std::sin(0.25), std::sin(2.25)});
  expect_near<double>(r.tangents[0], {std::cos(0.25) * 1.0 * 1, std::cos(2.25) * 3.0 * -2});
  EXPECT_FALSE(r.outputs[0].aux() && r.outputs[0].aux()->tangent.defined());
  // Undefined tangent = zero; outputs that do not depend on a tangent get zeros.
  JvpResult z = jvp(f, {x}, {Tensor()});
  expect_near<double>(z.tangents[0], {0, 0});
  expect_error([&] { jvp(f, {x}, {from_values({1}, {1})}); }, ErrorKind::ShapeMismatch);
  expect_error([&] { jvp(f, {x}, {ones({2}, DType::c128)}); }, ErrorKind::DTypeMismatch);
  expect_error([&] { jvp(f, {x}, {t, t}); }, ErrorKind::InvalidArgument);
}

TEST(AutodiffSecondOrder, HvpQuadratic) {
  // f(x) = x^T A x, H = A + A^T.
  const std::int64_t n = 4;
  Tensor A = randn({1, n, n}, 3), x = randn({n}, 4), v = randn({n}, 5);
  auto f = [&](std::span<const Tensor> in) { return tsum(tmul(in[0], matvec(A, in[0]))); };
  std::vector<double> a = A.to_vector<double>(), vv = v.to_vector<double>();
  std::vector<double> want = mv(a, vv, false), at = mv(a, vv, true);
  for (std::size_t i = 0; i < want.size(); ++i) want[i] += at[i];
  expect_near<double>(hvp(f, {x}, {v})[0], want, 1e-10);
  // The same via an explicit jvp of grad.
  auto g = [&](std::span<const Tensor> in) { return grad(f, in); };
  JvpResult r = jvp(g, {x}, {v});
  expect_near<double>(r.tangents[0], want, 1e-10);
}

TEST(AutodiffSecondOrder, HvpSumExpMatvec) {
  // f(x) = sum(exp(A x)): grad = A^T e, H v = A^T (e * (A v)), e = exp(A x).
  const std::int64_t n = 5;
  std::vector<double> scaled = randn({1, n, n}, 6).to_vector<double>();
  for (double& q : scaled) q *= 0.3;  // keeps exp(A x) moderate
  Tensor A = from_vector<double>(scaled, {1, n, n}), x = randn({n}, 7), v = randn({n}, 8);
  auto f = [&](std::span<const Tensor> in) { return tsum(texp(matvec(A, in[0]))); };
  std::vector<double> a = A.to_vector<double>(), xv = x.to_vector<double>(),
                      vv = v.to_vector<double>();
  std::vector<double> e = mv(a, xv, false), av = mv(a, vv, false);
  for (auto& q : e) q = std::exp(q);
  std::vector<double> g = mv(a, e, true);
  for (std::size_t i = 0; i < av.size(); ++i) av[i] *= e[i];
  std::vector<double> hv = mv(a, av, true);
  expect_near<double>(grad(f, {x})[0], g, 1e-10);
  expect_near<double>(hvp(f, {x}, {v})[0], hv, 1e-10);
}

TEST(AutodiffComplex, ConjugateWirtingerConvention) {
  Tensor z = from_vector<c128>({{1, 2}, {-0.5, 3}}, {2});
  Tensor w = from_vector<c128>({{0.25, -1}, {2, 0.5}}, {2});
  std::vector<c128> zv = z.to_vector<c128>(), wv = w.to_vector<c128>();
  // L = |z|^2 = Re sum z conj(z)  ->  grad = 2 z
  auto abs2 = [](std::span<const Tensor> in) { return treal(tsum(tmul(in[0], tconj(in[0])))); };
  expect_near<c128>(grad(abs2, {z})[0], {2.0 * zv[0], 2.0 * zv[1]});
  // L = Re sum conj(w) z  ->  grad_z = w, grad_w = z
  auto inner = [](std::span<const Tensor> in) { return treal(tsum(tmul(tconj(in[1]), in[0]))); };
  std::vector<Tensor> g = grad(inner, {z, w});
  expect_near<c128>(g[0], wv);
  expect_near<c128>(g[1], zv);
  // L = Re sum z^2 (holomorphic inside)  ->  grad = 2 conj(z)
  auto sq = [](std::span<const Tensor> in) { return treal(tsum(tmul(in[0], in[0]))); };
  expect_near<c128>(grad(sq, {z})[0], {2.0 * std::conj(zv[0]), 2.0 * std::conj(zv[1])});
  // Eager backward gives the same as grad.
  Tensor ze = from_vector<c128>(zv, {2}).requires_grad_();
  backward(abs2(std::span<const Tensor>(&ze, 1)));
  expect_near<c128>(ze.grad(), {2.0 * zv[0], 2.0 * zv[1]});
}

// vjp(p) and jvp(p) of a program with an integer input (indices): the input is a constant of
// the derivative, as in grad(p). Both transforms threw DTypeMismatch when built ("vjp: input 1
// has dtype i64"), so such a program had no reverse or forward program at all.
TEST(ProgramTransforms, VjpAndJvpTreatIntegerInputsAsConstants) {
  auto f = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{index_select(in[0], 0, in[1]) * sin(in[0])};
  };
  const Program p = trace(f, {ValueSpec{{3}}, ValueSpec{{3}, DType::i64}});
  const Tensor a = randn({3}, 31), idx = from_vector<std::int64_t>({2, 0, 2}, {3});
  const Tensor ct = randn({3}, 32), ta = randn({3}, 33);
  auto of_a = [&](std::span<const Tensor> x) { return f(std::vector<Tensor>{x[0], idx}); };
  const std::vector<Tensor> want_v = vjp(MultiFn(of_a), {a}).pullback({ct});
  const std::vector<Tensor> got_v = vjp(p)({a, idx, ct});
  ASSERT_EQ(got_v.size(), 2u);
  EXPECT_LE(max(abs(got_v[0] - want_v[0])).item<double>(), 1e-14);
  // the integer input's cotangent: zeros of its shape and dtype
  EXPECT_EQ(got_v[1].dtype(), DType::i64);
  EXPECT_EQ(got_v[1].shape(), idx.shape());
  EXPECT_EQ(count_nonzero(got_v[1]).item<std::int64_t>(), 0);

  const JvpResult want_j = jvp(MultiFn(of_a), {a}, {ta});
  // the integer input's tangent (any value of its spec) is ignored
  const std::vector<Tensor> got_j = jvp(p)({a, idx, ta, from_vector<std::int64_t>({1, 1, 1}, {3})});
  ASSERT_EQ(got_j.size(), 2u);
  EXPECT_LE(max(abs(got_j[0] - want_j.outputs[0])).item<double>(), 1e-14);
  EXPECT_LE(max(abs(got_j[1] - want_j.tangents[0])).item<double>(), 1e-14);
  // second order through the transformed programs: jvp of vjp(p) (forward over reverse)
  const std::vector<Tensor> hv = jvp(vjp(p))({a, idx, ct, ta, zeros({3}, DType::i64), zeros({3})});
  auto pull = [&](std::span<const Tensor> x) { return vjp(MultiFn(of_a), {x[0]}).pullback({ct}); };
  const JvpResult want_hv = jvp(MultiFn(pull), {a}, {ta});
  ASSERT_EQ(hv.size(), 4u);
  EXPECT_LE(max(abs(hv[2] - want_hv.tangents[0])).item<double>(), 1e-13);
}
