// Bad input to the linear-algebra ops: typed errors naming the op, the shapes and (for numerical
// failures) the batch index; NaN/Inf never hang or crash; nothing is written into the caller's
// tensors; data-dependent truncation is refused inside trace().
#include "common/expect_error.hpp"
#include "linalg/linalg_test_util.hpp"

using namespace tenferro;
using namespace tenferro::linalg_test;
using tenferro::testing::expect_error;

namespace {

TEST(LinalgErrors, ShapesAndRanks) {
  const Tensor v = ones({3}), rect = ones({2, 3}), sq = eye(3, DType::f64);
  for (auto f : std::initializer_list<std::function<void()>>{
           [&] { (void)svd(v); }, [&] { (void)svdvals(v); }, [&] { (void)qr(v); },
           [&] { (void)eigh(v); }, [&] { (void)cholesky(v); }, [&] { (void)inv(v); },
           [&] { (void)det(v); }, [&] { (void)slogdet(v); }, [&] { (void)matrix_norm(v); },
           [&] { (void)solve(v, v); }, [&] { (void)lstsq(v, v); },
           [&] { (void)triangular_solve(v, rect, true); }, [&] { (void)svd_truncated(v, 1); }})
    expect_error(ErrorKind::ShapeMismatch, f, {"[3]"});
  for (auto f : std::initializer_list<std::function<void()>>{
           [&] { (void)eigh(rect); }, [&] { (void)eigvalsh(rect); }, [&] { (void)cholesky(rect); },
           [&] { (void)inv(rect); }, [&] { (void)det(rect); }, [&] { (void)slogdet(rect); },
           [&] { (void)solve(rect, ones({2})); },
           [&] { (void)triangular_solve(rect, rect, true); }})
    expect_error(ErrorKind::ShapeMismatch, f, {"square", "[2, 3]"});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)solve(sq, ones({4})); }, {"solve"});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)solve(sq, ones({2, 4, 1})); }, {"solve"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)solve(ones({2, 3, 3}), ones({3, 3, 1}));
               },
               {"broadcast"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)triangular_solve(sq, ones({2, 3}), true, true);
               },
               {"triangular_solve"});
  expect_error(ErrorKind::ShapeMismatch, [&] { (void)lstsq(rect, ones({3})); }, {"lstsq"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)svd(Tensor()); }, {"svd"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)solve(sq, Tensor()); }, {"solve"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)vector_norm(v, NAN); }, {"ord"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)svd_truncated(sq, 1, -1.0); }, {"cutoff"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)svd_truncated(sq, 1, NAN); }, {"cutoff"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)svd(sq, SvdOptions{false, NAN});
               },
               {"svd", "degeneracy_eps"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)eigh(sq, EighOptions{Uplo::lower, NAN});
               },
               {"eigh", "degeneracy_eps"});
  // An infinite broadening is refused as NaN is (it silently zeroed every off-diagonal term of
  // the derivative); a negative finite one stays the dtype's default.
  for (double eps : {INFINITY, -INFINITY}) {
    expect_error(ErrorKind::InvalidArgument,
                 [&] {
                   (void)svd(sq, SvdOptions{false, eps});
                 },
                 {"svd", "degeneracy_eps", "inf"});
    expect_error(ErrorKind::InvalidArgument,
                 [&] {
                   (void)eigh(sq, EighOptions{Uplo::lower, eps});
                 },
                 {"eigh", "degeneracy_eps", "inf"});
  }
  EXPECT_NO_THROW((void)svd(sq, SvdOptions{false, -3.0}));
}

