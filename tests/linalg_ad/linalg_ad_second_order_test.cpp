// Second derivatives through the linear-algebra ops, and derivatives at degenerate spectra.
//
// Second order: every rule is written with differentiable public ops, so hvp (forward over
// reverse) runs through them. check_hvp compares hvp(f, x, v) with central differences of the
// gradient, (grad f(x + eps v) - grad f(x - eps v)) / (2 eps), for solve, triangular_solve,
// cholesky, eigh / eigvalsh, svd / svdvals, qr, slogdet / det, inv and lstsq, f64 and c128.
//
// Degenerate spectra (Note [Degenerate spectra] in src/primitives/linalg_decomp.cpp): the rules
// broaden 1 / (x_j - x_i) so that an exactly repeated eigenvalue / singular value gives finite
// derivatives. Checked: gradients of gauge-invariant losses through eigh of Q diag(1, 1, 2) Q^H
// and through svd of the identity are finite; a projector that weights the repeated eigenvalue's
// eigenspace as a whole is smooth there, and its VJP/JVP match finite differences; sum(eigvalsh)
// and sum(svdvals) have their analytic gradients (I, and U Vh), and sum(eigvalsh^2) = |H|_F^2 has
// the gradient that the one-triangle semantics imply.
#include <gtest/gtest.h>

#include "linalg_ad/linalg_ad_common.hpp"

using namespace tenferro;
using namespace tenferro::linalg_ad;
using tenferro::adtest::check_jvp;
using tenferro::adtest::check_vjp;

namespace {

/// hvp(f, x, v) against central differences of grad(f) along v (random v from `seed`).
::testing::AssertionResult check_hvp(const ScalarFn& f, std::vector<Tensor> x, std::uint64_t seed,
                                     double eps = 1e-6, double rtol = 1e-5, double atol = 1e-6) {
  std::vector<Tensor> v, xp, xm;
  for (std::size_t i = 0; i < x.size(); ++i) {
    v.push_back(randn(x[i].shape(), seed + 17 * i, x[i].dtype()));
    xp.push_back(contiguous(x[i] + v[i] * eps));
    xm.push_back(contiguous(x[i] - v[i] * eps));
  }
  const std::vector<Tensor> h = hvp(f, x, v);
  const std::vector<Tensor> gp = grad(f, xp), gm = grad(f, xm);
  std::ostringstream fails;
  int nfail = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::vector<c128> a = values(h[i]), p = values(gp[i]), m = values(gm[i]);
    for (std::size_t j = 0; j < a.size(); ++j) {
      const c128 d = (p[j] - m[j]) / (2 * eps);
      for (int part = 0; part < 2; ++part) {
        const double av = part ? a[j].imag() : a[j].real(), dv = part ? d.imag() : d.real();
        if (!(std::abs(av - dv) <= atol + rtol * std::max(std::abs(av), std::abs(dv))) &&
            nfail++ < 5)
          fails << "\n  input " << i << " element " << j << (part ? " (imag)" : " (real)")
                << ": hvp " << av << " vs finite difference of the gradient " << dv;
      }
    }
  }
  if (nfail) return ::testing::AssertionFailure() << nfail << " HVP mismatches:" << fails.str();
  return ::testing::AssertionSuccess();
}

}  // namespace

// ---- second order ----

TEST(LinalgAdSecondOrder, Solves) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = square_matrix({}, 3, 200, d), b = randn({3, 2}, 201, d);
    EXPECT_TRUE(check_hvp([](std::span<const Tensor> in) { return loss_of(solve(in[0], in[1])); },
                          {a, b}, 1));
    const Tensor ab = square_matrix({2}, 3, 202, d);  // broadcast b
    EXPECT_TRUE(check_hvp([](std::span<const Tensor> in) { return loss_of(solve(in[0], in[1])); },
                          {ab, b}, 2));
    EXPECT_TRUE(check_hvp(
        [](std::span<const Tensor> in) { return loss_of(triangular_solve(in[0], in[1], true)); },
        {a, b}, 3));
    EXPECT_TRUE(check_hvp(
        [](std::span<const Tensor> in) {
          return loss_of(triangular_solve(in[0], transpose(in[1]), false, false, true));
        },
        {a, b}, 4));
    EXPECT_TRUE(check_hvp([](std::span<const Tensor> in) { return loss_of(inv(in[0])); }, {a}, 5));
    const Tensor tall = randn({5, 3}, 203, d), rhs = randn({5, 2}, 204, d);
    EXPECT_TRUE(check_hvp([](std::span<const Tensor> in) { return loss_of(lstsq(in[0], in[1])); },
                          {tall, rhs}, 6));
  }
}

