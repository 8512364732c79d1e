// Per-target helpers of the batched small linalg kernels (Note [Batched small linalg kernels] in
// linalg_simd_batch.hpp), shared by linalg_simd_batch.cpp (svd, eigh, qr) and linalg_simd_solve.cpp
// and linalg_simd_solve_complex.cpp (cholesky, lu). Highway's per-target include guard:
// foreach_target.h includes the including file once per target, and this header is compiled once
// for each.
#if defined(TENFERRO_LINALG_SIMD_BATCH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENFERRO_LINALG_SIMD_BATCH_INL_H_
#undef TENFERRO_LINALG_SIMD_BATCH_INL_H_
#else
#define TENFERRO_LINALG_SIMD_BATCH_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>

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

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
