// eigsh: values against eigh on dense maps (f64 and c128, degenerate spectra, both methods),
// vectors of any shape, errors, and the derivative rule against eigh's.
#include <gtest/gtest.h>

#include <numeric>

#include "common/expect_error.hpp"
#include "krylov/krylov_test_util.hpp"

namespace tenferro {
namespace {

using testing::expect_error;
using testing::hermitian_with_spectrum;
using testing::matvec;
using testing::max_abs_diff;
using testing::random_hermitian;

// Sorted reference eigenvalues of a dense Hermitian matrix.
std::vector<double> reference(const Tensor& a) {
  return cast(eigvalsh(a), DType::f64).to_vector<double>();
}

void expect_eigenpairs(const Tensor& a, const EigshResult& r, double tol) {
  for (std::size_t i = 0; i < r.eigenvectors.size(); ++i) {
    const Tensor& x = r.eigenvectors[i];
    const Tensor lam = cast(r.eigenvalues.slice(0, i, i + 1), x.dtype());
    EXPECT_LT(max_abs_diff(matmul(a, x), mul(x, lam)), tol) << "pair " << i;
    for (std::size_t j = 0; j <= i; ++j) {
      const double ip = cast(abs(vdot(r.eigenvectors[j], x)), DType::f64).item<double>();
      EXPECT_NEAR(ip, i == j ? 1.0 : 0.0, tol) << "<x_" << j << ", x_" << i << ">";
    }
  }
}

class EigshValues : public ::testing::TestWithParam<std::tuple<DType, EigshMethod>> {};

TEST_P(EigshValues, MatchEighOnARandomHermitianMap) {
  const auto [dt, method] = GetParam();
  const std::int64_t n = 300;
  const Tensor a = random_hermitian(n, 1, dt);
  const std::vector<double> w = reference(a);
  for (std::int64_t k : {1, 4}) {
    EigshOptions o;
    o.method = method;
    const EigshResult r = eigsh(matvec(a), randn({n}, 2, dt), k, o);
    const std::vector<double> got = cast(r.eigenvalues, DType::f64).to_vector<double>();
    for (std::int64_t i = 0; i < k; ++i) EXPECT_NEAR(got[i], w[i], 1e-9) << "k " << k << " i " << i;
    expect_eigenpairs(a, r, 1e-8);
    EXPECT_EQ(r.info.converged, k);
    EXPECT_GT(r.info.applications, k);
  }
  EigshOptions o;
  o.method = method;
  o.which = Which::largest_real;
  const EigshResult top = eigsh(matvec(a), randn({n}, 3, dt), 2, o);
  EXPECT_NEAR(cast(top.eigenvalues, DType::f64).to_vector<double>()[0], w[n - 1], 1e-9);
  EXPECT_NEAR(cast(top.eigenvalues, DType::f64).to_vector<double>()[1], w[n - 2], 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, EigshValues,
                         ::testing::Combine(::testing::Values(DType::f64, DType::c128),
                                            ::testing::Values(EigshMethod::lanczos,
                                                              EigshMethod::davidson)));

TEST(Eigsh, FindsEveryMemberOfADegenerateMultiplet) {
  std::vector<double> w(400);
  std::iota(w.begin(), w.end(), 0.0);
  for (int i = 0; i < 3; ++i) w[i] = -1.0;  // a triple ground state, then 3, 4, ...
  w[3] = 3.0;
  for (DType dt : {DType::f64, DType::c128}) {
    const Tensor a = hermitian_with_spectrum(w, 5, dt);
    const EigshResult r = eigsh(matvec(a), randn({400}, 6, dt), 4);
    const std::vector<double> got = cast(r.eigenvalues, DType::f64).to_vector<double>();
    EXPECT_NEAR(got[0], -1, 1e-9);
    EXPECT_NEAR(got[1], -1, 1e-9);
    EXPECT_NEAR(got[2], -1, 1e-9);
    EXPECT_NEAR(got[3], 3, 1e-9);
    expect_eigenpairs(a, r, 1e-8);
  }
}

TEST(Eigsh, TenPairsOfAMapOfOrder2000) {
  // Ten low levels -10, ..., -1 below a band in [0, 20], coupled by a random rank-3 term: a
  // gapped low spectrum, as a physical ground-state problem has.
  const std::int64_t n = 2000;
  NoGradGuard ng;
  std::vector<double> d(n);
  for (std::int64_t i = 0; i < n; ++i) d[i] = i < 10 ? double(i) - 10 : 20.0 * double(i) / n;
  const Tensor g = mul(randn({n, 3}, 17), Scalar(0.01));
  const Tensor a = add(diag(from_vector<double>(d, {n})), matmul(g, g.transpose())).contiguous();
  const std::vector<double> w = reference(a);
  const EigshResult r = eigsh(matvec(a), randn({n}, 18), 10);
  const std::vector<double> got = r.eigenvalues.to_vector<double>();
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(got[i], w[i], 1e-9) << i;
  expect_eigenpairs(a, r, 1e-8);
}

TEST(Eigsh, LargestMagnitudeAndSmallDimensions) {
  const Tensor a = hermitian_with_spectrum({-5, 1, 2, 3, 4}, 7, DType::f64);
  EigshOptions o;
  o.which = Which::largest_magnitude;
  const EigshResult r = eigsh(matvec(a), randn({5}, 8), 2, o);
  EXPECT_NEAR(r.eigenvalues.to_vector<double>()[0], -5, 1e-10);
  EXPECT_NEAR(r.eigenvalues.to_vector<double>()[1], 4, 1e-10);
  const EigshResult all = eigsh(matvec(a), randn({5}, 9), 5);  // k == n
  EXPECT_NEAR(all.eigenvalues.to_vector<double>()[4], 4, 1e-10);
}

TEST(Eigsh, EagerStopsAsSoonAsAWarmStartHasConverged) {
  // A warm start (the ground state plus a small perturbation, as in a DMRG sweep) converges in a
  // few steps; eager checking stops there instead of filling the 30-vector space, and finds the
  // same pair as a full solve.
  std::vector<double> spectrum{-3.0, -2.5, -2.0};  // gapped low end, as a gapped chain's
  for (int i = 0; i < 197; ++i) spectrum.push_back(i / 197.0);
  const Tensor a = hermitian_with_spectrum(spectrum, 21, DType::f64);
  const EighResult ref = eigh(a);
  const Tensor g = ref.eigenvectors.slice(1, 0, 1).reshape({200});
  const Tensor warm = add(g, mul(randn({200}, 22), 1e-4));
  EigshOptions full;
  full.krylov_dim = 30;
  EigshOptions eager = full;
  eager.eager = true;
  const EigshResult rf = eigsh(matvec(a), warm, 1, full);
  const EigshResult re = eigsh(matvec(a), warm, 1, eager);
  const double e0 = ref.eigenvalues.to_vector<double>()[0];
  EXPECT_NEAR(rf.eigenvalues.to_vector<double>()[0], e0, 1e-10);
  EXPECT_NEAR(re.eigenvalues.to_vector<double>()[0], e0, 1e-10);
  EXPECT_LT(re.info.residuals[0], 1e-9);
  EXPECT_LT(re.info.applications, rf.info.applications);
  EXPECT_LT(re.info.applications, 30);
  // From a random start it still finds the lowest eigenvalue (k = 1 and k = 3).
  for (std::int64_t k : {1, 3}) {
    const EigshResult r = eigsh(matvec(a), randn({200}, 23), k, eager);
    const std::vector<double> w = ref.eigenvalues.to_vector<double>();
    for (std::int64_t i = 0; i < k; ++i)
      EXPECT_NEAR(r.eigenvalues.to_vector<double>()[i], w[i], 1e-9) << "k " << k << " pair " << i;
  }
}

TEST(Eigsh, VectorsMayHaveAnyShape) {
  // A map on 6 x 7 matrices: x -> M x + x N (a Sylvester operator, Hermitian for Hermitian M, N).
  const Tensor m = random_hermitian(6, 10, DType::f64), nm = random_hermitian(7, 11, DType::f64);
  auto f = [&](std::span<const Tensor> x) { return add(matmul(m, x[0]), matmul(x[0], nm)); };
  const EigshResult r = eigsh(f, randn({6, 7}, 12), 1);
  const std::vector<double> wm = reference(m), wn = reference(nm);
  EXPECT_EQ(r.eigenvectors[0].shape(), (Dims{6, 7}));
  EXPECT_NEAR(r.eigenvalues.to_vector<double>()[0], wm[0] + wn[0], 1e-9);
}

TEST(Eigsh, DavidsonWithADiagonalPreconditioner) {
  // Diagonally dominant: the Jacobi preconditioner (D - theta)^-1 converges fast.
  const std::int64_t n = 500;
  NoGradGuard ng;
  const Tensor d = arange(1.0, n + 1.0, 1.0);
  const Tensor a = add(diag(d), mul(random_hermitian(n, 13, DType::f64), Scalar(0.01)));
  EigshOptions o;
  o.method = EigshMethod::davidson;
  o.preconditioner = [&](const Tensor& r, double theta) {
    return div(r, add(sub(d, Scalar(theta)), Scalar(1e-3)));
  };
  const EigshResult r = eigsh(matvec(a), randn({n}, 14), 2, o);
  EigshOptions plain;
  plain.method = EigshMethod::davidson;
  const EigshResult q = eigsh(matvec(a), randn({n}, 14), 2, plain);
  const std::vector<double> w = reference(a);
  EXPECT_NEAR(r.eigenvalues.to_vector<double>()[0], w[0], 1e-9);
  EXPECT_NEAR(r.eigenvalues.to_vector<double>()[1], w[1], 1e-9);
  EXPECT_LT(r.info.applications, q.info.applications);
}

TEST(Eigsh, ErrorsNameTheProblem) {
  const Tensor a = random_hermitian(10, 15, DType::f64);
  expect_error(ErrorKind::InvalidArgument, [&] { eigsh(matvec(a), randn({10}, 1), 11); },
               {"k = 11"});
  expect_error(ErrorKind::InvalidArgument, [&] { eigsh(matvec(a), zeros({10}), 1); }, {"zero"});
  expect_error(ErrorKind::DTypeMismatch, [&] { eigsh(matvec(a), zeros({10}, DType::i64), 1); });
  auto wrong = [](std::span<const Tensor> x) { return x[0].slice(0, 0, 5); };
  expect_error(ErrorKind::ShapeMismatch, [&] { eigsh(wrong, randn({10}, 1), 1); }, {"shape"});
  const Tensor big = random_hermitian(300, 16, DType::f64);
  EigshOptions o;
  o.max_restarts = 0;
  o.krylov_dim = 5;
  expect_error(ErrorKind::LinAlgError, [&] { eigsh(matvec(big), randn({300}, 1), 1, o); },
               {"converged", "restarts"});
  o.require_convergence = false;
  const EigshResult r = eigsh(matvec(big), randn({300}, 1), 1, o);
  EXPECT_EQ(r.info.converged, 0);
  EXPECT_GT(r.info.residuals[0], 1e-6);
}

// ---- Derivatives ----

// A gauge-invariant loss of the k lowest pairs: sum_i c_i lambda_i + sum_i |<b_i, x_i>|^2.
Tensor pair_loss(const Tensor& lam, std::span<const Tensor> x, const Tensor& b) {
  Tensor loss = sum(mul(lam, arange(1.0, lam.numel() + 1.0, 1.0, lam.dtype())));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Tensor ip = vdot(b.slice(0, i, i + 1).squeeze(0), x[i]);
    loss = add(loss, real(mul(conj(ip), ip)));
  }
  return loss;
}

TEST(EigshGrad, MatchesEighThroughTheMapsMatrix) {
  for (DType dt : {DType::f64, DType::c128}) {
    const std::int64_t n = 60, k = 3;
    const Tensor a0 = random_hermitian(n, 20, dt);
    const Tensor b = randn({k, n}, 21, dt);
    auto via_eigsh = [&](std::span<const Tensor> in) {
      const Tensor a = mul(add(in[0], conj(in[0]).transpose()), Scalar(0.5));
      EigshResult r = eigsh(matvec(a), randn({n}, 22, dt), k);
      return pair_loss(r.eigenvalues, r.eigenvectors, b);
    };
    auto via_eigh = [&](std::span<const Tensor> in) {
      const Tensor a = mul(add(in[0], conj(in[0]).transpose()), Scalar(0.5));
      EighResult r = eigh(a);
      std::vector<Tensor> x;
      for (std::int64_t i = 0; i < k; ++i)
        x.push_back(r.eigenvectors.slice(1, i, i + 1).squeeze(1));
      return pair_loss(r.eigenvalues.slice(0, 0, k), x, b);
    };
    const Tensor g1 = grad(via_eigsh, {a0})[0], g2 = grad(via_eigh, {a0})[0];
    EXPECT_LT(max_abs_diff(g1, g2), 1e-7) << dtype_name(dt);
    // Forward mode agrees with reverse: <g, t> = d loss along t.
    const Tensor t = random_hermitian(n, 23, dt);
    const JvpResult j = jvp(via_eigsh, {a0}, {t});
    const double along = real(vdot(g2, t)).item<double>();
    EXPECT_NEAR(j.tangents[0].item<double>(), along, 1e-7 * std::max(1.0, std::abs(along)));
  }
}

TEST(EigshGrad, SecondOrderThrowsInsteadOfDroppingTerms) {
  const Tensor a0 = random_hermitian(20, 30, DType::f64);
  auto loss = [&](std::span<const Tensor> in) {
    EigshResult r = eigsh(matvec(in[0]), randn({20}, 31), 1);
    return sum(mul(r.eigenvectors[0], r.eigenvectors[0].slice(0, 0, 20)));
  };
  expect_error(ErrorKind::Unsupported,
               [&] { hvp(loss, {a0}, {random_hermitian(20, 32, DType::f64)}); },
               {"second derivatives"});
}

// The eigenvalue's rule <x, dA x> holds x fixed, so its own second derivative would lack the dx
// term: a loss of the eigenvalues alone returned an all-zero Hessian instead of refusing.
TEST(EigshGrad, SecondOrderOfAnEigenvalueThrows) {
  const Tensor a0 = random_hermitian(20, 33, DType::f64), t = random_hermitian(20, 34, DType::f64);
  auto loss = [&](std::span<const Tensor> in) {
    const Tensor a = mul(add(in[0], in[0].transpose()), Scalar(0.5));
    return sum(eigsh(matvec(a), randn({20}, 35), 2).eigenvalues);
  };
  expect_error(ErrorKind::Unsupported, [&] { hvp(loss, {a0}, {t}); }, {"second derivatives"});
  expect_error(ErrorKind::Unsupported, [&] { hessian(loss, {a0}); }, {"second derivatives"});
  auto directional = [&](std::span<const Tensor> in) {
    return sum(mul(grad(loss, {in[0]})[0], t));
  };
  expect_error(ErrorKind::Unsupported, [&] { grad(directional, {a0}); }, {"second derivatives"});
  // First order is unchanged.
  EXPECT_TRUE(grad(loss, {a0})[0].defined());
}

// F = d / (d^2 + eps scale^2) overflowed beyond |A| ~ 1e154 (F = 0): the gradient of a
// scale-invariant eigenvector loss changed with the scale.
TEST(EigshGrad, VectorLossAtAnExtremeScale) {
  const Tensor a0 = random_hermitian(20, 36, DType::f64), c = randn({20}, 37);
  auto loss = [&](std::span<const Tensor> in) {
    const Tensor a = mul(add(in[0], in[0].transpose()), Scalar(0.5));
    const EigshResult r = eigsh(matvec(a), randn({20}, 38), 2);
    return square(sum(mul(r.eigenvectors[1], c)));
  };
  const Tensor g = grad(loss, {a0})[0];
  for (double scale : {1e160, 1e-160}) {
    const Tensor gs = mul(grad(loss, {mul(a0, Scalar(scale))})[0], Scalar(scale));
    EXPECT_LT(max_abs_diff(gs, g), 1e-8) << scale;
  }
}

TEST(Eigsh, RunsInsideOneExecutionScope) {
  const CpuBackend b(CpuBackendOptions{.threads = 2});
  BackendGuard use(b);
  const Tensor a = random_hermitian(100, 40, DType::f64);
  const std::uint64_t before = b.executor_entries();
  const EigshResult r =
      b.with_execution_scope([&] { return eigsh(matvec(a), randn({100}, 41), 2); });
  EXPECT_EQ(b.executor_entries() - before, 1u);
  EXPECT_NEAR(r.eigenvalues.to_vector<double>()[0], reference(a)[0], 1e-9);
}

TEST(Eigsh, TracingIsUnsupported) {
  const Tensor a = random_hermitian(8, 50, DType::f64);
  expect_error(ErrorKind::Unsupported, [&] {
    const ValueSpec spec{{8}, DType::f64};
    trace([&](std::span<const Tensor> in) { return eigsh(matvec(a), in[0], 1).eigenvalues; },
          std::span<const ValueSpec>(&spec, 1));
  });
}

}  // namespace
}  // namespace tenferro

namespace tenferro {
namespace {

TEST(KrylovSinglePrecision, F32AndC64MeetTheirTolerance) {
  for (DType dt : {DType::f32, DType::c64}) {
    const Tensor a = testing::random_hermitian(120, 60, dt);
    const std::vector<double> w = cast(eigvalsh(a), DType::f64).to_vector<double>();
    const EigshResult r = eigsh(testing::matvec(a), randn({120}, 61, dt), 2);
    EXPECT_EQ(r.eigenvalues.dtype(), real_dtype(dt));
    const std::vector<double> got = cast(r.eigenvalues, DType::f64).to_vector<double>();
    EXPECT_NEAR(got[0], w[0], 1e-3);
    EXPECT_NEAR(got[1], w[1], 1e-3);
    const Tensor b = randn({120}, 62, dt);
    const Tensor spd = add(matmul(a, conj(a).transpose()), cast(diag(ones({120})), dt));
    LinsolveOptions o;
    o.method = LinsolveMethod::cg;
    const Tensor x = linsolve(testing::matvec(spd), b, {}, o).x;
    EXPECT_LT(testing::max_abs_diff(matmul(spd, x), b), 1e-3);
  }
}

}  // namespace
}  // namespace tenferro
