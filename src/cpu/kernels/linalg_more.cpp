// eig / eigvals, lu_factor, lu_solve, matrix_exp, pinv, qr_pivoted kernels.
//
// eig, qr_pivoted and large lu / lu_solve / pinv / matrix_exp call LAPACK (geev, geqp3 + orgqr,
// getrf, getrs, gesdd) and BLAS gemm under Note [Linalg provider rules]; small orders (<= 16, svd
// <= 8) run direct loops in the workspace (Note [Small linalg kernels]; lu_factor's f32/f64
// batches the batched small::lu, Note [Batched small linalg kernels]). Numerical failures throw
// Error{LinAlgError} naming the op and the lowest failing batch index.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cpu/kernels/linalg.hpp"
#include "cpu/kernels/linalg_batch.hpp"
#include "cpu/kernels/linalg_lapack.hpp"
#include "cpu/kernels/linalg_simd_batch.hpp"
#include "cpu/kernels/linalg_small.hpp"
#include "cpu/providers/cblas_gemm.hpp"

namespace tenferro::detail::linalg {
namespace {

// C = A B for n x n matrices in one layout (column-major here): loops for small n, gemm beyond.
template <class T>
void matmul_sq(I n, const T* a, const T* b, T* c) {
  if (n <= kSmallSolveMax) {
    for (I j = 0; j < n; ++j) {
      for (I i = 0; i < n; ++i) c[i + j * n] = T(0);
      for (I k = 0; k < n; ++k) {
        const T bkj = b[k + j * n];
        for (I i = 0; i < n; ++i) c[i + j * n] += a[i + k * n] * bkj;
      }
    }
    return;
  }
  // Column-major C = A B is row-major C^T = B^T A^T: the row-major gemm with the operands swapped.
  call_gemm<T>(CblasNoTrans, CblasNoTrans, n, n, n, b, n, a, n, c, n);
}

// In-place LU with partial pivoting of a column-major n x n q, then q^-1 b for column-major
// n x r b (Gaussian elimination, the small path of matrix_exp's Pade solve). Returns false on an
// exactly zero pivot.
template <class T>
bool solve_small_colmajor(I n, T* q, T* b, I r, int* piv) {
  for (I k = 0; k < n; ++k) {
    I p = k;
    real_t<T> best = abs1(q[k + k * n]);
    for (I i = k + 1; i < n; ++i)
      if (abs1(q[i + k * n]) > best) best = abs1(q[i + k * n]), p = i;
    piv[k] = static_cast<int>(p);
    if (p != k) {
      for (I j = 0; j < n; ++j) std::swap(q[k + j * n], q[p + j * n]);
      for (I j = 0; j < r; ++j) std::swap(b[k + j * n], b[p + j * n]);
    }
    const T d = q[k + k * n];
    if (d == T(0)) return false;
    for (I i = k + 1; i < n; ++i) {
      const T l = q[i + k * n] / d;
      q[i + k * n] = l;
      for (I j = k + 1; j < n; ++j) q[i + j * n] -= l * q[k + j * n];
      for (I j = 0; j < r; ++j) b[i + j * n] -= l * b[k + j * n];
    }
  }
  for (I j = 0; j < r; ++j)
    for (I i = n; i-- > 0;) {
      T s = b[i + j * n];
      for (I k = i + 1; k < n; ++k) s -= q[i + k * n] * b[k + j * n];
      b[i + j * n] = s / q[i + i * n];
    }
  return true;
}

// ---- eig ----

template <class T>
void eig_t(ExecContext& ctx, const Tensor& a, Tensor& w, Tensor* v) {
  using R = real_t<T>;
  using C = std::complex<R>;
  const MatrixBatch A(a);
  const I n = A.rows;
  if (A.count == 0 || n == 0) return;
  const bool vectors = v != nullptr;
  C* W = static_cast<C*>(w.data_ptr());
  C* V = vectors ? static_cast<C*>(v->data_ptr()) : nullptr;
  const char jobvr = vectors ? 'V' : 'N';
  const WorkSizes wsz = workspace<T>(ctx, Routine::geev, n, n, jobvr);
  const std::size_t bytes = ws_bytes<T>(n * n) + (vectors ? ws_bytes<T>(n * n) : 0) +
                            ws_bytes<T>(wsz.work) + ws_bytes<R>(wsz.rwork);
  const Failure f = for_each_matrix(ctx, A.count, 10 * n * n * n, bytes, true, [&](I b, char* p) {
    if (!A.finite<T>(b)) return kNonFinite;
    WorkspaceCarver c(p);
    T* x = c.take<T>(n * n);
    T* vr = vectors ? c.take<T>(n * n) : nullptr;
    T* work = c.take<T>(wsz.work);
    R* rwork = c.take<R>(wsz.rwork);
    A.pack_col_major(b, x, n);
    C* wb = W + b * n;
    const I info = geev<T>(jobvr, n, x, n, wb, vr, vectors ? n : 1, wsz, work, rwork);
    if (info != 0 || !vectors) return info;
    C* vb = V + b * n * n;  // row-major: vb[i * n + j] = component i of eigenvector j
    if constexpr (is_complex_v<T>) {
      for (I i = 0; i < n; ++i)
        for (I j = 0; j < n; ++j) vb[i * n + j] = vr[i + j * n];
    } else {
      // Real geev packs a conjugate pair (positive imaginary part first) as the real and imaginary
      // parts in columns j, j + 1.
      for (I j = 0; j < n; ++j) {
        if (wb[j].imag() == R(0) || j + 1 == n) {
          for (I i = 0; i < n; ++i) vb[i * n + j] = C(vr[i + j * n], 0);
          continue;
        }
        for (I i = 0; i < n; ++i) {
          const R re = vr[i + j * n], im = vr[i + (j + 1) * n];
          vb[i * n + j] = C(re, im);
          vb[i * n + j + 1] = C(re, -im);
        }
        ++j;
      }
    }
    return I{0};
  });
  if (f) throw_failure(vectors ? "eig" : "eigvals", f, "the QR algorithm did not converge");
}

// ---- lu_factor ----

template <class T>
void lu_factor_t(ExecContext& ctx, const Tensor& a, Tensor& lu, Tensor& pivots, Tensor& perm) {
  const MatrixBatch A(a);
  const I m = A.rows, n = A.cols, k = std::min(m, n);
  if (A.count == 0) return;
  T* LU = static_cast<T*>(lu.data_ptr());
  I* PV = static_cast<I*>(pivots.data_ptr());
  I* PM = static_cast<I*>(perm.data_ptr());
  const bool small = m <= kSmallSolveMax && n <= kSmallSolveMax;
  const I work = m * n * k + 1;
  // 0-based pivots -> pivots and the row permutation: (P^T a)[i] = a[perm[i]].
  auto finish = [&](I b, const int* ipiv) {
    I* piv = PV + b * k;
    for (I i = 0; i < k; ++i) piv[i] = ipiv[i];
    I* pm = PM + b * m;
    for (I i = 0; i < m; ++i) pm[i] = i;
    for (I i = 0; i < k; ++i) std::swap(pm[i], pm[piv[i]]);
  };
  bool batched = false;
  if constexpr (small::has_batch_kernels_v<T>)
    batched = small && k >= small::kBatchLuMin && m <= small::kBatchSolveMax &&
              n <= small::kBatchSolveMax;
  if (batched) {
    if constexpr (small::has_batch_kernels_v<T>) {
      for_each_tile(ctx, A.count, small::batch_lanes<T>(), work, [&](I b0, I nb) -> Failure {
        int pv[small::kMaxBatchLanes * small::kMaxDim];
        T* lo[small::kMaxBatchLanes] = {};
        int* po[small::kMaxBatchLanes] = {};
        for (I j = 0; j < nb; ++j) {
          lo[j] = LU + (b0 + j) * m * n;
          po[j] = pv + j * k;
        }
        lu_tile<T>(A, b0, nb, false, lo, po);
        for (I j = 0; j < nb; ++j) finish(b0 + j, po[j]);
        return Failure{};
      });
    }
    return;
  }
  const std::size_t bytes = small ? 0 : ws_bytes<T>(m * n) + ws_bytes<int>(k);
  for_each_matrix(ctx, A.count, work, bytes, !small, [&](I b, char* p) -> I {
    T* out = LU + b * m * n;
    if (small) {
      int ipiv[small::kMaxDim];
      A.pack_row_major(b, out);
      small::lu<T>(static_cast<int>(m), static_cast<int>(n), out, ipiv);
      finish(b, ipiv);
      return 0;
    }
    WorkspaceCarver c(p);
    T* x = c.take<T>(m * n);
    int* ipiv = c.take<int>(k);
    A.pack_col_major(b, x, m);
    if (k > 0) getrf_mn<T>(m, n, x, m, ipiv);
    for (I i = 0; i < m; ++i)
      for (I j = 0; j < n; ++j) out[i * n + j] = x[i + j * m];
    for (I i = 0; i < k; ++i) ipiv[i] -= 1;
    finish(b, ipiv);
    return 0;
  });
}

// ---- lu_solve ----

template <class T>
void lu_solve_t(ExecContext& ctx, const Tensor& lu, const Tensor& pivots, const Tensor& b,
                Tensor& x, bool adjoint) {
  const MatrixBatch A(lu), B(b);
  const I n = A.rows, r = B.cols;
  if (A.count == 0 || n == 0 || r == 0) return;
  T* X = static_cast<T*>(x.data_ptr());
  // pivots: [..., n] int64 with the batch dims of lu (strided); read through a rank-1 view per
  // matrix.
  const std::size_t pr = pivots.shape().size();
  const I ps = pivots.strides()[pr - 1];
  const I* pbase = static_cast<const I*>(pivots.numel() > 0 ? pivots.data_ptr() : nullptr);
  auto piv_of = [&](I bi) {
    I off = 0, rem = bi;
    for (std::size_t d = pr - 1; d-- > 0;) {
      off += (rem % pivots.shape()[d]) * pivots.strides()[d];
      rem /= pivots.shape()[d];
    }
    return pbase + off;
  };
  // Bad pivots first, before any matrix is solved (InvalidArgument names the first).
  for (I bi = 0; bi < A.count; ++bi) {
    const I* pv = piv_of(bi);
    for (I i = 0; i < n; ++i)
      if (pv[i * ps] < 0 || pv[i * ps] >= n)
        throw Error(ErrorKind::InvalidArgument, "lu_solve: pivot " + std::to_string(pv[i * ps]) +
                                                    " at index " + std::to_string(i) +
                                                    " of batch index " + std::to_string(bi) +
                                                    " is out of range [0, " + std::to_string(n) +
                                                    "); expected lu_factor's 0-based pivots");
  }
  const bool small = n <= kSmallSolveMax;
  const std::size_t bytes = ws_bytes<T>(n * n) + ws_bytes<int>(n) + ws_bytes<T>(n * r);
  const Failure f =
      for_each_matrix(ctx, A.count, n * n * (n + r), bytes, !small, [&](I bi, char* w) -> I {
        WorkspaceCarver c(w);
        T* f = c.take<T>(n * n);
        int* ipiv = c.take<int>(n);
        T* rhs = c.take<T>(n * r);
        const I* pv = piv_of(bi);
        for (I i = 0; i < n; ++i) ipiv[i] = static_cast<int>(pv[i * ps]);
        A.pack_col_major(bi, f, n);
        for (I i = 0; i < n; ++i)
          if (f[i + i * n] == T(0)) return i + 1;  // singular U
        B.pack_col_major(bi, rhs, n);
        if (small) {
          if (!adjoint) {  // x = U^-1 L^-1 P^T b
            for (I i = 0; i < n; ++i)
              if (ipiv[i] != i)
                for (I j = 0; j < r; ++j) std::swap(rhs[i + j * n], rhs[ipiv[i] + j * n]);
            for (I j = 0; j < r; ++j) {
              T* y = rhs + j * n;
              for (I i = 0; i < n; ++i)
                for (I k = 0; k < i; ++k) y[i] -= f[i + k * n] * y[k];
              for (I i = n; i-- > 0;) {
                for (I k = i + 1; k < n; ++k) y[i] -= f[i + k * n] * y[k];
                y[i] /= f[i + i * n];
              }
            }
          } else {  // a^H = U^H L^H P^T: x = P L^-H U^-H b
            for (I j = 0; j < r; ++j) {
              T* y = rhs + j * n;
              for (I i = 0; i < n; ++i) {
                for (I k = 0; k < i; ++k) y[i] -= conj_of(f[k + i * n]) * y[k];
                y[i] /= conj_of(f[i + i * n]);
              }
              for (I i = n; i-- > 0;)
                for (I k = i + 1; k < n; ++k) y[i] -= conj_of(f[k + i * n]) * y[k];
            }
            for (I i = n; i-- > 0;)
              if (ipiv[i] != i)
                for (I j = 0; j < r; ++j) std::swap(rhs[i + j * n], rhs[ipiv[i] + j * n]);
          }
        } else {
          for (I i = 0; i < n; ++i) ++ipiv[i];  // LAPACK's 1-based pivots
          getrs<T>(adjoint ? (is_complex_v<T> ? 'C' : 'T') : 'N', n, r, f, n, ipiv, rhs, n);
        }
        T* xb = X + bi * n * r;
        for (I i = 0; i < n; ++i)
          for (I j = 0; j < r; ++j) xb[i * r + j] = rhs[i + j * n];
        return 0;
      });
  if (f)
    throw Error(ErrorKind::LinAlgError, "lu_solve: the factorization at batch index " +
                                            std::to_string(f.batch) + " is singular (U[" +
                                            std::to_string(f.info - 1) + ", " +
                                            std::to_string(f.info - 1) + "] is exactly zero)");
}

// ---- matrix_exp ----

// Pade coefficients b_0..b_m of Higham (2005), Table 10.4 / expm.
constexpr double kPade3[] = {120, 60, 12, 1};
constexpr double kPade5[] = {30240, 15120, 3360, 420, 30, 1};
constexpr double kPade7[] = {17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1};
constexpr double kPade9[] = {17643225600., 8821612800., 2075673600., 302702400., 30270240.,
                             2162160.,     110880.,     3960.,       90.,        1.};
constexpr double kPade13[] = {64764752532480000.,
                              32382376266240000.,
                              7771770303897600.,
                              1187353796428800.,
                              129060195264000.,
                              10559470521600.,
                              670442572800.,
                              33522128640.,
                              1323241920.,
                              40840800.,
                              960960.,
                              16380.,
                              182.,
                              1.};
// theta_m: the largest 1-norm for which the degree-m approximant is accurate to unit roundoff
// (Higham 2005, Table 2.3 for double; Table 2.4 ("single") for float: m = 3, 5, 7).
constexpr double kThetaDouble[] = {1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
                                   2.097847961257068e0, 5.371920351148152e0};
constexpr double kThetaSingle[] = {4.258730016922831e-1, 1.880152677804762e0, 3.925724783138660e0};

// X = exp(A) for column-major n x n a (overwritten with scratch). w: 8 n^2 T of scratch.
template <class T>
void expm_one(I n, T* a, T* out, T* w, int* piv) {
  using R = real_t<T>;
  const I nn = n * n;
  T *A2 = w, *A4 = w + nn, *A6 = w + 2 * nn, *A8 = w + 3 * nn, *U = w + 4 * nn, *V = w + 5 * nn,
    *S = w + 6 * nn, *Q = w + 7 * nn;
  R norm = 0;
  for (I j = 0; j < n; ++j) {
    R s = 0;
    for (I i = 0; i < n; ++i) s += std::abs(a[i + j * n]);
    norm = std::max(norm, s);
    if (std::isnan(s)) norm = s;
  }
  if (!std::isfinite(norm)) {  // NaN / Inf propagate
    std::fill(out, out + nn, T(std::numeric_limits<R>::quiet_NaN()));
    return;
  }
  constexpr bool dbl = std::is_same_v<R, double>;
  const double* theta = dbl ? kThetaDouble : kThetaSingle;
  const int degrees = dbl ? 5 : 3;
  static constexpr const double* coef[] = {kPade3, kPade5, kPade7, kPade9, kPade13};
  static constexpr int order[] = {3, 5, 7, 9, 13};
  int d = degrees - 1;
  for (int i = 0; i + 1 < degrees; ++i)
    if (norm <= theta[i]) {
      d = i;
      break;
    }
  int s = 0;
  if (d == degrees - 1 && norm > theta[d]) {
    s = std::max(0, static_cast<int>(std::ceil(std::log2(static_cast<double>(norm) / theta[d]))));
    const R scale = std::ldexp(R(1), -s);
    for (I i = 0; i < nn; ++i) a[i] *= scale;
  }
  const int m = order[d];
  const double* b = coef[d];
  auto eye_plus = [&](T* dst, double c) {  // dst += c I
    for (I i = 0; i < n; ++i) dst[i + i * n] += T(static_cast<R>(c));
  };
  matmul_sq<T>(n, a, a, A2);
  if (m == 13) {
    matmul_sq<T>(n, A2, A2, A4);
    matmul_sq<T>(n, A4, A2, A6);
    // U = A [A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I]
    for (I i = 0; i < nn; ++i)
      S[i] = T(static_cast<R>(b[13])) * A6[i] + T(static_cast<R>(b[11])) * A4[i] +
             T(static_cast<R>(b[9])) * A2[i];
    matmul_sq<T>(n, A6, S, Q);
    for (I i = 0; i < nn; ++i)
      Q[i] += T(static_cast<R>(b[7])) * A6[i] + T(static_cast<R>(b[5])) * A4[i] +
              T(static_cast<R>(b[3])) * A2[i];
    eye_plus(Q, b[1]);
    matmul_sq<T>(n, a, Q, U);
    // V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I
    for (I i = 0; i < nn; ++i)
      S[i] = T(static_cast<R>(b[12])) * A6[i] + T(static_cast<R>(b[10])) * A4[i] +
             T(static_cast<R>(b[8])) * A2[i];
    matmul_sq<T>(n, A6, S, V);
    for (I i = 0; i < nn; ++i)
      V[i] += T(static_cast<R>(b[6])) * A6[i] + T(static_cast<R>(b[4])) * A4[i] +
              T(static_cast<R>(b[2])) * A2[i];
    eye_plus(V, b[0]);
  } else {
    // U = A sum_k b_{2k+1} A^{2k}, V = sum_k b_{2k} A^{2k}, k <= m / 2.
    T* pw[5] = {nullptr, A2, A4, A6, A8};
    for (int k = 2; 2 * k <= m; ++k) matmul_sq<T>(n, pw[k - 1], A2, pw[k]);
    std::fill(Q, Q + nn, T(0));
    std::fill(V, V + nn, T(0));
    eye_plus(Q, b[1]);
    eye_plus(V, b[0]);
    for (int k = 1; 2 * k <= m; ++k)
      for (I i = 0; i < nn; ++i) {
        Q[i] += T(static_cast<R>(b[2 * k + 1])) * pw[k][i];
        V[i] += T(static_cast<R>(b[2 * k])) * pw[k][i];
      }
    matmul_sq<T>(n, a, Q, U);
  }
  // (V - U) X = (V + U)
  for (I i = 0; i < nn; ++i) {
    Q[i] = V[i] - U[i];
    out[i] = V[i] + U[i];
  }
  if (n <= kSmallSolveMax) {
    if (!solve_small_colmajor<T>(n, Q, out, n, piv))
      std::fill(out, out + nn, T(std::numeric_limits<R>::quiet_NaN()));
  } else {
    if (getrf<T>(n, Q, n, piv) != 0)
      std::fill(out, out + nn, T(std::numeric_limits<R>::quiet_NaN()));
    else
      getrs<T>('N', n, n, Q, n, piv, out, n);
  }
  for (int i = 0; i < s; ++i) {
    matmul_sq<T>(n, out, out, S);
    std::copy(S, S + nn, out);
  }
}

template <class T>
void matrix_exp_t(ExecContext& ctx, const Tensor& a, Tensor& out) {
  const MatrixBatch A(a);
  const I n = A.rows;
  if (A.count == 0 || n == 0) return;
  T* O = static_cast<T*>(out.data_ptr());
  const bool small = n <= kSmallSolveMax;
  const std::size_t bytes = ws_bytes<T>(n * n) * 10 + ws_bytes<int>(n);
  for_each_matrix(ctx, A.count, 12 * n * n * n, bytes, !small, [&](I b, char* w) -> I {
    WorkspaceCarver c(w);
    T* x = c.take<T>(n * n);
    T* res = c.take<T>(n * n);
    T* scratch = c.take<T>(8 * n * n);
    int* piv = c.take<int>(n);
    // exp(A)^T = exp(A^T): the row-major matrix read column-major is A^T, so exponentiating the
    // column-major buffer gives exp(A) row-major.
    A.pack_row_major(b, x);
    expm_one<T>(n, x, res, scratch, piv);
    std::copy(res, res + n * n, O + b * n * n);
    return 0;
  });
}

// ---- pinv ----

template <class T>
void pinv_t(ExecContext& ctx, const Tensor& a, Tensor& out, double rcond) {
  using R = real_t<T>;
  const MatrixBatch A(a);
  const I m = A.rows, n = A.cols, k = std::min(m, n);
  if (A.count == 0) return;
  T* O = static_cast<T*>(out.data_ptr());  // [n, m]
  if (k == 0) {
    std::fill(O, O + A.count * n * m, T(0));
    return;
  }
  const bool small = m <= kSmallDecompMax && n <= kSmallDecompMax;
  const WorkSizes wsz = small ? WorkSizes{} : workspace<T>(ctx, Routine::gesdd, n, m, 'S');
  const std::size_t bytes = ws_bytes<T>(m * n) + ws_bytes<T>(m * k) + ws_bytes<T>(k * n) +
                            ws_bytes<R>(k) + ws_bytes<T>(wsz.work) + ws_bytes<R>(wsz.rwork) +
                            ws_bytes<int>(wsz.iwork);
  const Failure f = for_each_matrix(ctx, A.count, 20 * m * n * k, bytes, !small, [&](I b, char* w) {
    if (!A.finite<T>(b)) return kNonFinite;
    WorkspaceCarver c(w);
    T* x = c.take<T>(m * n);
    T* u = c.take<T>(m * k);   // row-major m x k
    T* vh = c.take<T>(k * n);  // row-major k x n
    R* s = c.take<R>(k);
    A.pack_row_major(b, x);
    if (small) {
      if (!small::svd<T>(static_cast<int>(m), static_cast<int>(n), x, u, s, vh)) return I{1};
    } else {
      T* work = c.take<T>(wsz.work);
      R* rwork = c.take<R>(wsz.rwork);
      int* iwork = c.take<int>(wsz.iwork);
      // gesdd of the column-major n x m A^T: its U (n x k, col-major) is our Vh row-major, its
      // VT (k x m) our U row-major (Note in linalg_decomp.cpp).
      const I info = gesdd<T>('S', n, m, x, n, s, vh, n, u, k, wsz, work, rwork, iwork);
      if (info != 0) return info;
    }
    const R cutoff = static_cast<R>(rcond) * s[0];
    for (I l = 0; l < k; ++l) s[l] = s[l] > cutoff && s[l] > R(0) ? R(1) / s[l] : R(0);
    // A+ = V diag(s+) U^H: out[i, j] = sum_l conj(vh[l, i]) s+_l conj(u[j, l]).
    T* ob = O + b * n * m;
    for (I i = 0; i < n; ++i)
      for (I j = 0; j < m; ++j) {
        T acc(0);
        for (I l = 0; l < k; ++l)
          if (s[l] != R(0)) acc += conj_of(vh[l * n + i]) * s[l] * conj_of(u[j * k + l]);
        ob[i * m + j] = acc;
      }
    return I{0};
  });
  if (f) throw_failure("pinv", f, "the SVD did not converge");
}

// ---- qr_pivoted ----

template <class T>
void qr_pivoted_t(ExecContext& ctx, const Tensor& a, Tensor& q, Tensor& r, Tensor& p) {
  using R = real_t<T>;
  const MatrixBatch A(a);
  const I m = A.rows, n = A.cols, k = std::min(m, n);
  if (A.count == 0) return;
  T* Q = static_cast<T*>(q.data_ptr());
  T* RR = static_cast<T*>(r.data_ptr());
  I* P = static_cast<I*>(p.data_ptr());
  if (k == 0) {
    for (I b = 0; b < A.count; ++b)
      for (I j = 0; j < n; ++j) P[b * n + j] = j;
    return;
  }
  const WorkSizes wsz = workspace<T>(ctx, Routine::geqp3_orgqr, m, n, 'R');
  const std::size_t bytes = ws_bytes<T>(m * n) + ws_bytes<T>(k) + ws_bytes<int>(n) +
                            ws_bytes<T>(wsz.work) + ws_bytes<R>(wsz.rwork);
  for_each_matrix(ctx, A.count, 4 * m * n * k, bytes, true, [&](I b, char* w) -> I {
    WorkspaceCarver c(w);
    T* x = c.take<T>(m * n);
    T* tau = c.take<T>(k);
    int* jpvt = c.take<int>(n);
    T* work = c.take<T>(wsz.work);
    R* rwork = c.take<R>(wsz.rwork);
    A.pack_col_major(b, x, m);
    std::fill(jpvt, jpvt + n, 0);
    geqp3<T>(m, n, x, m, jpvt, tau, wsz, work, rwork);
    T* Rb = RR + b * k * n;
    for (I i = 0; i < k; ++i)
      for (I j = 0; j < n; ++j) Rb[i * n + j] = i <= j ? x[i + j * m] : T(0);
    for (I j = 0; j < n; ++j) P[b * n + j] = jpvt[j] - 1;
    orgqr<T>(m, k, k, x, m, tau, wsz, work);
    T* Qb = Q + b * m * k;
    for (I i = 0; i < m; ++i)
      for (I j = 0; j < k; ++j) Qb[i * k + j] = x[i + j * m];
    return 0;
  });
}

}  // namespace

void eig(ExecContext& ctx, const Tensor& a, Tensor& w, Tensor* v) {
  by_dtype(a, [&](auto z) { eig_t<decltype(z)>(ctx, a, w, v); });
}
void lu_factor(ExecContext& ctx, const Tensor& a, Tensor& lu, Tensor& pivots, Tensor& perm) {
  by_dtype(a, [&](auto z) { lu_factor_t<decltype(z)>(ctx, a, lu, pivots, perm); });
}
void lu_solve(ExecContext& ctx, const Tensor& lu, const Tensor& pivots, const Tensor& b, Tensor& x,
              bool adjoint) {
  by_dtype(lu, [&](auto z) { lu_solve_t<decltype(z)>(ctx, lu, pivots, b, x, adjoint); });
}
void matrix_exp(ExecContext& ctx, const Tensor& a, Tensor& out) {
  by_dtype(a, [&](auto z) { matrix_exp_t<decltype(z)>(ctx, a, out); });
}
void pinv(ExecContext& ctx, const Tensor& a, Tensor& out, double rcond) {
  by_dtype(a, [&](auto z) { pinv_t<decltype(z)>(ctx, a, out, rcond); });
}
void qr_pivoted(ExecContext& ctx, const Tensor& a, Tensor& q, Tensor& r, Tensor& p) {
  by_dtype(a, [&](auto z) { qr_pivoted_t<decltype(z)>(ctx, a, q, r, p); });
}

}  // namespace tenferro::detail::linalg
