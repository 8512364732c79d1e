// Note [Tiny GEMM across the batch]: a batch of contiguous 2x2 real matrices is exactly four
// interleaved planes (a00, a01, a10, a11 of matrix i at 4 i .. 4 i + 3), so Highway's
// LoadInterleaved4 puts element (r, s) of L matrices in one vector (L = 4 f64 on AVX2) and the
// product is eight multiplies and four adds for L matrices. An operand stored transposed (the
// backward products of a batched matmul read B^T and A^T) is the same four planes with the two
// off-diagonal ones swapped; the storage order is a template parameter picked when the problem is
// prepared. The cotangent of a sum() is a stride-0 broadcast: one matrix for the whole batch,
// whose four elements are set in every lane once (gemm_2x2_uniform). The per-matrix kernel of
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

// How one operand's matrices are stored: packed row-major, packed transposed (its off-diagonal
// planes come the other way round: the backward products of a batched matmul, dA = dC B^T and
// dB = A^T dC), or uniform -- one matrix for every product of the batch (batch stride 0: the
// broadcast cotangent of a sum()), given as its four elements (u00, u01, u10, u11) and set in
// every lane once. Compile-time, so the loop body is the same twelve operations for each.
enum class Store { packed, transposed, uniform };

template <class D, Store S>
struct Operand {
  using V = hn::Vec<D>;
  V m00, m01, m10, m11;
  Operand(D d, const hn::TFromD<D>* p) {
    if constexpr (S == Store::uniform) {
      m00 = hn::Set(d, p[0]);
      m01 = hn::Set(d, p[1]);
      m10 = hn::Set(d, p[2]);
      m11 = hn::Set(d, p[3]);
    }
  }
  // The matrices i .. i + lanes - 1 (a uniform operand has them already).
  void load(D d, const hn::TFromD<D>* p, std::int64_t i) {
    if constexpr (S == Store::packed) hn::LoadInterleaved4(d, p + 4 * i, m00, m01, m10, m11);
    if constexpr (S == Store::transposed) hn::LoadInterleaved4(d, p + 4 * i, m00, m10, m01, m11);
  }
};

template <class T, Store SA, Store SB>
std::int64_t gemm_2x2_lanes(const T* a, const T* b, T* c, std::int64_t count) {
  using D = hn::ScalableTag<T>;
  const D d;
  using V = hn::Vec<D>;
  const auto L = static_cast<std::int64_t>(hn::Lanes(d));
  Operand<D, SA> x(d, a);
  Operand<D, SB> y(d, b);
  std::int64_t i = 0;
  for (; i + L <= count; i += L) {
    x.load(d, a, i);
    y.load(d, b, i);
    // The scalar kernel's order: acc = a_r0 b_0s, then acc += a_r1 b_1s.
    const V c00 = hn::Add(mul(x.m00, y.m00), mul(x.m01, y.m10));
    const V c01 = hn::Add(mul(x.m00, y.m01), mul(x.m01, y.m11));
    const V c10 = hn::Add(mul(x.m10, y.m00), mul(x.m11, y.m10));
    const V c11 = hn::Add(mul(x.m10, y.m01), mul(x.m11, y.m11));
    hn::StoreInterleaved4(c00, c01, c10, c11, d, c + 4 * i);
  }
  return i;
}

// One entry point per dtype and pair of storage kinds (N packed, T transposed, U uniform): the
// kinds are chosen once, when the GEMM problem is prepared, not per call.
#define TENFERRO_GEMM_2X2(NAME, T, SA, SB)                              \
  std::int64_t NAME(const T* a, const T* b, T* c, std::int64_t count) { \
    return gemm_2x2_lanes<T, Store::SA, Store::SB>(a, b, c, count);     \
  }
TENFERRO_GEMM_2X2(Gemm2x2F32NN, float, packed, packed)
TENFERRO_GEMM_2X2(Gemm2x2F32TN, float, transposed, packed)
TENFERRO_GEMM_2X2(Gemm2x2F32NT, float, packed, transposed)
TENFERRO_GEMM_2X2(Gemm2x2F32TT, float, transposed, transposed)
TENFERRO_GEMM_2X2(Gemm2x2F64NN, double, packed, packed)
TENFERRO_GEMM_2X2(Gemm2x2F64TN, double, transposed, packed)
TENFERRO_GEMM_2X2(Gemm2x2F64NT, double, packed, transposed)
TENFERRO_GEMM_2X2(Gemm2x2F64TT, double, transposed, transposed)
TENFERRO_GEMM_2X2(Gemm2x2F32UN, float, uniform, packed)
TENFERRO_GEMM_2X2(Gemm2x2F32UT, float, uniform, transposed)
TENFERRO_GEMM_2X2(Gemm2x2F32NU, float, packed, uniform)
TENFERRO_GEMM_2X2(Gemm2x2F32TU, float, transposed, uniform)
TENFERRO_GEMM_2X2(Gemm2x2F64UN, double, uniform, packed)
TENFERRO_GEMM_2X2(Gemm2x2F64UT, double, uniform, transposed)
TENFERRO_GEMM_2X2(Gemm2x2F64NU, double, packed, uniform)
TENFERRO_GEMM_2X2(Gemm2x2F64TU, double, transposed, uniform)
#undef TENFERRO_GEMM_2X2

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::small
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::small {
HWY_EXPORT(Gemm2x2F32NN);
HWY_EXPORT(Gemm2x2F32TN);
HWY_EXPORT(Gemm2x2F32NT);
HWY_EXPORT(Gemm2x2F32TT);
HWY_EXPORT(Gemm2x2F64NN);
HWY_EXPORT(Gemm2x2F64TN);
HWY_EXPORT(Gemm2x2F64NT);
HWY_EXPORT(Gemm2x2F64TT);
HWY_EXPORT(Gemm2x2F32UN);
HWY_EXPORT(Gemm2x2F32UT);
HWY_EXPORT(Gemm2x2F32NU);
HWY_EXPORT(Gemm2x2F32TU);
HWY_EXPORT(Gemm2x2F64UN);
HWY_EXPORT(Gemm2x2F64UT);
HWY_EXPORT(Gemm2x2F64NU);
HWY_EXPORT(Gemm2x2F64TU);
}  // namespace tenferro::detail::small

namespace tenferro::detail::kernels::simd {
// The first call through the dispatch table makes Highway choose its target (count 0: no
// product is made; the uniform kernels read u before their loop, hence a real array); the table
// entry it then names is the function for this CPU.
#define TENFERRO_GEMM_2X2_POINTER(GETTER, NAME, T, X, Y)    \
  template <>                                               \
  Gemm2x2Fn<T> GETTER<T, X, Y>() {                          \
    T none[4] = {};                                         \
    HWY_DYNAMIC_DISPATCH(small::NAME)(none, none, none, 0); \
    return &HWY_DYNAMIC_DISPATCH(small::NAME);              \
  }
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F32NN, float, false, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F32TN, float, true, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F32NT, float, false, true)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F32TT, float, true, true)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F64NN, double, false, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F64TN, double, true, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F64NT, double, false, true)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2, Gemm2x2F64TT, double, true, true)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F32UN, float, true, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F32UT, float, true, true)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F32NU, float, false, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F32TU, float, false, true)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F64UN, double, true, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F64UT, double, true, true)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F64NU, double, false, false)
TENFERRO_GEMM_2X2_POINTER(gemm_2x2_uniform, Gemm2x2F64TU, double, false, true)
#undef TENFERRO_GEMM_2X2_POINTER
}  // namespace tenferro::detail::kernels::simd
#endif  // HWY_ONCE
