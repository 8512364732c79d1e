// Elementwise loop kernels: unary, binary and ternary maps over broadcast, strided operands.
//
// Note [Elementwise loop paths]: every map picks one of three paths, cheapest first:
//   1. dense: every operand is row-major with the output's shape -> one flat loop the compiler
//      vectorizes (this is the path of a tiny 2x2 add, so it does no set-up beyond two checks);
//   2. scalar broadcast (binary only): one input has a single element, the other is dense ->
//      a flat loop with the scalar hoisted into a register;
//   3. general: operands keep their strides, broadcast dimensions iterate with stride 0 (inputs
//      are never materialised), size-1 dimensions are dropped and adjacent dimensions that are
//      contiguous for every operand are merged; the output is walked in row-major order by runs
//      of the innermost dimension, each run a plain strided loop.
// Every path works on any flat sub-range [begin, end) of the output, so the parallel split is
// whatever ExecContext::parallel_for chooses. Only large maps fan out (work = elements times a
// per-op cost, judged by ctx.may_parallelize); the output may have arbitrary non-overlapping
// strides (the `_into` ops), and may be exactly the same view as an input: each element is read
// before it is written.
//
// Ops with a SIMD loop (simd.hpp: f32/f64 add, sub, mul, div, exp) name it as the `simd`
// argument. Paths 1 and 2, and unit-stride runs of path 3, then call the Highway loop (binary
// ops only from kSimdMinRun elements: below that the plain loop is cheaper than the dispatch
// and gives the same bits). exp goes through the SIMD function on every path, strided runs
// gathered into a small buffer, so its values never depend on the layout or the chunking
// (Note [SIMD results]).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#include "cpu/admission.hpp"
#include "cpu/kernels/simd.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail::kernels {

/// Rough cycles per element of a cheap map (arithmetic, copies, comparisons); transcendental
/// ops pass a larger cost. The work estimate n * cost decides whether a map fans out
/// (ExecContext::may_parallelize), so a 2x2 op never does and exp fans out earlier than add.
inline constexpr std::int64_t kCheapCost = 2;
inline constexpr std::int64_t kTranscendentalCost = 20;

/// Elements below which a binary op keeps the plain loop instead of the dispatched SIMD loop.
inline constexpr std::int64_t kSimdMinRun = 16;

/// A typed view of one operand: base pointer (at the view's offset), shape and strides in
/// elements. Input shapes broadcast to the output shape (checked by the caller).
template <class T>
struct View {
  T* p;
  std::span<const std::int64_t> shape;
  std::span<const std::int64_t> strides;
};

