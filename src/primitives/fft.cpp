// Discrete Fourier transforms: one primitive, "fft" (named fft / ifft / rfft / irfft after its
// kind), a one-dimensional batched transform along one axis with its normalisation folded in as a
// scale; the public ops crop/pad and promote around it, and the n-dimensional forms, the
// frequencies and the shifts are compositions of ops.
//
// Note [FFT adjoints]: every transform is linear, so its JVP is the primitive on the tangent. For
// the VJP (conjugate-Wirtinger convention, docs/autodiff.md) the cotangent of a linear map A is
// A^H g. With s the scale and m = n/2+1:
//   - forward (c2c):  A = s F,   A^H = s F^H = the unnormalised backward transform with scale s;
//     backward is the mirror image.
//   - r2c: y = s (F x)[0..m) for real x. The gradient is Re(A^H g), i.e.
//       gx[j] = s Re sum_{k<m} g[k] e^{+2 pi i jk/n}.
//     c2r(c)[j] = Re c[0] + 2 sum_{0<k<n/2} Re(c[k] e^{..}) + (even n) Re c[n/2] (-1)^j counts each
//     mirrored frequency twice, so gx = s c2r(w g) with w[k] = 1/2 on mirrored frequencies
//     (0 < k < n/2) and 1 on k = 0 and (even n) k = n/2.
//   - c2r: y = s c2r(c). Differentiating the line above in Re c[k] and Im c[k]:
//       gc[k] = s (F g)[k] * (1/w[k]) (2 on mirrored frequencies, 1 on the others);
//     the imaginary parts of c[0] and c[n/2] do not reach y and their gradient, Im (F g) there,
//     is 0 for real g, as it must be.
// Both rules are the primitive again (r2c <-> c2r), so derivatives of every order follow.
#include "tenferro/ops/fft.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cpu/kernels/fft_fftw.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/scans.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

const char* kind_name(FftKind k) {
  switch (k) {
    case FftKind::forward:
      return "fft";
    case FftKind::backward:
      return "ifft";
    case FftKind::r2c:
      return "rfft";
    case FftKind::c2r:
      return "irfft";
  }
  return "fft";
}

class FftPrim final : public PrimitiveWith<FftPrim> {
 public:
  FftPrim(FftKind kind, I axis, I n, double scale)
      : kind_(kind), axis_(axis), n_(n), scale_(scale) {}
  std::string_view name() const override { return kind_name(kind_); }
  std::string params() const override {
    return "axis=" + std::to_string(axis_) + " n=" + std::to_string(n_) +
           " scale=" + round_trip(scale_);
  }
  auto key() const { return std::tie(kind_, axis_, n_, scale_); }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const char* op = kind_name(kind_);
    const DType dt = in[0].dtype();
    const I a = normalize_axis(axis_, in[0].rank(), op);
    const bool want_complex = kind_ != FftKind::r2c;
    if (is_complex(dt) != want_complex)
      throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": expected a " +
                                                (want_complex ? "complex" : "real floating") +
                                                " input, got " + describe(in));
    const I len = kind_ == FftKind::c2r ? n_ / 2 + 1 : n_;
    if (n_ < 1 || in[0].shape()[static_cast<std::size_t>(a)] != len)
      throw Error(ErrorKind::ShapeMismatch, std::string(op) + ": expected " + std::to_string(len) +
                                                " elements along axis " + std::to_string(axis_) +
                                                " (n = " + std::to_string(n_) + "), got " +
                                                describe(in));
    Dims shape = in[0].shape();
    DType odt = dt;
    if (kind_ == FftKind::r2c) {
      shape[static_cast<std::size_t>(a)] = n_ / 2 + 1;
      odt = complex_dtype(dt);
    } else if (kind_ == FftKind::c2r) {
      shape[static_cast<std::size_t>(a)] = n_;
      odt = real_dtype(dt);
    }
    out.push_back({odt, std::move(shape)});
  }

  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const I a = normalize_axis(axis_, in[0].rank(), kind_name(kind_));
    fft_kernel(ctx, kind_, in[0], out[0], a, n_, scale_, kind_name(kind_));
  }

  void jvp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    linear_jvp(*this, x, t, out_t);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined() || !needs[0]) return;
    const I a = normalize_axis(axis_, x[0].rank(), kind_name(kind_));
    switch (kind_) {  // Note [FFT adjoints]
      case FftKind::forward:
        in_ct[0] = bind1(FftPrim(FftKind::backward, axis_, n_, scale_), ct[0]);
        break;
      case FftKind::backward:
        in_ct[0] = bind1(FftPrim(FftKind::forward, axis_, n_, scale_), ct[0]);
        break;
      case FftKind::r2c:
        in_ct[0] = bind1(FftPrim(FftKind::c2r, axis_, n_, scale_),
                         ct[0] * weights(ct[0].dtype(), x[0].rank(), a, false));
        break;
      case FftKind::c2r: {
        const Tensor g = bind1(FftPrim(FftKind::r2c, axis_, n_, scale_), ct[0]);
        in_ct[0] = g * weights(g.dtype(), x[0].rank(), a, true);
        break;
      }
    }
  }

 private:
  // The Hermitian weights of Note [FFT adjoints], shaped to broadcast along axis a: 1 on k = 0
  // and (even n) k = n/2, else 1/2 (or 2 when `inverse`).
  Tensor weights(DType dt, I rank, I a, bool inverse) const {
    const I m = n_ / 2 + 1;
    std::vector<double> w(static_cast<std::size_t>(m), inverse ? 2.0 : 0.5);
    w[0] = 1.0;
    if (n_ % 2 == 0) w[static_cast<std::size_t>(m - 1)] = 1.0;
    Dims shape(static_cast<std::size_t>(rank), 1);
    shape[static_cast<std::size_t>(a)] = m;
    return cast(from_vector<double>(w, shape), dt);
  }

  FftKind kind_;
  I axis_;
  I n_;
  double scale_;
};

