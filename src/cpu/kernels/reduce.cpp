// Reduction kernels. Three layouts after normalisation (size-1 dims dropped, reduced dims sorted
// by decreasing |stride| and coalesced):
//  - inner: one reduced run per output (stride 1: a flat vectorisable loop; else strided);
//  - rows:  the innermost kept dim has stride 1 and the reduced dim is outer: whole rows are
//           accumulated (vectorised across the row), pairwise over rows;
//  - general: several non-coalescable reduced dims: copy with the reduced dims last, then inner.
// The combine tree of every output depends only on its run length (Note [Deterministic
// reductions]); parallel loops only decide which thread evaluates which independent piece.
#include "cpu/kernels/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <type_traits>

#include "core/alloc.hpp"
#include "core/strided.hpp"
#include "cpu/kernels/elementwise_math.hpp"
#include "cpu/kernels/simd.hpp"

namespace tenferro::detail {
namespace {

using I = std::int64_t;

template <class T>
struct SumOp {
  using Acc = T;
  static Acc identity() { return Acc(0); }
  static Acc map(T v) { return v; }
  static Acc combine(Acc a, Acc b) { return kernels::add_of(a, b); }  // integers wrap
};
template <class T>
struct ProdOp {
  using Acc = T;
  static Acc identity() { return Acc(1); }
  static Acc map(T v) { return v; }
  static Acc combine(Acc a, Acc b) { return kernels::mul_of(a, b); }
};
// Complex products accumulate in ProdAcc: no NaN part from an intermediate beyond the range
// (Note [Complex products of many factors] in elementwise_math.hpp).
template <class T>
requires is_complex_v<T>
struct ProdOp<T> {
  using Acc = kernels::ProdAcc<T>;
  static Acc identity() { return Acc(T(1)); }
  static Acc map(T v) { return Acc(v); }
  static Acc combine(const Acc& a, const Acc& b) { return kernels::prod_acc_mul(a, b); }
};
struct AnyOp {
  using Acc = bool;
  static Acc identity() { return false; }
  static Acc map(bool v) { return v; }
  static Acc combine(Acc a, Acc b) { return a || b; }
};
struct AllOp {
  using Acc = bool;
  static Acc identity() { return true; }
  static Acc map(bool v) { return v; }
  static Acc combine(Acc a, Acc b) { return a && b; }
};
// The identity of max/min only fills empty results of sum-like kinds; max/min themselves refuse
// empty runs (the shape rule), so for integers any value would do.
template <class T>
constexpr T lowest_of() {
  if constexpr (std::is_integral_v<T>)
    return std::numeric_limits<T>::lowest();
  else
    return -std::numeric_limits<T>::infinity();
}
template <class T>
constexpr T highest_of() {
  if constexpr (std::is_integral_v<T>)
    return std::numeric_limits<T>::max();
  else
    return std::numeric_limits<T>::infinity();
}
// NaN wins: (a > b || a != a) keeps a NaN `a`; a NaN `b` fails `a > b` and is kept.
template <class T>
struct MaxOp {
  using Acc = T;
  static Acc identity() { return lowest_of<T>(); }
  static Acc map(T v) { return v; }
  static Acc combine(Acc a, Acc b) { return (a > b || a != a) ? a : b; }
};
template <class T>
struct MinOp {
  using Acc = T;
  static Acc identity() { return highest_of<T>(); }
  static Acc map(T v) { return v; }
  static Acc combine(Acc a, Acc b) { return (a < b || a != a) ? a : b; }
};
template <class T>
struct SumSquaresOp {
  using Acc = real_t<T>;
  static Acc identity() { return Acc(0); }
  static Acc map(T v) {
    if constexpr (is_complex_v<T>) {
      return v.real() * v.real() + v.imag() * v.imag();
    } else {
      return v * v;
    }
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
};

// Pairwise combination of n elements p[0], p[s], ...: L interleaved accumulators (16 for 4-byte
// accumulators, else 8: enough independent add chains to saturate the FP units) on leaves of
// <= 16 L elements, halves (cut at a multiple of L) combined recursively. Depends only on n.
template <class Op, class T, bool Unit>
typename Op::Acc pairwise(const T* p, I n, I s) {
  using A = typename Op::Acc;
  constexpr int L = sizeof(A) <= 4 ? 16 : 8;
  const I st = Unit ? 1 : s;
  if (n < L) {
    A r = Op::identity();
    for (I i = 0; i < n; ++i) r = Op::combine(r, Op::map(p[i * st]));
    return r;
  }
  if (n <= 16 * L) {
    A r[L];
    for (int k = 0; k < L; ++k) r[k] = Op::map(p[k * st]);
    I i = L;
    for (; i + L <= n; i += L)
      for (int k = 0; k < L; ++k) r[k] = Op::combine(r[k], Op::map(p[(i + k) * st]));
    for (int w = L / 2; w > 0; w /= 2)  // fixed tree over the lanes
      for (int k = 0; k < w; ++k) r[k] = Op::combine(r[k], r[k + w]);
    A res = r[0];
    for (; i < n; ++i) res = Op::combine(res, Op::map(p[i * st]));
    return res;
  }
  I h = n / 2;
  h -= h % L;
  return Op::combine(pairwise<Op, T, Unit>(p, h, s), pairwise<Op, T, Unit>(p + h * st, n - h, s));
}

template <class Op>
typename Op::Acc tree_combine(const typename Op::Acc* a, I m) {
  if (m == 1) return a[0];
  I h = m / 2;
  return Op::combine(tree_combine<Op>(a, h), tree_combine<Op>(a + h, m - h));
}

// One block. Contiguous f32/f64 sums take the Highway loop, whose order is written in lanes
// that every vector width shares (cpu/kernels/simd_sum.cpp); everything else the scalar tree.
template <class Op, class T>
typename Op::Acc block_run(const T* p, I n, I s) {
  if constexpr (std::is_same_v<Op, SumOp<T>> && kernels::simd::has_loops_v<T>) {
    if (s == 1) return kernels::simd::sum_block(p, n);
  }
  return s == 1 ? pairwise<Op, T, true>(p, n, 1) : pairwise<Op, T, false>(p, n, s);
}

// One reduced run: fixed blocks of kReduceBlock, partials combined pairwise. When `par`, the
// blocks are evaluated by ctx.parallel_for (same tree, so the same bits).
template <class Op, class T>
typename Op::Acc reduce_run(ExecContext* par, const T* p, I n, I s) {
  using A = typename Op::Acc;
  if (n <= kReduceBlock) return block_run<Op>(p, n, s);
  const I nb = (n + kReduceBlock - 1) / kReduceBlock;
  checked_bytes(nb, sizeof(A), "reduce (partial sums)");  // Note [Byte counts]
  SmallVector<A, 32> part(static_cast<std::size_t>(nb), A{});
  auto body = [&](I b, I e) {
    for (I k = b; k < e; ++k)
      part[static_cast<std::size_t>(k)] =
          block_run<Op>(p + k * kReduceBlock * s, std::min(kReduceBlock, n - k * kReduceBlock), s);
  };
  if (par && par->may_parallelize(n))
    par->parallel_for_work(nb, 1, n, body);
  else
    body(0, nb);
  return tree_combine<Op>(part.data(), nb);
}

// Row-major walk over (shape, strides) starting at linear index `start`.
struct OffsetCounter {
  std::span<const I> shape, strides;
  Dims idx;
  I off = 0;
  OffsetCounter(std::span<const I> sh, std::span<const I> st, I start)
      : shape(sh), strides(st), idx(sh.size(), 0) {
    for (std::size_t d = sh.size(); d-- > 0;) {
      idx[d] = start % sh[d];
      start /= sh[d];
      off += idx[d] * st[d];
    }
  }
  void next() {
    for (std::size_t d = shape.size(); d-- > 0;) {
      off += strides[d];
      if (++idx[d] < shape[d]) return;
      off -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
};

template <class Out, class C>
Out finalize(ReduceKind, const kernels::ProdAcc<C>& acc, I) {  // prod only
  return static_cast<Out>(static_cast<C>(acc));
}
template <class Out, class A>
Out finalize(ReduceKind k, A acc, I n) {
  if (k == ReduceKind::mean) return static_cast<Out>(acc / static_cast<real_t<A>>(n));
  if constexpr (!is_complex_v<A>) {
    if (k == ReduceKind::norm) return static_cast<Out>(std::sqrt(acc));
  }
  return static_cast<Out>(acc);
}

constexpr I kRowTile = 256;  // columns per rows-path task

// Pairwise over n >= 1 rows (leaves of <= 16 rows accumulated in order), w <= kRowTile columns.
template <class Op, class T>
void rows_pairwise(const T* __restrict p, I n, I rs, I w, typename Op::Acc* __restrict acc) {
  using A = typename Op::Acc;
  if (n <= 16) {
    for (I j = 0; j < w; ++j) acc[j] = Op::map(p[j]);
    for (I i = 1; i < n; ++i) {
      const T* __restrict row = p + i * rs;
      for (I j = 0; j < w; ++j) acc[j] = Op::combine(acc[j], Op::map(row[j]));
    }
    return;
  }
  const I h = n / 2;
  A tmp[kRowTile];
  rows_pairwise<Op>(p, h, rs, w, acc);
  rows_pairwise<Op>(p + h * rs, n - h, rs, w, tmp);
  for (I j = 0; j < w; ++j) acc[j] = Op::combine(acc[j], tmp[j]);
}

using Layout = ReduceLayout;

void push_coalesced(Dims& shape, Dims& strides, I n, I s) {
  if (!shape.empty() && strides.back() == s * n) {
    shape.back() *= n;
    strides.back() = s;
    return;
  }
  shape.push_back(n);
  strides.push_back(s);
}

}  // namespace

ReduceLayout reduce_layout(const Tensor& x, std::span<const bool> reduce_axis) {
  ReduceLayout l;
  SmallVector<std::size_t, 6> red;
  for (std::size_t d = 0; d < x.shape().size(); ++d) {
    if (x.shape()[d] == 1) continue;
    if (reduce_axis[d])
      red.push_back(d);
    else
      push_coalesced(l.kshape, l.kstrides, x.shape()[d], x.strides()[d]);
  }
  std::stable_sort(red.begin(), red.end(), [&](std::size_t a, std::size_t b) {
    return std::llabs(x.strides()[a]) > std::llabs(x.strides()[b]);
  });
  for (std::size_t d : red) push_coalesced(l.rshape, l.rstrides, x.shape()[d], x.strides()[d]);
  return l;
}

namespace {

template <class Op, class T, class Out>
void run_inner(ExecContext& ctx, ReduceKind kind, const T* p, std::span<const I> kshape,
               std::span<const I> kstrides, I n, I s, Out* out) {
  if (kshape.empty()) {  // a full reduction: one run, no offsets to walk (the same call below)
    out[0] = finalize<Out>(kind, reduce_run<Op>(&ctx, p, n, s), n);
    return;
  }
  const I outputs = dims_numel(kshape);
  // A few runs longer than a block: each run's blocks are the parallel units (reduce_run);
  // otherwise the outputs are (a few runs of at most one block each still fan out, two ways up).
  if (outputs == 1 || (outputs < 8 && n > kReduceBlock)) {
    OffsetCounter c(kshape, kstrides, 0);
    for (I o = 0; o < outputs; ++o, c.next())
      out[o] = finalize<Out>(kind, reduce_run<Op>(&ctx, p + c.off, n, s), n);
    return;
  }
  auto body = [&](I b, I e) {
    OffsetCounter c(kshape, kstrides, b);
    for (I o = b; o < e; ++o, c.next())
      out[o] = finalize<Out>(kind, reduce_run<Op>(nullptr, p + c.off, n, s), n);
  };
  if (ctx.may_parallelize(outputs * n))
    ctx.parallel_for_work(outputs, std::max<I>(1, 4096 / std::max<I>(n, 1)), outputs * n, body);
  else
    body(0, outputs);
}

template <class Op, class T, class Out>
void run_rows(ExecContext& ctx, ReduceKind kind, const T* p, const Layout& l, Out* out) {
  using A = typename Op::Acc;
  const std::span<const I> oshape(l.kshape.data(), l.kshape.size() - 1);
  const std::span<const I> ostrides(l.kstrides.data(), l.kstrides.size() - 1);
  const I m = l.kshape.back(), n = l.rshape[0], rs = l.rstrides[0];
  const I tiles = (m + kRowTile - 1) / kRowTile, tasks = dims_numel(oshape) * tiles;
  auto body = [&](I b, I e) {
    A acc[kRowTile];
    for (I t = b; t < e; ++t) {
      const I ko = t / tiles, j0 = (t % tiles) * kRowTile, w = std::min(kRowTile, m - j0);
      OffsetCounter c(oshape, ostrides, ko);
      rows_pairwise<Op>(p + c.off + j0, n, rs, w, acc);
      Out* o = out + ko * m + j0;
      for (I j = 0; j < w; ++j) o[j] = finalize<Out>(kind, acc[j], n);
    }
  };
  const I work = n * m * dims_numel(oshape);
  if (tasks > 1 && ctx.may_parallelize(work))
    ctx.parallel_for_work(tasks, 1, work, body);
  else
    body(0, tasks);
}

template <class Op, class T, class Out>
void run(ExecContext& ctx, ReduceKind kind, const Tensor& x, const Layout& l, const Tensor& out) {
  Out* o = static_cast<Out*>(out.data_ptr());
  if (out.numel() == 0) return;
  if (x.numel() == 0) {  // every run is empty
    std::fill(o, o + out.numel(), finalize<Out>(kind, Op::identity(), 0));
    return;
  }
  const T* p = static_cast<const T*>(x.data_ptr());
  if (l.rshape.size() <= 1) {
    const I n = l.rshape.empty() ? 1 : l.rshape[0], s = l.rstrides.empty() ? 1 : l.rstrides[0];
    if (n > 1 && s != 1 && !l.kshape.empty() && l.kstrides.back() == 1 && l.kshape.back() >= 4)
      run_rows<Op>(ctx, kind, p, l, o);
    else
      run_inner<Op>(ctx, kind, p, l.kshape, l.kstrides, n, s, o);
    return;
  }
  // General: gather the input with the reduced dims last, then one contiguous run per output.
  Dims shape = l.kshape, strides = l.kstrides;
  for (std::size_t i = 0; i < l.rshape.size(); ++i) {
    shape.push_back(l.rshape[i]);
    strides.push_back(l.rstrides[i]);
  }
  Tensor gathered(x.storage(), std::move(shape), std::move(strides), x.offset(), x.dtype());
  // x may be a broadcast view with far more elements than bytes (Note [Byte counts]).
  std::unique_ptr<T[]> buf(new T[checked_bytes(x.numel(), x.dtype(), "reduce") / sizeof(T)]);
  copy_to_contiguous(gathered, buf.get(), x.dtype());
  const I n = dims_numel(l.rshape), outputs = dims_numel(l.kshape);
  const I kshape[1] = {outputs}, kstrides[1] = {n};
  run_inner<Op>(ctx, kind, buf.get(), kshape, kstrides, n, I{1}, o);
}

}  // namespace

void reduce_kernel(ExecContext& ctx, ReduceKind kind, const Tensor& x,
                   std::span<const bool> reduce_axis, const Tensor& out) {
  reduce_kernel(ctx, kind, x, reduce_layout(x, reduce_axis), out);
}

void reduce_kernel(ExecContext& ctx, ReduceKind kind, const Tensor& x, const ReduceLayout& l,
                   const Tensor& out) {
  visit_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    constexpr bool kBool = std::is_same_v<T, bool>, kInt = std::is_integral_v<T>;
    // sum/prod reach the kernel only in sum_dtype(): i64 or u64 for integers (the shape rule
    // converts narrower ones first), so the 8-32 bit integers instantiate no sum/prod loops.
    constexpr bool kSums = !kBool && (!kInt || sizeof(T) == 8);
    switch (kind) {
      case ReduceKind::sum:
      case ReduceKind::mean:
        if constexpr (kSums) {
          if (kind == ReduceKind::sum || !kInt) return run<SumOp<T>, T, T>(ctx, kind, x, l, out);
        }
        break;
      case ReduceKind::prod:
        if constexpr (kSums) return run<ProdOp<T>, T, T>(ctx, kind, x, l, out);
        break;
      case ReduceKind::max:
      case ReduceKind::min:
        if constexpr (!is_complex_v<T>) {
          if (kind == ReduceKind::max) return run<MaxOp<T>, T, T>(ctx, kind, x, l, out);
          return run<MinOp<T>, T, T>(ctx, kind, x, l, out);
        }
        break;
      case ReduceKind::sum_squares:
      case ReduceKind::norm:
        if constexpr (!kInt) return run<SumSquaresOp<T>, T, real_t<T>>(ctx, kind, x, l, out);
        break;
      case ReduceKind::any:
      case ReduceKind::all:
        if constexpr (kBool) {
          if (kind == ReduceKind::any) return run<AnyOp, bool, bool>(ctx, kind, x, l, out);
          return run<AllOp, bool, bool>(ctx, kind, x, l, out);
        }
        break;
    }
    // The shape rule converts inputs first (sum of i32 in i64, any of f64 as bool).
    throw Error(ErrorKind::DTypeMismatch,
                "reduce: kernel has no " + std::string(dtype_name(x.dtype())) +
                    " variant for this reduction (a shape rule let it through; this is a bug)");
  });
}

}  // namespace tenferro::detail
