// svds: top-k triplets of dense matrices (randomized and Golub-Kahan-Lanczos) and of maps, against
// svd; the derivative against svd_truncated's (exact truncated rule).
#include <gtest/gtest.h>

#include <cmath>

#include "common/expect_error.hpp"
#include "krylov/krylov_test_util.hpp"
#include "krylov/truncated.hpp"

namespace tenferro {
namespace {

using testing::expect_error;
using testing::max_abs_diff;

// U diag(s) V^H with s_i = decay^i (m x n).
Tensor with_singular_values(std::int64_t m, std::int64_t n, double decay, std::uint64_t seed,
                            DType dt) {
  NoGradGuard ng;
  const std::int64_t r = std::min(m, n);
  const Tensor u = qr(randn({m, r}, seed, dt)).Q, v = qr(randn({n, r}, seed + 1, dt)).Q;
  std::vector<double> s(r);
  for (std::int64_t i = 0; i < r; ++i) s[i] = std::pow(decay, double(i));
  const Tensor sd = cast(from_vector<double>(s, {r}), dt);
  return matmul(mul(u, sd.unsqueeze(0)), conj(v).transpose()).contiguous();
}

void expect_triplets(const Tensor& a, const Tensor& U, const Tensor& S, const Tensor& Vh,
                     double tol) {
  const Tensor want = svdvals(a).slice(0, 0, S.numel());
  EXPECT_LT(max_abs_diff(S, want), tol);
  // A v_i = s_i u_i and orthonormal columns.
  const Tensor av = matmul(a, conj(Vh).transpose());
  EXPECT_LT(max_abs_diff(av, mul(U, cast(S, U.dtype()).unsqueeze(0))), tol);
  const std::int64_t k = S.numel();
  const Tensor eye = cast(diag(ones({k})), U.dtype());
  EXPECT_LT(max_abs_diff(matmul(conj(U).transpose(), U), eye), tol);
  EXPECT_LT(max_abs_diff(matmul(Vh, conj(Vh).transpose()), eye), tol);
}

class SvdsDense : public ::testing::TestWithParam<std::tuple<SvdsMethod, DType>> {};

TEST_P(SvdsDense, MatchSvdOnDecayingAndFlatSpectra) {
  const auto [method, dt] = GetParam();
  SvdsOptions o;
  o.method = method;
  const Tensor a = with_singular_values(300, 200, 0.9, 1, dt);
  const SvdsResult r = svds(a, 10, o);
  expect_triplets(a, r.U, r.S, r.Vh, 1e-9);
  EXPECT_EQ(r.info.converged, 10);
  const Tensor g = randn({120, 90}, 2, dt);  // flat (Marchenko-Pastur) spectrum: harder
  const SvdsResult q = svds(g, 4, o);
  expect_triplets(g, q.U, q.S, q.Vh, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Methods, SvdsDense,
                         ::testing::Combine(::testing::Values(SvdsMethod::randomized,
                                                              SvdsMethod::lanczos),
                                            ::testing::Values(DType::f64, DType::c128)));

TEST(SvdsMap, TopTripletsOfAMapBetweenShapedSpaces) {
  // f: [6, 5] -> [40]: a matrix acting on flattened matrices; its adjoint maps back.
  const Tensor a = with_singular_values(40, 30, 0.8, 3, DType::f64);
  auto f = [&](std::span<const Tensor> x) { return matmul(a, x[0].reshape({30})); };
  auto fa = [&](std::span<const Tensor> y) { return matmul(a.transpose(), y[0]).reshape({6, 5}); };
  const SvdsMapResult r = svds(f, fa, randn({6, 5}, 4), 3);
  ASSERT_EQ(r.U.size(), 3u);
  EXPECT_EQ(r.V[0].shape(), (Dims{6, 5}));
  EXPECT_EQ(r.U[0].shape(), (Dims{40}));
  EXPECT_LT(max_abs_diff(r.S, svdvals(a).slice(0, 0, 3)), 1e-10);
  for (int i = 0; i < 3; ++i)
    EXPECT_LT(max_abs_diff(f(std::vector<Tensor>{r.V[i]}), mul(r.U[i], r.S.slice(0, i, i + 1))),
              1e-9);
}

// A gauge-invariant loss of k triplets.
Tensor triplet_loss(const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& c,
                    const Tensor& d) {
  const Tensor pu = matmul(conj(c).unsqueeze(0), U), pv = matmul(Vh, d);  // [1, k], [k]
  const Tensor w = arange(1.0, S.numel() + 1.0, 1.0, S.dtype());
  return add(sum(mul(S, w)),
             sum(real(mul(mul(conj(pu.squeeze(0)), pv), mul(pu.squeeze(0), conj(pv))))));
}

TEST(SvdsGrad, MatchesSvdTruncated) {
  for (DType dt : {DType::f64, DType::c128})
    for (SvdsMethod method : {SvdsMethod::randomized, SvdsMethod::lanczos}) {
      const std::int64_t m = 50, n = 40, k = 4;
      const Tensor a0 = with_singular_values(m, n, 0.85, 10, dt);
      const Tensor c = randn({m}, 11, dt), d = randn({n}, 12, dt);
      auto krylov = [&](std::span<const Tensor> in) {
        SvdsOptions o;
        o.method = method;
        const SvdsResult r = svds(in[0], k, o);
        return triplet_loss(r.U, r.S, r.Vh, c, d);
      };
      auto dense = [&](std::span<const Tensor> in) {
        const SvdResult r = svd_truncated(in[0], k);
        return triplet_loss(r.U, r.S, r.Vh, c, d);
      };
      const Tensor g1 = grad(krylov, {a0})[0], g2 = grad(dense, {a0})[0];
      EXPECT_LT(max_abs_diff(g1, g2), 1e-7) << dtype_name(dt);
      const Tensor t = randn({m, n}, 13, dt);
      const JvpResult j1 = jvp(krylov, {a0}, {t}), j2 = jvp(dense, {a0}, {t});
      EXPECT_NEAR(j1.tangents[0].item<double>(), j2.tangents[0].item<double>(),
                  1e-7 * std::max(1.0, std::abs(j2.tangents[0].item<double>())));
    }
}

TEST(SvdsGrad, ThroughTheParametersOfAMap) {
  const std::int64_t m = 30, n = 20, k = 3;
  const Tensor a0 = with_singular_values(m, n, 0.8, 20, DType::f64);
  const Tensor c = randn({m}, 21), d = randn({n}, 22);
  auto krylov = [&](std::span<const Tensor> in) {
    const Tensor a = in[0];
    auto f = [a](std::span<const Tensor> x) { return matmul(a, x[0]); };
    auto fa = [a](std::span<const Tensor> y) { return matmul(a.transpose(), y[0]); };
    const SvdsMapResult r = svds(f, fa, randn({n}, 23), k);
    return triplet_loss(stack(r.U, 1), r.S, stack(r.V, 0), c, d);
  };
  auto dense = [&](std::span<const Tensor> in) {
    const SvdResult r = svd_truncated(in[0], k);
    return triplet_loss(r.U, r.S, r.Vh, c, d);
  };
  EXPECT_LT(max_abs_diff(grad(krylov, {a0})[0], grad(dense, {a0})[0]), 1e-7);
}

// A cotangent inside span(U) (the loss <u_0, W v_0> with W = A at the point: W v_0 = s_0 u_0)
// made the complement solve stall on the rounding one projection leaves: LinAlgError. And a loss
// of the singular values alone must refuse a second derivative (its rule holds U, V fixed).
TEST(SvdsGrad, CotangentInsideTheComputedSpaceAndSecondOrder) {
  const std::int64_t m = 15, n = 10, k = 3;
  const Tensor a0 = randn({m, n}, 40);
  for (SvdsMethod method : {SvdsMethod::automatic, SvdsMethod::lanczos}) {
    auto krylov = [&](std::span<const Tensor> in) {
      SvdsOptions o;
      o.method = method;
      const SvdsResult r = svds(in[0], k, o);
      return sum(mul(matmul(r.U.slice(1, 0, 1), r.Vh.slice(0, 0, 1)), a0));
    };
    auto dense = [&](std::span<const Tensor> in) {
      const SvdResult r = svd_truncated(in[0], k);
      return sum(mul(matmul(r.U.slice(1, 0, 1), r.Vh.slice(0, 0, 1)), a0));
    };
    EXPECT_LT(max_abs_diff(grad(krylov, {a0})[0], grad(dense, {a0})[0]), 1e-7);
  }
  auto values = [&](std::span<const Tensor> in) { return sum(svds(in[0], k).S); };
  expect_error(ErrorKind::Unsupported,
               [&] {
                 hvp(values, {a0}, {randn({m, n}, 41)});
               },
               {"second derivatives"});
}

// A complex loss that sees the relative phase of u_i and v_i (Re <D, u_i v_i^H>, Re <D, U S Vh>)
// met the phase-gauge term with the wrong sign: gradients and tangents off by ~10-25%. The
// triplet_loss above is blind to that phase.
TEST(SvdsGrad, ComplexLossOfTheRelativePhase) {
  const std::int64_t m = 12, n = 9, k = 3;
  const Tensor a0 = randn({m, n}, 50, DType::c128), dmat = randn({m, n}, 51, DType::c128);
  for (SvdsMethod method : {SvdsMethod::automatic, SvdsMethod::lanczos}) {
    auto loss = [&](const Tensor& U, const Tensor& S, const Tensor& Vh) {
      const Tensor usv = matmul(mul(U, cast(S, DType::c128).unsqueeze(0)), Vh);
      const Tensor u1v1 = matmul(U.slice(1, 1, 2), Vh.slice(0, 1, 2));
      return add(sum(real(mul(usv, dmat))), sum(real(mul(u1v1, conj(dmat)))));
    };
    auto krylov = [&](std::span<const Tensor> in) {
      SvdsOptions o;
      o.method = method;
      const SvdsResult r = svds(in[0], k, o);
      return loss(r.U, r.S, r.Vh);
    };
    auto dense = [&](std::span<const Tensor> in) {
      const SvdResult r = svd_truncated(in[0], k);
      return loss(r.U, r.S, r.Vh);
    };
    EXPECT_LT(max_abs_diff(grad(krylov, {a0})[0], grad(dense, {a0})[0]), 1e-8);
    const Tensor t = randn({m, n}, 52, DType::c128);
    const double j1 = jvp(krylov, {a0}, {t}).tangents[0].item<double>(),
                 j2 = jvp(dense, {a0}, {t}).tangents[0].item<double>();
    EXPECT_NEAR(j1, j2, 1e-8 * std::max(1.0, std::abs(j2)));
  }
}

// The in-space factor F = d / (d^2 + eps s_max^4) overflowed beyond s_max ~ 1e77 (F = 0): the
// gradient of a scale-invariant vector loss changed with the scale.
TEST(SvdsGrad, VectorLossAtAnExtremeScale) {
  const Tensor a0 = randn({12, 9}, 55), c = randn({12, 9}, 56);
  auto loss = [&](std::span<const Tensor> in) {
    SvdsOptions o;
    o.method = SvdsMethod::lanczos;
    const SvdsResult r = svds(in[0], 3, o);
    return sum(mul(matmul(r.U.slice(1, 1, 2), r.Vh.slice(0, 1, 2)), c));
  };
  const Tensor g = grad(loss, {a0})[0];
  for (double scale : {1e80, 1e-80}) {
    const Tensor gs = mul(grad(loss, {mul(a0, Scalar(scale))})[0], Scalar(scale));
    EXPECT_LT(max_abs_diff(gs, g), 1e-9) << scale;
  }
}

TEST(Svds, Errors) {
  const Tensor a = randn({8, 6}, 30);
  expect_error(ErrorKind::InvalidArgument, [&] { svds(a, 7); }, {"k = 7"});
  expect_error(ErrorKind::ShapeMismatch, [&] { svds(randn({8}, 1), 1); }, {"matrix"});
  expect_error(ErrorKind::DTypeMismatch, [&] { svds(zeros({4, 4}, DType::i32), 1); });
  SvdsOptions o;
  o.method = SvdsMethod::lanczos;
  o.max_restarts = 0;
  o.krylov_dim = 3;
  const Tensor g = randn({200, 150}, 31);
  expect_error(ErrorKind::LinAlgError, [&] { svds(g, 2, o); }, {"converged"});
  o.require_convergence = false;
  EXPECT_LT(svds(g, 2, o).info.converged, 2);
}

}  // namespace
}  // namespace tenferro

namespace tenferro {
namespace {

TEST(SvdTruncatedBySvds, ValuesAgreeWithTheDenseSvdAndDerivativesKeepTheDensePath) {
  for (DType dt : {DType::f64, DType::c128}) {
    NoGradGuard ng;
    const Tensor a = stack(std::vector<Tensor>{with_singular_values(300, 260, 0.8, 40, dt),
                                               with_singular_values(300, 260, 0.7, 41, dt)});
    const std::uint64_t before = detail::truncated_by_svds_count();
    const SvdResult fast = svd_truncated(a, 12);  // 8 * 12 <= 260: by svds
    EXPECT_EQ(detail::truncated_by_svds_count(), before + 1);
    const SvdResult dense = svd(a);
    EXPECT_EQ(fast.U.shape(), (Dims{2, 300, 12}));
    EXPECT_EQ(fast.Vh.shape(), (Dims{2, 12, 260}));
    EXPECT_LT(max_abs_diff(fast.S, dense.S.slice(1, 0, 12)), 1e-13);
    // The rank-12 approximations agree (gauge-free).
    auto approx = [](const SvdResult& r, std::int64_t k) {
      return matmul(mul(r.U.slice(2, 0, k), cast(r.S.slice(1, 0, k), r.U.dtype()).unsqueeze(1)),
                    r.Vh.slice(1, 0, k));
    };
    EXPECT_LT(max_abs_diff(approx(fast, 12), approx(dense, 12)), 1e-12);
    // cutoff counts among the computed values: 0.8^i > 1e-1 for i <= 10.
    EXPECT_EQ(svd_truncated(a.slice(0, 0, 1), 12, 0.1).S.size(1), 11);
  }
  // With a derivative in play the dense svd runs: its U is LAPACK's, bit for bit.
  Tensor a = with_singular_values(300, 260, 0.8, 42, DType::f64);
  a.requires_grad_();
  const std::uint64_t before = detail::truncated_by_svds_count();
  EXPECT_EQ(max_abs_diff(svd_truncated(a, 12).U, svd(a).U.slice(1, 0, 12)), 0.0);
  EXPECT_EQ(detail::truncated_by_svds_count(), before);
}

}  // namespace
}  // namespace tenferro
