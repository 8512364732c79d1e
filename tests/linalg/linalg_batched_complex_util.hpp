// Shared helpers of the complex batched-kernel tests (linalg_batched_complex_test.cpp,
// linalg_batched_complex_decomp_test.cpp): tile arrangements, bitwise comparison, inputs.
#pragma once

#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/kernels/linalg_simd_batch.hpp"
#include "linalg/linalg_test_util.hpp"

namespace tenferro::linalg_test::batched_complex {

namespace sm = tenferro::detail::small;

template <class T>
const char* type_name() {
  return std::is_same_v<T, c64> ? "c64" : "c128";
}

template <class T>
bool same(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), sizeof(T) * x.size()) == 0;
}

// Lane orders for the cases: in order, full and partial tiles; reversed, every third lane empty.
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

template <class T>
struct Case {
  std::string name;
  std::vector<T> a;  // row-major
};

template <class T>
T crand(Rng& g) {
  const double re = g.uniform();
  return T(re, g.uniform());
}

template <class T>
std::vector<T> scaled(std::vector<T> a, double f) {
  for (T& x : a) x *= typename T::value_type(f);
  return a;
}

template <class T>
std::vector<T> transposed(const std::vector<T>& a, int m, int n) {
  std::vector<T> t(a.size());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) t[j * m + i] = a[i * n + j];
  return t;
}

}  // namespace tenferro::linalg_test::batched_complex
