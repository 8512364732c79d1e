// Derivatives of the decompositions -- svd (thin, full_matrices), svdvals, svd_truncated, qr
// (reduced, complete), eigh, eigvalsh, cholesky -- checked against central finite differences
// (VJP and JVP, f64 and c128, unbatched and with a leading batch dim of 2), plus the behaviour of
// the complex gauge (Note [SVD gauge] in src/primitives/linalg_decomp.cpp) and the Unsupported
// QR shape (complete, m > n).
//
// Singular vectors and eigenvectors are defined only up to a gauge (a sign per column for real
// input, a phase for complex input; for svd a common phase per pair (u_i, v_i)), so the checked
// functions are gauge-invariant views of the factors (svd_view, eigh_view): projectors
// U diag(c) U^H with distinct fixed weights c, |U|^2 elementwise, and for svd also U diag(c) Vh,
// which is invariant only under a *common* phase of u_i and v_i and so checks that the rule
// couples the two. qr needs no view: with LAPACK's convention (real diagonal of R, sign from the
// Householder reflector) Q and R are locally smooth functions of the input.
//
// eigh and cholesky read one triangle (and ignore the imaginary part of the diagonal): their
// inputs carry garbage there (spoil_unread), the finite differences perturb every entry, and the
// VJP must therefore be zero on what is not read and exact (doubled off-diagonal) on what is.
#include <gtest/gtest.h>

#include "common/expect_error.hpp"
#include "linalg_ad/linalg_ad_common.hpp"

using namespace tenferro;
using namespace tenferro::linalg_ad;
using tenferro::adtest::check_jvp;
using tenferro::adtest::check_vjp;

namespace {

std::vector<double> first(std::vector<double> v, I k) {
  v.resize(static_cast<std::size_t>(k));
  return v;
}

const std::vector<double> kSingularValues = {3.0, 2.1, 1.3, 0.6};

// Gauge-invariant view of an svd with k singular values (thin or full_matrices): U and V
// projectors (equal weights on a full_matrices complement, whose basis is arbitrary), S, the
// pair-coupled U_k diag(c) Vh_k, and for thin factors |U|^2, |Vh|^2.
std::vector<Tensor> svd_view(const SvdResult& r) {
  const DType d = r.U.dtype();
  const I k = r.S.shape().back();
  const I mu = r.U.shape().back(), nv = r.Vh.shape()[r.Vh.rank() - 2];
  const Tensor Uk = slice(r.U, -1, 0, k), Vhk = slice(r.Vh, -2, 0, k);
  std::vector<Tensor> out = {proj(r.U, complement_weights(mu, k, d)), r.S,
                             proj(mH(r.Vh), complement_weights(nv, k, d, -0.5, 0.9, 0.3)),
                             matmul(Uk * weights(k, d, 0.4, 1.3), Vhk)};
  if (mu == k && nv == k) {
    out.push_back(abs2(r.U));
    out.push_back(abs2(r.Vh));
  }
  return out;
}

void check_svd(const Dims& batch, I m, I n, bool full, std::uint64_t seed,
               std::vector<double> s = kSingularValues) {
  const I k = std::min(m, n);
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d) + " " + dims_to_string(with(batch, {m, n})) +
                 (full ? " full_matrices" : " thin"));
    const Tensor a = with_singular_values(batch, m, n, first(s, k), seed, d);
    check_fd([&](std::span<const Tensor> in) { return svd_view(svd(in[0], full)); }, {a});
  }
}

// Gauge-invariant view of eigh: eigenvalues, a projector with distinct weights, |V|^2.
std::vector<Tensor> eigh_view(const EighResult& r) {
  const I n = r.eigenvalues.shape().back();
  return {r.eigenvalues, proj(r.eigenvectors, weights(n, r.eigenvectors.dtype(), -1.0, 0.8)),
          abs2(r.eigenvectors)};
}

void check_eigh(const Dims& batch, const std::vector<double>& w, std::uint64_t seed) {
  for (Uplo uplo : {Uplo::lower, Uplo::upper})
    for (DType d : kDtypes) {
      const bool lower = uplo == Uplo::lower;
      SCOPED_TRACE(name_of(d) + " " + dims_to_string(with(batch, {I(w.size())})) +
                   (lower ? " lower" : " upper"));
      const Tensor a = spoil_unread(with_eigenvalues(batch, w, seed, d), lower, seed + 7);
      check_fd([&](std::span<const Tensor> in) { return eigh_view(eigh(in[0], uplo)); }, {a});
      check_fd(
          [&](std::span<const Tensor> in) { return std::vector<Tensor>{eigvalsh(in[0], uplo)}; },
          {a});
    }
}

}  // namespace

