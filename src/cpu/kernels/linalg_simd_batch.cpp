// Batched small svd / eigh / qr (Note [Batched small linalg kernels] in linalg_simd_batch.hpp).
// foreach_target.h compiles this file once per x86 target (as simd_map.cpp); HWY_DYNAMIC_DISPATCH
// picks the best one on the first call. Each function mirrors its scalar twin in linalg_small.cpp
// operation for operation: change one, change both.
#include "cpu/kernels/linalg_simd_batch.hpp"

#include <cmath>
#include <cstddef>
#include <limits>

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/linalg_simd_batch.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on
#include "cpu/kernels/linalg_simd_batch-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::small {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// dotc / sumsq of linalg_small.cpp (real T): four partial sums, (s0 + s1) + (s2 + s3).
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> dot(const Tile<D>& t, const T* x, const T* y, int len) {
  const auto z = hn::Zero(t.d);
  auto s0 = z, s1 = z, s2 = z, s3 = z;
  int i = 0;
  for (; i + 4 <= len; i += 4) {
    s0 = hn::Add(s0, mul(t.load(x, i), t.load(y, i)));
    s1 = hn::Add(s1, mul(t.load(x, i + 1), t.load(y, i + 1)));
    s2 = hn::Add(s2, mul(t.load(x, i + 2), t.load(y, i + 2)));
    s3 = hn::Add(s3, mul(t.load(x, i + 3), t.load(y, i + 3)));
  }
  for (; i < len; ++i) s0 = hn::Add(s0, mul(t.load(x, i), t.load(y, i)));
  return hn::Add(hn::Add(s0, s1), hn::Add(s2, s3));
}

// [x, y] <- [x, y] J (rotate_cols of linalg_small.cpp, real T) on the lanes in `rot`, for len
// elements at x[k0 + k * stride], y[...].
template <class D, class M, class V = hn::Vec<D>, class T = hn::TFromD<D>>
HWY_INLINE void rotate(const Tile<D>& t, M rot, V c, V se, T* x, T* y, int len) {
  for (int i = 0; i < len; ++i) {
    const V xi = t.load(x, i), yi = t.load(y, i);
    const V xn = hn::Sub(mul(xi, c), mul(se, yi));
    const V yn = hn::Add(mul(se, xi), mul(yi, c));
    t.store(hn::IfThenElse(rot, xn, xi), x, i);
    t.store(hn::IfThenElse(rot, yn, yi), y, i);
  }
}

