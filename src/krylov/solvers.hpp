// Linear-system solvers over any Krylov vector type (Note [Krylov vectors]): conjugate gradients,
// MINRES, restarted GMRES and BiCGStab. `op` applies the map; every solver stops when the
// (recurrence) residual norm is <= tol * |b| and reports the number of steps.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "krylov/small_dense.hpp"
#include "krylov/space.hpp"

namespace tenferro::detail::krylov {

template <class V>
struct SolveOutcome {
  V x;
  std::int64_t iterations = 0;
  double residual = 0;  ///< |b - A x| of the recurrence
  bool converged = false;
};

/// The outcome with x and whether its residual met `target`.
template <class V>
SolveOutcome<V> finished(SolveOutcome<V> out, V x, double target) {
  out.converged = out.residual <= target;
  out.x = std::move(x);
  return out;
}

/// Conjugate gradients (A Hermitian positive definite).
template <class V, class Op>
SolveOutcome<V> solve_cg(const Op& op, const V& b, V x, double tol, std::int64_t max_iter) {
  const double bnorm = vnorm(b), target = tol * bnorm;
  V r = vaxpy(-1.0, op(x), b);
  V p = r;
  double rr = vinner(r, r).real();
  SolveOutcome<V> out;
  while (std::sqrt(rr) > target && out.iterations < max_iter) {
    ++out.iterations;
    const V ap = op(p);
    const Scalar pap = vinner(p, ap);
    if (pap.real() <= 0)  // not positive definite (or p == 0 after breakdown)
      break;
    const double alpha = rr / pap.real();
    x = vaxpy(alpha, p, x);
    r = vaxpy(-alpha, ap, r);
    const double rr_new = vinner(r, r).real();
    p = vaxpy(1.0, r, vscale(p, rr_new / rr));
    rr = rr_new;
  }
  out.residual = std::sqrt(rr);
  return finished(std::move(out), std::move(x), target);
}

/// MINRES (Paige-Saunders) for Hermitian A, possibly indefinite: a Lanczos recurrence and Givens
/// rotations, all scalars real because the Lanczos tridiagonal of a Hermitian map is real.
template <class V, class Op>
SolveOutcome<V> solve_minres(const Op& op, const V& b, V x, double tol, std::int64_t max_iter) {
  const double target = tol * vnorm(b);
  V r = vaxpy(-1.0, op(x), b);
  double eta = vnorm(r);
  SolveOutcome<V> out;
  out.residual = eta;
  if (eta <= target) return finished(std::move(out), std::move(x), target);
  V v = vscale(r, 1.0 / eta), v_old = vzeros_like(r);
  V w_prev = vzeros_like(r), w_prev2 = vzeros_like(r);
  double beta_prev = 0, c_prev = 1, c_prev2 = 1, s_prev = 0, s_prev2 = 0;
  while (std::abs(eta) > target && out.iterations < max_iter) {
    ++out.iterations;
    V p = vaxpy(-beta_prev, v_old, op(v));
    const double alpha = vinner(v, p).real();
    p = vaxpy(-alpha, v, p);
    const double beta_next = vnorm(p);
    const double delta = c_prev * alpha - c_prev2 * s_prev * beta_prev;
    const double rho1 = std::hypot(delta, beta_next);
    const double rho2 = s_prev * alpha + c_prev2 * c_prev * beta_prev;
    const double rho3 = s_prev2 * beta_prev;
    if (rho1 == 0) break;  // singular projected system
    const double c = delta / rho1, s = beta_next / rho1;
    V w = vscale(vaxpy(-rho2, w_prev, vaxpy(-rho3, w_prev2, v)), 1.0 / rho1);
    x = vaxpy(c * eta, w, x);
    eta = -s * eta;
    if (beta_next == 0) {  // invariant subspace: the solution is exact in it
      eta = 0;
      break;
    }
    v_old = std::move(v);
    v = vscale(p, 1.0 / beta_next);
    beta_prev = beta_next;
    c_prev2 = c_prev;
    c_prev = c;
    s_prev2 = s_prev;
    s_prev = s;
    w_prev2 = std::move(w_prev);
    w_prev = std::move(w);
  }
  out.residual = std::abs(eta);
  return finished(std::move(out), std::move(x), target);
}

/// Restarted GMRES(m): Arnoldi with full reorthogonalisation and complex Givens rotations.
template <class V, class Op>
SolveOutcome<V> solve_gmres(const Op& op, const V& b, V x, double tol, std::int64_t max_restarts,
                            std::int64_t m) {
  const double target = tol * vnorm(b);
  SolveOutcome<V> out;
  for (std::int64_t cycle = 0; cycle <= max_restarts; ++cycle) {
    V r = vaxpy(-1.0, op(x), b);
    const double beta = vnorm(r);
    out.residual = beta;
    if (beta <= target || cycle == max_restarts) break;
    std::vector<V> basis{vscale(r, 1.0 / beta)};
    SmallMat H(m + 1, m);
    std::vector<Scalar> g(static_cast<std::size_t>(m + 1)), cs(m), sn(m);
    g[0] = beta;
    std::int64_t j = 0;
    for (; j < m; ++j) {
      ++out.iterations;
      V w = op(basis[j]);
      std::vector<Scalar> coef(basis.size());
      const double h = orthogonalize<V>(w, basis, coef);
      for (std::size_t i = 0; i < coef.size(); ++i) H(i, j) = coef[i];
      H(j + 1, j) = h;
      for (std::int64_t i = 0; i < j; ++i) {  // previous rotations on the new column
        const Scalar a = H(i, j), bb = H(i + 1, j);
        H(i, j) = std::real(cs[i]) * a + sn[i] * bb;
        H(i + 1, j) = -std::conj(sn[i]) * a + std::real(cs[i]) * bb;
      }
      const Scalar a = H(j, j), bb = H(j + 1, j);
      const double rho = std::hypot(std::abs(a), std::abs(bb));
      if (rho == 0) break;
      if (std::abs(a) == 0) {
        cs[j] = 0;
        sn[j] = 1;
        H(j, j) = bb;
      } else {
        const Scalar phase = a / std::abs(a);
        cs[j] = std::abs(a) / rho;
        sn[j] = phase * std::conj(bb) / rho;
        H(j, j) = phase * rho;
      }
      H(j + 1, j) = 0;
      g[j + 1] = -std::conj(sn[j]) * g[j];
      g[j] = std::real(cs[j]) * g[j];
      out.residual = std::abs(g[j + 1]);
      if (h == 0 || out.residual <= target) {
        ++j;
        break;
      }
      basis.push_back(vscale(w, 1.0 / h));
    }
    // Back substitution for the j x j triangle, then x += basis * y.
    std::vector<Scalar> y(static_cast<std::size_t>(j));
    for (std::int64_t i = j - 1; i >= 0; --i) {
      Scalar s = g[i];
      for (std::int64_t l = i + 1; l < j; ++l) s -= H(i, l) * y[l];
      y[i] = s / H(i, i);
    }
    if (j > 0) x = vaxpy(1.0, combine<V>(std::span<const V>(basis.data(), j), y), x);
    if (out.residual <= target) {
      out.residual = vnorm(vaxpy(-1.0, op(x), b));  // the true residual decides
      if (out.residual <= target) break;
    }
  }
  return finished(std::move(out), std::move(x), target);
}

/// BiCGStab (van der Vorst) for any A; a breakdown (rho or omega = 0) ends the iteration.
template <class V, class Op>
SolveOutcome<V> solve_bicgstab(const Op& op, const V& b, V x, double tol, std::int64_t max_iter) {
  const double target = tol * vnorm(b);
  V r = vaxpy(-1.0, op(x), b);
  const V rhat = r;
  Scalar rho = 1, alpha = 1, omega = 1;
  V v = vzeros_like(r), p = vzeros_like(r);
  SolveOutcome<V> out;
  out.residual = vnorm(r);
  while (out.residual > target && out.iterations < max_iter) {
    ++out.iterations;
    const Scalar rho_new = vinner(rhat, r);
    if (rho_new == Scalar(0) || omega == Scalar(0)) break;
    const Scalar beta = (rho_new / rho) * (alpha / omega);
    p = vaxpy(1.0, r, vscale(vaxpy(-omega, v, p), beta));
    v = op(p);
    const Scalar rv = vinner(rhat, v);
    if (rv == Scalar(0)) break;
    alpha = rho_new / rv;
    V s = vaxpy(-alpha, v, r);
    if (vnorm(s) <= target) {
      x = vaxpy(alpha, p, x);
      out.residual = vnorm(s);
      break;
    }
    const V t = op(s);
    const double tt = vinner(t, t).real();
    omega = tt > 0 ? vinner(t, s) / tt : Scalar(0);
    x = vaxpy(omega, s, vaxpy(alpha, p, x));
    r = vaxpy(-omega, t, s);
    rho = rho_new;
    out.residual = vnorm(r);
  }
  return finished(std::move(out), std::move(x), target);
}

}  // namespace tenferro::detail::krylov
