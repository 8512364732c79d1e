// Shared helpers of the linear-algebra value tests: tolerances per dtype, error norms, inputs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tenferro/tenferro.hpp"

namespace tenferro::linalg_test {

/// splitmix64: the kernel-level tests' deterministic inputs (the same on every machine).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53 * 2 - 1; }  // [-1, 1)
};

/// Bit-for-bit equality of two element vectors (the batched kernels' contract).
template <class T>
bool same(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), sizeof(T) * x.size()) == 0;
}

/// Lane orders for the batched-kernel cases: in order, full and partial tiles; reversed, every
/// third lane empty (-1).
inline std::vector<std::vector<int>> arrangements(int cases, int lanes) {
  std::vector<std::vector<int>> tiles;
  for (int c0 = 0; c0 < cases; c0 += lanes) {
    std::vector<int> t;
    for (int c = c0; c < std::min(cases, c0 + lanes); ++c) t.push_back(c);
    tiles.push_back(t);
  }
  std::vector<int> rev;
  for (int c = cases; c-- > 0;) {
    if (rev.size() % 3 == 2) rev.push_back(-1);
    rev.push_back(c);
    if (static_cast<int>(rev.size()) >= lanes - 1) {
      tiles.push_back(rev);
      rev.clear();
    }
  }
  if (!rev.empty()) tiles.push_back(rev);
  return tiles;
}

inline std::vector<c128> values(const Tensor& t) {
  return cast(t, DType::c128).contiguous().to_vector<c128>();
}
inline double max_abs(const Tensor& t) {
  double m = 0;
  for (c128 v : values(t)) m = std::max(m, std::abs(v));
  return m;
}
/// Tolerance for an O(n)-conditioned result in `dt`, relative to the data's scale.
inline double tol(DType dt, std::int64_t n = 8) {
  const double eps = is_double_precision(dt) ? 2.2e-16 : 1.2e-7;
  return 50.0 * static_cast<double>(std::max<std::int64_t>(n, 1)) * eps;
}
/// Entry i of the leading (batch) dimension.
inline Tensor at(const Tensor& t, std::int64_t i) { return squeeze(slice(t, 0, i, i + 1), 0); }
inline Tensor mH(const Tensor& x) { return conj(transpose(x)); }
inline Tensor eye(std::int64_t n, DType dt) { return diag_embed(ones({n}, dt)); }
/// Random input in `dt` (complex: independent real and imaginary parts).
inline Tensor random(Dims shape, std::uint64_t seed, DType dt) { return randn(shape, seed, dt); }
/// The Hermitian matrix one triangle of h defines.
inline Tensor hermitian(const Tensor& h, bool lower = true) {
  const Tensor strict = lower ? tril(h, -1) : triu(h, 1);
  const Tensor d = cast(cast(diagonal(h), real_dtype(h.dtype())), h.dtype());
  return strict + mH(strict) + diag_embed(d);
}
/// x x^H + n I: Hermitian positive definite.
inline Tensor spd(const Tensor& x) {
  const std::int64_t n = x.shape().back();
  return matmul(x, mH(x)) + eye(n, x.dtype()) * static_cast<double>(n);
}
inline bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  if (a.numel() == 0) return true;
  const Tensor x = a.contiguous(), y = b.contiguous();
  return std::equal(static_cast<const char*>(x.data_ptr()),
                    static_cast<const char*>(x.data_ptr()) + x.numel() * dtype_size(x.dtype()),
                    static_cast<const char*>(y.data_ptr()));
}

inline const DType kAllDtypes[] = {DType::f32, DType::f64, DType::c64, DType::c128};

}  // namespace tenferro::linalg_test