template <class T>
void svd_tile(int m, int n, int count, const T* const* a, T* const* u_out, T* const* s_out,
              T* const* vh_out, bool* ok) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const int L = static_cast<int>(t.L);
  constexpr T eps = std::numeric_limits<T>::epsilon();
  const bool vectors = u_out != nullptr || vh_out != nullptr;
  const bool trans = m < n;
  const int M = trans ? n : m, N = trans ? m : n;

  HWY_ALIGN T g[kMaxDim * kMaxDim * kL];
  HWY_ALIGN T v[kMaxDim * kMaxDim * kL];
  HWY_ALIGN T nrm[kMaxDim * kL];
  HWY_ALIGN T amax[kL], f1[kL], f2[kL];
  int e[kL];
  for (int l = 0; l < L; ++l) {
    const T* al = l < count ? a[l] : nullptr;
    T mx = 0;
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < M; ++i) {
        const T x = al == nullptr ? T(0) : trans ? al[j * n + i] : al[i * n + j];
        g[(j * M + i) * L + l] = x;
        mx = maxr(mx, std::fabs(x));
      }
    amax[l] = mx;
  }
  if (scale_factors(amax, L, e, f1, f2)) scale(t, f1, f2, g, M * N);
  for (int j = 0; j < N; ++j) t.store(dot(t, g + j * M * L, g + j * M * L, M), nrm, j);
  if (vectors)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) t.store(hn::Set(d, T(i == j ? 1 : 0)), v, j * N + i);

  const V tol = hn::Set(d, std::sqrt(T(M)) * eps);
  const V eps4 = hn::Set(d, eps * eps * eps * eps);
  const V floor_abs = hn::Set(d, std::numeric_limits<T>::min() / eps);
  auto last = hn::Lt(hn::Zero(d), hn::Zero(d));  // lanes that rotated in the last sweep
  for (int sweep = 0; sweep < 60; ++sweep) {
    auto rotated = hn::Lt(hn::Zero(d), hn::Zero(d));
    for (int p = 0; p < N - 1; ++p) {
      for (int q = p + 1; q < N; ++q) {
        T* gp = g + p * M * L;
        T* gq = g + q * M * L;
        const V gamma = dot(t, gp, gq, M);
        const V absg = hn::Abs(gamma);
        const V np = t.load(nrm, p), nq = t.load(nrm, q);
        const auto small = hn::Lt(np, nq);
        const V nmin = hn::IfThenElse(small, np, nq), nmax = hn::IfThenElse(small, nq, np);
        const auto skip = hn::Or(hn::Le(absg, mul(mul(tol, hn::Sqrt(np)), hn::Sqrt(nq))),
                                 hn::Or(hn::Lt(nmin, floor_abs), hn::Lt(nmin, mul(eps4, nmax))));
        const auto rot = hn::Not(skip);
        if (hn::AllFalse(d, rot)) continue;
        rotated = hn::Or(rotated, rot);
        V c, s, tt;
        jacobi_rotation(d, np, nq, absg, c, s, tt);
        const V se = hn::IfThenElse(hn::Lt(gamma, hn::Zero(d)), hn::Neg(s), s);
        rotate(t, rot, c, se, gp, gq, M);
        t.store(hn::IfThenElse(rot, dot(t, gp, gp, M), np), nrm, p);
        t.store(hn::IfThenElse(rot, dot(t, gq, gq, M), nq), nrm, q);
        if (vectors) rotate(t, rot, c, se, v + p * N * L, v + q * N * L, N);
      }
    }
    last = rotated;
    if (hn::AllFalse(d, rotated)) break;
  }

  HWY_ALIGN T conv[kL];
  hn::Store(hn::IfThenElseZero(hn::Not(last), hn::Set(d, T(1))), d, conv);
  T gl[kMaxDim * kMaxDim], vl[kMaxDim * kMaxDim], nl[kMaxDim];
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    for (int k = 0; k < M * N; ++k) gl[k] = g[k * L + l];
    if (vectors)
      for (int k = 0; k < N * N; ++k) vl[k] = v[k * L + l];
    for (int k = 0; k < N; ++k) nl[k] = nrm[k * L + l];
    svd_finish<T>(m, n, gl, vectors ? vl : nullptr, nl, e[l], vectors ? u_out[l] : nullptr,
                  s_out[l], vectors ? vh_out[l] : nullptr);
    ok[l] = conv[l] != T(0);
  }
}