void check_input(const char* op, const Tensor& x) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
  if (is_integral(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": expected a floating or complex input, got " +
                    std::string(dtype_name(x.dtype())) + " " + dims_to_string(x.shape()));
  if (x.rank() == 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": expected an input with at least one axis, got a 0-d " +
                    std::string(dtype_name(x.dtype())) + " tensor");
}

void check_n(const char* op, I n, I m) {
  if (n < 1)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": n must be at least 1, got " + std::to_string(n) +
                    (m >= 0 ? " (the default 2 (m - 1) for m = " + std::to_string(m) + " inputs)"
                            : std::string()));
}

// x cropped or zero-padded to `len` elements along axis a.
Tensor resize_axis(const Tensor& x, I a, I len) {
  const I cur = x.shape()[static_cast<std::size_t>(a)];
  if (len == cur) return x;
  if (len < cur) return slice(x, a, 0, len);
  std::vector<std::pair<I, I>> w(static_cast<std::size_t>(x.rank()), {0, 0});
  w[static_cast<std::size_t>(a)] = {0, len - cur};
  return pad(x, w);
}

double scale_of(FftNorm norm, I n, bool inverse) {
  switch (norm) {
    case FftNorm::backward:
      return inverse ? 1.0 / static_cast<double>(n) : 1.0;
    case FftNorm::ortho:
      return 1.0 / std::sqrt(static_cast<double>(n));
    case FftNorm::forward:
      return inverse ? 1.0 : 1.0 / static_cast<double>(n);
  }
  return 1.0;
}

// hfft/ihfft are irfft/rfft with the direction of the scaling swapped (NumPy).
FftNorm swapped(FftNorm norm) {
  return norm == FftNorm::backward  ? FftNorm::forward
         : norm == FftNorm::forward ? FftNorm::backward
                                    : norm;
}

// `name`: the public op the errors name (default: the kind's own).
Tensor transform(FftKind kind, const Tensor& x0, std::optional<I> n_opt, I axis, FftNorm norm,
                 const char* name = nullptr) {
  const char* op = name ? name : kind_name(kind);
  check_input(op, x0);
  const I a = normalize_axis(axis, x0.rank(), op);
  const I len = x0.shape()[static_cast<std::size_t>(a)];
  Tensor x = x0;
  if (kind == FftKind::r2c) {
    if (is_complex(x.dtype()))
      throw Error(ErrorKind::DTypeMismatch,
                  std::string(op) + ": expected a real floating input, got " +
                      std::string(dtype_name(x.dtype())) + " " + dims_to_string(x.shape()));
  } else if (!is_complex(x.dtype())) {
    x = cast(x, complex_dtype(x.dtype()));
  }
  const I n = n_opt ? *n_opt : (kind == FftKind::c2r ? 2 * (len - 1) : len);
  check_n(op, n, kind == FftKind::c2r && !n_opt ? len : -1);
  x = resize_axis(x, a, kind == FftKind::c2r ? n / 2 + 1 : n);
  const bool inverse = kind == FftKind::backward || kind == FftKind::c2r;
  return bind1(FftPrim(kind, a, n, scale_of(norm, n, inverse)), x);
}