// ---- svd ----

TEST(LinalgAdSvd, ThinSquareTallWide) {
  check_svd({}, 4, 4, false, 1);
  check_svd({}, 5, 3, false, 2);
  check_svd({}, 3, 5, false, 3);
}

// Vector derivatives of a matrix scaled by 1e160 or 1e-160: the broadened 1 / (x_j - x_i) was
// d / (d^2 + eps s^2), whose squares left the double range (F = 0 or garbage, silently). A loss
// of the vectors alone is scale-invariant, so its gradient times the scale must not change.
TEST(LinalgAdSvd, VectorDerivativesAtExtremeScales) {
  auto max_abs = [](const Tensor& t) { return max(abs(t)).item<double>(); };
  const Tensor a = randn({6, 4}, 70), c = randn({6, 4}, 71), ch = randn({4, 4}, 72);
  auto svd_loss = [&](std::span<const Tensor> in) {
    const SvdResult r = svd(in[0]);
    return sum(mul(matmul(r.U.slice(1, 1, 2), r.Vh.slice(0, 1, 2)), c));
  };
  auto eigh_loss = [&](std::span<const Tensor> in) {
    const Tensor h = add(in[0].slice(0, 0, 4), in[0].slice(0, 0, 4).transpose());
    const Tensor v = eigh(h).eigenvectors.slice(1, 1, 2);
    return sum(mul(matmul(v, v.transpose()), ch));
  };
  const Tensor g_svd = grad(svd_loss, {a})[0], g_eigh = grad(eigh_loss, {a})[0];
  for (double scale : {1e160, 1e-160}) {
    const Tensor as = mul(a, Scalar(scale));
    const Tensor gs = mul(grad(svd_loss, {as})[0], Scalar(scale));
    const Tensor ge = mul(grad(eigh_loss, {as})[0], Scalar(scale));
    EXPECT_LT(max_abs(sub(gs, g_svd)), 1e-10 * max_abs(g_svd)) << scale;
    EXPECT_LT(max_abs(sub(ge, g_eigh)), 1e-10 * max_abs(g_eigh)) << scale;
  }
}

TEST(LinalgAdSvd, FullMatricesTallAndWide) {
  check_svd({}, 5, 3, true, 4);
  check_svd({}, 3, 5, true, 5);
}

TEST(LinalgAdSvd, Batched) {
  check_svd({2}, 4, 3, false, 6);
  check_svd({2}, 3, 4, false, 7);
  check_svd({2}, 4, 3, true, 8);
}

TEST(LinalgAdSvd, LapackSizedMatrix) {
  // 10 x 9 is above the built-in Jacobi kernels' size limit: the rule is the same, the factors
  // (and their gauge) come from LAPACK's gesdd.
  std::vector<double> s;
  for (int i = 0; i < 9; ++i) s.push_back(5.0 - 0.5 * i);
  check_svd({}, 10, 9, false, 9, s);
}

TEST(LinalgAdSvd, Svdvals) {
  for (const Dims& shape : {Dims{4, 4}, Dims{5, 3}, Dims{3, 5}, Dims{2, 3, 4}})
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " " + dims_to_string(shape));
      const Dims batch(shape.begin(), shape.end() - 2);
      const I m = shape[shape.size() - 2], n = shape.back();
      const Tensor a = with_singular_values(batch, m, n, first(kSingularValues, std::min(m, n)),
                                            10 + shape.size(), d);
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{svdvals(in[0])}; }, {a});
    }
}