TEST(LinalgAdSecondOrder, Cholesky) {
  for (bool upper : {false, true})
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + (upper ? " upper" : " lower"));
      const Tensor a = spoil_unread(positive_definite({}, 3, 210, d), !upper, 211);
      EXPECT_TRUE(check_hvp(
          [upper](std::span<const Tensor> in) { return loss_of(cholesky(in[0], upper)); }, {a}, 7));
      const Tensor ab = positive_definite({2}, 3, 212, d);
      EXPECT_TRUE(
          check_hvp([upper](std::span<const Tensor> in) { return loss_of(cholesky(in[0], upper)); },
                    {ab}, 8));
    }
}

TEST(LinalgAdSecondOrder, EighAndEigvalsh) {
  for (Uplo uplo : {Uplo::lower, Uplo::upper})
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + (uplo == Uplo::lower ? " lower" : " upper"));
      const Tensor a =
          spoil_unread(with_eigenvalues({}, {-1.2, 0.3, 1.5}, 220, d), uplo == Uplo::lower, 221);
      // sum(w^2) = |H|_F^2 (constant Hessian) and a loss with a non-trivial one.
      EXPECT_TRUE(check_hvp(
          [uplo](std::span<const Tensor> in) { return sum_squares(eigvalsh(in[0], uplo)); }, {a},
          9));
      EXPECT_TRUE(check_hvp(
          [uplo](std::span<const Tensor> in) { return loss_of(eigvalsh(in[0], uplo)); }, {a}, 10));
      // Through the eigenvectors (gauge-invariant projector) and the eigenvalues of eigh.
      EXPECT_TRUE(check_hvp(
          [uplo](std::span<const Tensor> in) {
            EighResult r = eigh(in[0], uplo);
            return loss_of(proj(r.eigenvectors, weights(3, r.eigenvectors.dtype(), -1.0, 0.8))) +
                   loss_of(r.eigenvalues);
          },
          {a}, 11));
    }
}

TEST(LinalgAdSecondOrder, SvdQrDeterminants) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = with_singular_values({}, 4, 3, {3.0, 2.1, 1.3}, 230, d);
    EXPECT_TRUE(
        check_hvp([](std::span<const Tensor> in) { return loss_of(svdvals(in[0])); }, {a}, 12));
    EXPECT_TRUE(check_hvp(
        [](std::span<const Tensor> in) {
          SvdResult r = svd(in[0]);
          const DType dt = r.U.dtype();
          return loss_of(proj(r.U, weights(3, dt))) + loss_of(proj(mH(r.Vh), weights(3, dt, 2.0))) +
                 loss_of(matmul(r.U * weights(3, dt, 0.5, 1.1), r.Vh)) + loss_of(r.S);
        },
        {a}, 13));
    const Tensor wide = with_singular_values({}, 3, 5, {2.5, 1.6, 0.7}, 232, d);
    EXPECT_TRUE(check_hvp(
        [](std::span<const Tensor> in) {
          SvdResult r = svd(in[0], true);  // full_matrices: the complements enter the projectors
          const DType dt = r.U.dtype();
          return loss_of(proj(r.U, complement_weights(3, 3, dt))) +
                 loss_of(proj(mH(r.Vh), complement_weights(5, 3, dt, 2.0, 0.5, -0.3))) +
                 loss_of(r.S);
        },
        {wide}, 17));
    EXPECT_TRUE(check_hvp(
        [](std::span<const Tensor> in) {
          SvdResult r = svd_truncated(in[0], 2);
          return loss_of(proj(r.U, weights(2, r.U.dtype()))) + loss_of(r.S);
        },
        {a}, 18));
    EXPECT_TRUE(check_hvp(
        [](std::span<const Tensor> in) {
          QrResult r = qr(in[0]);
          return loss_of(r.Q) + loss_of(r.R);
        },
        {a}, 14));
    const Tensor sq = randn({3, 3}, 231, d);
    EXPECT_TRUE(check_hvp(
        [](std::span<const Tensor> in) {
          SlogdetResult r = slogdet(in[0]);
          return loss_of(r.logabsdet) + loss_of(r.sign);
        },
        {sq}, 15));
    EXPECT_TRUE(
        check_hvp([](std::span<const Tensor> in) { return loss_of(det(in[0])); }, {sq}, 16));
  }
}

// ---- degenerate spectra ----

