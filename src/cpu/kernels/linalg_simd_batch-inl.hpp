// Per-target helpers of the batched small linalg kernels (Note [Batched small linalg kernels] in
// linalg_simd_batch.hpp), shared by linalg_simd_batch.cpp (svd, eigh, qr) and linalg_simd_solve.cpp
// and linalg_simd_solve_complex.cpp (cholesky, lu), linalg_simd_qr_complex.cpp,
// linalg_simd_eigh_complex.cpp and linalg_simd_svd_complex.cpp. Highway's per-target include guard:
// foreach_target.h includes the including file once per target, and this header is compiled once
// for each.
#if defined(TENFERRO_LINALG_SIMD_BATCH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENFERRO_LINALG_SIMD_BATCH_INL_H_
#undef TENFERRO_LINALG_SIMD_BATCH_INL_H_
#else
#define TENFERRO_LINALG_SIMD_BATCH_INL_H_
#endif

#include <hwy/highway.h>

#include <cmath>
#include <cstddef>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::small {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Every product goes through mul(). GCC contracts a product and a following add into an FMA where
// the target has one (-ffp-contract=fast, its default for C++), which the scalar kernels (a
// baseline x86-64 build, no FMA) never do: the empty asm makes the product an opaque value, so
// each lane rounds exactly as the scalar code.
template <class V>
HWY_INLINE V mul(V a, V b) {
  V p = hn::Mul(a, b);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && (HWY_COMPILER_GCC || HWY_COMPILER_CLANG)
  asm("" : "+v"(p.raw));
#endif
  return p;
}

// The vectors of a tile: element k of the L matrices is x[k * L .. k * L + L).
template <class D>
struct Tile {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  D d;
  std::size_t L;
  V load(const T* x, int k) const { return hn::Load(d, x + static_cast<std::size_t>(k) * L); }
  void store(V v, T* x, int k) const { hn::Store(v, d, x + static_cast<std::size_t>(k) * L); }
};

// Swaps row c with row p (per lane; p >= c) of the rows x cols matrices in A (A(i, j) at
// A[(i * cols + j) * L + lane]): a select per row some lane pivots to.
template <class D, class V = hn::Vec<D>, class T = hn::TFromD<D>>
HWY_INLINE void swap_rows(const Tile<D>& t, V p, int c, int rows, int cols, T* A) {
  const D d = t.d;
  using M = hn::Mask<D>;
  M sw[kMaxDim];
  T* row[kMaxDim];
  int ns = 0;
  for (int i = c + 1; i < rows; ++i) {
    const M s = hn::Eq(p, hn::Set(d, T(i)));
    if (hn::AllFalse(d, s)) continue;
    sw[ns] = s;
    row[ns++] = A + static_cast<std::size_t>(i) * cols * t.L;
  }
  T* rc = A + static_cast<std::size_t>(c) * cols * t.L;
  for (int j = 0; j < cols; ++j) {
    const V x = t.load(rc, j);
    V nc = x;
    for (int q = 0; q < ns; ++q) {
      const V y = t.load(row[q], j);
      nc = hn::IfThenElse(sw[q], y, nc);
      t.store(hn::IfThenElse(sw[q], x, y), row[q], j);
    }
    t.store(nc, rc, j);
  }
}