// Note [Real input to fft/ifft]: a real x has a Hermitian spectrum, X[n - k] = conj(X[k]), so
// fft(x) is rfft(x) (k < m = n/2 + 1) followed by the conjugates of X[n - m] ... X[1]. That does
// half the transform's work and skips the cast of x to complex that a c2c transform needs (fft of
// 2^20 real f64 points: 16.3 ms by c2c, against libtorch's 13.1, which does the same as this).
// ifft(x) is conj(fft(x)) with the inverse scale, i.e. the scale of `swapped(norm)` forward. Both
// are compositions of rfft, slice, flip, conj and concatenate: differentiable, traced, prepared.
Tensor real_full_spectrum(FftKind kind, const Tensor& x, std::optional<I> n_opt, I axis,
                          FftNorm norm) {
  const bool inverse = kind == FftKind::backward;
  const char* op = inverse ? "ifft" : "fft";
  const Tensor half = transform(FftKind::r2c, x, n_opt, axis, inverse ? swapped(norm) : norm, op);
  const I a = normalize_axis(axis, x.rank(), op);
  const I n = n_opt ? *n_opt : x.shape()[static_cast<std::size_t>(a)];
  const I m = n / 2 + 1;
  const Tensor mirrored = flip(slice(half, a, 1, n - m + 1), {a});  // X[n - m] ... X[1]
  return inverse ? concatenate({conj(half), mirrored}, a) : concatenate({half, conj(mirrored)}, a);
}

// NumPy's resolution of (s, axes) for the n-dimensional transforms.
std::pair<std::vector<I>, std::vector<I>> nd_args(const char* op, const Tensor& x,
                                                  const std::optional<std::vector<I>>& s,
                                                  const std::optional<std::vector<I>>& axes,
                                                  bool irfft_last) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
  const I rank = x.rank();
  std::vector<I> ax;
  if (axes) {
    for (I v : *axes) {
      const I a = normalize_axis(v, rank, op);
      for (I b : ax)
        if (a == b)
          throw Error(ErrorKind::InvalidArgument,
                      std::string(op) + ": duplicate axis " + std::to_string(v) +
                          " for an input of shape " + dims_to_string(x.shape()));
      ax.push_back(a);
    }
    if (s && s->size() != ax.size())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": s has " + std::to_string(s->size()) +
                      " entries but axes has " + std::to_string(ax.size()));
  } else {
    const I k = s ? static_cast<I>(s->size()) : rank;
    if (k > rank)
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": s has " + std::to_string(k) +
                                                  " entries, more than the input's " +
                                                  std::to_string(rank) + " axes (shape " +
                                                  dims_to_string(x.shape()) + ")");
    for (I a = rank - k; a < rank; ++a) ax.push_back(a);
  }
  if (ax.empty())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": needs at least one axis, got " +
                                                "none for shape " + dims_to_string(x.shape()));
  std::vector<I> sz;
  for (std::size_t i = 0; i < ax.size(); ++i) {
    if (s) {
      sz.push_back((*s)[i]);
    } else {
      const I len = x.shape()[static_cast<std::size_t>(ax[i])];
      sz.push_back(irfft_last && i + 1 == ax.size() ? 2 * (len - 1) : len);
    }
    check_n(op, sz.back(), -1);
  }
  return {sz, ax};
}

Tensor c2c_nd(const char* op, bool inverse, const Tensor& x, const std::optional<std::vector<I>>& s,
              const std::optional<std::vector<I>>& axes, FftNorm norm) {
  auto [sz, ax] = nd_args(op, x, s, axes, false);
  if (is_integral(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": expected a floating or complex input, got " +
                    std::string(dtype_name(x.dtype())) + " " + dims_to_string(x.shape()));
  Tensor y = is_complex(x.dtype()) ? x : cast(x, complex_dtype(x.dtype()));
  for (std::size_t i = ax.size(); i-- > 0;)
    y = transform(inverse ? FftKind::backward : FftKind::forward, y, sz[i], ax[i], norm);
  return y;
}

Tensor real_nd(const char* op, bool inverse, const Tensor& x,
               const std::optional<std::vector<I>>& s, const std::optional<std::vector<I>>& axes,
               FftNorm norm) {
  auto [sz, ax] = nd_args(op, x, s, axes, inverse);
  check_input(op, x);
  if (!inverse && is_complex(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": expected a real floating input, got " +
                    std::string(dtype_name(x.dtype())) + " " + dims_to_string(x.shape()));
  if (!inverse) {
    Tensor y = transform(FftKind::r2c, x, sz.back(), ax.back(), norm);
    for (std::size_t i = ax.size() - 1; i-- > 0;)
      y = transform(FftKind::forward, y, sz[i], ax[i], norm);
    return y;
  }
  Tensor y = x;
  for (std::size_t i = ax.size() - 1; i-- > 0;)
    y = transform(FftKind::backward, y, sz[i], ax[i], norm);
  return transform(FftKind::c2r, y, sz.back(), ax.back(), norm);
}

std::vector<I> shift_axes(const char* op, const Tensor& x,
                          const std::optional<std::vector<I>>& axes) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
  std::vector<I> ax;
  if (axes) {
    for (I v : *axes) ax.push_back(normalize_axis(v, x.rank(), op));
  } else {
    for (I a = 0; a < x.rank(); ++a) ax.push_back(a);
  }
  return ax;
}

std::string format_spacing(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

Tensor freq(const char* op, I n, double d, DType dtype, bool half) {
  if (n < 1)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": n must be at least 1, got " + std::to_string(n));
  if (dtype != DType::f32 && dtype != DType::f64)
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": dtype must be f32 or f64, got " +
                                                std::string(dtype_name(dtype)));
  const I count = half ? n / 2 + 1 : n;
  std::vector<double> v(static_cast<std::size_t>(count));
  const double scale = 1.0 / (d * static_cast<double>(n));
  // d = 0 gave Inf/NaN frequencies (NumPy: ZeroDivisionError), a NaN or infinite d NaN or zeros;
  // a d so small that 1 / (d n) overflows is the same failure.
  if (!std::isfinite(d) || d == 0 || !std::isfinite(scale))
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": d (the sample spacing) must be finite and nonzero, with " +
                    "1 / (d n) finite; got d " + format_spacing(d) + ", n " + std::to_string(n));
  for (I k = 0; k < count; ++k)
    v[static_cast<std::size_t>(k)] =
        static_cast<double>(half || k <= (n - 1) / 2 ? k : k - n) * scale;
  return cast(from_vector<double>(v, {count}), dtype);
}

}  // namespace
}  // namespace detail

