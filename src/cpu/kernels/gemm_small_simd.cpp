// Note [Tiny GEMM across the batch]: a batch of contiguous 2x2 real matrices is exactly four
// interleaved planes (a00, a01, a10, a11 of matrix i at 4 i .. 4 i + 3), so Highway's
// LoadInterleaved4 puts element (r, s) of L matrices in one vector (L = 4 f64 on AVX2) and the
// product is eight multiplies and four adds for L matrices. The per-matrix kernel of
// gemm_small.cpp cannot do better than one 128-bit vector per row (~28 instructions per matrix
// against ~11 here: bmm 16x2x2 is ~440 -> ~180 instructions in the kernel). Products are kept from
// fusing into FMAs (small::mul), so every target gives the scalar kernel's bits and a matrix's
// result does not depend on whether it fell in a vector or in the scalar tail.
// foreach_target.h compiles this file once per x86 target; HWY_DYNAMIC_DISPATCH picks one.
#include "cpu/kernels/gemm_small_simd.hpp"

#include <cstddef>

#include "cpu/kernels/linalg_simd_batch.hpp"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/gemm_small_simd.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on
#include "cpu/kernels/linalg_simd_batch-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::small {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
std::int64_t gemm_2x2_lanes(const T* a, const T* b, T* c, std::int64_t count) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const auto L = static_cast<std::int64_t>(hn::Lanes(d));
  std::int64_t i = 0;
  for (; i + L <= count; i += L) {
    V a00, a01, a10, a11, b00, b01, b10, b11;
    hn::LoadInterleaved4(d, a + 4 * i, a00, a01, a10, a11);
    hn::LoadInterleaved4(d, b + 4 * i, b00, b01, b10, b11);
    // The scalar kernel's order: acc = a_r0 b_0s, then acc += a_r1 b_1s.
    const V c00 = hn::Add(mul(a00, b00), mul(a01, b10));
    const V c01 = hn::Add(mul(a00, b01), mul(a01, b11));
    const V c10 = hn::Add(mul(a10, b00), mul(a11, b10));
    const V c11 = hn::Add(mul(a10, b01), mul(a11, b11));
    hn::StoreInterleaved4(c00, c01, c10, c11, d, c + 4 * i);
  }
  return i;
}

std::int64_t Gemm2x2F32(const float* a, const float* b, float* c, std::int64_t count) {
  return gemm_2x2_lanes(a, b, c, count);
}
std::int64_t Gemm2x2F64(const double* a, const double* b, double* c, std::int64_t count) {
  return gemm_2x2_lanes(a, b, c, count);
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {
HWY_EXPORT(Gemm2x2F32);
HWY_EXPORT(Gemm2x2F64);
}  // namespace tenferro::detail::small

namespace tenferro::detail::kernels::simd {
std::int64_t gemm_2x2(const float* a, const float* b, float* c, std::int64_t count) {
  return HWY_DYNAMIC_DISPATCH(small::Gemm2x2F32)(a, b, c, count);
}
std::int64_t gemm_2x2(const double* a, const double* b, double* c, std::int64_t count) {
  return HWY_DYNAMIC_DISPATCH(small::Gemm2x2F64)(a, b, c, count);
}
}  // namespace tenferro::detail::kernels::simd
#endif  // HWY_ONCE
