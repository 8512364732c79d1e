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

/// True when `v` has exactly `shape` and is row-major: it can be indexed by the flat position.
template <class T>
bool dense_as(const View<T>& v, std::span<const std::int64_t> shape) {
  return std::equal(v.shape.begin(), v.shape.end(), shape.begin(), shape.end()) &&
         is_row_major(v.shape, v.strides);
}

/// Runs chunk(begin, end) over disjoint chunks of [0, n): on the operation's workers when the
/// work n * cost is large enough and the context allows it, else inline.
template <class Chunk>
void run_chunks(ExecContext& ctx, std::int64_t n, std::int64_t cost, Chunk&& chunk) {
  const std::int64_t grain = std::max<std::int64_t>(1024, 64 * 1024 / cost);
  ctx.parallel_for_work(n, grain, n * cost, chunk);
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

/// The loop a map takes for fixed operand layouts (Note [Elementwise loop paths]): its path and,
/// for the general path, the collapsed iteration space -- the broadcast plan. It depends only on
/// shapes and strides (never on data pointers), so a prepared eager kernel computes it once
/// (Note [Eager cache]); plain map1/map2 compute it on every call.
enum class MapPath : std::uint8_t { empty, dense, scalar_left, scalar_right, strided };
template <std::size_t N>
struct MapPlan {
  MapPath path = MapPath::empty;
  std::int64_t n = 0;
  bool simd = false;                   // the dense paths call the SIMD loop
  std::optional<StridedLoop<N>> loop;  // MapPath::strided
};

/// map1's plan for these layouts (pointers unused). `simd`: f's SIMD loop, if it has one.
template <class To, class Ta>
MapPlan<2> plan_map1(const View<To>& out, const View<const Ta>& a,
                     simd::Unary simd_op = simd::Unary::none) {
  MapPlan<2> plan;
  plan.n = dims_numel(out.shape);
  if (plan.n == 0) return plan;
  constexpr bool kSimdType = std::is_same_v<To, Ta> && simd::has_loops_v<Ta>;
  plan.simd = kSimdType && simd_op != simd::Unary::none;
  if (dense_as(out, out.shape) && dense_as(a, out.shape)) {
    plan.path = MapPath::dense;
    return plan;
  }
  plan.path = MapPath::strided;
  plan.loop.emplace(out.shape, std::array<std::span<const std::int64_t>, 2>{out.shape, a.shape},
                    std::array<std::span<const std::int64_t>, 2>{out.strides, a.strides});
  return plan;
}

/// Runs out[i] = f(a[i]) by a plan made for these operands' layouts.
template <class To, class Ta, class F>
void run_map1(ExecContext& ctx, F f, const MapPlan<2>& plan, To* o, const Ta* x,
              std::int64_t cost = kCheapCost, simd::Unary simd_op = simd::Unary::none) {
  const std::int64_t n = plan.n;
  constexpr bool kSimdType = std::is_same_v<To, Ta> && simd::has_loops_v<Ta>;
  if (plan.path == MapPath::empty) return;
  if (plan.path == MapPath::dense) {
    if constexpr (kSimdType) {
      if (plan.simd) {
        run_chunks(ctx, n, cost, [=](std::int64_t b, std::int64_t e) {
          simd::unary(simd_op, x + b, o + b, e - b);
        });
        return;
      }
    }
    run_chunks(ctx, n, cost, [=](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) o[i] = f(x[i]);
    });
    return;
  }
  const StridedLoop<2>& loop = *plan.loop;
  const std::int64_t so = loop.inner_stride(0), sa = loop.inner_stride(1);
  run_chunks(ctx, n, cost, [&](std::int64_t b, std::int64_t e) {
    loop.for_each_run(b, e, [&](const std::array<std::int64_t, 2>& off, std::int64_t cnt) {
      To* ro = o + off[0];
      const Ta* rx = x + off[1];
      if constexpr (kSimdType) {
        if (plan.simd) return simd_unary_run(simd_op, ro, so, rx, sa, cnt);
      }
      if (so == 1 && sa == 1) {
        for (std::int64_t i = 0; i < cnt; ++i) ro[i] = f(rx[i]);
      } else if (sa == 0) {
        const To v = f(rx[0]);
        for (std::int64_t i = 0; i < cnt; ++i) ro[i * so] = v;
      } else {
        for (std::int64_t i = 0; i < cnt; ++i) ro[i * so] = f(rx[i * sa]);
      }
    });
  });
}