using detail::FftKind;

Tensor fft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, FftNorm norm) {
  if (x.defined() && is_floating(x.dtype()) && !is_complex(x.dtype()))
    return detail::real_full_spectrum(FftKind::forward, x, n, axis, norm);
  return detail::transform(FftKind::forward, x, n, axis, norm);
}
Tensor ifft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, FftNorm norm) {
  if (x.defined() && is_floating(x.dtype()) && !is_complex(x.dtype()))
    return detail::real_full_spectrum(FftKind::backward, x, n, axis, norm);
  return detail::transform(FftKind::backward, x, n, axis, norm);
}
Tensor rfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, FftNorm norm) {
  return detail::transform(FftKind::r2c, x, n, axis, norm);
}
Tensor irfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, FftNorm norm) {
  return detail::transform(FftKind::c2r, x, n, axis, norm);
}

Tensor hfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, FftNorm norm) {
  detail::check_input("hfft", x);
  return detail::transform(FftKind::c2r, conj(x), n, axis, detail::swapped(norm), "hfft");
}
Tensor ihfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, FftNorm norm) {
  detail::check_input("ihfft", x);
  if (is_complex(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                std::string("ihfft: expected a real floating input, got ") +
                    std::string(dtype_name(x.dtype())) + " " + dims_to_string(x.shape()));
  return conj(detail::transform(FftKind::r2c, x, n, axis, detail::swapped(norm), "ihfft"));
}

Tensor fftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s,
            std::optional<std::vector<std::int64_t>> axes, FftNorm norm) {
  return detail::c2c_nd("fftn", false, x, s, axes, norm);
}
Tensor ifftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s,
             std::optional<std::vector<std::int64_t>> axes, FftNorm norm) {
  return detail::c2c_nd("ifftn", true, x, s, axes, norm);
}
Tensor rfftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s,
             std::optional<std::vector<std::int64_t>> axes, FftNorm norm) {
  return detail::real_nd("rfftn", false, x, s, axes, norm);
}
Tensor irfftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s,
              std::optional<std::vector<std::int64_t>> axes, FftNorm norm) {
  return detail::real_nd("irfftn", true, x, s, axes, norm);
}

Tensor fftfreq(std::int64_t n, double d, DType dtype) {
  return detail::freq("fftfreq", n, d, dtype, false);
}
Tensor rfftfreq(std::int64_t n, double d, DType dtype) {
  return detail::freq("rfftfreq", n, d, dtype, true);
}

Tensor fftshift(const Tensor& x, std::optional<std::vector<std::int64_t>> axes) {
  Tensor y = x;
  for (std::int64_t a : detail::shift_axes("fftshift", x, axes))
    y = roll(y, x.shape()[static_cast<std::size_t>(a)] / 2, a);
  return y;
}
Tensor ifftshift(const Tensor& x, std::optional<std::vector<std::int64_t>> axes) {
  Tensor y = x;
  for (std::int64_t a : detail::shift_axes("ifftshift", x, axes))
    y = roll(y, -(x.shape()[static_cast<std::size_t>(a)] / 2), a);
  return y;
}

}  // namespace tenferro
