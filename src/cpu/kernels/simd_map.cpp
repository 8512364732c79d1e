// Highway loops behind simd::binary, simd::binary_scalar_{left,right} and simd::unary
// (simd.hpp, Note [SIMD results]). foreach_target.h compiles this file once per x86 target,
// re-including it with HWY_TARGET set; HWY_EXPORT / HWY_DYNAMIC_DISPATCH at the end pick the
// best compiled target for this CPU on the first call.
#include <cmath>
#include <cstddef>
#include <limits>

#include "cpu/kernels/simd.hpp"

// Scalable-vector targets (SVE, RVV) have no compile-time lane count for the tail buffers below
// (and simd_sum.cpp keeps vectors in arrays); NEON serves those machines.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/simd_map.cpp"
// foreach_target.h first, then highway.h (re-included per target).
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Calls body(i) for the full vectors of [0, n), two per step (two independent load/op/store
// chains), then returns the start of the tail (< one vector).
template <class D, class Body>
HWY_INLINE std::size_t full_vectors(D d, std::size_t n, Body body) {
  const std::size_t N = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    body(i);
    body(i + N);
  }
  for (; i + N <= n; i += N) body(i);
  return i;
}

template <class D, class V>
HWY_INLINE V apply(D, Binary op, V a, V b) {
  switch (op) {
    case Binary::add:
      return hn::Add(a, b);
    case Binary::sub:
      return hn::Sub(a, b);
    case Binary::mul:
      return hn::Mul(a, b);
    default:
      return hn::Div(a, b);
  }
}
template <class T>
T apply_scalar(Binary op, T a, T b) {
  switch (op) {
    case Binary::add:
      return a + b;
    case Binary::sub:
      return a - b;
    case Binary::mul:
      return a * b;
    default:
      return a / b;
  }
}

// The op is switched on outside the loops: one loop per op after inlining.
template <class Loop>
HWY_INLINE void per_op(Binary op, Loop loop) {
  switch (op) {
    case Binary::add:
      return loop(std::integral_constant<Binary, Binary::add>{});
    case Binary::sub:
      return loop(std::integral_constant<Binary, Binary::sub>{});
    case Binary::mul:
      return loop(std::integral_constant<Binary, Binary::mul>{});
    case Binary::div:
      return loop(std::integral_constant<Binary, Binary::div>{});
    case Binary::none:
      return;
  }
}

// The vector width of a binary loop over n elements: the target's full width for short arrays,
// at most 256 bits from kWideMin elements on. Measured on an AVX-512 Xeon (one core, tenferro-bench
// sweeps): 512-bit adds are ~25% faster at 10^3 elements (L1) but 5-10% slower from 10^4 on and
// 2-3% slower on the memory-bound 4M add, where 256-bit stores match libtorch. The values are the
// same either way (single IEEE operations).
inline constexpr std::int64_t kWideMin = 4096;
template <class T, class Loop>
HWY_INLINE void with_width(std::int64_t n, Loop loop) {
  if (n < kWideMin) return loop(hn::ScalableTag<T>());
  loop(hn::CappedTag<T, 32 / sizeof(T)>());
}

// Single IEEE operations: the scalar tail gives the same bits as a vector lane would.
template <class T>
void binary_impl(Binary op, const T* a, const T* b, T* out, std::int64_t n) {
  with_width<T>(n, [&](auto d) {
    per_op(op, [&](auto k) {
      const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
        hn::StoreU(apply(d, k(), hn::LoadU(d, a + j), hn::LoadU(d, b + j)), d, out + j);
      });
      for (std::size_t j = i; j < static_cast<std::size_t>(n); ++j)
        out[j] = apply_scalar(k(), a[j], b[j]);
    });
  });
}
template <class T>
void scalar_right_impl(Binary op, const T* a, T s, T* out, std::int64_t n) {
  with_width<T>(n, [&](auto d) {
    const auto vs = hn::Set(d, s);
    per_op(op, [&](auto k) {
      const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
        hn::StoreU(apply(d, k(), hn::LoadU(d, a + j), vs), d, out + j);
      });
      for (std::size_t j = i; j < static_cast<std::size_t>(n); ++j)
        out[j] = apply_scalar(k(), a[j], s);
    });
  });
}
template <class T>
void scalar_left_impl(Binary op, T s, const T* b, T* out, std::int64_t n) {
  with_width<T>(n, [&](auto d) {
    const auto vs = hn::Set(d, s);
    per_op(op, [&](auto k) {
      const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
        hn::StoreU(apply(d, k(), vs, hn::LoadU(d, b + j)), d, out + j);
      });
      for (std::size_t j = i; j < static_cast<std::size_t>(n); ++j)
        out[j] = apply_scalar(k(), s, b[j]);
    });
  });
}

