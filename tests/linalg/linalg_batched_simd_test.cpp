// The batched small svd / eigh / qr / cholesky / lu kernels (cpu/kernels/linalg_simd_batch.hpp,
// Note [Batched small linalg kernels]): one SIMD lane per matrix.
//
// Why: the batched kernels replace the scalar ones (linalg_small.hpp) for f32/f64 batches, and a
// matrix must get the same result whatever its batch position, its tile-mates, the chunking and the
// thread count. The kernels promise more: bitwise the scalar kernel's result. So:
//   - kernel level: for every m, n in {1, 2, 3, 4, 5, 8} (eigh: n x n), random and adversarial
//     inputs (zero, rank 1, rank k/2, repeated columns, identity, repeated values, orthogonal
//     times 3, huge 1e150 / tiny 1e-150 scale (f32 1e30 / 1e-30), tiny rank 1, graded columns;
//     eigh: Hermitian versions, both triangles with garbage in the other one; qr: m, n up to 16,
//     reduced and complete) are put in tiles in two different orders, with empty lanes and partial
//     tiles, and every lane's u, s, vh (w, v; q, r) and convergence flag must equal small::svd's
//     (small::eigh's, small::qr's) bitwise, vectors and values only. The scalar kernels' accuracy
//     against LAPACK on the same families of inputs is tests/linalg/linalg_small_kernels_test.cpp;
//     here the batched results are also checked directly (reconstruction, orthonormality, ordering;
//     long double residuals, tolerance 20 * max(m, n) * eps).
//   - cholesky (n up to 16: spd, identity, near singular, graded, D A D, huge / tiny scale, and
//     failing at the first / a middle / the last minor, zero, NaN, -0 pivot; row-major and
//     transposed strides) and lu (m, n up to 16: general_cases, ties, all equal, a zero column,
//     NaN, Inf) and solve (r = 1, 3, 21) lanes: factors, pivots, info and x bitwise small::cholesky
//     / lu / lu_solve's, with empty lanes and partial tiles.
//   - op level: svd / svdvals / eigh / qr / cholesky / solve / lu_factor / det / slogdet of a batch
//     of 37 matrices at thread budgets 1 and 4 (both backend kinds); the matrices at positions 0, 3
//     and 17 must equal, bitwise, the results of the same matrix computed alone (batch of one, and
//     unbatched) and inside a shifted batch.
//   - non-finite input names the lowest batch index whatever tile it is in; a NaN matrix in a qr
//     tile (qr reports no error) leaves its tile-mates' results unchanged; cholesky and solve
//     failures in different tiles name the lowest batch index, the minor's order / zero pivot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/expect_error.hpp"
#include "cpu/kernels/linalg_simd_batch.hpp"
#include "linalg/linalg_test_util.hpp"

namespace {

namespace sm = tenferro::detail::small;
using tenferro::testing::expect_error;

using tenferro::linalg_test::arrangements;
using tenferro::linalg_test::Rng;
using tenferro::linalg_test::same;

template <class T>
const char* type_name() {
  return std::is_same_v<T, float> ? "f32" : "f64";
}

template <class T>
constexpr T kHuge = std::is_same_v<T, float> ? T(1e30) : T(1e150);
template <class T>
constexpr T kTiny = std::is_same_v<T, float> ? T(1e-30) : T(1e-150);

template <class T>
struct Case {
  std::string name;
  std::vector<T> a;  // row-major
};

// p x p orthogonal Householder reflector I - 2 v v^T / v^T v, row-major.
template <class T>
std::vector<T> reflector(int p, Rng& g) {
  std::vector<double> v(p);
  double vv = 0;
  for (double& x : v) {
    x = g.uniform();
    vv += x * x;
  }
  std::vector<T> q(p * p);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) q[i * p + j] = T((i == j ? 1.0 : 0.0) - 2 * v[i] * v[j] / vv);
  return q;
}

template <class T>
std::vector<Case<T>> general_cases(int m, int n, Rng& g) {
  const int k = std::min(m, n);
  std::vector<Case<T>> cs;
  auto random = [&] {
    std::vector<T> a(m * n);
    for (T& x : a) x = T(g.uniform());
    return a;
  };
  auto lowrank = [&](int r) {
    std::vector<T> b(m * r), c(r * n), a(m * n, T(0));
    for (T& x : b) x = T(g.uniform());
    for (T& x : c) x = T(g.uniform());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        for (int l = 0; l < r; ++l) a[i * n + j] += b[i * r + l] * c[l * n + j];
    return a;
  };
  auto scaled = [](std::vector<T> a, T f) {
    for (T& x : a) x *= f;
    return a;
  };
  for (int i = 0; i < 4; ++i) cs.push_back({"random" + std::to_string(i), random()});
  cs.push_back({"zero", std::vector<T>(m * n, T(0))});
  cs.push_back({"rank1", lowrank(1)});
  if (k >= 2) cs.push_back({"rank_half", lowrank(k / 2)});
  {
    std::vector<T> a = random();
    for (int i = 0; i < m; ++i)
      for (int j = 1; j < n; j += 2) a[i * n + j] = a[i * n + j - 1];
    cs.push_back({"repeated_columns", a});
  }
  {
    std::vector<T> a(m * n, T(0)), b(m * n, T(0));
    for (int i = 0; i < k; ++i) {
      a[i * n + i] = T(1);
      b[i * n + i] = T(i < 2 ? 1 : i);
    }
    cs.push_back({"identity", a});
    cs.push_back({"diag_repeated", b});
  }
  {
    const int p = std::max(m, n);
    const std::vector<T> q = reflector<T>(p, g);
    std::vector<T> a(m * n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) a[i * n + j] = T(3) * q[i * p + j];
    cs.push_back({"orthogonal_times_3", a});
  }
  cs.push_back({"huge", scaled(random(), kHuge<T>)});
  cs.push_back({"tiny", scaled(random(), kTiny<T>)});
  cs.push_back({"tiny_rank1", scaled(lowrank(1), kTiny<T>)});
  {
    std::vector<T> a = random();
    const double decades = std::is_same_v<T, float> ? 3 : 8;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        a[i * n + j] *= T(std::pow(10.0, -decades * j / std::max(1, n - 1)));
    cs.push_back({"graded_columns", a});
  }
  return cs;
}