TEST(LinalgAdSvd, TruncatedDerivativeIsExact) {
  // The finite differences are of the truncated function itself; its derivative involves the
  // gaps between kept and discarded singular values, which the rule must keep exactly.
  struct Case {
    Dims batch;
    I m, n, max_rank;
    double cutoff;
    I expected_rank;
  };
  const Case cases[] = {
      {{}, 5, 4, 2, 0.0, 2},  {{}, 4, 5, 3, 0.0, 3},
      {{}, 4, 4, 1, 0.0, 1},  {{}, 5, 4, 0, 0.35, 3},  // keeps S > 0.35 * 3.0: 3.0, 2.1, 1.3
      {{2}, 4, 4, 2, 0.0, 2},
  };
  for (const Case& c : cases)
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " " + dims_to_string(with(c.batch, {c.m, c.n})) + " max_rank " +
                   std::to_string(c.max_rank) + " cutoff " + std::to_string(c.cutoff));
      const Tensor a = with_singular_values(
          c.batch, c.m, c.n, first(kSingularValues, std::min(c.m, c.n)), 20 + c.m * c.n, d);
      auto f = [&](std::span<const Tensor> in) {
        return svd_view(svd_truncated(in[0], c.max_rank, c.cutoff));
      };
      EXPECT_EQ(svd_truncated(a, c.max_rank, c.cutoff).S.shape().back(), c.expected_rank);
      check_fd(f, {a});
    }
  // A batch whose matrices have different counts above the cutoff (3 and 1): the largest count
  // is kept for both, so the second matrix keeps values below the cutoff; still exact.
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d) + " batch with different ranks");
    const Tensor a = stack({with_singular_values({}, 4, 4, kSingularValues, 25, d),
                            with_singular_values({}, 4, 4, {3.0, 0.5, 0.3, 0.1}, 26, d)});
    EXPECT_EQ(svd_truncated(a, 0, 0.35).S.shape(), (Dims{2, 3}));
    check_fd([](std::span<const Tensor> in) { return svd_view(svd_truncated(in[0], 0, 0.35)); },
             {a});
  }
}

// ---- qr ----

TEST(LinalgAdQr, ReducedTallAndSquareCompleteSquare) {
  struct Case {
    Dims shape;
    QrMode mode;
  };
  const Case cases[] = {{{5, 3}, QrMode::reduced},     {{4, 4}, QrMode::reduced},
                        {{4, 4}, QrMode::complete},    {{2, 4, 3}, QrMode::reduced},
                        {{2, 3, 3}, QrMode::complete}, {{10, 9}, QrMode::reduced}};  // LAPACK-sized
  std::uint64_t seed = 30;
  for (const Case& c : cases)
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " " + dims_to_string(c.shape) +
                   (c.mode == QrMode::reduced ? " reduced" : " complete"));
      const Tensor a = randn(c.shape, seed++, d);
      check_fd(
          [&](std::span<const Tensor> in) {
            QrResult r = qr(in[0], c.mode);
            return std::vector<Tensor>{r.Q, r.R};
          },
          {a});
    }
}

TEST(LinalgAdQr, TallCompleteIsUnsupported) {
  using tenferro::testing::expect_error;
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor tall = randn({5, 3}, 41, d);
    auto loss = [](QrMode mode) {
      return [mode](std::span<const Tensor> in) {
        QrResult r = qr(in[0], mode);
        return sum_squares(r.Q) + sum_squares(r.R);
      };
    };
    // The factorisation itself works; the derivative of the complete tall one (whose extra
    // columns of Q are not a function of a) is refused with a typed error. Wide matrices are
    // differentiable (tests/linalg_ad/linalg_ad_more_decomp_test.cpp).
    EXPECT_EQ(qr(tall, QrMode::complete).Q.shape(), (Dims{5, 5}));
    expect_error(ErrorKind::Unsupported, [&] { grad(loss(QrMode::complete), {tall}); }, {"qr"});
    expect_error(ErrorKind::Unsupported,
                 [&] {
                   jvp(ScalarFn(loss(QrMode::complete)), {tall}, {randn({5, 3}, 42, d)});
                 },
                 {"qr"});
  }
}

// ---- eigh, eigvalsh ----

TEST(LinalgAdEigh, LowerAndUpperReadOneTriangle) {
  check_eigh({}, {-1.5, -0.3, 0.8, 2.0}, 50);
  check_eigh({}, {0.5, 1.5}, 51);
}

TEST(LinalgAdEigh, Batched) { check_eigh({2}, {-1.0, 0.5, 1.7}, 52); }

TEST(LinalgAdEigh, LapackSizedMatrix) {
  std::vector<double> w;
  for (int i = 0; i < 9; ++i) w.push_back(-2.0 + 0.6 * i);
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = spoil_unread(with_eigenvalues({}, w, 53, d), true, 54);
    check_fd([](std::span<const Tensor> in) { return eigh_view(eigh(in[0])); }, {a});
  }
}

// ---- cholesky ----

