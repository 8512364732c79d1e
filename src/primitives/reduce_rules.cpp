// Note [Reduction rules bridge] (src/primitives/reduce_rules.hpp).
#include "primitives/reduce_rules.hpp"

#include <memory>

#include "core/strided.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro::detail {
namespace {

using I = std::int64_t;

// A contiguous array of dtype D holding t's elements (t's own memory when already so).
template <class D>
const D* contiguous_as(const Tensor& t, std::unique_ptr<D[]>& hold) {
  if (t.is_contiguous() && t.dtype() == dtype_v<D>) return static_cast<const D*>(t.data_ptr());
  hold.reset(new D[static_cast<std::size_t>(t.numel())]);
  copy_to_contiguous(t, hold.get(), dtype_v<D>);
  return hold.get();
}

enum class RuleOp : std::uint8_t { mul, div_or_zero, scale, conj, real };

class RuleElementwisePrim final : public PrimitiveWith<RuleElementwisePrim> {
 public:
  explicit RuleElementwisePrim(RuleOp op, double s = 1.0) : op_(op), s_(s) {}
  std::string_view name() const override {
    switch (op_) {
      case RuleOp::mul:
        return "rule_mul";
      case RuleOp::div_or_zero:
        return "rule_div_or_zero";
      case RuleOp::scale:
        return "rule_scale";
      case RuleOp::conj:
        return "rule_conj";
      case RuleOp::real:
        break;
    }
    return "rule_real";
  }
  std::string params() const override {
    return op_ == RuleOp::scale ? "s=" + std::to_string(s_) : "";
  }
  bool binary() const { return op_ == RuleOp::mul || op_ == RuleOp::div_or_zero; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    if (binary()) {
      if (!(in[0].shape() == in[1].shape()))
        throw Error(ErrorKind::ShapeMismatch,
                    std::string(name()) + ": expected equal shapes, got " + describe(in));
      out.push_back({promote(in[0].dtype(), in[1].dtype()), in[0].shape()});
      return;
    }
    out.push_back({op_ == RuleOp::real ? real_dtype(in[0].dtype()) : in[0].dtype(), in[0].shape()});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const I n = out[0].numel();
    if (n == 0) return;
    if (op_ == RuleOp::real) {
      visit_dtype(in[0].dtype(), [&](auto z) {
        using T = decltype(z);
        std::unique_ptr<T[]> h;
        const T* a = contiguous_as<T>(in[0], h);
        auto* o = static_cast<real_t<T>*>(out[0].data_ptr());
        for (I i = 0; i < n; ++i) {
          if constexpr (is_complex_v<T>) {
            o[i] = a[i].real();
          } else {
            o[i] = a[i];
          }
        }
      });
      return;
    }
    visit_dtype(out[0].dtype(), [&](auto z) {
      using D = decltype(z);
      std::unique_ptr<D[]> ha, hb;
      const D* a = contiguous_as<D>(in[0], ha);
      D* o = static_cast<D*>(out[0].data_ptr());
      switch (op_) {
        case RuleOp::mul: {
          const D* b = contiguous_as<D>(in[1], hb);
          for (I i = 0; i < n; ++i) o[i] = a[i] * b[i];
          break;
        }
        case RuleOp::div_or_zero: {
          const D* b = contiguous_as<D>(in[1], hb);
          for (I i = 0; i < n; ++i) o[i] = b[i] == D(0) ? D(0) : a[i] / b[i];
          break;
        }
        case RuleOp::scale:
          for (I i = 0; i < n; ++i) o[i] = a[i] * static_cast<real_t<D>>(s_);
          break;
        case RuleOp::conj:
          for (I i = 0; i < n; ++i) {
            if constexpr (is_complex_v<D>) {
              o[i] = std::conj(a[i]);
            } else {
              o[i] = a[i];
            }
          }
          break;
        case RuleOp::real:
          break;
      }
    });
  }

  // Linear ops only (Note [Reduction rules bridge]).
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> t, std::span<Tensor> out_t) const override {
    if (binary()) return Primitive::jvp(primals, outputs, t, out_t);
    if (t[0].defined()) out_t[0] = bind1(*this, {t[0]});
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> ct, std::span<const bool> needs,
           std::span<Tensor> in_ct) const override {
    if (binary()) return Primitive::vjp(primals, outputs, ct, needs, in_ct);
    if (!ct[0].defined()) return;
    if (op_ == RuleOp::real && is_complex(primals[0].dtype()))  // ct (real) back to complex
      in_ct[0] = rule_mul(ct[0], scalar_tensor(1.0, primals[0].dtype()));
    else
      in_ct[0] = bind1(*this, {ct[0]});
  }