// Symmetric inputs (full matrices); the kernels read one triangle, the other gets garbage below.
template <class T>
std::vector<Case<T>> symmetric_cases(int n, Rng& g) {
  std::vector<Case<T>> cs;
  auto sym = [&](const std::vector<T>& d) {  // Q diag(d) Q^T
    const std::vector<T> q = reflector<T>(n, g);
    std::vector<T> a(n * n, T(0));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int l = 0; l < n; ++l) s += double(q[i * n + l]) * double(d[l]) * double(q[j * n + l]);
        a[i * n + j] = T(s);
      }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j) a[j * n + i] = a[i * n + j];
    return a;
  };
  auto random = [&] {
    std::vector<T> a(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) a[i * n + j] = a[j * n + i] = T(g.uniform());
    return a;
  };
  auto diag = [&](auto f) {
    std::vector<T> d(n);
    for (int i = 0; i < n; ++i) d[i] = T(f(i));
    return d;
  };
  auto scaled = [](std::vector<T> a, T f) {
    for (T& x : a) x *= f;
    return a;
  };
  for (int i = 0; i < 4; ++i) cs.push_back({"random" + std::to_string(i), random()});
  cs.push_back({"zero", std::vector<T>(n * n, T(0))});
  {
    std::vector<T> v(n), a(n * n);
    for (T& x : v) x = T(g.uniform());
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) a[i * n + j] = v[i] * v[j];
    cs.push_back({"rank1", a});
  }
  {
    std::vector<T> a(n * n, T(0));
    for (int i = 0; i < n; ++i) a[i * n + i] = T(1);
    cs.push_back({"identity", a});
    cs.push_back({"identity_times_3", scaled(a, T(3))});
  }
  cs.push_back({"repeated", sym(diag([](int i) { return i < 2 ? 1 : i; }))});
  cs.push_back({"pairs", sym(diag([](int i) { return i / 2; }))});
  cs.push_back({"indefinite_zeros", sym(diag([](int i) { return i % 3 - 1; }))});
  cs.push_back({"graded_pd", sym(diag([](int i) { return std::pow(10.0, -6.0 * i / 8); }))});
  cs.push_back({"huge", scaled(random(), kHuge<T>)});
  cs.push_back({"tiny", scaled(random(), kTiny<T>)});
  return cs;
}

template <class T>
long double recon_error_svd(int m, int n, const std::vector<T>& a, const std::vector<T>& u,
                            const std::vector<T>& s, const std::vector<T>& vh) {
  const int k = std::min(m, n);
  long double err = 0, nrm = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long double x = 0;
      for (int l = 0; l < k; ++l)
        x += (long double)u[i * k + l] * (long double)s[l] * (long double)vh[l * n + j];
      err += (x - a[i * n + j]) * (x - a[i * n + j]);
      nrm += (long double)a[i * n + j] * a[i * n + j];
    }
  return nrm == 0 ? std::sqrt(err) : std::sqrt(err / nrm);
}

// |X^T X - I|_max (cols orthonormal) of the row-major rows x cols x; transpose = rows.
template <class T>
long double orth_error(const std::vector<T>& x, int rows, int cols, bool transpose) {
  long double worst = 0;
  const int outer = transpose ? rows : cols, inner = transpose ? cols : rows;
  for (int p = 0; p < outer; ++p)
    for (int q = 0; q < outer; ++q) {
      long double s = 0;
      for (int i = 0; i < inner; ++i)
        s += transpose ? (long double)x[p * cols + i] * x[q * cols + i]
                       : (long double)x[i * cols + p] * x[i * cols + q];
      worst = std::max(worst, std::fabs(s - (p == q ? 1 : 0)));
    }
  return worst;
}

