// Reductions: sum, prod, mean, max, min, sum_squares, norm; and sum_to_shape.
// Contracts and the AD conventions: tenferro/ops/reduce.hpp.
#include "primitives/reduce.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "core/strided.hpp"
#include "cpu/kernels/simd.hpp"
#include "primitives/reduce_rules.hpp"
#include "primitives/rules.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {

std::string_view ReducePrim::name() const {
  switch (kind_) {
    case ReduceKind::sum:
      return "sum";
    case ReduceKind::prod:
      return "prod";
    case ReduceKind::mean:
      return "mean";
    case ReduceKind::max:
      return "max";
    case ReduceKind::min:
      return "min";
    case ReduceKind::sum_squares:
      return "sum_squares";
    case ReduceKind::norm:
      return "norm";
    case ReduceKind::any:
      return "any";
    case ReduceKind::all:
      break;
  }
  return "all";
}

std::string ReducePrim::params() const {
  return "axes=" + (axes_.empty() ? std::string("all") : dims_to_string(axes_)) +
         " keepdims=" + (keepdims_ ? "true" : "false");
}

ResolvedAxes ReducePrim::resolve(const Tensor& x) const {
  const std::int64_t r = x.rank();
  auto op = [this] { return std::string(name()); };  // built only when throwing
  ResolvedAxes a;
  a.mask.assign(static_cast<std::size_t>(r), axes_.empty());
  // Each axis in [-rank, rank) and none named twice: the shared check (and its messages, naming
  // the op, the axis and the rank or shape) of every op that takes axes.
  (void)check_axes(x, axes_, name());
  for (std::int64_t axis : axes_)
    a.mask[static_cast<std::size_t>(axis < 0 ? axis + r : axis)] = true;
  if ((kind_ == ReduceKind::max || kind_ == ReduceKind::min) && is_complex(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                op() + ": expected a real dtype (bool, an integer, f32, f64), got input " +
                    describe(std::span<const Tensor>(&x, 1)) + "; complex numbers are not ordered");
  if ((kind_ == ReduceKind::mean || kind_ == ReduceKind::sum_squares ||
       kind_ == ReduceKind::norm) &&
      is_integral(x.dtype()))  // the public ops convert to default_float first
    throw Error(ErrorKind::DTypeMismatch, op() + ": expected a floating dtype, got input " +
                                              describe(std::span<const Tensor>(&x, 1)) +
                                              "; cast() it first");
  for (std::size_t d = 0; d < a.mask.size(); ++d) {
    const std::int64_t n = x.shape()[d];
    if (a.mask[d]) {
      a.reduced.push_back(static_cast<std::int64_t>(d));
      a.count *= n;
      a.keep_shape.push_back(1);
      if (keepdims_) a.out_shape.push_back(1);
    } else {
      a.keep_shape.push_back(n);
      a.out_shape.push_back(n);
    }
  }
  if (a.count == 0 && (kind_ == ReduceKind::max || kind_ == ReduceKind::min))
    throw Error(ErrorKind::InvalidArgument,
                op() + ": cannot reduce over zero elements (input " +
                    describe(std::span<const Tensor>(&x, 1)) + ", axes " +
                    (axes_.empty() ? std::string("all") : dims_to_string(axes_)) +
                    "); expected every reduced axis to have size > 0 (" + op() +
                    " has no identity element)");
  return a;
}

DType ReducePrim::kernel_dtype(DType d) const {
  if (kind_ == ReduceKind::any || kind_ == ReduceKind::all) return DType::boolean;
  if (kind_ == ReduceKind::sum || kind_ == ReduceKind::prod) return sum_dtype(d);
  return d;
}

void ReducePrim::infer(std::span<const Tensor> in, SpecList& out) const {
  ResolvedAxes a = resolve(in[0]);
  const bool real_out = kind_ == ReduceKind::sum_squares || kind_ == ReduceKind::norm;
  out.push_back(
      {real_out ? real_dtype(in[0].dtype()) : kernel_dtype(in[0].dtype()), std::move(a.out_shape)});
}

void ReducePrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                         std::span<Tensor> out) const {
  ResolvedAxes a = resolve(in[0]);
  const DType kd = kernel_dtype(in[0].dtype());
  if (kd == in[0].dtype()) return reduce_kernel(ctx, kind_, in[0], a.mask, out[0]);
  // sum/prod of bool and the narrower integers accumulate in i64 (u64 for unsigned ones);
  // any/all read non-zero as true.
  Tensor converted = Tensor::empty(in[0].shape(), kd);
  copy_to_contiguous(in[0], converted.data_ptr(), kd);
  reduce_kernel(ctx, kind_, converted, a.mask, out[0]);
}

