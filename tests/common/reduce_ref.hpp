// Independent long-double references and input makers for the reduction / structural tests.
// Header-only; uses the public API only.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "tenferro/ops.hpp"

namespace tenferro::testing {

using cld = std::complex<long double>;

/// A tensor's values in extended precision, row-major, with its shape.
struct RefTensor {
  Dims shape;
  std::vector<cld> v;
};

inline std::int64_t ref_numel(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}
inline Dims unravel(std::int64_t i, std::span<const std::int64_t> shape) {
  Dims idx(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}
inline std::int64_t ravel(std::span<const std::int64_t> idx, std::span<const std::int64_t> shape) {
  std::int64_t i = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + idx[d];
  return i;
}

/// The values of any concrete tensor (any dtype, any strides).
inline RefTensor to_ref(const Tensor& t) {
  RefTensor r{t.shape(), {}};
  visit_float_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    for (T v : t.to_vector<T>()) {
      if constexpr (is_complex_v<T>) {
        r.v.emplace_back(v.real(), v.imag());
      } else {
        r.v.emplace_back(v, 0);
      }
    }
  });
  return r;
}

/// Builds a contiguous tensor of `dtype` from extended-precision values (real part for reals).
inline Tensor from_ref(const RefTensor& r, DType dtype) {
  return visit_float_dtype(dtype, [&](auto z) {
    using T = decltype(z);
    std::vector<T> vals;
    for (const cld& c : r.v) {
      if constexpr (is_complex_v<T>) {
        vals.emplace_back(static_cast<real_t<T>>(c.real()), static_cast<real_t<T>>(c.imag()));
      } else {
        vals.push_back(static_cast<T>(c.real()));
      }
    }
    return from_vector<T>(vals, r.shape);
  });
}

/// Where inputs are drawn from. normal: N(0, 1) real and imaginary parts; near_one: 1 + 0.25 *
/// N(0, 1) (keeps long products O(1)); both give distinct values almost surely (no ties), which
/// finite-difference checks of max/min need.
enum class Domain { normal, near_one };

inline RefTensor make_ref_values(Dims shape, bool complex, Domain d, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> nd(0.0, 1.0);
  RefTensor r{shape, {}};
  for (std::int64_t i = 0; i < ref_numel(shape); ++i) {
    double re = nd(gen), im = complex ? nd(gen) : 0.0;
    if (d == Domain::near_one) re = 1.0 + 0.25 * re, im *= 0.25;
    r.v.emplace_back(re, im);
  }
  return r;
}

/// A contiguous seeded input of `dtype` drawn from `d`.
inline Tensor make_input(Dims shape, DType dtype, Domain d, std::uint64_t seed) {
  return from_ref(make_ref_values(std::move(shape), is_complex(dtype), d, seed), dtype);
}

/// Machine epsilon of a dtype's precision.
inline long double eps_of(DType d) {
  return is_double_precision(d) ? std::ldexp(1.0L, -52) : std::ldexp(1.0L, -23);
}

/// Layouts every op is tested with: the same logical values, different strides.
enum class Layout { contiguous, permuted, sliced, broadcast };
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous:
      return "contiguous";
    case Layout::permuted:
      return "permuted";
    case Layout::sliced:
      return "sliced";
    case Layout::broadcast:
      break;
  }
  return "broadcast";
}

/// x's values in the requested layout. permuted: stored reversed-axes and permuted back; sliced:
/// every other element of a buffer twice as long in the last dim; broadcast: returns false when
/// the values are not a broadcast (callers build broadcast cases with make_broadcast_input).
inline Tensor with_layout(const Tensor& x, Layout l) {
  const std::int64_t r = x.rank();
  if (l == Layout::permuted && r >= 2) {
    Dims rev;
    for (std::int64_t d = r; d-- > 0;) rev.push_back(d);
    Tensor stored = copy(permute(x, rev));  // contiguous in reversed order
    return permute(stored, rev);
  }
  if (l == Layout::sliced && r >= 1 && x.numel() > 0) {
    RefTensor v = to_ref(x), big{x.shape(), {}};
    big.shape.back() *= 2;
    for (std::int64_t i = 0; i < ref_numel(big.shape); ++i) {
      Dims idx = unravel(i, big.shape);
      const bool keep = idx.back() % 2 == 0;
      idx.back() /= 2;
      big.v.push_back(keep ? v.v[static_cast<std::size_t>(ravel(idx, x.shape()))] : cld(-7, 3));
    }
    return slice(from_ref(big, x.dtype()), -1, 0, big.shape.back(), 2);
  }
  return x;
}

/// An input of `shape` whose first non-trivial axis is a stride-0 broadcast (a size-1 tensor
/// expanded), plus its values. Returns an undefined tensor when `shape` has no axis > 1.
inline Tensor make_broadcast_input(const Dims& shape, DType dtype, Domain d, std::uint64_t seed) {
  for (std::size_t a = 0; a < shape.size(); ++a)
    if (shape[a] > 1) {
      Dims small = shape;
      small[a] = 1;
      return broadcast_to(make_input(small, dtype, d, seed), shape);
    }
  return Tensor();
}

}  // namespace tenferro::testing
