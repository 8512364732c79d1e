// Tensor construction. Factories allocate heap storage (not an engine pool): they run outside
// any backend operation.
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <type_traits>

#include "core/alloc.hpp"
#include "core/strided.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

namespace {
// Errors (shape, byte count, heap) name `op` (Note [Byte counts] in src/core/alloc.hpp).
template <class F>
Tensor fill_with(Dims shape, DType dtype, std::string_view op, F&& value_at) {
  Tensor t = detail::empty_for(std::move(shape), dtype, op);
  visit_dtype(dtype, [&](auto z) {
    using T = decltype(z);
    T* p = static_cast<T*>(t.data_ptr());
    for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = value_at(i, z);
  });
  return t;
}

// cast() semantics for integer dtypes (docs/dtypes.md, "Casts"): 2.7 -> 2, NaN -> 0, saturating.
template <class T>
T from_scalar(Scalar v) {
  if constexpr (is_complex_v<T>)
    return T(static_cast<real_t<T>>(v.real()), static_cast<real_t<T>>(v.imag()));
  else
    return detail::convert_element<T>(v.real());
}

// Counter-based generator: element i of a seed is a pure function of (seed, i), so values do not
// depend on the machine, the thread count or the order of generation.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
double uniform01(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(splitmix64(splitmix64(seed) ^ (i * 0xD1B54A32D192ED03ull)) >> 11) *
         0x1.0p-53;
}
// Note [Uniform values below one]: uniform01 is below 1 (at most 1 - 2^-53), but rounded to
// the nearest float a value within 2^-25 of 1 became 1.0f, so rand(f32) (and either part of
// c64) returned 1 about once in 3.4e7 elements (rand({1}, 14790804, f32) was [1]). A float takes
// the value rounded down instead: the largest float not above it, never 1, and [0, 1) on the
// float grid as uniformly as the doubles allow (other values are the f64 value rounded down,
// at most one float ulp from the nearest).
template <class R>
R uniform_below_one(double u) {
  if constexpr (std::is_same_v<R, float>) {
    float f = static_cast<float>(u);
    if (static_cast<double>(f) > u) f = std::nextafter(f, 0.0f);
    return f;
  } else {
    return static_cast<R>(u);
  }
}
double standard_normal(std::uint64_t seed, std::uint64_t i) {
  double u1 = 1.0 - uniform01(seed, 2 * i), u2 = uniform01(seed, 2 * i + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}
}  // namespace

namespace {
Tensor full_named(Dims shape, Scalar value, DType dtype, std::string_view op) {
  if (!is_complex(dtype) && value.imag() != 0.0)
    throw Error(ErrorKind::DTypeMismatch, std::string(op) +
                                              ": value has an imaginary part but dtype " +
                                              std::string(dtype_name(dtype)) + " is real");
  return fill_with(std::move(shape), dtype, op,
                   [&](std::int64_t, auto z) { return from_scalar<decltype(z)>(value); });
}
}  // namespace

Tensor full(Dims shape, Scalar value, DType dtype) {
  return full_named(std::move(shape), value, dtype, "full");
}
Tensor zeros(Dims shape, DType dtype) { return full_named(std::move(shape), 0.0, dtype, "zeros"); }
Tensor ones(Dims shape, DType dtype) { return full_named(std::move(shape), 1.0, dtype, "ones"); }
Tensor scalar_tensor(Scalar value, DType dtype) {
  return full_named(Dims{}, value, dtype, "scalar_tensor");
}

template <class T>
Tensor from_vector(const std::vector<T>& values, Dims shape) {
  detail::check_shape(shape, "from_vector");
  if (static_cast<std::int64_t>(values.size()) != dims_numel(shape))
    throw Error(ErrorKind::ShapeMismatch, "from_vector: " + std::to_string(values.size()) +
                                              " values cannot fill shape " + dims_to_string(shape) +
                                              " (" + std::to_string(dims_numel(shape)) +
                                              " elements)");
  Tensor t = detail::empty_for(std::move(shape), dtype_v<T>, "from_vector");
  std::copy(values.begin(), values.end(), static_cast<T*>(t.data_ptr()));
  return t;
}
template Tensor from_vector<bool>(const std::vector<bool>&, Dims);
template Tensor from_vector<std::int32_t>(const std::vector<std::int32_t>&, Dims);
template Tensor from_vector<std::int64_t>(const std::vector<std::int64_t>&, Dims);
template Tensor from_vector<std::int8_t>(const std::vector<std::int8_t>&, Dims);
template Tensor from_vector<std::int16_t>(const std::vector<std::int16_t>&, Dims);
template Tensor from_vector<std::uint8_t>(const std::vector<std::uint8_t>&, Dims);
template Tensor from_vector<std::uint16_t>(const std::vector<std::uint16_t>&, Dims);
template Tensor from_vector<std::uint32_t>(const std::vector<std::uint32_t>&, Dims);
template Tensor from_vector<std::uint64_t>(const std::vector<std::uint64_t>&, Dims);
template Tensor from_vector<float>(const std::vector<float>&, Dims);
template Tensor from_vector<double>(const std::vector<double>&, Dims);
template Tensor from_vector<c64>(const std::vector<c64>&, Dims);
template Tensor from_vector<c128>(const std::vector<c128>&, Dims);

Tensor from_values(std::initializer_list<double> values, Dims shape, DType dtype) {
  detail::check_shape(shape, "from_values");
  if (static_cast<std::int64_t>(values.size()) != dims_numel(shape))
    throw Error(ErrorKind::ShapeMismatch, "from_values: " + std::to_string(values.size()) +
                                              " values cannot fill shape " + dims_to_string(shape));
  const double* v = values.begin();
  return fill_with(std::move(shape), dtype, "from_values",
                   [&](std::int64_t i, auto z) { return from_scalar<decltype(z)>(v[i]); });
}

Tensor arange(double start, double stop, double step, DType dtype) {
  if (step == 0.0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop))
    throw Error(ErrorKind::InvalidArgument,
                "arange: expected finite start/stop and a non-zero step, got start " +
                    std::to_string(start) + ", stop " + std::to_string(stop) + ", step " +
                    std::to_string(step));
  // (stop - start) / step may be huge or infinite (it overflows double for extreme finite
  // bounds): the count is checked before it becomes an integer.
  const double count = std::ceil((stop - start) / step);
  constexpr double kMaxCount = 0x1p63;  // INT64_MAX + 1
  if (!(count < kMaxCount)) {
    char text[160];
    std::snprintf(text, sizeof text, "start %.17g, stop %.17g, step %.17g give %.6g elements",
                  start, stop, step, count);
    throw Error(ErrorKind::InvalidArgument,
                std::string("arange: ") + text + "; expected at most " +
                    std::to_string(std::numeric_limits<std::int64_t>::max()));
  }
  auto n = static_cast<std::int64_t>(count > 0 ? count : 0);
  return fill_with(Dims{n}, dtype, "arange", [&](std::int64_t i, auto z) {
    return from_scalar<decltype(z)>(start + static_cast<double>(i) * step);
  });
}
Tensor arange(std::int64_t n, DType dtype) {
  return arange(0.0, static_cast<double>(n), 1.0, dtype);
}