namespace {
// The reduction's layout for one input layout, kept by the eager cache (Note [Prepared
// elementwise]): a cached call skips resolving the axes and collapsing the dimensions.
//
// Note [One-block sums]: the full sum of a contiguous f32/f64 run of at most one block (a loss,
// the AD step's sum) is one call of the block loop: the call the general kernel ends in for that
// layout (reduce_kernel -> run_inner -> reduce_run -> block_run -> sum_block), so the same bits,
// without the dtype visit and the walk through the layout on every call.
class PreparedReduce final : public PreparedKernel {
 public:
  PreparedReduce(ReduceKind kind, ReduceLayout layout, DType dtype)
      : kind_(kind), layout_(std::move(layout)) {
    const bool one_run = layout_.kshape.empty() && layout_.rshape.size() == 1 &&
                         layout_.rstrides[0] == 1 && layout_.rshape[0] > 0 &&
                         layout_.rshape[0] <= kReduceBlock;
    if (kind_ == ReduceKind::sum && one_run && (dtype == DType::f32 || dtype == DType::f64))
      one_block_sum_ = layout_.rshape[0];
  }
  void run(ExecContext& ctx, InputRefs in, std::span<Tensor> out) override {
    if (one_block_sum_ != 0) {
      const Tensor& x = *in[0];
      if (x.dtype() == DType::f64)
        *static_cast<double*>(out[0].data_ptr()) =
            kernels::simd::sum_block(static_cast<const double*>(x.data_ptr()), one_block_sum_);
      else
        *static_cast<float*>(out[0].data_ptr()) =
            kernels::simd::sum_block(static_cast<const float*>(x.data_ptr()), one_block_sum_);
      return;
    }
    reduce_kernel(ctx, kind_, *in[0], layout_, out[0]);
  }

 private:
  ReduceKind kind_;
  ReduceLayout layout_;
  std::int64_t one_block_sum_ = 0;  // n: Note [One-block sums]
};
}  // namespace

std::unique_ptr<PreparedKernel> ReducePrim::prepare(std::span<const Tensor> in,
                                                    std::span<const TensorSpec>) const {
  if (kernel_dtype(in[0].dtype()) != in[0].dtype()) return nullptr;  // converted: execute()
  return std::make_unique<PreparedReduce>(kind_, reduce_layout(in[0], resolve(in[0]).mask),
                                          in[0].dtype());
}

namespace {

// The cotangent (or any result-shaped tensor) spread back over x's shape.
Tensor broadcast_back(const Tensor& y, const ResolvedAxes& a, const Tensor& x) {
  // A rank-0 result (a full reduction) or a keepdims one broadcasts as it is: one view, not two.
  if (y.rank() == 0 || y.shape() == a.keep_shape) return broadcast_to(y, x.shape());
  return broadcast_to(reshape(y, a.keep_shape), x.shape());
}

Tensor real_part(const Tensor& z) {
  return is_complex(z.dtype()) ? cast(z, real_dtype(z.dtype())) : z;
}

// a / b, and 0 wherever b == 0 (norm's derivative at the origin, as PyTorch's masked divide).
// The divisor is made safe before dividing so that the derivative of this expression is finite
// too (a plain where(b == 0, 0, a / b) would send 0 * inf = nan through the divide's rule).
Tensor div_or_zero(const Tensor& a, const Tensor& b) {
  const Tensor at_zero = eq(b, Scalar(0));
  const Tensor safe_b = where(at_zero, scalar_tensor(1.0, b.dtype()), b);
  return where(at_zero, scalar_tensor(0.0, promote(a.dtype(), b.dtype())), div(a, safe_b));
}

}  // namespace

void ReducePrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                     std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined()) return;
  const Tensor& x = primals[0];
  const ResolvedAxes a = resolve(x);
  const Dims& axes = a.reduced;
  // Reducing over an empty axis list would mean "all axes": guard rank-0 / nothing-reduced.
  auto sum_red = [&](const Tensor& v) {
    return axes.empty() ? reshape(v, a.out_shape) : sum(v, axes, keepdims_);
  };
  switch (kind_) {
    case ReduceKind::sum:
    case ReduceKind::mean:  // linear: the op itself
      out_t[0] = bind1(*this, {t[0]});
      return;
    case ReduceKind::prod:
      out_t[0] = sum_red(mul(t[0], reduce_prod_others(x, axes)));
      return;
    case ReduceKind::max:
    case ReduceKind::min: {
      Tensor w = reduce_tie_weights(x, reshape(outputs[0], a.keep_shape), axes);
      out_t[0] = sum_red(mul(t[0], w));
      return;
    }
    case ReduceKind::sum_squares:
      out_t[0] = mul(real_part(sum_red(mul(conj(x), t[0]))), Scalar(2.0));
      return;
    case ReduceKind::norm:
      out_t[0] = div_or_zero(real_part(sum_red(mul(conj(x), t[0]))), outputs[0]);
      return;
    case ReduceKind::any:
    case ReduceKind::all:  // bool results: not differentiable
      return;
  }
}

void ReducePrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                     std::span<const Tensor> ct, std::span<const bool>,
                     std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  const Tensor& x = primals[0];
  // A rank-0 cotangent (a full reduction, or a rank-0 x) broadcasts as it is (broadcast_back's
  // first case) and the reduced count is x's element count: sum and mean need nothing of
  // resolve(), whose mask and shapes the other kinds use.
  if (ct[0].rank() == 0 && (kind_ == ReduceKind::sum || kind_ == ReduceKind::mean)) {
    Tensor g;
    if (!ct[0].aux() && ct[0].dtype() == x.dtype()) {
      // Note [Zero-strided twin]: what broadcast_to makes here, with x's twin record; a plain
      // cotangent (no level or trace to see the view) needs no bind.
      g.set_layout_unchecked(ct[0].storage(), zero_strided_layout(*x.layout()), ct[0].offset());
    } else {
      g = broadcast_to(ct[0], x.shape());
    }
    in_ct[0] = kind_ == ReduceKind::sum ? std::move(g)
                                        : mul(g, Scalar(1.0 / static_cast<double>(x.numel())));
    return;
  }
  const ResolvedAxes a = resolve(x);
  const Tensor g = broadcast_back(ct[0], a, x);
  switch (kind_) {
    case ReduceKind::sum:
      in_ct[0] = g;
      return;
    case ReduceKind::mean:
      in_ct[0] = mul(g, Scalar(1.0 / static_cast<double>(a.count)));
      return;
    case ReduceKind::prod:  // conjugate-Wirtinger: ct * conj(d prod / d x)
      in_ct[0] = mul(g, conj(reduce_prod_others(x, a.reduced)));
      return;
    case ReduceKind::max:
    case ReduceKind::min:
      in_ct[0] = mul(g, reduce_tie_weights(x, reshape(outputs[0], a.keep_shape), a.reduced));
      return;
    case ReduceKind::sum_squares:  // real-valued f(z) = |z|^2: grad 2 z (PyTorch convention)
      in_ct[0] = mul(mul(x, g), Scalar(2.0));
      return;
    case ReduceKind::norm:
      in_ct[0] = mul(x, broadcast_back(div_or_zero(ct[0], outputs[0]), a, x));
      return;
    case ReduceKind::any:
    case ReduceKind::all:
      return;
  }
}