TEST(LinalgAdDegenerate, EighWithARepeatedEigenvalue) {
  for (Uplo uplo : {Uplo::lower, Uplo::upper})
    for (DType d : kDtypes) {
      const bool lower = uplo == Uplo::lower;
      SCOPED_TRACE(name_of(d) + (lower ? " lower" : " upper"));
      // diag(1, 1, 2) rotated by a fixed unitary: the computed eigenvalues 1, 1 differ by
      // rounding only, so the broadened inverse gap between them is ~1e8, not Inf.
      const Tensor h = with_eigenvalues({}, {1.0, 1.0, 2.0}, 300, d);
      const Tensor a = spoil_unread(h, lower, 301);
      // V diag(1, 1, 3) V^H = I + 2 P_2: the repeated eigenvalue's eigenspace enters as a whole,
      // so the loss is gauge-invariant (any basis of that eigenspace) and smooth at a.
      auto projector = [uplo](std::span<const Tensor> in) {
        const Tensor V = eigh(in[0], uplo).eigenvectors;
        return std::vector<Tensor>{proj(V, vec({1.0, 1.0, 3.0}, V.dtype()))};
      };
      const Tensor g =
          grad([&](std::span<const Tensor> in) { return pairing(projector(in)[0], 302); }, {a})[0];
      EXPECT_TRUE(all_finite(g));
      EXPECT_TRUE(check_vjp(projector, {a}));
      EXPECT_TRUE(check_jvp(projector, {a}));
      // A loss mixing eigenvalues and eigenvectors: finite gradient (its value depends on the
      // arbitrary basis of the eigenspace, so only finiteness is asserted).
      const Tensor g2 = grad(
          [uplo](std::span<const Tensor> in) {
            EighResult r = eigh(in[0], uplo);
            return sum(r.eigenvalues) + pairing(abs2(r.eigenvectors), 303);
          },
          {a})[0];
      EXPECT_TRUE(all_finite(g2));

      // sum of eigenvalues = tr H = sum_i Re a_ii whichever triangle is read: the gradient is I
      // (zero off the diagonal, in the read triangle too, and a real diagonal).
      const Tensor eye = diag_embed(ones({3}, d));
      EXPECT_TRUE(near(
          grad([uplo](std::span<const Tensor> in) { return sum(eigvalsh(in[0], uplo)); }, {a})[0],
          eye));
      EXPECT_TRUE(near(
          grad([uplo](std::span<const Tensor> in) { return sum(eigh(in[0], uplo).eigenvalues); },
               {a})[0],
          eye));
      // sum of squared eigenvalues = |H|_F^2 = sum_i (Re a_ii)^2 + 2 sum_{read i != j} |a_ij|^2:
      // with the conjugate-Wirtinger convention the gradient is 2 Re a_ii on the diagonal,
      // 4 a_ij on the read strict triangle (each entry stands for itself and its mirror) and 0 on
      // the unread one.
      const Tensor re_diag = diag_embed(cast(cast(diagonal(a), DType::f64), d));
      const Tensor expected = (lower ? tril(a, -1) : triu(a, 1)) * 4.0 + re_diag * 2.0;
      EXPECT_TRUE(near(
          grad([uplo](std::span<const Tensor> in) { return sum_squares(eigvalsh(in[0], uplo)); },
               {a})[0],
          expected, 1e-9, 1e-9));
    }
}

TEST(LinalgAdDegenerate, SvdOfTheIdentityAndRepeatedSingularValues) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor eye = diag_embed(ones({3}, d));
    // All three singular values equal: U and V are fixed only up to a common unitary. U Vh (the
    // polar factor) and S are invariant; the gradient and tangent must be finite. (The value of
    // the polar factor's derivative is not asserted: at an exact degeneracy the broadening drops
    // the (dP - dP^H) / (s_i + s_j) term, Note [Degenerate spectra].)
    auto loss = [](std::span<const Tensor> in) {
      SvdResult r = svd(in[0]);
      return sum_squares(r.S) + pairing(matmul(r.U, r.Vh), 310) +
             pairing(proj(r.U, ones({3}, r.U.dtype())), 311);
    };
    EXPECT_TRUE(all_finite(grad(loss, {eye})[0]));
    JvpResult j = jvp(
        [](std::span<const Tensor> in) {
          SvdResult r = svd(in[0]);
          return std::vector<Tensor>{r.U, r.S, r.Vh};
        },
        {eye}, {randn({3, 3}, 312, d)});
    for (const Tensor& t : j.tangents) EXPECT_TRUE(all_finite(t));
    // grad of sum(S) (the nuclear norm) is U Vh = I here.
    EXPECT_TRUE(
        near(grad([](std::span<const Tensor> in) { return sum(svdvals(in[0])); }, {eye})[0], eye));
    EXPECT_TRUE(
        near(grad([](std::span<const Tensor> in) { return sum(svd(in[0]).S); }, {eye})[0], eye));
    EXPECT_TRUE(
        near(grad([](std::span<const Tensor> in) { return matrix_norm(in[0], MatrixNormOrd::nuc); },
                  {eye})[0],
             eye));

    // Repeated singular values of a non-trivial matrix (square and tall): U Vh is unique for a
    // full-rank matrix, and it is the gradient of sum(S).
    for (const Dims& shape : {Dims{3, 3}, Dims{4, 3}}) {
      SCOPED_TRACE(dims_to_string(shape));
      const Tensor a = with_singular_values({}, shape[0], shape[1], {2.0, 2.0, 1.0}, 313, d);
      SvdResult r = svd(a);
      const Tensor polar = matmul(r.U, r.Vh);
      EXPECT_TRUE(near(grad([](std::span<const Tensor> in) { return sum(svdvals(in[0])); }, {a})[0],
                       polar, 1e-9, 1e-9));
      EXPECT_TRUE(near(grad([](std::span<const Tensor> in) { return sum(svd(in[0]).S); }, {a})[0],
                       polar, 1e-9, 1e-9));
      EXPECT_TRUE(all_finite(grad(loss, {a})[0]));
    }

    // A zero singular value (rank-deficient tall matrix): the broadened 1 / s keeps the
    // gradient of a loss through U finite.
    const Tensor rank2 = with_singular_values({}, 4, 3, {2.0, 1.0, 0.0}, 314, d);
    EXPECT_TRUE(all_finite(grad(
        [](std::span<const Tensor> in) {
          SvdResult r = svd(in[0]);
          return pairing(proj(r.U, weights(3, r.U.dtype())), 315) + sum(r.S);
        },
        {rank2})[0]));
  }
}

