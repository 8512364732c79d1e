// The batched small qr, Hermitian eigh and svd kernels for complex dtypes
// (cpu/kernels/linalg_simd_qr_complex.cpp, linalg_simd_eigh_complex.cpp,
// linalg_simd_svd_complex.cpp; Note [Batched small linalg kernels]): one SIMD lane per c64 / c128
// matrix, the tile held as re and im planes.
//
// Why: a matrix's result must not depend on its batch position or tile-mates, and the kernels
// promise bitwise the scalar kernels' result (small::qr, small::eigh, small::svd). So, for c64 and
// c128, in
// full tiles, partial tiles and tiles with empty lanes:
//   - qr (m, n up to 16, reduced and complete; random, zero, rank 1, real, imaginary, upper
//     triangular, identity, huge, tiny enough for larfg's rescaling, graded columns): q and r
//     equal small::qr's bitwise;
//   - eigh (n up to 16, lower and upper triangle, vectors and values only; Hermitian random,
//     zero, rank 1, identity, repeated / paired / zero eigenvalues, graded, real symmetric,
//     diagonal, nearly diagonal, huge, tiny): w, v and the convergence flag equal small::eigh's
//     bitwise;
//   - svd (m, n up to 16, vectors and values only; random, zero, rank 1, rank k/2, repeated
//     columns, identity, unitary times 3, real, imaginary, huge, tiny, tiny rank 1, graded
//     columns): s, u, vh and the convergence flag equal small::svd's bitwise.
// The scalar complex kernels' accuracy against LAPACK is
// tests/linalg/linalg_small_kernels_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
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

// QR inputs: random, zero, rank 1, real-valued, purely imaginary, already upper triangular (zero
// tails: larfg's tau = 0 or only a phase), identity, huge, tiny (beta below safmin: larfg's
// rescaling loop), graded columns.
template <class T>
std::vector<Case<T>> qr_cases(int m, int n, Rng& g) {
  using Real = typename T::value_type;
  std::vector<Case<T>> cs = random_zero_rank1_cases<T>(m, n, g);
  auto random = [&] {
    std::vector<T> a(m * n);
    for (T& x : a) x = crand<T>(g);
    return a;
  };
  {
    std::vector<T> a = random(), b = random(), c = random(), e(m * n, T(0));
    for (T& x : a) x = T(x.real(), 0);
    for (T& x : b) x = T(0, x.imag());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < i && j < n; ++j) c[i * n + j] = T(0);
    for (int i = 0; i < std::min(m, n); ++i) e[i * n + i] = T(1);
    cs.push_back({"real", a});
    cs.push_back({"imaginary", b});
    cs.push_back({"upper_triangular", c});
    cs.push_back({"identity", e});
  }
  const double huge = std::is_same_v<T, c64> ? 1e30 : 1e290;
  const double tiny = std::is_same_v<T, c64> ? 1e-36 : 1e-300;  // below safmin = tiny / eps
  cs.push_back({"huge", scaled(random(), huge)});
  cs.push_back({"tiny", scaled(random(), tiny)});
  {
    std::vector<T> a = random();
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        a[i * n + j] *= Real(std::pow(10.0, -6.0 * j / std::max(1, n - 1)));
    cs.push_back({"graded_columns", a});
  }
  return cs;
}

template <class T>
void check_qr_kernel() {
  const int L = sm::batch_lanes<T>();
  Rng g{888 + sizeof(T)};
  for (int m : {1, 2, 3, 4, 5, 8, 16})
    for (int n : {1, 2, 3, 4, 5, 8, 16})
      for (bool complete : {false, true}) {
        const int k = std::min(m, n), nq = complete ? m : k;
        const std::vector<Case<T>> cs = qr_cases<T>(m, n, g);
        const int nc = static_cast<int>(cs.size());
        std::vector<std::vector<T>> rq(nc, std::vector<T>(m * nq)), rr(nc, std::vector<T>(nq * n));
        for (int c = 0; c < nc; ++c)
          sm::qr<T>(m, n, cs[c].a.data(), rq[c].data(), rr[c].data(), complete);
        for (const std::vector<int>& tile : arrangements(nc, L)) {
          const int count = static_cast<int>(tile.size());
          std::vector<std::vector<T>> q(count, std::vector<T>(m * nq, T(7))),
              r(count, std::vector<T>(nq * n, T(7)));
          const T* in[sm::kMaxBatchLanes] = {};
          T* qo[sm::kMaxBatchLanes] = {};
          T* ro[sm::kMaxBatchLanes] = {};
          for (int j = 0; j < count; ++j) {
            in[j] = tile[j] < 0 ? nullptr : cs[tile[j]].a.data();
            qo[j] = q[j].data();
            ro[j] = r[j].data();
          }
          sm::qr_batch<T>(m, n, count, in, qo, ro, complete);
          for (int j = 0; j < count; ++j) {
            const int c = tile[j];
            if (c < 0) {
              EXPECT_EQ(q[j][0], T(7)) << "an empty lane is not written";
              continue;
            }
            const std::string where = std::string(type_name<T>()) + " " + std::to_string(m) + "x" +
                                      std::to_string(n) + (complete ? " complete " : " reduced ") +
                                      cs[c].name + " lane " + std::to_string(j);
            EXPECT_TRUE(same(q[j], rq[c])) << "q " << where;
            EXPECT_TRUE(same(r[j], rr[c])) << "r " << where;
          }
        }
      }
}