template <class T>
void check_svd_kernel() {
  const int L = sm::batch_lanes<T>();
  ASSERT_GE(L, 1);
  ASSERT_LE(L, sm::kMaxBatchLanes);
  const double eps = std::numeric_limits<T>::epsilon();
  Rng g{777 + sizeof(T)};
  int checked = 0;
  for (int m : {1, 2, 3, 4, 5, 8})
    for (int n : {1, 2, 3, 4, 5, 8}) {
      const int k = std::min(m, n);
      const std::vector<Case<T>> cs = general_cases<T>(m, n, g);
      const int nc = static_cast<int>(cs.size());
      // Scalar references.
      std::vector<std::vector<T>> ru(nc), rs(nc), rvh(nc), rs_only(nc);
      std::vector<bool> rok(nc);
      for (int c = 0; c < nc; ++c) {
        ru[c].resize(m * k);
        rs[c].resize(k);
        rvh[c].resize(k * n);
        rs_only[c].resize(k);
        rok[c] = sm::svd<T>(m, n, cs[c].a.data(), ru[c].data(), rs[c].data(), rvh[c].data());
        EXPECT_TRUE(sm::svd<T>(m, n, cs[c].a.data(), nullptr, rs_only[c].data(), nullptr) ==
                    rok[c]);
      }
      for (const std::vector<int>& tile : arrangements(nc, L)) {
        const int count = static_cast<int>(tile.size());
        std::vector<std::vector<T>> u(count, std::vector<T>(m * k)), s(count, std::vector<T>(k)),
            vh(count, std::vector<T>(k * n)), s2(count, std::vector<T>(k));
        const T* in[sm::kMaxBatchLanes] = {};
        T *uo[sm::kMaxBatchLanes] = {}, *so[sm::kMaxBatchLanes] = {}, *vo[sm::kMaxBatchLanes] = {},
          *so2[sm::kMaxBatchLanes] = {};
        bool ok[sm::kMaxBatchLanes] = {}, ok2[sm::kMaxBatchLanes] = {};
        for (int l = 0; l < count; ++l) {
          in[l] = tile[l] < 0 ? nullptr : cs[tile[l]].a.data();
          uo[l] = u[l].data();
          so[l] = s[l].data();
          vo[l] = vh[l].data();
          so2[l] = s2[l].data();
        }
        sm::svd_batch<T>(m, n, count, in, uo, so, vo, ok);
        sm::svd_batch<T>(m, n, count, in, nullptr, so2, nullptr, ok2);
        for (int l = 0; l < count; ++l) {
          const int c = tile[l];
          if (c < 0) continue;
          ++checked;
          const std::string where = std::string(type_name<T>()) + " " + std::to_string(m) + "x" +
                                    std::to_string(n) + " " + cs[c].name + " lane " +
                                    std::to_string(l);
          EXPECT_EQ(ok[l], rok[c]) << where;
          EXPECT_EQ(ok2[l], rok[c]) << where;
          EXPECT_TRUE(ok[l]) << where;
          EXPECT_TRUE(same(u[l], ru[c])) << "u " << where;
          EXPECT_TRUE(same(s[l], rs[c])) << "s " << where;
          EXPECT_TRUE(same(vh[l], rvh[c])) << "vh " << where;
          EXPECT_TRUE(same(s2[l], rs_only[c])) << "values-only s " << where;
          const double tol = 20.0 * std::max(m, n) * eps;
          EXPECT_LE(recon_error_svd(m, n, cs[c].a, u[l], s[l], vh[l]), tol) << where;
          EXPECT_LE(orth_error(u[l], m, k, false), tol) << "u orthonormal " << where;
          EXPECT_LE(orth_error(vh[l], k, n, true), tol) << "vh orthonormal " << where;
          for (int j = 0; j < k; ++j) {
            EXPECT_GE(s[l][j], T(0)) << where;
            if (j > 0) EXPECT_LE(s[l][j], s[l][j - 1]) << where;
          }
        }
      }
    }
  EXPECT_GT(checked, 1000);
}

