// Structural primitives whose eager result is a view: reshape, permute, slice (and its adjoint,
// slice_embed), broadcast_to (Note [View primitives]), and copy.
#include <algorithm>
#include <cstring>
#include <limits>

#include "core/alloc.hpp"
#include "core/contiguous.hpp"
#include "core/strided.hpp"
#include "core/tensor_hooks.hpp"
#include "primitives/primitive.hpp"
#include "primitives/rules.hpp"
#include "primitives/structural_prims.hpp"
#include "primitives/view_primitive.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

void copy_kernel(std::span<const Tensor> in, std::span<Tensor> out) {
  copy_to_contiguous(in[0], out[0].data_ptr(), out[0].dtype());
}

// ---- reshape ----
Dims resolve_reshape(const Tensor& x, std::span<const std::int64_t> target) {
  Dims shape(target);
  std::int64_t known = 1, infer_at = -1;
  bool zero = false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer_at < 0) {
      infer_at = static_cast<std::int64_t>(i);
    } else if (shape[i] < 0) {
      throw Error(ErrorKind::InvalidArgument, "reshape: invalid target shape " +
                                                  dims_to_string(target) +
                                                  "; expected sizes >= 0 and at most one -1");
    } else if (shape[i] == 0) {
      zero = true;
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      // As for any shape (Note [Byte counts]): the non-zero sizes' product must fit in int64.
      throw Error(ErrorKind::InvalidArgument,
                  "reshape: target shape " + dims_to_string(target) +
                      " has more elements than fit in int64 (tensor of shape " +
                      dims_to_string(x.shape()) + ")");
    }
  }
  if (zero) known = 0;
  if (infer_at >= 0) {
    if (known == 0 || x.numel() % known != 0)
      throw Error(ErrorKind::ShapeMismatch, "reshape: cannot infer -1 in " +
                                                dims_to_string(target) + " for a tensor of shape " +
                                                dims_to_string(x.shape()) + " (" +
                                                std::to_string(x.numel()) + " elements)");
    shape[static_cast<std::size_t>(infer_at)] = x.numel() / known;
  } else if (known != x.numel()) {
    throw Error(ErrorKind::ShapeMismatch,
                "reshape: cannot reshape shape " + dims_to_string(x.shape()) + " (" +
                    std::to_string(x.numel()) + " elements) to " + dims_to_string(target) + " (" +
                    std::to_string(known) + " elements); expected equal element counts");
  }
  return shape;
}

// Strides that let `x`'s storage be read as `shape` without a copy, if any (NumPy's rule:
// every group of old dims merged into new dims must be contiguous among themselves).
bool view_strides(const Tensor& x, std::span<const std::int64_t> shape, Dims& strides) {
  if (x.numel() == 0 || x.is_contiguous()) {
    strides = contiguous_strides(shape);
    return true;
  }
  Dims old_shape, old_strides;
  for (std::size_t i = 0; i < x.shape().size(); ++i)
    if (x.shape()[i] != 1) {
      old_shape.push_back(x.shape()[i]);
      old_strides.push_back(x.strides()[i]);
    }
  strides.assign(shape.size(), 0);
  std::size_t oi = 0, ni = 0;
  while (ni < shape.size() && oi < old_shape.size()) {
    std::size_t oj = oi + 1, nj = ni + 1;
    std::int64_t np = shape[ni], op = old_shape[oi];
    while (np != op) {
      if (np < op)
        np *= shape[nj++];
      else
        op *= old_shape[oj++];
    }
    for (std::size_t k = oi; k + 1 < oj; ++k)
      if (old_strides[k] != old_strides[k + 1] * old_shape[k + 1]) return false;
    strides[nj - 1] = old_strides[oj - 1];
    for (std::size_t k = nj - 1; k > ni; --k) strides[k - 1] = strides[k] * shape[k];
    ni = nj;
    oi = oj;
  }
  for (; ni < shape.size(); ++ni) strides[ni] = 1;  // trailing size-1 dims
  return true;
}

