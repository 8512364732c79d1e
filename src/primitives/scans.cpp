// Scans along one axis: cumsum/cumprod (the primitive "scan", forward or reverse) and the linear
// recurrence "linear_scan" that cumprod's derivatives are written with.
//
// Note [cumprod derivatives without division]: for y = cumprod(x) the VJP is
//   grad[k] = sum_{j >= k} g[j] conj(prod_{i <= j, i != k} x[i]) = conj(y[k-1]) s[k],
//   s[k] = g[k] + conj(x[k+1]) s[k+1]   (y[-1] = 1, s past the end = 0),
// a linear recurrence in s: no division by x, so it is exact at zeros anywhere in the row (the
// textbook revcumsum(g y) / x is 0/0 there). PyTorch reaches the same values with masks around
// the first zero and an O(n^2) loop when it must be differentiable again; linear_scan is O(n)
// and its own VJP and JVP are linear_scans again, so every order is covered. The JVP is the
// recurrence dy[k] = x[k] dy[k-1] + y[k-1] dx[k] (the product rule), also division-free.
//
// Kernels accumulate f32 and c64 in double precision (as PyTorch's CPU scans) and round each
// output; integers accumulate in i64 with wrapping (unsigned) arithmetic. Rows (the positions of
// the other axes) are independent and each runs sequentially, so results are bitwise the same for
// every thread count.
#include "primitives/scans.hpp"

#include <complex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/strided.hpp"
#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/scans.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

// One row per position of the axes other than `axis`: the offset of its first element in each
// of the given stride lists.
struct Rows {
  Dims shape;                 // the kept axes
  std::vector<Dims> strides;  // per stride list, the kept axes' strides
  I count = 1;

  Rows(const Dims& full, std::initializer_list<const Dims*> lists, I axis) : strides(lists.size()) {
    for (std::size_t d = 0; d < full.size(); ++d) {
      if (static_cast<I>(d) == axis) continue;
      shape.push_back(full[d]);
      count *= full[d];
      std::size_t k = 0;
      for (const Dims* s : lists) strides[k++].push_back((*s)[d]);
    }
  }
  I offset(I row, std::size_t list) const {
    I off = 0;
    for (std::size_t d = shape.size(); d-- > 0;) {
      off += (row % shape[d]) * strides[list][d];
      row /= shape[d];
    }
    return off;
  }
};

// The output element type: sum_dtype() (i64 for bool and signed integers, u64 for unsigned).
template <class T>
using scan_out_t =
    std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>, std::uint64_t,
                       std::conditional_t<std::is_integral_v<T>, std::int64_t, T>>;
template <class T>
using acc_t =
    std::conditional_t<std::is_integral_v<T>, scan_out_t<T>,
                       std::conditional_t<std::is_same_v<T, float>, double,
                                          std::conditional_t<std::is_same_v<T, c64>, c128, T>>>;

// The tensor "one position earlier" along `axis` in the direction toward_end (r[k] = t[k-1],
// r[0] = fill), or toward the start (r[k] = t[k+1], r[n-1] = fill). n >= 1.
Tensor shift(const Tensor& t, I axis, bool toward_end, Scalar fill) {
  const I n = t.shape()[static_cast<std::size_t>(axis)];
  std::vector<std::pair<I, I>> w(static_cast<std::size_t>(t.rank()), {0, 0});
  w[static_cast<std::size_t>(axis)] = toward_end ? std::pair<I, I>{1, 0} : std::pair<I, I>{0, 1};
  const Tensor kept = toward_end ? slice(t, axis, 0, n - 1) : slice(t, axis, 1, n);
  return pad(kept, w, PadMode::constant, fill);
}

