// svd, eigh, qr kernels: built-in Jacobi/Householder kernels for small matrices, LAPACK beyond.
//
// Row-major meets column-major: a row-major m x n matrix is the column-major n x m matrix A^T.
// svd uses that directly (A^T = U_B S V_B^H gives A = conj(V_B) S U_B^T, so LAPACK's VT output is
// our U and its U output our Vh, written straight into the outputs); eigh and qr pack column-major
// and transpose on the way out (O(n^2) against O(n^3)).
#include <algorithm>
#include <string>

#include "cpu/kernels/linalg.hpp"
#include "cpu/kernels/linalg_batch.hpp"
#include "cpu/kernels/linalg_lapack.hpp"
#include "cpu/kernels/linalg_simd_batch.hpp"
#include "cpu/kernels/linalg_small.hpp"

namespace tenferro::detail::linalg {
namespace {

template <class T>
T real_part(const T& v) {
  if constexpr (is_complex_v<T>)
    return T(v.real(), 0);
  else
    return v;
}

template <class T>
void fill_identity(Tensor& t, I n) {
  T* p = static_cast<T*>(t.data_ptr());
  const I count = t.numel() / std::max<I>(1, n * n);
  for (I b = 0; b < count; ++b)
    for (I i = 0; i < n; ++i)
      for (I j = 0; j < n; ++j) p[(b * n + i) * n + j] = i == j ? T(1) : T(0);
}

// Runs a batched small kernel (Note [Batched small linalg kernels]) over the batch: each tile's
// matrices are packed by pack(b, dst) into one buffer and checked there (what the kernel reads:
// eigh's packed Hermitian matrix holds one triangle and the real diagonal), then
// run(nb, in, b0, ok) computes them; a non-finite matrix leaves its lane empty (in[l] == nullptr)
// and is reported, so it cannot touch its tile-mates. Failures: kNonFinite, or 1 when the sweeps
// did not converge.
template <class T, class Pack, class Run>
Failure for_each_small_tile(ExecContext& ctx, const MatrixBatch& A, I work, Pack&& pack,
                            Run&& run) {
  const I lanes = small::batch_lanes<T>();
  return for_each_tile(ctx, A.count, lanes, work, [&](I b0, I nb) -> Failure {
    T buf[small::kMaxBatchLanes * small::kMaxDim * small::kMaxDim];
    const T* in[small::kMaxBatchLanes] = {};
    bool ok[small::kMaxBatchLanes];
    const I size = A.rows * A.cols;
    for (I l = 0; l < nb; ++l) {
      ok[l] = true;
      in[l] = nullptr;
      pack(b0 + l, buf + l * size);
      if (all_finite(buf + l * size, size)) in[l] = buf + l * size;
    }
    run(static_cast<int>(nb), in, b0, ok);
    for (I l = 0; l < nb; ++l) {
      if (in[l] == nullptr) return Failure{b0 + l, kNonFinite};
      if (!ok[l]) return Failure{b0 + l, 1};
    }
    return Failure{};
  });
}

template <class T>
void svd_t(ExecContext& ctx, const Tensor& a, Tensor* u, Tensor& s, Tensor* vh, bool full) {
  using R = real_t<T>;
  const MatrixBatch A(a);
  const I m = A.rows, n = A.cols, k = std::min(m, n);
  if (A.count == 0) return;
  if (k == 0) {  // thin factors are empty; full ones are identities
    if (full && u) fill_identity<T>(*u, m);
    if (full && vh) fill_identity<T>(*vh, n);
    return;
  }
  const bool vectors = u != nullptr;
  const I ucols = full ? m : k, vrows = full ? n : k;
  T* U = vectors ? static_cast<T*>(u->data_ptr()) : nullptr;
  T* VH = vectors ? static_cast<T*>(vh->data_ptr()) : nullptr;
  R* S = static_cast<R*>(s.data_ptr());
  const I work = 20 * m * n * k;
  Failure f;
  const bool small_sizes = (!full || m == n) && m <= kSmallDecompMax && n <= kSmallDecompMax;
  bool batched = false;
  if constexpr (small::has_batch_kernels_v<T>)
    batched = small_sizes && std::max(m, n) >= small::batch_decomp_min<T>() &&
              std::max(m, n) <= small::kBatchDecompMax;
  if (batched) {
    if constexpr (small::has_batch_kernels_v<T>) {
      f = for_each_small_tile<T>(
          ctx, A, work, [&](I b, T* dst) { A.pack_row_major(b, dst); },
          [&](int nb, const T* const* in, I b0, bool* ok) {
            T* uo[small::kMaxBatchLanes] = {};
            R* so[small::kMaxBatchLanes] = {};
            T* vo[small::kMaxBatchLanes] = {};
            for (int l = 0; l < nb; ++l) {
              const I b = b0 + l;
              uo[l] = vectors ? U + b * m * k : nullptr;
              so[l] = S + b * k;
              vo[l] = vectors ? VH + b * k * n : nullptr;
            }
            if (small::tile_pays_off(nb, small::batch_lanes<T>())) {
              small::svd_batch<T>(static_cast<int>(m), static_cast<int>(n), nb, in,
                                  vectors ? uo : nullptr, so, vectors ? vo : nullptr, ok);
              return;
            }
            for (int l = 0; l < nb; ++l)
              if (in[l] != nullptr)
                ok[l] = small::svd<T>(static_cast<int>(m), static_cast<int>(n), in[l], uo[l], so[l],
                                      vo[l]);
          });
    }
  } else if (small_sizes) {
    f = for_each_matrix(ctx, A.count, work, 0, false, [&](I b, char*) -> I {
      if (!A.finite<T>(b)) return kNonFinite;
      T buf[small::kMaxDim * small::kMaxDim];
      A.pack_row_major(b, buf);
      const bool ok = small::svd<T>(static_cast<int>(m), static_cast<int>(n), buf,
                                    vectors ? U + b * m * k : nullptr, S + b * k,
                                    vectors ? VH + b * k * n : nullptr);
      return ok ? 0 : 1;
    });
  } else {
    // gesdd on B = A^T (n x m, ld n): its U (n x vrows) is our Vh, its VT (ucols x m) our U.
    const char jobz = vectors ? (full ? 'A' : 'S') : 'N';
    const WorkSizes wsz = workspace<T>(ctx, Routine::gesdd, n, m, jobz);
    const std::size_t bytes = ws_bytes<T>(m * n) + ws_bytes<T>(wsz.work) + ws_bytes<R>(wsz.rwork) +
                              ws_bytes<int>(wsz.iwork);
    f = for_each_matrix(ctx, A.count, work, bytes, true, [&](I b, char* w) -> I {
      if (!A.finite<T>(b)) return kNonFinite;
      WorkspaceCarver c(w);
      T* x = c.take<T>(m * n);
      T* work_p = c.take<T>(wsz.work);
      R* rwork = c.take<R>(wsz.rwork);
      int* iwork = c.take<int>(wsz.iwork);
      A.pack_row_major(b, x);
      return gesdd<T>(jobz, n, m, x, n, S + b * k, vectors ? VH + b * vrows * n : nullptr,
                      vectors ? n : 1, vectors ? U + b * m * ucols : nullptr, vectors ? ucols : 1,
                      wsz, work_p, rwork, iwork);
    });
  }
  if (f) throw_failure(vectors ? "svd" : "svdvals", f, "the SVD did not converge");
}

// The Hermitian matrix defined by one triangle of matrix b, row-major (real diagonal): all that
// eigh reads, so it is what eigh checks for NaN/Inf (the other triangle and the imaginary part of
// the diagonal may hold anything, as for LAPACK's heevd).
template <class T>
void pack_hermitian(const MatrixBatch& A, I b, bool lower, T* dst) {
  const I n = A.rows;
  const T* src = A.matrix<T>(b);
  for (I i = 0; i < n; ++i)
    for (I j = 0; j < n; ++j) {
      const bool stored = lower ? i >= j : i <= j;
      const T v = stored ? src[i * A.rs + j * A.cs] : conj_of(src[j * A.rs + i * A.cs]);
      dst[i * n + j] = i == j ? real_part(v) : v;
    }
}

template <class T>
void eigh_t(ExecContext& ctx, const Tensor& a, bool lower, Tensor& w, Tensor* v) {
  using R = real_t<T>;
  const MatrixBatch A(a);
  const I n = A.rows;
  if (A.count == 0 || n == 0) return;
  const bool vectors = v != nullptr;
  T* V = vectors ? static_cast<T*>(v->data_ptr()) : nullptr;
  R* W = static_cast<R*>(w.data_ptr());
  const I work = 10 * n * n * n;
  Failure f;
  bool batched = false;
  if constexpr (small::has_batch_kernels_v<T>)
    batched =
        n >= small::batch_decomp_min<T>() && n <= small::kBatchDecompMax && n <= kSmallDecompMax;
  if (batched) {
    if constexpr (small::has_batch_kernels_v<T>) {
      f = for_each_small_tile<T>(
          ctx, A, work, [&](I b, T* dst) { pack_hermitian(A, b, lower, dst); },
          [&](int nb, const T* const* in, I b0, bool* ok) {
            R* wo[small::kMaxBatchLanes] = {};
            T* vo[small::kMaxBatchLanes] = {};
            for (int l = 0; l < nb; ++l) {
              wo[l] = W + (b0 + l) * n;
              vo[l] = vectors ? V + (b0 + l) * n * n : nullptr;
            }
            if (small::tile_pays_off(nb, small::batch_lanes<T>())) {
              small::eigh_batch<T>(static_cast<int>(n), nb, in, true, wo, vectors ? vo : nullptr,
                                   ok);
              return;
            }
            for (int l = 0; l < nb; ++l)
              if (in[l] != nullptr)
                ok[l] = small::eigh<T>(static_cast<int>(n), in[l], true, wo[l], vo[l]);
          });
    }
  } else if (n <= kSmallDecompMax) {
    f = for_each_matrix(ctx, A.count, work, 0, false, [&](I b, char*) -> I {
      T buf[small::kMaxDim * small::kMaxDim];
      pack_hermitian(A, b, lower, buf);
      if (!all_finite(buf, n * n)) return kNonFinite;
      const bool ok = small::eigh<T>(static_cast<int>(n), buf, true, W + b * n,
                                     vectors ? V + b * n * n : nullptr);
      return ok ? 0 : 1;
    });
  } else {
    // heevd on the Hermitian matrix packed column-major; vectors transposed back to row-major.
    const char jobz = vectors ? 'V' : 'N';
    const WorkSizes wsz = workspace<T>(ctx, Routine::heevd, n, n, jobz);
    const std::size_t bytes = ws_bytes<T>(n * n) + ws_bytes<T>(n * n) + ws_bytes<T>(wsz.work) +
                              ws_bytes<R>(wsz.rwork) + ws_bytes<int>(wsz.iwork);
    f = for_each_matrix(ctx, A.count, work, bytes, true, [&](I b, char* wp) -> I {
      WorkspaceCarver c(wp);
      T* h = c.take<T>(n * n);
      T* x = c.take<T>(n * n);
      T* work_p = c.take<T>(wsz.work);
      R* rwork = c.take<R>(wsz.rwork);
      int* iwork = c.take<int>(wsz.iwork);
      pack_hermitian(A, b, lower, h);
      if (!all_finite(h, n * n)) return kNonFinite;
      for (I i = 0; i < n; ++i)
        for (I j = 0; j < n; ++j) x[i + j * n] = h[i * n + j];
      const I info = heevd<T>(jobz, 'L', n, x, n, W + b * n, wsz, work_p, rwork, iwork);
      if (info == 0 && vectors)
        for (I i = 0; i < n; ++i)
          for (I j = 0; j < n; ++j) V[(b * n + i) * n + j] = x[i + j * n];
      return info;
    });
  }
  if (f) throw_failure(vectors ? "eigh" : "eigvalsh", f, "the eigensolver did not converge");
}

template <class T>
void qr_t(ExecContext& ctx, const Tensor& a, Tensor& q, Tensor& r, bool complete) {
  const MatrixBatch A(a);
  const I m = A.rows, n = A.cols, k = std::min(m, n);
  const I qcols = complete ? m : k, rrows = qcols;
  if (A.count == 0) return;
  T* Q = static_cast<T*>(q.data_ptr());
  T* RR = static_cast<T*>(r.data_ptr());
  if (k == 0) {  // no reflectors: Q is the identity's first qcols columns, R is zero
    for (I b = 0; b < A.count; ++b) {
      for (I i = 0; i < m; ++i)
        for (I j = 0; j < qcols; ++j) Q[(b * m + i) * qcols + j] = i == j ? T(1) : T(0);
      std::fill(RR + b * rrows * n, RR + (b + 1) * rrows * n, T(0));
    }
    return;
  }
  const I work = 4 * m * n * k;
  bool batched = false;
  if constexpr (small::has_batch_kernels_v<T>)
    batched =
        m <= small::kBatchQrMax && n <= small::kBatchQrMax && m <= kSmallQrMax && n <= kSmallQrMax;
  if (batched) {
    // Householder QR has no failure (NaN propagates, as in the scalar kernel). A matrix holding
    // NaN or Inf leaves its lane empty and takes the scalar kernel: the batched kernel's rounding
    // of an infinite reflector norm differs from the scalar one, and a matrix's outputs must not
    // depend on its batch position (Note [Batched small linalg kernels]).
    if constexpr (small::has_batch_kernels_v<T>) {
      const I lanes = small::batch_lanes<T>();
      for_each_tile(ctx, A.count, lanes, work, [&](I b0, I nb) -> Failure {
        T buf[small::kMaxBatchLanes * small::kMaxDim * small::kMaxDim];
        const T* in[small::kMaxBatchLanes] = {};
        T* qo[small::kMaxBatchLanes] = {};
        T* ro[small::kMaxBatchLanes] = {};
        bool scalar[small::kMaxBatchLanes] = {};
        for (I l = 0; l < nb; ++l) {
          const I b = b0 + l;
          A.pack_row_major(b, buf + l * m * n);
          scalar[l] = !A.finite<T>(b);
          in[l] = scalar[l] ? nullptr : buf + l * m * n;
          qo[l] = Q + b * m * qcols;
          ro[l] = RR + b * rrows * n;
        }
        const bool tile = small::qr_tile_pays_off<T>(static_cast<int>(nb), static_cast<int>(lanes));
        if (tile)
          small::qr_batch<T>(static_cast<int>(m), static_cast<int>(n), static_cast<int>(nb), in, qo,
                             ro, complete);
        for (I l = 0; l < nb; ++l)
          if (!tile || scalar[l])
            small::qr<T>(static_cast<int>(m), static_cast<int>(n), buf + l * m * n, qo[l], ro[l],
                         complete);
        return Failure{};
      });
    }
    return;
  }
  if (m <= kSmallQrMax && n <= kSmallQrMax) {
    for_each_matrix(ctx, A.count, work, 0, false, [&](I b, char*) -> I {
      T buf[small::kMaxDim * small::kMaxDim];
      A.pack_row_major(b, buf);
      small::qr<T>(static_cast<int>(m), static_cast<int>(n), buf, Q + b * m * qcols,
                   RR + b * rrows * n, complete);
      return 0;
    });
    return;
  }
  const WorkSizes wsz = workspace<T>(ctx, Routine::geqrf_orgqr, m, n, complete ? 'C' : 'R');
  const I cols = std::max(n, qcols);
  const std::size_t bytes = ws_bytes<T>(m * cols) + ws_bytes<T>(k) + ws_bytes<T>(wsz.work);
  for_each_matrix(ctx, A.count, work, bytes, true, [&](I b, char* wp) -> I {
    WorkspaceCarver c(wp);
    T* x = c.take<T>(m * cols);
    T* tau = c.take<T>(k);
    T* work_p = c.take<T>(wsz.work);
    A.pack_col_major(b, x, m);
    geqrf<T>(m, n, x, m, tau, wsz, work_p);
    T* Rb = RR + b * rrows * n;
    for (I i = 0; i < rrows; ++i)
      for (I j = 0; j < n; ++j) Rb[i * n + j] = i <= j ? x[i + j * m] : T(0);
    orgqr<T>(m, qcols, k, x, m, tau, wsz, work_p);
    T* Qb = Q + b * m * qcols;
    for (I i = 0; i < m; ++i)
      for (I j = 0; j < qcols; ++j) Qb[i * qcols + j] = x[i + j * m];
    return 0;
  });
}

}  // namespace

void svd(ExecContext& ctx, const Tensor& a, Tensor* u, Tensor& s, Tensor* vh, bool full) {
  by_dtype(a, [&](auto z) { svd_t<decltype(z)>(ctx, a, u, s, vh, full); });
}
void eigh(ExecContext& ctx, const Tensor& a, bool lower, Tensor& w, Tensor* v) {
  by_dtype(a, [&](auto z) { eigh_t<decltype(z)>(ctx, a, lower, w, v); });
}
void qr(ExecContext& ctx, const Tensor& a, Tensor& q, Tensor& r, bool complete) {
  by_dtype(a, [&](auto z) { qr_t<decltype(z)>(ctx, a, q, r, complete); });
}

}  // namespace tenferro::detail::linalg
