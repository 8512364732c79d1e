// Batched small Cholesky and LU (Note [Batched small linalg kernels] in linalg_simd_batch.hpp): one
// SIMD lane per matrix. foreach_target.h compiles this file once per x86 target;
// HWY_DYNAMIC_DISPATCH picks the best one on the first call. Each function mirrors its scalar twin
// in linalg_small.cpp (small::cholesky, lu, lu_solve) operation for operation: change one, change
// both.
//
// Per-lane decisions: a Cholesky lane whose pivot is not positive stops (its later columns are
// not written, as the scalar loop breaks); the LU pivot is the first largest |a_ic| (strict >, so a
// NaN never replaces the current best), the row swap is a select on the lanes whose pivot is that
// row, and a lane with an exactly zero pivot skips that column's elimination.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "cpu/kernels/linalg_simd_batch.hpp"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/linalg_simd_solve.cpp"
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

// cholesky of linalg_small.cpp. X(i, j) = X[(i * n + j) * L + lane], lower triangle only.
template <class T>
void cholesky_tile(int n, int count, const T* const* a, I64 rs, I64 cs, T* const* l_out,
                   int* info) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const int L = static_cast<int>(t.L);
  HWY_ALIGN T X[kMaxDim * kMaxDim * kL];
  HWY_ALIGN T S[kMaxDim * kL];
  for (int l = 0; l < L; ++l) {
    const T* al = l < count ? a[l] : nullptr;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j)
        X[(i * n + j) * L + l] = al != nullptr ? al[i * rs + j * cs] : T(i == j ? 1 : 0);
  }
  const V zero = hn::Zero(d);
  auto alive = hn::Eq(zero, zero);
  V fail_at = zero;  // j + 1 of the failing column, 0 where none failed
  for (int j = 0; j < n; ++j) {
    T* xj = X + static_cast<std::size_t>(j) * n * L;
    const V ajj = t.load(xj, j);
    V dj = ajj;
    for (int k = 0; k < j; ++k) {
      const V x = t.load(xj, k);
      dj = hn::Sub(dj, mul(x, x));
    }
    const auto pos = hn::Gt(dj, zero);  // false for NaN too
    if (!hn::AllTrue(d, hn::Or(pos, hn::Not(alive)))) {
      fail_at = hn::IfThenElse(hn::AndNot(pos, alive), hn::Set(d, T(j + 1)), fail_at);
      alive = hn::And(alive, pos);
      if (hn::AllFalse(d, alive)) break;
    }
    const V ljj = hn::Sqrt(dj);
    t.store(hn::IfThenElse(alive, ljj, ajj), xj, j);
    // l_ij for every i > j: the sums run k-outer so that the rows' chains interleave (each s_i
    // still subtracts its products in ascending k, as the scalar loop).
    for (int i = j + 1; i < n; ++i)
      t.store(t.load(X + static_cast<std::size_t>(i) * n * L, j), S, i);
    for (int k = 0; k < j; ++k) {
      const V xjk = t.load(xj, k);
      for (int i = j + 1; i < n; ++i)
        t.store(hn::Sub(t.load(S, i), mul(t.load(X + static_cast<std::size_t>(i) * n * L, k), xjk)),
                S, i);
    }
    for (int i = j + 1; i < n; ++i) {
      T* xi = X + static_cast<std::size_t>(i) * n * L;
      t.store(hn::IfThenElse(alive, hn::Div(t.load(S, i), ljj), t.load(xi, j)), xi, j);
    }
  }
  HWY_ALIGN T fails[kL];
  hn::Store(fail_at, d, fails);
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    T* out = l_out[l];
    info[l] = static_cast<int>(fails[l]);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) out[i * n + j] = j <= i ? X[(i * n + j) * L + l] : T(0);
  }
}

