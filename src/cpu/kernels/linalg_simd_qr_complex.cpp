// Batched small Householder QR for complex T (c64, c128): one SIMD lane per matrix (Note [Batched
// small linalg kernels] in linalg_simd_batch.hpp). A complex tile is two real tiles, re and im
// (element (i, j) of the L matrices: WR[(j * m + i) * L + lane], WI[...], column-major as the
// scalar kernel's working copy), and every step repeats, lane by lane, the real operations of
// qr_impl / larfg / nrm2 / lapy3 / dotc / apply_reflector of linalg_small.cpp for complex T (which
// writes its complex products out by hand, fast_mul and dotc): change one, change both.
//
// As for f32/f64, qr_t gives a matrix holding NaN or Inf to the scalar kernel instead (this
// kernel's nrm2 / lapy3 are only checked on finite input).
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>

#include "cpu/kernels/linalg_simd_batch.hpp"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/linalg_simd_qr_complex.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on
#include "cpu/kernels/linalg_simd_batch-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::small {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// nrm2 of linalg_small.cpp, complex T: the plain sum of squares where it is safe, else scaled by
// the largest max(|re|, |im|) (maxr: a NaN never replaces the current value).
template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> cnrm2(const Tile<D>& t, CCol<R> x, int len) {
  const D d = t.d;
  using V = hn::Vec<D>;
  const V ss = csumsq(t, x, len);
  const auto safe = hn::And(
      hn::Ge(ss, hn::Set(d, std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon())),
      hn::Le(ss, hn::Set(d, std::numeric_limits<R>::max() / 4)));
  const V fast = hn::Sqrt(ss);
  if (hn::AllTrue(d, safe)) return fast;
  V scale = hn::Zero(d);
  for (int k = 0; k < len; ++k) {
    const V ar = hn::Abs(t.load(x.re, k)), ai = hn::Abs(t.load(x.im, k));
    const V am = hn::IfThenElse(hn::Lt(ar, ai), ai, ar);
    scale = hn::IfThenElse(hn::Lt(scale, am), am, scale);
  }
  const auto zero = hn::Eq(scale, hn::Zero(d));
  V acc = hn::Zero(d);
  for (int k = 0; k < len; ++k) {
    const V qr = hn::Div(t.load(x.re, k), scale), qi = hn::Div(t.load(x.im, k), scale);
    acc = hn::Add(acc, hn::Add(mul(qr, qr), mul(qi, qi)));
  }
  const V slow = hn::IfThenZeroElse(zero, mul(scale, hn::Sqrt(acc)));
  return hn::IfThenElse(safe, fast, slow);
}

// std::fmax: a NaN operand gives the other one.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V fmax_(D, V a, V b) {
  return hn::IfThenElse(hn::IsNaN(a), b, hn::IfThenElse(hn::IsNaN(b), a, hn::Max(a, b)));
}

// -copysign(lapy3(alphr, alphi, xnorm), alphr).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V larfg_beta3(D d, V alphr, V alphi, V xnorm) {
  const V xa = hn::Abs(alphr), ya = hn::Abs(alphi), za = hn::Abs(xnorm);
  const V w = fmax_(d, xa, fmax_(d, ya, za));
  const V qx = hn::Div(xa, w), qy = hn::Div(ya, w), qz = hn::Div(za, w);
  const V r = mul(w, hn::Sqrt(hn::Add(hn::Add(mul(qx, qx), mul(qy, qy)), mul(qz, qz))));
  const V plain = hn::Add(hn::Add(xa, ya), za);
  return hn::Neg(hn::CopySign(hn::IfThenElse(hn::Eq(w, hn::Zero(d)), plain, r), alphr));
}

