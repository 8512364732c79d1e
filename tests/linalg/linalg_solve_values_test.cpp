// cholesky, solve, triangular_solve, lstsq, inv, det, slogdet, matrix_norm, vector_norm: values
// for every dtype, on the direct small loops (n <= 16) and on LAPACK/BLAS (larger), with batch
// broadcasting, vector right-hand sides, strided inputs and empty shapes.
#include "linalg/linalg_test_util.hpp"

using namespace tenferro;
using namespace tenferro::linalg_test;

namespace {

const std::int64_t kOrders[] = {1, 2, 3, 5, 16, 17, 40};

TEST(LinalgCholesky, LowerAndUpperReadOneTriangle) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : kOrders) {
      const std::string what = std::string(dtype_name(dt)) + " n=" + std::to_string(n);
      const Tensor a = spd(random({2, n, n}, 3 + static_cast<std::uint64_t>(n), dt));
      const double t = tol(dt, n) * max_abs(a);
      // Garbage in the unread triangle.
      const Tensor lower_only = tril(a) + triu(random({2, n, n}, 99, dt), 1);
      const Tensor L = cholesky(lower_only);
      EXPECT_EQ(max_abs(triu(L, 1)), 0.0) << what;
      EXPECT_LE(max_abs(matmul(L, mH(L)) - a), t) << what;
      for (c128 v : values(diagonal(L))) EXPECT_GT(v.real(), 0.0) << what;
      const Tensor upper_only = triu(a) + tril(random({2, n, n}, 98, dt), -1);
      const Tensor U = cholesky(upper_only, true);
      EXPECT_EQ(max_abs(tril(U, -1)), 0.0) << what;
      EXPECT_LE(max_abs(matmul(mH(U), U) - a), t) << what;
    }
}

TEST(LinalgSolve, MatrixAndVectorRightHandSidesWithBroadcasting) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : kOrders) {
      const std::string what = std::string(dtype_name(dt)) + " n=" + std::to_string(n);
      const Tensor a = random({3, n, n}, 11 + static_cast<std::uint64_t>(n), dt) +
                       eye(n, dt) * static_cast<double>(n);
      const double t = tol(dt, n) * 10;
      const Tensor b = random({3, n, 4}, 12, dt);
      EXPECT_LE(max_abs(matmul(a, solve(a, b)) - b), t * max_abs(b)) << what;
      const Tensor v = random({3, n}, 13, dt);  // a vector per batch entry
      const Tensor x = solve(a, v);
      ASSERT_EQ(x.shape(), (Dims{3, n})) << what;
      EXPECT_LE(max_abs(squeeze(matmul(a, unsqueeze(x, -1)), -1) - v), t * max_abs(v)) << what;
      const Tensor v1 = random({n}, 14, dt);  // one vector for every matrix
      EXPECT_EQ(solve(a, v1).shape(), (Dims{3, n})) << what;
      const Tensor b1 = random({n, 2}, 15, dt);  // b broadcast over a's batch
      EXPECT_LE(max_abs(matmul(a, solve(a, b1)) - b1), t * max_abs(b1)) << what;
      // a broadcast over b's batch, transposed (strided) a.
      const Tensor a0 = transpose(slice(a, 0, 0, 1));
      EXPECT_LE(max_abs(matmul(a0, solve(a0, b)) - b), t * max_abs(b)) << what;
    }
}

TEST(LinalgSolve, MixedDtypesPromote) {
  const Tensor a = eye(3, DType::f32) * 2.0;
  const Tensor b = ones({3}, DType::c128);
  const Tensor x = solve(a, b);
  EXPECT_EQ(x.dtype(), DType::c128);
  EXPECT_LE(max_abs(x - 0.5), 1e-7);
}

TEST(LinalgTriangularSolve, AllSidesAndTriangles) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {1, 3, 20})
      for (bool upper : {false, true})
        for (bool left : {false, true})
          for (bool unit : {false, true}) {
            const std::string what = std::string(dtype_name(dt)) + " n=" + std::to_string(n) +
                                     (upper ? " upper" : " lower") + (left ? " left" : " right") +
                                     (unit ? " unit" : "");
            const Tensor raw = random({2, n, n}, 21, dt) + eye(n, dt) * 4.0;
            const Tensor tri = upper ? (unit ? triu(raw, 1) + eye(n, dt) : triu(raw))
                                     : (unit ? tril(raw, -1) + eye(n, dt) : tril(raw));
            const Tensor b = left ? random({2, n, 3}, 22, dt) : random({2, 3, n}, 22, dt);
            const Tensor x = triangular_solve(raw, b, upper, left, unit);  // reads one triangle
            const Tensor back = left ? matmul(tri, x) : matmul(x, tri);
            EXPECT_LE(max_abs(back - b), tol(dt, n) * 10 * max_abs(b)) << what;
          }
}