/// out[i] = f(a[i]) with a broadcast to out's shape. `simd`: f's SIMD loop, if it has one.
template <class To, class Ta, class F>
void map1(ExecContext& ctx, F f, View<To> out, View<const Ta> a, std::int64_t cost = kCheapCost,
          simd::Unary simd_op = simd::Unary::none) {
  run_map1<To, Ta>(ctx, f, plan_map1<To, Ta>(out, a, simd_op), out.p, a.p, cost, simd_op);
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

/// map2's plan for these layouts (pointers unused). `simd`: f's SIMD loop, if any.
template <class To, class T>
MapPlan<3> plan_map2(const View<To>& out, const View<const T>& a, const View<const T>& b,
                     simd::Binary simd_op = simd::Binary::none) {
  MapPlan<3> plan;
  plan.n = dims_numel(out.shape);
  if (plan.n == 0) return plan;
  if (dense_as(out, out.shape)) {
    const bool da = dense_as(a, out.shape), db = dense_as(b, out.shape);
    // Strides of the flat operands: 1 dense, 0 a single broadcast element.
    const std::int64_t sx = da ? 1 : (dims_numel(a.shape) == 1 ? 0 : -1);
    const std::int64_t sy = db ? 1 : (dims_numel(b.shape) == 1 ? 0 : -1);
    plan.simd = simd_binary_applies<To, T>(simd_op, sx, sy, plan.n);
    if (da && db) plan.path = MapPath::dense;
    if (da && sy == 0) plan.path = MapPath::scalar_right;
    if (db && sx == 0) plan.path = MapPath::scalar_left;
    if (plan.path != MapPath::empty) return plan;
  }
  plan.simd = false;
  plan.path = MapPath::strided;
  plan.loop.emplace(
      out.shape, std::array<std::span<const std::int64_t>, 3>{out.shape, a.shape, b.shape},
      std::array<std::span<const std::int64_t>, 3>{out.strides, a.strides, b.strides});
  return plan;
}

/// Runs out[i] = f(a[i], b[i]) by a plan made for these operands' layouts.
template <class To, class T, class F>
void run_map2(ExecContext& ctx, F f, const MapPlan<3>& plan, To* o, const T* x, const T* y,
              std::int64_t cost = kCheapCost, simd::Binary simd_op = simd::Binary::none) {
  const std::int64_t n = plan.n;
  switch (plan.path) {
    case MapPath::empty:
      return;
    case MapPath::dense:
      if (plan.simd)
        return run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
          simd_binary_run(simd_op, o + lo, x + lo, 1, y + lo, 1, hi - lo);
        });
      return run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) o[i] = f(x[i], y[i]);
      });
    case MapPath::scalar_right:
      if (plan.simd)
        return run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
          simd_binary_run(simd_op, o + lo, x + lo, 1, y, 0, hi - lo);
        });
      return run_chunks(ctx, n, cost, [=, s = *y](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) o[i] = f(x[i], s);
      });
    case MapPath::scalar_left:
      if (plan.simd)
        return run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
          simd_binary_run(simd_op, o + lo, x, 0, y + lo, 1, hi - lo);
        });
      return run_chunks(ctx, n, cost, [=, s = *x](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) o[i] = f(s, y[i]);
      });
    case MapPath::strided:
      break;
  }
  const StridedLoop<3>& loop = *plan.loop;
  const std::int64_t so = loop.inner_stride(0), sa = loop.inner_stride(1),
                     sb = loop.inner_stride(2);
  run_chunks(ctx, n, cost, [&](std::int64_t lo, std::int64_t hi) {
    loop.for_each_run(lo, hi, [&](const std::array<std::int64_t, 3>& off, std::int64_t cnt) {
      To* ro = o + off[0];
      const T* rx = x + off[1];
      const T* ry = y + off[2];
      if (so == 1 && simd_binary_applies<To, T>(simd_op, sa, sb, cnt))
        return simd_binary_run(simd_op, ro, rx, sa, ry, sb, cnt);
      if (so == 1 && sa == 1 && sb == 1) {
        for (std::int64_t i = 0; i < cnt; ++i) ro[i] = f(rx[i], ry[i]);
      } else if (so == 1 && sa == 1 && sb == 0) {
        const T s = *ry;
        for (std::int64_t i = 0; i < cnt; ++i) ro[i] = f(rx[i], s);
      } else if (so == 1 && sa == 0 && sb == 1) {
        const T s = *rx;
        for (std::int64_t i = 0; i < cnt; ++i) ro[i] = f(s, ry[i]);
      } else {
        for (std::int64_t i = 0; i < cnt; ++i) ro[i * so] = f(rx[i * sa], ry[i * sb]);
      }
    });
  });
}

/// out[i] = f(a[i], b[i]) with a and b broadcast to out's shape. `simd`: f's SIMD loop, if any.
template <class To, class T, class F>
void map2(ExecContext& ctx, F f, View<To> out, View<const T> a, View<const T> b,
          std::int64_t cost = kCheapCost, simd::Binary simd_op = simd::Binary::none) {
  run_map2<To, T>(ctx, f, plan_map2<To, T>(out, a, b, simd_op), out.p, a.p, b.p, cost, simd_op);
}

/// out[i] = f(c[i], a[i], b[i]) with all inputs broadcast to out's shape.
template <class To, class Tc, class T, class F>
void map3(ExecContext& ctx, F f, View<To> out, View<const Tc> c, View<const T> a, View<const T> b,
          std::int64_t cost = kCheapCost) {
  const std::int64_t n = dims_numel(out.shape);
  if (n == 0) return;
  if (dense_as(out, out.shape) && dense_as(c, out.shape) && dense_as(a, out.shape) &&
      dense_as(b, out.shape)) {
    To* o = out.p;
    const Tc* z = c.p;
    const T* x = a.p;
    const T* y = b.p;
    run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) o[i] = f(z[i], x[i], y[i]);
    });
    return;
  }
  StridedLoop<4> loop(out.shape, {out.shape, c.shape, a.shape, b.shape},
                      {out.strides, c.strides, a.strides, b.strides});
  const std::int64_t so = loop.inner_stride(0), sc = loop.inner_stride(1),
                     sa = loop.inner_stride(2), sb = loop.inner_stride(3);
  run_chunks(ctx, n, cost, [&](std::int64_t lo, std::int64_t hi) {
    loop.for_each_run(lo, hi, [&](const std::array<std::int64_t, 4>& off, std::int64_t cnt) {
      To* o = out.p + off[0];
      const Tc* z = c.p + off[1];
      const T* x = a.p + off[2];
      const T* y = b.p + off[3];
      for (std::int64_t i = 0; i < cnt; ++i) o[i * so] = f(z[i * sc], x[i * sa], y[i * sb]);
    });
  });
}

}  // namespace tenferro::detail::kernels
