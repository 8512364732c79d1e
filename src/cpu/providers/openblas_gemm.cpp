// The OpenBLAS provider: cblas_{s,d,c,z}gemm per batch matrix.
//
// Note [OpenBLAS threads]: OpenBLAS 0.3.21 (Debian 12) has one process-wide thread count and no
// per-call setting. In the native kind our runtime owns parallelism: the provider sets OpenBLAS to
// 1 thread and splits the batch (and, for few batches, the rows of C) across ctx.parallel_for, so
// each unit is one single-threaded BLAS call. In the blas kind OpenBLAS owns its threads: the
// provider sets the count to the backend's budget and calls BLAS sequentially for each batch
// matrix. Switching the global count is safe because a blas-kind operation holds a
// provider-exclusive permit that conflicts with every other operation, and native-kind callers
// only ever set it to 1. The count is read back from OpenBLAS before each call and set only when
// it differs (openblas_threads.hpp): another library in the process may have changed it.
//
// Layouts: an operand goes to BLAS without a copy when it is row-major with unit column stride
// (NoTrans, ld = row stride) or column-major with unit row stride (Trans / ConjTrans, ld = column
// stride). Otherwise -- including a conjugated operand in NoTrans layout, which BLAS cannot
// express -- that operand's matrix is packed (and conjugated) into a per-thread contiguous buffer
// first; at the sizes this provider accepts the copy is O(n^2) against O(n^3) work.
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <vector>

#include "cpu/providers/cblas_gemm.hpp"
#include "cpu/providers/gemm_provider.hpp"
#include "cpu/providers/openblas_threads.hpp"

namespace tenferro::detail {
namespace {

struct BlasOperand {
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  std::int64_t ld = 1;
  bool pack = false;  // copy to a row-major contiguous buffer (conjugated) first
};

// How a rows x cols matrix with strides (rs, cs) is passed to row-major BLAS.
BlasOperand layout(std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs,
                   bool conj) {
  const bool trans_ok =
      (rows == 1 || rs == 1) && (cols == 1 || cs >= std::max<std::int64_t>(1, rows));
  if (trans_ok) {
    std::int64_t ld = cols == 1 ? std::max<std::int64_t>(1, rows) : cs;
    return {conj ? CblasConjTrans : CblasTrans, ld, false};
  }
  const bool plain_ok =
      (cols == 1 || cs == 1) && (rows == 1 || rs >= std::max<std::int64_t>(1, cols));
  if (plain_ok && !conj)
    return {CblasNoTrans, rows == 1 ? std::max<std::int64_t>(1, cols) : rs, false};
  return {CblasNoTrans, std::max<std::int64_t>(1, cols), true};
}

template <class T>
const T* pack(const T* src, std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs,
              bool conj, std::vector<T>& buf) {
  buf.resize(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      buf[static_cast<std::size_t>(i * cols + j)] = maybe_conj(src[i * rs + j * cs], conj);
  return buf.data();
}

template <class T>
void run_units(const GemmProblem& p, const BlasOperand& la, const BlasOperand& lb, std::int64_t ldc,
               std::int64_t b0, std::int64_t b1, std::int64_t r0, std::int64_t r1) {
  thread_local std::vector<T> abuf, bbuf;
  const auto* A = static_cast<const T*>(p.a);
  const auto* B = static_cast<const T*>(p.b);
  auto* C = static_cast<T*>(p.c);
  const std::int64_t rows = r1 - r0;
  BatchCursor cur(p, b0);
  for (std::int64_t bi = b0; bi < b1; ++bi, cur.next()) {
    const T* a = A + cur.a() + r0 * p.a_rs;
    const T* b = B + cur.b();
    if (la.pack) a = pack(a, rows, p.k, p.a_rs, p.a_cs, p.conj_a, abuf);
    if (lb.pack) b = pack(b, p.k, p.n, p.b_rs, p.b_cs, p.conj_b, bbuf);
    // A row block keeps the whole matrix's ld (Trans: ld >= m >= rows; NoTrans: ld >= k).
    call_gemm<T>(la.trans, lb.trans, rows, p.n, p.k, a, la.ld, b, lb.ld, C + cur.c() + r0 * p.c_rs,
                 ldc);
  }
}

class OpenBlasProvider final : public GemmProvider {
 public:
  std::string_view name() const noexcept override { return "openblas"; }
  GemmStatus try_gemm(ExecContext& ctx, const GemmProblem& p) const override {
    if (p.m * p.n * p.k < kOpenBlasMinFlops) return GemmStatus::unsupported;
    constexpr std::int64_t kMax = INT_MAX;
    if (p.m > kMax || p.n > kMax || p.k > kMax) return GemmStatus::unsupported;
    // C must be row-major with unit column stride (our outputs always are).
    if (!((p.n == 1 || p.c_cs == 1) && (p.m == 1 || p.c_rs >= p.n))) return GemmStatus::unsupported;
    const std::int64_t ldc = p.m == 1 ? std::max<std::int64_t>(1, p.n) : p.c_rs;
    const BlasOperand la = layout(p.m, p.k, p.a_rs, p.a_cs, p.conj_a);
    const BlasOperand lb = layout(p.k, p.n, p.b_rs, p.b_cs, p.conj_b);
    if (la.ld > kMax || lb.ld > kMax || ldc > kMax) return GemmStatus::unsupported;
    visit_float_dtype(p.dtype, [&](auto z) {
      using T = decltype(z);
      if (ctx.kind() == BackendKind::blas) {
        set_openblas_threads(std::max(1, ctx.threads()));
        run_units<T>(p, la, lb, ldc, 0, p.batch(), 0, p.m);
      } else {
        set_openblas_threads(1);
        run_gemm_units(ctx, p,
                       [&](std::int64_t b0, std::int64_t b1, std::int64_t r0, std::int64_t r1) {
                         run_units<T>(p, la, lb, ldc, b0, b1, r0, r1);
                       });
      }
    });
    return GemmStatus::executed;
  }
};

const OpenBlasProvider kOpenBlas;

}  // namespace

const GemmProvider& openblas_gemm_provider() { return kOpenBlas; }

}  // namespace tenferro::detail