TEST(LinalgLstsq, TallMinimisesAndWideIsMinimumNorm) {
  for (DType dt : {DType::f64, DType::c128, DType::f32}) {
    const Tensor a = random({2, 7, 3}, 31, dt), b = random({2, 7}, 32, dt);
    const Tensor x = lstsq(a, b);
    ASSERT_EQ(x.shape(), (Dims{2, 3}));
    // The residual is orthogonal to a's columns (normal equations).
    const Tensor r = squeeze(matmul(a, unsqueeze(x, -1)), -1) - b;
    EXPECT_LE(max_abs(matmul(mH(a), unsqueeze(r, -1))), tol(dt, 7) * 10) << dtype_name(dt);
    const Tensor w = random({3, 7}, 33, dt), c = random({3, 2}, 34, dt);
    const Tensor y = lstsq(w, c);
    ASSERT_EQ(y.shape(), (Dims{7, 2}));
    EXPECT_LE(max_abs(matmul(w, y) - c), tol(dt, 7) * 10) << dtype_name(dt);
    // Minimum norm: y lies in the row space of w, y = w^H z.
    const Tensor z = solve(matmul(w, mH(w)), c);
    EXPECT_LE(max_abs(matmul(mH(w), z) - y), tol(dt, 7) * 10) << dtype_name(dt);
  }
}

TEST(LinalgInvDet, InverseDeterminantAndSlogdet) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : kOrders) {
      const std::string what = std::string(dtype_name(dt)) + " n=" + std::to_string(n);
      const Tensor a = random({2, n, n}, 41 + static_cast<std::uint64_t>(n), dt) +
                       eye(n, dt) * static_cast<double>(n);
      EXPECT_LE(max_abs(matmul(inv(a), a) - eye(n, dt)), tol(dt, n) * 10) << what;
      // det = product of eigenvalues for a Hermitian matrix (scaled so f32 does not overflow).
      const Tensor h = hermitian(a) * (1.0 / static_cast<double>(n));
      const Tensor w = eigvalsh(h);
      const Tensor d = det(h);
      const double ref = prod(cast(w, DType::f64), {-1}).contiguous().to_vector<double>()[0];
      EXPECT_NEAR(values(d)[0].real(), ref, tol(dt, n) * 10 * std::abs(ref)) << what;
      const Tensor as = a * (1.0 / static_cast<double>(n));
      const SlogdetResult s = slogdet(as);
      EXPECT_EQ(s.logabsdet.dtype(), real_dtype(dt));
      EXPECT_EQ(s.sign.dtype(), dt);
      const Tensor rebuilt = s.sign * exp(s.logabsdet);
      EXPECT_LE(max_abs(rebuilt - det(as)), tol(dt, n) * max_abs(det(as))) << what;
      // log|det| of the unscaled matrix shifts by n log n and stays finite where det overflows.
      EXPECT_LE(max_abs(slogdet(a).logabsdet - s.logabsdet -
                        static_cast<double>(n) * std::log(static_cast<double>(n))),
                tol(dt, n) * 10 * static_cast<double>(n) * std::log(static_cast<double>(n) + 1))
          << what;
      for (c128 v : values(s.sign)) EXPECT_NEAR(std::abs(v), 1.0, 1e-5) << what;
    }
  // 2x2 closed form, a singular matrix (det 0, sign 0, log|det| -inf), the empty matrix (det 1).
  EXPECT_NEAR(det(from_values({1, 2, 3, 4}, {2, 2})).item<double>(), -2.0, 1e-14);
  const SlogdetResult z = slogdet(from_values({1, 2, 2, 4}, {2, 2}));
  EXPECT_EQ(z.sign.item<double>(), 0.0);
  EXPECT_EQ(z.logabsdet.item<double>(), -INFINITY);
  EXPECT_EQ(det(zeros({0, 0})).item<double>(), 1.0);
}

TEST(LinalgNorms, MatrixAndVectorNorms) {
  for (DType dt : kAllDtypes) {
    const Tensor a = random({2, 4, 3}, 51, dt);
    const Tensor s = svdvals(a);
    const double t = tol(dt, 4) * 10;
    EXPECT_LE(max_abs(matrix_norm(a) - norm(a, {-2, -1})), t);
    EXPECT_LE(max_abs(matrix_norm(a, MatrixNormOrd::nuc) - sum(s, {-1})), t);
    EXPECT_LE(max_abs(matrix_norm(a, MatrixNormOrd::spectral) - max(s, {-1})), t);
    EXPECT_EQ(matrix_norm(a, MatrixNormOrd::nuc, true).shape(), (Dims{2, 1, 1}));
    EXPECT_EQ(matrix_norm(zeros({2, 0, 3}, dt), MatrixNormOrd::spectral).shape(), (Dims{2}));
    const Tensor x = random({5, 6}, 52, dt), ax = abs(x);
    EXPECT_LE(max_abs(vector_norm(x) - norm(x)), t);
    EXPECT_LE(max_abs(vector_norm(x, 1) - sum(ax)), t * 10);
    EXPECT_LE(max_abs(vector_norm(x, INFINITY, {1}) - max(ax, {1})), t);
    EXPECT_LE(max_abs(vector_norm(x, -INFINITY, {1}) - min(ax, {1})), t);
    EXPECT_LE(max_abs(vector_norm(x, 3, {0}, true) - pow(sum(ax * ax * ax, {0}, true), 1.0 / 3)),
              t * 10);
    EXPECT_EQ(values(vector_norm(from_values({0, 2, 0, -1}, {4}), 0))[0].real(), 2.0);
  }
}

