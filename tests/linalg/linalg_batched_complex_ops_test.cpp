// The batched complex cholesky / lu / qr / eigh / svd kernels seen through the public ops (Note
// [Batched small linalg kernels]; kernel-level bitwise checks: linalg_batched_complex_test.cpp and
// linalg_batched_complex_decomp_test.cpp).
//
// Why: a matrix's result must not depend on its batch position, its tile-mates, the chunking or
// the thread count, whichever path (batched tile or scalar loop) the dispatch takes. So:
//   - cholesky (read through transposed strides) / solve / lu_factor / det / slogdet / inv / qr
//     (square and tall) / eigh / eigvalsh / svd (square and tall) / svdvals of a c64 / c128 batch
//     of 37 at thread budgets 1 and 4 (both kinds): matrices at positions 0, 3, 17 and 36 equal,
//     bitwise, the same matrix computed alone and unbatched, and in a batch shifted by one; the
//     results are right (L L^H = p, h x = rhs, Q R = h, H V = V W, U S Vh = h);
//   - errors name the lowest failing batch index whatever tile it is in (cholesky, solve; NaN / Inf
//     input of svd / eigh), and a NaN lane leaves its tile-mates' determinants unchanged; a NaN /
//     Inf matrix in a qr batch (no error) takes the scalar kernel and leaves its tile-mates
//     unchanged;
//   - a batch of 301 (many tiles, chunked differently) gives the same bits at 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/expect_error.hpp"
#include "linalg/linalg_test_util.hpp"

