// Derivatives of eig / eigvals, lu / lu_factor / lu_solve, matrix_exp, pinv, qr_pivoted and the
// wide (m < n) qr against central finite differences (VJP and JVP, f64 and c128), the VJP/JVP
// duality of eig's gauge-fixed rule, one forward-over-reverse (hvp) check of matrix_exp and one
// traced / prepared gradient program.
//
// eig's eigenvectors are fixed only up to a phase per column (unit norm), so its checked views are
// invariant under v_j -> v_j e^{i phi}: the eigenvalues, |V|^2 and V diag(c) V^-1.
#include <gtest/gtest.h>

#include "linalg_ad/linalg_ad_common.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using namespace tenferro::linalg_ad;

namespace {

// X diag(w) X^-1 with prescribed, well-separated eigenvalues (real input: real w; complex: w and X
// complex). X = random + 2 I keeps the eigenvectors well conditioned.
Tensor with_general_eigenvalues(const Dims& batch, const std::vector<double>& w, std::uint64_t seed,
                                DType d) {
  const I n = static_cast<I>(w.size());
  const Tensor X = square_matrix(batch, n, seed, d);
  Tensor wv = vec(w, d);
  if (is_complex(d)) wv = wv + slice(vec({0.3, -0.4, 0.2, 0.5}, d), 0, 0, n) * Scalar(0, 1);
  return contiguous(matmul(X * wv, inv(X)));
}

// A real 3x3 matrix with the eigenvalues 0.8 +- 1.1 i and -1.3.
Tensor real_with_complex_pair(std::uint64_t seed) {
  const Tensor B = from_vector<double>({0.8, -1.1, 0, 1.1, 0.8, 0, 0, 0, -1.3}, {3, 3});
  const Tensor X = square_matrix({}, 3, seed, DType::f64);
  return contiguous(matmul(matmul(X, B), inv(X)));
}

std::vector<Tensor> eig_view(const EigResult& r) {
  const I n = r.eigenvalues.shape().back();
  const Tensor& V = r.eigenvectors;
  return {r.eigenvalues, abs2(V), matmul(V * weights(n, V.dtype(), -1.0, 0.9), inv(V))};
}

TEST(LinalgAdEig, EigAndEigvalsMatchFiniteDifferences) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = with_general_eigenvalues({2}, {1.0, 2.2, -1.5, 3.1}, 500, d);
    check_fd([](std::span<const Tensor> in) { return eig_view(eig(in[0])); }, {a});
    check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{eigvals(in[0])}; }, {a});
    // The rule is the exact adjoint of the jvp even for gauge-dependent outputs (V itself).
    EXPECT_TRUE(check_duality(
        [](std::span<const Tensor> in) {
          EigResult r = eig(in[0]);
          return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
        },
        {a}));
  }
  SCOPED_TRACE("real input with a complex-conjugate pair");
  const Tensor a = real_with_complex_pair(501);
  check_fd([](std::span<const Tensor> in) { return eig_view(eig(in[0])); }, {a});
}

// ---- lu ----

TEST(LinalgAdLu, LuAndLuFactorSquareTallWide) {
  const std::pair<I, I> shapes[] = {{4, 4}, {5, 3}, {3, 5}};
  for (DType d : kDtypes)
    for (auto [m, n] : shapes) {
      SCOPED_TRACE(name_of(d) + " " + std::to_string(m) + "x" + std::to_string(n));
      const Tensor a = contiguous(randn({2, m, n}, 510 + static_cast<std::uint64_t>(m), d));
      check_fd(
          [](std::span<const Tensor> in) {
            LuResult r = lu(in[0]);
            return std::vector<Tensor>{r.L, r.U};
          },
          {a});
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{lu_factor(in[0]).LU}; },
               {a});
    }
}

TEST(LinalgAdLu, LuSolveInLuAndB) {
  for (DType d : kDtypes)
    for (bool adjoint : {false, true}) {
      SCOPED_TRACE(name_of(d) + (adjoint ? " adjoint" : ""));
      const Tensor a = square_matrix({2}, 4, 520, d);
      const LuFactorResult f = lu_factor(a);
      const Tensor b = randn({2, 4, 2}, 521, d);
      const Tensor piv = f.pivots;
      check_fd(
          [piv, adjoint](std::span<const Tensor> in) {
            return std::vector<Tensor>{lu_solve(in[0], piv, in[1], adjoint)};
          },
          {contiguous(f.LU), b});
      // Through the factorisation too: lu_solve(lu_factor(a), b) = solve(a, b).
      check_fd(
          [adjoint](std::span<const Tensor> in) {
            LuFactorResult g = lu_factor(in[0]);
            return std::vector<Tensor>{lu_solve(g.LU, g.pivots, in[1], adjoint)};
          },
          {a, b});
    }
}

