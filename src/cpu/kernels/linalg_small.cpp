// Small dense SVD / eigh / QR kernels (Note [Small linalg kernels] in linalg_small.hpp).
//
// Working copies are column-major in stack arrays so that the Jacobi rotations and Householder
// updates stream over contiguous columns. Complex products are written out by hand: std::complex's
// operator* calls __mulsc3/__muldc3 (NaN/Inf recovery) under strict IEEE flags, which would
// dominate the cost at these sizes, and inputs are finite anyway.
#include "cpu/kernels/linalg_small.hpp"

#include <cmath>
#include <limits>
#include <new>
#include <utility>

#include "cpu/kernels/complex_mul.hpp"

namespace tenferro::detail::small {
namespace {

template <class T>
using R = real_t<T>;

// conj(x) * y
template <class T>
inline T cmul(const T& x, const T& y) noexcept {
  if constexpr (is_complex_v<T>) {
    return T(x.real() * y.real() + x.imag() * y.imag(), x.real() * y.imag() - x.imag() * y.real());
  } else {
    return x * y;
  }
}

template <class T>
inline T conj_(const T& x) noexcept {
  if constexpr (is_complex_v<T>) {
    return T(x.real(), -x.imag());
  } else {
    return x;
  }
}

template <class T>
inline R<T> abs2(const T& x) noexcept {
  if constexpr (is_complex_v<T>) {
    return x.real() * x.real() + x.imag() * x.imag();
  } else {
    return x * x;
  }
}

template <class T>
inline R<T> re(const T& x) noexcept {
  if constexpr (is_complex_v<T>) {
    return x.real();
  } else {
    return x;
  }
}

template <class Real>
inline Real maxr(Real a, Real b) noexcept {  // no NaNs here, so no need for fmax's semantics
  return a < b ? b : a;
}

// max(|Re x|, |Im x|): a cheap magnitude, within sqrt(2) of |x|, for range checks.
template <class T>
inline R<T> absmax(const T& x) noexcept {
  if constexpr (is_complex_v<T>) {
    return maxr(std::fabs(x.real()), std::fabs(x.imag()));
  } else {
    return std::fabs(x);
  }
}

template <class T>
inline T scal(const T& x, R<T> r) noexcept {
  if constexpr (is_complex_v<T>) {
    return T(x.real() * r, x.imag() * r);
  } else {
    return x * r;
  }
}

// Uninitialised stack storage for N values of T. A plain `T buf[N]` would zero-fill for complex T
// (std::complex's default constructor), which costs more than the whole 2x2 computation. T is
// an implicit-lifetime type, so the bytes may be used as T objects directly (C++20 P0593).
template <class T, int N>
struct Scratch {
  alignas(T) unsigned char bytes[sizeof(T) * N];
  T* get() noexcept { return std::launder(reinterpret_cast<T*>(bytes)); }
};

template <class Real>
struct Consts {
  static constexpr Real eps = std::numeric_limits<Real>::epsilon();
  static constexpr Real tiny = std::numeric_limits<Real>::min();
  // svd / eigh bring the largest entry into [2^lo_exp, 2^hi_exp] (2^+-8 for float, 2^+-64 for
  // double) before squared norms are formed, so that squares of entries down to eps^2 times the
  // largest stay normal: Jacobi's convergence tests are relative and need those digits.
  static constexpr int hi_exp = std::numeric_limits<Real>::max_exponent / 16;
  static constexpr int lo_exp = -hi_exp;
};

// |x|: the square root of the sum of squares where the squares can neither underflow nor
// overflow, else scaled by max(|re|, |im|) (not std::hypot: the batched complex svd and eigh
// repeat these operations lane by lane, and libm's hypot is no sequence of IEEE operations they
// could repeat).
template <class T>
inline R<T> abs_(const T& x) noexcept {
  if constexpr (is_complex_v<T>) {
    using Real = R<T>;
    const Real s = x.real() * x.real() + x.imag() * x.imag();
    if (s < Consts<Real>::tiny / Consts<Real>::eps || s > std::numeric_limits<Real>::max() / 4) {
      const Real ar = std::fabs(x.real()), ai = std::fabs(x.imag());
      const Real w = ar < ai ? ai : ar;
      if (w == Real(0) || w > std::numeric_limits<Real>::max()) return w;  // 0, Inf
      const Real qr = ar / w, qi = ai / w;
      return w * std::sqrt(qr * qr + qi * qi);
    }
    return std::sqrt(s);
  } else {
    return std::fabs(x);
  }
}

// Multiplies n entries by 2^e, in two steps so that 2^e itself need not be representable.
template <class T>
void scale_pow2(T* x, int n, int e) noexcept {
  using Real = R<T>;
  const int e1 = e / 2, e2 = e - e1;
  const Real f1 = std::ldexp(Real(1), e1), f2 = std::ldexp(Real(1), e2);
  for (int i = 0; i < n; ++i) x[i] = scal(scal(x[i], f1), f2);
}

// The exponent to scale a matrix whose largest |Re|/|Im| is amax by, or 0 when it is in range.
template <class Real>
int range_exponent(Real amax) noexcept {
  constexpr Real lo = pow2<Real>(Consts<Real>::lo_exp), hi = pow2<Real>(Consts<Real>::hi_exp);
  if (amax == Real(0) || (amax >= lo && amax <= hi)) return 0;
  return -std::ilogb(amax);
}

// The Jacobi rotation that diagonalises the Hermitian 2x2 [[app, apq], [conj(apq), aqq]] (with
// |apq| = absg > 0): J = [[c, s e], [-s conj(e), c]], e = apq / |apq|, and J^H A J has diagonal
// (app - t |apq|, aqq + t |apq|), t = s / c. t is the smaller root of t^2 + 2 zeta t - 1 = 0,
// zeta = (aqq - app) / (2 |apq|) (rotation angle <= pi/4, the choice that makes cyclic Jacobi
// converge).
template <class Real>
struct Rotation {
  Real c, s, t;
};
template <class Real>
inline Rotation<Real> jacobi_rotation(Real app, Real aqq, Real absg) noexcept {
  constexpr int lo = std::numeric_limits<Real>::min_exponent / 2 + 2;
  constexpr int hi = std::numeric_limits<Real>::max_exponent / 2 - 2;
  const Real tau = aqq - app, g = 2 * absg, at = std::fabs(tau);
  Real c, s, t;
  if (g > pow2<Real>(lo) && g < pow2<Real>(hi) && at < pow2<Real>(hi)) {
    // With r = |(tau, g)| and w = r + |tau|: t = g / w, c = w / sqrt(2 r w), s = g / sqrt(2 r w).
    // Two square roots and a division in sequence instead of the textbook form's five
    // long-latency operations; this chain dominates a rotation of short columns.
    const Real r = std::sqrt(tau * tau + g * g);
    const Real w = r + at;
    const Real inv = 1 / std::sqrt(2 * r * w);
    c = w * inv;
    s = g * inv;
    t = g / w;
  } else {
    // Squares out of range: zeta directly; for huge zeta, sqrt(1 + zeta^2) would overflow, and
    // t = 1 / (2 zeta) to within eps^2 there.
    const Real az = at / g;
    t = az > 1 / Consts<Real>::eps ? Real(0.5) / az : Real(1) / (az + std::sqrt(1 + az * az));
    c = 1 / std::sqrt(1 + t * t);
    s = c * t;
  }
  if (tau < 0) {
    s = -s;
    t = -t;
  }
  return {c, s, t};
}

// s e and s conj(e) of the rotation above, e = g / |g| the phase of the off-diagonal g.
template <class T>
struct SignedSines {
  T se, sec;
};
template <class T>
inline SignedSines<T> signed_sines(const T& g, R<T> absg, R<T> s) noexcept {
  if constexpr (is_complex_v<T>) {
    const T se = scal(scal(g, 1 / absg), s);
    return {se, conj_(se)};
  } else {
    const T se = g < 0 ? -s : s;
    return {se, se};
  }
}

// [x, y] <- [x, y] J for the rotation above: x' = c x - s conj(e) y, y' = s e x + c y.
// se = s e, sec = s conj(e).
template <class T>
inline void rotate_cols(T* x, T* y, int len, R<T> c, const T& se, const T& sec) noexcept {
  for (int i = 0; i < len; ++i) {
    const T xi = x[i], yi = y[i];
    x[i] = scal(xi, c) - fast_mul(sec, yi);
    y[i] = fast_mul(se, xi) + scal(yi, c);
  }
}

// Reductions use four interleaved partial sums (a fixed order, so still deterministic): a single
// accumulator makes a length-16 dot product a chain of 16 dependent adds, and GCC may not
// reassociate it into vector lanes itself without -ffast-math.
template <class T>
inline T dotc(const T* x, const T* y, int len) noexcept {  // x^H y
  if constexpr (is_complex_v<T>) {
    using Real = R<T>;
    Real r0 = 0, r1 = 0, i0 = 0, i1 = 0;
    int i = 0;
    for (; i + 2 <= len; i += 2) {
      r0 += x[i].real() * y[i].real() + x[i].imag() * y[i].imag();
      i0 += x[i].real() * y[i].imag() - x[i].imag() * y[i].real();
      r1 += x[i + 1].real() * y[i + 1].real() + x[i + 1].imag() * y[i + 1].imag();
      i1 += x[i + 1].real() * y[i + 1].imag() - x[i + 1].imag() * y[i + 1].real();
    }
    if (i < len) {
      r0 += x[i].real() * y[i].real() + x[i].imag() * y[i].imag();
      i0 += x[i].real() * y[i].imag() - x[i].imag() * y[i].real();
    }
    return T(r0 + r1, i0 + i1);
  } else {
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= len; i += 4) {
      s0 += x[i] * y[i];
      s1 += x[i + 1] * y[i + 1];
      s2 += x[i + 2] * y[i + 2];
      s3 += x[i + 3] * y[i + 3];
    }
    for (; i < len; ++i) s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
  }
}

template <class T>
inline R<T> sumsq(const T* x, int len) noexcept {
  if constexpr (is_complex_v<T>) {
    return sumsq(reinterpret_cast<const R<T>*>(x), 2 * len);
  } else {
    return dotc(x, x, len);
  }
}

// As rotate_cols, also returning the squared norms of the new columns: fresh norms (rather than
// the updates alpha - t |gamma|, beta + t |gamma|) keep the convergence test exact.
template <class T>
inline void rotate_cols_norms(T* x, T* y, int len, R<T> c, const T& se, const T& sec, R<T>& nx,
                              R<T>& ny) noexcept {
  rotate_cols(x, y, len, c, se, sec);
  nx = sumsq(x, len);
  ny = sumsq(y, len);
}

// Stable insertion sort of idx[0..k) by key (descending or ascending). Deterministic; k <= 16.
template <class Real>
void sort_index(const Real* key, int* idx, int k, bool descending) noexcept {
  for (int i = 0; i < k; ++i) idx[i] = i;
  for (int i = 1; i < k; ++i) {
    const int v = idx[i];
    int j = i - 1;
    while (j >= 0 && (descending ? key[idx[j]] < key[v] : key[idx[j]] > key[v])) {
      idx[j + 1] = idx[j];
      --j;
    }
    idx[j + 1] = v;
  }
}

// Makes column j of the column-major rows x * matrix U a unit vector orthogonal to columns 0..j-1
// (orthonormal). Column j holds a candidate of norm ~1 (or zero); it is kept if it survives two
// rounds of classical Gram-Schmidt with at least half its length, else replaced by the unit vector
// e_i with the largest component outside span(U[:, 0..j)) (>= (rows - j) / rows), orthogonalised.
template <class T>
void orthonormalise_column(T* U, int rows, int j) noexcept {
  using Real = R<T>;
  T* x = U + j * rows;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const Real before = sumsq(x, rows);
    if (before > Real(0)) {
      for (int round = 0; round < 2; ++round) {
        for (int l = 0; l < j; ++l) {
          const T* ul = U + l * rows;
          const T p = dotc(ul, x, rows);
          for (int i = 0; i < rows; ++i) x[i] -= fast_mul(p, ul[i]);
        }
      }
      const Real after = sumsq(x, rows);
      // The fallback unit vector keeps >= 1 / rows of its length: accept it whatever is left.
      if (after > (attempt == 0 ? Real(0.25) * before : Real(0))) {
        const Real inv = 1 / std::sqrt(after);
        for (int i = 0; i < rows; ++i) x[i] = scal(x[i], inv);
        return;
      }
    }
    // Fallback: the unit vector least represented in the current span.
    int best = 0;
    Real best_res = -1;
    for (int i = 0; i < rows; ++i) {
      Real in_span = 0;
      for (int l = 0; l < j; ++l) in_span += abs2(U[l * rows + i]);
      if (1 - in_span > best_res) {
        best_res = 1 - in_span;
        best = i;
      }
    }
    for (int i = 0; i < rows; ++i) x[i] = T(i == best ? 1 : 0);
  }
}

