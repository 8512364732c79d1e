// concatenate (a primitive) and stack (concatenate of unsqueezed inputs).
#include <cstring>
#include <limits>
#include <memory>

#include "core/contiguous.hpp"
#include "core/strided.hpp"
#include "primitives/primitive.hpp"
#include "primitives/structural_prims.hpp"
#include "tenferro/ops.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

void require_some(std::span<const Tensor> in, const char* op) {
  if (in.empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": expected at least one tensor, got an empty list");
}

// Inputs agree in dtype, rank (>= 1) and every size but `axis`; returns the normalised axis.
std::size_t check_concat(std::span<const Tensor> in, I axis) {
  require_some(in, "concatenate");
  const I r = in[0].rank();
  if (r == 0 || axis < -r || axis >= r)
    throw Error(ErrorKind::InvalidArgument, "concatenate: axis " + std::to_string(axis) +
                                                " is out of range for inputs " + describe(in) +
                                                "; expected rank >= 1 and -rank <= axis < rank");
  const auto a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  for (const Tensor& t : in) {
    if (t.dtype() != in[0].dtype())  // the public op casts to the common dtype first
      throw Error(ErrorKind::DTypeMismatch, "concatenate: inputs " + describe(in) +
                                                " have different dtypes; expected one dtype");
    bool same = t.rank() == r;
    for (std::size_t d = 0; same && d < t.shape().size(); ++d)
      same = d == a || t.shape()[d] == in[0].shape()[d];
    if (!same)
      throw Error(ErrorKind::ShapeMismatch, "concatenate: inputs " + describe(in) +
                                                " differ in rank or in a size other "
                                                "than axis " +
                                                std::to_string(axis) +
                                                "; expected equal shapes except along it");
  }
  return a;
}

class ConcatPrim final : public PrimitiveWith<ConcatPrim> {
 public:
  bool accepts_integers() const override { return true; }  // moves elements only
  explicit ConcatPrim(I axis) : axis_(axis) {}
  std::string_view name() const override { return "concatenate"; }
  std::string params() const override { return "axis=" + std::to_string(axis_); }
  auto key() const { return std::tie(axis_); }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const std::size_t a = check_concat(in, axis_);
    Dims shape = in[0].shape();
    shape[a] = 0;
    for (const Tensor& t : in)
      if (__builtin_add_overflow(shape[a], t.shape()[a], &shape[a]))
        throw Error(ErrorKind::InvalidArgument, "concatenate: inputs " + describe(in) +
                                                    " add up to more than INT64_MAX along "
                                                    "axis " +
                                                    std::to_string(axis_) +
                                                    "; expected a representable size");
    out.push_back({in[0].dtype(), std::move(shape)});
  }

  // Each input fills, for every outer index, one contiguous block of the output row.
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const std::size_t a = check_concat(in, axis_);
    // An empty output has nothing to copy, and its axis may be as long as INT64_MAX allows (a
    // zero elsewhere keeps its byte count at 0): the row sizes below would overflow.
    if (out[0].numel() == 0) return;
    const Dims& os = out[0].shape();
    const std::size_t item = dtype_size(out[0].dtype());
    const I outer = dims_numel(std::span<const I>(os.data(), a));
    const I inner = dims_numel(std::span<const I>(os.data() + a + 1, os.size() - a - 1));
    const I row = os[a] * inner * static_cast<I>(item);
    char* dst = static_cast<char*>(out[0].data_ptr());
    I at = 0;  // byte offset of this input's block within an output row
    for (const Tensor& t : in) {
      const I block = t.shape()[a] * inner * static_cast<I>(item);
      if (t.numel() > 0) {
        std::unique_ptr<std::byte[]> hold;
        const std::byte* src = contiguous_or_held(t, hold, "concatenate");
        for (I o = 0; o < outer; ++o)
          std::memcpy(dst + o * row + at, src + o * block, static_cast<std::size_t>(block));
      }
      at += block;
    }
  }

  void jvp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    linear_jvp(*this, primals, t, out_t);
  }

  void vjp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined()) return;
    const std::size_t a = check_concat(primals, axis_);
    I at = 0;
    for (std::size_t i = 0; i < primals.size(); ++i) {
      const I n = primals[i].shape()[a];
      if (needs[i]) in_ct[i] = slice(ct[0], static_cast<I>(a), at, at + n);
      at += n;
    }
  }

 private:
  I axis_;
};

}  // namespace