// Not a ViewPrimitive: a reshape is a view only when the strides allow it (view_strides).
class ReshapePrim final : public PrimitiveWith<ReshapePrim> {
 public:
  bool accepts_integers() const override { return true; }  // moves elements only
  explicit ReshapePrim(Dims target) : target_(std::move(target)) {}
  std::string_view name() const override { return "reshape"; }
  std::string params() const override { return "shape=" + dims_to_string(target_); }
  auto key() const { return std::tie(target_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({in[0].dtype(), resolve_reshape(in[0], target_)});
  }
  bool try_view(const Tensor& x, Tensor& out) const override {
    Dims shape = resolve_reshape(x, target_), strides;
    if (!x.has_storage() || !view_strides(x, shape, strides)) return false;
    out = Tensor(x.storage(), std::move(shape), std::move(strides), x.offset(), x.dtype());
    return true;
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    copy_kernel(in, out);
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor> outputs, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    out_t[0] = reshape(t[0], outputs[0].shape());
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    in_ct[0] = reshape(ct[0], primals[0].shape());
  }

 private:
  Dims target_;
};

// ---- permute ----
Dims check_permutation(const Tensor& x, std::span<const std::int64_t> axes) {
  std::int64_t r = x.rank();
  Dims norm;
  SmallVector<bool, 8> seen(static_cast<std::size_t>(r), false);
  bool ok = static_cast<std::int64_t>(axes.size()) == r;
  for (std::size_t i = 0; ok && i < axes.size(); ++i) {
    std::int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
    ok = a >= 0 && a < r && !seen[static_cast<std::size_t>(a)];
    if (ok) seen[static_cast<std::size_t>(a)] = true;
    norm.push_back(a);
  }
  if (!ok)
    throw Error(ErrorKind::InvalidArgument,
                "permute: axes " + dims_to_string(axes) + " are not a permutation of the " +
                    std::to_string(r) + " dimensions of shape " + dims_to_string(x.shape()));
  return norm;
}

class PermutePrim final : public ViewPrimitive<PermutePrim> {
 public:
  explicit PermutePrim(Dims axes) : axes_(std::move(axes)) {}
  const Dims& axes() const noexcept { return axes_; }
  std::string_view name() const override { return "permute"; }
  std::string params() const override { return "axes=" + dims_to_string(axes_); }
  auto key() const { return std::tie(axes_); }
  Dims view_shape(const Tensor& x) const {
    Dims shape;
    for (auto a : check_permutation(x, axes_))
      shape.push_back(x.shape()[static_cast<std::size_t>(a)]);
    return shape;
  }
  Tensor view_of(const Tensor& x) const {
    Dims shape, strides;
    for (auto a : check_permutation(x, axes_)) {
      shape.push_back(x.shape()[static_cast<std::size_t>(a)]);
      strides.push_back(x.strides()[static_cast<std::size_t>(a)]);
    }
    return Tensor(x.storage(), std::move(shape), std::move(strides), x.offset(), x.dtype());
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    Dims axes = check_permutation(primals[0], axes_), inverse(axes.size(), 0);
    for (std::size_t i = 0; i < axes.size(); ++i)
      inverse[static_cast<std::size_t>(axes[i])] = static_cast<std::int64_t>(i);
    in_ct[0] = permute(ct[0], inverse);
  }