// ---- matrix_exp ----

TEST(LinalgAdMatrixExp, FirstAndSecondOrder) {
  for (DType d : kDtypes)
    for (double scale : {0.2, 2.0}) {  // a low Pade degree and scaling and squaring
      SCOPED_TRACE(name_of(d) + " scale " + std::to_string(scale));
      const Tensor a = contiguous(randn({2, 3, 3}, 530, d) * scale);
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{matrix_exp(in[0])}; },
               {a});
      // Forward over reverse through the recursive block rule.
      const ScalarFn f = [](std::span<const Tensor> in) { return loss_of(matrix_exp(in[0])); };
      const Tensor v = randn(a.shape(), 531, d);
      const double eps = 1e-6;
      const Tensor h = hvp(f, {a}, {v})[0];
      const Tensor gp = grad(f, {contiguous(a + v * eps)})[0];
      const Tensor gm = grad(f, {contiguous(a - v * eps)})[0];
      EXPECT_TRUE(near(h, (gp - gm) / (2 * eps), 1e-5, 1e-6));
    }
}

// ---- pinv ----

TEST(LinalgAdPinv, AnalyticRuleIncludingRepeatedSingularValues) {
  const std::pair<I, I> shapes[] = {{3, 3}, {5, 3}, {3, 5}};
  for (DType d : kDtypes) {
    for (auto [m, n] : shapes) {
      SCOPED_TRACE(name_of(d) + " " + std::to_string(m) + "x" + std::to_string(n));
      const Tensor a = with_singular_values({2}, m, n, {2.0, 1.3, 0.7}, 540, d);
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{pinv(in[0])}; }, {a});
    }
    // An orthogonal (unitary) matrix: all singular values 1. A rule through svd's would lose a
    // finite term here; the analytic one is exact.
    SCOPED_TRACE(name_of(d) + " orthogonal");
    const Tensor q = orthonormal({}, 4, 4, 541, d);
    check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{pinv(in[0])}; }, {q});
    const Tensor tall = orthonormal({}, 5, 3, 542, d);  // orthonormal columns, wide pinv
    check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{pinv(in[0])}; }, {tall});
  }
}

// ---- qr (wide) and qr_pivoted ----

TEST(LinalgAdQrMore, WideReducedAndCompleteAndPivoted) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor wide = contiguous(randn({2, 3, 5}, 550, d));
    for (QrMode mode : {QrMode::reduced, QrMode::complete})
      check_fd(
          [mode](std::span<const Tensor> in) {
            QrResult r = qr(in[0], mode);
            return std::vector<Tensor>{r.Q, r.R};
          },
          {wide});
    // Column norms far apart: the pivot order does not change under the finite differences.
    for (auto [m, n] : {std::pair<I, I>{5, 3}, {3, 5}, {4, 4}}) {
      SCOPED_TRACE("pivoted " + std::to_string(m) + "x" + std::to_string(n));
      std::vector<double> c;
      for (I j = 0; j < n; ++j) c.push_back(1.0 + 1.7 * static_cast<double>((j * 2) % n));
      const Tensor a = contiguous(randn({m, n}, 551, d) * vec(c, d));
      check_fd(
          [](std::span<const Tensor> in) {
            QrPivotedResult r = qr_pivoted(in[0]);
            return std::vector<Tensor>{r.Q, r.R};
          },
          {a});
    }
  }
}

// ---- traced / prepared ----

TEST(LinalgAdMorePrograms, TracedGradientMatchesEager) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = with_general_eigenvalues({}, {1.0, 2.2, -1.5}, 560, d);
    const Tensor b = randn({3, 2}, 561, d);
    auto f = [](std::span<const Tensor> in) {
      const Tensor& x = in[0];
      const LuFactorResult g = lu_factor(x);
      const Tensor eigen = cast(sum_squares(eigvals(x)), real_dtype(x.dtype()));
      return loss_of(matrix_exp(x * 0.3)) + loss_of(pinv(x)) + eigen +
             loss_of(lu_solve(g.LU, g.pivots, in[1]));
    };
    const Program p = trace(f, {ValueSpec{a.shape(), d}, ValueSpec{b.shape(), d}});
    const Program g = grad(p);
    const std::vector<Tensor> traced = g({a, b});
    const std::vector<Tensor> eager = grad(f, {a, b});
    ASSERT_EQ(traced.size(), 2u);
    EXPECT_TRUE(near(traced[0], eager[0], 1e-10, 1e-11));
    EXPECT_TRUE(near(traced[1], eager[1], 1e-10, 1e-11));
    Runtime rt;
    EXPECT_TRUE(near(rt.run(rt.prepare(g), {a, b})[0], traced[0], 1e-12, 1e-13));
  }
}

}  // namespace