void linear_jvp(const Primitive& p, std::span<const Tensor> primals, std::span<const Tensor> t,
                std::span<Tensor> out_t) {
  bool any = false;
  for (const Tensor& v : t) any |= v.defined();
  if (!any) return;
  TensorList parts;
  for (std::size_t i = 0; i < t.size(); ++i)
    parts.push_back(t[i].defined() ? t[i] : zeros(primals[i].shape(), primals[i].dtype()));
  out_t[0] = bind1(p, std::span<const Tensor>(parts.data(), parts.size()));
}

std::shared_ptr<const Primitive> concatenate_primitive(std::int64_t axis) {
  return ConcatPrim(axis).share();
}

}  // namespace detail

namespace detail {
namespace {
// The inputs cast to their common dtype (promote over all), or null when they already share one.
// Undefined inputs are left for bind() to report.
bool cast_to_common(std::span<const Tensor> in, TensorList& cast_in) {
  DType d = in[0].defined() ? in[0].dtype() : DType::f64;
  bool mixed = false;
  for (const Tensor& t : in) {
    if (!t.defined()) return false;
    mixed |= t.dtype() != in[0].dtype();
    d = promote(d, t.dtype());
  }
  if (!mixed) return false;
  for (const Tensor& t : in) cast_in.push_back(cast(t, d));
  return true;
}
}  // namespace
}  // namespace detail

Tensor concatenate(std::span<const Tensor> tensors, std::int64_t axis) {
  detail::require_some(tensors, "concatenate");
  detail::TensorList common;
  if (detail::cast_to_common(tensors, common))
    return detail::bind1(detail::ConcatPrim(axis),
                         std::span<const Tensor>(common.data(), common.size()));
  return detail::bind1(detail::ConcatPrim(axis), tensors);
}

Tensor stack(std::span<const Tensor> tensors, std::int64_t axis) {
  detail::require_some(tensors, "stack");
  for (const Tensor& t : tensors) {
    if (!t.defined()) break;  // bind() reports undefined inputs
    if (!(t.shape() == tensors[0].shape()))
      throw Error(ErrorKind::ShapeMismatch, "stack: inputs " + detail::describe(tensors) +
                                                " have different shapes; expected equal shapes");
  }
  const std::int64_t a = detail::normalize_axis(axis, tensors[0].rank() + 1, "stack");
  detail::TensorList parts;
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, a));
  return concatenate(std::span<const Tensor>(parts.data(), parts.size()), a);
}

}  // namespace tenferro

namespace tenferro {

Tensor flip(const Tensor& x, Dims axes) {
  if (!x.defined()) throw Error(ErrorKind::InvalidArgument, "flip: the input tensor is undefined");
  const std::int64_t r = x.rank();
  SmallVector<bool, 8> seen(static_cast<std::size_t>(r), false);
  if (axes.empty())
    for (std::int64_t a = 0; a < r; ++a) axes.push_back(a);
  Tensor y = x;
  for (std::int64_t axis : axes) {
    const std::int64_t a = detail::normalize_axis(axis, r, "flip");
    if (seen[static_cast<std::size_t>(a)])
      throw Error(ErrorKind::InvalidArgument, "flip: axis " + std::to_string(axis) +
                                                  " appears more than once in " +
                                                  dims_to_string(axes));
    seen[static_cast<std::size_t>(a)] = true;
    y = slice(y, a, -1, std::numeric_limits<std::int64_t>::min(), -1);
  }
  return y;
}

Tensor roll(const Tensor& x, std::int64_t shift, std::int64_t axis) {
  if (!x.defined()) throw Error(ErrorKind::InvalidArgument, "roll: the input tensor is undefined");
  const std::int64_t a = detail::normalize_axis(axis, x.rank(), "roll");
  const std::int64_t n = x.shape()[static_cast<std::size_t>(a)];
  const std::int64_t s = n == 0 ? 0 : ((shift % n) + n) % n;  // % of INT64_MIN stays in range
  if (s == 0) return copy(x);
  return concatenate({slice(x, a, n - s, n), slice(x, a, 0, n - s)}, a);
}

}  // namespace tenferro