TEST(LinalgAdCholesky, OfAFreeFactor) {
  // X X^H + n I stays positive definite for every perturbation of X.
  for (const Dims& shape : {Dims{3, 3}, Dims{2, 3, 3}})
    for (bool upper : {false, true})
      for (DType d : kDtypes) {
        SCOPED_TRACE(name_of(d) + " " + dims_to_string(shape) + (upper ? " upper" : " lower"));
        const Tensor x = randn(shape, 60, d);
        check_fd(
            [&](std::span<const Tensor> in) {
              const Tensor pd = matmul(in[0], mH(in[0])) + diag_embed(ones({3}, d) * 3.0);
              return std::vector<Tensor>{cholesky(pd, upper)};
            },
            {x});
      }
}

TEST(LinalgAdCholesky, ReadsOneTriangle) {
  // The raw semantics: a function of the lower (upper) triangle and the real diagonal only.
  for (const Dims& batch : {Dims{}, Dims{2}})
    for (bool upper : {false, true})
      for (DType d : kDtypes) {
        SCOPED_TRACE(name_of(d) + " batch " + dims_to_string(batch) +
                     (upper ? " upper" : " lower"));
        const Tensor a = spoil_unread(positive_definite(batch, 4, 61, d), !upper, 62);
        check_fd(
            [&](std::span<const Tensor> in) { return std::vector<Tensor>{cholesky(in[0], upper)}; },
            {a});
      }
}

// ---- the complex gauge ----

TEST(LinalgAdGauge, GaugeDependentLossesDoNotCrashAndVjpIsTheAdjointOfJvp) {
  // Re(U[0, 0]) depends on the arbitrary phase LAPACK (or the Jacobi kernel) gives u_0, so it has
  // no finite-difference derivative to compare with. What the rule returns (Note [SVD gauge]):
  // the JVP moves each pair (u_i, v_i) with the symmetric split
  // diag(U^H dU) = -diag(V^H dV) = i Im(u_i^H dA v_i) / (2 s_i), and the VJP is its exact adjoint,
  // i.e. the gradient of the gauge-invariant part of the loss: the common-phase component
  // i (Im diag(U^H gU) + Im diag(V^H gV)) of the cotangent is dropped. So the gradient is finite,
  // and <vjp(g), t> = <g, jvp(t)> holds exactly for any cotangent g of the raw factors.
  for (const Dims& shape : {Dims{4, 3}, Dims{3, 4}, Dims{3, 3}})
    for (bool full : {false, true})
      for (DType d : kDtypes) {
        SCOPED_TRACE(name_of(d) + " " + dims_to_string(shape) + (full ? " full" : " thin"));
        const I m = shape[0], n = shape[1];
        const Tensor a =
            with_singular_values({}, m, n, first(kSingularValues, std::min(m, n)), 70 + m * n, d);
        auto u00 = [&](std::span<const Tensor> in) {
          const Tensor U = svd(in[0], full).U;
          return cast(sum(slice(slice(U, 0, 0, 1), 1, 0, 1)), DType::f64);  // Re U[0, 0]
        };
        const std::vector<Tensor> g = grad(u00, {a});
        EXPECT_TRUE(all_finite(g[0]));
        EXPECT_TRUE(check_duality(
            [&](std::span<const Tensor> in) {
              SvdResult r = svd(in[0], full);
              return std::vector<Tensor>{r.U, r.S, r.Vh};
            },
            {a}));
        EXPECT_TRUE(check_duality(
            [&](std::span<const Tensor> in) { return std::vector<Tensor>{u00(in)}; }, {a}));
      }
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d) + " eigh");
    const Tensor a = spoil_unread(with_eigenvalues({}, {-1.0, 0.4, 2.0}, 71, d), true, 72);
    auto v00 = [&](std::span<const Tensor> in) {
      return cast(sum(slice(slice(eigh(in[0]).eigenvectors, 0, 0, 1), 1, 0, 1)), DType::f64);
    };
    EXPECT_TRUE(all_finite(grad(v00, {a})[0]));
    EXPECT_TRUE(check_duality(
        [&](std::span<const Tensor> in) {
          EighResult r = eigh(in[0]);
          return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
        },
        {a}));
  }
}