// ---------------------------------------------------------------------------------------------
// SVD

template <class T>
bool svd_impl(int m, int n, const T* a, T* u_out, R<T>* s_out, T* vh_out) {
  using Real = R<T>;
  constexpr Real eps = Consts<Real>::eps;
  const bool vectors = u_out != nullptr || vh_out != nullptr;
  const bool trans = m < n;
  const int M = trans ? n : m;  // rows of the working matrix G (a or a^H)
  const int N = trans ? m : n;  // its columns; N = k = min(m, n) <= M

  Scratch<T, kMaxDim * kMaxDim> g_buf;
  T* g = g_buf.get();  // column-major M x N
  Scratch<T, kMaxDim * kMaxDim> v_buf;
  T* v = v_buf.get();  // column-major N x N, accumulated rotations
  Real nrm[kMaxDim];   // squared column norms of g
  Real amax = 0;
  if (!trans) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const T x = a[i * n + j];
        g[j * M + i] = x;
        amax = maxr(amax, absmax(x));
      }
  } else {
    // column j of a^H is the conjugate of row j of a.
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < M; ++i) {
        const T x = a[j * n + i];
        g[j * M + i] = conj_(x);
        amax = maxr(amax, absmax(x));
      }
  }
  const int e = range_exponent(amax);
  if (e != 0) scale_pow2(g, M * N, e);
  for (int j = 0; j < N; ++j) nrm[j] = sumsq(g + j * M, M);
  if (vectors)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) v[j * N + i] = T(i == j ? 1 : 0);

  const Real tol = std::sqrt(Real(M)) * eps;
  constexpr Real eps4 = eps * eps * eps * eps;
  constexpr Real floor_abs = Consts<Real>::tiny / eps;
  bool converged = N == 1;
  for (int sweep = 0; sweep < 60 && !converged; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < N - 1; ++p) {
      for (int q = p + 1; q < N; ++q) {
        T* gp = g + p * M;
        T* gq = g + q * M;
        const T gamma = dotc(gp, gq, M);
        const Real absg = abs_(gamma);
        // Also true when a column is exactly zero (absg == 0).
        if (absg <= tol * std::sqrt(nrm[p]) * std::sqrt(nrm[q])) continue;
        // A column below eps^2 of its partner (or near underflow) is rounding noise of an (almost)
        // rank-deficient a: rotating it only regenerates noise a factor eps smaller, sweep after
        // sweep until underflow. Its singular value is < eps^2 s_max either way, and its u column
        // is re-orthogonalised below.
        const Real nmin = nrm[p] < nrm[q] ? nrm[p] : nrm[q],
                   nmax = nrm[p] < nrm[q] ? nrm[q] : nrm[p];
        if (nmin < floor_abs || nmin < eps4 * nmax) continue;
        rotated = true;
        const auto [c, s, t] = jacobi_rotation(nrm[p], nrm[q], absg);
        const auto [se, sec] = signed_sines(gamma, absg, s);
        rotate_cols_norms(gp, gq, M, c, se, sec, nrm[p], nrm[q]);
        if (vectors) rotate_cols(v + p * N, v + q * N, N, c, se, sec);
      }
    }
    converged = !rotated;
  }

  svd_finish<T>(m, n, g, vectors ? v : nullptr, nrm, e, u_out, s_out, vh_out);
  return converged;
}

}  // namespace