class ScanPrim final : public PrimitiveWith<ScanPrim> {
 public:
  ScanPrim(bool product, I axis, bool reverse)
      : product_(product), axis_(axis), reverse_(reverse) {}
  std::string_view name() const override { return product_ ? "cumprod" : "cumsum"; }
  std::string params() const override {
    return "axis=" + std::to_string(axis_) + (reverse_ ? " reverse=true" : "");
  }
  auto key() const { return std::tie(product_, axis_, reverse_); }
  bool accepts_integers() const override { return true; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    (void)normalize_axis(axis_, in[0].rank(), name());
    out.push_back({sum_dtype(in[0].dtype()), in[0].shape()});
  }

  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& x = in[0];
    if (x.numel() == 0) return;
    const I a = normalize_axis(axis_, x.rank(), name());
    const Dims xs(x.strides().begin(), x.strides().end()), os = contiguous_strides(x.shape());
    const Rows rows(x.shape(), {&xs, &os}, a);
    const I n = x.shape()[static_cast<std::size_t>(a)];
    const I sx = xs[static_cast<std::size_t>(a)], so = os[static_cast<std::size_t>(a)];
    visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      using A = acc_t<T>;
      using O = scan_out_t<T>;
      const T* px = static_cast<const T*>(x.data_ptr());
      O* po = static_cast<O*>(out[0].data_ptr());
      ctx.parallel_for_work(rows.count, 16, rows.count * n, [&](I b, I e) {
        for (I r = b; r < e; ++r) {
          const T* p = px + rows.offset(r, 0);
          O* q = po + rows.offset(r, 1);
          if constexpr (is_complex_v<A>) {
            if (product_) {  // Note [Complex products of many factors] (elementwise_math.hpp)
              kernels::ProdAcc<A> acc;
              for (I t = 0; t < n; ++t) {
                const I i = reverse_ ? n - 1 - t : t;
                acc =
                    kernels::prod_acc_mul(acc, kernels::ProdAcc<A>(convert_element<A>(p[i * sx])));
                q[i * so] = convert_element<O>(static_cast<A>(acc));
              }
              continue;
            }
          }
          A acc = product_ ? A(1) : A(0);
          for (I t = 0; t < n; ++t) {
            const I i = reverse_ ? n - 1 - t : t;
            const A v = convert_element<A>(p[i * sx]);
            acc = product_ ? kernels::mul_of(acc, v) : kernels::add_of(acc, v);
            q[i * so] = convert_element<O>(acc);
          }
        }
      });
    });
  }

  void jvp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (!t[0].defined()) return;
    if (!product_) {
      out_t[0] = scan(t[0], axis_, false, reverse_);
      return;
    }
    if (x[0].numel() == 0) {
      out_t[0] = zeros(x[0].shape(), t[0].dtype());
      return;
    }
    const I a = normalize_axis(axis_, x[0].rank(), name());
    // dy[k] = x[k] dy[k-1] + y[k-1] dx[k]  (Note [cumprod derivatives without division])
    out_t[0] = linear_scan(x[0], shift(y[0], a, !reverse_, 1.0) * t[0], a, reverse_);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined() || !needs[0]) return;
    if (!product_) {
      in_ct[0] = scan(ct[0], axis_, false, !reverse_);
      return;
    }
    if (x[0].numel() == 0) {
      in_ct[0] = zeros(x[0].shape(), ct[0].dtype());
      return;
    }
    const I a = normalize_axis(axis_, x[0].rank(), name());
    const Tensor s = linear_scan(shift(conj(x[0]), a, reverse_, 0.0), ct[0], a, !reverse_);
    in_ct[0] = conj(shift(y[0], a, !reverse_, 1.0)) * s;
  }

 private:
  bool product_;
  I axis_;
  bool reverse_;
};

