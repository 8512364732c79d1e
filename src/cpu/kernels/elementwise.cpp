// The elementwise loop machinery, compiled once for every op and dtype (Note [Elementwise runs]
// in elementwise.hpp): plans, the parallel split and the strided walk, calling each map's run.
#include "cpu/kernels/elementwise.hpp"

namespace tenferro::detail::kernels {
namespace {

/// True when `v` has exactly `shape` and is row-major: it can be indexed by the flat position.
bool dense_as(const AnyView& v, std::span<const std::int64_t> shape) {
  return std::equal(v.shape.begin(), v.shape.end(), shape.begin(), shape.end()) &&
         is_row_major(v.shape, v.strides);
}

// One element read everywhere: a single element, or a broadcast of one (every dimension longer
// than 1 has stride 0, as sum()'s cotangent in backward, Note [Zero-strided twin]).
bool one_element(const AnyView& v) {
  for (std::size_t d = 0; d < v.shape.size(); ++d)
    if (v.shape[d] != 1 && v.strides[d] != 0) return false;
  return true;
}

/// Runs chunk(begin, end) over disjoint chunks of [0, n): on the operation's workers when the
/// work n * cost is large enough and the context allows it, else inline.
template <class Chunk>
void run_chunks(ExecContext& ctx, std::int64_t n, std::int64_t cost, Chunk&& chunk) {
  const std::int64_t grain = std::max<std::int64_t>(1024, 64 * 1024 / cost);
  ctx.parallel_for_work(n, grain, n * cost, chunk);
}

char* at(void* p, std::int64_t i, std::size_t item) {
  return static_cast<char*>(p) + i * static_cast<std::int64_t>(item);
}
const char* at(const void* p, std::int64_t i, std::size_t item) {
  return static_cast<const char*>(p) + i * static_cast<std::int64_t>(item);
}

}  // namespace

MapPlan<2> plan_map1(const AnyView& out, const AnyView& a) {
  MapPlan<2> plan;
  plan.item = {out.item, a.item};
  plan.n = dims_numel(out.shape);
  if (plan.n == 0) return plan;
  if (dense_as(out, out.shape) && dense_as(a, out.shape)) {
    plan.path = MapPath::dense;
    return plan;
  }
  plan.path = MapPath::strided;
  plan.loop.emplace(out.shape, std::array<std::span<const std::int64_t>, 2>{out.shape, a.shape},
                    std::array<std::span<const std::int64_t>, 2>{out.strides, a.strides});
  return plan;
}

void run_map1(ExecContext& ctx, UnaryRun run, const MapPlan<2>& plan, void* o, const void* x,
              std::int64_t cost) {
  const std::int64_t n = plan.n;
  const std::size_t eo = plan.item[0], ex = plan.item[1];  // (clang 14 cannot capture bindings)
  if (plan.path == MapPath::empty) return;
  if (plan.path == MapPath::dense) {
    run_chunks(ctx, n, cost, [=](std::int64_t b, std::int64_t e) {
      run(at(o, b, eo), 1, at(x, b, ex), 1, e - b);
    });
    return;
  }
  const StridedLoop<2>& loop = *plan.loop;
  const std::int64_t so = loop.inner_stride(0), sa = loop.inner_stride(1);
  run_chunks(ctx, n, cost, [&](std::int64_t b, std::int64_t e) {
    loop.for_each_run(b, e, [&](const std::array<std::int64_t, 2>& off, std::int64_t cnt) {
      run(at(o, off[0], eo), so, at(x, off[1], ex), sa, cnt);
    });
  });
}

void map1(ExecContext& ctx, UnaryRun run, const AnyView& out, const AnyView& a, std::int64_t cost) {
  run_map1(ctx, run, plan_map1(out, a), const_cast<void*>(out.p), a.p, cost);
}

MapPlan<3> plan_map2(const AnyView& out, const AnyView& a, const AnyView& b) {
  MapPlan<3> plan;
  plan.item = {out.item, a.item, b.item};
  plan.n = dims_numel(out.shape);
  if (plan.n == 0) return plan;
  if (dense_as(out, out.shape)) {
    const bool da = dense_as(a, out.shape), db = dense_as(b, out.shape);
    // One broadcast element: the scalar paths.
    const bool sa = !da && one_element(a), sb = !db && one_element(b);
    if (da && db) plan.path = MapPath::dense;
    if (da && sb) plan.path = MapPath::scalar_right;
    if (db && sa) plan.path = MapPath::scalar_left;
    if (plan.path != MapPath::empty) return plan;
  }
  plan.path = MapPath::strided;
  plan.loop.emplace(
      out.shape, std::array<std::span<const std::int64_t>, 3>{out.shape, a.shape, b.shape},
      std::array<std::span<const std::int64_t>, 3>{out.strides, a.strides, b.strides});
  return plan;
}

void run_map2(ExecContext& ctx, BinaryRun run, const MapPlan<3>& plan, void* o, const void* x,
              const void* y, std::int64_t cost) {
  const std::int64_t n = plan.n;
  const std::size_t eo = plan.item[0], ex = plan.item[1], ey = plan.item[2];
  switch (plan.path) {
    case MapPath::empty:
      return;
    case MapPath::dense:
      return run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
        run(at(o, lo, eo), 1, at(x, lo, ex), 1, at(y, lo, ey), 1, hi - lo);
      });
    case MapPath::scalar_right:
      return run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
        run(at(o, lo, eo), 1, at(x, lo, ex), 1, y, 0, hi - lo);
      });
    case MapPath::scalar_left:
      return run_chunks(ctx, n, cost, [=](std::int64_t lo, std::int64_t hi) {
        run(at(o, lo, eo), 1, x, 0, at(y, lo, ey), 1, hi - lo);
      });
    case MapPath::strided:
      break;
  }
  const StridedLoop<3>& loop = *plan.loop;
  const std::int64_t so = loop.inner_stride(0), sa = loop.inner_stride(1),
                     sb = loop.inner_stride(2);
  run_chunks(ctx, n, cost, [&](std::int64_t lo, std::int64_t hi) {
    loop.for_each_run(lo, hi, [&](const std::array<std::int64_t, 3>& off, std::int64_t cnt) {
      run(at(o, off[0], eo), so, at(x, off[1], ex), sa, at(y, off[2], ey), sb, cnt);
    });
  });
}