 private:
  Dims axes_;
};

// ---- slice and its adjoint ----
struct SliceParams {
  std::int64_t axis, start, stop, step;
  auto key() const { return std::tie(axis, start, stop, step); }
  std::string text() const {
    return "axis=" + std::to_string(axis) + " start=" + std::to_string(start) +
           " stop=" + std::to_string(stop) + " step=" + std::to_string(step);
  }
};
struct SliceGeometry {
  std::size_t axis;
  std::int64_t start, count, step;
};
// NumPy's rule: a negative start/stop counts from the end, then is clamped to [0, n] for a
// positive step and to [-1, n - 1] for a negative one (-1: before the first element).
SliceGeometry slice_geometry(std::span<const std::int64_t> shape, const SliceParams& p,
                             const char* op) {
  auto r = static_cast<std::int64_t>(shape.size());
  if (p.step == 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": step 0 is invalid; expected a non-zero step");
  std::int64_t axis = normalize_axis(p.axis, r, op);
  std::int64_t n = shape[static_cast<std::size_t>(axis)];
  const std::int64_t lo = p.step > 0 ? 0 : -1, hi = p.step > 0 ? n : n - 1;
  auto clamp = [&](std::int64_t v) { return std::clamp(v < 0 ? v + n : v, lo, hi); };
  std::int64_t start = clamp(p.start), stop = clamp(p.stop);
  // ceil(|stop - start| / |step|) without forming stop - start + step - 1, which overflows for a
  // huge step (a step beyond the extent selects exactly the start element); |INT64_MIN| is
  // taken as INT64_MAX, which selects the same elements.
  std::int64_t count;
  if (p.step > 0) {
    count = stop > start ? (stop - start - 1) / p.step + 1 : 0;
  } else {
    const std::int64_t mag = p.step == std::numeric_limits<std::int64_t>::min()
                                 ? std::numeric_limits<std::int64_t>::max()
                                 : -p.step;
    count = start > stop ? (start - stop - 1) / mag + 1 : 0;
  }
  return {static_cast<std::size_t>(axis), start, count, p.step};
}

class SlicePrim final : public ViewPrimitive<SlicePrim> {
 public:
  explicit SlicePrim(SliceParams p) : p_(p) {}
  std::int64_t step() const noexcept { return p_.step; }
  std::string_view name() const override { return "slice"; }
  std::string params() const override { return p_.text(); }
  auto key() const { return p_.key(); }
  Dims view_shape(const Tensor& x) const {
    SliceGeometry g = slice_geometry(x.shape(), p_, "slice");
    Dims shape = x.shape();
    shape[g.axis] = g.count;
    return shape;
  }
  Tensor view_of(const Tensor& x) const {
    SliceGeometry g = slice_geometry(x.shape(), p_, "slice");
    Dims shape = x.shape(), strides = x.strides();
    shape[g.axis] = g.count;
    // An empty result keeps the input's offset (its strides address nothing).
    const bool some = g.count > 0 && x.numel() > 0;
    std::int64_t offset = x.offset() + (some ? g.start * strides[g.axis] : 0);
    // With two or more elements step < size, so the product stays within the input's extent;
    // a dimension of size <= 1 keeps its stride (never used, and step * stride may overflow).
    if (g.count > 1) strides[g.axis] *= g.step;
    return Tensor(x.storage(), std::move(shape), std::move(strides), offset, x.dtype());
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override;

 private:
  SliceParams p_;
};

// Zeros of the original shape with the cotangent written into the sliced positions.
class SliceEmbedPrim final : public PrimitiveWith<SliceEmbedPrim> {
 public:
  bool accepts_integers() const override { return true; }  // moves elements only
  SliceEmbedPrim(SliceParams p, Dims full_shape) : p_(p), full_(std::move(full_shape)) {}
  std::string_view name() const override { return "slice_embed"; }
  std::string params() const override { return p_.text() + " shape=" + dims_to_string(full_); }
  auto key() const { return std::tuple_cat(p_.key(), std::tie(full_)); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    SliceGeometry g = slice_geometry(full_, p_, "slice_embed");
    Dims expect = full_;
    expect[g.axis] = g.count;
    if (!(in[0].shape() == expect))
      throw Error(ErrorKind::ShapeMismatch, "slice_embed: expected an input of shape " +
                                                dims_to_string(expect) + ", got " + describe(in));
    out.push_back({in[0].dtype(), full_});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    std::memset(out[0].data_ptr(), 0,
                static_cast<std::size_t>(out[0].numel()) * dtype_size(out[0].dtype()));
    const Tensor region = SlicePrim(p_).view_of(out[0]);
    visit_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      std::unique_ptr<T[]> hold;
      const T* src = contiguous_or_held<T>(in[0], hold, "slice_embed");
      T* dst = static_cast<T*>(region.data_ptr());
      for_each_offset(region.shape(), region.strides(), 0,
                      [&](std::int64_t off) { dst[off] = *src++; });
    });
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    out_t[0] = bind1(*this, {t[0]});
  }
  void vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    in_ct[0] = bind1(SlicePrim(p_), {ct[0]});
  }

 private:
  SliceParams p_;
  Dims full_;
};

