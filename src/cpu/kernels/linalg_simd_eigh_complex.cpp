// Batched small Hermitian eigh for complex T (c64, c128): cyclic Jacobi with one SIMD lane per
// matrix (Note [Batched small linalg kernels] in linalg_simd_batch.hpp). A complex tile is two real
// tiles, re and im (A(i, j) of the L matrices: AR[(j * n + i) * L + lane], AI[...], column-major
// as the scalar kernel's working copy); the diagonal is kept apart as reals. Every step repeats,
// lane by lane, the real operations of eigh_impl / abs_ / jacobi_rotation / signed_sines /
// rotate_cols of linalg_small.cpp for complex T (complex products written out by hand there):
// change one, change both. Sorting and scaling back run per matrix through small::eigh_finish.
//
// The scalar kernel also rotates the 2x2 block's own entries and mirrors them (into the
// diagonal slots of its working copy, never read again before they are zeroed); only the
// results that are read again are computed here: the rotated rows and columns, the zeroed
// (p, q) pair, the diagonal and the vectors.
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>

#include "cpu/kernels/linalg_simd_batch.hpp"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/linalg_simd_eigh_complex.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on
#include "cpu/kernels/linalg_simd_batch-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::small {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class R>
void eigh_ctile(int n, int count, const std::complex<R>* const* a, bool lower, R* const* w_out,
                std::complex<R>* const* v_out, bool* ok) {
  using C = std::complex<R>;
  if (n == 1) {
    for (int l = 0; l < count; ++l)
      if (a[l] != nullptr) ok[l] = eigh<C>(1, a[l], lower, w_out[l], v_out ? v_out[l] : nullptr);
    return;
  }
  const hn::ScalableTag<R> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const std::size_t L = t.L;
  constexpr R eps = std::numeric_limits<R>::epsilon();
  const bool vectors = v_out != nullptr;

  HWY_ALIGN R AR[kMaxDim * kMaxDim * kL];  // A(i, j) = A[(j * n + i) * L + lane]
  HWY_ALIGN R AI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R VR[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R VI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R dg[kMaxDim * kL];
  HWY_ALIGN R amax[kL], f1[kL], f2[kL];
  int e[kL];
  for (std::size_t l = 0; l < L; ++l) {
    const C* al = static_cast<int>(l) < count ? a[l] : nullptr;
    R mx = 0;
    for (int i = 0; i < n; ++i) {
      const R di = al == nullptr ? R(0) : al[i * n + i].real();
      dg[i * L + l] = di;
      mx = maxr(mx, std::fabs(di));
      for (int j = 0; j < i; ++j) {
        const C x = al == nullptr ? C(0) : lower ? al[i * n + j] : std::conj(al[j * n + i]);
        AR[(j * n + i) * L + l] = x.real();  // A(i, j)
        AI[(j * n + i) * L + l] = x.imag();
        AR[(i * n + j) * L + l] = x.real();  // A(j, i) = conj(x)
        AI[(i * n + j) * L + l] = -x.imag();
        mx = maxr(mx, maxr(std::fabs(x.real()), std::fabs(x.imag())));
      }
      AR[(i * n + i) * L + l] = 0;
      AI[(i * n + i) * L + l] = 0;
    }
    amax[l] = mx;
  }
  if (scale_factors(amax, static_cast<int>(L), e, f1, f2)) {
    scale(t, f1, f2, AR, n * n);
    scale(t, f1, f2, AI, n * n);
    scale(t, f1, f2, dg, n);
  }
  const V zero = hn::Zero(d), one = hn::Set(d, R(1));
  if (vectors)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        t.store(i == j ? one : zero, VR, j * n + i);
        t.store(zero, VI, j * n + i);
      }

  V fro2 = zero;
  for (int i = 0; i < n; ++i) fro2 = hn::Add(fro2, mul(t.load(dg, i), t.load(dg, i)));
  fro2 = hn::Add(fro2, csumsq(t, CCol<R>{AR, AI}, n * n));
  const V tol_abs = mul(hn::Set(d, eps * eps), hn::Sqrt(fro2));
  const V veps = hn::Set(d, eps);

  auto last = hn::Lt(zero, zero);  // lanes that rotated in the last sweep
  for (int sweep = 0; sweep < 60; ++sweep) {
    auto rotated = hn::Lt(zero, zero);
    for (int p = 0; p < n - 1; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const V gr = t.load(AR, q * n + p), gi = t.load(AI, q * n + p);  // A(p, q)
        const V absg = cabs(d, gr, gi);
        const V dp = t.load(dg, p), dq = t.load(dg, q);
        const auto skip =
            hn::Or(hn::Le(absg, tol_abs),
                   hn::Le(absg, mul(mul(veps, hn::Sqrt(hn::Abs(dp))), hn::Sqrt(hn::Abs(dq)))));
        const auto rot = hn::Not(skip);
        if (hn::AllFalse(d, rot)) continue;
        rotated = hn::Or(rotated, rot);
        V c, s, tt;
        jacobi_rotation(d, dp, dq, absg, c, s, tt);
        // signed_sines: se = (g (1 / |g|)) s.
        const V inv = hn::Div(one, absg);
        const V ser = mul(mul(gr, inv), s), sei = mul(mul(gi, inv), s);
        const V ta = mul(tt, absg);
        t.store(hn::IfThenElse(rot, hn::Sub(dp, ta), dp), dg, p);
        t.store(hn::IfThenElse(rot, hn::Add(dq, ta), dq), dg, q);
        const V secr = ser, seci = hn::Neg(sei);
        for (int r = 0; r < n; ++r) {
          if (r == p || r == q) continue;
          const std::size_t rp = static_cast<std::size_t>(p * n + r) * L;  // A(r, p)
          const std::size_t rq = static_cast<std::size_t>(q * n + r) * L;  // A(r, q)
          const V xr = hn::Load(d, AR + rp), xi = hn::Load(d, AI + rp);
          const V yr = hn::Load(d, AR + rq), yi = hn::Load(d, AI + rq);
          const V xnr =
              hn::IfThenElse(rot, hn::Sub(mul(xr, c), hn::Sub(mul(secr, yr), mul(seci, yi))), xr);
          const V xni =
              hn::IfThenElse(rot, hn::Sub(mul(xi, c), hn::Add(mul(secr, yi), mul(seci, yr))), xi);
          const V ynr =
              hn::IfThenElse(rot, hn::Add(hn::Sub(mul(ser, xr), mul(sei, xi)), mul(yr, c)), yr);
          const V yni =
              hn::IfThenElse(rot, hn::Add(hn::Add(mul(ser, xi), mul(sei, xr)), mul(yi, c)), yi);
          hn::Store(xnr, d, AR + rp);
          hn::Store(xni, d, AI + rp);
          hn::Store(ynr, d, AR + rq);
          hn::Store(yni, d, AI + rq);
          // Rows p and q: A(p, r) = conj(A(r, p)), A(q, r) = conj(A(r, q)).
          t.store(xnr, AR, r * n + p);
          t.store(hn::Neg(xni), AI, r * n + p);
          t.store(ynr, AR, r * n + q);
          t.store(hn::Neg(yni), AI, r * n + q);
        }
        // The rotated pair is zero (exactly, as the scalar kernel writes it).
        t.store(hn::IfThenElseZero(skip, gr), AR, q * n + p);
        t.store(hn::IfThenElseZero(skip, gi), AI, q * n + p);
        t.store(hn::IfThenElseZero(skip, t.load(AR, p * n + q)), AR, p * n + q);
        t.store(hn::IfThenElseZero(skip, t.load(AI, p * n + q)), AI, p * n + q);
        if (vectors) {
          const CCol<R> vp{VR + p * n * L, VI + p * n * L}, vq{VR + q * n * L, VI + q * n * L};
          crotate(t, rot, c, ser, sei, vp, vq, n);
        }
      }
    }
    last = rotated;
    if (hn::AllFalse(d, rotated)) break;
  }

  HWY_ALIGN R conv[kL];
  hn::Store(hn::IfThenElseZero(hn::Not(last), one), d, conv);
  R dl[kMaxDim];
  C vl[kMaxDim * kMaxDim];
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    for (int k = 0; k < n; ++k) dl[k] = dg[k * L + l];
    if (vectors)
      for (int k = 0; k < n * n; ++k) vl[k] = C(VR[k * L + l], VI[k * L + l]);
    eigh_finish<C>(n, dl, vectors ? vl : nullptr, e[l], w_out[l], vectors ? v_out[l] : nullptr);
    ok[l] = conv[l] != R(0);
  }
}

void EighC64(int n, int count, const std::complex<float>* const* a, bool lower, float* const* w,
             std::complex<float>* const* v, bool* ok) {
  eigh_ctile<float>(n, count, a, lower, w, v, ok);
}
void EighC128(int n, int count, const std::complex<double>* const* a, bool lower, double* const* w,
              std::complex<double>* const* v, bool* ok) {
  eigh_ctile<double>(n, count, a, lower, w, v, ok);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {

HWY_EXPORT(EighC64);
HWY_EXPORT(EighC128);

template <>
void eigh_batch<c64>(int n, int count, const c64* const* a, bool lower, float* const* w,
                     c64* const* v, bool* ok) {
  HWY_DYNAMIC_DISPATCH(EighC64)(n, count, a, lower, w, v, ok);
}
template <>
void eigh_batch<c128>(int n, int count, const c128* const* a, bool lower, double* const* w,
                      c128* const* v, bool* ok) {
  HWY_DYNAMIC_DISPATCH(EighC128)(n, count, a, lower, w, v, ok);
}

}  // namespace tenferro::detail::small
#endif  // HWY_ONCE
