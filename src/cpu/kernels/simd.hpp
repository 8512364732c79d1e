// SIMD loops over contiguous f32/f64 arrays, compiled once per x86 target (SSSE3, SSE4, AVX2,
// AVX-512) with Google Highway and picked at run time for the CPU at hand (HWY_DYNAMIC_DISPATCH;
// DESIGN.md §5). The library itself stays a baseline x86-64 build. Callers: the dense and
// scalar-broadcast paths of map1/map2 (Note [Elementwise loop paths]) and the contiguous sum
// blocks of the reduction kernel (Note [Deterministic reductions]).
//
// Note [SIMD results]: add, sub, mul and div are single IEEE operations, so every target (and
// the scalar loop) gives the same bits. exp, log, sin, cos, tanh, expm1 and log1p are SLEEF's
// 1.0-ulp vector functions (Debian libsleef; C99 special values, every argument range), called
// through the SLEEF build for the Highway target at hand; each is the same function for every
// f32/f64 layout (strided operands are gathered through it too, see unary_run), so an element's
// value never depends on where it sits in a chunk or on the thread count. Targets with and without
// FMA may differ in the last bit of these functions (both within 1 ulp). Sums add lanes in a fixed
// order that does not depend on the vector width, so sum_block gives the same bits on every target
// (the order: Note [Deterministic reductions]).
#pragma once

#include <cstdint>
#include <type_traits>

namespace tenferro::detail::kernels::simd {

/// The binary ops with a SIMD loop. `none`: the op has none (the generic loop runs).
enum class Binary : std::uint8_t { none, add, sub, mul, div };
/// The unary ops with a SIMD loop (SLEEF's 1-ulp vector functions, Note [SIMD results]).
enum class Unary : std::uint8_t { none, exp, log, sin, cos, tanh, expm1, log1p };

/// True for the element types the SIMD loops exist for (f32, f64).
template <class T>
inline constexpr bool has_loops_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

// out[i] = a[i] op b[i] for i in [0, n). out may be exactly a or b (never a partial overlap).
void binary(Binary op, const float* a, const float* b, float* out, std::int64_t n);
void binary(Binary op, const double* a, const double* b, double* out, std::int64_t n);
// out[i] = a[i] op s.
void binary_scalar_right(Binary op, const float* a, float s, float* out, std::int64_t n);
void binary_scalar_right(Binary op, const double* a, double s, double* out, std::int64_t n);
// out[i] = s op b[i].
void binary_scalar_left(Binary op, float s, const float* b, float* out, std::int64_t n);
void binary_scalar_left(Binary op, double s, const double* b, double* out, std::int64_t n);

// out[i] = op(x[i]) for i in [0, n). out may be exactly x.
void unary(Unary op, const float* x, float* out, std::int64_t n);
void unary(Unary op, const double* x, double* out, std::int64_t n);

/// Accumulator lanes of the sum order: 128 bytes (32 f32 / 16 f64), a whole number of vectors
/// on every target, enough independent add chains to keep AVX2 busy.
template <class T>
inline constexpr std::int64_t kSumLanes = 128 / sizeof(T);
/// Elements per lane in a leaf of the sum order.
inline constexpr std::int64_t kSumLeafRows = 16;

/// The sum of p[0, n), n <= kReduceBlock, in the order of Note [Deterministic reductions].
float sum_block(const float* p, std::int64_t n);
double sum_block(const double* p, std::int64_t n);

}  // namespace tenferro::detail::kernels::simd
