// Batched small Cholesky and LU for complex T (c64, c128): one SIMD lane per matrix, as
// linalg_simd_solve.cpp for f32/f64 (Note [Batched small linalg kernels] in linalg_simd_batch.hpp).
// A complex tile is two real tiles, re and im (element (i, j) of the L matrices: XR[(i * n + j) *
// L + lane], XI[...]), so every vector operation is a real one of the scalar loops in
// linalg_small.cpp, which spell complex arithmetic out in real operations for this purpose
// (Note [Complex batched solve arithmetic] there): change one, change both.
//
// Per-lane decisions as in the real kernels: a Cholesky lane whose pivot is not positive stops; the
// LU pivot is the first largest |re| + |im|; an exactly zero pivot (both parts) skips that column;
// Smith's branch (|d im| <= |d re|) is a select of the operands, so each lane computes exactly
// its own branch's operations.
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>

#include "cpu/kernels/linalg_simd_batch.hpp"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/linalg_simd_solve_complex.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on
#include "cpu/kernels/linalg_simd_batch-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::small {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using I64 = std::int64_t;

// x * y as fast_mul: (xr yr - xi yi, xr yi + xi yr).
template <class V>
HWY_INLINE void cmul(V xr, V xi, V yr, V yi, V& pr, V& pi) {
  pr = hn::Sub(mul(xr, yr), mul(xi, yi));
  pi = hn::Add(mul(xr, yi), mul(xi, yr));
}

// cdiv_setup / cdiv of linalg_small.cpp (Smith's formula) per lane.
template <class D, class V = hn::Vec<D>>
struct CDivV {
  hn::Mask<D> plain;  // |d im| <= |d re|: not swapped
  V ratio, den;
};
template <class D, class V = hn::Vec<D>>
HWY_INLINE CDivV<D> cdiv_setup(V dr, V di) {
  const auto plain = hn::Le(hn::Abs(di), hn::Abs(dr));  // false for NaN, as the scalar test
  const V p = hn::IfThenElse(plain, dr, di), q = hn::IfThenElse(plain, di, dr);
  const V ratio = hn::Div(q, p);
  return {plain, ratio, hn::Add(p, mul(q, ratio))};
}
template <class D, class V = hn::Vec<D>>
HWY_INLINE void cdiv(const CDivV<D>& c, V xr, V xi, V& qr, V& qi) {
  const V rr = mul(xr, c.ratio), ir = mul(xi, c.ratio);
  // plain: ((xr + ir) / den, (xi - rr) / den); swapped: ((rr + xi) / den, (ir - xr) / den).
  qr = hn::Div(hn::Add(hn::IfThenElse(c.plain, xr, rr), hn::IfThenElse(c.plain, ir, xi)), c.den);
  qi = hn::Div(hn::Sub(hn::IfThenElse(c.plain, xi, ir), hn::IfThenElse(c.plain, rr, xr)), c.den);
}

// Loads the tile's matrices (element (i, j) of lane l at a[l][i * rs + j * cs]; empty lanes: the
// identity) into XR, XI; lower: the lower triangle only.
template <class R>
void load_ctile(int m, int n, int count, int L, const std::complex<R>* const* a, I64 rs, I64 cs,
                bool lower, R* XR, R* XI) {
  for (int l = 0; l < L; ++l) {
    const std::complex<R>* al = l < count ? a[l] : nullptr;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < (lower ? i + 1 : n); ++j) {
        const std::complex<R> x = al != nullptr ? al[i * rs + j * cs] : std::complex<R>(i == j);
        XR[(i * n + j) * L + l] = x.real();
        XI[(i * n + j) * L + l] = x.imag();
      }
  }
}

