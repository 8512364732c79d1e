// The batched small cholesky / lu / solve kernels for complex dtypes
// (cpu/kernels/linalg_simd_solve_complex.cpp; Note [Batched small linalg kernels] and Note
// [Complex batched solve arithmetic]): one SIMD lane per c64 / c128 matrix, the tile held as re
// and im planes.
//
// Why: as for f32/f64 (linalg_batched_simd_test.cpp), a matrix's result must not depend on its
// batch position, its tile-mates, the chunking or the thread count, and the kernels promise
// bitwise the scalar kernels' result (small::cholesky / lu / lu_solve, which spell complex
// arithmetic out in real operations so that lanes can repeat it). So:
//   - kernel level, c64 and c128: cholesky (n up to 16; Hermitian positive definite, identity,
//     small shift, graded, huge / tiny scale, failing at the first / a middle / the last minor,
//     zero, NaN, Inf, a -0 pivot, garbage in the upper triangle and in the diagonal's imaginary
//     part; row-major and transposed strides), lu (m, n up to 16: random, zero, rank 1, ties of
//     |re| + |im|, purely imaginary and mixed pivots (both branches of Smith's division), a zero
//     column, huge / tiny, NaN, Inf; row-major and transposed strides) and solve (r = 1, 3, 21)
//     lanes equal the scalar loops bitwise (factors, pivots, info, x) in full tiles, partial
//     tiles and tiles with empty lanes; the scalar loops stay accurate (long double residuals);
//   - qr / eigh: linalg_batched_complex_decomp_test.cpp; the op level:
//     linalg_batched_complex_ops_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu/kernels/linalg_simd_batch.hpp"
#include "linalg/linalg_batched_complex_util.hpp"

