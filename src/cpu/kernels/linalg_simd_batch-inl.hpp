// Per-target helpers of the batched small linalg kernels (Note [Batched small linalg kernels] in
// linalg_simd_batch.hpp), shared by linalg_simd_batch.cpp (svd, eigh, qr) and linalg_simd_solve.cpp
// (cholesky, lu). Highway's per-target include guard: foreach_target.h includes the including file
// once per target, and this header is compiled once for each.
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

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
