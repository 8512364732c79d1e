// Dense-tensor vector operations of the Krylov solvers (Note [Krylov vectors]).
#include "krylov/space.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "krylov/small_dense.hpp"
#include "tenferro/ops.hpp"

namespace tenferro::detail::krylov {

Scalar scalar_value(const Tensor& t) {
  switch (t.dtype()) {
    case DType::f32:
      return t.item<float>();
    case DType::f64:
      return t.item<double>();
    case DType::c64:
      return Scalar(t.item<std::complex<float>>());
    case DType::c128:
      return t.item<std::complex<double>>();
    default:
      throw Error(ErrorKind::DTypeMismatch,
                  "krylov: expected a floating scalar, got " + std::string(dtype_name(t.dtype())));
  }
}

std::string format_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string format_list(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ", ") + format_g(x);
  return "[" + s + "]";
}

namespace {
// A negative finite value is the documented "default" sentinel; NaN and +-Inf are refused.
void require_finite_option(const char* op, const char* option, double v) {
  if (!std::isfinite(v))
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": " + option +
                                                " must be a finite number (negative: the " +
                                                "dtype's default), got " + format_g(v));
}
}  // namespace

double default_tol(const char* op, DType dtype, double tol) {
  require_finite_option(op, "tol", tol);
  if (tol >= 0) return tol;
  return dtype == DType::f32 || dtype == DType::c64 ? 1e-5 : 1e-12;
}

double resolve_degeneracy_eps(const char* op, DType rdt, double eps) {
  require_finite_option(op, "degeneracy_eps", eps);
  if (eps >= 0) return eps;
  return rdt == DType::f32 || rdt == DType::c64 ? kDegeneracyEpsSingle : kDegeneracyEpsDouble;
}

void require_floating(const char* op, const Tensor& x, const char* what) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": " + what + " is undefined");
  if (is_integral(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": " + what + " has dtype " +
                                              std::string(dtype_name(x.dtype())) +
                                              "; expected f32, f64, c64 or c128");
}

Scalar vinner(const Tensor& a, const Tensor& b) { return scalar_value(vdot(a, b)); }

// sqrt(<a, a>) leaves the range of the dtype once the squares do (entries beyond ~1e154 or below
// ~1e-154 in f64, 1e19 / 1e-19 in f32): a norm of inf made a linsolve with |b| ~ 1e160 return
// x = 0 as converged, and one of 0 or subnormal made eigsh / svds of a map scaled by 1e-170
// return wrong values as converged. Outside a safe band the vector is scaled by its largest
// entry first (as BLAS nrm2).
double vnorm(const Tensor& a) {
  const bool single = a.dtype() == DType::f32 || a.dtype() == DType::c64;
  const double lo = single ? 1e-30 : 1e-250, hi = single ? 1e30 : 1e250;
  const double ss = std::abs(vinner(a, a).real());
  if (ss > lo && ss < hi) return std::sqrt(ss);
  if (a.numel() == 0) return 0.0;
  const double m = scalar_value(cast(max(abs(a)), DType::f64)).real();
  if (m == 0 || !std::isfinite(m)) return m;  // 0, inf or NaN
  const Tensor u = vscale(a, 1.0 / m);
  return m * std::sqrt(std::abs(vinner(u, u).real()));
}

namespace {
Scalar for_dtype(const Tensor& x, Scalar alpha) {
  return is_complex(x.dtype()) ? alpha : Scalar(alpha.real());
}
}  // namespace

Tensor vaxpy(Scalar alpha, const Tensor& x, const Tensor& y) {
  return add(y, mul(x, for_dtype(x, alpha)));
}

Tensor vscale(const Tensor& x, Scalar alpha) { return mul(x, for_dtype(x, alpha)); }

Tensor vzeros_like(const Tensor& x) { return zeros(x.shape(), x.dtype()); }

Tensor random_like(const Tensor& x, std::uint64_t seed) {
  return randn(x.shape(), seed, x.dtype());
}

RowBasis::RowBasis(const Tensor& like, std::int64_t capacity)
    : matrix_(zeros({capacity, like.numel()}, like.dtype())), shape_(like.shape()) {
  rows_.reserve(static_cast<std::size_t>(capacity));
  for (std::int64_t j = 0; j < capacity; ++j)
    rows_.push_back(reshape(matrix_.slice(0, j, j + 1), shape_));
}

void RowBasis::push(const Tensor& v, Scalar scale) {
  Tensor& row = rows_.at(static_cast<std::size_t>(size_));
  mul_into(row, v, for_dtype(v, scale));
  ++size_;
}

void RowBasis::assign(const std::vector<Tensor>& vs) {
  size_ = 0;
  for (const Tensor& v : vs) push(v, 1.0);
}

double RowBasis::orthogonalize(Tensor& w, std::span<const Tensor> locked,
                               std::span<Scalar> coef) const {
  const std::int64_t n = matrix_.size(1);
  const bool complex = is_complex(matrix_.dtype());
  return dgks(w, [&](Tensor& x) {
    for (const Tensor& l : locked) x = vaxpy(-vinner(l, x), l, x);
    if (size_ == 0) return;
    const Tensor B = matrix_.slice(0, 0, size_);
    const Tensor xf = reshape(x, {n});
    // c = B^H x: for complex rows conj(B conj(x)), so the basis is never copied.
    const Tensor c = complex ? conj(matmul(B, conj(xf))) : matmul(B, xf);
    const std::vector<Scalar> cs = to_scalars(c);
    for (std::int64_t j = 0; j < size_; ++j) coef[static_cast<std::size_t>(j)] += cs[j];
    x = reshape(sub(xf, reshape(matmul(reshape(c, {1, size_}), B), {n})), shape_);
  });
}

Tensor RowBasis::combine(std::span<const Scalar> c) const {
  const auto k = static_cast<std::int64_t>(c.size());
  const Tensor cv = from_scalars(std::vector<Scalar>(c.begin(), c.end()), {1, k}, matrix_.dtype());
  return reshape(matmul(cv, matrix_.slice(0, 0, k)), shape_);
}

Tensor CountedMap::operator()(const Tensor& x) const {
  ++calls;
  Tensor y = (*f)(std::span<const Tensor>(&x, 1));
  if (!y.defined())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": " + what + " returned an undefined tensor");
  if (y.shape() != x.shape() || y.dtype() != x.dtype()) {
    Tensor pair[2] = {x, y};
    throw Error(y.shape() != x.shape() ? ErrorKind::ShapeMismatch : ErrorKind::DTypeMismatch,
                std::string(op) + ": " + what + "(x) must have x's shape and dtype (x, " + what +
                    "(x): " + dims_to_string(x.shape()) + " " + std::string(dtype_name(x.dtype())) +
                    ", " + dims_to_string(y.shape()) + " " + std::string(dtype_name(y.dtype())) +
                    ")");
  }
  return plain_value(op, y, what);
}

Tensor plain_value(const char* op, const Tensor& t, const char* what) {
  if (!t.has_storage())
    throw Error(ErrorKind::Unsupported, std::string(op) + ": " + what +
                                            " is symbolic; Krylov solvers cannot be traced "
                                            "(their map is an arbitrary function)");
  return t.aux() ? detach(t) : t;
}

}  // namespace tenferro::detail::krylov