// The LU of a tile in A (A(i, j) = A[(i * n + j) * L + lane]); pivots as values of T in
// P[c * L + lane]; returns the per-lane info (1 + first zero pivot column, 0 for none).
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> lu_tile(const Tile<D>& t, int m, int n, T* A, T* P) {
  const D d = t.d;
  using V = hn::Vec<D>;
  const std::size_t L = t.L;
  const int k = m < n ? m : n;
  const V zero = hn::Zero(d);
  V info = zero;
  for (int c = 0; c < k; ++c) {
    T* rc = A + static_cast<std::size_t>(c) * n * L;
    V best = hn::Abs(t.load(rc, c));
    V p = hn::Set(d, T(c));
    for (int i = c + 1; i < m; ++i) {
      const V ai = hn::Abs(t.load(A + static_cast<std::size_t>(i) * n * L, c));
      const auto gt = hn::Gt(ai, best);
      best = hn::IfThenElse(gt, ai, best);
      p = hn::IfThenElse(gt, hn::Set(d, T(i)), p);
    }
    t.store(p, P, c);
    if (!hn::AllTrue(d, hn::Eq(p, hn::Set(d, T(c))))) swap_rows(t, p, c, m, n, A);
    const V dc = t.load(rc, c);
    // d != 0 as C++ has it (true for NaN: eliminated as the scalar code); hn::Ne is ordered.
    const auto nz = hn::Not(hn::Eq(dc, zero));
    if (!hn::AllTrue(d, nz)) {
      info = hn::IfThenElse(hn::AndNot(nz, hn::Eq(info, zero)), hn::Set(d, T(c + 1)), info);
      if (hn::AllFalse(d, nz)) continue;
    }
    const bool all = hn::AllTrue(d, nz);
    for (int i = c + 1; i < m; ++i) {
      T* ri = A + static_cast<std::size_t>(i) * n * L;
      const V old = t.load(ri, c);
      const V l = hn::Div(old, dc);
      if (all) {
        t.store(l, ri, c);
        for (int j = c + 1; j < n; ++j)
          t.store(hn::Sub(t.load(ri, j), mul(l, t.load(rc, j))), ri, j);
      } else {
        t.store(hn::IfThenElse(nz, l, old), ri, c);
        for (int j = c + 1; j < n; ++j) {
          const V y = t.load(ri, j);
          t.store(hn::IfThenElse(nz, hn::Sub(y, mul(l, t.load(rc, j))), y), ri, j);
        }
      }
    }
  }
  return info;
}

// Loads the tile's matrices (element (i, j) of lane l at a[l][i * rs + j * cs]; empty lanes: the
// identity) into A(i, j) = A[(i * n + j) * L + lane].
template <class T>
void load_tile(int m, int n, int count, int L, const T* const* a, I64 rs, I64 cs, T* A) {
  for (int l = 0; l < L; ++l) {
    const T* al = l < count ? a[l] : nullptr;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        A[(i * n + j) * L + l] = al != nullptr ? al[i * rs + j * cs] : T(i == j ? 1 : 0);
  }
}

template <class T>
void lu_batch_tile(int m, int n, int count, const T* const* a, I64 rs, I64 cs, T* const* lu_out,
                   int* const* piv, int* info) {
  const hn::ScalableTag<T> d;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const int L = static_cast<int>(t.L);
  HWY_ALIGN T A[kMaxDim * kMaxDim * kL];
  HWY_ALIGN T P[kMaxDim * kL];
  HWY_ALIGN T inf[kL];
  load_tile(m, n, count, L, a, rs, cs, A);
  hn::Store(lu_tile(t, m, n, A, P), d, inf);
  const int k = m < n ? m : n;
  for (int l = 0; l < count; ++l) {
    if (a[l] == nullptr) continue;
    info[l] = static_cast<int>(inf[l]);
    for (int c = 0; c < k; ++c) piv[l][c] = static_cast<int>(P[c * L + l]);
    for (int e = 0; e < m * n; ++e) lu_out[l][e] = A[e * L + l];
  }
}

// lu_solve of linalg_small.cpp on the tile's factors, rb <= kMaxDim right-hand sides at a time
// (each column of b is solved by its own operations, so blocks give the same result).
template <class T>
void solve_tile(int n, int r, int count, const T* const* a, I64 rs, I64 cs, const T* const* b,
                I64 brs, I64 bcs, T* const* x, int* info) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kL = hn::MaxLanes(d);
  const Tile<decltype(d)> t{d, hn::Lanes(d)};
  const std::size_t L = t.L;
  const int Li = static_cast<int>(L);
  HWY_ALIGN T A[kMaxDim * kMaxDim * kL];
  HWY_ALIGN T P[kMaxDim * kL];
  HWY_ALIGN T B[kMaxDim * kMaxDim * kL];  // B(i, j) = B[(i * rb + j) * L + lane]
  HWY_ALIGN T inf[kL];
  load_tile(n, n, count, Li, a, rs, cs, A);
  hn::Store(lu_tile(t, n, n, A, P), d, inf);
  for (int j0 = 0; j0 < r; j0 += kMaxDim) {
    const int rb = r - j0 < kMaxDim ? r - j0 : kMaxDim;
    for (int l = 0; l < Li; ++l) {
      const T* bl = l < count ? b[l] : nullptr;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < rb; ++j)
          B[(i * rb + j) * L + l] = bl != nullptr ? bl[i * brs + (j0 + j) * bcs] : T(0);
    }
    for (int k = 0; k < n; ++k) {
      const V p = t.load(P, k);
      if (!hn::AllTrue(d, hn::Eq(p, hn::Set(d, T(k))))) swap_rows(t, p, k, n, rb, B);
    }
    for (int i = 0; i < n; ++i) {
      T* bi = B + static_cast<std::size_t>(i) * rb * L;
      for (int k = 0; k < i; ++k) {
        const V lv = t.load(A, i * n + k);
        const T* bk = B + static_cast<std::size_t>(k) * rb * L;
        for (int j = 0; j < rb; ++j) t.store(hn::Sub(t.load(bi, j), mul(lv, t.load(bk, j))), bi, j);
      }
    }
    for (int i = n; i-- > 0;) {
      T* bi = B + static_cast<std::size_t>(i) * rb * L;
      for (int k = i + 1; k < n; ++k) {
        const V uv = t.load(A, i * n + k);
        const T* bk = B + static_cast<std::size_t>(k) * rb * L;
        for (int j = 0; j < rb; ++j) t.store(hn::Sub(t.load(bi, j), mul(uv, t.load(bk, j))), bi, j);
      }
      const V dv = t.load(A, i * n + i);
      for (int j = 0; j < rb; ++j) t.store(hn::Div(t.load(bi, j), dv), bi, j);
    }
    for (int l = 0; l < count; ++l) {
      if (a[l] == nullptr) continue;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < rb; ++j) x[l][i * r + j0 + j] = B[(i * rb + j) * L + l];
    }
  }
  for (int l = 0; l < count; ++l)
    if (a[l] != nullptr) info[l] = static_cast<int>(inf[l]);
}