template <class T>
void eigh_tile(int n, int count, const T* const* a, bool lower, T* const* w_out, T* const* v_out,
               bool* ok) {
  if (n == 1) {
    for (int l = 0; l < count; ++l)
      if (a[l] != nullptr) ok[l] = eigh<T>(1, a[l], lower, w_out[l], v_out ? v_out[l] : nullptr);
    return;
  }
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const int L = static_cast<int>(t.L);
  constexpr T eps = std::numeric_limits<T>::epsilon();
  const bool vectors = v_out != nullptr;

  HWY_ALIGN T A[kMaxDim * kMaxDim * kL];  // A(i, j) = A[(j * n + i) * L + lane]
  HWY_ALIGN T V_[kMaxDim * kMaxDim * kL];
  HWY_ALIGN T dg[kMaxDim * kL];
  HWY_ALIGN T amax[kL], f1[kL], f2[kL];
  int e[kL];
  for (int l = 0; l < L; ++l) {
    const T* al = l < count ? a[l] : nullptr;
    T mx = 0;
    for (int i = 0; i < n; ++i) {
      const T di = al == nullptr ? T(0) : al[i * n + i];
      dg[i * L + l] = di;
      mx = maxr(mx, std::fabs(di));
      for (int j = 0; j < i; ++j) {
        const T x = al == nullptr ? T(0) : lower ? al[i * n + j] : al[j * n + i];
        A[(j * n + i) * L + l] = x;
        A[(i * n + j) * L + l] = x;
        mx = maxr(mx, std::fabs(x));
      }
      A[(i * n + i) * L + l] = T(0);
    }
    amax[l] = mx;
  }
  if (scale_factors(amax, L, e, f1, f2)) {
    scale(t, f1, f2, A, n * n);
    scale(t, f1, f2, dg, n);
  }
  if (vectors)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) t.store(hn::Set(d, T(i == j ? 1 : 0)), V_, j * n + i);

  V fro2 = hn::Zero(d);
  for (int i = 0; i < n; ++i) fro2 = hn::Add(fro2, mul(t.load(dg, i), t.load(dg, i)));
  fro2 = hn::Add(fro2, dot(t, A, A, n * n));
  const V tol_abs = mul(hn::Set(d, eps * eps), hn::Sqrt(fro2));
  const V veps = hn::Set(d, eps);

  auto last = hn::Lt(hn::Zero(d), hn::Zero(d));
  for (int sweep = 0; sweep < 60; ++sweep) {
    auto rotated = hn::Lt(hn::Zero(d), hn::Zero(d));
    for (int p = 0; p < n - 1; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const V apq = t.load(A, q * n + p);
        const V absg = hn::Abs(apq);
        const V dp = t.load(dg, p), dq = t.load(dg, q);
        const auto skip =
            hn::Or(hn::Le(absg, tol_abs),
                   hn::Le(absg, mul(mul(veps, hn::Sqrt(hn::Abs(dp))), hn::Sqrt(hn::Abs(dq)))));
        const auto rot = hn::Not(skip);
        if (hn::AllFalse(d, rot)) continue;
        rotated = hn::Or(rotated, rot);
        V c, s, tt;
        jacobi_rotation(d, dp, dq, absg, c, s, tt);
        const V se = hn::IfThenElse(hn::Lt(apq, hn::Zero(d)), hn::Neg(s), s);
        const V ta = mul(tt, absg);
        t.store(hn::IfThenElse(rot, hn::Sub(dp, ta), dp), dg, p);
        t.store(hn::IfThenElse(rot, hn::Add(dq, ta), dq), dg, q);
        for (int r = 0; r < n; ++r) {
          if (r == p || r == q) continue;
          const V x = t.load(A, p * n + r), y = t.load(A, q * n + r);
          const V xn = hn::IfThenElse(rot, hn::Sub(mul(x, c), mul(se, y)), x);
          const V yn = hn::IfThenElse(rot, hn::Add(mul(se, x), mul(y, c)), y);
          t.store(xn, A, p * n + r);  // A(r, p)
          t.store(xn, A, r * n + p);  // A(p, r)
          t.store(yn, A, q * n + r);  // A(r, q)
          t.store(yn, A, r * n + q);  // A(q, r)
        }
        const V z = hn::IfThenElseZero(skip, apq);
        t.store(z, A, q * n + p);
        t.store(z, A, p * n + q);
        if (vectors) rotate(t, rot, c, se, V_ + p * n * L, V_ + q * n * L, n);
      }
    }
    last = rotated;
    if (hn::AllFalse(d, rotated)) break;
  }

  HWY_ALIGN T conv[kL];
  hn::Store(hn::IfThenElseZero(hn::Not(last), hn::Set(d, T(1))), d, conv);
  T dl[kMaxDim], vl[kMaxDim * kMaxDim];
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    for (int k = 0; k < n; ++k) dl[k] = dg[k * L + l];
    if (vectors)
      for (int k = 0; k < n * n; ++k) vl[k] = V_[k * L + l];
    eigh_finish<T>(n, dl, vectors ? vl : nullptr, e[l], w_out[l], vectors ? v_out[l] : nullptr);
    ok[l] = conv[l] != T(0);
  }
}

// ---------------------------------------------------------------------------------------------
// QR: xGEQR2 + xORG2R as qr_impl / larfg / nrm2 / lapy2 / apply_reflector of linalg_small.cpp.