// h[k] = a[k] h[k-1] + b[k] along the axis (from the end when reverse), h before the first = 0.
class LinearScanPrim final : public PrimitiveWith<LinearScanPrim> {
 public:
  LinearScanPrim(I axis, bool reverse) : axis_(axis), reverse_(reverse) {}
  std::string_view name() const override { return "linear_scan"; }
  std::string params() const override {
    return "axis=" + std::to_string(axis_) + (reverse_ ? " reverse=true" : "");
  }
  auto key() const { return std::tie(axis_, reverse_); }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    if (in[0].dtype() != in[1].dtype())
      throw Error(ErrorKind::DTypeMismatch,
                  "linear_scan: coefficients and inputs must have one dtype, got " + describe(in));
    if (in[0].shape() != in[1].shape())
      throw Error(ErrorKind::ShapeMismatch,
                  "linear_scan: coefficients and inputs must have one shape, got " + describe(in));
    (void)normalize_axis(axis_, in[0].rank(), "linear_scan");
    out.push_back({in[0].dtype(), in[0].shape()});
  }

  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor &ta = in[0], &tb = in[1];
    if (ta.numel() == 0) return;
    const I ax = normalize_axis(axis_, ta.rank(), "linear_scan");
    const Dims as(ta.strides().begin(), ta.strides().end()),
        bs(tb.strides().begin(), tb.strides().end()), os = contiguous_strides(ta.shape());
    const Rows rows(ta.shape(), {&as, &bs, &os}, ax);
    const std::size_t k = static_cast<std::size_t>(ax);
    const I n = ta.shape()[k], sa = as[k], sb = bs[k], so = os[k];
    visit_float_dtype(
        ta.dtype(),
        [&](auto z) {
          using T = decltype(z);
          const T* pa = static_cast<const T*>(ta.data_ptr());
          const T* pb = static_cast<const T*>(tb.data_ptr());
          T* po = static_cast<T*>(out[0].data_ptr());
          ctx.parallel_for_work(rows.count, 16, rows.count * n, [&](I b, I e) {
            for (I r = b; r < e; ++r) {
              const T* p = pa + rows.offset(r, 0);
              const T* q = pb + rows.offset(r, 1);
              T* o = po + rows.offset(r, 2);
              T h(0);
              for (I t = 0; t < n; ++t) {
                const I i = reverse_ ? n - 1 - t : t;
                h = p[i * sa] * h + q[i * sb];
                o[i * so] = h;
              }
            }
          });
        },
        "linear_scan");
  }

  void jvp(std::span<const Tensor> x, std::span<const Tensor> h, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (!t[0].defined() && !t[1].defined()) return;
    if (x[0].numel() == 0) {
      out_t[0] = zeros(x[0].shape(), x[0].dtype());
      return;
    }
    const I ax = normalize_axis(axis_, x[0].rank(), "linear_scan");
    // dh[k] = a[k] dh[k-1] + (da[k] h[k-1] + db[k])
    Tensor rhs;
    if (t[0].defined()) rhs = t[0] * shift(h[0], ax, !reverse_, 0.0);
    if (t[1].defined()) rhs = rhs.defined() ? rhs + t[1] : t[1];
    out_t[0] = linear_scan(x[0], rhs, ax, reverse_);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor> h, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined() || (!needs[0] && !needs[1])) return;
    if (x[0].numel() == 0) {
      for (int i = 0; i < 2; ++i)
        if (needs[i]) in_ct[i] = zeros(x[0].shape(), x[0].dtype());
      return;
    }
    const I ax = normalize_axis(axis_, x[0].rank(), "linear_scan");
    // lambda[k] = g[k] + conj(a[k+1]) lambda[k+1]: the recurrence run the other way.
    const Tensor lam = linear_scan(shift(conj(x[0]), ax, reverse_, 0.0), ct[0], ax, !reverse_);
    if (needs[1]) in_ct[1] = lam;
    if (needs[0]) in_ct[0] = lam * conj(shift(h[0], ax, !reverse_, 0.0));
  }

 private:
  I axis_;
  bool reverse_;
};

Tensor public_scan(const char* op, const Tensor& x, I axis, bool product) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
  if (x.rank() > 0) return scan(x, axis, product, false);
  // A 0-d tensor is its own scan along its one implicit axis (PyTorch).
  (void)normalize_axis(axis, 1, op);
  return reshape(scan(reshape(x, {1}), 0, product, false), {});
}

}  // namespace

Tensor scan(const Tensor& x, std::int64_t axis, bool product, bool reverse) {
  return bind1(ScanPrim(product, axis, reverse), x);
}
Tensor linear_scan(const Tensor& a, const Tensor& b, std::int64_t axis, bool reverse) {
  return bind1(LinearScanPrim(axis, reverse), a, b);
}

}  // namespace detail

Tensor cumsum(const Tensor& x, std::int64_t axis) {
  return detail::public_scan("cumsum", x, axis, false);
}
Tensor cumprod(const Tensor& x, std::int64_t axis) {
  return detail::public_scan("cumprod", x, axis, true);
}

}  // namespace tenferro