template <class T>
void svd_finish(int m, int n, const T* g, const T* v, const real_t<T>* nrm, int e, T* u_out,
                real_t<T>* s_out, T* vh_out) {
  using Real = R<T>;
  constexpr Real eps = Consts<Real>::eps;
  const bool vectors = v != nullptr;
  const bool trans = m < n;
  const int M = trans ? n : m;
  const int N = trans ? m : n;
  int idx[kMaxDim];
  sort_index(nrm, idx, N, /*descending=*/true);
  Real sv[kMaxDim];
  for (int j = 0; j < N; ++j) sv[j] = std::sqrt(nrm[idx[j]]);
  for (int j = 0; j < N; ++j) s_out[j] = e != 0 ? std::ldexp(sv[j], -e) : sv[j];
  if (!vectors) return;

  // Left vectors of the working problem: uw = G v / s, column-major M x N, sorted.
  Scratch<T, kMaxDim * kMaxDim> uw_buf;
  T* uw = uw_buf.get();
  const Real small = Real(M) * eps * sv[0];
  for (int j = 0; j < N; ++j) {
    const T* src = g + idx[j] * M;
    T* dst = uw + j * M;
    if (sv[j] > Real(0)) {
      const Real inv = 1 / sv[j];
      for (int i = 0; i < M; ++i) dst[i] = scal(src[i], inv);
    } else {
      for (int i = 0; i < M; ++i) dst[i] = T(0);
    }
    // Columns of (numerically) zero singular value carry mostly rounding noise: make sure they
    // are orthonormal to the others, completing the basis where nothing usable is left.
    if (!(sv[j] > small)) orthonormalise_column(uw, M, j);
  }

  if (!trans) {
    // a = uw diag(s) v^H: u = uw (m x n), vh = v^H permuted.
    if (u_out)
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) u_out[i * N + j] = uw[j * M + i];
    if (vh_out)
      for (int j = 0; j < N; ++j) {
        const T* vc = v + idx[j] * N;
        for (int i = 0; i < N; ++i) vh_out[j * N + i] = conj_(vc[i]);
      }
  } else {
    // a^H = uw diag(s) v^H, so a = v diag(s) uw^H: u = v (m x m) permuted, vh = uw^H (m x n).
    if (u_out)
      for (int j = 0; j < N; ++j) {
        const T* vc = v + idx[j] * N;
        for (int i = 0; i < N; ++i) u_out[i * N + j] = vc[i];
      }
    if (vh_out)
      for (int j = 0; j < N; ++j)
        for (int i = 0; i < M; ++i) vh_out[j * M + i] = conj_(uw[j * M + i]);
  }
}