// jacobi_rotation of linalg_small.cpp, both range branches evaluated and selected per lane.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void jacobi_rotation(D d, V app, V aqq, V absg, V& c, V& s, V& t) {
  using T = hn::TFromD<D>;
  constexpr int lo = std::numeric_limits<T>::min_exponent / 2 + 2;
  constexpr int hi = std::numeric_limits<T>::max_exponent / 2 - 2;
  constexpr T eps = std::numeric_limits<T>::epsilon();
  const V one = hn::Set(d, T(1)), two = hn::Set(d, T(2));
  const V tau = hn::Sub(aqq, app), g = mul(two, absg), at = hn::Abs(tau);
  const auto fast =
      hn::And(hn::And(hn::Gt(g, hn::Set(d, pow2<T>(lo))), hn::Lt(g, hn::Set(d, pow2<T>(hi)))),
              hn::Lt(at, hn::Set(d, pow2<T>(hi))));
  const V r = hn::Sqrt(hn::Add(mul(tau, tau), mul(g, g)));
  const V w = hn::Add(r, at);
  const V inv = hn::Div(one, hn::Sqrt(mul(mul(two, r), w)));
  c = mul(w, inv);
  s = mul(g, inv);
  t = hn::Div(g, w);
  if (!hn::AllTrue(d, fast)) {
    const V az = hn::Div(at, g);
    const V t2 = hn::IfThenElse(hn::Gt(az, hn::Set(d, 1 / eps)), hn::Div(hn::Set(d, T(0.5)), az),
                                hn::Div(one, hn::Add(az, hn::Sqrt(hn::Add(one, mul(az, az))))));
    const V c2 = hn::Div(one, hn::Sqrt(hn::Add(one, mul(t2, t2))));
    const V s2 = mul(c2, t2);
    c = hn::IfThenElse(fast, c, c2);
    s = hn::IfThenElse(fast, s, s2);
    t = hn::IfThenElse(fast, t, t2);
  }
  const auto neg = hn::Lt(tau, hn::Zero(d));
  s = hn::IfThenElse(neg, hn::Neg(s), s);
  t = hn::IfThenElse(neg, hn::Neg(t), t);
}

// Per-lane scale factors 2^e1, 2^e2 (e1 = e / 2, e2 = e - e1; 1 for e = 0) into f1, f2; returns
// whether any lane scales.
template <class T>
bool scale_factors(const T* amax, int L, int* e, T* f1, T* f2) {
  bool any = false;
  for (int l = 0; l < L; ++l) {
    e[l] = scale_exponent<T>(amax[l]);
    const int e1 = e[l] / 2, e2 = e[l] - e1;
    f1[l] = std::ldexp(T(1), e1);
    f2[l] = std::ldexp(T(1), e2);
    any = any || e[l] != 0;
  }
  return any;
}

template <class D, class T = hn::TFromD<D>>
HWY_INLINE void scale(const Tile<D>& t, const T* f1, const T* f2, T* x, int len) {
  const auto v1 = hn::Load(t.d, f1), v2 = hn::Load(t.d, f2);
  for (int k = 0; k < len; ++k) t.store(mul(mul(t.load(x, k), v1), v2), x, k);
}

template <class T>
constexpr T maxr(T a, T b) noexcept {
  return a < b ? b : a;
}

// A complex column of a tile: element k of it is (re[k * L + lane], im[k * L + lane]).
template <class R>
struct CCol {
  R* re;
  R* im;
  CCol at(int k, std::size_t L) const { return {re + k * L, im + k * L}; }
};

// sumsq of linalg_small.cpp for complex T: the real sumsq of the 2 len interleaved parts, four
// partial sums (re_k, im_k, re_k+1, im_k+1), an odd last element's parts both into the first.
template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> csumsq(const Tile<D>& t, CCol<R> x, int len) {
  const auto z = hn::Zero(t.d);
  auto s0 = z, s1 = z, s2 = z, s3 = z;
  int k = 0;
  for (; k + 2 <= len; k += 2) {
    const auto r0 = t.load(x.re, k), i0 = t.load(x.im, k);
    const auto r1 = t.load(x.re, k + 1), i1 = t.load(x.im, k + 1);
    s0 = hn::Add(s0, mul(r0, r0));
    s1 = hn::Add(s1, mul(i0, i0));
    s2 = hn::Add(s2, mul(r1, r1));
    s3 = hn::Add(s3, mul(i1, i1));
  }
  if (k < len) {
    const auto r0 = t.load(x.re, k), i0 = t.load(x.im, k);
    s0 = hn::Add(s0, mul(r0, r0));
    s0 = hn::Add(s0, mul(i0, i0));
  }
  return hn::Add(hn::Add(s0, s1), hn::Add(s2, s3));
}

