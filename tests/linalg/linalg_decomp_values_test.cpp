// svd, svdvals, svd_truncated, eigh, eigvalsh, qr: reconstruction, orthonormality, ordering and
// shapes, for every dtype, on the built-in small kernels (dims <= 8) and on LAPACK (larger), with
// batches, strided (transposed / sliced) inputs and empty shapes.
#include "linalg/linalg_test_util.hpp"

using namespace tenferro;
using namespace tenferro::linalg_test;

namespace {

struct Shape2 {
  std::int64_t m, n;
};
const Shape2 kShapes[] = {{1, 1}, {2, 2}, {3, 2},  {2, 3},  {4, 4},  {5, 3},
                          {8, 8}, {9, 9}, {12, 7}, {7, 12}, {33, 20}};

void expect_svd(const Tensor& a, const SvdResult& r, bool full, const std::string& what) {
  const std::int64_t m = a.shape()[a.rank() - 2], n = a.shape()[a.rank() - 1], k = std::min(m, n);
  const DType dt = a.dtype();
  const double t = tol(dt, std::max(m, n)), scale = std::max(1.0, max_abs(a));
  ASSERT_EQ(r.S.dtype(), real_dtype(dt)) << what;
  ASSERT_EQ(r.S.shape().back(), k) << what;
  ASSERT_EQ(r.U.shape().back(), full ? m : k) << what;
  ASSERT_EQ(r.Vh.shape()[r.Vh.rank() - 2], full ? n : k) << what;
  const Tensor Uk = slice(r.U, -1, 0, k), Vhk = slice(r.Vh, -2, 0, k);
  EXPECT_LE(max_abs(matmul(Uk * unsqueeze(r.S, -2), Vhk) - a), t * scale) << what;
  EXPECT_LE(max_abs(matmul(mH(r.U), r.U) - eye(r.U.shape().back(), dt)), t) << what;
  EXPECT_LE(max_abs(matmul(r.Vh, mH(r.Vh)) - eye(r.Vh.shape()[r.Vh.rank() - 2], dt)), t) << what;
  const auto s = values(r.S);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_GE(s[i].real(), 0.0) << what;
    if (i % k != 0) EXPECT_LE(s[i].real(), s[i - 1].real()) << what << " descending at " << i;
  }
}

TEST(LinalgSvd, ReconstructsThinAndFullForEveryDtypeAndSize) {
  for (DType dt : kAllDtypes)
    for (Shape2 sh : kShapes) {
      const std::string what =
          std::string(dtype_name(dt)) + " " + std::to_string(sh.m) + "x" + std::to_string(sh.n);
      const Tensor a =
          random({3, sh.m, sh.n}, 7 + static_cast<std::uint64_t>(sh.m * 31 + sh.n), dt);
      expect_svd(a, svd(a), false, what + " thin");
      expect_svd(a, svd(a, true), true, what + " full");
      // svdvals computes the same values (values-only LAPACK path may differ in the last bits).
      EXPECT_LE(max_abs(svdvals(a) - svd(a).S), tol(dt, std::max(sh.m, sh.n)) * max_abs(a)) << what;
    }
}

TEST(LinalgSvd, StridedInputsAndRankDeficiency) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {3, 10}) {
      const Tensor base = random({2, n + 2, n}, 3, dt);
      expect_svd(transpose(base), svd(transpose(base)), false, "transposed view");
      expect_svd(slice(base, -2, 0, n + 2, 2), svd(slice(base, -2, 0, n + 2, 2)), false, "stepped");
      // Rank 1 (outer product) and zero matrices keep orthonormal factors.
      const Tensor x = random({2, n, 1}, 5, dt);
      const Tensor r1 = matmul(x, mH(x));
      const SvdResult r = svd(r1);
      expect_svd(r1, r, false, "rank 1");
      const auto s = values(r.S);
      EXPECT_LE(std::abs(s[1]), tol(dt, n) * std::abs(s[0])) << "second singular value of rank 1";
      const Tensor z = zeros({2, n, n}, dt);
      expect_svd(z, svd(z), false, "zero matrix");
      expect_svd(eye(n, dt), svd(eye(n, dt)), false, "identity (all singular values equal)");
    }
}

