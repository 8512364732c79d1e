// pad (NumPy's np.pad in constant, reflect and edge modes) and its adjoint.
//
// Both primitives read the same per-axis index map: output position i of axis d reads input
// index map_d[i], or the fill value where the map says -1 (constant mode's border). pad gathers
// through the map; pad_adjoint sums a cotangent of the padded shape back through it (reflect and
// edge send several output positions to one input element). Each is the other's transpose, so
// the rules close: pad's VJP is pad_adjoint (a slice in constant mode, where the map is a plain
// window), pad_adjoint's VJP is pad with value 0, and both are linear in the tangent.
#include <string>
#include <vector>

#include "core/strided.hpp"
#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/scans.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

const char* mode_name(PadMode m) {
  switch (m) {
    case PadMode::constant:
      return "constant";
    case PadMode::reflect:
      return "reflect";
    case PadMode::edge:
      return "edge";
  }
  return "?";
}

// The input index that output position i (of an axis of input size n, `before` added in front)
// reads, or -1 for the fill value. Callers guarantee n >= 1 for reflect and edge.
I source_index(PadMode mode, I i, I before, I n) {
  const I j = i - before;
  if (j >= 0 && j < n) return j;
  switch (mode) {
    case PadMode::constant:
      return -1;
    case PadMode::edge:
      return j < 0 ? 0 : n - 1;
    case PadMode::reflect: {
      if (n == 1) return 0;  // NumPy extends a singleton axis with its element
      // Mirroring without repeating the edge is periodic with period 2 (n - 1).
      const I p = 2 * (n - 1);
      I m = j % p;
      if (m < 0) m += p;
      return m < n ? m : p - m;
    }
  }
  return -1;
}

std::string widths_string(const Dims& before, const Dims& after) {
  std::string s = "[";
  for (std::size_t d = 0; d < before.size(); ++d) {
    if (d) s += ", ";
    s += '(';
    s += std::to_string(before[d]);
    s += ", ";
    s += std::to_string(after[d]);
    s += ')';
  }
  return s + "]";
}

// Per-axis index maps for an input of `in_shape` padded to `out_shape`.
std::vector<std::vector<I>> index_maps(PadMode mode, const Dims& before, const Dims& in_shape,
                                       const Dims& out_shape) {
  std::vector<std::vector<I>> maps(in_shape.size());
  for (std::size_t d = 0; d < in_shape.size(); ++d) {
    maps[d].resize(static_cast<std::size_t>(out_shape[d]));
    for (I i = 0; i < out_shape[d]; ++i)
      maps[d][static_cast<std::size_t>(i)] = source_index(mode, i, before[d], in_shape[d]);
  }
  return maps;
}

// Calls f(out_flat, in_offset, inside) for every position of out_shape in row-major order, where
// in_offset is the mapped input element's offset under `in_strides` (negative strides give
// negative offsets) and inside is false where the map says fill.
template <class F>
void for_each_mapped(const std::vector<std::vector<I>>& maps, const Dims& out_shape,
                     const Dims& in_strides, F&& f) {
  for (I s : out_shape)
    if (s == 0) return;
  const std::size_t r = out_shape.size();
  if (r == 0) {
    f(I{0}, I{0}, true);
    return;
  }
  Dims pos(r, 0);
  I flat = 0;
  for (;;) {
    I base = 0;
    bool fill = false;
    for (std::size_t d = 0; d + 1 < r && !fill; ++d) {
      const I j = maps[d][static_cast<std::size_t>(pos[d])];
      if (j < 0)
        fill = true;
      else
        base += j * in_strides[d];
    }
    const std::vector<I>& m = maps[r - 1];
    const I s = in_strides[r - 1];
    for (I i = 0; i < out_shape[r - 1]; ++i, ++flat) {
      const I j = m[static_cast<std::size_t>(i)];
      f(flat, base + j * s, !fill && j >= 0);
    }
    std::size_t d = r - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++pos[d] < out_shape[d]) break;
      pos[d] = 0;
    }
  }
}

Tensor pad_adjoint(const Tensor& ct, const Dims& before, const Dims& after, PadMode mode);