template <class T>
void check_eigh_kernel() {
  const int L = sm::batch_lanes<T>();
  const double eps = std::numeric_limits<T>::epsilon();
  Rng g{999 + sizeof(T)};
  for (int n : {1, 2, 3, 4, 5, 8})
    for (bool lower : {true, false}) {
      const std::vector<Case<T>> full = symmetric_cases<T>(n, g);
      const int nc = static_cast<int>(full.size());
      // Garbage in the triangle the kernel must ignore.
      std::vector<Case<T>> cs = full;
      for (Case<T>& c : cs)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            if (lower ? j > i : j < i) c.a[i * n + j] = T(1e3 * g.uniform());
      std::vector<std::vector<T>> rw(nc), rv(nc), rw_only(nc);
      std::vector<bool> rok(nc);
      for (int c = 0; c < nc; ++c) {
        rw[c].resize(n);
        rv[c].resize(n * n);
        rw_only[c].resize(n);
        rok[c] = sm::eigh<T>(n, cs[c].a.data(), lower, rw[c].data(), rv[c].data());
        (void)sm::eigh<T>(n, cs[c].a.data(), lower, rw_only[c].data(), nullptr);
      }
      for (const std::vector<int>& tile : arrangements(nc, L)) {
        const int count = static_cast<int>(tile.size());
        std::vector<std::vector<T>> w(count, std::vector<T>(n)), v(count, std::vector<T>(n * n)),
            w2(count, std::vector<T>(n));
        const T* in[sm::kMaxBatchLanes] = {};
        T *wo[sm::kMaxBatchLanes] = {}, *vo[sm::kMaxBatchLanes] = {}, *wo2[sm::kMaxBatchLanes] = {};
        bool ok[sm::kMaxBatchLanes] = {}, ok2[sm::kMaxBatchLanes] = {};
        for (int l = 0; l < count; ++l) {
          in[l] = tile[l] < 0 ? nullptr : cs[tile[l]].a.data();
          wo[l] = w[l].data();
          vo[l] = v[l].data();
          wo2[l] = w2[l].data();
        }
        sm::eigh_batch<T>(n, count, in, lower, wo, vo, ok);
        sm::eigh_batch<T>(n, count, in, lower, wo2, nullptr, ok2);
        for (int l = 0; l < count; ++l) {
          const int c = tile[l];
          if (c < 0) continue;
          const std::string where = std::string(type_name<T>()) + " n=" + std::to_string(n) +
                                    (lower ? " lower " : " upper ") + cs[c].name + " lane " +
                                    std::to_string(l);
          EXPECT_TRUE(ok[l]) << where;
          EXPECT_EQ(ok[l], rok[c]) << where;
          EXPECT_EQ(ok2[l], rok[c]) << where;
          EXPECT_TRUE(same(w[l], rw[c])) << "w " << where;
          EXPECT_TRUE(same(v[l], rv[c])) << "v " << where;
          EXPECT_TRUE(same(w2[l], rw_only[c])) << "values-only w " << where;
          // a v = v diag(w), v orthonormal, w ascending.
          const std::vector<T>& a = full[c].a;
          long double err = 0, nrm = 0;
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
              long double x = 0;
              for (int l2 = 0; l2 < n; ++l2) x += (long double)a[i * n + l2] * v[l][l2 * n + j];
              x -= (long double)v[l][i * n + j] * w[l][j];
              err += x * x;
              nrm += (long double)a[i * n + j] * a[i * n + j];
            }
          const double tol = 20.0 * n * eps;
          EXPECT_LE(nrm == 0 ? std::sqrt(err) : std::sqrt(err / nrm), tol) << where;
          EXPECT_LE(orth_error(v[l], n, n, false), tol) << "v orthonormal " << where;
          for (int j = 1; j < n; ++j) EXPECT_LE(w[l][j - 1], w[l][j]) << where;
        }
      }
    }
}

template <class T>
void check_qr_kernel() {
  const int L = sm::batch_lanes<T>();
  const double eps = std::numeric_limits<T>::epsilon();
  Rng g{555 + sizeof(T)};
  for (int m : {1, 2, 3, 4, 5, 8, 16})
    for (int n : {1, 2, 3, 4, 5, 8, 16})
      for (bool complete : {false, true}) {
        const int k = std::min(m, n), nq = complete ? m : k, rr = nq;
        const std::vector<Case<T>> cs = general_cases<T>(m, n, g);
        const int nc = static_cast<int>(cs.size());
        std::vector<std::vector<T>> rq(nc, std::vector<T>(m * nq)), rrr(nc, std::vector<T>(rr * n));
        for (int c = 0; c < nc; ++c)
          sm::qr<T>(m, n, cs[c].a.data(), rq[c].data(), rrr[c].data(), complete);
        for (const std::vector<int>& tile : arrangements(nc, L)) {
          const int count = static_cast<int>(tile.size());
          std::vector<std::vector<T>> q(count, std::vector<T>(m * nq)),
              r(count, std::vector<T>(rr * n));
          const T* in[sm::kMaxBatchLanes] = {};
          T *qo[sm::kMaxBatchLanes] = {}, *ro[sm::kMaxBatchLanes] = {};
          for (int l = 0; l < count; ++l) {
            in[l] = tile[l] < 0 ? nullptr : cs[tile[l]].a.data();
            qo[l] = q[l].data();
            ro[l] = r[l].data();
          }
          sm::qr_batch<T>(m, n, count, in, qo, ro, complete);
          for (int l = 0; l < count; ++l) {
            const int c = tile[l];
            if (c < 0) continue;
            const std::string where = std::string(type_name<T>()) + " " + std::to_string(m) + "x" +
                                      std::to_string(n) + (complete ? " complete " : " reduced ") +
                                      cs[c].name + " lane " + std::to_string(l);
            EXPECT_TRUE(same(q[l], rq[c])) << "q " << where;
            EXPECT_TRUE(same(r[l], rrr[c])) << "r " << where;
            // a = q r, q orthonormal columns.
            long double err = 0, nrm = 0;
            for (int i = 0; i < m; ++i)
              for (int j = 0; j < n; ++j) {
                long double x = 0;
                for (int p = 0; p < nq; ++p) x += (long double)q[l][i * nq + p] * r[l][p * n + j];
                err += (x - cs[c].a[i * n + j]) * (x - cs[c].a[i * n + j]);
                nrm += (long double)cs[c].a[i * n + j] * cs[c].a[i * n + j];
              }
            const double tol = 20.0 * std::max(m, n) * eps;
            EXPECT_LE(nrm == 0 ? std::sqrt(err) : std::sqrt(err / nrm), tol) << where;
            EXPECT_LE(orth_error(q[l], m, nq, false), tol) << "q orthonormal " << where;
          }
        }
      }
}

