// Note [Reduction rules] (src/primitives/reduce_rules.hpp).
#include "primitives/reduce_rules.hpp"

#include <memory>

#include "core/alloc.hpp"
#include "core/contiguous.hpp"
#include "core/strided.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/elementwise.hpp"

namespace tenferro::detail {
namespace {

using I = std::int64_t;

// ---- run gather/scatter for the derived-value primitives ----
// A view of t with the kept axes first and the `reduced` axes last; O runs of n elements.
Tensor runs_view(const Tensor& t, std::span<const I> reduced, I& outer, I& n) {
  SmallVector<bool, 8> red(t.shape().size(), false);
  for (I a : reduced) red[static_cast<std::size_t>(a)] = true;
  Dims shape, strides;
  outer = n = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t d = 0; d < t.shape().size(); ++d)
      if (red[d] == (pass == 1)) {
        shape.push_back(t.shape()[d]);
        strides.push_back(t.strides()[d]);
        (pass ? n : outer) *= t.shape()[d];
      }
  return Tensor(t.storage(), std::move(shape), std::move(strides), t.offset(), t.dtype());
}

template <class T>
void scatter_runs(const Tensor& out, std::span<const I> reduced, const T* src) {
  I outer, n;
  Tensor v = runs_view(out, reduced, outer, n);
  T* dst = static_cast<T*>(out.data_ptr());
  for_each_offset(v.shape(), v.strides(), 0, [&](I off) { dst[off] = *src++; });
}

class TieWeightsPrim final : public PrimitiveWith<TieWeightsPrim> {
 public:
  explicit TieWeightsPrim(Dims reduced) : reduced_(std::move(reduced)) {}
  std::string_view name() const override { return "reduce_tie_weights"; }
  std::string params() const override { return "axes=" + dims_to_string(reduced_); }
  auto key() const { return std::tie(reduced_); }
  bool differentiable() const override { return false; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    if (in[0].numel() == 0) return;
    visit_float_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (!is_complex_v<T>) {
        I outer, n;
        Tensor xv = runs_view(in[0], reduced_, outer, n);
        std::unique_ptr<T[]> hx, hy;
        const T* x = contiguous_or_held<T>(xv, hx, "reduce");
        const T* y = contiguous_or_held<T>(in[1], hy, "reduce");
        std::unique_ptr<T[]> w(new T[static_cast<std::size_t>(outer * n)]);
        for (I o = 0; o < outer; ++o) {
          I count = 0;
          for (I i = 0; i < n; ++i) count += x[o * n + i] == y[o];
          const T share = count ? T(1) / static_cast<T>(count) : T(0);
          for (I i = 0; i < n; ++i) w[o * n + i] = x[o * n + i] == y[o] ? share : T(0);
        }
        scatter_runs<T>(out[0], reduced_, w.get());
      }
    });
  }
  // Piecewise constant: zero derivative (undefined tangents/cotangents mean zero).
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor>,
           std::span<Tensor>) const override {}
  void vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor>,
           std::span<const bool>, std::span<Tensor>) const override {}

 private:
  Dims reduced_;
};

// One prefix/suffix sweep per run over dual numbers x + eps t: the value part is the product
// of the other elements, the eps part its derivative along t. Tangent=false skips the eps part.
template <class T, bool Tangent>
void prod_others_runs(const T* x, const T* t, I outer, I n, T* r) {
  std::unique_ptr<T[]> dr(Tangent ? new T[static_cast<std::size_t>(n)] : nullptr);
  for (I o = 0; o < outer; ++o) {
    const T* xr = x + o * n;
    const T* tr = Tangent ? t + o * n : nullptr;
    T* rr = r + o * n;
    T p(1), dp(0);
    for (I i = 0; i < n; ++i) {  // prefix products (and their eps parts in dr)
      rr[i] = p;
      if constexpr (Tangent) dr[i] = dp, dp = dp * xr[i] + p * tr[i];
      p *= xr[i];
    }
    T s(1), ds(0);
    for (I i = n; i-- > 0;) {  // times suffix products
      if constexpr (Tangent) {
        const T value = rr[i];
        rr[i] = value * ds + dr[i] * s;
        ds = ds * xr[i] + s * tr[i];
      } else {
        rr[i] *= s;
      }
      s *= xr[i];
    }
  }
}

// reduce_prod_others (Tangent = false, input x) and reduce_prod_others_tangent (Tangent = true,
// inputs x and t): one class, the kernels differ by the eps part only.
template <bool Tangent>
class ProdOthersPrim final : public PrimitiveWith<ProdOthersPrim<Tangent>> {
 public:
  explicit ProdOthersPrim(Dims reduced) : reduced_(std::move(reduced)) {}
  std::string_view name() const override {
    return Tangent ? "reduce_prod_others_tangent" : "reduce_prod_others";
  }
  std::string params() const override { return "axes=" + dims_to_string(reduced_); }
  auto key() const { return std::tie(reduced_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const DType d = Tangent ? promote(in[0].dtype(), in[1].dtype()) : in[0].dtype();
    out.push_back({d, in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    if (in[0].numel() == 0) return;
    visit_float_dtype(out[0].dtype(), [&](auto z) {
      using T = decltype(z);
      I outer, n;
      std::unique_ptr<T[]> hx, ht;
      const T* x = contiguous_or_held<T>(runs_view(in[0], reduced_, outer, n), hx, "reduce");
      const T* t = Tangent
                       ? contiguous_or_held<T>(runs_view(in[1], reduced_, outer, n), ht, "reduce")
                       : nullptr;
      std::unique_ptr<T[]> r(new T[static_cast<std::size_t>(outer * n)]);
      prod_others_runs<T, Tangent>(x, t, outer, n, r.get());
      scatter_runs<T>(out[0], reduced_, r.get());
    });
  }
  // Rules of reduce_prod_others only (Note [Reduction rules]); the tangent primitive keeps the
  // default (Unsupported). The Jacobian J_ij = prod_{k != i, j} x_k is symmetric and
  // holomorphic, so the conjugate-Wirtinger VJP conj(J)^T ct is the tangent at conj(x) along ct.
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> t, std::span<Tensor> out_t) const override {
    if constexpr (Tangent) return Primitive::jvp(primals, outputs, t, out_t);
    if (t[0].defined()) out_t[0] = reduce_prod_others_tangent(primals[0], t[0], reduced_);
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> ct, std::span<const bool> needs,
           std::span<Tensor> in_ct) const override {
    if constexpr (Tangent) return Primitive::vjp(primals, outputs, ct, needs, in_ct);
    if (ct[0].defined() && needs[0])
      in_ct[0] = reduce_prod_others_tangent(conj(primals[0]), ct[0], reduced_);
  }

 private:
  Dims reduced_;
};

}  // namespace

Tensor reduce_tie_weights(const Tensor& x, const Tensor& extremum, std::span<const I> reduced) {
  return bind1(TieWeightsPrim(Dims(reduced)), {x, extremum});
}
Tensor reduce_prod_others(const Tensor& x, std::span<const I> reduced) {
  return bind1(ProdOthersPrim<false>(Dims(reduced)), x);
}
Tensor reduce_prod_others_tangent(const Tensor& x, const Tensor& t, std::span<const I> reduced) {
  return bind1(ProdOthersPrim<true>(Dims(reduced)), {x, t});
}

}  // namespace tenferro::detail