TEST(LinalgErrors, SingularMatrixNamesTheBatchIndex) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {3, 20}) {  // small loops and LAPACK
      Tensor a = random({3, n, n}, 5, dt) + eye(n, dt) * static_cast<double>(n);
      // Batch entry 1: a zero row makes it exactly singular.
      a = concatenate({slice(a, 0, 0, 1),
                       unsqueeze(concatenate({zeros({1, n}, dt), slice(at(a, 1), 0, 1, n)}, 0), 0),
                       slice(a, 0, 2, 3)},
                      0);
      const Tensor b = random({3, n}, 6, dt);
      const std::vector<c128> a_before = values(a), b_before = values(b);
      expect_error(ErrorKind::LinAlgError, [&] { (void)solve(a, b); },
                   {"solve", "batch index 1", "singular"});
      expect_error(ErrorKind::LinAlgError, [&] { (void)inv(a); },
                   {"inv: ", "batch index 1", "singular"});
      EXPECT_EQ(values(a), a_before) << "inputs untouched after the error";
      EXPECT_EQ(values(b), b_before);
      // det of a singular matrix is 0 (no error).
      EXPECT_EQ(values(det(a))[1], c128(0.0));
    }
}

TEST(LinalgErrors, NotPositiveDefiniteNamesTheMinor) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {4, 24}) {
      // Batch entry 1 gets a[1][1, 1] = -1: its leading minor of order 2 is not positive.
      std::vector<c128> v = values(spd(random({2, n, n}, 7, dt)));
      v[static_cast<std::size_t>(n * n + n + 1)] = -1.0;
      const Tensor a = cast(from_vector<c128>(v, {2, n, n}), dt);
      expect_error(ErrorKind::LinAlgError, [&] { (void)cholesky(a); },
                   {"cholesky", "batch index 1", "order 2", "not positive definite"});
    }
}

// NaN in the lower triangle cholesky reads is "not positive definite" at the order of the first
// minor it reaches, on the small loops and on LAPACK's potrf (n > 16) alike: OpenBLAS's potrf let
// it through as a factor full of NaN.
TEST(LinalgErrors, CholeskyOfNaNIsNotPositiveDefiniteAtEveryOrder) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {4, 16, 17, 40})
      for (auto [row, col] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {n - 1, 0}, {2, 1}}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " n " + std::to_string(n) + " at " +
                     std::to_string(row) + "," + std::to_string(col));
        std::vector<c128> v = values(spd(random({3, n, n}, 9, dt)));
        v[static_cast<std::size_t>(2 * n * n + row * n + col)] = NAN;
        const Tensor a = cast(from_vector<c128>(v, {3, n, n}), dt);
        const std::string order = "order " + std::to_string(row + 1);
        expect_error(ErrorKind::LinAlgError, [&] { (void)cholesky(a); },
                     {"cholesky", "batch index 2", order.c_str()});
        // An Inf below the diagonal makes that row's pivot NaN (inf - inf or -inf): the same.
        if (col < row) {
          v[static_cast<std::size_t>(2 * n * n + row * n + col)] = INFINITY;
          const Tensor b = cast(from_vector<c128>(v, {3, n, n}), dt);
          expect_error(ErrorKind::LinAlgError, [&] { (void)cholesky(b); },
                       {"batch index 2", order.c_str()});
        }
      }
}

TEST(LinalgErrors, NonFiniteInput) {
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {3, 12}) {
      Tensor a = random({2, n, n}, 8, dt);
      a = stack({at(a, 0), at(a, 1) * NAN});
      expect_error(ErrorKind::LinAlgError, [&] { (void)svd(a); }, {"svd", "batch index 1", "NaN"});
      expect_error(ErrorKind::LinAlgError, [&] { (void)svdvals(a); }, {"batch index 1"});
      expect_error(ErrorKind::LinAlgError, [&] { (void)eigh(a); }, {"eigh", "batch index 1"});
      expect_error(ErrorKind::LinAlgError, [&] { (void)eigvalsh(a * INFINITY); }, {"eigvalsh"});
      // Documented NaN results (no iteration that could fail to converge).
      const Tensor x = solve(at(a, 1) + eye(n, dt), ones({n}, dt));
      for (c128 v : values(x)) EXPECT_TRUE(std::isnan(v.real()) || std::isnan(v.imag()));
      (void)qr(a);  // NaN propagates through Householder, no error
      expect_error(ErrorKind::LinAlgError, [&] { (void)cholesky(a); }, {"batch index 0"});
    }
}

