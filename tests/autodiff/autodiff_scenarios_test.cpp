// End-to-end autodiff with the real op families: the scope feature's sum(bmm(a, b)) case in every
// mode and at budgets 1 and 4, sum(x*x + sin(x)), Hessian-vector products, complex convention.
#include <gtest/gtest.h>

#include <cmath>

#include "common/autodiff_fd.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;

namespace {

template <class T>
void expect_near(const Tensor& t, const std::vector<T>& want, double tol) {
  ASSERT_TRUE(t.defined());
  std::vector<T> got = t.to_vector<T>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]), tol) << "element " << i;
}

struct BmmResults {
  Tensor ga, gb, ga_fn, gb_fn, ga_vjp, gb_vjp, jvp_t;
};

BmmResults sum_bmm_all_modes(const Tensor& a0, const Tensor& b0, const Tensor& ta,
                             const Tensor& tb) {
  BmmResults r;
  Tensor a = detach(a0), b = detach(b0);
  a.requires_grad_();
  b.requires_grad_();
  backward(sum(bmm(a, b)));
  r.ga = a.grad();
  r.gb = b.grad();
  auto f = [](std::span<const Tensor> in) { return sum(bmm(in[0], in[1])); };
  std::vector<Tensor> g = grad(f, {a0, b0});
  r.ga_fn = g[0];
  r.gb_fn = g[1];
  std::vector<Tensor> gv = vjp(f, {a0, b0}).pullback({scalar_tensor(1.0)});
  r.ga_vjp = gv[0];
  r.gb_vjp = gv[1];
  r.jvp_t = jvp(f, {a0, b0}, {ta, tb}).tangents[0];
  return r;
}

}  // namespace

TEST(AutodiffScenario, SumBmm16x2x2ClosedFormEveryModeBudgets1And4) {
  Tensor a = randn({16, 2, 2}, 101), b = randn({16, 2, 2}, 102);
  Tensor ta = randn({16, 2, 2}, 103), tb = randn({16, 2, 2}, 104);
  std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> tav = ta.to_vector<double>(), tbv = tb.to_vector<double>();
  std::vector<double> ga(64), gb(64);
  double dir = 0;
  for (int p = 0; p < 16; ++p)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        ga[p * 4 + i * 2 + k] = bv[p * 4 + k * 2] + bv[p * 4 + k * 2 + 1];  // sum_j b[p, k, j]
        gb[p * 4 + i * 2 + k] = av[p * 4 + i] + av[p * 4 + 2 + i];          // sum_q a[p, q, i]
      }
  for (int e = 0; e < 64; ++e) dir += ga[e] * tav[e] + gb[e] * tbv[e];
  BmmResults res[2];
  int slot = 0;
  for (int threads : {1, 4}) {
    CpuBackend cpu(CpuBackendOptions{.threads = threads});
    BackendGuard use(cpu);
    res[slot++] = sum_bmm_all_modes(a, b, ta, tb);
  }
  for (const BmmResults& r : res) {
    for (const Tensor* t : {&r.ga, &r.ga_fn, &r.ga_vjp}) expect_near<double>(*t, ga, 1e-12);
    for (const Tensor* t : {&r.gb, &r.gb_fn, &r.gb_vjp}) expect_near<double>(*t, gb, 1e-12);
    EXPECT_NEAR(r.jvp_t.item<double>(), dir, 1e-10);
  }
  expect_near<double>(res[1].ga, res[0].ga.to_vector<double>(), 1e-13);
  expect_near<double>(res[1].gb, res[0].gb.to_vector<double>(), 1e-13);
}

TEST(AutodiffScenario, SumSquarePlusSin) {
  auto f = [](std::span<const Tensor> in) { return sum(in[0] * in[0] + sin(in[0])); };
  for (std::int64_t n : {3, 64, 1024}) {
    SCOPED_TRACE(n);
    Tensor x = randn({n}, 110);
    std::vector<double> xv = x.to_vector<double>(), want;
    for (double v : xv) want.push_back(2 * v + std::cos(v));
    Tensor leaf = detach(x);
    leaf.requires_grad_();
    backward(f(std::span<const Tensor>(&leaf, 1)));
    expect_near<double>(leaf.grad(), want, 1e-12);
    expect_near<double>(grad(f, {x})[0], want, 1e-12);
    adtest::FdFn fv = [&](std::span<const Tensor> in) { return std::vector<Tensor>{f(in)}; };
    EXPECT_TRUE(adtest::check_vjp(fv, {x}));
    EXPECT_TRUE(adtest::check_jvp(fv, {x}));
    // Non-contiguous input: every other element of a longer vector.
    Tensor strided = slice(randn({2 * n}, 111), 0, 0, 2 * n, 2);
    EXPECT_TRUE(adtest::check_vjp(fv, {strided}));
  }
}

