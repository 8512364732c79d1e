// linsolve (cg, minres, gmres, bicgstab) against solve, and exponentiate against dense
// exponentials; their derivatives against the dense rules and finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/expect_error.hpp"
#include "krylov/krylov_test_util.hpp"

namespace tenferro {
namespace {

using testing::expect_error;
using testing::matvec;
using testing::max_abs_diff;
using testing::random_hermitian;

// A matrix suited to the method: HPD for cg, Hermitian indefinite for minres, general otherwise.
Tensor matrix_for(LinsolveMethod m, std::int64_t n, std::uint64_t seed, DType dt) {
  NoGradGuard ng;
  const Tensor eye = cast(diag(ones({n})), dt);
  if (m == LinsolveMethod::cg) {
    const Tensor b = randn({n, n}, seed, dt);
    return add(matmul(b, conj(b).transpose()), mul(eye, Scalar(double(n))));
  }
  if (m == LinsolveMethod::minres) return add(random_hermitian(n, seed, dt), mul(eye, Scalar(0.3)));
  return add(mul(randn({n, n}, seed, dt), Scalar(1.0 / std::sqrt(double(n)))),
             mul(eye, Scalar(3.0)));
}

class Linsolve : public ::testing::TestWithParam<std::tuple<LinsolveMethod, DType>> {};

TEST_P(Linsolve, MatchesSolveAndItsDerivatives) {
  const auto [method, dt] = GetParam();
  const std::int64_t n = 80;
  const Tensor a0 = matrix_for(method, n, 1, dt), b0 = randn({n}, 2, dt), c = randn({n}, 3, dt);
  LinsolveOptions o;
  o.method = method;
  const LinsolveResult r = linsolve(matvec(a0), b0, {}, o);
  EXPECT_LT(max_abs_diff(r.x, solve(a0, b0)), 1e-9);
  EXPECT_TRUE(r.info.converged);
  EXPECT_LT(r.info.residuals[0], 1e-10 * std::sqrt(double(n)));

  // Gradients with respect to the map's matrix and to b, against the dense solve.
  const bool herm = method == LinsolveMethod::cg || method == LinsolveMethod::minres;
  auto sym = [&](const Tensor& a) {
    return herm ? mul(add(a, conj(a).transpose()), Scalar(0.5)) : a;
  };
  auto loss_of = [&](const Tensor& x) {
    const Tensor ip = vdot(c, x);
    return real(mul(conj(ip), ip));
  };
  auto krylov = [&](std::span<const Tensor> in) {
    LinsolveOptions oo;
    oo.method = method;
    return loss_of(linsolve(matvec(sym(in[0])), in[1], {}, oo).x);
  };
  auto dense = [&](std::span<const Tensor> in) { return loss_of(solve(sym(in[0]), in[1])); };
  const std::vector<Tensor> g1 = grad(krylov, {a0, b0}), g2 = grad(dense, {a0, b0});
  EXPECT_LT(max_abs_diff(g1[0], g2[0]), 1e-8);
  EXPECT_LT(max_abs_diff(g1[1], g2[1]), 1e-8);
  const Tensor ta = matrix_for(method, n, 4, dt), tb = randn({n}, 5, dt);
  const JvpResult j1 = jvp(krylov, {a0, b0}, {ta, tb}), j2 = jvp(dense, {a0, b0}, {ta, tb});
  EXPECT_NEAR(j1.tangents[0].item<double>(), j2.tangents[0].item<double>(),
              1e-8 * std::max(1.0, std::abs(j2.tangents[0].item<double>())));
}

INSTANTIATE_TEST_SUITE_P(
    Methods, Linsolve,
    ::testing::Combine(::testing::Values(LinsolveMethod::cg, LinsolveMethod::minres,
                                         LinsolveMethod::gmres, LinsolveMethod::bicgstab),
                       ::testing::Values(DType::f64, DType::c128)));

TEST(LinsolveMisc, SecondOrderThrowsEvenForALinearLoss) {
  // A linear loss sends a constant cotangent into the adjoint rule, but the rule's operands still
  // carry the enclosing transform: the frozen A^-1 would drop d(A^-1), silently. Refused, in
  // every nesting (Note [Krylov autodiff]).
  const std::int64_t n = 12;
  const Tensor a0 = matrix_for(LinsolveMethod::gmres, n, 12, DType::f64), b = randn({n}, 13);
  const Tensor t = randn({n, n}, 14);
  auto loss = [&](std::span<const Tensor> in) { return sum(linsolve(matvec(in[0]), b).x); };
  auto inner_grad = [&](std::span<const Tensor> in) { return grad(loss, in)[0]; };
  expect_error(ErrorKind::Unsupported, [&] { hvp(loss, {a0}, {t}); }, {"second derivatives"});
  expect_error(ErrorKind::Unsupported,
               [&] { grad([&](std::span<const Tensor> in) { return sum(inner_grad(in)); }, {a0}); },
               {"second derivatives"});
  auto directional = [&](std::span<const Tensor> in) {
    const Tensor dir[1] = {t};
    return sum(jvp(ScalarFn(loss), in, dir).tangents[0]);
  };
  expect_error(ErrorKind::Unsupported, [&] { grad(directional, {a0}); }, {"second derivatives"});
  // First order is unaffected: d sum(A^-1 b) / dA = -A^-T 1 x^T.
  const Tensor x = solve(a0, b), y = solve(a0.transpose(), ones({n}));
  EXPECT_LT(max_abs_diff(grad(loss, {a0})[0], neg(outer(y, x))), 1e-8);
}

// Vectors whose squares leave the double range: |b| ~ 1e160 had norm inf, so x = 0 came back as
// converged (relative error 1); a map scaled by 1e-170 gave eigsh and svds norms of 0 and wrong
// values reported as converged.
TEST(LinsolveMisc, VectorsBeyondTheRangeOfTheirSquares) {
  const std::int64_t n = 30;
  const Tensor a = add(random_hermitian(n, 60, DType::f64), mul(eye(n), Scalar(8.0)));
  const Tensor b = randn({n}, 61);
  const Tensor x = solve(a, b);
  for (double scale : {1e160, 1e-170}) {
    const LinsolveResult r = linsolve(matvec(a), mul(b, Scalar(scale)));
    EXPECT_LT(max_abs_diff(mul(r.x, Scalar(1 / scale)), x), 1e-10) << scale;
  }
  const Tensor tiny = mul(a, Scalar(1e-170));
  const EigshResult e = eigsh(matvec(tiny), randn({n}, 62), 2);
  const std::vector<double> want = eigvalsh(a).slice(0, 0, 2).to_vector<double>();
  const std::vector<double> got = e.eigenvalues.to_vector<double>();
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(got[i] / 1e-170, want[i], 1e-9) << i;
  const std::vector<double> sv = svdvals(a).slice(0, 0, 2).to_vector<double>();
  for (SvdsMethod method : {SvdsMethod::lanczos, SvdsMethod::randomized, SvdsMethod::automatic}) {
    SvdsOptions o;
    o.method = method;
    const std::vector<double> s = svds(tiny, 2, o).S.to_vector<double>();
    for (int i = 0; i < 2; ++i)
      EXPECT_NEAR(s[i] / 1e-170, sv[i], 1e-9) << i << " method " << static_cast<int>(method);
  }
}

TEST(LinsolveMisc, AdjointGivenByTheUserZeroRhsAndErrors) {
  const std::int64_t n = 40;
  const Tensor a0 = matrix_for(LinsolveMethod::gmres, n, 10, DType::f64), b = randn({n}, 11);
  LinsolveOptions o;
  o.adjoint = [&](const Tensor& v) { return matmul(a0.transpose(), v); };
  Tensor b_leaf = b;
  b_leaf.requires_grad_();
  const Tensor x = linsolve(matvec(a0), b_leaf, {}, o).x;
  backward(sum(x));
  EXPECT_LT(max_abs_diff(b_leaf.grad(), solve(a0.transpose(), ones({n}))), 1e-9);

  EXPECT_EQ(max_abs_diff(linsolve(matvec(a0), zeros({n})).x, zeros({n})), 0.0);
  expect_error(ErrorKind::ShapeMismatch, [&] { linsolve(matvec(a0), b, zeros({n + 1})); }, {"x0"});
  LinsolveOptions one;
  one.max_iterations = 0;
  expect_error(ErrorKind::LinAlgError, [&] { linsolve(matvec(a0), b, {}, one); }, {"gmres"});
  one.require_convergence = false;
  EXPECT_FALSE(linsolve(matvec(a0), b, {}, one).info.converged);
  LinsolveOptions cg;
  cg.method = LinsolveMethod::cg;
  cg.max_iterations = 3;
  expect_error(ErrorKind::LinAlgError, [&] { linsolve(matvec(a0), b, {}, cg); }, {"cg"});
}

// ---- exponentiate ----

Tensor zeros_like_t(const Tensor& t) { return zeros(t.shape(), t.dtype()); }

// exp(t a) by eigh for Hermitian a (differentiable through eigh: distinct eigenvalues).
Tensor hermitian_exp_apply(const Tensor& a, Scalar t, const Tensor& x) {
  const EighResult e = eigh(a);
  const DType dt = is_complex(x.dtype()) || t.imag() != 0 ? complex_dtype(a.dtype()) : a.dtype();
  const Tensor v = cast(e.eigenvectors, dt);
  const Tensor w = exp(mul(cast(e.eigenvalues, dt), t));
  return matmul(v, mul(w, matmul(conj(v).transpose(), cast(x, dt))));
}

// exp(a) for a general matrix by scaling and squaring of a Taylor series (a second reference).
Tensor dense_expm(const Tensor& a) {
  NoGradGuard ng;
  const std::int64_t n = a.size(0);
  const int s = 8;
  const Tensor b = mul(a, Scalar(std::ldexp(1.0, -s)));
  Tensor e = cast(diag(ones({n})), a.dtype()), term = e;
  for (int k = 1; k < 20; ++k) {
    term = mul(matmul(term, b), Scalar(1.0 / k));
    e = add(e, term);
  }
  for (int i = 0; i < s; ++i) e = matmul(e, e);
  return e;
}

TEST(Exponentiate, HermitianRealAndImaginaryTimes) {
  for (DType dt : {DType::f64, DType::c128}) {
    const std::int64_t n = 200;
    const Tensor a = random_hermitian(n, 20, dt), x = randn({n}, 21, dt);
    for (Scalar t : {Scalar(-0.7), Scalar(0, -2.0), Scalar(0.1, 0.5)}) {
      ExponentiateOptions o;
      o.hermitian = true;
      const ExponentiateResult r = exponentiate(matvec(a), t, x, o);
      const Tensor want = hermitian_exp_apply(a, t, x);
      EXPECT_EQ(r.x.dtype(), want.dtype());
      EXPECT_LT(max_abs_diff(r.x, want),
                1e-9 * testing::max_abs_diff(want, zeros(want.shape(), want.dtype())))
          << dtype_name(dt) << " t " << t;
      if (t.real() == 0) {  // unitary evolution keeps the norm
        const double nx = std::sqrt(real(vdot(x, x)).item<double>());
        EXPECT_NEAR(std::sqrt(real(vdot(r.x, r.x)).item<double>()), nx, 1e-9 * nx);
      }
    }
  }
}

TEST(Exponentiate, NonHermitianAgainstMatrixExp) {
  for (DType dt : {DType::f64, DType::c128}) {
    const std::int64_t n = 60;
    const Tensor a = mul(randn({n, n}, 30, dt), Scalar(0.5)), x = randn({n}, 31, dt);
    for (Scalar t : {Scalar(1.3), Scalar(0.4, -0.9)}) {
      const ExponentiateResult r = exponentiate(matvec(a), t, x);
      const DType rd = t.imag() != 0 ? complex_dtype(dt) : dt;
      const Tensor want = matmul(matrix_exp(mul(cast(a, rd), t)), cast(x, rd));
      EXPECT_LT(max_abs_diff(r.x, want), 1e-9 * max_abs_diff(want, zeros_like_t(want)))
          << dtype_name(dt) << " t " << t;
      // The Taylor reference agrees too (checks matrix_exp and the test at once).
      EXPECT_LT(max_abs_diff(matmul(dense_expm(mul(cast(a, rd), t)), cast(x, rd)), want),
                1e-9 * max_abs_diff(want, zeros_like_t(want)));
      EXPECT_GT(r.info.iterations, 0);
    }
  }
}

TEST(KrylovScope, EachSolveEntersTheExecutorOnce) {
  const CpuBackend b(CpuBackendOptions{.threads = 2});
  BackendGuard use(b);
  const Tensor a = matrix_for(LinsolveMethod::gmres, 50, 70, DType::f64), v = randn({50}, 71);
  auto once = [&](auto&& f) {
    const std::uint64_t before = b.executor_entries();
    b.with_execution_scope(f);
    return b.executor_entries() - before;
  };
  EXPECT_EQ(once([&] { return linsolve(matvec(a), v).x; }), 1u);
  EXPECT_EQ(once([&] { return exponentiate(matvec(a), 0.5, v).x; }), 1u);
  EXPECT_EQ(once([&] { return svds(a, 3).S; }), 1u);
  Tensor leaf = a;
  leaf.requires_grad_();
  EXPECT_EQ(once([&] {
              backward(sum(linsolve(matvec(leaf), v).x));
              return leaf.grad();
            }),
            1u);
  EXPECT_LT(
      max_abs_diff(leaf.grad(),
                   grad([&](std::span<const Tensor> in) { return sum(solve(in[0], v)); }, {a})[0]),
      1e-9);
}

TEST(ExponentiateGrad, HermitianMatchesTheEighRule) {
  for (DType dt : {DType::f64, DType::c128}) {
    const std::int64_t n = 30;
    const Tensor a0 = random_hermitian(n, 40, dt), x0 = randn({n}, 41, dt), c = randn({n}, 42, dt);
    for (Scalar t : {Scalar(-0.8), Scalar(0, -1.5)}) {
      auto loss_of = [&](const Tensor& y) {
        const Tensor ip = vdot(cast(c, y.dtype()), y);
        return real(mul(conj(ip), ip));
      };
      auto sym = [](const Tensor& a) { return mul(add(a, conj(a).transpose()), Scalar(0.5)); };
      auto krylov = [&](std::span<const Tensor> in) {
        ExponentiateOptions o;
        o.hermitian = true;
        return loss_of(exponentiate(matvec(sym(in[0])), t, in[1], o).x);
      };
      auto dense = [&](std::span<const Tensor> in) {
        return loss_of(hermitian_exp_apply(sym(in[0]), t, in[1]));
      };
      const std::vector<Tensor> g1 = grad(krylov, {a0, x0}), g2 = grad(dense, {a0, x0});
      const Tensor z = zeros(g2[0].shape(), g2[0].dtype());
      EXPECT_LT(max_abs_diff(g1[0], g2[0]), 1e-9 * max_abs_diff(g2[0], z))
          << dtype_name(dt) << " t " << t;
      EXPECT_LT(max_abs_diff(g1[1], g2[1]), 1e-9 * max_abs_diff(g2[1], zeros_like_t(g2[1])))
          << dtype_name(dt) << " t " << t;
    }
  }
}

TEST(ExponentiateGrad, NonHermitianAgainstFiniteDifferences) {
  const std::int64_t n = 20;
  const Tensor a0 = mul(randn({n, n}, 50), Scalar(0.4)), x0 = randn({n}, 51), c = randn({n}, 52);
  auto f = [&](std::span<const Tensor> in) {
    return vdot(c, exponentiate(matvec(in[0]), 1.1, in[1]).x);
  };
  const Tensor ta = randn({n, n}, 53), tx = randn({n}, 54);
  const double h = 1e-5;
  const double fd =
      (f(std::vector<Tensor>{add(a0, mul(ta, Scalar(h))), add(x0, mul(tx, Scalar(h)))})
           .item<double>() -
       f(std::vector<Tensor>{sub(a0, mul(ta, Scalar(h))), sub(x0, mul(tx, Scalar(h)))})
           .item<double>()) /
      (2 * h);
  const JvpResult j = jvp(f, {a0, x0}, {ta, tx});
  EXPECT_NEAR(j.tangents[0].item<double>(), fd, 1e-6 * std::max(1.0, std::abs(fd)));
  const std::vector<Tensor> g = grad(f, {a0, x0});
  const double along = add(sum(mul(g[0], ta)), sum(mul(g[1], tx))).item<double>();
  EXPECT_NEAR(along, fd, 1e-6 * std::max(1.0, std::abs(fd)));
}

// A NaN tol or degeneracy_eps failed `>= 0` and silently became the dtype's default (and an
// infinite tol accepted any residual). Both are InvalidArgument naming the solver and the option
// now, checked before any iteration; a negative finite value stays the documented default.
TEST(KrylovOptions, NonFiniteTolAndDegeneracyEpsAreRefused) {
  const Tensor a = random_hermitian(10, 61, DType::f64);
  const Tensor x = randn({10}, 2);
  const Tensor spd = add(matmul(a, a), eye(10));
  const Tensor rect = randn({8, 6}, 30);
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {std::nan(""), inf, -inf}) {
    EigshOptions eo;
    eo.tol = bad;
    expect_error(ErrorKind::InvalidArgument, [&] { eigsh(matvec(a), x, 1, eo); }, {"eigsh", "tol"});
    eo.tol = -1.0;
    eo.degeneracy_eps = bad;
    expect_error(ErrorKind::InvalidArgument, [&] { eigsh(matvec(a), x, 1, eo); },
                 {"eigsh", "degeneracy_eps"});
    LinsolveOptions lo;
    lo.tol = bad;
    expect_error(ErrorKind::InvalidArgument, [&] { linsolve(matvec(spd), x, {}, lo); },
                 {"linsolve", "tol"});
    ExponentiateOptions xo;
    xo.tol = bad;
    expect_error(ErrorKind::InvalidArgument, [&] { exponentiate(matvec(a), 0.5, x, xo); },
                 {"exponentiate", "tol"});
    SvdsOptions so;
    so.tol = bad;
    expect_error(ErrorKind::InvalidArgument, [&] { svds(rect, 2, so); }, {"svds", "tol"});
    expect_error(ErrorKind::InvalidArgument,
                 [&] { svds(matvec(rect), matvec(rect.transpose()), randn({6}, 3), 2, so); },
                 {"svds", "tol"});
    so.tol = -1.0;
    so.degeneracy_eps = bad;
    expect_error(ErrorKind::InvalidArgument, [&] { svds(rect, 2, so); },
                 {"svds", "degeneracy_eps"});
    FixedPointOptions fo;
    fo.tol = bad;
    expect_error(ErrorKind::InvalidArgument,
                 [&] {
                   fixed_point(
                       [](std::span<const Tensor> v) { return mul(cos(v[0]), Scalar(0.5)); },
                       zeros({3}), std::span<const Tensor>{}, fo);
                 },
                 {"fixed_point", "tol"});
  }
  // Negative finite values are the defaults, as documented.
  EigshOptions eo;
  eo.tol = -2.0;
  eo.degeneracy_eps = -2.0;
  EXPECT_EQ(eigsh(matvec(a), x, 1, eo).info.converged, 1);
}

TEST(Exponentiate, Errors) {
  const Tensor a = random_hermitian(10, 60, DType::f64);
  expect_error(ErrorKind::InvalidArgument,
               [&] { exponentiate(matvec(a), Scalar(std::nan(""), 0), randn({10}, 1)); },
               {"finite"});
  ExponentiateOptions o;
  o.max_steps = 1;
  o.krylov_dim = 2;
  expect_error(ErrorKind::LinAlgError,
               [&] { exponentiate(matvec(mul(a, Scalar(50.0))), 1.0, randn({10}, 1), o); },
               {"exponentiate"});
}

}  // namespace
}  // namespace tenferro
