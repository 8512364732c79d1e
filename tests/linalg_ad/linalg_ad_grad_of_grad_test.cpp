// Reverse over reverse through the vector outputs of svd, eigh and qr: grad(grad(trace(f))).
//
// f(x) = <C, g(A + x B)> for a scalar x, where g rebuilds a function of the matrix from its
// factors. Rebuilding the matrix itself (U diag(S) Vh, V diag(w) V^H, Q R) makes f linear in x, so
// d^2f/dx^2 = 0 exactly; U diag(S^2) U^H = M M^H and V diag(w^2) V^H = H^2 make it quadratic with a
// closed-form second derivative. Before Note [Masked diagonal] (src/primitives/linalg_rules.cpp),
// the diagonal of the broadened inverse gaps had the value 0 but the derivative 1 / (eps scale^2),
// and reverse over reverse returned 1.04 (svd) and -12.09 (eigh) for the linear case, while hvp
// (forward over reverse) was right. Every check compares both routes with the exact value.
#include <gtest/gtest.h>

#include "linalg_ad/linalg_ad_common.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using namespace tenferro::linalg_ad;

namespace {

/// Re <C, M> = Re sum(conj(C) * M), a real scalar.
Tensor pairing_with(const Tensor& m, const Tensor& c) {
  return cast(sum(conj(c) * m), real_dtype(m.dtype()));
}

/// The first min(m, n) of the well-separated singular values 3, 2, 1.2, 0.5.
std::vector<double> spectrum(I m, I n) {
  const std::vector<double> s = {3.0, 2.0, 1.2, 0.5};
  return {s.begin(), s.begin() + std::min(m, n)};
}

/// The matrix-valued function of the factors that a case rebuilds, applied to m = A + x B.
using Rebuild = Tensor (*)(const Tensor& m);

/// d^2 f / dx^2 at x0 through grad(grad(trace(f))), and through hvp (forward over reverse).
struct Second {
  double reverse_over_reverse;
  double forward_over_reverse;
};

Second second_derivative(const Tensor& A, const Tensor& B, const Tensor& C, Rebuild g, double x0) {
  const auto f = [&](std::span<const Tensor> x) {
    return pairing_with(g(A + cast(x[0], A.dtype()) * B), C);
  };
  const Program g2 = grad(grad(trace(f, {ValueSpec{{}, DType::f64}})));
  const Tensor x = scalar_tensor(x0, DType::f64);
  const std::vector<Tensor> rr = g2({x});
  const std::vector<Tensor> fr = hvp(f, {x}, {scalar_tensor(1.0, DType::f64)});
  return {values(rr[0])[0].real(), values(fr[0])[0].real()};
}

Tensor svd_rebuild(const Tensor& m) {
  const SvdResult r = svd(m);
  return matmul(r.U * cast(r.S, m.dtype()), r.Vh);
}
Tensor svd_gram(const Tensor& m) {  // U diag(S^2) U^H = M M^H
  const SvdResult r = svd(m);
  return matmul(r.U * cast(square(r.S), m.dtype()), mH(r.U));
}
Tensor svd_full_rebuild(const Tensor& m) {  // the thin part of full_matrices factors
  const SvdResult r = svd(m, SvdOptions{true, kDefaultDegeneracyEps});
  const I k = r.S.shape().back();
  return matmul(slice(r.U, -1, 0, k) * cast(r.S, m.dtype()), slice(r.Vh, -2, 0, k));
}
Tensor eigh_rebuild(const Tensor& h) {
  const EighResult r = eigh(h);
  return matmul(r.eigenvectors * cast(r.eigenvalues, h.dtype()), mH(r.eigenvectors));
}
Tensor eigh_square(const Tensor& h) {  // V diag(w^2) V^H = H^2
  const EighResult r = eigh(h);
  return matmul(r.eigenvectors * cast(square(r.eigenvalues), h.dtype()), mH(r.eigenvectors));
}
Tensor qr_rebuild(const Tensor& m) {
  const QrResult r = qr(m);
  return matmul(r.Q, r.R);
}

Tensor hermitian(const Tensor& x) { return contiguous((x + mH(x)) * 0.5); }

constexpr double kTol = 1e-7;

}  // namespace

TEST(LinalgAdGradOfGrad, SvdRebuildIsLinear) {
  for (DType d : kDtypes) {
    for (auto [m, n] : {std::pair<I, I>{4, 4}, {5, 3}, {3, 5}}) {
      SCOPED_TRACE(name_of(d) + " " + std::to_string(m) + "x" + std::to_string(n));
      const Tensor A = with_singular_values({}, m, n, spectrum(m, n), 1, d);
      const Tensor B = randn({m, n}, 2, d), C = randn({m, n}, 3, d);
      for (Rebuild g : {&svd_rebuild, &svd_full_rebuild}) {
        const Second s = second_derivative(A, B, C, g, 0.1);
        EXPECT_NEAR(s.reverse_over_reverse, 0.0, kTol);
        EXPECT_NEAR(s.forward_over_reverse, 0.0, kTol);
      }
    }
  }
}

