// Indexing primitives: take_along_axis (gather) and scatter_add, each the other's adjoint; the
// public index_select, index_add and max/min_with_indices are compositions of them.
//
// Indices follow src/primitives/index_checks.hpp (any integer dtype, read through load_index;
// negative from the end, every index checked before use); the output is a fresh tensor, so nothing
// is left half written.
#include "tenferro/ops/indexing.hpp"

#include <string>

#include "core/strided.hpp"
#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/index_checks.hpp"
#include "primitives/primitive.hpp"
#include "primitives/rules.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

// Strides of `t` read as broadcast to `shape` (same rank): 0 where t has size 1.
Dims broadcast_strides(const Tensor& t, const Dims& shape) {
  Dims s(t.strides().begin(), t.strides().end());
  for (std::size_t d = 0; d < s.size(); ++d)
    if (t.shape()[d] == 1 && shape[d] != 1) s[d] = 0;
  return s;
}

// ---- take_along_axis: out[p] = x[p with p[axis] replaced by idx[p]] ----
class TakeAlongAxisPrim final : public PrimitiveWith<TakeAlongAxisPrim> {
 public:
  explicit TakeAlongAxisPrim(I axis) : axis_(axis) {}
  std::string_view name() const override { return "take_along_axis"; }
  std::string params() const override { return "axis=" + std::to_string(axis_); }
  auto key() const { return std::tie(axis_); }
  bool accepts_integers() const override { return true; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor &x = in[0], &idx = in[1];
    check_index_dtype("take_along_axis", in, idx);
    if (x.rank() != idx.rank())
      throw Error(ErrorKind::ShapeMismatch,
                  "take_along_axis: indices must have the input's rank, got " + describe(in));
    const I a = normalize_axis(axis_, x.rank(), "take_along_axis");
    Dims shape;
    for (I d = 0; d < x.rank(); ++d) {
      const I xs = x.shape()[static_cast<std::size_t>(d)],
              is = idx.shape()[static_cast<std::size_t>(d)];
      if (d == a) {
        shape.push_back(is);
      } else if (xs == is || xs == 1 || is == 1) {
        shape.push_back(xs == 1 ? is : xs);
      } else {
        throw Error(ErrorKind::ShapeMismatch,
                    "take_along_axis: input and indices " + describe(in) + " differ in dimension " +
                        std::to_string(d) +
                        "; expected equal sizes or 1 (broadcast) off the axis " +
                        std::to_string(axis_));
      }
    }
    out.push_back({x.dtype(), std::move(shape)});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor &x = in[0], &idx = in[1];
    const I a = normalize_axis(axis_, x.rank(), "take_along_axis");
    const Dims shape = out[0].shape();
    const I n = x.shape()[static_cast<std::size_t>(a)],
            sa = x.strides()[static_cast<std::size_t>(a)];
    Dims xs = broadcast_strides(x, shape);
    xs[static_cast<std::size_t>(a)] = 0;  // the axis is addressed through the index
    const Dims strides[2] = {xs, broadcast_strides(idx, shape)};
    visit_dtype(x.dtype(), [&](auto zx) {
      using T = decltype(zx);
      const T* px = static_cast<const T*>(x.data_ptr());
      T* po = static_cast<T*>(out[0].data_ptr());
      const void* pi = idx.data_ptr();
      const DType di = idx.dtype();
      for_each_position(shape, strides, [&](const Dims& pos, const I* off) {
        const I j = checked_index("take_along_axis", pi, di, off[1], n, pos, axis_, in);
        *po++ = px[off[0] + j * sa];
      });
    });
  }

  void jvp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined()) out_t[0] = take_along_axis(t[0], x[1], axis_);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined() || !needs[0]) return;
    // Scatter into x broadcast to the output's other dims, then sum the broadcast away.
    const I a = normalize_axis(axis_, x[0].rank(), "take_along_axis");
    Dims wide = y[0].shape();
    wide[static_cast<std::size_t>(a)] = x[0].shape()[static_cast<std::size_t>(a)];
    const Tensor idx = broadcast_to(x[1], y[0].shape());
    const Tensor acc = scatter_add(zeros(wide, ct[0].dtype()), axis_, idx, ct[0]);
    in_ct[0] = sum_to_shape(acc, x[0].shape());
  }

 private:
  I axis_;
};

