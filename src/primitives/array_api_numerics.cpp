// The Array API's var, std and clip, composed from catalog primitives (mean, sub, sum_squares,
// sqrt, where, comparisons): eager, autodiff, tracing and prepared runs cover them through those.
#include <cmath>
#include <limits>
#include <string>

#include "primitives/elementwise_common.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {

namespace {

void require_defined(const Tensor& x, const char* op, const char* what) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": the " + what + " tensor is undefined");
}

// The number of elements var/std reduce over, after checking every axis (in [-rank, rank),
// no repeats) so that errors name the public op rather than mean.
double reduced_count(const Tensor& x, const Dims& axes, const char* op) {
  return static_cast<double>(detail::check_axes(x, axes, op));
}

// Note [var with correction]: var = sum_squares(x - mean) / (N - correction). The standard
// makes N - correction <= 0 NaN (NumPy divides by max(N - c, 0) and gets inf for non-constant
// data); multiplying by NaN keeps the composition (and its shape and dtype) while giving NaN
// everywhere. sum_squares of a complex difference is real, so var is real for complex input.
Tensor variance(const Tensor& x, Dims axes, double correction, bool keepdims, const char* op) {
  require_defined(x, op, "input");
  if (!std::isfinite(correction))
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": correction " +
                                                detail::round_trip(correction) +
                                                " is not finite; expected a finite number");
  const double n = reduced_count(x, axes, op);
  const Tensor xf = is_integral(x.dtype()) ? cast(x, default_float) : x;
  const Tensor centered = xf - mean(xf, axes, true);
  const Tensor ss = sum_squares(centered, std::move(axes), keepdims);
  const double dof = n - correction;
  return dof > 0 ? ss / dof : ss * std::numeric_limits<double>::quiet_NaN();
}

void require_clip_dtype(const Tensor& t, const char* what, const Tensor& x) {
  if (is_complex(t.dtype()) || t.dtype() == DType::boolean)
    throw Error(ErrorKind::DTypeMismatch,
                std::string("clip: ") + what + " is " + dims_to_string(t.shape()) + " " +
                    std::string(dtype_name(t.dtype())) + " (x " + dims_to_string(x.shape()) + " " +
                    std::string(dtype_name(x.dtype())) +
                    "); expected a real, non-bool dtype (an integer, f32, f64)");
}

// A bound broadcasts against x (the standard); checked here so that the error names clip and the
// bound, not the lt/gt inside.
void require_clip_broadcast(const Tensor& t, const char* what, const Tensor& x) {
  const Tensor pair[2] = {x, t};
  try {
    (void)detail::broadcast_shapes("clip", pair);
  } catch (const Error&) {
    throw Error(ErrorKind::ShapeMismatch,
                std::string("clip: ") + what + " " + dims_to_string(t.shape()) +
                    " does not broadcast against x " + dims_to_string(x.shape()) +
                    "; expected NumPy broadcasting");
  }
}

}  // namespace

Tensor var(const Tensor& x, Dims axes, double correction, bool keepdims) {
  return variance(x, std::move(axes), correction, keepdims, "var");
}

Tensor std(const Tensor& x, Dims axes, double correction, bool keepdims) {
  return sqrt(variance(x, std::move(axes), correction, keepdims, "std"));
}

namespace {

// A bound in x's dtype. For an integer x the bound is converted so that clipping by it gives the
// exact answer nearest to x's range, not with cast()'s wrapping or truncation: an integer bound
// of another dtype saturates to x's range (cast() wrapped it: clip(x_u8, min=i8 -1) was 255
// everywhere, clip(x_i8, max=u8 200) -56), compared exactly against x's limits (Note [Exact
// u64-with-signed comparisons]); a floating bound rounds inwards, ceil for min and floor for max,
// and then saturates (cast() truncated: clip(x_i32, min=2.5) gave 2, below its bound).
Tensor clip_bound(const Tensor& b, const Tensor& x, bool lower) {
  const DType d = x.dtype();
  if (!is_integer(d) || b.dtype() == d) return cast(b, d);
  if (is_floating(b.dtype())) return cast(lower ? ceil(b) : floor(b), d);  // cast saturates
  const int bits = static_cast<int>(dtype_size(d)) * 8;
  // The limits as doubles; the cast to d saturates the rounded ones (2^63, 2^64) to the limit.
  const Tensor lo_lim = scalar_tensor(is_unsigned(d) ? 0.0 : -std::ldexp(1.0, bits - 1), d);
  const Tensor hi_lim = scalar_tensor(std::ldexp(1.0, is_unsigned(d) ? bits : bits - 1), d);
  return where(gt(b, hi_lim), hi_lim, where(lt(b, lo_lim), lo_lim, cast(b, d)));
}

}  // namespace

// Note [clip]: where() rather than maximum/minimum, so that the gradient goes to x on the
// closed interval [min, max] (as clamp and PyTorch) instead of being split at ties; the isnan
// terms give the standard's NaN result for a NaN bound (x < NaN is false). The first where decides
// the lower bound, the second the upper one on its result, so min > max gives max as NumPy.
Tensor clip(const Tensor& x, const Tensor& min, const Tensor& max) {
  require_defined(x, "clip", "input");
  require_clip_dtype(x, "x", x);
  Tensor r = x;
  if (min.defined()) {
    require_clip_dtype(min, "min", x);
    require_clip_broadcast(min, "min", x);
    const Tensor lo = clip_bound(min, x, true);
    r = where(logical_or(lt(r, lo), isnan(lo)), lo, r);
  }
  if (max.defined()) {
    require_clip_dtype(max, "max", x);
    require_clip_broadcast(max, "max", x);
    const Tensor hi = clip_bound(max, x, false);
    r = where(logical_or(gt(r, hi), isnan(hi)), hi, r);
  }
  return min.defined() || max.defined() ? r : copy(x);
}

Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  require_defined(x, "clip", "input");
  require_clip_dtype(x, "x", x);
  for (const std::optional<Scalar>& s : {min, max})
    if (s && s->imag() != 0)
      throw Error(ErrorKind::DTypeMismatch,
                  "clip: bound " + detail::round_trip(s->real()) + " + " +
                      detail::round_trip(s->imag()) + "i is complex; expected real bounds (x " +
                      dims_to_string(x.shape()) + " " + std::string(dtype_name(x.dtype())) + ")");
  // An integer x cannot hold the NaN result of a NaN bound (cast() would turn it into 0).
  for (const std::optional<Scalar>& s : {min, max})
    if (s && std::isnan(s->real()) && is_integral(x.dtype()))
      throw Error(ErrorKind::InvalidArgument,
                  "clip: bound NaN for an integer x " + dims_to_string(x.shape()) + " " +
                      std::string(dtype_name(x.dtype())) +
                      "; expected a number (the NaN result has no integer value)");
  // A scalar bound becomes a 0-d tensor of x's dtype; for an integer x an f64 one, which
  // clip_bound rounds inwards and saturates (clip(x_i32, 2.5) is at least 3, not 2).
  const auto bound = [&](const std::optional<Scalar>& s) {
    return s ? scalar_tensor(*s, is_integer(x.dtype()) ? DType::f64 : x.dtype()) : Tensor();
  };
  return clip(x, bound(min), bound(max));
}

}  // namespace tenferro
