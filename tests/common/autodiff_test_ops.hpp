// Small reference primitives for testing the autodiff machinery independently of the op families
// (straight loops over contiguous copies; rules follow the conjugate-Wirtinger convention).
// Header-only: each test executable that includes it gets its own copies (anonymous namespace).
#pragma once

#include <cmath>
#include <complex>
#include <vector>

#include "core/strided.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro::adtest {
namespace {

using detail::ExecContext;
using detail::SpecList;

template <class T>
std::vector<T> host(const Tensor& t) {
  std::vector<T> v(static_cast<std::size_t>(t.numel()));
  if (t.numel()) detail::copy_to_contiguous(t, v.data(), dtype_v<T>);
  return v;
}

template <class T>
T conj_(T v) {
  if constexpr (is_complex_v<T>)
    return std::conj(v);
  else
    return v;
}

enum class U { sin, cos, exp, conj, neg, real, to_complex };
Tensor unary(U op, const Tensor& x);
enum class B { add, mul };
Tensor binary(B op, const Tensor& a, const Tensor& b);
Tensor tsum(const Tensor& x);
Tensor tbmm(const Tensor& a, const Tensor& b);

class UnaryPrim final : public detail::PrimitiveWith<UnaryPrim> {
 public:
  explicit UnaryPrim(U op) : op_(op) {}
  std::string_view name() const override { return "t_unary"; }
  std::string params() const override { return std::to_string(static_cast<int>(op_)); }
  auto key() const { return std::tie(op_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    DType d = in[0].dtype();
    if (op_ == U::real) d = real_dtype(d);
    if (op_ == U::to_complex) d = complex_dtype(d);
    out.push_back({d, in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_float_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      std::vector<T> x = host<T>(in[0]);
      for (std::size_t i = 0; i < x.size(); ++i) {
        T v = x[i];
        switch (op_) {
          case U::sin:
            static_cast<T*>(out[0].data_ptr())[i] = std::sin(v);
            break;
          case U::cos:
            static_cast<T*>(out[0].data_ptr())[i] = std::cos(v);
            break;
          case U::exp:
            static_cast<T*>(out[0].data_ptr())[i] = std::exp(v);
            break;
          case U::conj:
            static_cast<T*>(out[0].data_ptr())[i] = conj_(v);
            break;
          case U::neg:
            static_cast<T*>(out[0].data_ptr())[i] = -v;
            break;
          case U::real:
            static_cast<real_t<T>*>(out[0].data_ptr())[i] = std::real(v);
            break;
          case U::to_complex:
            static_cast<std::complex<real_t<T>>*>(out[0].data_ptr())[i] =
                std::complex<real_t<T>>(v);
            break;
        }
      }
    });
  }
  void jvp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    switch (op_) {
      case U::sin:
        out_t[0] = binary(B::mul, t[0], unary(U::cos, x[0]));
        break;
      case U::cos:
        out_t[0] = unary(U::neg, binary(B::mul, t[0], unary(U::sin, x[0])));
        break;
      case U::exp:
        out_t[0] = binary(B::mul, t[0], y[0]);
        break;
      default:
        out_t[0] = unary(op_, t[0]);  // linear
    }
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    switch (op_) {
      case U::sin:
        in_ct[0] = binary(B::mul, ct[0], unary(U::conj, unary(U::cos, x[0])));
        break;
      case U::cos:
        in_ct[0] = unary(U::neg, binary(B::mul, ct[0], unary(U::conj, unary(U::sin, x[0]))));
        break;
      case U::exp:
        in_ct[0] = binary(B::mul, ct[0], unary(U::conj, y[0]));
        break;
      case U::conj:
        in_ct[0] = unary(U::conj, ct[0]);
        break;
      case U::neg:
        in_ct[0] = unary(U::neg, ct[0]);
        break;
      case U::real:
        in_ct[0] = is_complex(x[0].dtype()) ? unary(U::to_complex, ct[0]) : ct[0];
        break;
      case U::to_complex:
        in_ct[0] = unary(U::real, ct[0]);
        break;
    }
  }