// nrm2 of the len elements x[0], x[L], ...: the plain sum of squares where it is safe, else the
// scaled sum (a single accumulator, as the scalar code).
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> nrm2(const Tile<D>& t, const T* x, int len) {
  const D d = t.d;
  using V = hn::Vec<D>;
  const V ss = dot(t, x, x, len);
  const auto safe = hn::And(
      hn::Ge(ss, hn::Set(d, std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon())),
      hn::Le(ss, hn::Set(d, std::numeric_limits<T>::max() / 4)));
  const V fast = hn::Sqrt(ss);
  if (hn::AllTrue(d, safe)) return fast;
  V scale = hn::Zero(d);
  for (int i = 0; i < len; ++i) {  // maxr: a NaN element does not replace scale
    const V ax = hn::Abs(t.load(x, i));
    scale = hn::IfThenElse(hn::Lt(scale, ax), ax, scale);
  }
  const auto zero = hn::Eq(scale, hn::Zero(d));
  V acc = hn::Zero(d);
  for (int i = 0; i < len; ++i) {
    const V q = hn::Div(t.load(x, i), scale);
    acc = hn::Add(acc, mul(q, q));
  }
  const V slow = hn::IfThenZeroElse(zero, mul(scale, hn::Sqrt(acc)));
  return hn::IfThenElse(safe, fast, slow);
}

// -copysign(lapy2(alpha, xnorm), alpha).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V larfg_beta(D d, V alpha, V xnorm) {
  using T = hn::TFromD<D>;
  const V xa = hn::Abs(alpha), ya = hn::Abs(xnorm);
  // std::fmax / fmin: a NaN operand gives the other one.
  const auto xnan = hn::IsNaN(xa), ynan = hn::IsNaN(ya);
  const V w = hn::IfThenElse(xnan, ya, hn::IfThenElse(ynan, xa, hn::Max(xa, ya)));
  const V z = hn::IfThenElse(xnan, ya, hn::IfThenElse(ynan, xa, hn::Min(xa, ya)));
  const V q = hn::Div(z, w);
  const V r = mul(w, hn::Sqrt(hn::Add(hn::Set(d, T(1)), mul(q, q))));
  const auto plain =
      hn::Or(hn::Eq(z, hn::Zero(d)), hn::Gt(w, hn::Set(d, std::numeric_limits<T>::max())));
  return hn::Neg(hn::CopySign(hn::IfThenElse(plain, w, r), alpha));
}

// larfg on the column x[0..len) (x[0] = alpha): returns tau, overwrites alpha with beta and the
// rest with v (lanes with a zero tail: tau = 0, nothing changes).
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> larfg(const Tile<D>& t, T* x, int len) {
  const D d = t.d;
  using V = hn::Vec<D>;
  if (len <= 1) return hn::Zero(d);
  constexpr T safmin = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  V xnorm = nrm2(t, x + t.L, len - 1);
  V alphr = t.load(x, 0);
  const auto skip = hn::Eq(xnorm, hn::Zero(d));
  V beta = larfg_beta(d, alphr, xnorm);
  const V vsafmin = hn::Set(d, safmin);
  auto need = hn::AndNot(skip, hn::Lt(hn::Abs(beta), vsafmin));
  V knt = hn::Zero(d);
  if (!hn::AllFalse(d, need)) {
    const V rsafmn = hn::Set(d, 1 / safmin);
    auto go = need;
    do {
      knt = hn::Add(knt, hn::IfThenElseZero(go, hn::Set(d, T(1))));
      for (int i = 1; i < len; ++i)
        t.store(hn::IfThenElse(go, mul(t.load(x, i), rsafmn), t.load(x, i)), x, i);
      beta = hn::IfThenElse(go, mul(beta, rsafmn), beta);
      alphr = hn::IfThenElse(go, mul(alphr, rsafmn), alphr);
      go = hn::And(go, hn::And(hn::Lt(hn::Abs(beta), vsafmin), hn::Lt(knt, hn::Set(d, T(20)))));
    } while (!hn::AllFalse(d, go));
    xnorm = hn::IfThenElse(need, nrm2(t, x + t.L, len - 1), xnorm);
    beta = hn::IfThenElse(need, larfg_beta(d, alphr, xnorm), beta);
  }
  const V tau = hn::Div(hn::Sub(beta, alphr), beta);
  const V sc = hn::Div(hn::Set(d, T(1)), hn::Sub(alphr, beta));
  for (int i = 1; i < len; ++i) {
    const V xi = t.load(x, i);
    t.store(hn::IfThenElse(skip, xi, mul(xi, sc)), x, i);
  }
  if (!hn::AllFalse(d, need)) {
    for (int j = 0; j < 20; ++j)
      beta = hn::IfThenElse(hn::Lt(hn::Set(d, T(j)), knt), mul(beta, vsafmin), beta);
  }
  t.store(hn::IfThenElse(skip, t.load(x, 0), beta), x, 0);
  return hn::IfThenZeroElse(skip, tau);
}

