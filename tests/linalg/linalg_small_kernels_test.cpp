// Accuracy of the small dense linear-algebra kernels (cpu/kernels/linalg_small.hpp:
// detail::small::svd, eigh, qr), checked directly against LAPACK through LAPACKE.
//
// Why: these kernels replace LAPACK for batches of small matrices (Note [Small linalg kernels]),
// and which of the two paths a matrix takes depends only on its shape. They must be as accurate as
// the LAPACK path they replace, and qr must produce LAPACK's factors (same Householder
// convention), or results would change when a shape crosses the size limit. LAPACK is therefore
// the reference: singular values against xGESDD, eigenvalues against xSYEVD/xHEEVD, q and r
// elementwise against xGEQRF + xORGQR/xUNGQR.
//
// Inputs, for f32, f64, c64 and c128 and every m, n in {1, 2, 3, 4, 5, 8, 16} (tall, square and
// wide; eigh: n x n), a few random matrices plus adversarial ones:
//   svd, qr: zero (rank 0), rank 1, rank min(m, n) / 2, repeated columns, identity, diag(1, 1, 2,
//     ...), 3 x a matrix with orthonormal columns or rows (all singular values equal), huge
//     (1e150; f32 1e30) and tiny (1e-150; f32 1e-30) scale, tiny rank 1, columns graded over 8
//     (f32: 3) decades;
//   eigh: random Hermitian, rank 1, zero, identity, 3 x identity, diag(1, 1, 2, ...), and
//     Q diag(d) Q^H for a random unitary Q with d = (1, 1, 2, ...), pairs (0, 0, 1, 1, ...),
//     indefinite with zeros (-1, 0, 1, -1, ...), positive definite graded over 6 decades; huge and
//     tiny scale. Both triangles are tried, with garbage in the ignored triangle and in the
//     imaginary part of the diagonal.
// Checks (residuals in long double; tolerance 20 * max(m, n) * eps):
//   svd: converges; |a - u s vh| / |a|; u^H u = I; vh vh^H = I; s >= 0 and descending;
//     |s - s_lapack| / s_max; values-only s bitwise equal to the full call's; deterministic.
//   eigh: converges; |a v - v w| / |a|; v^H v = I; w ascending; |w - w_lapack| / |a|; values-only
//     w bitwise equal; deterministic.
//   qr (reduced and complete): |a - q r| / |a|; q^H q = I; exact zeros below r's diagonal;
//     deterministic; for full-rank a (where q and r are unique) q and r elementwise against
//     LAPACK's, tolerance times cond(a).
// A failing check names the check and the case; after kMaxReported failures per test only the
// count is reported. Timing against LAPACK: bench/profile/linalg_small_timing.cpp.
//
// LAPACKE's complex types as std::complex (must come before lapacke.h).
#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/kernels/linalg_small.hpp"
#include "linalg/linalg_test_util.hpp"

namespace {

using tenferro::c128;
using tenferro::c64;
using tenferro::is_complex_v;
using tenferro::real_t;
namespace sm = tenferro::detail::small;

using LC = std::complex<long double>;

constexpr int kSizes[] = {1, 2, 3, 4, 5, 8, 16};

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, double>) return "f64";
  if constexpr (std::is_same_v<T, c64>) return "c64";
  return "c128";
}

template <class T>
LC to_ld(const T& x) {
  if constexpr (is_complex_v<T>) {
    return LC(x.real(), x.imag());
  } else {
    return LC(x, 0);
  }
}

template <class T>
T conj_of(const T& x) {
  if constexpr (is_complex_v<T>) {
    return std::conj(x);
  } else {
    return x;
  }
}

using tenferro::linalg_test::Rng;

template <class T>
T random_entry(Rng& g) {
  if constexpr (is_complex_v<T>) {
    using Re = real_t<T>;
    const Re a = Re(g.uniform());
    return T(a, Re(g.uniform()));
  } else {
    return T(g.uniform());
  }
}