// abs_ of linalg_small.cpp, complex T: sqrt(re^2 + im^2) where the square is in range, else
// w sqrt((re / w)^2 + (im / w)^2) with w = max(|re|, |im|) (w itself for 0 and Inf).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V cabs(D d, V re, V im) {
  using R = hn::TFromD<D>;
  const V s = hn::Add(mul(re, re), mul(im, im));
  const auto out = hn::Or(
      hn::Lt(s, hn::Set(d, std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon())),
      hn::Gt(s, hn::Set(d, std::numeric_limits<R>::max() / 4)));
  const V fast = hn::Sqrt(s);
  if (hn::AllFalse(d, out)) return fast;
  const V ar = hn::Abs(re), ai = hn::Abs(im);
  const V w = hn::IfThenElse(hn::Lt(ar, ai), ai, ar);
  const V qr = hn::Div(ar, w), qi = hn::Div(ai, w);
  const V scaled = mul(w, hn::Sqrt(hn::Add(mul(qr, qr), mul(qi, qi))));
  const auto plain =
      hn::Or(hn::Eq(w, hn::Zero(d)), hn::Gt(w, hn::Set(d, std::numeric_limits<R>::max())));
  return hn::IfThenElse(out, hn::IfThenElse(plain, w, scaled), fast);
}

// rotate_cols of linalg_small.cpp, complex T, on the lanes in `rot`: x' = c x - s conj(e) y,
// y' = s e x + c y for the elements k in ks of the columns x, y (se = s e; sec = conj(se)).
template <class D, class M, class V = hn::Vec<D>, class R = hn::TFromD<D>>
HWY_INLINE void crotate(const Tile<D>& t, M rot, V c, V ser, V sei, CCol<R> x, CCol<R> y, int len) {
  const V secr = ser, seci = hn::Neg(sei);
  for (int k = 0; k < len; ++k) {
    const V xr = t.load(x.re, k), xi = t.load(x.im, k), yr = t.load(y.re, k), yi = t.load(y.im, k);
    const V xnr = hn::Sub(mul(xr, c), hn::Sub(mul(secr, yr), mul(seci, yi)));
    const V xni = hn::Sub(mul(xi, c), hn::Add(mul(secr, yi), mul(seci, yr)));
    const V ynr = hn::Add(hn::Sub(mul(ser, xr), mul(sei, xi)), mul(yr, c));
    const V yni = hn::Add(hn::Add(mul(ser, xi), mul(sei, xr)), mul(yi, c));
    t.store(hn::IfThenElse(rot, xnr, xr), x.re, k);
    t.store(hn::IfThenElse(rot, xni, xi), x.im, k);
    t.store(hn::IfThenElse(rot, ynr, yr), y.re, k);
    t.store(hn::IfThenElse(rot, yni, yi), y.im, k);
  }
}

// dotc of linalg_small.cpp, complex T: x^H y over len elements, two interleaved partial sums per
// part, (r0 + r1, i0 + i1).
template <class D, class R = hn::TFromD<D>>
HWY_INLINE void cdotc(const Tile<D>& t, CCol<R> x, CCol<R> y, int len, hn::Vec<D>& dr,
                      hn::Vec<D>& di) {
  using V = hn::Vec<D>;
  const V zero = hn::Zero(t.d);
  V r0 = zero, r1 = zero, i0 = zero, i1 = zero;
  int i = 0;
  for (; i + 2 <= len; i += 2) {
    const V xr0 = t.load(x.re, i), xi0 = t.load(x.im, i), yr0 = t.load(y.re, i),
            yi0 = t.load(y.im, i);
    const V xr1 = t.load(x.re, i + 1), xi1 = t.load(x.im, i + 1), yr1 = t.load(y.re, i + 1),
            yi1 = t.load(y.im, i + 1);
    r0 = hn::Add(r0, hn::Add(mul(xr0, yr0), mul(xi0, yi0)));
    i0 = hn::Add(i0, hn::Sub(mul(xr0, yi0), mul(xi0, yr0)));
    r1 = hn::Add(r1, hn::Add(mul(xr1, yr1), mul(xi1, yi1)));
    i1 = hn::Add(i1, hn::Sub(mul(xr1, yi1), mul(xi1, yr1)));
  }
  if (i < len) {
    const V xr0 = t.load(x.re, i), xi0 = t.load(x.im, i), yr0 = t.load(y.re, i),
            yi0 = t.load(y.im, i);
    r0 = hn::Add(r0, hn::Add(mul(xr0, yr0), mul(xi0, yi0)));
    i0 = hn::Add(i0, hn::Sub(mul(xr0, yi0), mul(xi0, yr0)));
  }
  dr = hn::Add(r0, r1);
  di = hn::Add(i0, i1);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
