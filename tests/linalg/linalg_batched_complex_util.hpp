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
struct Case {
  std::string name;
  std::vector<T> a;  // row-major
};

template <class T>
T crand(Rng& g) {
  const double re = g.uniform();
  return T(re, g.uniform());
}

/// The first cases of the LU and QR inputs: four random m x n matrices, the zero matrix and a
/// rank-1 u v^T (u drawn before v), in that order of draws from g.
template <class T>
std::vector<Case<T>> random_zero_rank1_cases(int m, int n, Rng& g) {
  std::vector<Case<T>> cs;
  for (int i = 0; i < 4; ++i) {
    std::vector<T> a(m * n);
    for (T& x : a) x = crand<T>(g);
    cs.push_back({"random" + std::to_string(i), a});
  }
  cs.push_back({"zero", std::vector<T>(m * n, T(0))});
  std::vector<T> u(m), v(n), a(m * n);
  for (T& x : u) x = crand<T>(g);
  for (T& x : v) x = crand<T>(g);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) a[i * n + j] = u[i] * v[j];
  cs.push_back({"rank1", a});
  return cs;
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