// eigh / eigvalsh read one triangle and the real part of the diagonal (docs/linalg.md): NaN or Inf
// in the other triangle, or in the imaginary part of the diagonal, is not read, so it is no error
// and the results are bitwise those of the Hermitian matrix the read triangle defines (as NumPy's
// eigh); NaN or Inf in what is read is still LinAlgError naming the lowest such batch index. Sizes:
// 2 (real: scalar kernel; complex: batched), 4 and 8 (batched tiles), 12 and 40 (LAPACK).
Tensor with_values(const std::vector<c128>& v, Dims shape, DType dt) {
  if (is_complex(dt)) return cast(from_vector<c128>(v, shape), dt);
  std::vector<double> r;
  for (c128 x : v) r.push_back(x.real());
  return cast(from_vector<double>(r, shape), dt);
}

TEST(LinalgErrors, EighIgnoresNonFiniteInTheUnreadTriangle) {
  const std::int64_t batch = 19;  // more than one tile of lanes
  for (DType dt : kAllDtypes)
    for (std::int64_t n : {2, 4, 8, 12, 40})
      for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
        const bool lower = uplo == Uplo::lower;
        SCOPED_TRACE(std::string(dtype_name(dt)) + " n=" + std::to_string(n) +
                     (lower ? " lower" : " upper"));
        const Dims shape{batch, n, n};
        const Tensor base = random(shape, 41, dt);
        const Tensor ref = hermitian(base, lower);
        const std::vector<c128> v0 = values(base);
        // Index of element (i, j), i > j, of the read (read = true) or unread triangle of matrix b.
        auto at_ = [&](std::int64_t b, std::int64_t i, std::int64_t j, bool read) {
          const bool swap = read != lower;
          return static_cast<std::size_t>((b * n + (swap ? j : i)) * n + (swap ? i : j));
        };
        std::vector<c128> v = v0;
        v[at_(5, n - 1, 0, false)] = NAN;     // matrix 5: one NaN not read
        v[at_(9, 1, 0, false)] = INFINITY;    // matrix 9: one Inf not read
        for (std::int64_t i = 1; i < n; ++i)  // matrix 13: the whole unread triangle NaN
          for (std::int64_t j = 0; j < i; ++j) v[at_(13, i, j, false)] = c128(NAN, NAN);
        if (is_complex(dt))  // matrix 2: the imaginary part of a diagonal element NaN
          v[at_(2, n - 1, n - 1, true)] = c128(v0[at_(2, n - 1, n - 1, true)].real(), NAN);
        const Tensor a = with_values(v, shape, dt);
        const EighResult e = eigh(a, uplo), r = eigh(ref, uplo);
        EXPECT_TRUE(bitwise_equal(e.eigenvalues, r.eigenvalues));
        EXPECT_TRUE(bitwise_equal(e.eigenvectors, r.eigenvectors));
        const Tensor rw = eigvalsh(ref, uplo);
        EXPECT_TRUE(bitwise_equal(eigvalsh(a, uplo), rw));
        for (std::int64_t b : {2, 5, 9, 13}) {  // one matrix alone (a tile of one lane)
          const EighResult eb = eigh(at(a, b), uplo);
          EXPECT_TRUE(bitwise_equal(eb.eigenvalues, at(r.eigenvalues, b))) << b;
          EXPECT_TRUE(bitwise_equal(eb.eigenvectors, at(r.eigenvectors, b))) << b;
          EXPECT_TRUE(bitwise_equal(eigvalsh(at(a, b), uplo), at(rw, b))) << b;
        }
        // What is read: an off-diagonal NaN in matrix 7, or Inf in the real part of a diagonal
        // element in matrix 3, is still an error.
        std::vector<c128> w = v;
        w[at_(7, n - 1, 0, true)] = NAN;
        const Tensor a7 = with_values(w, shape, dt);
        expect_error(ErrorKind::LinAlgError, [&] { (void)eigh(a7, uplo); },
                     {"eigh", "batch index 7", "NaN"});
        expect_error(ErrorKind::LinAlgError, [&] { (void)eigvalsh(a7, uplo); },
                     {"eigvalsh", "batch index 7"});
        w[at_(3, 1, 1, true)] = INFINITY;
        const Tensor a3 = with_values(w, shape, dt);
        expect_error(ErrorKind::LinAlgError, [&] { (void)eigh(a3, uplo); }, {"batch index 3"});
        expect_error(ErrorKind::LinAlgError, [&] { (void)eigvalsh(a3, uplo); }, {"batch index 3"});
      }
}