namespace {

// ---------------------------------------------------------------------------------------------
// eigh

template <class T>
bool eigh_impl(int n, const T* a, bool lower, R<T>* w_out, T* v_out) {
  using Real = R<T>;
  constexpr Real eps = Consts<Real>::eps;
  const bool vectors = v_out != nullptr;

  if (n == 1) {
    w_out[0] = re(a[0]);
    if (vectors) v_out[0] = T(1);
    return true;
  }

  // Full Hermitian copy A (column-major; A(i, j) = A[j * n + i]) with a real diagonal.
  Scratch<T, kMaxDim * kMaxDim> A_buf;
  T* A = A_buf.get();
  Real d[kMaxDim];  // the diagonal, kept separately as reals
  Real amax = 0;
  for (int i = 0; i < n; ++i) {
    d[i] = re(a[i * n + i]);
    amax = maxr(amax, std::fabs(d[i]));
    for (int j = 0; j < i; ++j) {
      // (i, j) with i > j is in the lower triangle.
      const T x = lower ? a[i * n + j] : conj_(a[j * n + i]);
      A[j * n + i] = x;
      A[i * n + j] = conj_(x);
      amax = maxr(amax, absmax(x));
    }
    A[i * n + i] = T(0);
  }
  const int e = range_exponent(amax);
  if (e != 0) {
    scale_pow2(A, n * n, e);
    scale_pow2(d, n, e);
  }
  Scratch<T, kMaxDim * kMaxDim> V_buf;
  T* V = V_buf.get();
  if (vectors)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) V[j * n + i] = T(i == j ? 1 : 0);