TEST(LinalgSvd, EmptyShapes) {
  const SvdResult a = svd(zeros({0, 3, 2}));
  EXPECT_EQ(a.U.shape(), (Dims{0, 3, 2}));
  EXPECT_EQ(a.S.shape(), (Dims{0, 2}));
  const SvdResult b = svd(zeros({2, 0, 3}));
  EXPECT_EQ(b.U.shape(), (Dims{2, 0, 0}));
  EXPECT_EQ(b.S.shape(), (Dims{2, 0}));
  EXPECT_EQ(b.Vh.shape(), (Dims{2, 0, 3}));
  const SvdResult c = svd(zeros({0, 3}), true);  // full: identities of the non-empty side
  EXPECT_EQ(c.Vh.shape(), (Dims{3, 3}));
  EXPECT_LE(max_abs(c.Vh - eye(3, DType::f64)), 0.0);
  EXPECT_EQ(svdvals(zeros({4, 0})).shape(), (Dims{0}));
}

TEST(LinalgSvdTruncated, KeepsTheLargestValuesByRankAndCutoff) {
  // Singular values 8, 4, 2, 1, 1e-9 by construction: a = Q1 diag(s) Q2.
  const Tensor q1 = qr(random({5, 5}, 1, DType::f64)).Q, q2 = qr(random({5, 5}, 2, DType::f64)).Q;
  const Tensor s = from_values({8, 4, 2, 1, 1e-9}, {5});
  const Tensor a = matmul(q1 * unsqueeze(s, -2), q2);
  EXPECT_EQ(svd_truncated(a, 3).S.shape(), (Dims{3}));
  EXPECT_EQ(svd_truncated(a, 0).S.shape(), (Dims{5}));
  EXPECT_EQ(svd_truncated(a, 0, 1e-6).S.shape(), (Dims{4}));  // 1e-9 < 1e-6 * 8
  EXPECT_EQ(svd_truncated(a, 2, 1e-6).S.shape(), (Dims{2}));
  EXPECT_EQ(svd_truncated(a, 0, 0.3).S.shape(), (Dims{2}));  // 8, 4 > 2.4
  const SvdResult t = svd_truncated(a, 2);
  EXPECT_EQ(t.U.shape(), (Dims{5, 2}));
  EXPECT_EQ(t.Vh.shape(), (Dims{2, 5}));
  EXPECT_NEAR(values(t.S)[1].real(), 4.0, 1e-12);
  // The truncation error is the discarded singular values.
  EXPECT_NEAR(norm(matmul(t.U * unsqueeze(t.S, -2), t.Vh) - a).item<double>(),
              std::sqrt(4.0 + 1.0 + 1e-18), 1e-12);
  // Batched: the rank is the largest count over the batch; a zero matrix still keeps one.
  const Tensor batch = stack({a, zeros({5, 5})});
  EXPECT_EQ(svd_truncated(batch, 0, 1e-6).S.shape(), (Dims{2, 4}));
  EXPECT_EQ(svd_truncated(zeros({3, 3}), 0, 0.5).S.shape(), (Dims{1}));
}

void expect_eigh(const Tensor& a, bool lower, const std::string& what) {
  const DType dt = a.dtype();
  const std::int64_t n = a.shape().back();
  const EighResult r = eigh(a, lower ? Uplo::lower : Uplo::upper);
  const Tensor h = hermitian(a, lower);
  const double t = tol(dt, n), scale = std::max(1.0, max_abs(h));
  ASSERT_EQ(r.eigenvalues.dtype(), real_dtype(dt)) << what;
  EXPECT_LE(max_abs(matmul(r.eigenvectors * unsqueeze(r.eigenvalues, -2), mH(r.eigenvectors)) - h),
            t * scale)
      << what;
  EXPECT_LE(max_abs(matmul(mH(r.eigenvectors), r.eigenvectors) - eye(n, dt)), t) << what;
  const auto w = values(r.eigenvalues);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (n > 0 && i % static_cast<std::size_t>(n) != 0)
      EXPECT_GE(w[i].real(), w[i - 1].real()) << what << " ascending at " << i;
  EXPECT_LE(max_abs(eigvalsh(a, lower ? Uplo::lower : Uplo::upper) - r.eigenvalues), t * scale)
      << what;
}