template <class T>
std::uint64_t seed_for() {
  return 12345 + sizeof(T) * 7 + (is_complex_v<T> ? 1 : 0);
}

// ---- reporting ---------------------------------------------------------------------------------

// The checks of one test. Every failing check is an EXPECT failure naming the check and the case;
// past the first kMaxReported only the count is kept (one broken kernel would otherwise print
// thousands of failures), and the destructor reports the total. Passing checks cost no gtest
// bookkeeping, which keeps the tens of thousands of checks fast.
class Checks {
 public:
  static constexpr int kMaxReported = 20;

  Checks() = default;
  Checks(const Checks&) = delete;
  Checks& operator=(const Checks&) = delete;
  ~Checks() {
    EXPECT_LE(failed_, kMaxReported)
        << failed_ << " checks failed in total; only the first " << kMaxReported << " are shown";
  }

  void le(double err, double tol, const char* check, const std::string& where) {
    if (err <= tol) return;  // false for NaN: a NaN error fails
    if (++failed_ > kMaxReported) return;
    EXPECT_LE(err, tol) << check << " at " << where << " (err / tol = " << err / tol << ")";
  }
  void holds(bool ok, const char* check, const std::string& where) {
    if (ok) return;
    if (++failed_ > kMaxReported) return;
    EXPECT_TRUE(ok) << check << " at " << where;
  }

 private:
  int failed_ = 0;
};

// ---- long-double matrix helpers ----------------------------------------------------------------

template <class T>
long double frobenius(const std::vector<T>& a) {
  long double s = 0;
  for (const T& x : a) s += std::norm(to_ld(x));
  return std::sqrt(s);
}

// |X^H X - I|_max for X (rows x cols, row-major): columns orthonormal.
template <class T>
long double orth_cols_error(const T* x, int rows, int cols) {
  long double worst = 0;
  for (int p = 0; p < cols; ++p)
    for (int q = 0; q < cols; ++q) {
      LC s = 0;
      for (int i = 0; i < rows; ++i)
        s += std::conj(to_ld(x[i * cols + p])) * to_ld(x[i * cols + q]);
      worst = std::max(worst, std::abs(s - LC(p == q ? 1 : 0)));
    }
  return worst;
}
// |X X^H - I|_max: rows orthonormal.
template <class T>
long double orth_rows_error(const T* x, int rows, int cols) {
  long double worst = 0;
  for (int p = 0; p < rows; ++p)
    for (int q = 0; q < rows; ++q) {
      LC s = 0;
      for (int j = 0; j < cols; ++j)
        s += to_ld(x[p * cols + j]) * std::conj(to_ld(x[q * cols + j]));
      worst = std::max(worst, std::abs(s - LC(p == q ? 1 : 0)));
    }
  return worst;
}

template <class T>
bool bitwise_same(const T* x, const T* y, int len) {
  return std::memcmp(x, y, sizeof(T) * len) == 0;
}

// ---- LAPACK references -------------------------------------------------------------------------

// OpenBLAS's gemv kernels (seen: zgemv_n_ZEN under xGESDD's bidiagonalisation) read a few elements
// past the end of a strided vector that ends its matrix. With glibc's malloc that is harmless, but
// AddressSanitizer can place the matrix flush against an unmapped page and the read faults. So
// every array handed to LAPACK here has kLapackSlack unused elements after its end.
constexpr std::size_t kLapackSlack = 64;

// Singular values of a (row-major m x n); a row-major m x n is column-major a^T, same values.
template <class T>
std::vector<real_t<T>> lapack_svals(int m, int n, std::vector<T> a) {
  const int k = std::min(m, n);
  a.resize(a.size() + kLapackSlack);
  std::vector<real_t<T>> s(k + kLapackSlack);
  lapack_int info;
  if constexpr (std::is_same_v<T, float>)
    info =
        LAPACKE_sgesdd(LAPACK_COL_MAJOR, 'N', n, m, a.data(), n, s.data(), nullptr, 1, nullptr, 1);
  else if constexpr (std::is_same_v<T, double>)
    info =
        LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', n, m, a.data(), n, s.data(), nullptr, 1, nullptr, 1);
  else if constexpr (std::is_same_v<T, c64>)
    info =
        LAPACKE_cgesdd(LAPACK_COL_MAJOR, 'N', n, m, a.data(), n, s.data(), nullptr, 1, nullptr, 1);
  else
    info =
        LAPACKE_zgesdd(LAPACK_COL_MAJOR, 'N', n, m, a.data(), n, s.data(), nullptr, 1, nullptr, 1);
  EXPECT_EQ(info, 0) << "LAPACKE gesdd on " << m << "x" << n;
  s.resize(k);
  return s;
}