TEST(LinalgErrors, EighIgnoresNonFiniteInTheUnreadTriangleTracedAndInGradients) {
  // The prepared (traced) program and the derivative rules (which call eigh again) see the same.
  for (std::int64_t n : {4, 40})
    for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
      const bool lower = uplo == Uplo::lower;
      const Dims shape{3, n, n};
      const Tensor base = random(shape, 43, DType::f64);
      const Tensor ref = hermitian(base, lower);
      const Tensor nan_unread = lower ? triu(full(shape, NAN), 1) : tril(full(shape, NAN), -1);
      const Tensor a = (lower ? tril(base) : triu(base)) + nan_unread;
      auto f = [uplo](std::span<const Tensor> x) {
        const EighResult e = eigh(x[0], uplo);
        return std::vector<Tensor>{e.eigenvalues, e.eigenvectors, eigvalsh(x[0], uplo)};
      };
      auto loss = [uplo](std::span<const Tensor> x) {
        const EighResult e = eigh(x[0], uplo);
        const Tensor p = matmul(e.eigenvectors * unsqueeze(e.eigenvalues, -2), mH(e.eigenvectors));
        return sum(p * p) + sum(square(eigvalsh(x[0], uplo)));
      };
      Runtime rt;
      const PreparedProgram prog = rt.prepare(trace(f, {ValueSpec{shape}}));
      const std::vector<Tensor> got = rt.run(prog, {a}), want = rt.run(prog, {ref});
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(bitwise_equal(got[i], want[i])) << "n=" << n << " output " << i;
      const Tensor g = grad(loss, {a})[0], g_ref = grad(loss, {ref})[0];
      EXPECT_TRUE(bitwise_equal(g, g_ref)) << "n=" << n;
      const PreparedProgram gp = rt.prepare(grad(trace(loss, {ValueSpec{shape}})));
      EXPECT_TRUE(bitwise_equal(rt.run(gp, {a})[0], g_ref)) << "n=" << n;
    }
}

TEST(LinalgErrors, CutoffInsideTraceIsUnsupported) {
  expect_error(ErrorKind::Unsupported,
               [] {
                 (void)trace(
                     [](std::span<const Tensor> x) { return svd_truncated(x[0], 2, 1e-3).S; },
                     {ValueSpec{{4, 4}}});
               },
               {"svd_truncated", "cutoff", "max_rank"});
  // Without a cutoff the rank is known from the shape: traceable, and it agrees with eager.
  Program p = trace([](std::span<const Tensor> x) { return svd_truncated(x[0], 2).S; },
                    {ValueSpec{{4, 4}}});
  const Tensor a = random({4, 4}, 9, DType::f64);
  EXPECT_LE(max_abs(p({a})[0] - svd_truncated(a, 2).S), 0.0);
}

TEST(LinalgErrors, DerivativeOfTallCompleteQrIsUnsupported) {
  const Tensor a = random({4, 2}, 10, DType::f64);
  expect_error(ErrorKind::Unsupported,
               [&] {
                 (void)grad(
                     [](std::span<const Tensor> x) { return sum(qr(x[0], QrMode::complete).R); },
                     {a});
               },
               {"qr", "m <= n"});
}

}  // namespace
