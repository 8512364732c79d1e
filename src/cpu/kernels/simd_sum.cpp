// Highway loop behind simd::sum_block (simd.hpp): the contiguous f32/f64 sum of one reduction
// block, in the order of Note [Deterministic reductions]. That order is written in accumulator
// lanes (kSumLanes = 128 bytes), not in vectors: lane j sums elements j, j + L, j + 2L, ...
// Every target holds the L lanes in L / Lanes(d) vectors, so AVX-512, AVX2, SSE4 and the scalar
// reference (tests/ops/simd_kernels_test.cpp) all add the same numbers in the same order.
#include <cstddef>
#include <utility>

#include "cpu/kernels/simd.hpp"

// Scalable-vector targets cannot keep vectors in arrays; NEON serves those machines.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/simd_sum.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tenferro::detail::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
struct SumLanes {
  static constexpr std::size_t L = static_cast<std::size_t>(kSumLanes<T>);
  using D = hn::ScalableTag<T>;
  static constexpr std::size_t N = hn::MaxLanes(D());
  static constexpr std::size_t K = L / N;  // vectors per row of L lanes
  static_assert(K * N == L, "a row of lanes is a whole number of vectors");
  using V = hn::Vec<D>;

  // The lane sums of `rows` rows of L elements into a: leaves of <= kSumLeafRows rows added in
  // row order; more rows split in half (first half rows / 2) and the halves added. Depth = how
  // many of those splits are unrolled here (rows <= kSumLeafRows << Depth): the accumulators are
  // expanded from an index pack, so every index is constant and they stay in registers.
  template <int Depth, std::size_t... k>
  static HWY_INLINE void in_registers(const T* p, std::size_t rows, V* a,
                                      std::index_sequence<k...> pack) {
    const D d;
    if (Depth == 0 || rows <= static_cast<std::size_t>(kSumLeafRows)) {
      ((a[k] = hn::LoadU(d, p + k * N)), ...);
      for (std::size_t r = 1; r < rows; ++r) {
        const T* row = p + r * L;
        ((a[k] = hn::Add(a[k], hn::LoadU(d, row + k * N))), ...);
      }
      return;
    }
    if constexpr (Depth > 0) {
      const std::size_t h = rows / 2;
      V b[K];
      in_registers<Depth - 1>(p, h, a, pack);
      in_registers<Depth - 1>(p + h * L, rows - h, b, pack);
      ((a[k] = hn::Add(a[k], b[k])), ...);
    }
  }

  // The same order for any row count: the top of the tree by recursion, its bottom three levels
  // (up to 8 leaves, 16 KB) in registers.
  static constexpr int kUnrolled = 3;
  static void rows_pairwise(const T* p, std::size_t rows, V* acc) {
    if (rows <= (static_cast<std::size_t>(kSumLeafRows) << kUnrolled)) {
      V a[K];
      in_registers<kUnrolled>(p, rows, a, std::make_index_sequence<K>());
      for (std::size_t k = 0; k < K; ++k) acc[k] = a[k];
      return;
    }
    const std::size_t h = rows / 2;
    V right[K];
    rows_pairwise(p, h, acc);
    rows_pairwise(p + h * L, rows - h, right);
    for (std::size_t k = 0; k < K; ++k) acc[k] = hn::Add(acc[k], right[k]);
  }

  // Lanes combined by a fixed tree (lane k += lane k + w for w = L/2, ..., 1), then the tail
  // of n mod L elements added in order. Fewer than L elements: added in order from 0.
  static T sum(const T* p, std::size_t n) {
    const D d;
    const std::size_t rows = n / L;
    T r = T(0);
    if (rows > 0) {
      V acc[K];
      rows_pairwise(p, rows, acc);
      HWY_ALIGN T lane[L];
      for (std::size_t k = 0; k < K; ++k) hn::Store(acc[k], d, lane + k * N);
      for (std::size_t w = L / 2; w > 0; w /= 2)
        for (std::size_t k = 0; k < w; ++k) lane[k] += lane[k + w];
      r = lane[0];
    }
    for (std::size_t i = rows * L; i < n; ++i) r += p[i];
    return r;
  }
};

float SumF32(const float* p, std::int64_t n) {
  return SumLanes<float>::sum(p, static_cast<std::size_t>(n));
}
double SumF64(const double* p, std::int64_t n) {
  return SumLanes<double>::sum(p, static_cast<std::size_t>(n));
}

}  // namespace HWY_NAMESPACE
}  // namespace tenferro::detail::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tenferro::detail::kernels::simd {

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);

namespace {
// Fewer than one row of lanes: every target adds them in order from 0 (SumLanes::sum), so this
// loop gives its bits without the dispatch (a small loss sum's whole cost otherwise).
template <class T>
T sum_in_order(const T* p, std::int64_t n) {
  T r = T(0);
  for (std::int64_t i = 0; i < n; ++i) r += p[i];
  return r;
}
}  // namespace

float sum_block(const float* p, std::int64_t n) {
  if (n < kSumLanes<float>) return sum_in_order(p, n);
  return HWY_DYNAMIC_DISPATCH(SumF32)(p, n);
}
double sum_block(const double* p, std::int64_t n) {
  if (n < kSumLanes<double>) return sum_in_order(p, n);
  return HWY_DYNAMIC_DISPATCH(SumF64)(p, n);
}

}  // namespace tenferro::detail::kernels::simd
#endif  // HWY_ONCE
