// Numerics composed from catalog primitives (no kernels of their own, so eager, autodiff,
// tracing and prepared runs cover them through the primitives they bind): clamp, logsumexp,
// softmax, log_softmax, real, imag, complex.
#include <cmath>
#include <string>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {

namespace detail {
// i z and Im z read exactly (no complex product; Note [Exact complex parts] in polar.cpp).
Tensor times_i(const Tensor& z);
Tensor imag_part(const Tensor& z);
}  // namespace detail

namespace {
void require(const Tensor& x, const char* op) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
}
void require_real(const Tensor& x, const char* op) {
  require(x, op);
  if (is_complex(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": expected a real dtype, got " +
                                              dims_to_string(x.shape()) + " " +
                                              std::string(dtype_name(x.dtype())));
}
}  // namespace

Tensor clamp(const Tensor& x, Scalar lo, Scalar hi) {
  require_real(x, "clamp");
  if (lo.imag() != 0 || hi.imag() != 0 || !(lo.real() <= hi.real()))
    throw Error(ErrorKind::InvalidArgument,
                "clamp: expected real bounds with lo <= hi (not NaN), got lo " +
                    std::to_string(lo.real()) + ", hi " + std::to_string(hi.real()));
  // where(), not maximum/minimum: the gradient is 1 on [lo, hi] (bounds included) and 0
  // outside, as PyTorch; NaN stays NaN (both comparisons are false).
  // Fractional bounds on an integer tensor give f64, as a fractional Scalar does in arithmetic.
  const bool whole = lo.real() == std::trunc(lo.real()) && hi.real() == std::trunc(hi.real());
  const DType d = is_integral(x.dtype()) && !whole ? default_float : x.dtype();
  const Tensor xd = cast(x, d);
  const Tensor lo_t = scalar_tensor(lo, d), hi_t = scalar_tensor(hi, d);
  return where(lt(xd, lo), lo_t, where(gt(xd, hi), hi_t, xd));
}

// log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m the maximum (so exp never
// overflows), m replaced by 0 where it is not finite (all -inf, or +inf/NaN present: the plain
// formula then gives the right -inf/inf/NaN). m is a constant of the derivative (detach): the
// gradient is exactly softmax, at every order.
Tensor logsumexp(const Tensor& x, Dims axes, bool keepdims) {
  require_real(x, "logsumexp");
  const Tensor xf = is_integral(x.dtype()) ? cast(x, default_float) : x;
  const Tensor m = detach(max(xf, axes, true));
  const Tensor shift = where(eq(m - m, 0.0), m, scalar_tensor(0.0, xf.dtype()));
  const Tensor s = sum(exp(xf - shift), std::move(axes), keepdims);
  return log(s) + (keepdims ? shift : reshape(shift, s.shape()));
}

// (x - m) - log(sum(exp(x - m))), m the detached maximum as in logsumexp. Not x - logsumexp(x):
// that rounds m + log(s) to m's precision first, so for |x| large beside log(s) the log term
// is lost (f32 [3e4] * 1000 gave -6.908203 for -6.907755, [1e16, 1e16] gave log_softmax 0 and
// softmax [1, 1]). Subtracting m from x first is exact near the maximum. m is a constant of the
// derivative, so the gradient is the same (1 - softmax on the diagonal), at every order.
Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  require_real(x, "log_softmax");
  const Tensor xf = is_integral(x.dtype()) ? cast(x, default_float) : x;
  const Tensor m = detach(max(xf, {axis}, true));
  const Tensor shift = where(eq(m - m, 0.0), m, scalar_tensor(0.0, xf.dtype()));
  const Tensor z = xf - shift;
  return z - log(sum(exp(z), {axis}, true));
}

Tensor softmax(const Tensor& x, std::int64_t axis) { return exp(log_softmax(x, axis)); }

Tensor real(const Tensor& x) {
  require(x, "real");
  return is_complex(x.dtype()) ? cast(x, real_dtype(x.dtype())) : x;
}

Tensor imag(const Tensor& x) {
  require(x, "imag");
  if (!is_complex(x.dtype())) return zeros(x.shape(), x.dtype());
  return detail::imag_part(x);  // Note [Exact complex parts]
}

Tensor complex(const Tensor& re, const Tensor& im) {
  require_real(re, "complex");
  require_real(im, "complex");
  const DType c = complex_dtype(promote(float_dtype_of(re.dtype()), float_dtype_of(im.dtype())));
  return conj(cast(re, c)) + detail::times_i(cast(im, c));  // Note [Exact complex parts]
}

}  // namespace tenferro