// Cholesky inputs (full symmetric matrices; the kernels read the lower triangle, the upper gets
// garbage): positive definite ones, and ones that fail at different leading minors.
template <class T>
std::vector<Case<T>> cholesky_cases(int n, Rng& g) {
  std::vector<Case<T>> cs;
  auto sym = [&](auto f) {  // Q diag(f(i)) Q^T
    const std::vector<T> q = reflector<T>(n, g);
    std::vector<T> a(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        double s = 0;
        for (int l = 0; l < n; ++l) s += double(q[i * n + l]) * f(l) * double(q[j * n + l]);
        a[i * n + j] = a[j * n + i] = T(s);
      }
    return a;
  };
  auto spd = [&] {  // b b^T + n I
    std::vector<double> b(n * n);
    for (double& x : b) x = g.uniform();
    std::vector<T> a(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        double s = i == j ? n : 0;
        for (int l = 0; l < n; ++l) s += b[i * n + l] * b[j * n + l];
        a[i * n + j] = a[j * n + i] = T(s);
      }
    return a;
  };
  auto scaled = [](std::vector<T> a, T f) {
    for (T& x : a) x *= f;
    return a;
  };
  const double eps = std::numeric_limits<T>::epsilon();
  for (int i = 0; i < 4; ++i) cs.push_back({"spd" + std::to_string(i), spd()});
  {
    std::vector<T> a(n * n, T(0));
    for (int i = 0; i < n; ++i) a[i * n + i] = T(1);
    cs.push_back({"identity", a});
  }
  cs.push_back({"near_singular", sym([&](int i) { return i == n - 1 ? 10 * eps : 1.0 + i; })});
  cs.push_back({"graded", sym([&](int i) { return std::pow(10.0, -6.0 * i / 16); })});
  {  // D A D with D graded over 8 (f32: 3) decades: exact grading of an spd matrix
    std::vector<T> a = spd();
    const double decades = std::is_same_v<T, float> ? 3 : 8;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        a[i * n + j] *= T(std::pow(10.0, -decades * (i + j) / std::max(1, 2 * (n - 1))));
    cs.push_back({"graded_dad", a});
  }
  cs.push_back({"huge", scaled(spd(), kHuge<T>)});
  cs.push_back({"tiny", scaled(spd(), kTiny<T>)});
  // Failing: at the first minor, in the middle, at the last one; zero; NaN; -0 diagonal.
  cs.push_back({"indefinite_first", sym([&](int i) { return i == 0 ? -1.0 : 1.0; })});
  cs.push_back({"indefinite_mid", sym([&](int i) { return i == n / 2 ? -0.5 : 2.0; })});
  {
    std::vector<T> a = spd();
    a[n / 2 * n + n / 2] = T(-1);
    cs.push_back({"negative_pivot_mid", a});
    std::vector<T> b = spd();
    b[(n - 1) * n + n - 1] = T(0);
    for (int j = 0; j < n - 1; ++j) b[(n - 1) * n + j] = b[j * n + n - 1] = T(0);
    cs.push_back({"zero_last_pivot", b});
    std::vector<T> c = spd();
    c[(n - 1) * n] = T(NAN);
    cs.push_back({"nan_last_row", c});
  }
  cs.push_back({"zero", std::vector<T>(n * n, T(0))});
  {
    std::vector<T> a = spd();
    a[0] = T(-0.0);
    cs.push_back({"minus_zero", a});
  }
  for (Case<T>& c : cs)
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) c.a[i * n + j] = T(1e3 * g.uniform());
  return cs;
}

template <class T>
void check_cholesky_kernel() {
  const int L = sm::batch_lanes<T>();
  Rng g{333 + sizeof(T)};
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
    // Row-major, and transposed storage read through the strides (the upper triangle of a^T).
    for (bool transposed : {false, true}) {
      std::vector<std::vector<T>> at(nc, std::vector<T>(n * n));
      for (int c = 0; c < nc; ++c)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) at[c][j * n + i] = cs[c].a[i * n + j];
      for (const std::vector<int>& tile : arrangements(nc, L)) {
        const int count = static_cast<int>(tile.size());
        std::vector<std::vector<T>> l(count, std::vector<T>(n * n, T(7)));
        const T* in[sm::kMaxBatchLanes] = {};
        T* lo[sm::kMaxBatchLanes] = {};
        int info[sm::kMaxBatchLanes];
        for (int j = 0; j < count; ++j) {
          info[j] = -1;
          in[j] = tile[j] < 0 ? nullptr : transposed ? at[tile[j]].data() : cs[tile[j]].a.data();
          lo[j] = l[j].data();
        }
        sm::cholesky_batch<T>(n, count, in, transposed ? 1 : n, transposed ? n : 1, lo, info);
        for (int j = 0; j < count; ++j) {
          const int c = tile[j];
          if (c < 0) {
            EXPECT_EQ(info[j], -1) << "an empty lane is not written";
            continue;
          }
          const std::string where = std::string(type_name<T>()) + " n=" + std::to_string(n) + " " +
                                    cs[c].name + " lane " + std::to_string(j) +
                                    (transposed ? " transposed" : "");
          EXPECT_EQ(info[j], rinfo[c]) << where;
          EXPECT_TRUE(same(l[j], rl[c])) << "l " << where;
        }
      }
    }
  }
  EXPECT_GT(failing, 40);
}

