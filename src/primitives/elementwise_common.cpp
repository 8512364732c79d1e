// Rule helpers and shape/dtype utilities shared by the elementwise primitives.
#include "primitives/elementwise_common.hpp"

#include <cmath>

#include "core/strided.hpp"

namespace tenferro::detail {

Tensor scale(const Tensor& x, const Partial& p) {
  Tensor r = p.t.defined() ? x * p.t : x;
  return p.c == Scalar(1.0) ? r : r * p.c;
}

Partial conj(Partial p) {
  // conj of a real tensor is the tensor itself: no op to bind or record.
  if (p.t.defined() && is_complex(p.t.dtype())) p.t = tenferro::conj(p.t);
  p.c = std::conj(p.c);
  return p;
}

Tensor fit_tangent(const Tensor& t, const Tensor& y) {
  Tensor r = t.shape() == y.shape() ? t : broadcast_to(t, y.shape());
  return r.dtype() == y.dtype() ? r : cast(r, y.dtype());
}

Tensor fit_cotangent(const Tensor& g, const Tensor& x) {
  // The common case, nothing to sum or cast: no call, no copy.
  if (g.layout() == x.layout() || (g.dtype() == x.dtype() && g.shape() == x.shape())) return g;
  Tensor r = sum_to_shape(g, x.shape());
  return r.dtype() == x.dtype() ? r : cast(r, x.dtype());
}

Tensor add_maybe(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}

Dims broadcast_shapes(std::string_view op, std::span<const Tensor> in) {
  bool same = true;  // the common case: nothing to broadcast
  for (const Tensor& t : in.subspan(1)) same = same && t.shape() == in[0].shape();
  if (same) return in[0].shape();
  std::size_t r = 0;
  for (const Tensor& t : in) r = std::max(r, t.shape().size());
  Dims out(r, 1);
  bool ok = true;
  for (const Tensor& t : in) {
    const std::size_t lead = r - t.shape().size();
    for (std::size_t i = 0; i < t.shape().size(); ++i) {
      std::int64_t& o = out[lead + i];
      const std::int64_t d = t.shape()[i];
      if (d == o || d == 1) continue;
      if (o == 1)
        o = d;
      else
        ok = false;
    }
  }
  if (!ok) {
    std::string shapes;
    for (std::size_t i = 0; i < in.size(); ++i)
      shapes += (i ? (i + 1 == in.size() ? " and " : ", ") : "") + dims_to_string(in[i].shape());
    throw Error(ErrorKind::ShapeMismatch,
                std::string(op) + ": cannot broadcast shapes " + shapes +
                    "; expected each pair of trailing dimensions to be equal or 1 (NumPy rules)");
  }
  return out;
}

const Tensor& with_dtype(const Tensor& x, DType d, Tensor& holder) {
  if (x.dtype() == d) return x;
  holder = Tensor::empty(x.shape(), d);
  copy_to_contiguous(x, holder.data_ptr(), d);
  return holder;
}

DType scalar_dtype(DType d, Scalar s) {
  if (s.imag() != 0.0) return complex_dtype(d);
  if (is_floating(d)) return d;
  const double v = s.real();
  if (!(v == std::trunc(v))) return default_float;  // fractional, inf or NaN
  if (d == DType::boolean) d = DType::i64;
  // d's range [lo, hi): bounds are powers of two, exact in double ([-2^31, 2^31), [0, 2^8), ...).
  const int bits = static_cast<int>(dtype_size(d)) * 8;
  const double hi = std::ldexp(1.0, is_unsigned(d) ? bits : bits - 1);
  const double lo = is_unsigned(d) ? 0.0 : -hi;
  return v >= lo && v < hi ? d : default_float;
}

void throw_bool_unsupported(std::string_view op, std::span<const Tensor> in) {
  throw Error(ErrorKind::DTypeMismatch,
              std::string(op) + ": bool operands are not supported (arithmetic on bool); got " +
                  describe(in) +
                  ", expected numeric dtypes; cast() to an integer dtype first, or use the "
                  "logical_* ops");
}

void throw_integers_only(std::string_view op, bool bool_ok, std::span<const Tensor> in) {
  throw Error(ErrorKind::DTypeMismatch,
              std::string(op) + ": a bitwise op, defined on " +
                  (bool_ok ? "bool or integer dtypes" : "integer dtypes") + " only; got " +
                  describe(in) + "; cast() to an integer dtype first");
}

DType integer_scalar_dtype(std::string_view op, std::span<const Tensor> in, Scalar s) {
  const DType d = scalar_dtype(in[0].dtype(), s);
  if (is_integral(d)) return d;
  const double v = s.real();
  if (s.imag() == 0.0 && v == std::trunc(v) && v >= -0x1p63 && v < 0x1p63) return DType::i64;
  throw Error(ErrorKind::DTypeMismatch,
              std::string(op) + ": a bitwise op, defined on integers only; the Scalar operand (" +
                  round_trip(v) +
                  (s.imag() != 0.0 ? ", imaginary part " + round_trip(s.imag()) : "") +
                  ") next to " + describe(in) +
                  " is not a whole number in i64's range; pass a 0-d integer tensor instead");
}

void throw_complex_unsupported(std::string_view op, std::string_view why,
                               std::span<const Tensor> in) {
  std::string reason = why.empty() ? "it is defined for real values only" : std::string(why);
  throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": complex operands are not supported (" +
                                            reason + "); got " + describe(in) +
                                            ", expected real dtypes (bool, integers, f32, f64)");
}

std::shared_ptr<const Primitive> elementwise_primitive(std::string_view name, ScalarSide side,
                                                       Scalar s) {
  if (auto p = find_analytic(name)) return p;
  if (auto p = find_analytic_trig(name)) return p;
  if (auto p = find_elementwise_unary(name)) return p;
  if (auto p = find_elementwise_classify(name)) return p;
  if (auto p = find_elementwise_binary_real(name, side, s)) return p;
  if (auto p = find_polar(name, side, s)) return p;
  if (auto p = find_elementwise_bitwise(name, side, s)) return p;
  return find_elementwise_binary(name, side, s);
}

}  // namespace tenferro::detail