// Eigenvalues of the full Hermitian h (row-major = column-major conj(h), same eigenvalues).
template <class T>
std::vector<real_t<T>> lapack_eigvals(int n, std::vector<T> h) {
  h.resize(h.size() + kLapackSlack);
  std::vector<real_t<T>> w(n + kLapackSlack);
  lapack_int info;
  if constexpr (std::is_same_v<T, float>)
    info = LAPACKE_ssyevd(LAPACK_COL_MAJOR, 'N', 'L', n, h.data(), n, w.data());
  else if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, h.data(), n, w.data());
  else if constexpr (std::is_same_v<T, c64>)
    info = LAPACKE_cheevd(LAPACK_COL_MAJOR, 'N', 'L', n, h.data(), n, w.data());
  else
    info = LAPACKE_zheevd(LAPACK_COL_MAJOR, 'N', 'L', n, h.data(), n, w.data());
  EXPECT_EQ(info, 0) << "LAPACKE syevd/heevd on n = " << n;
  w.resize(n);
  return w;
}

template <class T>
lapack_int lapack_geqrf(int m, int n, T* a, int lda, T* tau) {
  if constexpr (std::is_same_v<T, float>)
    return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
  else if constexpr (std::is_same_v<T, double>)
    return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
  else if constexpr (std::is_same_v<T, c64>)
    return LAPACKE_cgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
  else
    return LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
}
template <class T>
lapack_int lapack_orgqr(int m, int n, int k, T* a, int lda, const T* tau) {
  if constexpr (std::is_same_v<T, float>)
    return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
  else if constexpr (std::is_same_v<T, double>)
    return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
  else if constexpr (std::is_same_v<T, c64>)
    return LAPACKE_cungqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
  else
    return LAPACKE_zungqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
}

// LAPACK's q (m x nq) and r (rr x n), row-major, for a row-major a.
template <class T>
void lapack_qr(int m, int n, const std::vector<T>& a, bool complete, std::vector<T>& q,
               std::vector<T>& r) {
  const int k = std::min(m, n), nq = complete ? m : k, rr = complete ? m : k;
  std::vector<T> w(m * n + kLapackSlack), tau(k + kLapackSlack);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) w[j * m + i] = a[i * n + j];
  EXPECT_EQ(lapack_geqrf(m, n, w.data(), m, tau.data()), 0) << "LAPACKE geqrf on " << m << "x" << n;
  r.assign(rr * n, T(0));
  for (int i = 0; i < rr; ++i)
    for (int j = i; j < n; ++j) r[i * n + j] = w[j * m + i];
  std::vector<T> qc(m * nq + kLapackSlack, T(0));
  for (int j = 0; j < std::min(k, nq); ++j)
    for (int i = 0; i < m; ++i) qc[j * m + i] = w[j * m + i];
  EXPECT_EQ(lapack_orgqr(m, nq, k, qc.data(), m, tau.data()), 0)
      << "LAPACKE orgqr/ungqr on " << m << "x" << nq;
  q.resize(m * nq);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < nq; ++j) q[i * nq + j] = qc[j * m + i];
}

// Row-major m x n with orthonormal columns (m >= n) or rows (m < n), from LAPACK's QR.
template <class T>
std::vector<T> orthonormal(int m, int n, Rng& g) {
  const int p = std::max(m, n), k = std::min(m, n);
  std::vector<T> a(p * k);
  for (T& x : a) x = random_entry<T>(g);
  std::vector<T> q, r;
  lapack_qr(p, k, a, false, q, r);  // q: p x k
  if (m >= n) return q;
  std::vector<T> out(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) out[i * n + j] = conj_of(q[j * k + i]);
  return out;
}