class PadPrim final : public PrimitiveWith<PadPrim> {
 public:
  PadPrim(Dims before, Dims after, PadMode mode, Scalar value)
      : before_(std::move(before)), after_(std::move(after)), mode_(mode), value_(value) {}
  std::string_view name() const override { return "pad"; }
  std::string params() const override {
    std::string s = "widths=";
    s += widths_string(before_, after_);
    s += " mode=";
    s += mode_name(mode_);
    if (mode_ == PadMode::constant) {
      s += " value=";
      // As the binary ops print their scalar: a complex value as (re,im).
      if (value_.imag() != 0) {
        s += "(" + round_trip(value_.real()) + "," + round_trip(value_.imag()) + ")";
      } else {
        s += round_trip(value_.real());
      }
    }
    return s;
  }
  auto key() const { return std::tie(before_, after_, mode_, value_); }
  bool accepts_integers() const override { return true; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor& x = in[0];
    if (static_cast<std::size_t>(x.rank()) != before_.size())
      throw Error(ErrorKind::InvalidArgument, "pad: " + std::to_string(before_.size()) +
                                                  " width pairs for input " + describe(in) +
                                                  "; expected one per axis");
    Dims shape;
    I numel = 1;
    for (std::size_t d = 0; d < before_.size(); ++d) {
      const I n = x.shape()[d];
      if (before_[d] < 0 || after_[d] < 0)
        throw Error(ErrorKind::InvalidArgument,
                    "pad: negative width (" + std::to_string(before_[d]) + ", " +
                        std::to_string(after_[d]) + ") for axis " + std::to_string(d) + " of " +
                        describe(in) + "; expected widths >= 0");
      if (n == 0 && mode_ != PadMode::constant && (before_[d] || after_[d]))
        throw Error(ErrorKind::InvalidArgument, std::string("pad: mode ") + mode_name(mode_) +
                                                    " cannot extend the empty axis " +
                                                    std::to_string(d) + " of " + describe(in) +
                                                    "; expected width 0 there (or constant mode)");
      I size = 0;
      if (__builtin_add_overflow(n, before_[d], &size) ||
          __builtin_add_overflow(size, after_[d], &size) ||
          __builtin_mul_overflow(numel, size, &numel))
        throw Error(ErrorKind::InvalidArgument, "pad: padding " + describe(in) + " by " +
                                                    widths_string(before_, after_) +
                                                    " gives more than INT64_MAX elements");
      shape.push_back(size);
    }
    out.push_back({x.dtype(), std::move(shape)});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& x = in[0];
    if (out[0].numel() == 0) return;
    const auto maps = index_maps(mode_, before_, x.shape(), out[0].shape());
    const Dims xs(x.strides().begin(), x.strides().end());
    visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* px = static_cast<const T*>(x.data_ptr());
      T* po = static_cast<T*>(out[0].data_ptr());
      const T fill = convert_element<T>(value_);
      for_each_mapped(maps, out[0].shape(), xs,
                      [&](I k, I off, bool inside) { po[k] = inside ? px[off] : fill; });
    });
  }

  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined()) out_t[0] = bind1(PadPrim(before_, after_, mode_, 0), {t[0]});
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined() || !needs[0]) return;
    if (mode_ != PadMode::constant) {
      in_ct[0] = pad_adjoint(ct[0], before_, after_, mode_);
      return;
    }
    // Constant mode reads the input through a window: the adjoint is that window of ct.
    Tensor g = ct[0];
    for (std::size_t d = 0; d < before_.size(); ++d)
      if (before_[d] || after_[d])
        g = slice(g, static_cast<I>(d), before_[d], before_[d] + x[0].shape()[d]);
    in_ct[0] = g;
  }

 private:
  Dims before_, after_;
  PadMode mode_;
  Scalar value_;
};