// cholesky of linalg_small.cpp, complex T.
template <class R>
void cholesky_ctile(int n, int count, const std::complex<R>* const* a, I64 rs, I64 cs,
                    std::complex<R>* const* l_out, int* info) {
  const hn::ScalableTag<R> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const std::size_t L = t.L;
  HWY_ALIGN R XR[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R XI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R SR[kMaxDim * kL];
  HWY_ALIGN R SI[kMaxDim * kL];
  load_ctile(n, n, count, static_cast<int>(L), a, rs, cs, /*lower=*/true, XR, XI);
  const V zero = hn::Zero(d);
  auto alive = hn::Eq(zero, zero);
  V fail_at = zero;  // j + 1 of the failing column, 0 where none failed
  for (int j = 0; j < n; ++j) {
    const std::size_t rj = static_cast<std::size_t>(j) * n * L;
    const V ajj = t.load(XR + rj, j);
    V dj = ajj;
    for (int k = 0; k < j; ++k) {
      const V xr = t.load(XR + rj, k), xi = t.load(XI + rj, k);
      dj = hn::Sub(dj, hn::Add(mul(xr, xr), mul(xi, xi)));
    }
    const auto pos = hn::Gt(dj, zero);  // false for NaN too
    if (!hn::AllTrue(d, hn::Or(pos, hn::Not(alive)))) {
      fail_at = hn::IfThenElse(hn::AndNot(pos, alive), hn::Set(d, R(j + 1)), fail_at);
      alive = hn::And(alive, pos);
      if (hn::AllFalse(d, alive)) break;
    }
    const V ljj = hn::Sqrt(dj);
    t.store(hn::IfThenElse(alive, ljj, ajj), XR + rj, j);
    t.store(hn::IfThenElse(alive, zero, t.load(XI + rj, j)), XI + rj, j);
    // s_i = a_ij - sum_k a_ik conj(a_jk), k-outer so that the rows' chains interleave (each s_i
    // still subtracts in ascending k, as the scalar loop).
    for (int i = j + 1; i < n; ++i) {
      const std::size_t ri = static_cast<std::size_t>(i) * n * L;
      t.store(t.load(XR + ri, j), SR, i);
      t.store(t.load(XI + ri, j), SI, i);
    }
    for (int k = 0; k < j; ++k) {
      const V br = t.load(XR + rj, k), bi = t.load(XI + rj, k);
      for (int i = j + 1; i < n; ++i) {
        const std::size_t ri = static_cast<std::size_t>(i) * n * L;
        const V ar = t.load(XR + ri, k), ai = t.load(XI + ri, k);
        t.store(hn::Sub(t.load(SR, i), hn::Add(mul(ar, br), mul(ai, bi))), SR, i);
        t.store(hn::Sub(t.load(SI, i), hn::Sub(mul(ai, br), mul(ar, bi))), SI, i);
      }
    }
    for (int i = j + 1; i < n; ++i) {
      const std::size_t ri = static_cast<std::size_t>(i) * n * L;
      t.store(hn::IfThenElse(alive, hn::Div(t.load(SR, i), ljj), t.load(XR + ri, j)), XR + ri, j);
      t.store(hn::IfThenElse(alive, hn::Div(t.load(SI, i), ljj), t.load(XI + ri, j)), XI + ri, j);
    }
  }
  HWY_ALIGN R fails[kL];
  hn::Store(fail_at, d, fails);
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    std::complex<R>* out = l_out[l];
    info[l] = static_cast<int>(fails[l]);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const std::size_t e = static_cast<std::size_t>(i * n + j) * L + l;
        out[i * n + j] = j <= i ? std::complex<R>(XR[e], XI[e]) : std::complex<R>(0);
      }
  }
}

// The LU of a complex tile in AR, AI (element (i, j) at [(i * n + j) * L + lane]); pivots as
// values of R in P[c * L + lane]; returns the per-lane info (1 + first zero pivot column, 0).
template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> lu_ctile(const Tile<D>& t, int m, int n, R* AR, R* AI, R* P) {
  const D d = t.d;
  using V = hn::Vec<D>;
  const std::size_t L = t.L;
  const int k = m < n ? m : n;
  const V zero = hn::Zero(d);
  V info = zero;
  for (int c = 0; c < k; ++c) {
    const std::size_t rc = static_cast<std::size_t>(c) * n * L;
    V best = hn::Add(hn::Abs(t.load(AR + rc, c)), hn::Abs(t.load(AI + rc, c)));
    V p = hn::Set(d, R(c));
    for (int i = c + 1; i < m; ++i) {
      const std::size_t ri = static_cast<std::size_t>(i) * n * L;
      const V ai = hn::Add(hn::Abs(t.load(AR + ri, c)), hn::Abs(t.load(AI + ri, c)));
      const auto gt = hn::Gt(ai, best);
      best = hn::IfThenElse(gt, ai, best);
      p = hn::IfThenElse(gt, hn::Set(d, R(i)), p);
    }
    t.store(p, P, c);
    if (!hn::AllTrue(d, hn::Eq(p, hn::Set(d, R(c))))) {
      swap_rows(t, p, c, m, n, AR);
      swap_rows(t, p, c, m, n, AI);
    }
    const V dr = t.load(AR + rc, c), di = t.load(AI + rc, c);
    // d != 0 as C++'s complex compare has it (true for NaN); hn::Ne is ordered.
    const auto nz = hn::Not(hn::And(hn::Eq(dr, zero), hn::Eq(di, zero)));
    if (!hn::AllTrue(d, nz)) {
      info = hn::IfThenElse(hn::AndNot(nz, hn::Eq(info, zero)), hn::Set(d, R(c + 1)), info);
      if (hn::AllFalse(d, nz)) continue;
    }
    const CDivV<D> q = cdiv_setup<D>(dr, di);
    for (int i = c + 1; i < m; ++i) {
      const std::size_t ri = static_cast<std::size_t>(i) * n * L;
      const V oldr = t.load(AR + ri, c), oldi = t.load(AI + ri, c);
      V lr, li;
      cdiv(q, oldr, oldi, lr, li);
      t.store(hn::IfThenElse(nz, lr, oldr), AR + ri, c);
      t.store(hn::IfThenElse(nz, li, oldi), AI + ri, c);
      for (int j = c + 1; j < n; ++j) {
        V pr, pi;
        cmul(lr, li, t.load(AR + rc, j), t.load(AI + rc, j), pr, pi);
        const V yr = t.load(AR + ri, j), yi = t.load(AI + ri, j);
        t.store(hn::IfThenElse(nz, hn::Sub(yr, pr), yr), AR + ri, j);
        t.store(hn::IfThenElse(nz, hn::Sub(yi, pi), yi), AI + ri, j);
      }
    }
  }
  return info;
}