// ---- test inputs -------------------------------------------------------------------------------

template <class T>
struct Case {
  std::string name;
  std::vector<T> a;
  bool full_rank;
};

template <class T>
constexpr real_t<T> kHuge = std::is_same_v<real_t<T>, float> ? real_t<T>(1e30) : real_t<T>(1e150);
template <class T>
constexpr real_t<T> kTiny = std::is_same_v<real_t<T>, float> ? real_t<T>(1e-30) : real_t<T>(1e-150);

// General m x n inputs for svd and qr.
template <class T>
std::vector<Case<T>> general_cases(int m, int n, Rng& g) {
  using Re = real_t<T>;
  const int k = std::min(m, n);
  std::vector<Case<T>> cs;
  auto random = [&] {
    std::vector<T> a(m * n);
    for (T& x : a) x = random_entry<T>(g);
    return a;
  };
  auto lowrank = [&](int r) {
    std::vector<T> b(m * r), c(r * n), a(m * n, T(0));
    for (T& x : b) x = random_entry<T>(g);
    for (T& x : c) x = random_entry<T>(g);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        for (int l = 0; l < r; ++l) a[i * n + j] += b[i * r + l] * c[l * n + j];
    return a;
  };
  for (int rep = 0; rep < 3; ++rep) cs.push_back({"random" + std::to_string(rep), random(), true});
  cs.push_back({"rank1", lowrank(1), k == 1});
  if (k >= 3) cs.push_back({"rank_half", lowrank(k / 2), false});
  cs.push_back({"zero", std::vector<T>(m * n, T(0)), false});
  {
    std::vector<T> a = random();
    for (int i = 0; i < m; ++i)
      for (int j = 1; j < n; j += 2) a[i * n + j] = a[i * n];
    cs.push_back({"repeated_cols", a, n == 1});
  }
  {
    std::vector<T> a(m * n, T(0));
    for (int i = 0; i < k; ++i) a[i * n + i] = T(1);
    cs.push_back({"identity", a, true});
    for (int i = 0; i < k; ++i) a[i * n + i] = T(i < 2 ? 1 : 2);
    cs.push_back({"diag112", a, true});
  }
  {
    std::vector<T> a = orthonormal<T>(m, n, g);
    for (T& x : a) x *= Re(3);
    cs.push_back({"3unitary", a, true});
  }
  {
    std::vector<T> a = random();
    for (T& x : a) x *= kHuge<T>;
    cs.push_back({"huge", a, true});
    a = random();
    for (T& x : a) x *= kTiny<T>;
    cs.push_back({"tiny", a, true});
    a = lowrank(1);
    for (T& x : a) x *= kTiny<T>;
    cs.push_back({"tiny_rank1", a, k == 1});
  }
  {
    // Columns graded over ~ 8 decades (f64) / 3 decades (f32).
    std::vector<T> a = random();
    const Re step = std::is_same_v<Re, float> ? Re(0.5) : Re(0.1);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) a[i * n + j] *= Re(std::pow(step, j * 8.0 / 15));
    cs.push_back({"graded", a, true});
  }
  return cs;
}