  // Off-diagonal entries below tol_abs are noise at the working precision (they move eigenvalues
  // by far less than eps |A|); the relative test gives graded definite matrices their relative
  // accuracy.
  Real fro2 = 0;
  for (int i = 0; i < n; ++i) fro2 += d[i] * d[i];
  fro2 += sumsq(A, n * n);
  const Real tol_abs = eps * eps * std::sqrt(fro2);

  bool converged = false;
  for (int sweep = 0; sweep < 60 && !converged; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < n - 1; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const T apq = A[q * n + p];
        const Real absg = abs_(apq);
        if (absg <= tol_abs ||
            absg <= eps * std::sqrt(std::fabs(d[p])) * std::sqrt(std::fabs(d[q])))
          continue;
        rotated = true;
        const auto [c, s, t] = jacobi_rotation(d[p], d[q], absg);
        const auto [se, sec] = signed_sines(apq, absg, s);
        d[p] -= t * absg;
        d[q] += t * absg;
        T* cp = A + p * n;
        T* cq = A + q * n;
        // Entries p and q of the two columns are the 2x2 block, handled above; the others are
        // rotated, then mirrored into rows p and q.
        cp[q] = cq[p] = T(0);
        cp[p] = cq[q] = T(0);
        rotate_cols(cp, cq, n, c, se, sec);
        for (int r = 0; r < n; ++r) {
          A[r * n + p] = conj_(cp[r]);
          A[r * n + q] = conj_(cq[r]);
        }
        cp[q] = cq[p] = T(0);
        if (vectors) rotate_cols(V + p * n, V + q * n, n, c, se, sec);
      }
    }
    converged = !rotated;
  }

  eigh_finish<T>(n, d, vectors ? V : nullptr, e, w_out, v_out);
  return converged;
}

}  // namespace

template <class T>
void eigh_finish(int n, const real_t<T>* d, const T* V, int e, real_t<T>* w_out, T* v_out) {
  int idx[kMaxDim];
  sort_index(d, idx, n, /*descending=*/false);
  for (int j = 0; j < n; ++j) w_out[j] = e != 0 ? std::ldexp(d[idx[j]], -e) : d[idx[j]];
  if (V != nullptr)
    for (int j = 0; j < n; ++j) {
      const T* vc = V + idx[j] * n;
      for (int i = 0; i < n; ++i) v_out[i * n + j] = vc[i];
    }
}

template <class Real>
int scale_exponent(Real amax) noexcept {
  return range_exponent(amax);
}