// larfg of linalg_small.cpp, complex T, on the column x[0..len) (x[0] = alpha): returns tau in
// (taur, taui), overwrites alpha with beta (real) and the rest with v; lanes with a zero tail and
// a real alpha: tau = 0, nothing changes.
template <class D, class R = hn::TFromD<D>>
HWY_INLINE void clarfg(const Tile<D>& t, CCol<R> x, int len, hn::Vec<D>& taur, hn::Vec<D>& taui) {
  const D d = t.d;
  using V = hn::Vec<D>;
  constexpr R safmin = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
  const CCol<R> tail = x.at(1, t.L);
  V xnorm = cnrm2(t, tail, len - 1);
  V alphr = t.load(x.re, 0), alphi = t.load(x.im, 0);
  const V zero = hn::Zero(d), one = hn::Set(d, R(1));
  const auto skip = hn::And(hn::Eq(xnorm, zero), hn::Eq(alphi, zero));
  V beta = larfg_beta3(d, alphr, alphi, xnorm);
  const V vsafmin = hn::Set(d, safmin);
  const auto need = hn::AndNot(skip, hn::Lt(hn::Abs(beta), vsafmin));
  V knt = zero;
  if (!hn::AllFalse(d, need)) {
    const V rsafmn = hn::Set(d, 1 / safmin);
    auto go = need;
    do {
      knt = hn::Add(knt, hn::IfThenElseZero(go, one));
      for (int i = 0; i < len - 1; ++i) {
        const V xr = t.load(tail.re, i), xi = t.load(tail.im, i);
        t.store(hn::IfThenElse(go, mul(xr, rsafmn), xr), tail.re, i);
        t.store(hn::IfThenElse(go, mul(xi, rsafmn), xi), tail.im, i);
      }
      beta = hn::IfThenElse(go, mul(beta, rsafmn), beta);
      alphr = hn::IfThenElse(go, mul(alphr, rsafmn), alphr);
      alphi = hn::IfThenElse(go, mul(alphi, rsafmn), alphi);
      go = hn::And(go, hn::And(hn::Lt(hn::Abs(beta), vsafmin), hn::Lt(knt, hn::Set(d, R(20)))));
    } while (!hn::AllFalse(d, go));
    xnorm = hn::IfThenElse(need, cnrm2(t, tail, len - 1), xnorm);
    beta = hn::IfThenElse(need, larfg_beta3(d, alphr, alphi, xnorm), beta);
  }
  const V tr = hn::Div(hn::Sub(beta, alphr), beta);
  const V ti = hn::Div(hn::Neg(alphi), beta);
  // 1 / (alpha - beta) by Smith's formula, as the scalar zladiv: with dr = alphr - beta,
  // di = alphi, plain (|di| <= |dr|): ratio = di / dr, den = dr + di ratio, (1, -ratio) / den;
  // swapped: ratio = dr / di, den = di + dr ratio, (ratio, -1) / den.
  const V dr = hn::Sub(alphr, beta), di = alphi;
  const auto plain = hn::Le(hn::Abs(di), hn::Abs(dr));
  const V p = hn::IfThenElse(plain, dr, di), q = hn::IfThenElse(plain, di, dr);
  const V ratio = hn::Div(q, p);
  const V den = hn::Add(p, mul(q, ratio));
  const V rr = hn::Div(hn::IfThenElse(plain, one, ratio), den);
  const V ri = hn::Div(hn::IfThenElse(plain, hn::Neg(ratio), hn::Set(d, R(-1))), den);
  for (int i = 0; i < len - 1; ++i) {  // x_i = r x_i (fast_mul)
    const V xr = t.load(tail.re, i), xi = t.load(tail.im, i);
    const V yr = hn::Sub(mul(rr, xr), mul(ri, xi)), yi = hn::Add(mul(rr, xi), mul(ri, xr));
    t.store(hn::IfThenElse(skip, xr, yr), tail.re, i);
    t.store(hn::IfThenElse(skip, xi, yi), tail.im, i);
  }
  if (!hn::AllFalse(d, need)) {
    for (int j = 0; j < 20; ++j)
      beta = hn::IfThenElse(hn::Lt(hn::Set(d, R(j)), knt), mul(beta, vsafmin), beta);
  }
  t.store(hn::IfThenElse(skip, t.load(x.re, 0), beta), x.re, 0);
  t.store(hn::IfThenElse(skip, t.load(x.im, 0), zero), x.im, 0);
  taur = hn::IfThenZeroElse(skip, tr);
  taui = hn::IfThenZeroElse(skip, ti);
}

// C := (I - tau v v^H) C for cols complex columns of ld elements (v[0] = 1 stored by the caller),
// apply_reflector of linalg_small.cpp: w_j = tau dotc(v, c_j), c_j -= w_j v; lanes with tau = 0
// are left alone.
template <class D, class R = hn::TFromD<D>>
HWY_INLINE void capply_reflector(const Tile<D>& t, CCol<R> v, int rows, hn::Vec<D> taur,
                                 hn::Vec<D> taui, CCol<R> C, int ld, int cols) {
  const D d = t.d;
  using V = hn::Vec<D>;
  const V zero = hn::Zero(d);
  // C++'s tau != 0 for complex (hn::Ne is ordered).
  const auto active = hn::Not(hn::And(hn::Eq(taur, zero), hn::Eq(taui, zero)));
  if (hn::AllFalse(d, active)) return;
  for (int j = 0; j < cols; ++j) {
    const CCol<R> c = C.at(j * ld, t.L);
    V sr, si;
    cdotc(t, v, c, rows, sr, si);
    const V wr = hn::Sub(mul(taur, sr), mul(taui, si)), wi = hn::Add(mul(taur, si), mul(taui, sr));
    for (int k = 0; k < rows; ++k) {
      const V vr = t.load(v.re, k), vi = t.load(v.im, k);
      const V pr = hn::Sub(mul(wr, vr), mul(wi, vi)), pi = hn::Add(mul(wr, vi), mul(wi, vr));
      const V cr = t.load(c.re, k), ci = t.load(c.im, k);
      t.store(hn::IfThenElse(active, hn::Sub(cr, pr), cr), c.re, k);
      t.store(hn::IfThenElse(active, hn::Sub(ci, pi), ci), c.im, k);
    }
  }
}