TEST(LinalgAdDegenerate, PolarFactorDerivativeAtExactDegeneracy) {
  // U Vh is smooth wherever a has full rank, repeated singular values included; its derivative
  // at the identity is the skew-Hermitian part of the perturbation.
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    auto polar = [](std::span<const Tensor> in) {
      SvdResult r = svd(in[0]);
      return std::vector<Tensor>{matmul(r.U, r.Vh)};
    };
    const Tensor eye = diag_embed(ones({3}, d));
    EXPECT_TRUE(check_vjp(polar, {eye}));
    EXPECT_TRUE(check_jvp(polar, {eye}));
    const Tensor a = with_singular_values({}, 3, 3, {2.0, 2.0, 1.0}, 320, d);
    EXPECT_TRUE(check_vjp(polar, {a}));
    EXPECT_TRUE(check_jvp(polar, {a}));
  }
}

TEST(LinalgAdDegenerate, SecondOrderAtAnExactDegeneracyIsFinite) {
  // The hvp of the smooth projector loss at a repeated eigenvalue / singular value: finite.
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor h = with_eigenvalues({}, {1.0, 1.0, 2.0}, 300, d), v = randn({3, 3}, 330, d);
    EXPECT_TRUE(all_finite(hvp(
        [](std::span<const Tensor> in) {
          return pairing(proj(eigh(in[0]).eigenvectors, vec({1.0, 1.0, 3.0}, in[0].dtype())), 331);
        },
        {h}, {v})[0]));
    const Tensor a = with_singular_values({}, 3, 3, {2.0, 2.0, 1.0}, 332, d);
    EXPECT_TRUE(all_finite(hvp(
        [](std::span<const Tensor> in) {
          return pairing(proj(svd(in[0]).U, vec({1.0, 1.0, 3.0}, in[0].dtype())), 333);
        },
        {a}, {v})[0]));
  }
}

// Second order at an exact degeneracy is finite (above) but not accurate: the JVP of the
// broadened inverse gap at d ~ 1e-16 is ~1 / (eps scale^2) and amplifies rounding noise; see
// docs/linalg.md, "Degenerate spectra". There is no test of its accuracy on purpose.

TEST(LinalgAdDegenerate, SinglePrecisionAtAnExactDegeneracy) {
  // The same input values in single and double precision; the f64 / c128 gradients at the
  // degenerate point are verified against finite differences in EighWithARepeatedEigenvalue.
  for (DType d : kDtypes) {
    const DType s = d == DType::f64 ? DType::f32 : DType::c64;
    SCOPED_TRACE(name_of(s));
    const Tensor h32 = cast(with_eigenvalues({}, {1.0, 1.0, 2.0}, 300, d), s);
    auto f = [](std::span<const Tensor> in) {
      return pairing(proj(eigh(in[0]).eigenvectors, vec({1.0, 1.0, 3.0}, in[0].dtype())), 340);
    };
    EXPECT_TRUE(near(cast(grad(f, {h32})[0], d), grad(f, {cast(h32, d)})[0], 1e-3, 1e-3));
    const Tensor a32 = cast(with_singular_values({}, 4, 3, {2.0, 2.0, 1.0}, 301, d), s);
    auto fs = [](std::span<const Tensor> in) {
      SvdResult r = svd(in[0]);
      const Tensor c = vec({1.0, 1.0, 3.0}, in[0].dtype());
      return pairing(proj(r.U, c), 341) + pairing(proj(mH(r.Vh), c), 342);
    };
    EXPECT_TRUE(near(cast(grad(fs, {a32})[0], d), grad(fs, {cast(a32, d)})[0], 1e-3, 1e-3));
  }
}