TEST(LinalgBatchedComplex, QrLanesEqualScalarKernelBitwise) {
  check_qr_kernel<c64>();
  check_qr_kernel<c128>();
}

// Hermitian eigh inputs (full matrices with garbage in the triangle not read and in the
// diagonal's imaginary part): random, zero, rank 1, identity, 3 I, repeated / paired / zero
// eigenvalues (U diag U^H with a complex Householder U), graded positive definite, real symmetric,
// diagonal, nearly diagonal (off-diagonal entries near the c64 range of abs_'s scaled branch),
// huge, tiny.
template <class T>
std::vector<Case<T>> eigh_cases(int n, Rng& g) {
  using Real = typename T::value_type;
  std::vector<Case<T>> cs;
  auto herm = [&](const std::vector<double>& w) {  // U diag(w) U^H, U = I - 2 v v^H / v^H v
    std::vector<c128> v(n);
    double vv = 0;
    for (c128& x : v) {
      x = crand<c128>(g);
      vv += std::norm(x);
    }
    std::vector<c128> u(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        u[i * n + j] = (i == j ? 1.0 : 0.0) - 2.0 * v[i] * std::conj(v[j]) / vv;
    std::vector<T> a(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        c128 s = 0;
        for (int l = 0; l < n; ++l) s += u[i * n + l] * w[l] * std::conj(u[j * n + l]);
        a[i * n + j] = T(s);
      }
    return a;
  };
  auto diag = [&](auto f) {
    std::vector<double> w(n);
    for (int i = 0; i < n; ++i) w[i] = f(i);
    return w;
  };
  auto random = [&] {
    std::vector<T> a(n * n);
    for (T& x : a) x = crand<T>(g);
    return a;
  };
  for (int i = 0; i < 4; ++i) cs.push_back({"random" + std::to_string(i), random()});
  cs.push_back({"zero", std::vector<T>(n * n, T(0))});
  {
    std::vector<T> v(n), a(n * n), e(n * n, T(0)), r = random(), dg(n * n, T(0)), nd(n * n);
    for (T& x : v) x = crand<T>(g);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) a[i * n + j] = v[i] * std::conj(v[j]);
    for (int i = 0; i < n; ++i) {
      e[i * n + i] = T(1);
      dg[i * n + i] = T(Real(g.uniform()));
    }
    for (T& x : r) x = T(x.real(), 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) nd[i * n + j] = i == j ? T(Real(1 + i)) : T(3e-16) * crand<T>(g);
    cs.push_back({"rank1", a});
    cs.push_back({"identity", e});
    cs.push_back({"identity_times_3", scaled(e, 3)});
    cs.push_back({"real_symmetric", r});
    cs.push_back({"diagonal", dg});
    cs.push_back({"nearly_diagonal", nd});
  }
  cs.push_back({"repeated", herm(diag([](int i) { return i < 2 ? 1.0 : double(i); }))});
  cs.push_back({"pairs", herm(diag([](int i) { return double(i / 2); }))});
  cs.push_back({"indefinite_zeros", herm(diag([](int i) { return double(i % 3 - 1); }))});
  cs.push_back({"graded_pd", herm(diag([](int i) { return std::pow(10.0, -6.0 * i / 8); }))});
  cs.push_back({"huge", scaled(random(), std::is_same_v<T, c64> ? 1e30 : 1e150)});
  cs.push_back({"tiny", scaled(random(), std::is_same_v<T, c64> ? 1e-30 : 1e-150)});
  for (Case<T>& c : cs)  // garbage in the diagonal's imaginary part (ignored)
    for (int i = 0; i < n; ++i) c.a[i * n + i] = T(c.a[i * n + i].real(), 1e3 * g.uniform());
  return cs;
}