TEST(LinalgEigh, ReadsOneTriangleForEveryDtypeAndSize) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {1, 2, 3, 4, 8, 9, 24}) {
      // The other triangle is garbage on purpose: it must not be read.
      const Tensor a = random({2, n, n}, 40 + static_cast<std::uint64_t>(n), dt);
      const std::string what = std::string(dtype_name(dt)) + " n=" + std::to_string(n);
      expect_eigh(a, true, what + " lower");
      expect_eigh(a, false, what + " upper");
      expect_eigh(transpose(a), true, what + " transposed view");
    }
}

TEST(LinalgEigh, RepeatedEigenvaluesAndEmpty) {
  for (DType dt : kAllDtypes) {
    expect_eigh(eye(4, dt) * 3.0, true, "3 I");
    const Tensor q = qr(random({3, 3}, 9, dt)).Q;
    const Tensor d = cast(from_values({1, 1, 2}, {3}), dt);
    expect_eigh(matmul(q * unsqueeze(d, -2), mH(q)), true, "diagonal(1, 1, 2) rotated");
  }
  const EighResult e = eigh(zeros({2, 0, 0}));
  EXPECT_EQ(e.eigenvalues.shape(), (Dims{2, 0}));
  EXPECT_EQ(e.eigenvectors.shape(), (Dims{2, 0, 0}));
}

TEST(LinalgQr, ReducedAndCompleteForEveryDtypeAndSize) {
  for (DType dt : kAllDtypes)
    for (Shape2 sh : kShapes)
      for (QrMode mode : {QrMode::reduced, QrMode::complete}) {
        const bool complete = mode == QrMode::complete;
        const std::int64_t m = sh.m, n = sh.n, k = std::min(m, n), q = complete ? m : k;
        const std::string what = std::string(dtype_name(dt)) + " " + std::to_string(m) + "x" +
                                 std::to_string(n) + (complete ? " complete" : " reduced");
        const Tensor a = random({2, m, n}, 60 + static_cast<std::uint64_t>(m * 7 + n), dt);
        const QrResult r = qr(a, mode);
        ASSERT_EQ(r.Q.shape(), (Dims{2, m, q})) << what;
        ASSERT_EQ(r.R.shape(), (Dims{2, q, n})) << what;
        const double t = tol(dt, std::max(m, n));
        EXPECT_LE(max_abs(matmul(r.Q, r.R) - a), t * std::max(1.0, max_abs(a))) << what;
        EXPECT_LE(max_abs(matmul(mH(r.Q), r.Q) - eye(q, dt)), t) << what;
        EXPECT_EQ(max_abs(tril(r.R, -1)), 0.0) << what << ": R is exactly upper triangular";
        if (is_complex(dt))  // LAPACK's convention: R's diagonal is real
          for (c128 v : values(diagonal(r.R))) EXPECT_EQ(v.imag(), 0.0) << what;
      }
}

TEST(LinalgQr, SmallKernelFollowsLapacksSignConvention) {
  // The same matrix on the small kernel (16x16) and on LAPACK (embedded in a 17x17 block-diagonal
  // matrix with a trailing 1): Householder with xLARFG's convention gives the same R diagonal
  // signs, so the leading 8x8 blocks of Q and R agree.
  for (DType dt : {DType::f64, DType::c128}) {
    const Tensor a = random({16, 16}, 77, dt);

    const Tensor big = concatenate({concatenate({a, zeros({16, 1}, dt)}, 1),
                                    concatenate({zeros({1, 16}, dt), ones({1, 1}, dt)}, 1)},
                                   0);
    const QrResult s = qr(a), l = qr(big);
    EXPECT_LE(max_abs(slice(slice(l.R, 0, 0, 16), 1, 0, 16) - s.R), 1e-12) << dtype_name(dt);
    EXPECT_LE(max_abs(slice(slice(l.Q, 0, 0, 16), 1, 0, 16) - s.Q), 1e-12) << dtype_name(dt);
  }
}

}  // namespace