template <class R>
void qr_ctile(int m, int n, int count, const std::complex<R>* const* a,
              std::complex<R>* const* q_out, std::complex<R>* const* r_out, bool complete) {
  const hn::ScalableTag<R> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const std::size_t L = t.L;
  const int k = m < n ? m : n;
  HWY_ALIGN R WR[kMaxDim * kMaxDim * kL];  // W(i, j) = W[(j * m + i) * L + lane]
  HWY_ALIGN R WI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R QR[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R QI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R TR[kMaxDim * kL];
  HWY_ALIGN R TI[kMaxDim * kL];
  for (std::size_t l = 0; l < L; ++l) {
    const std::complex<R>* al = static_cast<int>(l) < count ? a[l] : nullptr;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const std::complex<R> x = al == nullptr ? std::complex<R>() : al[i * n + j];
        WR[(j * m + i) * L + l] = x.real();
        WI[(j * m + i) * L + l] = x.imag();
      }
  }
  const CCol<R> W{WR, WI}, Q{QR, QI};
  const V zero = hn::Zero(d), one = hn::Set(d, R(1));
  for (int i = 0; i < k; ++i) {
    const CCol<R> col = W.at(i * m + i, L);
    V tr, ti;
    clarfg(t, col, m - i, tr, ti);
    t.store(tr, TR, i);
    t.store(ti, TI, i);
    if (i < n - 1) {
      // xGEQR2 applies H(i)^H from the left: conj(tau).
      const V dr = t.load(col.re, 0), di = t.load(col.im, 0);
      t.store(one, col.re, 0);
      t.store(zero, col.im, 0);
      capply_reflector(t, col, m - i, tr, hn::Neg(ti), col.at(m, L), m, n - i - 1);
      t.store(dr, col.re, 0);
      t.store(di, col.im, 0);
    }
  }
  const int rrows = complete ? m : k;
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    std::complex<R>* r = r_out[l];
    for (int i = 0; i < rrows; ++i)
      for (int j = 0; j < n; ++j) {
        const std::size_t e = static_cast<std::size_t>(j * m + i) * L + l;
        r[i * n + j] = i <= j ? std::complex<R>(WR[e], WI[e]) : std::complex<R>(0);
      }
  }

  // xUNG2R: Q = H(0) ... H(k-1) applied to the first nq columns of the identity.
  const int nq = complete ? m : k;
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < m; ++i) {
      t.store(t.load(WR, j * m + i), QR, j * m + i);
      t.store(t.load(WI, j * m + i), QI, j * m + i);
    }
  for (int j = k; j < nq; ++j)
    for (int i = 0; i < m; ++i) {
      t.store(i == j ? one : zero, QR, j * m + i);
      t.store(zero, QI, j * m + i);
    }
  for (int i = k - 1; i >= 0; --i) {
    const CCol<R> col = Q.at(i * m + i, L);
    const V tr = t.load(TR, i), ti = t.load(TI, i);
    if (i < nq - 1) {
      t.store(one, col.re, 0);
      t.store(zero, col.im, 0);
      capply_reflector(t, col, m - i, tr, ti, col.at(m, L), m, nq - i - 1);
    }
    const V mr = hn::Neg(tr), mi = hn::Neg(ti);  // -tau, then col[r] = fast_mul(-tau, col[r])
    for (int r = 1; r < m - i; ++r) {
      const V xr = t.load(col.re, r), xi = t.load(col.im, r);
      t.store(hn::Sub(mul(mr, xr), mul(mi, xi)), col.re, r);
      t.store(hn::Add(mul(mr, xi), mul(mi, xr)), col.im, r);
    }
    t.store(hn::Sub(one, tr), col.re, 0);  // T(1) - tau: (1 - tau re, 0 - tau im)
    t.store(hn::Sub(zero, ti), col.im, 0);
    for (int r = 0; r < i; ++r) {
      t.store(zero, QR, i * m + r);
      t.store(zero, QI, i * m + r);
    }
  }
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    std::complex<R>* q = q_out[l];
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < nq; ++j) {
        const std::size_t e = static_cast<std::size_t>(j * m + i) * L + l;
        q[i * nq + j] = std::complex<R>(QR[e], QI[e]);
      }
  }
}

void QrC64(int m, int n, int count, const std::complex<float>* const* a,
           std::complex<float>* const* q, std::complex<float>* const* r, bool complete) {
  qr_ctile<float>(m, n, count, a, q, r, complete);
}
void QrC128(int m, int n, int count, const std::complex<double>* const* a,
            std::complex<double>* const* q, std::complex<double>* const* r, bool complete) {
  qr_ctile<double>(m, n, count, a, q, r, complete);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {

HWY_EXPORT(QrC64);
HWY_EXPORT(QrC128);

template <>
void qr_batch<c64>(int m, int n, int count, const c64* const* a, c64* const* q, c64* const* r,
                   bool complete) {
  HWY_DYNAMIC_DISPATCH(QrC64)(m, n, count, a, q, r, complete);
}
template <>
void qr_batch<c128>(int m, int n, int count, const c128* const* a, c128* const* q, c128* const* r,
                    bool complete) {
  HWY_DYNAMIC_DISPATCH(QrC128)(m, n, count, a, q, r, complete);
}

}  // namespace tenferro::detail::small
#endif  // HWY_ONCE