namespace {

namespace sm = tenferro::detail::small;
using tenferro::c128;
using tenferro::c64;
using tenferro::linalg_test::arrangements;
using tenferro::linalg_test::Rng;
using tenferro::linalg_test::same;
using namespace tenferro::linalg_test::batched_complex;

// Hermitian inputs (full matrices; the kernels read the lower triangle, the upper triangle and the
// diagonal's imaginary part get garbage at the end): positive definite ones, and ones that fail.
template <class T>
std::vector<Case<T>> cholesky_cases(int n, Rng& g) {
  std::vector<Case<T>> cs;
  auto spd = [&](double shift) {  // b b^H + shift I
    std::vector<T> b(n * n);
    for (T& x : b) x = crand<T>(g);
    std::vector<T> a(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        c128 s = i == j ? shift : 0;
        for (int l = 0; l < n; ++l) s += c128(b[i * n + l]) * std::conj(c128(b[j * n + l]));
        a[i * n + j] = T(s);
        a[j * n + i] = std::conj(T(s));
      }
    return a;
  };
  const double eps = std::numeric_limits<typename T::value_type>::epsilon();
  for (int i = 0; i < 4; ++i) cs.push_back({"spd" + std::to_string(i), spd(n)});
  {
    std::vector<T> a(n * n, T(0));
    for (int i = 0; i < n; ++i) a[i * n + i] = T(1);
    cs.push_back({"identity", a});
  }
  cs.push_back({"small_shift", spd(10 * eps)});
  {  // D A D graded over 6 decades (c64: 3)
    std::vector<T> a = spd(n);
    const double decades = std::is_same_v<T, c64> ? 3 : 6;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        a[i * n + j] *=
            typename T::value_type(std::pow(10.0, -decades * (i + j) / std::max(1, 2 * (n - 1))));
    cs.push_back({"graded_dad", a});
  }
  cs.push_back({"huge", scaled(spd(n), std::is_same_v<T, c64> ? 1e30 : 1e150)});
  cs.push_back({"tiny", scaled(spd(n), std::is_same_v<T, c64> ? 1e-30 : 1e-150)});
  {
    std::vector<T> a = spd(n);
    a[0] = T(-1);
    cs.push_back({"indefinite_first", a});
    std::vector<T> b = spd(n);
    b[n / 2 * n + n / 2] = T(-1);
    cs.push_back({"negative_pivot_mid", b});
    std::vector<T> c = spd(n);
    for (int j = 0; j < n; ++j) c[(n - 1) * n + j] = c[j * n + n - 1] = T(0);
    cs.push_back({"zero_last_pivot", c});
    std::vector<T> d = spd(n);
    d[(n - 1) * n] = T(NAN, 1);
    cs.push_back({"nan_last_row", d});
    std::vector<T> e = spd(n);
    e[(n - 1) * n] = T(0, INFINITY);
    cs.push_back({"inf_last_row", e});
    std::vector<T> f = spd(n);
    f[0] = T(-0.0, 0.0);
    cs.push_back({"minus_zero", f});
  }
  cs.push_back({"zero", std::vector<T>(n * n, T(0))});
  for (Case<T>& c : cs)
    for (int i = 0; i < n; ++i) {
      c.a[i * n + i] = T(c.a[i * n + i].real(), 1e3 * g.uniform());  // ignored by cholesky
      for (int j = i + 1; j < n; ++j) c.a[i * n + j] = T(1e3) * crand<T>(g);
    }
  return cs;
}

template <class T>
void check_cholesky_kernel() {
  const int L = sm::batch_lanes<T>();
  Rng g{555 + sizeof(T)};
  int failing = 0;
  for (int n : {1, 2, 3, 4, 5, 8, 12, 16}) {
    const std::vector<Case<T>> cs = cholesky_cases<T>(n, g);
    const int nc = static_cast<int>(cs.size());
    std::vector<std::vector<T>> rl(nc);
    std::vector<int> rinfo(nc);
    for (int c = 0; c < nc; ++c) {
      rl[c] = cs[c].a;
      rinfo[c] = sm::cholesky<T>(n, rl[c].data());
      failing += rinfo[c] != 0;
    }
    for (bool trans : {false, true}) {  // transposed storage read through the strides
      std::vector<std::vector<T>> at(nc);
      for (int c = 0; c < nc; ++c) at[c] = transposed(cs[c].a, n, n);
      for (const std::vector<int>& tile : arrangements(nc, L)) {
        const int count = static_cast<int>(tile.size());
        std::vector<std::vector<T>> l(count, std::vector<T>(n * n, T(7)));
        const T* in[sm::kMaxBatchLanes] = {};
        T* lo[sm::kMaxBatchLanes] = {};
        int info[sm::kMaxBatchLanes];
        for (int j = 0; j < count; ++j) {
          info[j] = -1;
          in[j] = tile[j] < 0 ? nullptr : trans ? at[tile[j]].data() : cs[tile[j]].a.data();
          lo[j] = l[j].data();
        }
        sm::cholesky_batch<T>(n, count, in, trans ? 1 : n, trans ? n : 1, lo, info);
        for (int j = 0; j < count; ++j) {
          const int c = tile[j];
          if (c < 0) {
            EXPECT_EQ(info[j], -1) << "an empty lane is not written";
            continue;
          }
          const std::string where = std::string(type_name<T>()) + " n=" + std::to_string(n) + " " +
                                    cs[c].name + " lane " + std::to_string(j) +
                                    (trans ? " transposed" : "");
          EXPECT_EQ(info[j], rinfo[c]) << where;
          EXPECT_TRUE(same(l[j], rl[c])) << "l " << where;
        }
      }
    }
  }
  EXPECT_GT(failing, 40);
}

// LU inputs: singular ones (zero, rank 1, a zero column), pivot ties, pivots that take either
// branch of Smith's division (purely imaginary, |im| > |re|, |re| > |im|), extreme scales, NaN
// and Inf.
template <class T>
std::vector<Case<T>> lu_cases(int m, int n, Rng& g) {
  std::vector<Case<T>> cs = random_zero_rank1_cases<T>(m, n, g);
  auto random = [&] {
    std::vector<T> a(m * n);
    for (T& x : a) x = crand<T>(g);
    return a;
  };
  {
    std::vector<T> a(m * n), b(m * n, T(2, -2));
    for (T& x : a) x = T(g.uniform() < 0 ? -1 : 1, g.uniform() < 0 ? -1 : 1);
    cs.push_back({"ties", a});
    cs.push_back({"all_equal", b});
  }
  {
    std::vector<T> a = random(), b = random(), c = random();
    for (T& x : a) x = T(0, x.imag());
    for (T& x : b) x = T(0.25 * x.real(), x.imag());
    for (T& x : c) x = T(x.real(), 0.25 * x.imag());
    cs.push_back({"imaginary", a});
    cs.push_back({"mostly_imaginary", b});
    cs.push_back({"mostly_real", c});
  }
  {
    std::vector<T> a = random();
    const int c = std::min(m, n) / 2;
    for (int i = 0; i < m; ++i) a[i * n + c] = T(0);
    cs.push_back({"zero_column_mid", a});
  }
  cs.push_back({"huge", scaled(random(), std::is_same_v<T, c64> ? 1e30 : 1e150)});
  cs.push_back({"tiny", scaled(random(), std::is_same_v<T, c64> ? 1e-30 : 1e-150)});
  {
    std::vector<T> a = random(), b = random(), c = random();
    a[(m - 1) * n + (n - 1) / 2] = T(NAN, 0);
    b[(m / 2) * n] = T(INFINITY, 1);
    c[0] = T(1, -INFINITY);
    cs.push_back({"nan", a});
    cs.push_back({"inf", b});
    cs.push_back({"inf_first_pivot", c});
  }
  return cs;
}

template <class T>
void check_lu_kernel() {
  const int L = sm::batch_lanes<T>();
  Rng g{666 + sizeof(T)};
  int singular = 0;
  for (int m : {1, 2, 3, 4, 5, 8, 16})
    for (int n : {1, 2, 3, 4, 5, 8, 16}) {
      const int k = std::min(m, n);
      const std::vector<Case<T>> cs = lu_cases<T>(m, n, g);
      const int nc = static_cast<int>(cs.size());
      std::vector<std::vector<T>> rlu(nc), at(nc);
      std::vector<std::vector<int>> rpiv(nc, std::vector<int>(k));
      std::vector<int> rinfo(nc);
      for (int c = 0; c < nc; ++c) {
        rlu[c] = cs[c].a;
        rinfo[c] = sm::lu<T>(m, n, rlu[c].data(), rpiv[c].data());
        singular += rinfo[c] != 0;
        at[c] = transposed(cs[c].a, m, n);
      }
      for (bool trans : {false, true})
        for (const std::vector<int>& tile : arrangements(nc, L)) {
          const int count = static_cast<int>(tile.size());
          std::vector<std::vector<T>> lu(count, std::vector<T>(m * n));
          std::vector<std::vector<int>> piv(count, std::vector<int>(k));
          const T* in[sm::kMaxBatchLanes] = {};
          T* lo[sm::kMaxBatchLanes] = {};
          int* po[sm::kMaxBatchLanes] = {};
          int info[sm::kMaxBatchLanes] = {};
          for (int j = 0; j < count; ++j) {
            in[j] = tile[j] < 0 ? nullptr : trans ? at[tile[j]].data() : cs[tile[j]].a.data();
            lo[j] = lu[j].data();
            po[j] = piv[j].data();
          }
          sm::lu_batch<T>(m, n, count, in, trans ? 1 : n, trans ? m : 1, lo, po, info);
          for (int j = 0; j < count; ++j) {
            const int c = tile[j];
            if (c < 0) continue;
            const std::string where = std::string(type_name<T>()) + " " + std::to_string(m) + "x" +
                                      std::to_string(n) + " " + cs[c].name + " lane " +
                                      std::to_string(j) + (trans ? " transposed" : "");
            EXPECT_EQ(info[j], rinfo[c]) << where;
            EXPECT_EQ(piv[j], rpiv[c]) << where;
            EXPECT_TRUE(same(lu[j], rlu[c])) << "lu " << where;
          }
        }
      if (m != n) continue;
      // solve_batch: r = 1, 3 and 21 right-hand sides (21: two column blocks), b column-major.
      for (int r : {1, 3, 21}) {
        std::vector<std::vector<T>> b(nc, std::vector<T>(n * r)), rx(nc);
        for (int c = 0; c < nc; ++c) {
          for (T& x : b[c]) x = crand<T>(g);
          rx[c].resize(n * r);
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < r; ++j) rx[c][i * r + j] = b[c][i + j * n];
          if (rinfo[c] == 0) sm::lu_solve<T>(n, rlu[c].data(), rpiv[c].data(), rx[c].data(), r);
        }
        for (const std::vector<int>& tile : arrangements(nc, L)) {
          const int count = static_cast<int>(tile.size());
          std::vector<std::vector<T>> x(count, std::vector<T>(n * r));
          const T* in[sm::kMaxBatchLanes] = {};
          const T* bin[sm::kMaxBatchLanes] = {};
          T* xo[sm::kMaxBatchLanes] = {};
          int info[sm::kMaxBatchLanes] = {};
          for (int j = 0; j < count; ++j) {
            in[j] = tile[j] < 0 ? nullptr : cs[tile[j]].a.data();
            bin[j] = tile[j] < 0 ? nullptr : b[tile[j]].data();
            xo[j] = x[j].data();
          }
          sm::solve_batch<T>(n, r, count, in, n, 1, bin, 1, n, xo, info);
          for (int j = 0; j < count; ++j) {
            const int c = tile[j];
            if (c < 0) continue;
            const std::string where = std::string(type_name<T>()) + " n=" + std::to_string(n) +
                                      " r=" + std::to_string(r) + " " + cs[c].name + " lane " +
                                      std::to_string(j);
            EXPECT_EQ(info[j], rinfo[c]) << where;
            if (rinfo[c] == 0) {
              EXPECT_TRUE(same(x[j], rx[c])) << "x " << where;
            }
          }
        }
      }
    }
  EXPECT_GT(singular, 100);
}

