// The Array API's creation functions (tenferro/ops/creation.hpp) and the error of finfo/iinfo
// (tenferro/finfo.hpp). They make concrete tensors from values computed here and run no kernel
// of the catalog: a created tensor is a constant to autodiff and tracing.
#include "tenferro/ops/creation.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "tenferro/finfo.hpp"
#include "tenferro/ops/elementwise.hpp"

namespace tenferro {

namespace detail {
void throw_info_dtype(const char* op, DType d, const char* expected) {
  throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": dtype " + std::string(dtype_name(d)) +
                                            " has no " + op + "; expected " + expected);
}
}  // namespace detail

namespace {
void require_like(const Tensor& x, const char* op) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
}
}  // namespace

// Note [linspace values]: element i is start + i * step in double (complex<double>) precision,
// NumPy's formula, with the last element set to exactly stop when it is included (so a
// rounding error of (num - 1) * step never moves the end point), then one cast to the dtype.
Tensor linspace(Scalar start, Scalar stop, std::int64_t num, bool endpoint,
                std::optional<DType> dtype) {
  if (num < 0)
    throw Error(ErrorKind::InvalidArgument,
                "linspace: num " + std::to_string(num) + " is negative; expected num >= 0");
  const bool complex_values = start.imag() != 0 || stop.imag() != 0;
  const DType d = dtype.value_or(complex_values ? DType::c128 : DType::f64);
  if (complex_values && !is_complex(d))
    throw Error(ErrorKind::DTypeMismatch, "linspace: start or stop is complex but dtype " +
                                              std::string(dtype_name(d)) +
                                              " is real; expected a complex dtype (c64, c128)");
  const std::int64_t div = endpoint ? num - 1 : num;
  const Scalar step = div > 0 ? (stop - start) / static_cast<double>(div) : Scalar(0);
  std::vector<c128> v;
  try {  // a num too large for memory is OutOfMemory naming linspace, not std::bad_alloc
    v.resize(static_cast<std::size_t>(num));
  } catch (const std::exception&) {
    throw Error(ErrorKind::OutOfMemory, "linspace: cannot allocate num = " + std::to_string(num) +
                                            " elements; expected a num that fits in memory");
  }
  for (std::int64_t i = 0; i < num; ++i)
    v[static_cast<std::size_t>(i)] = start + static_cast<double>(i) * step;
  if (endpoint && num > 1) v.back() = stop;
  if (complex_values) return cast(from_vector<c128>(v, {num}), d);
  // An integer dtype takes the floor of each value, as NumPy does (a plain cast truncates
  // toward zero: linspace(-1, 0, 3) would give [-1, 0, 0] instead of [-1, -1, 0]). bool keeps
  // the cast (nonzero is true), as NumPy, which floors only its integer dtypes.
  const bool floor_values = is_integral(d) && d != DType::boolean;
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    r[i] = floor_values ? std::floor(v[i].real()) : v[i].real();
  return cast(from_vector<double>(r, {num}), d);
}

Tensor eye(std::int64_t n_rows, std::optional<std::int64_t> n_cols, std::int64_t k, DType dtype) {
  const std::int64_t m = n_rows, n = n_cols.value_or(n_rows);
  if (m < 0 || n < 0)
    throw Error(ErrorKind::InvalidArgument, "eye: shape [" + std::to_string(m) + ", " +
                                                std::to_string(n) +
                                                "] has a negative size; expected sizes >= 0");
  Tensor out = zeros({m, n}, dtype);  // checks the element count first
  if (k >= n || k <= -m) return out;  // (also keeps n - k and -k below from overflowing)
  // Ones at (i, i + k) for the rows i whose column i + k exists.
  const std::int64_t first = std::max<std::int64_t>(0, -k), last = std::min(m, n - k);
  if (last <= first) return out;
  std::vector<double> v(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = first; i < last; ++i) v[static_cast<std::size_t>(i * n + i + k)] = 1.0;
  return cast(from_vector<double>(v, {m, n}), dtype);
}

Tensor zeros_like(const Tensor& x, std::optional<DType> dtype) {
  require_like(x, "zeros_like");
  return zeros(x.shape(), dtype.value_or(x.dtype()));
}

Tensor ones_like(const Tensor& x, std::optional<DType> dtype) {
  require_like(x, "ones_like");
  return ones(x.shape(), dtype.value_or(x.dtype()));
}

Tensor full_like(const Tensor& x, Scalar value, std::optional<DType> dtype) {
  require_like(x, "full_like");
  const DType d = dtype.value_or(x.dtype());
  if (value.imag() != 0 && !is_complex(d))
    throw Error(ErrorKind::DTypeMismatch, "full_like: value has an imaginary part but dtype " +
                                              std::string(dtype_name(d)) +
                                              " is real; expected a complex dtype");
  return full(x.shape(), value, d);
}

Tensor empty_like(const Tensor& x, std::optional<DType> dtype) {
  require_like(x, "empty_like");
  return Tensor::empty(x.shape(), dtype.value_or(x.dtype()));
}

}  // namespace tenferro
