// An independent, naive einsum for tests: its own tiny parser and one loop nest over all labels,
// accumulated in std::complex<long double>. Supports letters, "..." (right-aligned, size-1
// broadcast, summed when absent from an explicit output) and implicit output (ASCII order).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tenferro/tensor.hpp"

namespace einsum_test {

using CLD = std::complex<long double>;

struct RefResult {
  std::vector<std::int64_t> shape;
  std::vector<CLD> value;
  /// sum over terms of |product| per output element: the scale for rounding tolerances.
  std::vector<long double> magnitude;
};

inline std::vector<CLD> values(const tenferro::Tensor& t) {
  std::vector<CLD> out;
  tenferro::visit_float_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    for (T v : t.to_vector<T>()) out.emplace_back(CLD(v));
  });
  return out;
}

inline RefResult reference_einsum(std::string spec, const std::vector<tenferro::Tensor>& ops) {
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  std::string lhs = spec, rhs;
  const auto arrow = spec.find("->");
  const bool explicit_out = arrow != std::string::npos;
  if (explicit_out) {
    lhs = spec.substr(0, arrow);
    rhs = spec.substr(arrow + 2);
  }
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back() += c;
  }
  auto strip = [](std::string t) {  // "..." -> '.'
    const auto p = t.find("...");
    if (p != std::string::npos) t.replace(p, 3, ".");
    return t;
  };
  std::size_t width = 0;
  std::vector<std::size_t> ell(ops.size(), 0);
  for (std::size_t k = 0; k < ops.size(); ++k) {
    terms[k] = strip(terms[k]);
    if (terms[k].find('.') != std::string::npos)
      ell[k] = static_cast<std::size_t>(ops[k].rank()) - (terms[k].size() - 1);
    width = std::max(width, ell[k]);
  }
  // Expand the ellipsis into labels '0'.. (right-aligned).
  std::vector<std::string> full(ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k)
    for (char c : terms[k]) {
      if (c != '.') {
        full[k] += c;
        continue;
      }
      for (std::size_t e = 0; e < ell[k]; ++e)
        full[k] += static_cast<char>('0' + width - ell[k] + e);
    }
  std::map<char, std::int64_t> size;
  std::map<char, int> count;
  for (std::size_t k = 0; k < ops.size(); ++k)
    for (std::size_t a = 0; a < full[k].size(); ++a) {
      const std::int64_t s = ops[k].shape()[a];
      auto [it, fresh] = size.emplace(full[k][a], s);
      if (!fresh && it->second == 1) it->second = s;
      ++count[full[k][a]];
    }
  std::string out;
  if (explicit_out) {
    rhs = strip(rhs);
    for (char c : rhs) {
      if (c != '.') {
        out += c;
        continue;
      }
      for (std::size_t e = 0; e < width; ++e) out += static_cast<char>('0' + e);
    }
  } else {
    for (std::size_t e = 0; e < width; ++e) out += static_cast<char>('0' + e);
    for (auto [c, n] : count)  // std::map: ASCII order
      if (n == 1 && c > '9') out += c;
  }
  std::vector<char> labels;
  for (auto& [c, s] : size) labels.push_back(c);
  std::vector<std::vector<CLD>> data;
  for (const auto& t : ops) data.push_back(values(t));
  RefResult r;
  for (char c : out) r.shape.push_back(size[c]);
  std::int64_t n_out = 1;
  for (auto s : r.shape) n_out *= s;
  r.value.assign(static_cast<std::size_t>(n_out), CLD(0));
  r.magnitude.assign(static_cast<std::size_t>(n_out), 0);
  std::map<char, std::int64_t> idx;
  for (char c : labels) idx[c] = 0;
  for (char c : labels)
    if (size[c] == 0) return r;
  for (;;) {
    CLD prod(1);
    for (std::size_t k = 0; k < ops.size(); ++k) {
      std::int64_t flat = 0;
      for (std::size_t a = 0; a < full[k].size(); ++a) {
        const std::int64_t dim = ops[k].shape()[a];
        flat = flat * dim + (dim == 1 ? 0 : idx[full[k][a]]);
      }
      prod *= data[k][static_cast<std::size_t>(flat)];
    }
    std::int64_t o = 0;
    for (std::size_t a = 0; a < out.size(); ++a) o = o * r.shape[a] + idx[out[a]];
    r.value[static_cast<std::size_t>(o)] += prod;
    r.magnitude[static_cast<std::size_t>(o)] += std::abs(prod);
    std::size_t d = labels.size();
    while (d > 0) {
      --d;
      if (++idx[labels[d]] < size[labels[d]]) break;
      idx[labels[d]] = 0;
      if (d == 0) return r;
    }
    if (labels.empty()) return r;
  }
}

/// Unit roundoff of a dtype's precision.
inline long double roundoff(tenferro::DType d) {
  return tenferro::is_double_precision(d) ? 1.2e-16L : 6e-8L;
}

/// einsum's result against the reference: same shape, the promoted dtype, and elementwise error
/// within 64 * roundoff * magnitude (+ a tiny absolute term).
inline ::testing::AssertionResult matches(const tenferro::Tensor& got, const RefResult& ref,
                                          tenferro::DType dtype) {
  if (std::vector<std::int64_t>(got.shape().begin(), got.shape().end()) != ref.shape)
    return ::testing::AssertionFailure() << "shape " << tenferro::dims_to_string(got.shape());
  if (got.dtype() != dtype)
    return ::testing::AssertionFailure() << "dtype " << tenferro::dtype_name(got.dtype());
  const std::vector<CLD> v = values(got);
  const long double u = roundoff(dtype);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const long double err = std::abs(v[i] - ref.value[i]);
    if (err > 64 * u * ref.magnitude[i] + 1e-30L)
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << static_cast<double>(v[i].real()) << "+"
             << static_cast<double>(v[i].imag()) << "i, expected "
             << static_cast<double>(ref.value[i].real()) << "+"
             << static_cast<double>(ref.value[i].imag()) << "i";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace einsum_test