// out[j] = sum of ct[i] over the output positions i whose index map reads j.
class PadAdjointPrim final : public PrimitiveWith<PadAdjointPrim> {
 public:
  PadAdjointPrim(Dims before, Dims after, PadMode mode)
      : before_(std::move(before)), after_(std::move(after)), mode_(mode) {}
  std::string_view name() const override { return "pad_adjoint"; }
  std::string params() const override {
    return "widths=" + widths_string(before_, after_) + " mode=" + mode_name(mode_);
  }
  auto key() const { return std::tie(before_, after_, mode_); }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor& ct = in[0];
    if (static_cast<std::size_t>(ct.rank()) != before_.size())
      throw Error(ErrorKind::InvalidArgument, "pad_adjoint: " + std::to_string(before_.size()) +
                                                  " width pairs for " + describe(in) +
                                                  "; expected one per axis");
    Dims shape;
    for (std::size_t d = 0; d < before_.size(); ++d) {
      const I n = ct.shape()[d] - before_[d] - after_[d];
      if (before_[d] < 0 || after_[d] < 0 || n < 0 ||
          (n == 0 && mode_ != PadMode::constant && (before_[d] || after_[d])))
        throw Error(ErrorKind::ShapeMismatch,
                    "pad_adjoint: " + describe(in) + " is not a padding by " +
                        widths_string(before_, after_) + " in mode " + mode_name(mode_));
      shape.push_back(n);
    }
    out.push_back({ct.dtype(), std::move(shape)});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& ct = in[0];
    const Dims xshape = out[0].shape();
    const Dims xs = contiguous_strides(xshape);
    const std::int64_t nx = out[0].numel();
    visit_dtype(ct.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (!std::is_same_v<T, bool>) {
        T* po = static_cast<T*>(out[0].data_ptr());
        for (I k = 0; k < nx; ++k) po[k] = T(0);
        if (ct.numel() == 0) return;
        // The cotangent in row-major order: repeated targets add in that fixed order.
        std::vector<T> g(static_cast<std::size_t>(ct.numel()));
        copy_to_contiguous(ct, g.data(), ct.dtype());
        const auto maps = index_maps(mode_, before_, xshape, ct.shape());
        for_each_mapped(maps, ct.shape(), xs, [&](I k, I off, bool inside) {
          if (inside) po[off] = kernels::add_of(po[off], g[static_cast<std::size_t>(k)]);
        });
      }
    });
  }

  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined()) out_t[0] = pad_adjoint(t[0], before_, after_, mode_);
  }
  void vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (ct[0].defined() && needs[0]) in_ct[0] = bind1(PadPrim(before_, after_, mode_, 0), {ct[0]});
  }

 private:
  Dims before_, after_;
  PadMode mode_;
};

Tensor pad_adjoint(const Tensor& ct, const Dims& before, const Dims& after, PadMode mode) {
  return bind1(PadAdjointPrim(before, after, mode), {ct});
}

}  // namespace
}  // namespace detail

Tensor pad(const Tensor& x, std::span<const std::pair<std::int64_t, std::int64_t>> widths,
           PadMode mode, Scalar value) {
  if (!x.defined()) throw Error(ErrorKind::InvalidArgument, "pad: the input tensor is undefined");
  if (mode != PadMode::constant && mode != PadMode::reflect && mode != PadMode::edge)
    throw Error(ErrorKind::InvalidArgument, "pad: unknown mode " +
                                                std::to_string(static_cast<int>(mode)) +
                                                "; expected PadMode::constant, reflect or edge");
  const std::size_t r = static_cast<std::size_t>(x.rank());
  if (widths.size() != 1 && widths.size() != r)
    throw Error(ErrorKind::InvalidArgument,
                "pad: " + std::to_string(widths.size()) + " (before, after) pairs for input " +
                    dims_to_string(x.shape()) + " " + std::string(dtype_name(x.dtype())) +
                    "; expected 1 (for every axis) or " + std::to_string(r) + " (one per axis)");
  Dims before, after;
  for (std::size_t d = 0; d < r; ++d) {
    const auto& w = widths.size() == 1 ? widths[0] : widths[d];
    before.push_back(w.first);
    after.push_back(w.second);
  }
  // Widths given for a 0-d input still have to be valid.
  for (const auto& w : widths)
    if (w.first < 0 || w.second < 0)
      throw Error(ErrorKind::InvalidArgument, "pad: negative width (" + std::to_string(w.first) +
                                                  ", " + std::to_string(w.second) + ") for input " +
                                                  dims_to_string(x.shape()) +
                                                  "; expected widths >= 0");
  // Only constant mode reads the value: other modes drop it so equal pads share one key.
  if (mode != PadMode::constant) value = 0;
  return detail::bind1(detail::PadPrim(std::move(before), std::move(after), mode, value), {x});
}

}  // namespace tenferro