// C := (I - tau v v^T) C for cols columns of ld elements (v[0] = 1 stored by the caller); lanes
// with tau = 0 are left alone.
template <class D, class T = hn::TFromD<D>>
HWY_INLINE void apply_reflector(const Tile<D>& t, const T* v, int rows, hn::Vec<D> tau, T* C,
                                int ld, int cols) {
  const auto active = hn::Not(hn::Eq(tau, hn::Zero(t.d)));  // C++'s tau != 0 (hn::Ne is ordered)
  if (hn::AllFalse(t.d, active)) return;
  for (int j = 0; j < cols; ++j) {
    T* cj = C + static_cast<std::size_t>(j) * ld * t.L;
    const auto wj = mul(tau, dot(t, v, cj, rows));
    for (int i = 0; i < rows; ++i) {
      const auto c = t.load(cj, i);
      t.store(hn::IfThenElse(active, hn::Sub(c, mul(wj, t.load(v, i))), c), cj, i);
    }
  }
}

template <class T>
void qr_tile(int m, int n, int count, const T* const* a, T* const* q_out, T* const* r_out,
             bool complete) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const int L = static_cast<int>(t.L);
  const int k = m < n ? m : n;
  HWY_ALIGN T W[kMaxDim * kMaxDim * kL];  // W(i, j) = W[(j * m + i) * L + lane]
  HWY_ALIGN T Q[kMaxDim * kMaxDim * kL];
  HWY_ALIGN T tau[kMaxDim * kL];
  for (int l = 0; l < L; ++l) {
    const T* al = l < count ? a[l] : nullptr;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) W[(j * m + i) * L + l] = al == nullptr ? T(0) : al[i * n + j];
  }
  const V one = hn::Set(d, T(1));
  for (int i = 0; i < k; ++i) {
    T* col = W + (i * m + i) * L;
    const V ti = larfg(t, col, m - i);
    t.store(ti, tau, i);
    if (i < n - 1) {
      const V diag = t.load(col, 0);
      t.store(one, col, 0);
      apply_reflector(t, col, m - i, ti, col + m * L, m, n - i - 1);
      t.store(diag, col, 0);
    }
  }
  const int rrows = complete ? m : k;
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    T* r = r_out[l];
    for (int i = 0; i < rrows; ++i)
      for (int j = 0; j < n; ++j) r[i * n + j] = i <= j ? W[(j * m + i) * L + l] : T(0);
  }

  const int nq = complete ? m : k;
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < m; ++i) t.store(t.load(W, j * m + i), Q, j * m + i);
  for (int j = k; j < nq; ++j)
    for (int i = 0; i < m; ++i) t.store(hn::Set(d, T(i == j ? 1 : 0)), Q, j * m + i);
  for (int i = k - 1; i >= 0; --i) {
    T* col = Q + (i * m + i) * L;
    const V ti = t.load(tau, i);
    if (i < nq - 1) {
      t.store(one, col, 0);
      apply_reflector(t, col, m - i, ti, col + m * L, m, nq - i - 1);
    }
    const V mt = hn::Neg(ti);
    for (int r = 1; r < m - i; ++r) t.store(mul(mt, t.load(col, r)), col, r);
    t.store(hn::Sub(one, ti), col, 0);
    for (int r = 0; r < i; ++r) t.store(hn::Zero(d), Q, i * m + r);
  }
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    T* q = q_out[l];
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < nq; ++j) q[i * nq + j] = Q[(j * m + i) * L + l];
  }
}