template <class T>
void check_eigh_kernel() {
  using Real = typename T::value_type;
  const int L = sm::batch_lanes<T>();
  Rng g{999 + sizeof(T)};
  int unconverged = 0;
  for (int n : {1, 2, 3, 4, 5, 8, 12, 16})
    for (bool lower : {true, false})
      for (bool vectors : {true, false}) {
        const std::vector<Case<T>> cs = eigh_cases<T>(n, g);
        const int nc = static_cast<int>(cs.size());
        std::vector<std::vector<Real>> rw(nc, std::vector<Real>(n));
        std::vector<std::vector<T>> rv(nc, std::vector<T>(n * n));
        std::vector<bool> rok(nc);
        for (int c = 0; c < nc; ++c) {
          rok[c] =
              sm::eigh<T>(n, cs[c].a.data(), lower, rw[c].data(), vectors ? rv[c].data() : nullptr);
          unconverged += !rok[c];
        }
        for (const std::vector<int>& tile : arrangements(nc, L)) {
          const int count = static_cast<int>(tile.size());
          std::vector<std::vector<Real>> w(count, std::vector<Real>(n, Real(7)));
          std::vector<std::vector<T>> v(count, std::vector<T>(n * n, T(7)));
          const T* in[sm::kMaxBatchLanes] = {};
          Real* wo[sm::kMaxBatchLanes] = {};
          T* vo[sm::kMaxBatchLanes] = {};
          bool ok[sm::kMaxBatchLanes] = {};
          for (int j = 0; j < count; ++j) {
            in[j] = tile[j] < 0 ? nullptr : cs[tile[j]].a.data();
            wo[j] = w[j].data();
            vo[j] = v[j].data();
          }
          sm::eigh_batch<T>(n, count, in, lower, wo, vectors ? vo : nullptr, ok);
          for (int j = 0; j < count; ++j) {
            const int c = tile[j];
            if (c < 0) {
              EXPECT_EQ(w[j][0], Real(7)) << "an empty lane is not written";
              continue;
            }
            const std::string where = std::string(type_name<T>()) + " n=" + std::to_string(n) +
                                      (lower ? " lower " : " upper ") +
                                      (vectors ? "vectors " : "values ") + cs[c].name + " lane " +
                                      std::to_string(j);
            EXPECT_EQ(ok[j], rok[c]) << where;
            EXPECT_TRUE(same(w[j], rw[c])) << "w " << where;
            if (vectors) {
              EXPECT_TRUE(same(v[j], rv[c])) << "v " << where;
            }
          }
        }
      }
  EXPECT_EQ(unconverged, 0);
}

TEST(LinalgBatchedComplex, EighLanesEqualScalarKernelBitwise) {
  check_eigh_kernel<c64>();
  check_eigh_kernel<c128>();
}

// svd inputs: random, zero, rank 1, rank k/2, repeated columns, identity, a unitary matrix times
// 3 (all singular values equal), real, purely imaginary, huge, tiny, tiny rank 1, graded columns.
template <class T>
std::vector<Case<T>> svd_cases(int m, int n, Rng& g) {
  using Real = typename T::value_type;
  const int k = std::min(m, n);
  std::vector<Case<T>> cs;
  auto random = [&] {
    std::vector<T> a(m * n);
    for (T& x : a) x = crand<T>(g);
    return a;
  };
  auto lowrank = [&](int r) {
    std::vector<c128> b(m * r), c(r * n);
    for (c128& x : b) x = crand<c128>(g);
    for (c128& x : c) x = crand<c128>(g);
    std::vector<T> a(m * n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        c128 s = 0;
        for (int l = 0; l < r; ++l) s += b[i * r + l] * c[l * n + j];
        a[i * n + j] = T(s);
      }
    return a;
  };
  for (int i = 0; i < 4; ++i) cs.push_back({"random" + std::to_string(i), random()});
  cs.push_back({"zero", std::vector<T>(m * n, T(0))});
  cs.push_back({"rank1", lowrank(1)});
  if (k >= 2) cs.push_back({"rank_half", lowrank(k / 2)});
  {
    std::vector<T> a = random(), e(m * n, T(0)), re = random(), im = random(), u(m * n);
    for (int i = 0; i < m; ++i)
      for (int j = 1; j < n; j += 2) a[i * n + j] = a[i * n + j - 1];
    for (int i = 0; i < k; ++i) e[i * n + i] = T(1);
    for (T& x : re) x = T(x.real(), 0);
    for (T& x : im) x = T(0, x.imag());
    const int p = std::max(m, n);  // 3 (I - 2 v v^H / v^H v), its leading m x n block
    std::vector<c128> v(p);
    double vv = 0;
    for (c128& x : v) {
      x = crand<c128>(g);
      vv += std::norm(x);
    }
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        u[i * n + j] = T(3.0 * ((i == j ? 1.0 : 0.0) - 2.0 * v[i] * std::conj(v[j]) / vv));
    cs.push_back({"repeated_columns", a});
    cs.push_back({"identity", e});
    cs.push_back({"real", re});
    cs.push_back({"imaginary", im});
    cs.push_back({"unitary_times_3", u});
  }
  const double huge = std::is_same_v<T, c64> ? 1e30 : 1e150;
  const double tiny = std::is_same_v<T, c64> ? 1e-30 : 1e-150;
  cs.push_back({"huge", scaled(random(), huge)});
  cs.push_back({"tiny", scaled(random(), tiny)});
  cs.push_back({"tiny_rank1", scaled(lowrank(1), tiny)});
  {
    std::vector<T> a = random();
    const double decades = std::is_same_v<T, c64> ? 3 : 8;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        a[i * n + j] *= Real(std::pow(10.0, -decades * j / std::max(1, n - 1)));
    cs.push_back({"graded_columns", a});
  }
  return cs;
}