 private:
  U op_;
};

class BinaryPrim final : public detail::PrimitiveWith<BinaryPrim> {
 public:
  explicit BinaryPrim(B op) : op_(op) {}
  std::string_view name() const override { return op_ == B::add ? "t_add" : "t_mul"; }
  auto key() const { return std::tie(op_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    if (!(in[0].shape() == in[1].shape()) || in[0].dtype() != in[1].dtype())
      throw Error(ErrorKind::ShapeMismatch, "t_binary: " + detail::describe(in));
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_float_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      std::vector<T> a = host<T>(in[0]), b = host<T>(in[1]);
      T* o = static_cast<T*>(out[0].data_ptr());
      for (std::size_t i = 0; i < a.size(); ++i) o[i] = op_ == B::add ? a[i] + b[i] : a[i] * b[i];
    });
  }
  void jvp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    Tensor ta = t[0], tb = t[1];
    if (op_ == B::mul) {
      if (ta.defined()) ta = binary(B::mul, ta, x[1]);
      if (tb.defined()) tb = binary(B::mul, x[0], tb);
    }
    out_t[0] = ta.defined() && tb.defined() ? binary(B::add, ta, tb) : ta.defined() ? ta : tb;
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    for (int i = 0; i < 2; ++i) {
      if (!needs[i]) continue;
      in_ct[i] = op_ == B::add ? ct[0] : binary(B::mul, ct[0], unary(U::conj, x[1 - i]));
    }
  }

 private:
  B op_;
};

class SumPrim final : public detail::PrimitiveWith<SumPrim> {
 public:
  std::string_view name() const override { return "t_sum"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({in[0].dtype(), {}});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_float_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      T s{};
      for (T v : host<T>(in[0])) s += v;
      *static_cast<T*>(out[0].data_ptr()) = s;
    });
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    out_t[0] = tsum(t[0]);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    in_ct[0] = broadcast_to(ct[0], x[0].shape());
  }
};

// [B, M, K] x [B, K, N] -> [B, M, N]
class BmmPrim final : public detail::PrimitiveWith<BmmPrim> {
 public:
  std::string_view name() const override { return "t_bmm"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Dims &a = in[0].shape(), &b = in[1].shape();
    if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1] ||
        in[0].dtype() != in[1].dtype())
      throw Error(ErrorKind::ShapeMismatch, "t_bmm: " + detail::describe(in));
    out.push_back({in[0].dtype(), {a[0], a[1], b[2]}});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_float_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      std::vector<T> a = host<T>(in[0]), b = host<T>(in[1]);
      const std::int64_t nb = in[0].shape()[0], m = in[0].shape()[1], k = in[0].shape()[2],
                         n = in[1].shape()[2];
      T* o = static_cast<T*>(out[0].data_ptr());
      for (std::int64_t p = 0; p < nb; ++p)
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < n; ++j) {
            T s{};
            for (std::int64_t q = 0; q < k; ++q)
              s += a[(p * m + i) * k + q] * b[(p * k + q) * n + j];
            o[(p * m + i) * n + j] = s;
          }
    });
  }
  void jvp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    Tensor ta = t[0].defined() ? tbmm(t[0], x[1]) : Tensor();
    Tensor tb = t[1].defined() ? tbmm(x[0], t[1]) : Tensor();
    out_t[0] = ta.defined() && tb.defined() ? binary(B::add, ta, tb) : ta.defined() ? ta : tb;
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (needs[0]) in_ct[0] = tbmm(ct[0], transpose(unary(U::conj, x[1])));
    if (needs[1]) in_ct[1] = tbmm(transpose(unary(U::conj, x[0])), ct[0]);
  }
};

Tensor unary(U op, const Tensor& x) { return detail::bind1(UnaryPrim(op), {x}); }
Tensor binary(B op, const Tensor& a, const Tensor& b) {
  return detail::bind1(BinaryPrim(op), {a, b});
}
Tensor tsum(const Tensor& x) { return detail::bind1(SumPrim(), {x}); }
Tensor tbmm(const Tensor& a, const Tensor& b) { return detail::bind1(BmmPrim(), {a, b}); }
Tensor tmul(const Tensor& a, const Tensor& b) { return binary(B::mul, a, b); }
Tensor tadd(const Tensor& a, const Tensor& b) { return binary(B::add, a, b); }
Tensor tsin(const Tensor& x) { return unary(U::sin, x); }
Tensor texp(const Tensor& x) { return unary(U::exp, x); }
Tensor tconj(const Tensor& x) { return unary(U::conj, x); }
Tensor treal(const Tensor& x) { return unary(U::real, x); }

}  // namespace
}  // namespace tenferro::adtest