void QrF32(int m, int n, int count, const float* const* a, float* const* q, float* const* r,
           bool complete) {
  qr_tile<float>(m, n, count, a, q, r, complete);
}
void QrF64(int m, int n, int count, const double* const* a, double* const* q, double* const* r,
           bool complete) {
  qr_tile<double>(m, n, count, a, q, r, complete);
}

int LanesF32() { return static_cast<int>(hn::Lanes(hn::ScalableTag<float>())); }
int LanesF64() { return static_cast<int>(hn::Lanes(hn::ScalableTag<double>())); }
void SvdF32(int m, int n, int count, const float* const* a, float* const* u, float* const* s,
            float* const* vh, bool* ok) {
  svd_tile<float>(m, n, count, a, u, s, vh, ok);
}
void SvdF64(int m, int n, int count, const double* const* a, double* const* u, double* const* s,
            double* const* vh, bool* ok) {
  svd_tile<double>(m, n, count, a, u, s, vh, ok);
}
void EighF32(int n, int count, const float* const* a, bool lower, float* const* w, float* const* v,
             bool* ok) {
  eigh_tile<float>(n, count, a, lower, w, v, ok);
}
void EighF64(int n, int count, const double* const* a, bool lower, double* const* w,
             double* const* v, bool* ok) {
  eigh_tile<double>(n, count, a, lower, w, v, ok);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {

HWY_EXPORT(LanesF32);
HWY_EXPORT(LanesF64);
HWY_EXPORT(SvdF32);
HWY_EXPORT(SvdF64);
HWY_EXPORT(EighF32);
HWY_EXPORT(EighF64);
HWY_EXPORT(QrF32);
HWY_EXPORT(QrF64);

template <>
int batch_lanes<float>() {
  static const int lanes = HWY_DYNAMIC_DISPATCH(LanesF32)();
  return lanes;
}
template <>
int batch_lanes<double>() {
  static const int lanes = HWY_DYNAMIC_DISPATCH(LanesF64)();
  return lanes;
}
template <>
void svd_batch<float>(int m, int n, int count, const float* const* a, float* const* u,
                      float* const* s, float* const* vh, bool* ok) {
  HWY_DYNAMIC_DISPATCH(SvdF32)(m, n, count, a, u, s, vh, ok);
}
template <>
void svd_batch<double>(int m, int n, int count, const double* const* a, double* const* u,
                       double* const* s, double* const* vh, bool* ok) {
  HWY_DYNAMIC_DISPATCH(SvdF64)(m, n, count, a, u, s, vh, ok);
}
template <>
void eigh_batch<float>(int n, int count, const float* const* a, bool lower, float* const* w,
                       float* const* v, bool* ok) {
  HWY_DYNAMIC_DISPATCH(EighF32)(n, count, a, lower, w, v, ok);
}
template <>
void eigh_batch<double>(int n, int count, const double* const* a, bool lower, double* const* w,
                        double* const* v, bool* ok) {
  HWY_DYNAMIC_DISPATCH(EighF64)(n, count, a, lower, w, v, ok);
}

template <>
void qr_batch<float>(int m, int n, int count, const float* const* a, float* const* q,
                     float* const* r, bool complete) {
  HWY_DYNAMIC_DISPATCH(QrF32)(m, n, count, a, q, r, complete);
}
template <>
void qr_batch<double>(int m, int n, int count, const double* const* a, double* const* q,
                      double* const* r, bool complete) {
  HWY_DYNAMIC_DISPATCH(QrF64)(m, n, count, a, q, r, complete);
}

}  // namespace tenferro::detail::small
#endif  // HWY_ONCE