template <class T>
void check_svd_kernel() {
  using Real = typename T::value_type;
  const int L = sm::batch_lanes<T>();
  Rng g{1111 + sizeof(T)};
  int unconverged = 0;
  for (int m : {1, 2, 3, 4, 5, 8, 16})
    for (int n : {1, 2, 3, 4, 5, 8, 16})
      for (bool vectors : {true, false}) {
        const int k = std::min(m, n);
        const std::vector<Case<T>> cs = svd_cases<T>(m, n, g);
        const int nc = static_cast<int>(cs.size());
        std::vector<std::vector<Real>> rs(nc, std::vector<Real>(k));
        std::vector<std::vector<T>> ru(nc, std::vector<T>(m * k)), rvh(nc, std::vector<T>(k * n));
        std::vector<bool> rok(nc);
        for (int c = 0; c < nc; ++c) {
          rok[c] = sm::svd<T>(m, n, cs[c].a.data(), vectors ? ru[c].data() : nullptr, rs[c].data(),
                              vectors ? rvh[c].data() : nullptr);
          unconverged += !rok[c];
        }
        for (const std::vector<int>& tile : arrangements(nc, L)) {
          const int count = static_cast<int>(tile.size());
          std::vector<std::vector<Real>> s(count, std::vector<Real>(k, Real(7)));
          std::vector<std::vector<T>> u(count, std::vector<T>(m * k, T(7))),
              vh(count, std::vector<T>(k * n, T(7)));
          const T* in[sm::kMaxBatchLanes] = {};
          T* uo[sm::kMaxBatchLanes] = {};
          Real* so[sm::kMaxBatchLanes] = {};
          T* vo[sm::kMaxBatchLanes] = {};
          bool ok[sm::kMaxBatchLanes] = {};
          for (int j = 0; j < count; ++j) {
            in[j] = tile[j] < 0 ? nullptr : cs[tile[j]].a.data();
            uo[j] = u[j].data();
            so[j] = s[j].data();
            vo[j] = vh[j].data();
          }
          sm::svd_batch<T>(m, n, count, in, vectors ? uo : nullptr, so, vectors ? vo : nullptr, ok);
          for (int j = 0; j < count; ++j) {
            const int c = tile[j];
            if (c < 0) {
              EXPECT_EQ(s[j][0], Real(7)) << "an empty lane is not written";
              continue;
            }
            const std::string where = std::string(type_name<T>()) + " " + std::to_string(m) + "x" +
                                      std::to_string(n) + (vectors ? " vectors " : " values ") +
                                      cs[c].name + " lane " + std::to_string(j);
            EXPECT_EQ(ok[j], rok[c]) << where;
            EXPECT_TRUE(same(s[j], rs[c])) << "s " << where;
            if (vectors) {
              EXPECT_TRUE(same(u[j], ru[c])) << "u " << where;
              EXPECT_TRUE(same(vh[j], rvh[c])) << "vh " << where;
            }
          }
        }
      }
  EXPECT_EQ(unconverged, 0);
}

TEST(LinalgBatchedComplex, SvdLanesEqualScalarKernelBitwise) {
  check_svd_kernel<c64>();
  check_svd_kernel<c128>();
}

}  // namespace
