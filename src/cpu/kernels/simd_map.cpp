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
// foreach_target.h first, then highway.h, then math-inl.h (each re-included per target).
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
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

// Single IEEE operations: the scalar tail gives the same bits as a vector lane would.
template <class T>
void binary_impl(Binary op, const T* a, const T* b, T* out, std::int64_t n) {
  const hn::ScalableTag<T> d;
  per_op(op, [&](auto k) {
    const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
      hn::StoreU(apply(d, k(), hn::LoadU(d, a + j), hn::LoadU(d, b + j)), d, out + j);
    });
    for (std::size_t j = i; j < static_cast<std::size_t>(n); ++j)
      out[j] = apply_scalar(k(), a[j], b[j]);
  });
}
template <class T>
void scalar_right_impl(Binary op, const T* a, T s, T* out, std::int64_t n) {
  const hn::ScalableTag<T> d;
  const auto vs = hn::Set(d, s);
  per_op(op, [&](auto k) {
    const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
      hn::StoreU(apply(d, k(), hn::LoadU(d, a + j), vs), d, out + j);
    });
    for (std::size_t j = i; j < static_cast<std::size_t>(n); ++j)
      out[j] = apply_scalar(k(), a[j], s);
  });
}
template <class T>
void scalar_left_impl(Binary op, T s, const T* b, T* out, std::int64_t n) {
  const hn::ScalableTag<T> d;
  const auto vs = hn::Set(d, s);
  per_op(op, [&](auto k) {
    const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
      hn::StoreU(apply(d, k(), vs, hn::LoadU(d, b + j)), d, out + j);
    });
    for (std::size_t j = i; j < static_cast<std::size_t>(n); ++j)
      out[j] = apply_scalar(k(), s, b[j]);
  });
}

// Highway's Exp with the edges it leaves open (valid for x <= +104 f32 / +706 f64; NaN -> 0):
// NaN stays NaN, and x beyond the overflow point (log of the largest finite value, rounded up)
// is +inf. Below that point Exp overflows to inf by itself; far below, it returns 0.
template <class D, class V>
HWY_INLINE V exp_checked(D d, V x) {
  using T = hn::TFromD<D>;
  const V overflow = hn::Set(d, static_cast<T>(sizeof(T) == 4 ? 88.8 : 709.8));
  const V y = hn::Exp(d, x);
  const V inf = hn::Set(d, std::numeric_limits<T>::infinity());
  return hn::IfThenElse(hn::IsNaN(x), x, hn::IfThenElse(hn::Gt(x, overflow), inf, y));
}

// The tail goes through the same vector function on a padded copy, so an element's value never
// depends on whether it falls in a tail (chunk boundaries move with the thread count).
template <class T>
void exp_impl(const T* x, T* out, std::int64_t n) {
  const hn::ScalableTag<T> d;
  const std::size_t i = full_vectors(d, static_cast<std::size_t>(n), [&](std::size_t j) {
    hn::StoreU(exp_checked(d, hn::LoadU(d, x + j)), d, out + j);
  });
  const std::size_t rest = static_cast<std::size_t>(n) - i;
  if (rest == 0) return;
  HWY_ALIGN T buf[hn::MaxLanes(d)] = {};
  for (std::size_t j = 0; j < rest; ++j) buf[j] = x[i + j];
  hn::Store(exp_checked(d, hn::Load(d, buf)), d, buf);
  for (std::size_t j = 0; j < rest; ++j) out[i + j] = buf[j];
}

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
void ExpF32(const float* x, float* out, std::int64_t n) { exp_impl(x, out, n); }
void ExpF64(const double* x, double* out, std::int64_t n) { exp_impl(x, out, n); }

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
HWY_EXPORT(ExpF32);
HWY_EXPORT(ExpF64);

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
  if (op == Unary::exp) HWY_DYNAMIC_DISPATCH(ExpF32)(x, out, n);
}
void unary(Unary op, const double* x, double* out, std::int64_t n) {
  if (op == Unary::exp) HWY_DYNAMIC_DISPATCH(ExpF64)(x, out, n);
}

}  // namespace tenferro::detail::kernels::simd
#endif  // HWY_ONCE
