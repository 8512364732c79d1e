// Dense-tensor vector operations of the Krylov solvers (Note [Krylov vectors]).
#include "krylov/space.hpp"

#include <cstdio>
#include <string>

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

double default_tol(DType dtype, double tol) {
  if (tol >= 0) return tol;
  return dtype == DType::f32 || dtype == DType::c64 ? 1e-5 : 1e-12;
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

double vnorm(const Tensor& a) { return std::sqrt(std::abs(vinner(a, a).real())); }

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