namespace {

// ---------------------------------------------------------------------------------------------
// QR (LAPACK xGEQR2 + xORG2R / xUNG2R)

// 2-norm of x without overflow or destructive underflow (plain sum of squares when safe).
template <class T>
R<T> nrm2(const T* x, int len) noexcept {
  using Real = R<T>;
  const Real ss = sumsq(x, len);
  if (ss >= Consts<Real>::tiny / Consts<Real>::eps && ss <= std::numeric_limits<Real>::max() / 4)
    return std::sqrt(ss);
  Real scale = 0;
  for (int i = 0; i < len; ++i) scale = maxr(scale, absmax(x[i]));
  if (scale == Real(0)) return 0;
  Real acc = 0;
  // Divide (no reciprocal): scale may be subnormal, and 1 / scale then overflows.
  for (int i = 0; i < len; ++i) {
    if constexpr (is_complex_v<T>) {
      acc += abs2(T(x[i].real() / scale, x[i].imag() / scale));
    } else {
      acc += abs2(x[i] / scale);
    }
  }
  return scale * std::sqrt(acc);
}

// xLAPY2 / xLAPY3: sqrt of a sum of squares without unnecessary overflow.
template <class Real>
Real lapy2(Real x, Real y) noexcept {
  const Real xa = std::fabs(x), ya = std::fabs(y);
  const Real w = std::fmax(xa, ya), z = std::fmin(xa, ya);
  if (z == Real(0) || w > std::numeric_limits<Real>::max()) return w;
  return w * std::sqrt(1 + (z / w) * (z / w));
}
template <class Real>
Real lapy3(Real x, Real y, Real z) noexcept {
  const Real xa = std::fabs(x), ya = std::fabs(y), za = std::fabs(z);
  const Real w = std::fmax(xa, std::fmax(ya, za));
  if (w == Real(0)) return xa + ya + za;
  return w * std::sqrt((xa / w) * (xa / w) + (ya / w) * (ya / w) + (za / w) * (za / w));
}

// xLARFG: H^H [alpha; x] = [beta; 0] with H = I - tau [1; v] [1; v]^H; x is overwritten by v and
// alpha by beta. len is the length of [alpha; x].
template <class T>
T larfg(int len, T& alpha, T* x) noexcept {
  using Real = R<T>;
  if constexpr (is_complex_v<T>) {
    if (len <= 0) return T(0);
  } else {
    if (len <= 1) return T(0);
  }
  Real xnorm = nrm2(x, len - 1);
  Real alphr = re(alpha);
  Real alphi = 0;
  if constexpr (is_complex_v<T>) alphi = alpha.imag();
  if (xnorm == Real(0) && alphi == Real(0)) return T(0);
  Real beta;
  if constexpr (is_complex_v<T>) {
    beta = -std::copysign(lapy3(alphr, alphi, xnorm), alphr);
  } else {
    beta = -std::copysign(lapy2(alphr, xnorm), alphr);
  }
  const Real safmin = Consts<Real>::tiny / Consts<Real>::eps;
  const Real rsafmn = 1 / safmin;
  int knt = 0;
  if (std::fabs(beta) < safmin) {
    // beta may be inaccurate; scale x and recompute (as LAPACK does).
    do {
      ++knt;
      for (int i = 0; i < len - 1; ++i) x[i] = scal(x[i], rsafmn);
      beta *= rsafmn;
      alphr *= rsafmn;
      alphi *= rsafmn;
    } while (std::fabs(beta) < safmin && knt < 20);
    xnorm = nrm2(x, len - 1);
    if constexpr (is_complex_v<T>) {
      beta = -std::copysign(lapy3(alphr, alphi, xnorm), alphr);
    } else {
      beta = -std::copysign(lapy2(alphr, xnorm), alphr);
    }
  }
  T tau;
  if constexpr (is_complex_v<T>) {
    tau = T((beta - alphr) / beta, -alphi / beta);
    // zladiv(1, alpha - beta): a robust complex reciprocal (Smith's formula).
    const Real dr = alphr - beta, di = alphi;
    T r;
    if (std::fabs(di) <= std::fabs(dr)) {
      const Real ratio = di / dr, den = dr + di * ratio;
      r = T(1 / den, -ratio / den);
    } else {
      const Real ratio = dr / di, den = di + dr * ratio;
      r = T(ratio / den, -1 / den);
    }
    for (int i = 0; i < len - 1; ++i) x[i] = fast_mul(r, x[i]);
  } else {
    tau = (beta - alphr) / beta;
    const Real sc = 1 / (alphr - beta);
    for (int i = 0; i < len - 1; ++i) x[i] *= sc;
  }
  for (int j = 0; j < knt; ++j) beta *= safmin;
  alpha = T(beta);
  return tau;
}

// C (rows x cols, column-major with leading dimension ld) := (I - tau v v^H) C, v[0] = 1 implied
// by the caller having stored 1 there.
template <class T>
inline void apply_reflector(const T* v, int rows, T tau, T* C, int ld, int cols) noexcept {
  if (tau == T(0)) return;
  for (int j = 0; j < cols; ++j) {
    T* cj = C + j * ld;
    const T wj = fast_mul(tau, dotc(v, cj, rows));
    for (int i = 0; i < rows; ++i) cj[i] -= fast_mul(wj, v[i]);
  }
}

template <class T>
void qr_impl(int m, int n, const T* a, T* q_out, T* r_out, bool complete) {
  const int k = m < n ? m : n;
  Scratch<T, kMaxDim * kMaxDim> W_buf;
  T* W = W_buf.get();  // column-major m x n
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) W[j * m + i] = a[i * n + j];

  Scratch<T, kMaxDim> tau_buf;
  T* tau = tau_buf.get();
  for (int i = 0; i < k; ++i) {
    T* col = W + i * m + i;
    tau[i] = larfg(m - i, col[0], col + 1);
    if (i < n - 1) {
      // xGEQR2 applies H(i)^H from the left.
      const T diag = col[0];
      col[0] = T(1);
      apply_reflector(col, m - i, conj_(tau[i]), col + m, m, n - i - 1);
      col[0] = diag;
    }
  }

  const int rrows = complete ? m : k;
  for (int i = 0; i < rrows; ++i)
    for (int j = 0; j < n; ++j) r_out[i * n + j] = i <= j ? W[j * m + i] : T(0);