void CholeskyF32(int n, int count, const float* const* a, I64 rs, I64 cs, float* const* l,
                 int* info) {
  cholesky_tile<float>(n, count, a, rs, cs, l, info);
}
void CholeskyF64(int n, int count, const double* const* a, I64 rs, I64 cs, double* const* l,
                 int* info) {
  cholesky_tile<double>(n, count, a, rs, cs, l, info);
}
void LuF32(int m, int n, int count, const float* const* a, I64 rs, I64 cs, float* const* lu,
           int* const* piv, int* info) {
  lu_batch_tile<float>(m, n, count, a, rs, cs, lu, piv, info);
}
void LuF64(int m, int n, int count, const double* const* a, I64 rs, I64 cs, double* const* lu,
           int* const* piv, int* info) {
  lu_batch_tile<double>(m, n, count, a, rs, cs, lu, piv, info);
}
void SolveF32(int n, int r, int count, const float* const* a, I64 rs, I64 cs, const float* const* b,
              I64 brs, I64 bcs, float* const* x, int* info) {
  solve_tile<float>(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}
void SolveF64(int n, int r, int count, const double* const* a, I64 rs, I64 cs,
              const double* const* b, I64 brs, I64 bcs, double* const* x, int* info) {
  solve_tile<double>(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {

HWY_EXPORT(CholeskyF32);
HWY_EXPORT(CholeskyF64);
HWY_EXPORT(LuF32);
HWY_EXPORT(LuF64);
HWY_EXPORT(SolveF32);
HWY_EXPORT(SolveF64);

template <>
void cholesky_batch<float>(int n, int count, const float* const* a, std::int64_t rs,
                           std::int64_t cs, float* const* l, int* info) {
  HWY_DYNAMIC_DISPATCH(CholeskyF32)(n, count, a, rs, cs, l, info);
}
template <>
void cholesky_batch<double>(int n, int count, const double* const* a, std::int64_t rs,
                            std::int64_t cs, double* const* l, int* info) {
  HWY_DYNAMIC_DISPATCH(CholeskyF64)(n, count, a, rs, cs, l, info);
}
template <>
void lu_batch<float>(int m, int n, int count, const float* const* a, std::int64_t rs,
                     std::int64_t cs, float* const* lu, int* const* piv, int* info) {
  HWY_DYNAMIC_DISPATCH(LuF32)(m, n, count, a, rs, cs, lu, piv, info);
}
template <>
void lu_batch<double>(int m, int n, int count, const double* const* a, std::int64_t rs,
                      std::int64_t cs, double* const* lu, int* const* piv, int* info) {
  HWY_DYNAMIC_DISPATCH(LuF64)(m, n, count, a, rs, cs, lu, piv, info);
}
template <>
void solve_batch<float>(int n, int r, int count, const float* const* a, std::int64_t rs,
                        std::int64_t cs, const float* const* b, std::int64_t brs, std::int64_t bcs,
                        float* const* x, int* info) {
  HWY_DYNAMIC_DISPATCH(SolveF32)(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}
template <>
void solve_batch<double>(int n, int r, int count, const double* const* a, std::int64_t rs,
                         std::int64_t cs, const double* const* b, std::int64_t brs,
                         std::int64_t bcs, double* const* x, int* info) {
  HWY_DYNAMIC_DISPATCH(SolveF64)(n, r, count, a, rs, cs, b, brs, bcs, x, info);
}

}  // namespace tenferro::detail::small
#endif  // HWY_ONCE
