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

// TA / TB: A / B stored transposed, whose off-diagonal planes come the other way round (the
// backward products of a batched matmul: dA = dC B^T, dB = A^T dC). Compile-time, so the loop
// body is the same twelve operations for each storage order.
template <class T, bool TA, bool TB>
std::int64_t gemm_2x2_lanes(const T* a, const T* b, T* c, std::int64_t count) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const auto L = static_cast<std::int64_t>(hn::Lanes(d));
  std::int64_t i = 0;
  for (; i + L <= count; i += L) {
    V a00, a01, a10, a11, b00, b01, b10, b11;
    hn::LoadInterleaved4(d, a + 4 * i, a00, TA ? a10 : a01, TA ? a01 : a10, a11);
    hn::LoadInterleaved4(d, b + 4 * i, b00, TB ? b10 : b01, TB ? b01 : b10, b11);
    // The scalar kernel's order: acc = a_r0 b_0s, then acc += a_r1 b_1s.
    const V c00 = hn::Add(mul(a00, b00), mul(a01, b10));
    const V c01 = hn::Add(mul(a00, b01), mul(a01, b11));
    const V c10 = hn::Add(mul(a10, b00), mul(a11, b10));
    const V c11 = hn::Add(mul(a10, b01), mul(a11, b11));
    hn::StoreInterleaved4(c00, c01, c10, c11, d, c + 4 * i);
  }
  return i;
}

// One operand the same 2x2 matrix for every product of the batch (batch stride 0: the stride-0
// broadcast cotangent of a sum(), in the backward products dA = dC B^T and dB = A^T dC), given as
// its four elements u = (u00, u01, u10, u11), broadcast to every lane once; the other operand
// packed as above. UA: the uniform one is A. Same products in the same order as gemm_2x2_lanes.
template <class T, bool UA, bool TP>
std::int64_t gemm_2x2_uniform_lanes(const T* u, const T* packed, T* c, std::int64_t count) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const auto L = static_cast<std::int64_t>(hn::Lanes(d));
  const V u00 = hn::Set(d, u[0]), u01 = hn::Set(d, u[1]), u10 = hn::Set(d, u[2]),
          u11 = hn::Set(d, u[3]);
  std::int64_t i = 0;
  for (; i + L <= count; i += L) {
    V p00, p01, p10, p11;
    hn::LoadInterleaved4(d, packed + 4 * i, p00, TP ? p10 : p01, TP ? p01 : p10, p11);
    const V& a00 = UA ? u00 : p00;
    const V& a01 = UA ? u01 : p01;
    const V& a10 = UA ? u10 : p10;
    const V& a11 = UA ? u11 : p11;
    const V& b00 = UA ? p00 : u00;
    const V& b01 = UA ? p01 : u01;
    const V& b10 = UA ? p10 : u10;
    const V& b11 = UA ? p11 : u11;
    const V c00 = hn::Add(mul(a00, b00), mul(a01, b10));
    const V c01 = hn::Add(mul(a00, b01), mul(a01, b11));
    const V c10 = hn::Add(mul(a10, b00), mul(a11, b10));
    const V c11 = hn::Add(mul(a10, b01), mul(a11, b11));
    hn::StoreInterleaved4(c00, c01, c10, c11, d, c + 4 * i);
  }
  return i;
}

// One entry point per dtype and storage order: the order is chosen once, when the GEMM problem
// is prepared, not per call.
#define TENFERRO_GEMM_2X2(NAME, T, TA, TB)                              \
  std::int64_t NAME(const T* a, const T* b, T* c, std::int64_t count) { \
    return gemm_2x2_lanes<T, TA, TB>(a, b, c, count);                   \
  }
TENFERRO_GEMM_2X2(Gemm2x2F32NN, float, false, false)
TENFERRO_GEMM_2X2(Gemm2x2F32TN, float, true, false)
TENFERRO_GEMM_2X2(Gemm2x2F32NT, float, false, true)
TENFERRO_GEMM_2X2(Gemm2x2F32TT, float, true, true)
TENFERRO_GEMM_2X2(Gemm2x2F64NN, double, false, false)
TENFERRO_GEMM_2X2(Gemm2x2F64TN, double, true, false)
TENFERRO_GEMM_2X2(Gemm2x2F64NT, double, false, true)
TENFERRO_GEMM_2X2(Gemm2x2F64TT, double, true, true)
#undef TENFERRO_GEMM_2X2
#define TENFERRO_GEMM_2X2_UNIFORM(NAME, T, UA, TP)                           \
  std::int64_t NAME(const T* u, const T* packed, T* c, std::int64_t count) { \
    return gemm_2x2_uniform_lanes<T, UA, TP>(u, packed, c, count);           \
  }
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F32UN, float, true, false)
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F32UT, float, true, true)
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F32NU, float, false, false)
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F32TU, float, false, true)
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F64UN, double, true, false)
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F64UT, double, true, true)
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F64NU, double, false, false)
TENFERRO_GEMM_2X2_UNIFORM(Gemm2x2F64TU, double, false, true)
#undef TENFERRO_GEMM_2X2_UNIFORM

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
#define TENFERRO_GEMM_2X2_DISPATCH(NAME, T, TA, TB)         \
  template <>                                               \
  Gemm2x2Fn<T> gemm_2x2<T, TA, TB>() {                      \
    T none[4] = {};                                         \
    HWY_DYNAMIC_DISPATCH(small::NAME)(none, none, none, 0); \
    return &HWY_DYNAMIC_DISPATCH(small::NAME);              \
  }
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F32NN, float, false, false)
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F32TN, float, true, false)
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F32NT, float, false, true)
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F32TT, float, true, true)
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F64NN, double, false, false)
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F64TN, double, true, false)
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F64NT, double, false, true)
TENFERRO_GEMM_2X2_DISPATCH(Gemm2x2F64TT, double, true, true)
#undef TENFERRO_GEMM_2X2_DISPATCH
#define TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(NAME, T, UA, TP) \
  template <>                                               \
  Gemm2x2Fn<T> gemm_2x2_uniform<T, UA, TP>() {              \
    T none[4] = {};                                         \
    HWY_DYNAMIC_DISPATCH(small::NAME)(none, none, none, 0); \
    return &HWY_DYNAMIC_DISPATCH(small::NAME);              \
  }
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F32UN, float, true, false)
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F32UT, float, true, true)
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F32NU, float, false, false)
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F32TU, float, false, true)
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F64UN, double, true, false)
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F64UT, double, true, true)
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F64NU, double, false, false)
TENFERRO_GEMM_2X2_UNIFORM_DISPATCH(Gemm2x2F64TU, double, false, true)
#undef TENFERRO_GEMM_2X2_UNIFORM_DISPATCH
}  // namespace tenferro::detail::kernels::simd
#endif  // HWY_ONCE