TEST(LinalgBatchedComplex, CholeskyLanesEqualScalarKernelBitwise) {
  check_cholesky_kernel<c64>();
  check_cholesky_kernel<c128>();
}

TEST(LinalgBatchedComplex, LuAndSolveLanesEqualScalarKernelBitwise) {
  check_lu_kernel<c64>();
  check_lu_kernel<c128>();
}

TEST(LinalgBatchedComplex, ScalarLoopsStayAccurate) {
  // The scalar loops' own complex arithmetic (Note [Complex batched solve arithmetic]) against
  // long-double residuals: L L^H = A, P A = L U, A x = b, for c128 and c64 at n = 8.
  Rng g{777};
  for (int n : {3, 8, 16}) {
    std::vector<c128> b(n * n), a(n * n);
    for (c128& x : b) x = crand<c128>(g);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        c128 s = i == j ? n : 0;
        for (int l = 0; l < n; ++l) s += b[i * n + l] * std::conj(b[j * n + l]);
        a[i * n + j] = s;
      }
    std::vector<c128> l = a;
    ASSERT_EQ(sm::cholesky<c128>(n, l.data()), 0);
    double err = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        std::complex<long double> s = 0;
        for (int k = 0; k < n; ++k)
          s += std::complex<long double>(l[i * n + k]) *
               std::conj(std::complex<long double>(l[j * n + k]));
        err = std::max(err, double(std::abs(s - std::complex<long double>(a[i * n + j]))));
      }
    EXPECT_LT(err, 50.0 * n * n * 2.2e-16) << "cholesky n=" << n;
    std::vector<c128> lu = b, x(n), rhs(n);
    std::vector<int> piv(n);
    for (c128& v : rhs) v = crand<c128>(g);
    x = rhs;
    ASSERT_EQ(sm::lu<c128>(n, n, lu.data(), piv.data()), 0);
    sm::lu_solve<c128>(n, lu.data(), piv.data(), x.data(), 1);
    double res = 0;
    for (int i = 0; i < n; ++i) {
      std::complex<long double> s = 0;
      for (int k = 0; k < n; ++k)
        s += std::complex<long double>(b[i * n + k]) * std::complex<long double>(x[k]);
      res = std::max(res, double(std::abs(s - std::complex<long double>(rhs[i]))));
    }
    double xn = 0;
    for (c128 v : x) xn = std::max(xn, std::abs(v));
    EXPECT_LT(res, 1e3 * n * 2.2e-16 * std::max(1.0, xn)) << "solve n=" << n;
  }
}

}  // namespace