TEST(LinalgAdGradOfGrad, SvdGramIsQuadratic) {
  for (DType d : kDtypes) {
    for (auto [m, n] : {std::pair<I, I>{4, 4}, {5, 3}, {3, 5}}) {
      SCOPED_TRACE(name_of(d) + " " + std::to_string(m) + "x" + std::to_string(n));
      const Tensor A = with_singular_values({}, m, n, spectrum(m, n), 4, d);
      const Tensor B = randn({m, n}, 5, d), C = randn({m, m}, 6, d);
      // d^2/dx^2 <C, (A + x B)(A + x B)^H> = 2 <C, B B^H>
      const double exact = 2.0 * values(pairing_with(matmul(B, mH(B)), C))[0].real();
      const Second s = second_derivative(A, B, C, &svd_gram, 0.1);
      EXPECT_NEAR(s.reverse_over_reverse, exact, kTol * (1 + std::abs(exact)));
      EXPECT_NEAR(s.forward_over_reverse, exact, kTol * (1 + std::abs(exact)));
    }
  }
}

TEST(LinalgAdGradOfGrad, EighRebuildIsLinearAndSquareQuadratic) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor A = with_eigenvalues({}, {-2.0, -0.5, 1.0, 3.0}, 7, d);
    const Tensor B = hermitian(randn({4, 4}, 8, d)), C = randn({4, 4}, 9, d);
    const Second lin = second_derivative(A, B, C, &eigh_rebuild, 0.1);
    // eigh reads one triangle: C's pairing with the rebuilt Hermitian matrix is still linear.
    EXPECT_NEAR(lin.reverse_over_reverse, 0.0, kTol);
    EXPECT_NEAR(lin.forward_over_reverse, 0.0, kTol);
    const double exact = 2.0 * values(pairing_with(matmul(B, B), C))[0].real();  // H^2'' = 2 B^2
    const Second quad = second_derivative(A, B, C, &eigh_square, 0.1);
    EXPECT_NEAR(quad.reverse_over_reverse, exact, kTol * (1 + std::abs(exact)));
    EXPECT_NEAR(quad.forward_over_reverse, exact, kTol * (1 + std::abs(exact)));
  }
}

TEST(LinalgAdGradOfGrad, QrRebuildIsLinear) {
  for (DType d : kDtypes) {
    for (auto [m, n] : {std::pair<I, I>{4, 4}, {5, 3}}) {
      SCOPED_TRACE(name_of(d) + " " + std::to_string(m) + "x" + std::to_string(n));
      const Tensor A = shift_diag(randn({m, m}, 10, d), 2.5);
      const Tensor A_mn = contiguous(slice(A, -1, 0, n));
      const Tensor B = randn({m, n}, 11, d), C = randn({m, n}, 12, d);
      const Second s = second_derivative(A_mn, B, C, &qr_rebuild, 0.1);
      EXPECT_NEAR(s.reverse_over_reverse, 0.0, kTol);
      EXPECT_NEAR(s.forward_over_reverse, 0.0, kTol);
    }
  }
}

// The symptom as reported: the error grew as degeneracy_eps shrank (1e-24: 1.04, 1e-12: 8.6e-5).
TEST(LinalgAdGradOfGrad, IndependentOfDegeneracyEps) {
  const Tensor A = with_singular_values({}, 4, 4, {3.0, 2.0, 1.2, 0.5}, 13, DType::f64);
  const Tensor B = randn({4, 4}, 14, DType::f64), C = randn({4, 4}, 15, DType::f64);
  for (double eps : {1e-24, 1e-12, 1e-8}) {
    SCOPED_TRACE(eps);
    const auto f = [&](std::span<const Tensor> x) {
      const SvdResult r = svd(A + x[0] * B, SvdOptions{false, eps});
      return pairing_with(matmul(r.U * r.S, r.Vh), C);
    };
    const Program g2 = grad(grad(trace(f, {ValueSpec{{}, DType::f64}})));
    const Tensor x = scalar_tensor(0.1, DType::f64);
    const double rr = values(g2({x})[0])[0].real();
    const double fr = values(hvp(f, {x}, {scalar_tensor(1.0, DType::f64)})[0])[0].real();
    EXPECT_NEAR(rr, fr, kTol);  // the same broadened function both ways
    // The broadening itself moves the result by O(eps / gap^2) (1e-6 at eps = 1e-8).
    EXPECT_NEAR(rr, 0.0, kTol + 1e3 * eps);
  }
}

namespace {
Tensor cholesky_rebuild(const Tensor& h) {
  const Tensor L = cholesky(h);
  return matmul(L, mH(L));
}
Tensor det_2x2(const Tensor& m) { return unsqueeze(unsqueeze(det(m), -1), -1); }
}  // namespace

// The other rules: cholesky (triangular solves, a halved diagonal) and det (its rule goes through
// the adjugate, i.e. through svd's vectors; det(A + x B) of a 2x2 is quadratic: d^2 = 2 det(B)).
TEST(LinalgAdGradOfGrad, CholeskyAndDet) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor H = positive_definite({}, 4, 16, d);
    const Tensor B = hermitian(randn({4, 4}, 17, d)) * 0.1, C = randn({4, 4}, 18, d);
    const Second chol = second_derivative(H, B, C, &cholesky_rebuild, 0.1);
    EXPECT_NEAR(chol.reverse_over_reverse, 0.0, kTol);
    EXPECT_NEAR(chol.forward_over_reverse, 0.0, kTol);

    const Tensor A2 = square_matrix({}, 2, 19, d), B2 = randn({2, 2}, 20, d);
    const Tensor one = ones({1, 1}, d);
    const double exact = 2.0 * values(det(B2))[0].real();
    const Second dt = second_derivative(A2, B2, one, &det_2x2, 0.1);
    EXPECT_NEAR(dt.reverse_over_reverse, exact, kTol * (1 + std::abs(exact)));
    EXPECT_NEAR(dt.forward_over_reverse, exact, kTol * (1 + std::abs(exact)));
  }
}