// ---- scatter_add: out = x; out[p with p[axis] = idx[p]] += src[p] for every position p ----
class ScatterAddPrim final : public PrimitiveWith<ScatterAddPrim> {
 public:
  explicit ScatterAddPrim(I axis) : axis_(axis) {}
  std::string_view name() const override { return "scatter_add"; }
  std::string params() const override { return "axis=" + std::to_string(axis_); }
  auto key() const { return std::tie(axis_); }
  bool accepts_integers() const override { return true; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor &x = in[0], &idx = in[1], &src = in[2];
    check_index_dtype("scatter_add", in, idx);
    if (x.dtype() == DType::boolean || src.dtype() != x.dtype())
      throw Error(
          ErrorKind::DTypeMismatch,
          "scatter_add: expected a numeric input and a source of its dtype, got " + describe(in));
    check_scatter_shapes("scatter_add", axis_, in);
    out.push_back({x.dtype(), x.shape()});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor &x = in[0], &idx = in[1], &src = in[2];
    const I a = normalize_axis(axis_, x.rank(), "scatter_add");
    copy_to_contiguous(x, out[0].data_ptr(), x.dtype());
    const Dims os = contiguous_strides(x.shape());
    const I n = x.shape()[static_cast<std::size_t>(a)], sa = os[static_cast<std::size_t>(a)];
    Dims osk = os;
    osk[static_cast<std::size_t>(a)] = 0;
    const Dims strides[3] = {osk, Dims(idx.strides()), Dims(src.strides())};
    visit_dtype(x.dtype(), [&](auto zx) {
      using T = decltype(zx);
      if constexpr (!std::is_same_v<T, bool>) {
        T* po = static_cast<T*>(out[0].data_ptr());
        const T* ps = static_cast<const T*>(src.data_ptr());
        const void* pi = idx.data_ptr();
        const DType di = idx.dtype();
        // In row-major order of the positions: repeated indices add in that fixed order.
        for_each_position(idx.shape(), strides, [&](const Dims& pos, const I* off) {
          const I j = checked_index("scatter_add", pi, di, off[1], n, pos, axis_, in);
          T& dst = po[off[0] + j * sa];
          dst = kernels::add_of(dst, ps[off[2]]);
        });
      }
    });
  }

  void jvp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (!t[0].defined() && !t[2].defined()) return;
    const Tensor base = t[0].defined() ? t[0] : zeros(x[0].shape(), x[0].dtype());
    const Tensor src = t[2].defined() ? t[2] : zeros(x[2].shape(), x[2].dtype());
    out_t[0] = scatter_add(base, axis_, x[1], src);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined()) return;
    if (needs[0]) in_ct[0] = ct[0];
    if (needs[2]) in_ct[2] = take_along_axis(ct[0], x[1], axis_);
  }

 private:
  I axis_;
};

// A rank-1 index list shaped to broadcast along `axis` of a rank-r tensor: [1, .., k, .., 1].
Tensor along_axis(const char* op, const Tensor& x, std::int64_t axis, const Tensor& indices) {
  if (!x.defined() || !indices.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": an input tensor is undefined");
  if (indices.rank() != 1)
    throw Error(ErrorKind::ShapeMismatch, std::string(op) + ": indices must have rank 1, got " +
                                              dims_to_string(indices.shape()));
  const I a = normalize_axis(axis, x.rank(), op);
  Dims shape(static_cast<std::size_t>(x.rank()), 1);
  shape[static_cast<std::size_t>(a)] = indices.shape()[0];
  return reshape(indices, shape);
}

ValuesIndices extremum_with_indices(bool is_max, const Tensor& x, std::int64_t axis,
                                    bool keepdims) {
  Tensor idx = is_max ? argmax(x, axis, true) : argmin(x, axis, true);
  Tensor values = take_along_axis(x, idx, axis);
  if (!keepdims) {
    values = squeeze(values, axis);
    idx = squeeze(idx, axis);
  }
  return {values, idx};
}

}  // namespace
}  // namespace detail

Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  const Tensor in[2] = {x, indices};
  return detail::bind1(detail::TakeAlongAxisPrim(axis), in);
}
Tensor gather(const Tensor& x, std::int64_t axis, const Tensor& indices) {
  return take_along_axis(x, indices, axis);
}
Tensor index_select(const Tensor& x, std::int64_t axis, const Tensor& indices) {
  return take_along_axis(x, detail::along_axis("index_select", x, axis, indices), axis);
}
Tensor scatter_add(const Tensor& x, std::int64_t axis, const Tensor& indices, const Tensor& src) {
  const Tensor in[3] = {x, indices, src};
  return detail::bind1(detail::ScatterAddPrim(axis), in);
}
Tensor index_add(const Tensor& x, std::int64_t axis, const Tensor& indices, const Tensor& src) {
  const Tensor idx = detail::along_axis("index_add", x, axis, indices);
  if (!src.defined())
    throw Error(ErrorKind::InvalidArgument, "index_add: the source tensor is undefined");
  if (src.rank() != x.rank())
    throw Error(ErrorKind::ShapeMismatch, "index_add: source " + dims_to_string(src.shape()) +
                                              " must have the input's rank (input " +
                                              dims_to_string(x.shape()) + ")");
  return scatter_add(x, axis, broadcast_to(idx, src.shape()), src);
}
ValuesIndices max_with_indices(const Tensor& x, std::int64_t axis, bool keepdims) {
  return detail::extremum_with_indices(true, x, axis, keepdims);
}
ValuesIndices min_with_indices(const Tensor& x, std::int64_t axis, bool keepdims) {
  return detail::extremum_with_indices(false, x, axis, keepdims);
}

}  // namespace tenferro