TEST(LinalgNorms, VectorNormOfNaNIsNaN) {
  // The general order's norm tested its sum with gt(s, 0) to keep the gradient of an all-zero
  // slice 0, and a NaN sum failed it: vector_norm([NaN, 5, 6], 3) was 0 (NumPy: NaN).
  for (DType dt : kAllDtypes)
    for (double ord : {3.0, 1.5, 0.5, -1.0, 2.0, 1.0, double(INFINITY)}) {
      const std::string what = std::string(dtype_name(dt)) + " ord " + std::to_string(ord);
      const Tensor x = from_values({NAN, 5, 6, 0, 3, 4}, {2, 3}, dt);
      const std::vector<c128> r = values(vector_norm(x, ord, {1}));
      EXPECT_TRUE(std::isnan(r[0].real())) << what << ": " << r[0];
      EXPECT_FALSE(std::isnan(r[1].real())) << what;
      EXPECT_TRUE(std::isnan(values(vector_norm(x, ord))[0].real())) << what;
    }
}

TEST(LinalgNorms, VectorNormOfHugeAndTinyValues) {
  // Note [Scaled p-norms]: sum |x|^p overflowed / underflowed long before the norm does (f64
  // vector_norm([1e200, 1e200], 3) was inf, of [1e-200, 1e-200] 0; f32 the same from ~1e13).
  // The norm is 1-homogeneous: ||s x|| / s must be ||x|| for every order and scale.
  for (DType dt : kAllDtypes) {
    const bool dbl = is_double_precision(dt);
    const Tensor x = random({3, 5}, 53, dt);
    for (double ord : {3.0, 4.0, 1.5, 0.5, -1.0, -2.0})
      for (double s : dbl ? std::vector<double>{1e200, 1e-200, 1e300, 1e-300}
                          : std::vector<double>{1e30, 1e-30, 1e13, 1e-13}) {
        const std::string what = std::string(dtype_name(dt)) + " ord " + std::to_string(ord) +
                                 " scale " + std::to_string(std::log10(s));
        const double t = tol(dt, 5) * 10;
        const Tensor ref = vector_norm(x, ord, {1});
        EXPECT_LE(max_abs(vector_norm(x * s, ord, {1}) / s - ref), t * max_abs(ref)) << what;
        const Tensor all = vector_norm(x, ord);
        EXPECT_LE(max_abs(vector_norm(x * s, ord) / s - all), t * max_abs(all)) << what;
        const Tensor kd = vector_norm(x * s, ord, {0}, true);
        EXPECT_EQ(kd.shape(), (Dims{1, 5})) << what;
        EXPECT_LE(max_abs(kd / s - vector_norm(x, ord, {0}, true)), t * max_abs(ref) * 10) << what;
      }
    // Inf, NaN and zero elements keep their meaning: an Inf element makes a p > 0 norm inf and
    // leaves a p < 0 norm finite; a zero element makes a p < 0 norm 0; NaN propagates.
    const Tensor special = cast(from_values({INFINITY, 1, 2, 0, 3, 4, NAN, 5, 6}, {3, 3}), dt);
    const std::vector<c128> p3 = values(vector_norm(special, 3.0, {1}));
    EXPECT_EQ(p3[0].real(), INFINITY);
    EXPECT_NEAR(p3[1].real(), std::cbrt(27.0 + 64.0), 1e-5 * 4.5);
    EXPECT_TRUE(std::isnan(p3[2].real()));
    const std::vector<c128> m1 = values(vector_norm(special, -1.0, {1}));
    EXPECT_NEAR(m1[0].real(), 1.0 / (1.0 + 0.5), 1e-6);
    EXPECT_EQ(m1[1].real(), 0.0);
    EXPECT_TRUE(std::isnan(m1[2].real()));
    EXPECT_EQ(values(vector_norm(zeros({2, 0}, dt), -1.0, {1}))[0].real(), INFINITY);
  }
}

TEST(LinalgEmpty, ZeroSizedBatchesAndMatrices) {
  EXPECT_EQ(cholesky(zeros({3, 0, 0})).shape(), (Dims{3, 0, 0}));
  EXPECT_EQ(solve(zeros({0, 2, 2}), zeros({0, 2})).shape(), (Dims{0, 2}));
  EXPECT_EQ(solve(eye(2, DType::f64), zeros({2, 0})).shape(), (Dims{2, 0}));
  EXPECT_EQ(inv(zeros({0, 0})).shape(), (Dims{0, 0}));
  EXPECT_EQ(slogdet(zeros({4, 0, 0})).logabsdet.shape(), (Dims{4}));
  EXPECT_EQ(triangular_solve(zeros({0, 3, 3}), zeros({0, 3, 1}), true).shape(), (Dims{0, 3, 1}));
}

}  // namespace