Tensor sum_to_shape(const Tensor& x, std::span<const std::int64_t> shape) {
  if (std::ranges::equal(x.shape(), shape)) return x;
  const std::size_t r = x.shape().size(), k = shape.size();
  bool ok = k <= r;
  const std::size_t lead = ok ? r - k : 0;
  Dims axes;
  for (std::size_t i = 0; i < lead; ++i) axes.push_back(static_cast<std::int64_t>(i));
  for (std::size_t i = 0; ok && i < k; ++i) {
    const std::int64_t have = x.shape()[lead + i];
    if (shape[i] == 1 && have != 1)
      axes.push_back(static_cast<std::int64_t>(lead + i));
    else
      ok = shape[i] == have;
  }
  if (!ok)
    throw Error(ErrorKind::ShapeMismatch,
                "sum_to_shape: cannot sum shape " + dims_to_string(x.shape()) + " down to " +
                    dims_to_string(shape) + "; expected a shape that broadcasts to it");
  Tensor s = axes.empty() ? x : sum(x, std::move(axes), true);
  return reshape(s, Dims(shape));
}

}  // namespace detail

namespace {
// Note [Shared full reductions]: sum(x), mean(x), ... over every axis (the usual loss) bind one
// immutable static primitive per kind, as bmm does (Note [Shared product primitives] in
// contract_ops.cpp): no primitive to build per call, the eager cache compares it by address and
// the tape keeps it without a copy.
const detail::ReducePrim& full_reduce_prim(detail::ReduceKind kind) {
  static const detail::ReducePrim* const prims = [] {
    static const detail::ReducePrim p[] = {
        {detail::ReduceKind::sum, {}, false},  {detail::ReduceKind::prod, {}, false},
        {detail::ReduceKind::mean, {}, false}, {detail::ReduceKind::max, {}, false},
        {detail::ReduceKind::min, {}, false},  {detail::ReduceKind::sum_squares, {}, false},
        {detail::ReduceKind::norm, {}, false}, {detail::ReduceKind::any, {}, false},
        {detail::ReduceKind::all, {}, false}};
    for (std::size_t k = 0; k < std::size(p); ++k) {
      if (p[k].kind() != static_cast<detail::ReduceKind>(k)) std::abort();  // enum order
      p[k].mark_static();
    }
    return p;
  }();
  return prims[static_cast<std::size_t>(kind)];
}

Tensor reduce(detail::ReduceKind kind, const Tensor& x, Dims axes, bool keepdims) {
  if (axes.empty() && !keepdims) return detail::bind1(full_reduce_prim(kind), x);
  return detail::bind1(detail::ReducePrim(kind, std::move(axes), keepdims), x);
}
}  // namespace

using detail::ReduceKind;
Tensor sum(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::sum, x, std::move(axes), keepdims);
}
Tensor prod(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::prod, x, std::move(axes), keepdims);
}
namespace {
// mean, sum_squares and norm of bool and integer tensors compute in default_float.
Tensor as_float(const Tensor& x) {
  return x.defined() && is_integral(x.dtype()) ? cast(x, default_float) : x;
}
}  // namespace

Tensor mean(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::mean, as_float(x), std::move(axes), keepdims);
}
Tensor max(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::max, x, std::move(axes), keepdims);
}
Tensor min(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::min, x, std::move(axes), keepdims);
}
Tensor sum_squares(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::sum_squares, as_float(x), std::move(axes), keepdims);
}
Tensor norm(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::norm, as_float(x), std::move(axes), keepdims);
}
Tensor any(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::any, x, std::move(axes), keepdims);
}
Tensor all(const Tensor& x, Dims axes, bool keepdims) {
  return reduce(ReduceKind::all, x, std::move(axes), keepdims);
}
Tensor count_nonzero(const Tensor& x, Dims axes, bool keepdims) {
  if (x.defined()) detail::check_axes(x, axes, "count_nonzero");  // not under sum's name
  return reduce(ReduceKind::sum, ne(x, 0.0), std::move(axes), keepdims);
}

}  // namespace tenferro
