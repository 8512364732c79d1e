// Masks and one-hot encodings: masked_fill (a where()), one_hot (a primitive: it checks its
// indices), and the data-dependent nonzero / masked_select, which run eagerly only.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/contiguous.hpp"
#include "core/strided.hpp"
#include "primitives/index_checks.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/indexing.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

// out[..., c] = (indices[...] == c) in `dtype`; every index must lie in [0, classes).
class OneHotPrim final : public PrimitiveWith<OneHotPrim> {
 public:
  OneHotPrim(I classes, DType dtype) : classes_(classes), dtype_(dtype) {}
  std::string_view name() const override { return "one_hot"; }
  std::string params() const override {
    return "classes=" + std::to_string(classes_) + " dtype=" + std::string(dtype_name(dtype_));
  }
  auto key() const { return std::tie(classes_, dtype_); }
  bool accepts_integers() const override { return true; }
  bool differentiable() const override { return false; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    check_index_dtype("one_hot", in, in[0]);
    if (classes_ < 0)
      throw Error(ErrorKind::InvalidArgument, "one_hot: num_classes " + std::to_string(classes_) +
                                                  " is negative; expected >= 0");
    Dims shape = in[0].shape();
    shape.push_back(classes_);
    out.push_back({dtype_, std::move(shape)});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    std::memset(out[0].data_ptr(), 0,
                static_cast<std::size_t>(out[0].numel()) * dtype_size(dtype_));
    const Tensor& idx = in[0];
    const Dims strides[1] = {Dims(idx.strides())};
    const void* p = idx.data_ptr();
    visit_dtype(dtype_, [&](auto z) {
      using T = decltype(z);
      T* o = static_cast<T*>(out[0].data_ptr());
      I k = 0;  // the flat (row-major) position
      for_each_position(idx.shape(), strides, [&](const Dims&, const I* off) {
        I j = -1;  // a u64 value above INT64_MAX stays -1: out of range, named by index_text
        (void)load_index(p, idx.dtype(), off[0], j);
        if (j < 0 || j >= classes_)
          throw Error(ErrorKind::InvalidArgument,
                      "one_hot: index " + index_text(p, idx.dtype(), off[0]) +
                          " at flat position " + std::to_string(k) + " of " + describe(in) +
                          " is outside [0, " + std::to_string(classes_) + ")");
        o[k * classes_ + j] = T(1);
        ++k;
      });
    });
  }

 private:
  I classes_;
  DType dtype_;
};

void require_bool_mask(const char* op, const Tensor& x, const Tensor& mask) {
  if (!x.defined() || !mask.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": an input tensor is undefined");
  if (mask.dtype() != DType::boolean)
    throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": the mask must be bool, got " +
                                              std::string(dtype_name(mask.dtype())) +
                                              " (compare first, e.g. gt(x, 0.0))");
}

void require_concrete(const char* op, const Tensor& t) {
  if (!t.has_storage())
    throw Error(ErrorKind::Unsupported,
                std::string(op) +
                    ": the result's shape depends on the values, so it cannot be traced; use "
                    "where()/masked_fill() (fixed shapes) inside trace()");
}

}  // namespace
}  // namespace detail

Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value) {
  detail::require_bool_mask("masked_fill", x, mask);
  if (!is_complex(x.dtype()) && value.imag() != 0)
    throw Error(ErrorKind::DTypeMismatch, "masked_fill: the value has an imaginary part but x is " +
                                              std::string(dtype_name(x.dtype())));
  // The mask broadcasts to x's shape; it may not enlarge it.
  const Tensor m = broadcast_to(mask, x.shape());
  return where(m, scalar_tensor(value, x.dtype()), x);
}

Tensor one_hot(const Tensor& indices, std::int64_t num_classes, DType dtype) {
  return detail::bind1(detail::OneHotPrim(num_classes, dtype),
                       std::span<const Tensor>(&indices, 1));
}

Tensor nonzero(const Tensor& x) {
  using I = std::int64_t;
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, "nonzero: the input tensor is undefined");
  detail::require_concrete("nonzero", x);
  const Tensor b = cast(x, DType::boolean).contiguous();
  const bool* p = static_cast<const bool*>(b.data_ptr());
  const I r = x.rank(), n = x.numel();
  std::vector<std::int64_t> coords;
  Dims pos(static_cast<std::size_t>(r), 0);
  for (I k = 0; k < n; ++k) {
    if (p[k]) coords.insert(coords.end(), pos.begin(), pos.end());
    for (I d = r - 1; d >= 0; --d) {  // row-major odometer
      if (++pos[static_cast<std::size_t>(d)] < x.shape()[static_cast<std::size_t>(d)]) break;
      pos[static_cast<std::size_t>(d)] = 0;
    }
  }
  const I count = r == 0 ? (n == 1 && p[0] ? 1 : 0) : static_cast<I>(coords.size()) / r;
  return from_vector<std::int64_t>(coords, {count, r});
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  using I = std::int64_t;
  detail::require_bool_mask("masked_select", x, mask);
  detail::require_concrete("masked_select", mask);
  // Both broadcast together (PyTorch); the selected flat positions, then a differentiable gather.
  const Tensor pair[2] = {x, mask};
  Dims shape = x.shape();
  {
    const std::size_t r = std::max(x.shape().size(), mask.shape().size());
    Dims out(r, 1);
    for (const Tensor& t : pair) {
      const std::size_t lead = r - t.shape().size();
      for (std::size_t i = 0; i < t.shape().size(); ++i) {
        const I d = t.shape()[i];
        I& o = out[lead + i];
        if (d == o || d == 1) continue;
        if (o != 1)
          throw Error(ErrorKind::ShapeMismatch, "masked_select: cannot broadcast " +
                                                    detail::describe(pair) +
                                                    "; expected trailing dimensions equal or 1");
        o = d;
      }
    }
    shape = std::move(out);
  }
  const Tensor flat_mask = reshape(broadcast_to(mask, shape), {-1});
  const Tensor where_true = reshape(nonzero(flat_mask), {-1});
  return take_along_axis(reshape(broadcast_to(x, shape), {-1}), where_true, 0);
}

}  // namespace tenferro