// ---- transcendental functions: SLEEF's vector functions for this target (Note [SIMD results]) --
// Every function is SLEEF's 1.0-ulp variant (u10): C99's special values (NaN, +-inf, +-0), every
// argument range (sin/cos reduce huge arguments exactly), subnormal results to DBL_MIN absolute.
// Each Highway target calls the SLEEF build for its own instruction set (AVX-512F, AVX2+FMA,
// SSE4.1, SSE2); the emulated and non-x86 targets call SLEEF's scalar functions.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define TF_SLEEF_VD __m512d
#define TF_SLEEF_VF __m512
#define TF_SLEEF_D(fn) Sleef_##fn##d8_u10avx512f
#define TF_SLEEF_F(fn) Sleef_##fn##f16_u10avx512f
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
#define TF_SLEEF_VD __m256d
#define TF_SLEEF_VF __m256
#define TF_SLEEF_D(fn) Sleef_##fn##d4_u10avx2
#define TF_SLEEF_F(fn) Sleef_##fn##f8_u10avx2
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_SSE4
#define TF_SLEEF_VD __m128d
#define TF_SLEEF_VF __m128
#define TF_SLEEF_D(fn) Sleef_##fn##d2_u10sse4
#define TF_SLEEF_F(fn) Sleef_##fn##f4_u10sse4
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_SSSE3
#define TF_SLEEF_VD __m128d
#define TF_SLEEF_VF __m128
#define TF_SLEEF_D(fn) Sleef_##fn##d2_u10sse2
#define TF_SLEEF_F(fn) Sleef_##fn##f4_u10sse2
#else
#define TF_SLEEF_VD double
#define TF_SLEEF_VF float
#define TF_SLEEF_D(fn) Sleef_##fn##_u10
#define TF_SLEEF_F(fn) Sleef_##fn##f_u10
#define TF_SLEEF_SCALAR 1
#endif

#define TF_SLEEF_DECLARE(V, NAME) \
  extern "C" V NAME(exp)(V);      \
  extern "C" V NAME(log)(V);      \
  extern "C" V NAME(sin)(V);      \
  extern "C" V NAME(cos)(V);      \
  extern "C" V NAME(tanh)(V);     \
  extern "C" V NAME(expm1)(V);    \
  extern "C" V NAME(log1p)(V);
TF_SLEEF_DECLARE(TF_SLEEF_VD, TF_SLEEF_D)
TF_SLEEF_DECLARE(TF_SLEEF_VF, TF_SLEEF_F)

// The SLEEF function of `op` on this target's raw vectors (or scalars) of T.
#define TF_SLEEF_PICK(NAME) \
  switch (op) {             \
    case Unary::exp:        \
      return &NAME(exp);    \
    case Unary::log:        \
      return &NAME(log);    \
    case Unary::sin:        \
      return &NAME(sin);    \
    case Unary::cos:        \
      return &NAME(cos);    \
    case Unary::tanh:       \
      return &NAME(tanh);   \
    case Unary::expm1:      \
      return &NAME(expm1);  \
    case Unary::log1p:      \
      return &NAME(log1p);  \
    case Unary::none:       \
      break;                \
  }                         \
  return nullptr;
TF_SLEEF_VD(*sleef_fn(Unary op, double))
(TF_SLEEF_VD){TF_SLEEF_PICK(TF_SLEEF_D)} TF_SLEEF_VF (*sleef_fn(Unary op, float))(TF_SLEEF_VF) {
  TF_SLEEF_PICK(TF_SLEEF_F)
}

