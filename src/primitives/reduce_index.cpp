// Index reductions: argmax and argmin along one axis or over the flattened tensor. The result is
// i64 and not differentiable (Note [Integer dtypes] in docs/dtypes.md). Ties give the first
// index; NaN counts as the extreme of both (the first NaN wins), as NumPy and PyTorch.
#include <limits>
#include <string>
#include <type_traits>

#include "core/strided.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/reduce.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

// a replaces the current best b: strictly better, and a NaN beats every number.
template <bool Max, class T>
bool better(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b != b) return false;
    if (a != a) return true;
  }
  return Max ? a > b : a < b;
}

template <bool Max, class T>
I arg_run(const T* p, I n, I s) {
  I best = 0;
  for (I i = 1; i < n; ++i)
    if (better<Max>(p[i * s], p[best * s])) best = i;
  return best;
}

class ArgReducePrim final : public PrimitiveWith<ArgReducePrim> {
 public:
  // Marks "over the flattened tensor" (no axis can be INT64_MIN: ranks are small).
  static constexpr I kAll = std::numeric_limits<I>::min();
  ArgReducePrim(bool is_max, I axis, bool keepdims)
      : is_max_(is_max), axis_(axis), keepdims_(keepdims) {}
  std::string_view name() const override { return is_max_ ? "argmax" : "argmin"; }
  std::string params() const override {
    return (axis_ == kAll ? std::string("axis=all") : "axis=" + std::to_string(axis_)) +
           " keepdims=" + (keepdims_ ? "true" : "false");
  }
  auto key() const { return std::tie(is_max_, axis_, keepdims_); }
  bool accepts_integers() const override { return true; }
  bool differentiable() const override { return false; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor& x = in[0];
    const std::string op(name());
    if (is_complex(x.dtype()))
      throw Error(ErrorKind::DTypeMismatch, op + ": expected a real dtype, got " + describe(in) +
                                                "; complex numbers are not ordered");
    Dims shape;
    if (axis_ == kAll) {
      if (x.numel() == 0)
        throw Error(ErrorKind::InvalidArgument,
                    op + ": cannot take the index of an empty tensor (" + describe(in) + ")");
      if (keepdims_) shape.assign(x.shape().size(), 1);
    } else {
      const I a = normalize_axis(axis_, x.rank(), name());
      if (x.shape()[static_cast<std::size_t>(a)] == 0)
        throw Error(ErrorKind::InvalidArgument, op + ": axis " + std::to_string(axis_) + " of " +
                                                    describe(in) +
                                                    " has size 0; expected a non-empty axis");
      for (I d = 0; d < x.rank(); ++d) {
        if (d != a)
          shape.push_back(x.shape()[static_cast<std::size_t>(d)]);
        else if (keepdims_)
          shape.push_back(1);
      }
    }
    out.push_back({DType::i64, std::move(shape)});
  }

  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& x = in[0];
    I* o = static_cast<I*>(out[0].data_ptr());
    visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (!is_complex_v<T>) {
        if (is_max_)
          run<true, T>(ctx, x, o);
        else
          run<false, T>(ctx, x, o);
      }
    });
  }

 private:
  template <bool Max, class T>
  void run(ExecContext& ctx, const Tensor& x, I* o) const {
    const T* p = static_cast<const T*>(x.data_ptr());
    if (axis_ == kAll) {
      if (x.is_contiguous()) {
        *o = arg_run<Max>(p, x.numel(), 1);
        return;
      }
      // Row-major order over any strides: the flat index counts logical positions.
      I k = 0, best = 0, best_off = 0;
      bool first = true;
      for_each_offset(x.shape(), x.strides(), 0, [&](I off) {
        if (first || better<Max>(p[off], p[best_off])) {
          best = k;
          best_off = off;
          first = false;
        }
        ++k;
      });
      *o = best;
      return;
    }
    const I a = normalize_axis(axis_, x.rank(), name());
    const I n = x.shape()[static_cast<std::size_t>(a)],
            s = x.strides()[static_cast<std::size_t>(a)];
    Dims kshape, kstrides;
    for (I d = 0; d < x.rank(); ++d)
      if (d != a) {
        kshape.push_back(x.shape()[static_cast<std::size_t>(d)]);
        kstrides.push_back(x.strides()[static_cast<std::size_t>(d)]);
      }
    const I outputs = dims_numel(kshape);
    auto body = [&](I b, I e) {
      for (I k = b; k < e; ++k) {
        I off = 0, rest = k;  // unravel k over the kept dims
        for (std::size_t d = kshape.size(); d-- > 0;) {
          off += (rest % kshape[d]) * kstrides[d];
          rest /= kshape[d];
        }
        o[k] = arg_run<Max>(p + off, n, s);
      }
    };
    ctx.parallel_for_work(outputs, 64, outputs * n, body);
  }

  bool is_max_;
  I axis_;
  bool keepdims_;
};

}  // namespace
}  // namespace detail

Tensor argmax(const Tensor& x, std::int64_t axis, bool keepdims) {
  return detail::bind1(detail::ArgReducePrim(true, axis, keepdims), x);
}
Tensor argmin(const Tensor& x, std::int64_t axis, bool keepdims) {
  return detail::bind1(detail::ArgReducePrim(false, axis, keepdims), x);
}
Tensor argmax(const Tensor& x) {
  return detail::bind1(detail::ArgReducePrim(true, detail::ArgReducePrim::kAll, false), x);
}
Tensor argmin(const Tensor& x) {
  return detail::bind1(detail::ArgReducePrim(false, detail::ArgReducePrim::kAll, false), x);
}

}  // namespace tenferro
