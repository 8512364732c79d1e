// Eager, prepared (traced) and in-scope runs of the linear-algebra ops agree bitwise, at thread
// budgets 1 and 4 and for both backend kinds: each matrix is computed by the same single-threaded
// code whatever the chunking (Note [Linalg provider rules]). Sizes cover the small kernels, LAPACK,
// and batches large enough to be split across threads. Gradient programs are included.
#include "linalg/linalg_test_util.hpp"

using namespace tenferro;
using namespace tenferro::linalg_test;

extern "C" void openblas_set_num_threads(int num_threads);
extern "C" int openblas_get_num_threads(void);

namespace {

// Every op family in one function of (a general, h Hermitian/PD, b right-hand sides).
std::vector<Tensor> all_ops(std::span<const Tensor> x) {
  const Tensor& a = x[0];
  const Tensor& h = x[1];
  const Tensor& b = x[2];
  const SvdResult s = svd(a);
  const EighResult e = eigh(h);
  const QrResult q = qr(a);
  const SlogdetResult d = slogdet(a);
  return {s.U,
          s.S,
          s.Vh,
          svdvals(a),
          e.eigenvalues,
          e.eigenvectors,
          q.Q,
          q.R,
          cholesky(h),
          solve(a, b),
          triangular_solve(q.R, b, true),
          d.sign,
          d.logabsdet,
          inv(a),
          lstsq(a, b)};
}

// A scalar loss through the differentiable ops (gauge-invariant in U, V and eigenvectors).
Tensor loss(std::span<const Tensor> x) {
  const Tensor& a = x[0];
  const Tensor& h = x[1];
  const Tensor& b = x[2];
  const EighResult e = eigh(h);
  const Tensor proj = matmul(e.eigenvectors * unsqueeze(e.eigenvalues, -2), mH(e.eigenvectors));
  return sum(svdvals(a)) + sum(proj * proj) + sum(square(solve(a, b))) + sum(cholesky(h)) +
         sum(slogdet(a).logabsdet) + sum(square(qr(a).R));
}

struct Case {
  std::int64_t batch, n;
};
const Case kCases[] = {{3, 3}, {64, 4}, {2, 12}, {40, 10}};

std::vector<Tensor> inputs(const Case& c) {
  const Dims s{c.batch, c.n, c.n};
  return {random(s, 1, DType::f64) + eye(c.n, DType::f64) * 2.0, spd(random(s, 2, DType::f64)),
          random({c.batch, c.n, 2}, 3, DType::f64)};
}

std::vector<ValueSpec> specs(const Case& c) {
  return {ValueSpec{{c.batch, c.n, c.n}}, ValueSpec{{c.batch, c.n, c.n}},
          ValueSpec{{c.batch, c.n, 2}}};
}

std::vector<Tensor> eager_grad(std::span<const Tensor> x) { return grad(loss, x); }

// The results of every mode on one backend: eager, in scope, prepared, prepared in scope.
std::vector<std::vector<Tensor>> run_modes(const CpuBackend& backend, const Case& c) {
  const std::vector<Tensor> in = inputs(c);
  Runtime rt(backend);
  const PreparedProgram ops = rt.prepare(trace(all_ops, specs(c)));
  const PreparedProgram g = rt.prepare(grad(trace(loss, specs(c))));
  std::vector<std::vector<Tensor>> out;
  auto eager = [&] {
    std::vector<Tensor> r = all_ops(in);
    for (Tensor& t : eager_grad(in)) r.push_back(t);
    return r;
  };
  auto prepared = [&] {
    std::vector<Tensor> r = rt.run(ops, in);
    for (Tensor& t : rt.run(g, in)) r.push_back(t);
    return r;
  };
  {
    BackendGuard use(backend);
    out.push_back(eager());
  }
  out.push_back(prepared());
  backend.with_execution_scope([&] {
    out.push_back(eager());
    out.push_back(prepared());
  });
  return out;
}

TEST(LinalgModes, EagerPreparedAndScopeAgreeBitwiseAtBudgetsOneAndFour) {
  for (BackendKind kind : {BackendKind::native, BackendKind::blas})
    for (const Case& c : kCases) {
      SCOPED_TRACE(std::string(to_string(kind)) + " batch=" + std::to_string(c.batch) +
                   " n=" + std::to_string(c.n));
      std::vector<std::vector<Tensor>> ref;
      for (int threads : {1, 4}) {
        const CpuBackend backend(CpuBackendOptions{.threads = threads, .kind = kind});
        for (auto& results : run_modes(backend, c)) {
          if (ref.empty()) {
            ref.push_back(results);
            continue;
          }
          ASSERT_EQ(results.size(), ref[0].size());
          for (std::size_t i = 0; i < results.size(); ++i)
            EXPECT_TRUE(bitwise_equal(results[i], ref[0][i]))
                << "output " << i << " at " << threads << " threads differs from 1-thread eager";
        }
      }
    }
}

TEST(LinalgModes, PreparedRunAllocatesOnlyItsOutputsAfterWarmUp) {
  // Workspace comes from the engine's pool and the workspace sizes are cached: a second run takes
  // every buffer from the pool (pool misses do not grow).
  const CpuBackend backend(CpuBackendOptions{.threads = 1});
  Runtime rt(backend);
  const Case c{4, 20};  // LAPACK path with workspace
  const std::vector<Tensor> in = inputs(c);
  const PreparedProgram ops = rt.prepare(trace(all_ops, specs(c)));
  (void)rt.run(ops, in);
  (void)rt.run(ops, in);
  const auto misses = backend.buffer_pool_stats().misses;
  (void)rt.run(ops, in);
  EXPECT_EQ(backend.buffer_pool_stats().misses, misses);
}

TEST(LinalgModes, AnotherLibrarysOpenBlasThreadCountDoesNotLeakIntoNativeCalls) {
  // libtorch or NumPy in the same process may set OpenBLAS's one process-wide thread count; a
  // native-kind LAPACK call must still run single-threaded (Note [Linalg provider rules]).
  const CpuBackend backend(CpuBackendOptions{.threads = 1});
  BackendGuard use(backend);
  const Case c{2, 20};
  const std::vector<Tensor> in = inputs(c);
  (void)solve(in[0], in[2]);    // tenferro sets 1
  openblas_set_num_threads(2);  // "another library"
  (void)solve(in[0], in[2]);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  openblas_set_num_threads(2);
  (void)svd(in[0]);
  EXPECT_EQ(openblas_get_num_threads(), 1);
}

TEST(LinalgModes, AnotherLibrarysOpenBlasThreadCountDoesNotChangeNativeMatmul) {
  // The same for the GEMM provider (Note [OpenBLAS threads] in openblas_gemm.cpp): a native-kind
  // matmul large enough for OpenBLAS still makes single-threaded OpenBLAS calls (our runtime owns
  // the parallelism) after another library set the count to 4, and computes the same bits.
  for (int threads : {1, 2}) {
    const CpuBackend backend(CpuBackendOptions{.threads = threads});
    BackendGuard use(backend);
    const Tensor a = random({96, 96}, 11, DType::f64);
    const Tensor b = random({96, 96}, 12, DType::f64);
    const Tensor before = matmul(a, b);
    ASSERT_EQ(last_gemm_provider(), "openblas") << "the test needs the OpenBLAS provider";
    openblas_set_num_threads(4);  // "another library"
    const Tensor after = matmul(a, b);
    EXPECT_EQ(last_gemm_provider(), "openblas");
    EXPECT_EQ(openblas_get_num_threads(), 1) << threads << " thread(s)";
    EXPECT_TRUE(bitwise_equal(after, before)) << threads << " thread(s)";
  }
}

}  // namespace