template <class R>
void lu_batch_ctile(int m, int n, int count, const std::complex<R>* const* a, I64 rs, I64 cs,
                    std::complex<R>* const* lu_out, int* const* piv, int* info) {
  const hn::ScalableTag<R> d;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const std::size_t L = t.L;
  HWY_ALIGN R AR[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R AI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R P[kMaxDim * kL];
  HWY_ALIGN R inf[kL];
  load_ctile(m, n, count, static_cast<int>(L), a, rs, cs, /*lower=*/false, AR, AI);
  hn::Store(lu_ctile(t, m, n, AR, AI, P), d, inf);
  const int k = m < n ? m : n;
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    info[l] = static_cast<int>(inf[l]);
    for (int c = 0; c < k; ++c) piv[l][c] = static_cast<int>(P[c * L + l]);
    for (int e = 0; e < m * n; ++e) lu_out[l][e] = std::complex<R>(AR[e * L + l], AI[e * L + l]);
  }
}

// lu_solve of linalg_small.cpp on the tile's factors, rb <= kMaxDim right-hand sides at a time
// (each column of b is solved by its own operations, so blocks give the same result).
template <class R>
void solve_ctile(int n, int r, int count, const std::complex<R>* const* a, I64 rs, I64 cs,
                 const std::complex<R>* const* b, I64 brs, I64 bcs, std::complex<R>* const* x,
                 int* info) {
  const hn::ScalableTag<R> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const std::size_t L = t.L;
  HWY_ALIGN R AR[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R AI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R P[kMaxDim * kL];
  HWY_ALIGN R BR[kMaxDim * kMaxDim * kL];  // B(i, j) = B[(i * rb + j) * L + lane]
  HWY_ALIGN R BI[kMaxDim * kMaxDim * kL];
  HWY_ALIGN R inf[kL];
  load_ctile(n, n, count, static_cast<int>(L), a, rs, cs, /*lower=*/false, AR, AI);
  hn::Store(lu_ctile(t, n, n, AR, AI, P), d, inf);
  for (int j0 = 0; j0 < r; j0 += kMaxDim) {
    const int rb = r - j0 < kMaxDim ? r - j0 : kMaxDim;
    for (std::size_t l = 0; l < L; ++l) {
      const std::complex<R>* bl = static_cast<int>(l) < count ? b[l] : nullptr;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < rb; ++j) {
          const std::complex<R> v =
              bl != nullptr ? bl[i * brs + (j0 + j) * bcs] : std::complex<R>();
          BR[(i * rb + j) * L + l] = v.real();
          BI[(i * rb + j) * L + l] = v.imag();
        }
    }
    for (int k = 0; k < n; ++k) {
      const V p = t.load(P, k);
      if (!hn::AllTrue(d, hn::Eq(p, hn::Set(d, R(k))))) {
        swap_rows(t, p, k, n, rb, BR);
        swap_rows(t, p, k, n, rb, BI);
      }
    }
    // b_i -= f b_k for the factor entry f at (i, k) of the LU.
    auto eliminate = [&](int i, int k) {
      const V fr = t.load(AR, i * n + k), fi = t.load(AI, i * n + k);
      const std::size_t bi = static_cast<std::size_t>(i) * rb * L;
      const std::size_t bk = static_cast<std::size_t>(k) * rb * L;
      for (int j = 0; j < rb; ++j) {
        V pr, pi;
        cmul(fr, fi, t.load(BR + bk, j), t.load(BI + bk, j), pr, pi);
        t.store(hn::Sub(t.load(BR + bi, j), pr), BR + bi, j);
        t.store(hn::Sub(t.load(BI + bi, j), pi), BI + bi, j);
      }
    };
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < i; ++k) eliminate(i, k);
    for (int i = n; i-- > 0;) {
      for (int k = i + 1; k < n; ++k) eliminate(i, k);
      const CDivV<decltype(d)> q =
          cdiv_setup<decltype(d)>(t.load(AR, i * n + i), t.load(AI, i * n + i));
      const std::size_t bi = static_cast<std::size_t>(i) * rb * L;
      for (int j = 0; j < rb; ++j) {
        V qr, qi;
        cdiv(q, t.load(BR + bi, j), t.load(BI + bi, j), qr, qi);
        t.store(qr, BR + bi, j);
        t.store(qi, BI + bi, j);
      }
    }
    for (int l = 0; l < count; ++l) {
      if (a[l] == nullptr) continue;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < rb; ++j) {
          const std::size_t e = static_cast<std::size_t>(i * rb + j) * L + l;
          x[l][i * r + j0 + j] = std::complex<R>(BR[e], BI[e]);
        }
    }
  }
  for (int l = 0; l < count; ++l)
    if (a[l] != nullptr) info[l] = static_cast<int>(inf[l]);
}