// out = op(x) for n elements. The tail goes through the same vector function on a padded copy, so
// an element's value never depends on whether it falls in a tail (chunk boundaries move with the
// thread count).
template <class T>
void unary_impl(Unary op, const T* x, T* out, std::int64_t n) {
  const auto f = sleef_fn(op, T{});
  if (f == nullptr) return;
  // SLEEF's log1p overflows to inf above ~1e307 (f64) / ~1e38 (f32); where 1 + x rounds to x
  // (x >= 2^53 / 2^24) log1p(x) is log(x) to well below half an ulp, so those lanes take log.
  // Below 2^-60 (f64) / 2^-30 (f32) in magnitude log1p(x) = x - x^2/2 + ... rounds to x itself,
  // which those lanes take: SLEEF gave +0 for negative subnormals (log1p(-5e-324) was +0).
  const bool is_log1p = op == Unary::log1p;
  const auto log_f = sleef_fn(Unary::log, T{});
  const T big = sizeof(T) == 4 ? T(0x1p30) : T(0x1p60);
  const T tiny = sizeof(T) == 4 ? T(0x1p-30) : T(0x1p-60);
#ifdef TF_SLEEF_SCALAR
  for (std::int64_t i = 0; i < n; ++i) {
    if (!is_log1p)
      out[i] = f(x[i]);
    else
      out[i] = x[i] > big ? log_f(x[i]) : std::abs(x[i]) < tiny ? x[i] : f(x[i]);
  }
#else
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const V vbig = hn::Set(d, big), vtiny = hn::Set(d, tiny);
  const auto call = [&](V v) {
    V r;
    r.raw = f(v.raw);
    if (is_log1p) {
      const auto huge = hn::Gt(v, vbig);
      if (!hn::AllFalse(d, huge)) {
        V l;
        l.raw = log_f(v.raw);
        r = hn::IfThenElse(huge, l, r);
      }
      r = hn::IfThenElse(hn::Lt(hn::Abs(v), vtiny), v, r);
    }
    return r;
  };
  const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
    hn::StoreU(call(hn::LoadU(d, x + j)), d, out + j);
  });
  const std::size_t rest = static_cast<std::size_t>(n) - i;
  if (rest == 0) return;
  HWY_ALIGN T buf[hn::MaxLanes(d)] = {};
  for (std::size_t j = 0; j < rest; ++j) buf[j] = x[i + j];
  hn::Store(call(hn::Load(d, buf)), d, buf);
  for (std::size_t j = 0; j < rest; ++j) out[i + j] = buf[j];
#endif
}

#undef TF_SLEEF_PICK
#undef TF_SLEEF_DECLARE
#undef TF_SLEEF_VD
#undef TF_SLEEF_VF
#undef TF_SLEEF_D
#undef TF_SLEEF_F
#undef TF_SLEEF_SCALAR

void BinaryF32(Binary op, const float* a, const float* b, float* out, std::int64_t n) {
  binary_impl(op, a, b, out, n);
}
void BinaryF64(Binary op, const double* a, const double* b, double* out, std::int64_t n) {
  binary_impl(op, a, b, out, n);
}
void ScalarRightF32(Binary op, const float* a, float s, float* out, std::int64_t n) {
  scalar_right_impl(op, a, s, out, n);
}
void ScalarRightF64(Binary op, const double* a, double s, double* out, std::int64_t n) {
  scalar_right_impl(op, a, s, out, n);
}
void ScalarLeftF32(Binary op, float s, const float* b, float* out, std::int64_t n) {
  scalar_left_impl(op, s, b, out, n);
}
void ScalarLeftF64(Binary op, double s, const double* b, double* out, std::int64_t n) {
  scalar_left_impl(op, s, b, out, n);
}
void UnaryF32(Unary op, const float* x, float* out, std::int64_t n) { unary_impl(op, x, out, n); }
void UnaryF64(Unary op, const double* x, double* out, std::int64_t n) { unary_impl(op, x, out, n); }

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::kernels::simd {

HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(ScalarRightF32);
HWY_EXPORT(ScalarRightF64);
HWY_EXPORT(ScalarLeftF32);
HWY_EXPORT(ScalarLeftF64);
HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);

void binary(Binary op, const float* a, const float* b, float* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF32)(op, a, b, out, n);
}
void binary(Binary op, const double* a, const double* b, double* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF64)(op, a, b, out, n);
}
void binary_scalar_right(Binary op, const float* a, float s, float* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScalarRightF32)(op, a, s, out, n);
}
void binary_scalar_right(Binary op, const double* a, double s, double* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScalarRightF64)(op, a, s, out, n);
}
void binary_scalar_left(Binary op, float s, const float* b, float* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScalarLeftF32)(op, s, b, out, n);
}
void binary_scalar_left(Binary op, double s, const double* b, double* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScalarLeftF64)(op, s, b, out, n);
}
void unary(Unary op, const float* x, float* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF32)(op, x, out, n);
}
void unary(Unary op, const double* x, double* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF64)(op, x, out, n);
}

}  // namespace tenferro::detail::kernels::simd
#endif  // HWY_ONCE