// LU inputs: general_cases (zero, rank 1, rank k/2 and repeated columns are singular) plus ties
// in the pivot search, an exactly zero pivot in the middle, and NaN / Inf entries.
template <class T>
std::vector<Case<T>> lu_cases(int m, int n, Rng& g) {
  std::vector<Case<T>> cs = general_cases<T>(m, n, g);
  auto random = [&] {
    std::vector<T> a(m * n);
    for (T& x : a) x = T(g.uniform());
    return a;
  };
  {
    std::vector<T> a(m * n);
    for (T& x : a) x = T(g.uniform() < 0 ? -1 : 1);
    cs.push_back({"ties", a});
    std::vector<T> b(m * n, T(2));
    cs.push_back({"all_equal", b});
  }
  {
    std::vector<T> a = random();
    const int c = std::min(m, n) / 2;
    for (int i = 0; i < m; ++i) a[i * n + c] = T(0);
    cs.push_back({"zero_column_mid", a});
  }
  {
    std::vector<T> a = random(), b = random();
    a[(m - 1) * n + (n - 1) / 2] = T(NAN);
    b[(m / 2) * n] = T(INFINITY);
    cs.push_back({"nan", a});
    cs.push_back({"inf", b});
  }
  return cs;
}

template <class T>
void check_lu_kernel() {
  const int L = sm::batch_lanes<T>();
  Rng g{444 + sizeof(T)};
  int singular = 0;
  for (int m : {1, 2, 3, 4, 5, 8, 16})
    for (int n : {1, 2, 3, 4, 5, 8, 16}) {
      const int k = std::min(m, n);
      const std::vector<Case<T>> cs = lu_cases<T>(m, n, g);
      const int nc = static_cast<int>(cs.size());
      std::vector<std::vector<T>> rlu(nc);
      std::vector<std::vector<int>> rpiv(nc, std::vector<int>(k));
      std::vector<int> rinfo(nc);
      for (int c = 0; c < nc; ++c) {
        rlu[c] = cs[c].a;
        rinfo[c] = sm::lu<T>(m, n, rlu[c].data(), rpiv[c].data());
        singular += rinfo[c] != 0;
      }
      for (const std::vector<int>& tile : arrangements(nc, L)) {
        const int count = static_cast<int>(tile.size());
        std::vector<std::vector<T>> lu(count, std::vector<T>(m * n));
        std::vector<std::vector<int>> piv(count, std::vector<int>(k));
        const T* in[sm::kMaxBatchLanes] = {};
        T* lo[sm::kMaxBatchLanes] = {};
        int* po[sm::kMaxBatchLanes] = {};
        int info[sm::kMaxBatchLanes] = {};
        for (int j = 0; j < count; ++j) {
          in[j] = tile[j] < 0 ? nullptr : cs[tile[j]].a.data();
          lo[j] = lu[j].data();
          po[j] = piv[j].data();
        }
        sm::lu_batch<T>(m, n, count, in, n, 1, lo, po, info);
        for (int j = 0; j < count; ++j) {
          const int c = tile[j];
          if (c < 0) continue;
          const std::string where = std::string(type_name<T>()) + " " + std::to_string(m) + "x" +
                                    std::to_string(n) + " " + cs[c].name + " lane " +
                                    std::to_string(j);
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
          for (T& x : b[c]) x = T(g.uniform());
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
            if (rinfo[c] == 0) EXPECT_TRUE(same(x[j], rx[c])) << "x " << where;
          }
        }
      }
    }
  EXPECT_GT(singular, 100);
}

TEST(LinalgBatchedSimd, CholeskyLanesEqualScalarKernelBitwise) {
  check_cholesky_kernel<float>();
  check_cholesky_kernel<double>();
}

TEST(LinalgBatchedSimd, LuAndSolveLanesEqualScalarKernelBitwise) {
  check_lu_kernel<float>();
  check_lu_kernel<double>();
}

TEST(LinalgBatchedSimd, QrLanesEqualScalarKernelBitwise) {
  check_qr_kernel<float>();
  check_qr_kernel<double>();
}

TEST(LinalgBatchedSimd, SvdLanesEqualScalarKernelBitwise) {
  check_svd_kernel<float>();
  check_svd_kernel<double>();
}

TEST(LinalgBatchedSimd, EighLanesEqualScalarKernelBitwise) {
  check_eigh_kernel<float>();
  check_eigh_kernel<double>();
}

// ---- op level -----------------------------------------------------------------------------------

using namespace tenferro;
using namespace tenferro::linalg_test;

// [n] with 1 at k, 0 elsewhere; [n] with 0 at k, 1 elsewhere.
Tensor one_hot_like(std::int64_t n, std::int64_t k, DType dt) {
  return slice(eye(n, dt), 0, k, k + 1).reshape({n});
}
Tensor ones_except(std::int64_t n, std::int64_t k, DType dt) {
  return ones({n}, dt) - one_hot_like(n, k, dt);
}