  // xORG2R / xUNG2R: Q = H(0) ... H(k-1) applied to the first nq columns of the identity,
  // built in place over the reflectors.
  const int nq = complete ? m : k;
  Scratch<T, kMaxDim * kMaxDim> Q_buf;
  T* Q = Q_buf.get();  // column-major m x nq
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < m; ++i) Q[j * m + i] = W[j * m + i];
  for (int j = k; j < nq; ++j)
    for (int i = 0; i < m; ++i) Q[j * m + i] = T(i == j ? 1 : 0);
  for (int i = k - 1; i >= 0; --i) {
    T* col = Q + i * m + i;
    if (i < nq - 1) {
      col[0] = T(1);
      apply_reflector(col, m - i, tau[i], col + m, m, nq - i - 1);
    }
    const T mt = -tau[i];
    for (int l = 1; l < m - i; ++l) col[l] = fast_mul(mt, col[l]);
    col[0] = T(1) - tau[i];
    for (int l = 0; l < i; ++l) Q[i * m + l] = T(0);
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < nq; ++j) q_out[i * nq + j] = Q[j * m + i];
}

}  // namespace

template <class T>
bool svd(int m, int n, const T* a, T* u, real_t<T>* s, T* vh) {
  return svd_impl<T>(m, n, a, u, s, vh);
}

template <class T>
bool eigh(int n, const T* a, bool lower, real_t<T>* w, T* v) {
  return eigh_impl<T>(n, a, lower, w, v);
}

template <class T>
void qr(int m, int n, const T* a, T* q, T* r, bool complete) {
  qr_impl<T>(m, n, a, q, r, complete);
}

// Cholesky and LU (the loops of linalg_solve.cpp / linalg_more.cpp, moved here) spell complex
// arithmetic out in real operations, so that the batched kernels (linalg_simd_solve_complex.cpp)
// can repeat it lane by lane (Note [Complex batched solve arithmetic]).
//
// Note [Complex batched solve arithmetic]: std::complex's operator* is the textbook formula
// followed, when both parts come out NaN, by a call to libgcc's __muldc3 (Annex G's recovery of
// infinities), and operator/ is always a call to __divdc3 / __divsc3 (scaled Smith's formula in
// double, a double-precision textbook formula in float): library code with branches per call that
// a vector lane cannot repeat bit for bit. So these kernels use instead, for complex T:
//  - x * y: fast_mul (complex_mul.hpp), x re y re - x im y im, x re y im + x im y re; for finite
//    products the bits of operator*, which only differs where it recovers an infinity from NaN;
//  - x * conj(y) (Cholesky): x re y re + x im y im, x im y re - x re y im (the bits of
//    std::complex's for finite values); |x|^2 as std::norm, x re^2 + x im^2;
//  - x / d (LU's multipliers, lu_solve's back substitution): Smith's formula (as larfg's
//    reciprocal below), with its ratio and denominator computed once per divisor (cdiv_setup),
//    within a few ulps of __divdc3 and without its overflow guards for |d| near the overflow
//    threshold (a pivot there makes the factors overflow anyway);
//  - x / l_jj (Cholesky, a real divisor): both parts divided, as std::complex.
// NaN / Inf input then takes the same operations on both paths, so the batched lanes equal these
// loops bitwise on any input.

// Smith's formula for x / d: with |d im| <= |d re| (not swapped), ratio = d im / d re and
// den = d re + d im ratio; else (swapped, NaN included) the roles of re and im trade places.
template <class Real>
struct CDiv {
  bool swapped;
  Real ratio, den;
};
template <class Real>
inline CDiv<Real> cdiv_setup(Real dr, Real di) noexcept {
  if (std::fabs(di) <= std::fabs(dr)) {
    const Real ratio = di / dr;
    return {false, ratio, dr + di * ratio};
  }
  const Real ratio = dr / di;
  return {true, ratio, di + dr * ratio};
}
template <class Real>
inline std::complex<Real> cdiv(const std::complex<Real>& x, const CDiv<Real>& q) noexcept {
  const Real xr = x.real(), xi = x.imag();
  const Real rr = xr * q.ratio, ir = xi * q.ratio;
  if (!q.swapped) return {(xr + ir) / q.den, (xi - rr) / q.den};
  return {(rr + xi) / q.den, (ir - xr) / q.den};
}

template <class T>
int cholesky(int n, T* x) {
  using Real = real_t<T>;
  int info = 0;
  for (int j = 0; j < n; ++j) {
    Real d = std::real(x[j * n + j]);
    for (int k = 0; k < j; ++k) d -= abs2(x[j * n + k]);
    if (!(d > Real(0))) {  // also NaN
      info = j + 1;
      break;
    }
    const Real ljj = std::sqrt(d);
    x[j * n + j] = T(ljj);
    for (int i = j + 1; i < n; ++i) {
      if constexpr (is_complex_v<T>) {
        Real sr = x[i * n + j].real(), si = x[i * n + j].imag();
        for (int k = 0; k < j; ++k) {
          const T a = x[i * n + k], b = x[j * n + k];  // s -= a conj(b)
          sr -= a.real() * b.real() + a.imag() * b.imag();
          si -= a.imag() * b.real() - a.real() * b.imag();
        }
        x[i * n + j] = T(sr / ljj, si / ljj);
      } else {
        T s = x[i * n + j];
        for (int k = 0; k < j; ++k) s -= x[i * n + k] * x[j * n + k];
        x[i * n + j] = s / ljj;
      }
    }
  }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) x[i * n + j] = T(0);
  return info;
}