TEST(LinalgAdGauge, PureGaugeCotangentPullsBackToZero) {
  // A cotangent that only "sees" the common phase of (u_0, v_0) -- gU = i u_0 e_0^T,
  // gVh = -i e_0 v_0^H, the derivative of u_0 -> e^{i phi} u_0, v_0 -> e^{i phi} v_0 -- describes
  // a pure gauge change and must pull back to exactly zero. The relative phase is physical
  // (u_0 v_0^H depends on it) and gU = i u_0 e_0^T, gVh = +i e_0 v_0^H measures it: dA moves it
  // by Im(u_0^H dA v_0) / s_0 (split symmetrically between u_0 and v_0), so that cotangent must
  // pull back to exactly i u_0 v_0^H / s_0.
  for (bool full : {false, true})
    for (const Dims& shape : {Dims{4, 3}, Dims{3, 4}}) {
      SCOPED_TRACE(dims_to_string(shape) + (full ? " full" : " thin"));
      const I m = shape[0], n = shape[1];
      const Tensor a =
          with_singular_values({}, m, n, first(kSingularValues, 3), 80 + m, DType::c128);
      VjpResult r = vjp(
          [&](std::span<const Tensor> in) {
            SvdResult s = svd(in[0], full);
            return std::vector<Tensor>{s.U, s.S, s.Vh};
          },
          {a});
      const Tensor U = r.outputs[0], Vh = r.outputs[2];
      const I mu = U.shape()[1], nv = Vh.shape()[0];
      const Tensor u0 = slice(U, 1, 0, 1), vh0 = slice(Vh, 0, 0, 1);  // [m, 1], [1, n]
      // e_0^T as [1, mu] and e_0 as [nv, 1]: rows / columns of identities.
      const Tensor e_u = cast(slice(diag_embed(ones({mu})), 0, 0, 1), DType::c128);
      const Tensor e_v = transpose(cast(slice(diag_embed(ones({nv})), 0, 0, 1), DType::c128));
      const Tensor gU = matmul(u0, e_u) * Scalar(0, 1);    // i u_0 e_0^T
      const Tensor gVh = matmul(e_v, vh0) * Scalar(0, 1);  // i e_0 v_0^H
      const Tensor gS = zeros({3});
      EXPECT_TRUE(near(r.pullback({gU, gS, -gVh})[0], zeros({m, n}, DType::c128), 0, 1e-12));
      const double s0 = values(r.outputs[1])[0].real();
      EXPECT_TRUE(near(r.pullback({gU, gS, gVh})[0], matmul(u0, vh0) * Scalar(0, 1.0 / s0)));
    }
}

TEST(LinalgAdGauge, EighPureGaugeCotangentPullsBackToZero) {
  // The phase of each eigenvector is the gauge: gV = i v_0 e_0^T (the derivative of
  // v_0 -> e^{i phi} v_0) must pull back to zero; the rule fixes diag(V^H dV) = 0.
  const Tensor a = spoil_unread(with_eigenvalues({}, {-1.0, 0.4, 2.0}, 90, DType::c128), true, 91);
  VjpResult r = vjp(
      [](std::span<const Tensor> in) {
        EighResult e = eigh(in[0]);
        return std::vector<Tensor>{e.eigenvalues, e.eigenvectors};
      },
      {a});
  const Tensor V = r.outputs[1];
  const Tensor e0 = cast(slice(diag_embed(ones({3})), 0, 0, 1), DType::c128);  // [1, 3]
  const Tensor gV = matmul(slice(V, 1, 0, 1), e0) * Scalar(0, 1);
  EXPECT_TRUE(near(r.pullback({zeros({3}), gV})[0], zeros({3, 3}, DType::c128), 0, 1e-12));
}

// ---- non-contiguous inputs ----

TEST(LinalgAdStrides, TransposedAndSteppedViews) {
  // The primal point is a view (transposed, or every other column); the finite differences
  // evaluate at contiguous copies, so kernels and rules must read the view's strides.
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor t = transpose(with_singular_values({}, 3, 4, first(kSingularValues, 3), 92, d));
    check_fd([](std::span<const Tensor> in) { return svd_view(svd(in[0])); }, {t});
    check_fd([](std::span<const Tensor> in) { return svd_view(svd(in[0], true)); }, {t});
    const Tensor stepped = slice(randn({2, 4, 8}, 93, d), -1, 0, 8, 2);  // [2, 4, 4], stride 2
    check_fd([](std::span<const Tensor> in) { return svd_view(svd(in[0])); }, {stepped});
    check_fd(
        [](std::span<const Tensor> in) {
          QrResult r = qr(in[0]);
          return std::vector<Tensor>{r.Q, r.R};
        },
        {t});
    const Tensor h =
        transpose(spoil_unread(with_eigenvalues({2}, {-1.0, 0.5, 1.7}, 94, d), false, 95));
    check_fd([](std::span<const Tensor> in) { return eigh_view(eigh(in[0])); }, {h});
    const Tensor pd = transpose(spoil_unread(positive_definite({}, 3, 96, d), false, 97));
    check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{cholesky(in[0])}; }, {pd});
  }
}