TEST(AutodiffScenario, HvpQuadraticAndSumExpMatvec) {
  const std::int64_t n = 6;
  Tensor A = randn({n, n}, 120) * 0.3, x = randn({n}, 121), v = randn({n}, 122);
  std::vector<double> a = A.to_vector<double>(), xv = x.to_vector<double>(),
                      vv = v.to_vector<double>();
  auto mv = [&](const std::vector<double>& y, bool t) {
    std::vector<double> r(n, 0.0);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) r[i] += (t ? a[j * n + i] : a[i * n + j]) * y[j];
    return r;
  };
  // x^T A x: H v = (A + A^T) v
  auto quad = [&](std::span<const Tensor> in) { return sum(in[0] * matmul(A, in[0])); };
  std::vector<double> want = mv(vv, false), at = mv(vv, true);
  for (std::int64_t i = 0; i < n; ++i) want[i] += at[i];
  expect_near<double>(hvp(quad, {x}, {v})[0], want, 1e-12);
  // sum(exp(A x)): H v = A^T (exp(A x) * (A v))
  auto se = [&](std::span<const Tensor> in) { return sum(exp(matmul(A, in[0]))); };
  std::vector<double> e = mv(xv, false), av = mv(vv, false);
  for (std::int64_t i = 0; i < n; ++i) av[i] *= std::exp(e[i]);
  expect_near<double>(hvp(se, {x}, {v})[0], mv(av, true), 1e-11);
  // The gradient rides along: value of grad inside jvp is A^T exp(A x).
  for (auto& q : e) q = std::exp(q);
  JvpResult r = jvp([&](std::span<const Tensor> in) { return grad(se, in); }, {x}, {v});
  expect_near<double>(r.outputs[0], mv(e, true), 1e-12);
}

TEST(AutodiffScenario, ComplexConventionWithRealOps) {
  Tensor z = from_vector<c128>({{1, 2}, {-0.5, 3}, {0, -1}}, {3});
  Tensor w = from_vector<c128>({{0.25, -1}, {2, 0.5}, {1, 1}}, {3});
  std::vector<c128> zv = z.to_vector<c128>(), wv = w.to_vector<c128>();
  std::vector<c128> two_z, two_conj_z;
  for (c128 q : zv) two_z.push_back(2.0 * q), two_conj_z.push_back(2.0 * std::conj(q));
  // |z|^2 three ways: sum_squares, sum(abs^2), Re sum(z conj z)
  auto l1 = [](std::span<const Tensor> in) { return sum_squares(in[0]); };
  auto l2 = [](std::span<const Tensor> in) { return sum(square(abs(in[0]))); };
  auto l3 = [](std::span<const Tensor> in) { return cast(sum(in[0] * conj(in[0])), DType::f64); };
  expect_near<c128>(grad(l1, {z})[0], two_z, 1e-12);
  expect_near<c128>(grad(l2, {z})[0], two_z, 1e-12);
  expect_near<c128>(grad(l3, {z})[0], two_z, 1e-12);
  // Re(conj(w) . z) = Re vdot(w, z): grad_z = w, grad_w = z
  auto l4 = [](std::span<const Tensor> in) { return cast(vdot(in[1], in[0]), DType::f64); };
  std::vector<Tensor> g = grad(l4, {z, w});
  expect_near<c128>(g[0], wv, 1e-12);
  expect_near<c128>(g[1], zv, 1e-12);
  // Re sum z^2: grad = 2 conj(z)
  auto l5 = [](std::span<const Tensor> in) { return cast(sum(in[0] * in[0]), DType::f64); };
  expect_near<c128>(grad(l5, {z})[0], two_conj_z, 1e-12);
  // Eager backward with a complex output and an explicit cotangent: y = z * w, u = 1 ->
  // grad_z = conj(w) (the PyTorch convention for vjp of holomorphic maps).
  Tensor ze = detach(z);
  ze.requires_grad_();
  Tensor y = ze * w;
  backward(y, ones({3}, DType::c128));
  std::vector<c128> cw;
  for (c128 q : wv) cw.push_back(std::conj(q));
  expect_near<c128>(ze.grad(), cw, 1e-12);
}