void map2(ExecContext& ctx, BinaryRun run, const AnyView& out, const AnyView& a, const AnyView& b,
          std::int64_t cost) {
  run_map2(ctx, run, plan_map2(out, a, b), const_cast<void*>(out.p), a.p, b.p, cost);
}

void map3(ExecContext& ctx, TernaryRun run, const AnyView& out, const AnyView& c, const AnyView& a,
          const AnyView& b, std::int64_t cost) {
  const std::int64_t n = dims_numel(out.shape);
  if (n == 0) return;
  void* o = const_cast<void*>(out.p);
  const std::size_t eo = out.item, ec = c.item, ea = a.item, eb = b.item;
  if (dense_as(out, out.shape) && dense_as(c, out.shape) && dense_as(a, out.shape) &&
      dense_as(b, out.shape)) {
    run_chunks(ctx, n, cost, [&](std::int64_t lo, std::int64_t hi) {
      run(at(o, lo, eo), 1, at(c.p, lo, ec), 1, at(a.p, lo, ea), 1, at(b.p, lo, eb), 1, hi - lo);
    });
    return;
  }
  StridedLoop<4> loop(out.shape, {out.shape, c.shape, a.shape, b.shape},
                      {out.strides, c.strides, a.strides, b.strides});
  const std::int64_t so = loop.inner_stride(0), sc = loop.inner_stride(1),
                     sa = loop.inner_stride(2), sb = loop.inner_stride(3);
  run_chunks(ctx, n, cost, [&](std::int64_t lo, std::int64_t hi) {
    loop.for_each_run(lo, hi, [&](const std::array<std::int64_t, 4>& off, std::int64_t cnt) {
      run(at(o, off[0], eo), so, at(c.p, off[1], ec), sc, at(a.p, off[2], ea), sa,
          at(b.p, off[3], eb), sb, cnt);
    });
  });
}

}  // namespace tenferro::detail::kernels