 private:
  RuleOp op_;
  double s_;
};

Dims broadcast_pair(const Tensor& a, const Tensor& b, const char* op) {
  const std::size_t r = std::max(a.shape().size(), b.shape().size());
  Dims s(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    I da = i < r - a.shape().size() ? 1 : a.shape()[i - (r - a.shape().size())];
    I db = i < r - b.shape().size() ? 1 : b.shape()[i - (r - b.shape().size())];
    if (da != db && da != 1 && db != 1)
      throw Error(ErrorKind::ShapeMismatch, std::string(op) + ": shapes " +
                                                dims_to_string(a.shape()) + " and " +
                                                dims_to_string(b.shape()) + " do not broadcast");
    s[i] = da == 1 ? db : da;
  }
  return s;
}

Tensor binary(RuleOp op, const Tensor& a, const Tensor& b) {
  RuleElementwisePrim p(op);
  Dims s = broadcast_pair(a, b, p.name().data());
  Tensor ab = a.shape() == s ? a : broadcast_to(a, s);
  Tensor bb = b.shape() == s ? b : broadcast_to(b, s);
  return bind1(p, {ab, bb});
}

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
  bool differentiable() const override { return false; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    if (in[0].numel() == 0) return;
    visit_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (!is_complex_v<T>) {
        I outer, n;
        Tensor xv = runs_view(in[0], reduced_, outer, n);
        std::unique_ptr<T[]> hx, hy;
        const T* x = contiguous_as<T>(xv, hx);
        const T* y = contiguous_as<T>(in[1], hy);
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

class ProdOthersPrim final : public PrimitiveWith<ProdOthersPrim> {
 public:
  explicit ProdOthersPrim(Dims reduced) : reduced_(std::move(reduced)) {}
  std::string_view name() const override { return "reduce_prod_others"; }
  std::string params() const override { return "axes=" + dims_to_string(reduced_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    if (in[0].numel() == 0) return;
    visit_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      I outer, n;
      Tensor xv = runs_view(in[0], reduced_, outer, n);
      std::unique_ptr<T[]> hx;
      const T* x = contiguous_as<T>(xv, hx);
      std::unique_ptr<T[]> r(new T[static_cast<std::size_t>(outer * n)]);
      for (I o = 0; o < outer; ++o) {
        const T* xr = x + o * n;
        T* rr = r.get() + o * n;
        T acc(1);
        for (I i = 0; i < n; ++i) rr[i] = acc, acc *= xr[i];  // prefix products
        acc = T(1);
        for (I i = n; i-- > 0;) rr[i] *= acc, acc *= xr[i];  // times suffix products
      }
      scatter_runs<T>(out[0], reduced_, r.get());
    });
  }

 private:
  Dims reduced_;
};

}  // namespace

Tensor rule_mul(const Tensor& a, const Tensor& b) { return binary(RuleOp::mul, a, b); }
Tensor rule_div_or_zero(const Tensor& a, const Tensor& b) {
  return binary(RuleOp::div_or_zero, a, b);
}
Tensor rule_scale(const Tensor& a, double s) {
  return bind1(RuleElementwisePrim(RuleOp::scale, s), {a});
}
Tensor rule_conj(const Tensor& a) {
  return is_complex(a.dtype()) ? bind1(RuleElementwisePrim(RuleOp::conj), {a}) : a;
}
Tensor rule_real(const Tensor& a) {
  return is_complex(a.dtype()) ? bind1(RuleElementwisePrim(RuleOp::real), {a}) : a;
}
Tensor reduce_tie_weights(const Tensor& x, const Tensor& extremum, std::span<const I> reduced) {
  return bind1(TieWeightsPrim(Dims(reduced)), {x, extremum});
}
Tensor reduce_prod_others(const Tensor& x, std::span<const I> reduced) {
  return bind1(ProdOthersPrim(Dims(reduced)), {x});
}

}  // namespace tenferro::detail
