// Batched small svd for complex T (c64, c128): one-sided (Hestenes) Jacobi with one SIMD lane per
// matrix (Note [Batched small linalg kernels] in linalg_simd_batch.hpp). A complex tile is two
// real tiles, re and im (G(i, j) of the L working matrices: GR[(j * M + i) * L + lane], GI[...],
// column-major as the scalar kernel's working copy of a, or of a^H when m < n). Every step
// repeats, lane by lane, the real operations of svd_impl / dotc / abs_ / jacobi_rotation /
// signed_sines / rotate_cols_norms of linalg_small.cpp for complex T (complex products written out
// by hand there): change one, change both. Sorting, scaling back and the left vectors run per
// matrix through small::svd_finish.
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>

#include "cpu/kernels/linalg_simd_batch.hpp"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/linalg_simd_svd_complex.cpp"
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
void svd_ctile(int m, int n, int count, const std::complex<R>* const* a,
               std::complex<R>* const* u_out, R* const* s_out, std::complex<R>* const* vh_out,
               bool* ok) {
  using C = std::complex<R>;
  const hn::ScalableTag<R> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const std::size_t L = t.L;
  constexpr R eps = std::numeric_limits<R>::epsilon();
  const bool vectors = u_out != nullptr || vh_out != nullptr;
  const bool trans = m < n;
  const int M = trans ? n : m, N = trans ? m : n;

  HWY_ALIGN R GR[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R GI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R VR[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R VI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R nrm[kMaxDim * kL];
  HWY_ALIGN R amax[kL], f1[kL], f2[kL];
  int e[kL];
  for (std::size_t l = 0; l < L; ++l) {
    const C* al = static_cast<int>(l) < count ? a[l] : nullptr;
    R mx = 0;
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < M; ++i) {
        // Column j of a^H is the conjugate of row j of a.
        const C x = al == nullptr ? C(0) : trans ? al[j * n + i] : al[i * n + j];
        GR[(j * M + i) * L + l] = x.real();
        GI[(j * M + i) * L + l] = trans ? -x.imag() : x.imag();
        mx = maxr(mx, maxr(std::fabs(x.real()), std::fabs(x.imag())));
      }
    amax[l] = mx;
  }
  if (scale_factors(amax, static_cast<int>(L), e, f1, f2)) {
    scale(t, f1, f2, GR, M * N);
    scale(t, f1, f2, GI, M * N);
  }
  auto col = [&](R* re, R* im, int j, int len) {
    return CCol<R>{re + static_cast<std::size_t>(j) * len * L,
                   im + static_cast<std::size_t>(j) * len * L};
  };
  for (int j = 0; j < N; ++j) t.store(csumsq(t, col(GR, GI, j, M), M), nrm, j);
  const V zero = hn::Zero(d), one = hn::Set(d, R(1));
  if (vectors)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) {
        t.store(i == j ? one : zero, VR, j * N + i);
        t.store(zero, VI, j * N + i);
      }

  const V tol = hn::Set(d, std::sqrt(R(M)) * eps);
  const V eps4 = hn::Set(d, eps * eps * eps * eps);
  const V floor_abs = hn::Set(d, std::numeric_limits<R>::min() / eps);
  auto last = hn::Lt(zero, zero);  // lanes that rotated in the last sweep
  for (int sweep = 0; sweep < 60; ++sweep) {
    auto rotated = hn::Lt(zero, zero);
    for (int p = 0; p < N - 1; ++p) {
      for (int q = p + 1; q < N; ++q) {
        const CCol<R> gp = col(GR, GI, p, M), gq = col(GR, GI, q, M);
        V gr, gi;
        cdotc(t, gp, gq, M, gr, gi);
        const V absg = cabs(d, gr, gi);
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
        // signed_sines: se = (gamma (1 / |gamma|)) s.
        const V inv = hn::Div(one, absg);
        const V ser = mul(mul(gr, inv), s), sei = mul(mul(gi, inv), s);
        crotate(t, rot, c, ser, sei, gp, gq, M);
        t.store(hn::IfThenElse(rot, csumsq(t, gp, M), np), nrm, p);
        t.store(hn::IfThenElse(rot, csumsq(t, gq, M), nq), nrm, q);
        if (vectors) crotate(t, rot, c, ser, sei, col(VR, VI, p, N), col(VR, VI, q, N), N);
      }
    }
    last = rotated;
    if (hn::AllFalse(d, rotated)) break;
  }

  HWY_ALIGN R conv[kL];
  hn::Store(hn::IfThenElseZero(hn::Not(last), one), d, conv);
  C gl[kMaxDim * kMaxDim], vl[kMaxDim * kMaxDim];
  R nl[kMaxDim];
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    for (int k = 0; k < M * N; ++k) gl[k] = C(GR[k * L + l], GI[k * L + l]);
    if (vectors)
      for (int k = 0; k < N * N; ++k) vl[k] = C(VR[k * L + l], VI[k * L + l]);
    for (int k = 0; k < N; ++k) nl[k] = nrm[k * L + l];
    svd_finish<C>(m, n, gl, vectors ? vl : nullptr, nl, e[l], vectors ? u_out[l] : nullptr,
                  s_out[l], vectors ? vh_out[l] : nullptr);
    ok[l] = conv[l] != R(0);
  }
}

void SvdC64(int m, int n, int count, const std::complex<float>* const* a,
            std::complex<float>* const* u, float* const* s, std::complex<float>* const* vh,
            bool* ok) {
  svd_ctile<float>(m, n, count, a, u, s, vh, ok);
}
void SvdC128(int m, int n, int count, const std::complex<double>* const* a,
             std::complex<double>* const* u, double* const* s, std::complex<double>* const* vh,
             bool* ok) {
  svd_ctile<double>(m, n, count, a, u, s, vh, ok);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {

HWY_EXPORT(SvdC64);
HWY_EXPORT(SvdC128);

template <>
void svd_batch<c64>(int m, int n, int count, const c64* const* a, c64* const* u, float* const* s,
                    c64* const* vh, bool* ok) {
  HWY_DYNAMIC_DISPATCH(SvdC64)(m, n, count, a, u, s, vh, ok);
}
template <>
void svd_batch<c128>(int m, int n, int count, const c128* const* a, c128* const* u,
                     double* const* s, c128* const* vh, bool* ok) {
  HWY_DYNAMIC_DISPATCH(SvdC128)(m, n, count, a, u, s, vh, ok);
}

}  // namespace tenferro::detail::small
#endif  // HWY_ONCE