namespace {

using namespace tenferro;
using namespace tenferro::linalg_test;
using tenferro::testing::expect_error;

std::vector<Tensor> factor_solve(const Tensor& h, const Tensor& p, const Tensor& rhs) {
  const LuFactorResult fh = lu_factor(h);
  const SlogdetResult sd = slogdet(h);
  const QrResult qh = qr(h), qr_rhs = qr(rhs);  // square and tall
  const EighResult eh = eigh(h);                // its lower triangle's Hermitian matrix
  const SvdResult sh = svd(h), sr = svd(rhs);
  return {cholesky(p), solve(h, rhs), fh.LU, fh.pivots, det(h),     sd.sign,        sd.logabsdet,
          inv(h),      qh.Q,          qh.R,  qr_rhs.Q,  qr_rhs.R,   eh.eigenvalues, eh.eigenvectors,
          eigvalsh(h), sh.U,          sh.S,  sh.Vh,     svdvals(h), sr.U,           sr.S,
          sr.Vh};
}

TEST(LinalgBatchedComplex, MatrixResultIndependentOfBatchPositionAndThreads) {
  const std::int64_t kBatch = 37;
  for (DType dt : {DType::c64, DType::c128})
    for (std::int64_t n : {2, 3, 4, 8, 16}) {
      const Tensor h = random({kBatch + 1, n, n}, 12, dt);
      // Computed once (a batched matmul need not round as a single one), then sliced; p read
      // through transposed strides (the transpose of a Hermitian positive definite matrix is one).
      const Tensor p = transpose(spd(random({kBatch + 1, n, n}, 13, dt)).contiguous());
      const Tensor rhs = random({kBatch + 1, n, 3}, 14, dt);
      auto part = [](const Tensor& t, std::int64_t b0, std::int64_t b1) {
        return slice(t, 0, b0, b1);
      };
      std::vector<Tensor> ref;
      for (BackendKind kind : {BackendKind::native, BackendKind::blas})
        for (int threads : {1, 4}) {
          const CpuBackend backend(CpuBackendOptions{.threads = threads, .kind = kind});
          BackendGuard use(backend);
          const std::vector<Tensor> whole =
              factor_solve(part(h, 0, kBatch), part(p, 0, kBatch), part(rhs, 0, kBatch));
          const std::vector<Tensor> shifted = factor_solve(
              part(h, 1, kBatch + 1), part(p, 1, kBatch + 1), part(rhs, 1, kBatch + 1));
          if (ref.empty()) ref = whole;
          for (std::size_t i = 0; i < whole.size(); ++i)
            EXPECT_TRUE(bitwise_equal(whole[i], ref[i]))
                << "output " << i << " at " << threads << " threads";
          for (std::int64_t pos : {0, 3, 17, 36}) {
            const std::string where = std::string(dtype_name(dt)) + " n=" + std::to_string(n) +
                                      " position " + std::to_string(pos) + " threads " +
                                      std::to_string(threads);
            const std::vector<Tensor> alone =
                factor_solve(part(h, pos, pos + 1), part(p, pos, pos + 1), part(rhs, pos, pos + 1));
            const std::vector<Tensor> unbatched =
                factor_solve(at(h, pos), at(p, pos), at(rhs, pos));
            for (std::size_t i = 0; i < whole.size(); ++i) {
              EXPECT_TRUE(bitwise_equal(at(whole[i], pos), at(alone[i], 0)))
                  << "output " << i << " alone, " << where;
              EXPECT_TRUE(bitwise_equal(at(whole[i], pos), unbatched[i]))
                  << "output " << i << " unbatched, " << where;
              if (pos + 1 < kBatch) {
                EXPECT_TRUE(bitwise_equal(at(whole[i], pos + 1), at(shifted[i], pos)))
                    << "output " << i << " shifted, " << where;
              }
            }
          }
          // And the results are right: L L^H = p, h x = rhs, Q R = h.
          const Tensor l = whole[0], x = whole[1];
          const Tensor pw = part(p, 0, kBatch), hw = part(h, 0, kBatch);
          EXPECT_LT(max_abs(matmul(l, mH(l)) - pw), tol(dt, n) * max_abs(pw));
          EXPECT_LT(max_abs(matmul(hw, x) - part(rhs, 0, kBatch)),
                    100 * tol(dt, n) * max_abs(hw) * max_abs(x));
          EXPECT_LT(max_abs(matmul(whole[8], whole[9]) - hw), tol(dt, n) * max_abs(hw));
          const Tensor hh = hermitian(hw), ev = whole[13];
          const Tensor wv = cast(whole[12], dt).unsqueeze(1);  // [B, 1, n]
          EXPECT_LT(max_abs(matmul(hh, ev) - ev * wv), tol(dt, n) * max_abs(hh));
          const Tensor us = whole[15] * cast(whole[16], dt).unsqueeze(1);  // U diag(S)
          EXPECT_LT(max_abs(matmul(us, whole[17]) - hw), tol(dt, n) * max_abs(hw));
        }
    }
}

TEST(LinalgBatchedComplex, NonFiniteQrMatrixDoesNotTouchItsTileMates) {
  // qr reports no error for NaN / Inf: such a matrix leaves its tile for the scalar kernel, and
  // every matrix is bitwise the scalar kernel's (the matrix alone).
  for (DType dt : {DType::c64, DType::c128})
    for (std::int64_t n : {4, 8}) {
      const Tensor base = random({19, n, n}, 41, dt);
      std::vector<Tensor> ms;
      for (std::int64_t b = 0; b < 19; ++b)
        ms.push_back(b == 1 ? at(base, b) * NAN : b == 2 ? at(base, b) * INFINITY : at(base, b));
      const Tensor all = stack(ms);
      const QrResult whole = qr(all);
      for (std::int64_t b : {0, 1, 2, 3, 9}) {
        const QrResult alone = qr(at(all, b));
        EXPECT_TRUE(bitwise_equal(at(whole.Q, b), alone.Q)) << b;
        EXPECT_TRUE(bitwise_equal(at(whole.R, b), alone.R)) << b;
      }
    }
}

TEST(LinalgBatchedComplex, CholeskyAndSolveErrorsNameLowestBatchIndex) {
  for (DType dt : {DType::c64, DType::c128})
    for (std::int64_t n : {4, 8}) {
      const Tensor p = spd(random({37, n, n}, 51, dt)).contiguous();
      const Tensor g = random({37, n, n}, 52, dt);
      std::vector<Tensor> ps, gs;
      for (std::int64_t b = 0; b < 37; ++b) {
        Tensor pb = at(p, b), gb = at(g, b);
        if (b == 5 || b == 30) {  // minor of order 4 (b == 5) / 1 (b == 30) not positive
          const std::int64_t k = b == 5 ? 3 : 0;
          pb = pb - diag_embed(slice(eye(n, dt), 0, k, k + 1).reshape({n})) * 1e6;
        }
        if (b == 9 || b == 33)  // column 2 zero: U[2, 2] == 0
          gb = gb * diag_embed(ones({n}, dt) - slice(eye(n, dt), 0, 2, 3).reshape({n}));
        if (b == 20) gb = gb * NAN;  // NaN lanes do not disturb their tile-mates
        ps.push_back(pb);
        gs.push_back(gb);
      }
      const Tensor pf = stack(ps), gf = stack(gs), rhs = random({37, n, 2}, 53, dt);
      for (int threads : {1, 4}) {
        const CpuBackend backend(CpuBackendOptions{.threads = threads});
        BackendGuard use(backend);
        expect_error(ErrorKind::LinAlgError, [&] { (void)cholesky(pf); },
                     {"cholesky", "batch index 5", "order 4"});
        expect_error(ErrorKind::LinAlgError, [&] { (void)solve(gf, rhs); },
                     {"solve", "batch index 9", "U[2, 2]"});
        const Tensor d = det(gf);
        EXPECT_EQ(values(at(d, 9))[0], c128(0));
        EXPECT_EQ(values(at(d, 33))[0], c128(0));
        EXPECT_TRUE(std::isnan(values(at(d, 20))[0].real()));
        for (std::int64_t b : {19, 21}) EXPECT_TRUE(bitwise_equal(at(d, b), det(at(gf, b)))) << b;
      }
    }
}

TEST(LinalgBatchedComplex, NonFiniteSvdEighInputNamesLowestBatchIndex) {
  // svd / eigh leave a NaN / Inf matrix out of its tile and report the lowest such batch index.
  for (DType dt : {DType::c64, DType::c128})
    for (std::int64_t n : {2, 4, 8}) {
      const Tensor base = random({37, n, n}, 31, dt);
      std::vector<Tensor> ms;
      for (std::int64_t b = 0; b < 37; ++b)
        ms.push_back(b == 17 ? at(base, b) * NAN : b == 20 ? at(base, b) * INFINITY : at(base, b));
      const Tensor a = stack(ms);
      for (int threads : {1, 4}) {
        const CpuBackend backend(CpuBackendOptions{.threads = threads});
        BackendGuard use(backend);
        expect_error(ErrorKind::LinAlgError, [&] { (void)svd(a); }, {"svd", "batch index 17"});
        expect_error(ErrorKind::LinAlgError, [&] { (void)svdvals(a); }, {"batch index 17"});
        expect_error(ErrorKind::LinAlgError, [&] { (void)eigh(a); }, {"eigh", "batch index 17"});
        expect_error(ErrorKind::LinAlgError, [&] { (void)eigvalsh(a); }, {"batch index 17"});
      }
    }
}

TEST(LinalgBatchedComplex, LargeBatchSplitAcrossThreadsAgreesBitwise) {
  // 301 matrices: many tiles, chunked differently per thread count, and a short last tile.
  for (DType dt : {DType::c64, DType::c128}) {
    const Tensor a = random({301, 6, 6}, 21, dt);
    const Tensor p = spd(random({301, 6, 6}, 22, dt)).contiguous();
    std::vector<Tensor> ref;
    for (int threads : {1, 2, 4}) {
      const CpuBackend backend(CpuBackendOptions{.threads = threads});
      BackendGuard use(backend);
      const SvdResult s = svd(a);
      const EighResult e = eigh(a);
      const QrResult q = qr(a);
      const std::vector<Tensor> r{s.U, s.S,         s.Vh,   e.eigenvalues, e.eigenvectors, q.Q,
                                  q.R, cholesky(p), det(a), inv(a),        lu_factor(a).LU};
      if (ref.empty()) ref = r;
      for (std::size_t i = 0; i < r.size(); ++i)
        EXPECT_TRUE(bitwise_equal(r[i], ref[i])) << "output " << i << " at " << threads;
    }
  }
}

}  // namespace