std::vector<Tensor> decompose(const Tensor& a, const Tensor& h) {
  const SvdResult s = svd(a);
  const EighResult e = eigh(h);
  const QrResult q = qr(a);
  return {s.U, s.S, s.Vh, svdvals(a), e.eigenvalues, e.eigenvectors, eigvalsh(h), q.Q, q.R};
}

// The Cholesky / LU ops: p positive definite, h square (generic, so nonsingular), a any shape.
std::vector<Tensor> factor_solve(const Tensor& a, const Tensor& h, const Tensor& p,
                                 const Tensor& rhs) {
  const LuFactorResult fa = lu_factor(a), fh = lu_factor(h);
  const SlogdetResult sd = slogdet(h);
  return {cholesky(p), solve(h, rhs), fa.LU,   fa.pivots,   fh.LU,
          fh.pivots,   det(h),        sd.sign, sd.logabsdet};
}

TEST(LinalgBatchedSimd, MatrixResultIndependentOfBatchPositionAndThreads) {
  const std::int64_t kBatch = 37;
  for (DType dt : {DType::f32, DType::f64})
    for (auto [m, n] :
         {std::pair<std::int64_t, std::int64_t>{4, 4}, {8, 8}, {2, 2}, {3, 5}, {16, 16}, {12, 6}}) {
      const Tensor a = random({kBatch + 1, m, n}, 11, dt);
      const Tensor h = hermitian(random({kBatch + 1, n, n}, 12, dt));
      // Computed once (a batched matmul need not round as a single one), then sliced.
      const Tensor p = spd(random({kBatch + 1, n, n}, 13, dt)).contiguous();
      const Tensor rhs = random({kBatch + 1, n, 3}, 14, dt);
      auto all = [&](const Tensor& a_, const Tensor& h_, const Tensor& p_, const Tensor& rhs_) {
        std::vector<Tensor> r = decompose(a_, h_);
        for (Tensor& t : factor_solve(a_, h_, p_, rhs_)) r.push_back(t);
        return r;
      };
      auto part = [](const Tensor& t, std::int64_t b0, std::int64_t b1) {
        return slice(t, 0, b0, b1);
      };
      // The same matrices one position later (tiles hold other neighbours).
      std::vector<Tensor> ref;  // 1 thread, native
      for (BackendKind kind : {BackendKind::native, BackendKind::blas})
        for (int threads : {1, 4}) {
          const CpuBackend backend(CpuBackendOptions{.threads = threads, .kind = kind});
          BackendGuard use(backend);
          const std::vector<Tensor> whole =
              all(part(a, 0, kBatch), part(h, 0, kBatch), part(p, 0, kBatch), part(rhs, 0, kBatch));
          const std::vector<Tensor> shifted = all(part(a, 1, kBatch + 1), part(h, 1, kBatch + 1),
                                                  part(p, 1, kBatch + 1), part(rhs, 1, kBatch + 1));
          if (ref.empty()) ref = whole;
          for (std::size_t i = 0; i < whole.size(); ++i)
            EXPECT_TRUE(bitwise_equal(whole[i], ref[i]))
                << "output " << i << " at " << threads << " threads";
          for (std::int64_t pos : {0, 3, 17}) {
            const std::string where = std::string(dtype_name(dt)) + " " + std::to_string(m) + "x" +
                                      std::to_string(n) + " position " + std::to_string(pos) +
                                      " threads " + std::to_string(threads);
            const std::vector<Tensor> alone = all(part(a, pos, pos + 1), part(h, pos, pos + 1),
                                                  part(p, pos, pos + 1), part(rhs, pos, pos + 1));
            const std::vector<Tensor> unbatched =
                all(at(a, pos), at(h, pos), at(p, pos), at(rhs, pos));
            for (std::size_t i = 0; i < whole.size(); ++i) {
              EXPECT_TRUE(bitwise_equal(at(whole[i], pos), at(alone[i], 0)))
                  << "output " << i << " alone, " << where;
              EXPECT_TRUE(bitwise_equal(at(whole[i], pos), unbatched[i]))
                  << "output " << i << " unbatched, " << where;
              EXPECT_TRUE(bitwise_equal(at(whole[i], pos + 1), at(shifted[i], pos)))
                  << "output " << i << " shifted, " << where;
            }
          }
        }
    }
}