using C64 = std::complex<float>;
using C128 = std::complex<double>;

void CholeskyC64(int n, int count, const C64* const* a, I64 rs, I64 cs, C64* const* l, int* info) {
  cholesky_ctile<float>(n, count, a, rs, cs, l, info);
}
void CholeskyC128(int n, int count, const C128* const* a, I64 rs, I64 cs, C128* const* l,
                  int* info) {
  cholesky_ctile<double>(n, count, a, rs, cs, l, info);
}
void LuC64(int m, int n, int count, const C64* const* a, I64 rs, I64 cs, C64* const* lu,
           int* const* piv, int* info) {
  lu_batch_ctile<float>(m, n, count, a, rs, cs, lu, piv, info);
}
void LuC128(int m, int n, int count, const C128* const* a, I64 rs, I64 cs, C128* const* lu,
            int* const* piv, int* info) {
  lu_batch_ctile<double>(m, n, count, a, rs, cs, lu, piv, info);
}
void SolveC64(int n, int r, int count, const C64* const* a, I64 rs, I64 cs, const C64* const* b,
              I64 brs, I64 bcs, C64* const* x, int* info) {
  solve_ctile<float>(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}
void SolveC128(int n, int r, int count, const C128* const* a, I64 rs, I64 cs, const C128* const* b,
               I64 brs, I64 bcs, C128* const* x, int* info) {
  solve_ctile<double>(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {

HWY_EXPORT(CholeskyC64);
HWY_EXPORT(CholeskyC128);
HWY_EXPORT(LuC64);
HWY_EXPORT(LuC128);
HWY_EXPORT(SolveC64);
HWY_EXPORT(SolveC128);

// A complex tile holds as many matrices as its real type has lanes.
template <>
int batch_lanes<c64>() {
  return batch_lanes<float>();
}
template <>
int batch_lanes<c128>() {
  return batch_lanes<double>();
}
template <>
void cholesky_batch<c64>(int n, int count, const c64* const* a, std::int64_t rs, std::int64_t cs,
                         c64* const* l, int* info) {
  HWY_DYNAMIC_DISPATCH(CholeskyC64)(n, count, a, rs, cs, l, info);
}
template <>
void cholesky_batch<c128>(int n, int count, const c128* const* a, std::int64_t rs, std::int64_t cs,
                          c128* const* l, int* info) {
  HWY_DYNAMIC_DISPATCH(CholeskyC128)(n, count, a, rs, cs, l, info);
}
template <>
void lu_batch<c64>(int m, int n, int count, const c64* const* a, std::int64_t rs, std::int64_t cs,
                   c64* const* lu, int* const* piv, int* info) {
  HWY_DYNAMIC_DISPATCH(LuC64)(m, n, count, a, rs, cs, lu, piv, info);
}
template <>
void lu_batch<c128>(int m, int n, int count, const c128* const* a, std::int64_t rs, std::int64_t cs,
                    c128* const* lu, int* const* piv, int* info) {
  HWY_DYNAMIC_DISPATCH(LuC128)(m, n, count, a, rs, cs, lu, piv, info);
}
template <>
void solve_batch<c64>(int n, int r, int count, const c64* const* a, std::int64_t rs,
                      std::int64_t cs, const c64* const* b, std::int64_t brs, std::int64_t bcs,
                      c64* const* x, int* info) {
  HWY_DYNAMIC_DISPATCH(SolveC64)(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}
template <>
void solve_batch<c128>(int n, int r, int count, const c128* const* a, std::int64_t rs,
                       std::int64_t cs, const c128* const* b, std::int64_t brs, std::int64_t bcs,
                       c128* const* x, int* info) {
  HWY_DYNAMIC_DISPATCH(SolveC128)(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}

}  // namespace tenferro::detail::small
#endif  // HWY_ONCE