void SlicePrim::vjp(std::span<const Tensor> primals, std::span<const Tensor>,
                    std::span<const Tensor> ct, std::span<const bool>,
                    std::span<Tensor> in_ct) const {
  in_ct[0] = bind1(SliceEmbedPrim(p_, primals[0].shape()), {ct[0]});
}

// ---- broadcast_to ----
void check_broadcast(const Tensor& x, std::span<const std::int64_t> shape) {
  check_shape(shape, "broadcast_to");  // a negative dimension is InvalidArgument, not a mismatch
  bool ok = shape.size() >= x.shape().size();
  std::size_t lead = ok ? shape.size() - x.shape().size() : 0;
  for (std::size_t i = 0; ok && i < x.shape().size(); ++i)
    ok = x.shape()[i] == shape[lead + i] || x.shape()[i] == 1;
  for (auto d : shape) ok = ok && d >= 0;
  if (!ok)
    throw Error(ErrorKind::ShapeMismatch,
                "broadcast_to: cannot broadcast shape " + dims_to_string(x.shape()) + " to " +
                    dims_to_string(shape) + "; expected each dim to match or be 1 (NumPy rules)");
}

class BroadcastToPrim final : public ViewPrimitive<BroadcastToPrim> {
 public:
  explicit BroadcastToPrim(Dims shape) : shape_(std::move(shape)) {}
  std::string_view name() const override { return "broadcast_to"; }
  std::string params() const override { return "shape=" + dims_to_string(shape_); }
  auto key() const { return std::tie(shape_); }
  Dims view_shape(const Tensor& x) const {
    check_broadcast(x, shape_);
    return shape_;
  }
  Tensor view_of(const Tensor& x) const {
    check_broadcast(x, shape_);
    std::size_t lead = shape_.size() - x.shape().size();
    Dims strides(shape_.size(), 0);
    for (std::size_t i = 0; i < x.shape().size(); ++i)
      strides[lead + i] = x.shape()[i] == 1 ? 0 : x.strides()[i];
    // Note [Unchecked broadcast view]: every reduction's reverse rule and every broadcasting
    // elementwise rule makes one of these, so the checks of Tensor's public constructor are
    // skipped where they cannot fail. check_broadcast has checked the shape (no negative
    // dimension, a representable element count); a non-empty result comes from a non-empty x
    // (a 0 in x must stay 0), and it addresses a subset of what x does (new and size-1
    // dimensions get stride 0, the others keep x's), so it lies inside x's storage and satisfies
    // Note [View invariant] (src/core/tensor.cpp) as x does. An empty result takes the checked
    // path, which gives it row-major strides.
    const std::int64_t n = dims_numel(shape_);
    if (n == 0) return Tensor(x.storage(), shape_, std::move(strides), x.offset(), x.dtype());
    Tensor r;
    r.set_layout_unchecked(x.storage(), make_layout(shape_, std::move(strides), n, x.dtype()),
                           x.offset());
    return r;
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    in_ct[0] = sum_to_shape(ct[0], primals[0].shape());
  }

 private:
  Dims shape_;
};

// ---- copy ----
class CopyPrim final : public PrimitiveWith<CopyPrim> {
 public:
  bool accepts_integers() const override { return true; }  // moves elements only
  std::string_view name() const override { return "copy"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    copy_kernel(in, out);
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    out_t[0] = copy(t[0]);
  }
  void vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    in_ct[0] = ct[0];
  }
};

}  // namespace

bool is_forward_slice(const Primitive& p) {
  const auto* s = dynamic_cast<const SlicePrim*>(&p);
  return s != nullptr && s->step() > 0;
}