// Hermitian n x n inputs for eigh (both triangles filled).
template <class T>
std::vector<Case<T>> hermitian_cases(int n, Rng& g) {
  using Re = real_t<T>;
  std::vector<Case<T>> cs;
  auto herm_from = [&](const std::vector<Re>& d) {  // Q diagonal(d) Q^H, Q random unitary
    std::vector<T> q = orthonormal<T>(n, n, g), h(n * n, T(0));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        T s = T(0);
        for (int l = 0; l < n; ++l) s += q[i * n + l] * d[l] * conj_of(q[j * n + l]);
        h[i * n + j] = s;
      }
    for (int i = 0; i < n; ++i) {
      h[i * n + i] = T(std::real(to_ld(h[i * n + i])));
      for (int j = 0; j < i; ++j) h[j * n + i] = conj_of(h[i * n + j]);
    }
    return h;
  };
  auto random = [&] {
    std::vector<T> h(n * n);
    for (int i = 0; i < n; ++i) {
      h[i * n + i] = T(Re(g.uniform()));
      for (int j = 0; j < i; ++j) {
        h[i * n + j] = random_entry<T>(g);
        h[j * n + i] = conj_of(h[i * n + j]);
      }
    }
    return h;
  };
  for (int rep = 0; rep < 3; ++rep) cs.push_back({"random" + std::to_string(rep), random(), true});
  {
    std::vector<T> x(n), h(n * n);
    for (T& v : x) v = random_entry<T>(g);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) h[i * n + j] = x[i] * conj_of(x[j]);
    for (int i = 0; i < n; ++i) h[i * n + i] = T(std::real(to_ld(h[i * n + i])));
    cs.push_back({"rank1", h, true});
  }
  cs.push_back({"zero", std::vector<T>(n * n, T(0)), true});
  {
    std::vector<T> h(n * n, T(0));
    for (int i = 0; i < n; ++i) h[i * n + i] = T(1);
    cs.push_back({"identity", h, true});
    for (int i = 0; i < n; ++i) h[i * n + i] = T(3);
    cs.push_back({"3identity", h, true});
    for (int i = 0; i < n; ++i) h[i * n + i] = T(i < 2 ? 1 : 2);
    cs.push_back({"diag112", h, true});
  }
  {
    std::vector<Re> d(n);
    for (int i = 0; i < n; ++i) d[i] = Re(i < 2 ? 1 : 2);
    cs.push_back({"rot_diag112", herm_from(d), true});
    for (int i = 0; i < n; ++i) d[i] = Re(i / 2);
    cs.push_back({"rot_pairs", herm_from(d), true});
    for (int i = 0; i < n; ++i) d[i] = Re((i % 3) - 1);
    cs.push_back({"rot_indef_zero", herm_from(d), true});
    for (int i = 0; i < n; ++i) d[i] = Re(std::pow(10.0, -double(i) * 6 / std::max(n - 1, 1)));
    cs.push_back({"rot_graded_pd", herm_from(d), true});
  }
  {
    std::vector<T> h = random();
    for (T& x : h) x *= kHuge<T>;
    cs.push_back({"huge", h, true});
    h = random();
    for (T& x : h) x *= kTiny<T>;
    cs.push_back({"tiny", h, true});
  }
  return cs;
}

// ---- svd ---------------------------------------------------------------------------------------

template <class T>
void check_svd(int m, int n, const Case<T>& c, Checks& ck) {
  using Re = real_t<T>;
  const int k = std::min(m, n);
  const double eps = std::numeric_limits<Re>::epsilon();
  const double tolerance = 20.0 * std::max(m, n) * eps;
  const std::string where = std::to_string(m) + "x" + std::to_string(n) + " " + c.name;
  std::vector<T> u(m * k), vh(k * n), u2(m * k), vh2(k * n);
  std::vector<Re> s(k), s2(k), s3(k);
  ck.holds(sm::svd(m, n, c.a.data(), u.data(), s.data(), vh.data()), "converged", where);
  sm::svd(m, n, c.a.data(), u2.data(), s2.data(), vh2.data());
  sm::svd<T>(m, n, c.a.data(), nullptr, s3.data(), nullptr);
  ck.holds(bitwise_same(u.data(), u2.data(), m * k) && bitwise_same(vh.data(), vh2.data(), k * n) &&
               bitwise_same(s.data(), s2.data(), k),
           "deterministic", where);
  ck.holds(bitwise_same(s.data(), s3.data(), k), "values-only s == full s", where);

  const long double anorm = frobenius(c.a);
  const long double denom = anorm > 0 ? anorm : 1;
  long double rec = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      LC acc = 0;
      for (int l = 0; l < k; ++l)
        acc += to_ld(u[i * k + l]) * (long double)s[l] * to_ld(vh[l * n + j]);
      rec += std::norm(to_ld(c.a[i * n + j]) - acc);
    }
  ck.le(double(std::sqrt(rec) / denom), tolerance, "|a - u s vh| / |a|", where);
  ck.le(double(orth_cols_error(u.data(), m, k)), tolerance, "|u^H u - I|", where);
  ck.le(double(orth_rows_error(vh.data(), k, n)), tolerance, "|vh vh^H - I|", where);
  bool order = true;
  for (int l = 0; l < k; ++l) order = order && s[l] >= 0 && (l == 0 || s[l] <= s[l - 1]);
  ck.holds(order, "s >= 0 and descending", where);
  const std::vector<Re> sl = lapack_svals(m, n, c.a);
  long double ds = 0;
  for (int l = 0; l < k; ++l) ds = std::max(ds, std::fabs((long double)s[l] - sl[l]));
  const long double sref = sl[0] > 0 ? sl[0] : 1;
  ck.le(double(ds / sref), tolerance, "|s - s_lapack| / s_max", where);
}