namespace {
void check_random_dtype(DType dtype, const char* op) {
  if (is_integral(dtype))
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": dtype " + std::string(dtype_name(dtype)) +
                    " is not a floating dtype; expected f32, f64, c64 or c128 (cast the result "
                    "for integers)");
}
}  // namespace

Tensor rand(Dims shape, std::uint64_t seed, DType dtype) {
  check_random_dtype(dtype, "rand");
  return fill_with(std::move(shape), dtype, "rand", [&](std::int64_t i, auto z) {
    using T = decltype(z);
    auto u = static_cast<std::uint64_t>(i);
    if constexpr (is_complex_v<T>) {
      using R = real_t<T>;
      return T(uniform_below_one<R>(uniform01(seed, 2 * u)),
               uniform_below_one<R>(uniform01(seed, 2 * u + 1)));
    } else if constexpr (std::is_floating_point_v<T>) {
      return uniform_below_one<T>(uniform01(seed, u));
    } else {
      return T{};  // not reached: check_random_dtype refuses bool and integers
    }
  });
}

Tensor randn(Dims shape, std::uint64_t seed, DType dtype) {
  check_random_dtype(dtype, "randn");
  bool cplx = is_complex(dtype);
  return fill_with(std::move(shape), dtype, "randn", [&](std::int64_t i, auto z) {
    auto u = static_cast<std::uint64_t>(i);
    if (cplx)
      return from_scalar<decltype(z)>({standard_normal(seed, 2 * u) * std::numbers::sqrt2 / 2,
                                       standard_normal(seed, 2 * u + 1) * std::numbers::sqrt2 / 2});
    return from_scalar<decltype(z)>(standard_normal(seed, u));
  });
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (!a.defined() || !b.defined())
    throw Error(ErrorKind::InvalidArgument, "allclose: both tensors must be defined");
  // A NaN tolerance would make every comparison false, i.e. everything "close".
  if (!(rtol >= 0) || !(atol >= 0))
    throw Error(ErrorKind::InvalidArgument, "allclose: rtol " + std::to_string(rtol) +
                                                " and atol " + std::to_string(atol) +
                                                "; expected non-negative tolerances (not NaN)");
  if (!(a.shape() == b.shape())) return false;
  // Broadcast views may have far more elements than bytes (Note [Byte counts]).
  const std::size_t bytes = detail::checked_bytes(a.numel(), DType::c128, "allclose");
  std::vector<c128> va, vb;
  detail::translate_heap_failure("allclose", [&] {
    va.resize(bytes / sizeof(c128));
    vb.resize(va.size());
  });
  detail::copy_to_contiguous(a, va.data(), DType::c128);
  detail::copy_to_contiguous(b, vb.data(), DType::c128);
  // NumPy's isclose: |a - b| <= atol + rtol |b| where both are finite, else exact equality, so an
  // infinity is close only to itself and NaN to nothing. The tolerance alone said inf is close to
  // -inf and 1 to inf (|1 - inf| = inf is not above atol + rtol * inf = inf).
  for (std::size_t i = 0; i < va.size(); ++i) {
    const c128 x = va[i], y = vb[i];
    const bool finite = std::isfinite(x.real()) && std::isfinite(x.imag()) &&
                        std::isfinite(y.real()) && std::isfinite(y.imag());
    if (finite ? !(std::abs(x - y) <= atol + rtol * std::abs(y)) : !(x == y)) return false;
  }
  return true;
}

}  // namespace tenferro