inline bool is_row_major(std::span<const std::int64_t> shape,
                         std::span<const std::int64_t> strides) {
  std::int64_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

/// The general path's iteration space: collapsed shape and per-operand strides (operand 0 is
/// the output). Note [Elementwise loop paths].
template <std::size_t N>
struct StridedLoop {
  Dims shape;
  std::array<Dims, N> strides;

  StridedLoop(std::span<const std::int64_t> out_shape,
              const std::array<std::span<const std::int64_t>, N>& shapes,
              const std::array<std::span<const std::int64_t>, N>& strides_in) {
    const std::size_t r = out_shape.size();
    std::array<std::int64_t, N> s{};
    for (std::size_t d = 0; d < r; ++d) {
      const std::int64_t n = out_shape[d];
      if (n == 1) continue;
      for (std::size_t k = 0; k < N; ++k) {
        const std::size_t lead = r - shapes[k].size();
        s[k] = (d < lead || shapes[k][d - lead] == 1) ? 0 : strides_in[k][d - lead];
      }
      bool merge = !shape.empty();
      for (std::size_t k = 0; merge && k < N; ++k) merge = strides[k].back() == s[k] * n;
      if (merge) {
        shape.back() *= n;
        for (std::size_t k = 0; k < N; ++k) strides[k].back() = s[k];
        continue;
      }
      shape.push_back(n);
      for (std::size_t k = 0; k < N; ++k) strides[k].push_back(s[k]);
    }
    if (shape.empty()) {  // a single element
      shape.push_back(1);
      for (std::size_t k = 0; k < N; ++k) strides[k].push_back(0);
    }
  }

  std::int64_t inner_stride(std::size_t k) const { return strides[k].back(); }

  /// Calls run(offsets, count) for the runs of the innermost dimension covering flat output
  /// positions [begin, end); offsets are per operand, in elements.
  template <class Run>
  void for_each_run(std::int64_t begin, std::int64_t end, Run&& run) const {
    const std::size_t r = shape.size();
    const std::int64_t inner = shape[r - 1];
    Dims idx(r, 0);
    std::array<std::int64_t, N> off{};
    std::int64_t rem = begin;
    for (std::size_t d = r; d-- > 0;) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
      for (std::size_t k = 0; k < N; ++k) off[k] += idx[d] * strides[k][d];
    }
    std::int64_t pos = begin;
    while (pos < end) {
      const std::int64_t count = std::min(inner - idx[r - 1], end - pos);
      run(off, count);
      pos += count;
      if (pos >= end) return;
      // The run ended at the end of the innermost dimension: carry into the outer ones.
      for (std::size_t k = 0; k < N; ++k) off[k] -= idx[r - 1] * strides[k][r - 1];
      idx[r - 1] = 0;
      for (std::size_t d = r - 1; d-- > 0;) {
        for (std::size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        if (++idx[d] < shape[d]) break;
        for (std::size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * shape[d];
        idx[d] = 0;
      }
    }
  }
};

/// out[i] = op(x[i * sx]) for i in [0, n), through the SIMD loop: unit strides directly, others
/// gathered and scattered in pieces of a stack buffer (same values as the direct call).
template <class T>
void simd_unary_run(simd::Unary op, T* o, std::int64_t so, const T* x, std::int64_t sx,
                    std::int64_t n) {
  if (so == 1 && sx == 1) return simd::unary(op, x, o, n);
  constexpr std::int64_t kPiece = 256;
  T buf[kPiece];
  for (std::int64_t b = 0; b < n; b += kPiece) {
    const std::int64_t m = std::min(kPiece, n - b);
    for (std::int64_t i = 0; i < m; ++i) buf[i] = x[(b + i) * sx];
    simd::unary(op, buf, buf, m);
    for (std::int64_t i = 0; i < m; ++i) o[(b + i) * so] = buf[i];
  }
}

/// True when binary op `op` has a SIMD loop for To = T and a contiguous run of n elements with
/// operand strides sx, sy (1 contiguous, 0 one scalar; not both 0) is worth dispatching.
template <class To, class T>
bool simd_binary_applies(simd::Binary op, std::int64_t sx, std::int64_t sy, std::int64_t n) {
  if constexpr (std::is_same_v<To, T> && simd::has_loops_v<T>) {
    return op != simd::Binary::none && n >= kSimdMinRun &&
           ((sx == 1 && (sy == 1 || sy == 0)) || (sx == 0 && sy == 1));
  }
  return false;
}

/// o[i] = x[i * sx] op y[i * sy] for i in [0, n) through the SIMD loop (simd_binary_applies).
template <class To, class T>
void simd_binary_run(simd::Binary op, To* o, const T* x, std::int64_t sx, const T* y,
                     std::int64_t sy, std::int64_t n) {
  if constexpr (std::is_same_v<To, T> && simd::has_loops_v<T>) {
    if (sx == 1 && sy == 1)
      simd::binary(op, x, y, o, n);
    else if (sx == 1)
      simd::binary_scalar_right(op, x, *y, o, n);
    else
      simd::binary_scalar_left(op, *x, y, o, n);
  }
}

// ---- runs: the only code instantiated per element function ----
//
// Note [Elementwise runs]: a map's element function reaches the loop machinery as one function
// pointer, its *run*: n outputs at o (stride so) from operands at x, y, ... (strides sx, sy, ...;
// strides in elements, 0 = one broadcast element). The paths, the parallel split and the strided
// walk (plan_map*, run_map*, StridedLoop::for_each_run, ExecContext::parallel_for_work) are plain
// functions in elementwise.cpp, compiled once; each (op, dtype) instantiates only its run -- the
// few loops below. Before, every op and dtype instantiated the whole machinery, TBB's parallel_for
// included, once per path, which made the elementwise files the slowest of the build. A run costs
// one indirect call per chunk or per innermost run, next to loops of at least one element.

using UnaryRun = void (*)(void* o, std::int64_t so, const void* x, std::int64_t sx, std::int64_t n);
using BinaryRun = void (*)(void* o, std::int64_t so, const void* x, std::int64_t sx, const void* y,
                           std::int64_t sy, std::int64_t n);
using TernaryRun = void (*)(void* o, std::int64_t so, const void* c, std::int64_t sc, const void* x,
                            std::int64_t sx, const void* y, std::int64_t sy, std::int64_t n);

/// The run of out = f(a) for a stateless element function F; S: f's SIMD loop (f32/f64 only),
/// which then computes every element whatever the layout (Note [SIMD results]).
template <class To, class Ta, class F, simd::Unary S = simd::Unary::none>
void unary_run(void* o_, std::int64_t so, const void* x_, std::int64_t sx, std::int64_t n) {
  To* o = static_cast<To*>(o_);
  const Ta* x = static_cast<const Ta*>(x_);
  constexpr F f{};
  if constexpr (std::is_same_v<To, Ta> && simd::has_loops_v<Ta> && S != simd::Unary::none) {
    simd_unary_run(S, o, so, x, sx, n);
  } else if (so == 1 && sx == 1) {
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
  } else if (sx == 0) {
    const To v = f(x[0]);
    for (std::int64_t i = 0; i < n; ++i) o[i * so] = v;
  } else {
    for (std::int64_t i = 0; i < n; ++i) o[i * so] = f(x[i * sx]);
  }
}

/// The run of out = f(a, b); S: f's SIMD loop (f32/f64), used for contiguous or scalar operands
/// from kSimdMinRun elements.
template <class To, class T, class F, simd::Binary S = simd::Binary::none>
void binary_run(void* o_, std::int64_t so, const void* x_, std::int64_t sx, const void* y_,
                std::int64_t sy, std::int64_t n) {
  To* o = static_cast<To*>(o_);
  const T* x = static_cast<const T*>(x_);
  const T* y = static_cast<const T*>(y_);
  constexpr F f{};
  if constexpr (S != simd::Binary::none) {
    if (so == 1 && simd_binary_applies<To, T>(S, sx, sy, n))
      return simd_binary_run(S, o, x, sx, y, sy, n);
  }
  if (so == 1 && sx == 1 && sy == 1) {
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
  } else if (so == 1 && sx == 1 && sy == 0) {
    const T s = *y;
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], s);
  } else if (so == 1 && sx == 0 && sy == 1) {
    const T s = *x;
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(s, y[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) o[i * so] = f(x[i * sx], y[i * sy]);
  }
}

/// The run of out = f(c, a, b).
template <class To, class Tc, class T, class F>
void ternary_run(void* o_, std::int64_t so, const void* c_, std::int64_t sc, const void* x_,
                 std::int64_t sx, const void* y_, std::int64_t sy, std::int64_t n) {
  To* o = static_cast<To*>(o_);
  const Tc* c = static_cast<const Tc*>(c_);
  const T* x = static_cast<const T*>(x_);
  const T* y = static_cast<const T*>(y_);
  constexpr F f{};
  if (so == 1 && sc == 1 && sx == 1 && sy == 1) {
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(c[i], x[i], y[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) o[i * so] = f(c[i * sc], x[i * sx], y[i * sy]);
  }
}

// ---- the machinery (elementwise.cpp) ----

/// An operand without its element type: base pointer, shape and strides in elements, and the
/// element size in bytes.
struct AnyView {
  const void* p;
  std::span<const std::int64_t> shape;
  std::span<const std::int64_t> strides;
  std::size_t item;
};
template <class T>
AnyView erase(const View<T>& v) {
  return {v.p, v.shape, v.strides, sizeof(T)};
}

/// The loop a map takes for fixed operand layouts (Note [Elementwise loop paths]): its path and,
/// for the general path, the collapsed iteration space -- the broadcast plan. It depends only on
/// shapes, strides and element sizes (never on data pointers), so a prepared eager kernel computes
/// it once (Note [Eager cache]); plain map1/map2 compute it on every call.
enum class MapPath : std::uint8_t { empty, dense, scalar_left, scalar_right, strided };
template <std::size_t N>
struct MapPlan {
  MapPath path = MapPath::empty;
  std::int64_t n = 0;
  std::array<std::size_t, N> item{};   // element sizes, operand 0 the output
  std::optional<StridedLoop<N>> loop;  // MapPath::strided
};

/// map1's plan for these layouts (pointers unused).
MapPlan<2> plan_map1(const AnyView& out, const AnyView& a);
/// Runs out[i] = f(a[i]) by a plan made for these operands' layouts; run is f's unary_run.
void run_map1(ExecContext& ctx, UnaryRun run, const MapPlan<2>& plan, void* o, const void* x,
              std::int64_t cost = kCheapCost);
/// out[i] = f(a[i]) with a broadcast to out's shape.
void map1(ExecContext& ctx, UnaryRun run, const AnyView& out, const AnyView& a,
          std::int64_t cost = kCheapCost);

/// map2's plan for these layouts (pointers unused).
MapPlan<3> plan_map2(const AnyView& out, const AnyView& a, const AnyView& b);
/// Runs out[i] = f(a[i], b[i]) by a plan made for these operands' layouts; run is f's binary_run.
void run_map2(ExecContext& ctx, BinaryRun run, const MapPlan<3>& plan, void* o, const void* x,
              const void* y, std::int64_t cost = kCheapCost);
/// out[i] = f(a[i], b[i]) with a and b broadcast to out's shape.
void map2(ExecContext& ctx, BinaryRun run, const AnyView& out, const AnyView& a, const AnyView& b,
          std::int64_t cost = kCheapCost);

/// out[i] = f(c[i], a[i], b[i]) with all inputs broadcast to out's shape.
void map3(ExecContext& ctx, TernaryRun run, const AnyView& out, const AnyView& c, const AnyView& a,
          const AnyView& b, std::int64_t cost = kCheapCost);

}  // namespace tenferro::detail::kernels