template <class T>
inline R<T> abs1(const T& v) noexcept {  // LAPACK's pivot measure, as i?amax
  if constexpr (is_complex_v<T>)
    return std::abs(v.real()) + std::abs(v.imag());
  else
    return std::abs(v);
}

// x - y, for complex T part by part (as std::complex's operator-).
template <class T>
inline T sub_(const T& x, const T& y) noexcept {
  if constexpr (is_complex_v<T>)
    return T(x.real() - y.real(), x.imag() - y.imag());
  else
    return x - y;
}

template <class T>
int lu(int m, int n, T* a, int* piv) {
  const int k = m < n ? m : n;
  int info = 0;
  for (int c = 0; c < k; ++c) {
    int p = c;
    R<T> best = abs1(a[c * n + c]);
    for (int i = c + 1; i < m; ++i)
      if (abs1(a[i * n + c]) > best) best = abs1(a[i * n + c]), p = i;
    piv[c] = p;
    if (p != c)
      for (int j = 0; j < n; ++j) std::swap(a[c * n + j], a[p * n + j]);
    const T d = a[c * n + c];
    if (d == T(0)) {
      if (info == 0) info = c + 1;
      continue;
    }
    if constexpr (is_complex_v<T>) {
      const CDiv<R<T>> q = cdiv_setup(d.real(), d.imag());
      for (int i = c + 1; i < m; ++i) {
        const T l = cdiv(a[i * n + c], q);
        a[i * n + c] = l;
        for (int j = c + 1; j < n; ++j)
          a[i * n + j] = sub_(a[i * n + j], fast_mul(l, a[c * n + j]));
      }
    } else {
      for (int i = c + 1; i < m; ++i) {
        const T l = a[i * n + c] / d;
        a[i * n + c] = l;
        for (int j = c + 1; j < n; ++j) a[i * n + j] -= l * a[c * n + j];
      }
    }
  }
  return info;
}

template <class T>
void lu_solve(int n, const T* lu, const int* piv, T* b, int r) {
  for (int k = 0; k < n; ++k)
    if (piv[k] != k)
      for (int j = 0; j < r; ++j) std::swap(b[k * r + j], b[piv[k] * r + j]);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < i; ++k) {
      const T l = lu[i * n + k];
      for (int j = 0; j < r; ++j) b[i * r + j] = sub_(b[i * r + j], fast_mul(l, b[k * r + j]));
    }
  for (int i = n; i-- > 0;) {
    for (int k = i + 1; k < n; ++k) {
      const T u = lu[i * n + k];
      for (int j = 0; j < r; ++j) b[i * r + j] = sub_(b[i * r + j], fast_mul(u, b[k * r + j]));
    }
    const T d = lu[i * n + i];
    if constexpr (is_complex_v<T>) {
      const CDiv<R<T>> q = cdiv_setup(d.real(), d.imag());
      for (int j = 0; j < r; ++j) b[i * r + j] = cdiv(b[i * r + j], q);
    } else {
      for (int j = 0; j < r; ++j) b[i * r + j] /= d;
    }
  }
}

#define TENFERRO_SMALL_LINALG_INSTANTIATE(T)                                                       \
  template int cholesky<T>(int, T*);                                                               \
  template int lu<T>(int, int, T*, int*);                                                          \
  template void lu_solve<T>(int, const T*, const int*, T*, int);                                   \
  template bool svd<T>(int, int, const T*, T*, real_t<T>*, T*);                                    \
  template bool eigh<T>(int, const T*, bool, real_t<T>*, T*);                                      \
  template void qr<T>(int, int, const T*, T*, T*, bool);                                           \
  template void svd_finish<T>(int, int, const T*, const T*, const real_t<T>*, int, T*, real_t<T>*, \
                              T*);                                                                 \
  template void eigh_finish<T>(int, const real_t<T>*, const T*, int, real_t<T>*, T*);
TENFERRO_SMALL_LINALG_INSTANTIATE(float)
TENFERRO_SMALL_LINALG_INSTANTIATE(double)
TENFERRO_SMALL_LINALG_INSTANTIATE(c64)
TENFERRO_SMALL_LINALG_INSTANTIATE(c128)
#undef TENFERRO_SMALL_LINALG_INSTANTIATE
template int scale_exponent<float>(float) noexcept;
template int scale_exponent<double>(double) noexcept;

}  // namespace tenferro::detail::small
