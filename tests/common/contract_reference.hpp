// Independent references for the contraction tests: nested loops in long double.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "tenferro/tenferro.hpp"

namespace tenferro::testing {

using cld = std::complex<long double>;

/// Elements of t in row-major logical order, as complex long double.
inline std::vector<cld> values_ld(const Tensor& t) {
  std::vector<cld> out;
  visit_float_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    for (const T& v : t.to_vector<T>()) {
      if constexpr (is_complex_v<T>)
        out.emplace_back(v.real(), v.imag());
      else
        out.emplace_back(v, 0.0L);
    }
  });
  return out;
}

struct Reference {
  std::vector<std::int64_t> shape;
  std::vector<cld> values;
  std::vector<long double> magnitude;  // sum of (|re|+|im|) products, >= sum |a||b| (tolerances)
};

inline std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

/// dot_general by definition: out[batch, free_a, free_b] = sum_contract opa(a) * opb(b).
/// When out_real, keeps the real part (a complex -> real output dtype).
inline Reference reference_dot_general(const Tensor& a, const Tensor& b, const DotDims& d,
                                       bool conj_a = false, bool conj_b = false,
                                       bool out_real = false) {
  auto va = values_ld(a), vb = values_ld(b);
  std::vector<std::int64_t> sa(a.shape().begin(), a.shape().end()),
      sb(b.shape().begin(), b.shape().end());
  auto ta = row_major_strides(sa), tb = row_major_strides(sb);
  auto in_list = [](const Dims& l, std::int64_t x) {
    return std::find(l.begin(), l.end(), x) != l.end();
  };
  std::vector<std::int64_t> fa, fb;
  for (std::int64_t i = 0; i < a.rank(); ++i)
    if (!in_list(d.lhs_batch, i) && !in_list(d.lhs_contract, i)) fa.push_back(i);
  for (std::int64_t i = 0; i < b.rank(); ++i)
    if (!in_list(d.rhs_batch, i) && !in_list(d.rhs_contract, i)) fb.push_back(i);
  Reference r;
  for (auto x : d.lhs_batch) r.shape.push_back(sa[static_cast<std::size_t>(x)]);
  for (auto x : fa) r.shape.push_back(sa[static_cast<std::size_t>(x)]);
  for (auto x : fb) r.shape.push_back(sb[static_cast<std::size_t>(x)]);
  std::int64_t n_out = 1, n_k = 1;
  for (auto x : r.shape) n_out *= x;
  std::vector<std::int64_t> kshape;
  for (auto x : d.lhs_contract) kshape.push_back(sa[static_cast<std::size_t>(x)]);
  for (auto x : kshape) n_k *= x;
  const std::size_t nb = d.lhs_batch.size();
  for (std::int64_t o = 0; o < n_out; ++o) {
    // Unravel the output index.
    std::vector<std::int64_t> idx(r.shape.size());
    std::int64_t rem = o;
    for (std::size_t i = r.shape.size(); i-- > 0;) {
      idx[i] = rem % r.shape[i];
      rem /= r.shape[i];
    }
    std::int64_t base_a = 0, base_b = 0;
    for (std::size_t i = 0; i < nb; ++i) {
      base_a += idx[i] * ta[static_cast<std::size_t>(d.lhs_batch[i])];
      base_b += idx[i] * tb[static_cast<std::size_t>(d.rhs_batch[i])];
    }
    for (std::size_t i = 0; i < fa.size(); ++i)
      base_a += idx[nb + i] * ta[static_cast<std::size_t>(fa[i])];
    for (std::size_t i = 0; i < fb.size(); ++i)
      base_b += idx[nb + fa.size() + i] * tb[static_cast<std::size_t>(fb[i])];
    cld sum = 0;
    long double mag = 0;
    for (std::int64_t q = 0; q < n_k; ++q) {
      std::int64_t oa = base_a, ob = base_b, rq = q;
      for (std::size_t i = kshape.size(); i-- > 0;) {
        std::int64_t j = rq % kshape[i];
        rq /= kshape[i];
        oa += j * ta[static_cast<std::size_t>(d.lhs_contract[i])];
        ob += j * tb[static_cast<std::size_t>(d.rhs_contract[i])];
      }
      cld x = va[static_cast<std::size_t>(oa)], y = vb[static_cast<std::size_t>(ob)];
      if (conj_a) x = std::conj(x);
      if (conj_b) y = std::conj(y);
      // Written out: std::complex's operator* takes a slow NaN-recovery path.
      sum +=
          cld(x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real());
      mag +=
          (std::fabs(x.real()) + std::fabs(x.imag())) * (std::fabs(y.real()) + std::fabs(y.imag()));
    }
    if (out_real) sum = cld(sum.real(), 0);
    r.values.push_back(sum);
    r.magnitude.push_back(mag);
  }
  return r;
}

/// Relative precision for comparisons in dtype d (generous multiples of epsilon).
inline long double tolerance_for(DType d) { return is_double_precision(d) ? 1e-13L : 2e-5L; }

/// Checks shape and values: |got - ref| <= tol * (magnitude + 1e-30) elementwise.
inline void expect_matches(const Tensor& got, const Reference& ref, DType dtype, const char* what) {
  ASSERT_TRUE(got.defined()) << what;
  EXPECT_EQ(got.dtype(), dtype) << what;
  ASSERT_EQ(std::vector<std::int64_t>(got.shape().begin(), got.shape().end()), ref.shape) << what;
  auto v = values_ld(got);
  ASSERT_EQ(v.size(), ref.values.size()) << what;
  const long double tol = tolerance_for(dtype);
  for (std::size_t i = 0; i < v.size(); ++i) {
    long double err = std::abs(v[i] - ref.values[i]);
    ASSERT_LE(err, tol * (ref.magnitude[i] + 1e-30L))
        << what << ": element " << i << " got " << (double)v[i].real() << "+" << (double)v[i].imag()
        << "i, expected " << (double)ref.values[i].real() << "+" << (double)ref.values[i].imag()
        << "i";
  }
}

/// Values compare equal within tolerance (for budget 1 vs 4 and provider-vs-provider checks).
inline void expect_close(const Tensor& x, const Tensor& y, long double tol, const char* what) {
  ASSERT_EQ(x.shape(), y.shape()) << what;
  auto vx = values_ld(x), vy = values_ld(y);
  for (std::size_t i = 0; i < vx.size(); ++i)
    ASSERT_LE(std::abs(vx[i] - vy[i]), tol * (1 + std::abs(vy[i]))) << what << ": element " << i;
}

/// Every element, as raw bytes, for "untouched" checks.
inline std::vector<unsigned char> raw_bytes(const Tensor& t) {
  const auto* p = static_cast<const unsigned char*>(t.storage()->data);
  return {p, p + t.storage()->bytes};
}

}  // namespace tenferro::testing
