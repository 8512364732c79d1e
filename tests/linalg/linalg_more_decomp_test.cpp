// eig / eigvals, lu / lu_factor / lu_solve, pinv, matrix_exp, qr_pivoted: values (reconstruction,
// agreement with eigh / solve / a Taylor series, Moore-Penrose conditions, ordering) for every
// dtype on small (built-in) and larger (LAPACK) sizes, batched and strided, and the typed errors.
#include "common/expect_error.hpp"
#include "linalg/linalg_test_util.hpp"

using namespace tenferro;
using namespace tenferro::linalg_test;
using tenferro::testing::expect_error;

namespace {

using I = std::int64_t;

std::string what(DType dt, I m, I n) {
  return std::string(dtype_name(dt)) + " " + std::to_string(m) + "x" + std::to_string(n);
}

// ---- eig ----

TEST(LinalgEig, ReconstructsAndMatchesEigvals) {
  for (DType dt : kAllDtypes)
    for (I n : {1, 2, 4, 20}) {
      const Tensor base = random({2, n, n}, 11 + static_cast<std::uint64_t>(n), dt);
      const Tensor a = transpose(base);  // strided input
      const EigResult r = eig(a);
      const DType c = complex_dtype(dt);
      ASSERT_EQ(r.eigenvalues.dtype(), c);
      ASSERT_EQ(r.eigenvectors.dtype(), c);
      ASSERT_EQ(r.eigenvalues.shape(), (Dims{2, n}));
      const double t = tol(dt, n) * 20 * std::max(1.0, max_abs(a));
      const Tensor ac = cast(a, c);
      // a V = V diag(w) and a = V diag(w) V^-1
      EXPECT_LE(max_abs(matmul(ac, r.eigenvectors) - r.eigenvectors * unsqueeze(r.eigenvalues, -2)),
                t)
          << what(dt, n, n);
      EXPECT_LE(
          max_abs(matmul(r.eigenvectors * unsqueeze(r.eigenvalues, -2), inv(r.eigenvectors)) - ac),
          t)
          << what(dt, n, n);
      // unit-norm columns
      EXPECT_LE(max_abs(sum(square(abs(r.eigenvectors)), {-2}) - 1.0), tol(dt, n))
          << what(dt, n, n);
      EXPECT_LE(max_abs(eigvals(a) - r.eigenvalues), t) << what(dt, n, n);
    }
}

TEST(LinalgEig, AgreesWithEighOnHermitianInput) {
  for (DType dt : kAllDtypes) {
    const I n = 5;
    const Tensor h = hermitian(random({3, n, n}, 21, dt));
    // Sort eig's (real) eigenvalues to compare with eigh's ascending ones.
    const Tensor w = real(eigvals(h));
    const Tensor sorted = sort(w, -1).values;
    EXPECT_LE(max_abs(cast(sorted, real_dtype(dt)) - eigh(h).eigenvalues), tol(dt, n) * 10)
        << dtype_name(dt);
    EXPECT_LE(max_abs(imag(eigvals(h))), tol(dt, n) * 10) << dtype_name(dt);
  }
}

TEST(LinalgEig, RealMatrixWithComplexPairs) {
  // Rotation by 90 degrees: eigenvalues +-i.
  const Tensor a = from_vector<double>({0, -1, 1, 0}, {2, 2});
  const EigResult r = eig(a);
  const auto w = values(r.eigenvalues);
  EXPECT_NEAR(std::abs(w[0].imag()), 1.0, 1e-14);
  EXPECT_NEAR(w[0].imag(), -w[1].imag(), 1e-14);
  EXPECT_LE(max_abs(matmul(cast(a, DType::c128), r.eigenvectors) -
                    r.eigenvectors * unsqueeze(r.eigenvalues, -2)),
            1e-14);
  const Tensor empty = zeros({3, 0, 0});
  EXPECT_EQ(eig(empty).eigenvalues.shape(), (Dims{3, 0}));
}

// ---- lu ----

TEST(LinalgLu, ReconstructsRectangularBatchedStrided) {
  const std::pair<I, I> shapes[] = {{1, 1}, {3, 3}, {4, 2}, {2, 5}, {20, 20}, {24, 17}, {17, 24}};
  for (DType dt : kAllDtypes)
    for (auto [m, n] : shapes) {
      const I k = std::min(m, n);
      const Tensor a = transpose(random({2, n, m}, 31 + static_cast<std::uint64_t>(m * n), dt));
      const LuResult r = lu(a);
      ASSERT_EQ(r.P.shape(), (Dims{2, m, m}));
      ASSERT_EQ(r.L.shape(), (Dims{2, m, k}));
      ASSERT_EQ(r.U.shape(), (Dims{2, k, n}));
      const double t = tol(dt, std::max(m, n)) * std::max(1.0, max_abs(a));
      EXPECT_LE(max_abs(matmul(r.P, matmul(r.L, r.U)) - a), t) << what(dt, m, n);
      EXPECT_LE(max_abs(r.L - tril(r.L)), 0.0);
      EXPECT_LE(max_abs(r.U - triu(r.U)), 0.0);
      EXPECT_LE(max_abs(diagonal(r.L) - 1.0), 0.0);
      // Partial pivoting: |L| <= 1 (complex: LAPACK's |re| + |im| pivot measure, so sqrt(2)).
      EXPECT_LE(max_abs(r.L), (is_complex(dt) ? std::sqrt(2.0) : 1.0) + 1e-6) << what(dt, m, n);
      const LuFactorResult f = lu_factor(a);
      EXPECT_EQ(f.pivots.dtype(), DType::i64);
      EXPECT_EQ(f.pivots.shape(), (Dims{2, k}));
      for (c128 p : values(f.pivots)) {
        EXPECT_GE(p.real(), 0);
        EXPECT_LT(p.real(), static_cast<double>(m));
      }
      EXPECT_LE(max_abs(tril(slice(f.LU, -1, 0, k), -1) - tril(r.L, -1)), 0.0) << what(dt, m, n);
    }
}

TEST(LinalgLu, LuSolveMatchesSolveAndReusesTheFactorisation) {
  for (DType dt : kAllDtypes)
    for (I n : {3, 20}) {
      const Tensor a = random({2, n, n}, 41, dt) + eye(n, dt) * 3.0;
      const LuFactorResult f = lu_factor(a);
      const double t = tol(dt, n) * 10;
      for (I r : {1, 4}) {
        const Tensor b = random({2, n, r}, 42 + static_cast<std::uint64_t>(r), dt);
        EXPECT_LE(max_abs(lu_solve(f.LU, f.pivots, b) - solve(a, b)), t) << what(dt, n, r);
        EXPECT_LE(max_abs(lu_solve(f.LU, f.pivots, b, true) - solve(mH(a), b)), t)
            << what(dt, n, r) << " adjoint";
      }
      // vector right-hand side and a broadcast batch of b
      const Tensor v = random({2, n}, 45, dt);
      EXPECT_LE(max_abs(lu_solve(f.LU, f.pivots, v) - solve(a, v)), t);
      const Tensor bb = random({n, 2}, 46, dt);
      EXPECT_LE(max_abs(lu_solve(f.LU, f.pivots, bb) - solve(a, bb)), t);
    }
}

TEST(LinalgLu, SingularFactorsAndLuSolveErrors) {
  const Tensor good = eye(3, DType::f64) * 2.0;
  Tensor bad = from_vector<double>({1, 2, 3, 2, 4, 6, 1, 0, 1}, {3, 3});
  const Tensor a = stack({good, bad}, 0);
  const LuFactorResult f = lu_factor(a);  // no error: the factorisation exists
  const Tensor b = ones({2, 3, 1});
  expect_error(ErrorKind::LinAlgError, [&] { lu_solve(f.LU, f.pivots, b); },
               {"lu_solve", "batch index 1", "singular"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 lu_solve(f.LU, full({2, 3}, 7.0, DType::i64), b);
               },
               {"lu_solve", "pivot"});
  expect_error(ErrorKind::DTypeMismatch, [&] { lu_solve(f.LU, cast(f.pivots, DType::f64), b); },
               {"lu_solve", "i64"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 lu_solve(f.LU, f.pivots, ones({2, 4, 1}));
               },
               {"lu_solve"});
}

// ---- pinv ----

void expect_penrose(const Tensor& a, const Tensor& x, double t, const std::string& w) {
  EXPECT_LE(max_abs(matmul(matmul(a, x), a) - a), t) << w << " A X A = A";
  EXPECT_LE(max_abs(matmul(matmul(x, a), x) - x), t) << w << " X A X = X";
  const Tensor ax = matmul(a, x), xa = matmul(x, a);
  EXPECT_LE(max_abs(ax - mH(ax)), t) << w << " (A X)^H = A X";
  EXPECT_LE(max_abs(xa - mH(xa)), t) << w << " (X A)^H = X A";
}

TEST(LinalgPinv, MoorePenroseConditionsFullAndRankDeficient) {
  const std::pair<I, I> shapes[] = {{3, 3}, {5, 3}, {3, 5}, {12, 9}, {9, 12}};
  for (DType dt : kAllDtypes)
    for (auto [m, n] : shapes) {
      const Tensor a = transpose(random({2, n, m}, 51 + static_cast<std::uint64_t>(m * n), dt));
      const Tensor x = pinv(a);
      ASSERT_EQ(x.shape(), (Dims{2, n, m}));
      expect_penrose(a, x, tol(dt, std::max(m, n)) * 100, what(dt, m, n));
      // rank 2 (product of thin factors)
      const Tensor r2 = matmul(random({m, 2}, 52, dt), random({2, n}, 53, dt));
      expect_penrose(r2, pinv(r2), tol(dt, std::max(m, n)) * 1000, what(dt, m, n) + " rank 2");
    }
  // Square invertible: the inverse; zero matrix: zero.
  const Tensor sq = random({4, 4}, 54, DType::f64) + eye(4, DType::f64) * 3.0;
  EXPECT_LE(max_abs(pinv(sq) - inv(sq)), 1e-12);
  EXPECT_LE(max_abs(pinv(zeros({3, 2}))), 0.0);
  EXPECT_EQ(pinv(zeros({3, 2})).shape(), (Dims{2, 3}));
  // rcond drops the small singular value.
  const Tensor d = diag_embed(from_vector<double>({1.0, 1e-3}, {2}));
  EXPECT_NEAR(values(pinv(d, 1e-2))[3].real(), 0.0, 0.0);
  EXPECT_NEAR(values(pinv(d))[3].real(), 1e3, 1e-9);
}

// ---- matrix_exp ----

// sum_k a^k / k! (converges fast for the small-norm inputs used here).
Tensor taylor_exp(const Tensor& a) {
  const I n = a.shape().back();
  Tensor term = eye(n, a.dtype()) + zeros(a.shape(), a.dtype()), acc = term;
  for (int k = 1; k < 40; ++k) {
    term = matmul(term, a) / static_cast<double>(k);
    acc = acc + term;
  }
  return acc;
}

TEST(LinalgMatrixExp, MatchesTaylorAndEigh) {
  for (DType dt : kAllDtypes)
    for (I n : {1, 2, 4, 20})
      for (double scale : {0.01, 0.3, 1.0}) {
        const Tensor a = transpose(random({2, n, n}, 61 + static_cast<std::uint64_t>(n), dt)) *
                         (scale / std::sqrt(static_cast<double>(n)));
        const Tensor e = matrix_exp(a);
        const Tensor ref = taylor_exp(a);
        EXPECT_LE(max_abs(e - ref), tol(dt, n) * std::max(1.0, max_abs(ref)))
            << what(dt, n, n) << " scale " << scale;
      }
  // Large norm (scaling and squaring) against the spectral formula on a Hermitian matrix.
  for (DType dt : kAllDtypes)
    for (I n : {4, 20}) {
      const Tensor h = hermitian(random({n, n}, 62, dt)) * 3.0;
      const EighResult r = eigh(h);
      const Tensor ref =
          matmul(r.eigenvectors * unsqueeze(cast(exp(r.eigenvalues), dt), -2), mH(r.eigenvectors));
      const Tensor e = matrix_exp(h);
      EXPECT_LE(max_abs(e - ref) / max_abs(ref), tol(dt, n) * 10) << what(dt, n, n);
    }
}

TEST(LinalgMatrixExp, ZeroNilpotentAndNonFinite) {
  for (DType dt : kAllDtypes) {
    EXPECT_LE(max_abs(matrix_exp(zeros({3, 4, 4}, dt)) - eye(4, dt)), 0.0);
    // N strictly upper 3x3: exp(N) = I + N + N^2 / 2 exactly.
    const Tensor nil = triu(random({3, 3}, 63, dt), 1) * 5.0;
    const Tensor ref = eye(3, dt) + nil + matmul(nil, nil) * 0.5;
    EXPECT_LE(max_abs(matrix_exp(nil) - ref), tol(dt, 3) * max_abs(ref)) << dtype_name(dt);
  }
  const Tensor bad = from_vector<double>({1, NAN, 0, 1}, {2, 2});
  EXPECT_TRUE(std::isnan(values(matrix_exp(bad))[0].real()));
}

// ---- qr_pivoted ----

TEST(LinalgQrPivoted, ReconstructsOrdersAndRevealsRank) {
  const std::pair<I, I> shapes[] = {{4, 4}, {6, 3}, {3, 6}, {20, 12}};
  for (DType dt : kAllDtypes)
    for (auto [m, n] : shapes) {
      const I k = std::min(m, n);
      const Tensor a = transpose(random({2, n, m}, 71 + static_cast<std::uint64_t>(m * n), dt));
      const QrPivotedResult r = qr_pivoted(a);
      ASSERT_EQ(r.Q.shape(), (Dims{2, m, k}));
      ASSERT_EQ(r.R.shape(), (Dims{2, k, n}));
      ASSERT_EQ(r.P.shape(), (Dims{2, n}));
      ASSERT_EQ(r.P.dtype(), DType::i64);
      const Tensor idx = broadcast_to(unsqueeze(r.P, -2), {2, m, n});
      const Tensor ap = take_along_axis(a, idx, -1);
      const double t = tol(dt, std::max(m, n)) * std::max(1.0, max_abs(a));
      EXPECT_LE(max_abs(matmul(r.Q, r.R) - ap), t) << what(dt, m, n);
      EXPECT_LE(max_abs(matmul(mH(r.Q), r.Q) - eye(k, dt)), t) << what(dt, m, n);
      EXPECT_LE(max_abs(r.R - triu(r.R)), 0.0);
      const auto d = values(abs(diagonal(r.R)));
      for (I b = 0; b < 2; ++b)
        for (I i = 1; i < k; ++i)
          EXPECT_LE(d[static_cast<std::size_t>(b * k + i)].real(),
                    d[static_cast<std::size_t>(b * k + i - 1)].real() * (1 + 1e-6))
              << what(dt, m, n);
    }
  // Rank 2 of 6 columns: |R[2, 2]| and below are at rounding level.
  const Tensor r2 = matmul(random({8, 2}, 72, DType::f64), random({2, 6}, 73, DType::f64));
  const auto d = values(abs(diagonal(qr_pivoted(r2).R)));
  EXPECT_GT(d[1].real(), 1e-3);
  EXPECT_LT(d[2].real(), 1e-12 * d[0].real());
}

// ---- modes ----

// The new ops in one function (a general, b right-hand sides); eager, prepared and in-scope runs
// at budgets 1 and 4 must agree bitwise (Note [Linalg provider rules]).
std::vector<Tensor> more_ops(std::span<const Tensor> x) {
  const Tensor& a = x[0];
  const EigResult e = eig(a);
  const LuFactorResult f = lu_factor(a);
  const QrPivotedResult q = qr_pivoted(a);
  return {e.eigenvalues, e.eigenvectors, eigvals(a), f.LU, f.pivots, lu_solve(f.LU, f.pivots, x[1]),
          matrix_exp(a), pinv(a),        q.Q,        q.R,  q.P};
}

TEST(LinalgMoreModes, EagerPreparedAndScopeAgreeBitwiseAtBudgetsOneAndFour) {
  for (auto [batch, n] : {std::pair<I, I>{40, 4}, {6, 20}}) {
    SCOPED_TRACE("batch " + std::to_string(batch) + " n " + std::to_string(n));
    const std::vector<Tensor> in = {
        random({batch, n, n}, 81, DType::f64) * 0.5 + eye(n, DType::f64) * 2.0,
        random({batch, n, 2}, 82, DType::f64)};
    const std::vector<ValueSpec> specs = {ValueSpec{{batch, n, n}}, ValueSpec{{batch, n, 2}}};
    std::vector<Tensor> ref;
    for (int threads : {1, 4}) {
      const CpuBackend backend(CpuBackendOptions{.threads = threads});
      Runtime rt(backend);
      const PreparedProgram prog = rt.prepare(trace(more_ops, specs));
      std::vector<std::vector<Tensor>> runs;
      {
        BackendGuard use(backend);
        runs.push_back(more_ops(in));
      }
      runs.push_back(rt.run(prog, in));
      backend.with_execution_scope([&] { runs.push_back(more_ops(in)); });
      for (const auto& r : runs) {
        if (ref.empty()) {
          ref = r;
          continue;
        }
        ASSERT_EQ(r.size(), ref.size());
        for (std::size_t i = 0; i < r.size(); ++i)
          EXPECT_TRUE(bitwise_equal(r[i], ref[i]))
              << "output " << i << ", " << threads << " threads";
      }
    }
  }
}

// ---- errors ----

TEST(LinalgMoreErrors, ShapesAndDtypes) {
  const Tensor vec3 = ones({3}), rect = ones({2, 3}), ints = full({3, 3}, 1.0, DType::i64);
  expect_error(ErrorKind::ShapeMismatch, [&] { eig(vec3); }, {"eig"});
  expect_error(ErrorKind::ShapeMismatch, [&] { eig(rect); }, {"eig", "square"});
  expect_error(ErrorKind::ShapeMismatch, [&] { eigvals(rect); }, {"eigvals"});
  expect_error(ErrorKind::ShapeMismatch, [&] { matrix_exp(rect); }, {"matrix_exp"});
  expect_error(ErrorKind::ShapeMismatch, [&] { lu(vec3); }, {"lu"});
  expect_error(ErrorKind::ShapeMismatch, [&] { pinv(vec3); }, {"pinv"});
  expect_error(ErrorKind::ShapeMismatch, [&] { qr_pivoted(vec3); }, {"qr_pivoted"});
  for (auto f : {+[](const Tensor& x) { eig(x); }, +[](const Tensor& x) { eigvals(x); },
                 +[](const Tensor& x) { lu(x); }, +[](const Tensor& x) { lu_factor(x); },
                 +[](const Tensor& x) { pinv(x); }, +[](const Tensor& x) { matrix_exp(x); },
                 +[](const Tensor& x) { qr_pivoted(x); }})
    expect_error(ErrorKind::DTypeMismatch, [&] { f(ints); });
  Tensor nan_in = stack({eye(2, DType::f64), from_vector<double>({1, NAN, 0, 1}, {2, 2})}, 0);
  expect_error(ErrorKind::LinAlgError, [&] { eig(nan_in); }, {"eig", "batch index 1"});
  expect_error(ErrorKind::LinAlgError, [&] { pinv(nan_in); }, {"pinv", "batch index 1"});
  expect_error(ErrorKind::InvalidArgument, [&] { pinv(rect, NAN); }, {"pinv", "rcond"});
}

}  // namespace
