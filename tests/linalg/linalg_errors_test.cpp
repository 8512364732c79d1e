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