bool is_identity_permute(const Primitive& p, std::size_t rank) {
  const auto* perm = dynamic_cast<const PermutePrim*>(&p);
  if (perm == nullptr || perm->axes().size() != rank) return false;
  const auto r = static_cast<std::int64_t>(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t a = perm->axes()[i];
    if ((a < 0 ? a + r : a) != static_cast<std::int64_t>(i)) return false;
  }
  return true;
}
}  // namespace detail

using detail::bind1;

Tensor reshape(const Tensor& x, Dims shape) {
  return bind1(detail::ReshapePrim(std::move(shape)), x);
}
Tensor permute(const Tensor& x, Dims axes) {
  return bind1(detail::PermutePrim(std::move(axes)), x);
}
Tensor transpose(const Tensor& x, std::int64_t a, std::int64_t b) {
  std::int64_t r = x.rank();
  a = detail::normalize_axis(a, r, "transpose");
  b = detail::normalize_axis(b, r, "transpose");
  Dims axes;
  for (std::int64_t i = 0; i < r; ++i) axes.push_back(i == a ? b : i == b ? a : i);
  return permute(x, std::move(axes));
}
Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop,
             std::int64_t step) {
  return bind1(detail::SlicePrim({axis, start, stop, step}), x);
}
Tensor broadcast_to(const Tensor& x, Dims shape) {
  return bind1(detail::BroadcastToPrim(std::move(shape)), x);
}
Tensor squeeze(const Tensor& x, std::int64_t axis) {
  std::int64_t a = detail::normalize_axis(axis, x.rank(), "squeeze");
  if (x.shape()[static_cast<std::size_t>(a)] != 1)
    throw Error(ErrorKind::InvalidArgument,
                "squeeze: dimension " + std::to_string(axis) + " of shape " +
                    dims_to_string(x.shape()) + " has size " +
                    std::to_string(x.shape()[static_cast<std::size_t>(a)]) + "; expected 1");
  Dims shape = x.shape();
  shape.erase(static_cast<std::size_t>(a));
  return reshape(x, std::move(shape));
}
Tensor unsqueeze(const Tensor& x, std::int64_t axis) {
  std::int64_t a = detail::normalize_axis(axis, x.rank() + 1, "unsqueeze");
  Dims shape = x.shape();
  shape.insert(static_cast<std::size_t>(a), 1);
  return reshape(x, std::move(shape));
}
Tensor contiguous(const Tensor& x) { return x.is_contiguous() ? x : copy(x); }
Tensor copy(const Tensor& x) { return bind1(detail::CopyPrim(), x); }

// Tensor's view methods (defined in core) call these through the table core owns (Note [Core
// hooks] in src/core/tensor_aux.hpp), installed here before main().
namespace {
constexpr detail::TensorMethodHooks kTensorMethods{
    [](const Tensor& x, Dims s) { return tenferro::reshape(x, std::move(s)); },
    [](const Tensor& x, Dims a) { return tenferro::permute(x, std::move(a)); },
    [](const Tensor& x, std::int64_t a, std::int64_t b) { return tenferro::transpose(x, a, b); },
    [](const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop,
       std::int64_t step) { return tenferro::slice(x, axis, start, stop, step); },
    [](const Tensor& x, Dims s) { return tenferro::broadcast_to(x, std::move(s)); },
    [](const Tensor& x, std::int64_t axis) { return tenferro::squeeze(x, axis); },
    [](const Tensor& x, std::int64_t axis) { return tenferro::unsqueeze(x, axis); },
    [](const Tensor& x) { return tenferro::contiguous(x); },
};
[[maybe_unused]] const bool kTensorMethodsInstalled =
    (detail::install_tensor_method_hooks(kTensorMethods), true);
}  // namespace

}  // namespace tenferro

// The link anchor: the library's interface links every program with
// --undefined=tenferro_detail_op_layer_anchor, which pulls this object (and the installer above)
// out of the static archive even when a program calls only Tensor's methods.
extern "C" void tenferro_detail_op_layer_anchor() {}