TEST(LinalgBatchedSimd, CholeskyAndSolveErrorsNameLowestBatchIndex) {
  // Failures in different tiles (lanes are 4 to 16): the lowest batch index is reported, with the
  // order of the failing minor / the zero pivot, at every budget and kind.
  for (DType dt : {DType::f32, DType::f64})
    for (std::int64_t n : {4, 8, 16}) {
      const Tensor p = spd(random({37, n, n}, 51, dt)).contiguous();
      const Tensor g = random({37, n, n}, 52, dt);
      std::vector<Tensor> ps, gs;
      for (std::int64_t b = 0; b < 37; ++b) {
        Tensor pb = at(p, b), gb = at(g, b);
        if (b == 5 || b == 30) {  // minor of order 4 (b == 5) / 1 (b == 30) not positive
          const std::int64_t k = b == 5 ? 3 : 0;
          pb = pb - diag_embed(one_hot_like(n, k, dt)) * 1e6;
        }
        if (b == 9 || b == 33) {  // column 2 zero: U[2, 2] == 0
          gb = gb * diag_embed(ones_except(n, 2, dt));
        }
        ps.push_back(pb);
        gs.push_back(gb);
      }
      const Tensor pf = stack(ps), gf = stack(gs), rhs = random({37, n, 2}, 53, dt);
      for (BackendKind kind : {BackendKind::native, BackendKind::blas})
        for (int threads : {1, 4}) {
          const CpuBackend backend(CpuBackendOptions{.threads = threads, .kind = kind});
          BackendGuard use(backend);
          expect_error(ErrorKind::LinAlgError, [&] { (void)cholesky(pf); },
                       {"cholesky", "batch index 5", "order 4"});
          expect_error(ErrorKind::LinAlgError, [&] { (void)solve(gf, rhs); },
                       {"solve", "batch index 9", "U[2, 2]"});
          expect_error(ErrorKind::LinAlgError, [&] { (void)inv(gf); }, {"batch index 9"});
          // det / slogdet / lu_factor: no error, a zero determinant for those matrices.
          const Tensor d = det(gf);
          EXPECT_EQ(values(at(d, 9))[0], c128(0));
          EXPECT_EQ(values(at(d, 33))[0], c128(0));
          EXPECT_NE(values(at(d, 10))[0], c128(0));
          EXPECT_TRUE(bitwise_equal(lu_factor(gf).LU, lu_factor(gf).LU));
        }
    }
}

TEST(LinalgBatchedSimd, LargeBatchSplitAcrossThreadsAgreesBitwise) {
  for (DType dt : {DType::f32, DType::f64}) {
    const Tensor a = random({301, 8, 8}, 21, dt);
    const Tensor h = hermitian(random({301, 8, 8}, 22, dt));
    std::vector<Tensor> ref;
    for (int threads : {1, 2, 4}) {
      const CpuBackend backend(CpuBackendOptions{.threads = threads});
      BackendGuard use(backend);
      const std::vector<Tensor> r = decompose(a, h);
      if (ref.empty()) ref = r;
      for (std::size_t i = 0; i < r.size(); ++i)
        EXPECT_TRUE(bitwise_equal(r[i], ref[i])) << "output " << i << " at " << threads;
    }
  }
}

TEST(LinalgBatchedSimd, NonFiniteQrMatrixDoesNotTouchItsTileMates) {
  // qr reports no error for NaN (it propagates): the other matrices of the tile are unaffected.
  for (DType dt : {DType::f32, DType::f64})
    for (std::int64_t n : {4, 8}) {
      const Tensor base = random({19, n, n}, 41, dt);
      std::vector<Tensor> ms;
      for (std::int64_t b = 0; b < 19; ++b)
        ms.push_back(b == 1 ? at(base, b) * NAN : b == 2 ? at(base, b) * INFINITY : at(base, b));
      const QrResult whole = qr(stack(ms));
      // Every matrix is bitwise the scalar kernel's (the matrix alone): the finite ones from their
      // lanes, the NaN and Inf ones because a non-finite matrix leaves the tile for the scalar
      // kernel (the batched larfg / nrm2 round an infinite norm differently).
      for (std::int64_t b : {0, 1, 2, 3, 9}) {
        const QrResult alone = qr(at(stack(ms), b));
        EXPECT_TRUE(bitwise_equal(at(whole.Q, b), alone.Q)) << b;
        EXPECT_TRUE(bitwise_equal(at(whole.R, b), alone.R)) << b;
      }
    }
}

TEST(LinalgBatchedSimd, NonFiniteInputNamesLowestBatchIndex) {
  for (DType dt : {DType::f32, DType::f64})
    for (std::int64_t n : {2, 4, 8}) {
      const Tensor base = random({37, n, n}, 31, dt);
      std::vector<Tensor> ms;
      for (std::int64_t b = 0; b < 37; ++b)
        ms.push_back(b == 17 ? at(base, b) * NAN : b == 20 ? at(base, b) * INFINITY : at(base, b));
      const Tensor a = stack(ms);
      expect_error(ErrorKind::LinAlgError, [&] { (void)svd(a); }, {"svd", "batch index 17", "NaN"});
      expect_error(ErrorKind::LinAlgError, [&] { (void)svdvals(a); }, {"batch index 17"});
      expect_error(ErrorKind::LinAlgError, [&] { (void)eigh(a); }, {"eigh", "batch index 17"});
      expect_error(ErrorKind::LinAlgError, [&] { (void)eigvalsh(a); }, {"batch index 17"});
      ms[3] = at(base, 3) * INFINITY;
      const Tensor b = stack(ms);
      for (int threads : {1, 4}) {
        const CpuBackend backend(CpuBackendOptions{.threads = threads});
        BackendGuard use(backend);
        expect_error(ErrorKind::LinAlgError, [&] { (void)svd(b); }, {"batch index 3"});
        expect_error(ErrorKind::LinAlgError, [&] { (void)eigh(b); }, {"batch index 3"});
      }
    }
}

}  // namespace