// ---- eigh --------------------------------------------------------------------------------------

template <class T>
void check_eigh(int n, const Case<T>& c, Rng& g, Checks& ck) {
  using Re = real_t<T>;
  const double eps = std::numeric_limits<Re>::epsilon();
  const double tolerance = 20.0 * n * eps;
  const std::vector<Re> wl = lapack_eigvals(n, c.a);
  const long double anorm = frobenius(c.a);
  const long double denom = anorm > 0 ? anorm : 1;
  for (const bool lower : {false, true}) {
    const std::string where = std::to_string(n) + " " + c.name + (lower ? " lower" : " upper");
    // Garbage in the ignored triangle and in the imaginary part of the diagonal.
    std::vector<T> in = c.a;
    const Re scale = Re(anorm > 0 ? anorm : 1);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const bool ignored = lower ? j > i : j < i;
        if (ignored) in[i * n + j] = random_entry<T>(g) * scale;
      }
    if constexpr (is_complex_v<T>)
      for (int i = 0; i < n; ++i) in[i * n + i] += T(0, scale * Re(g.uniform()));
    std::vector<T> v(n * n), v2(n * n);
    std::vector<Re> w(n), w2(n), w3(n);
    ck.holds(sm::eigh(n, in.data(), lower, w.data(), v.data()), "converged", where);
    sm::eigh(n, in.data(), lower, w2.data(), v2.data());
    sm::eigh<T>(n, in.data(), lower, w3.data(), nullptr);
    ck.holds(bitwise_same(v.data(), v2.data(), n * n) && bitwise_same(w.data(), w2.data(), n),
             "deterministic", where);
    ck.holds(bitwise_same(w.data(), w3.data(), n), "values-only w == full w", where);
    long double res = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        LC acc = 0;
        for (int l = 0; l < n; ++l) acc += to_ld(c.a[i * n + l]) * to_ld(v[l * n + j]);
        res += std::norm(acc - to_ld(v[i * n + j]) * (long double)w[j]);
      }
    ck.le(double(std::sqrt(res) / denom), tolerance, "|a v - v w| / |a|", where);
    ck.le(double(orth_cols_error(v.data(), n, n)), tolerance, "|v^H v - I|", where);
    bool order = true;
    for (int l = 1; l < n; ++l) order = order && w[l] >= w[l - 1];
    ck.holds(order, "w ascending", where);
    long double dw = 0;
    for (int l = 0; l < n; ++l) dw = std::max(dw, std::fabs((long double)w[l] - wl[l]));
    ck.le(double(dw / denom), tolerance, "|w - w_lapack| / |a|", where);
  }
}

// ---- qr ----------------------------------------------------------------------------------------

template <class T>
void check_qr(int m, int n, const Case<T>& c, Checks& ck) {
  using Re = real_t<T>;
  const int k = std::min(m, n);
  const double eps = std::numeric_limits<Re>::epsilon();
  const double tolerance = 20.0 * std::max(m, n) * eps;
  const long double anorm = frobenius(c.a);
  const long double denom = anorm > 0 ? anorm : 1;
  double cond = 1;
  if (c.full_rank) {
    const std::vector<Re> sl = lapack_svals(m, n, c.a);
    cond = double(sl[0] / sl[k - 1]);
  }
  for (const bool complete : {false, true}) {
    const std::string where = std::to_string(m) + "x" + std::to_string(n) + " " + c.name +
                              (complete ? " complete" : " reduced");
    const int nq = complete ? m : k, rr = complete ? m : k;
    std::vector<T> q(m * nq), r(rr * n), q2(m * nq), r2(rr * n);
    sm::qr(m, n, c.a.data(), q.data(), r.data(), complete);
    sm::qr(m, n, c.a.data(), q2.data(), r2.data(), complete);
    ck.holds(bitwise_same(q.data(), q2.data(), m * nq) && bitwise_same(r.data(), r2.data(), rr * n),
             "deterministic", where);
    long double rec = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        LC acc = 0;
        for (int l = 0; l < rr; ++l) acc += to_ld(q[i * nq + l]) * to_ld(r[l * n + j]);
        rec += std::norm(to_ld(c.a[i * n + j]) - acc);
      }
    ck.le(double(std::sqrt(rec) / denom), tolerance, "|a - q r| / |a|", where);
    ck.le(double(orth_cols_error(q.data(), m, nq)), tolerance, "|q^H q - I|", where);
    bool triangular = true;
    for (int i = 0; i < rr; ++i)
      for (int j = 0; j < std::min(i, n); ++j) triangular = triangular && r[i * n + j] == T(0);
    ck.holds(triangular, "zeros below r's diagonal", where);
    if (!c.full_rank) continue;  // q, r are not unique functions of a when rank deficient
    std::vector<T> ql, rl;
    lapack_qr(m, n, c.a, complete, ql, rl);
    long double dq = 0, dr = 0;
    for (int i = 0; i < m * nq; ++i) dq = std::max(dq, std::abs(to_ld(q[i]) - to_ld(ql[i])));
    for (int i = 0; i < rr * n; ++i) dr = std::max(dr, std::abs(to_ld(r[i]) - to_ld(rl[i])));
    ck.le(double(dq), tolerance * cond, "|q - q_lapack| (tolerance * cond)", where);
    ck.le(double(dr / denom), tolerance * cond, "|r - r_lapack| / |a| (tolerance * cond)", where);
  }
}

// ---- tests -------------------------------------------------------------------------------------

template <class T>
class LinalgSmallKernels : public ::testing::Test {};

struct TypeNames {
  template <class T>
  static std::string GetName(int) {
    return type_name<T>();
  }
};

using KernelTypes = ::testing::Types<float, double, c64, c128>;
TYPED_TEST_SUITE(LinalgSmallKernels, KernelTypes, TypeNames);

TYPED_TEST(LinalgSmallKernels, SvdMatchesLapack) {
  using T = TypeParam;
  Checks ck;
  Rng g{seed_for<T>()};
  for (int m : kSizes)
    for (int n : kSizes)
      for (const Case<T>& c : general_cases<T>(m, n, g)) check_svd(m, n, c, ck);
}

TYPED_TEST(LinalgSmallKernels, EighMatchesLapack) {
  using T = TypeParam;
  Checks ck;
  Rng g{seed_for<T>() + 1000};
  for (int n : kSizes)
    for (const Case<T>& c : hermitian_cases<T>(n, g)) check_eigh(n, c, g, ck);
}

TYPED_TEST(LinalgSmallKernels, QrMatchesLapack) {
  using T = TypeParam;
  Checks ck;
  Rng g{seed_for<T>()};
  for (int m : kSizes)
    for (int n : kSizes)
      for (const Case<T>& c : general_cases<T>(m, n, g)) check_qr(m, n, c, ck);
}

}  // namespace
