// eigsh: thick-restart Lanczos and Davidson for Hermitian maps, with the multiplicity check and
// the adjoint rule of Note [Krylov autodiff] (docs/krylov.md, "eigsh").
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>

#include "krylov/linear_map.hpp"
#include "krylov/small_dense.hpp"
#include "krylov/solvers.hpp"
#include "krylov/space.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/ops.hpp"

namespace tenferro {
namespace detail::krylov {
namespace {

struct Ritz {
  std::vector<double> values;
  std::vector<Tensor> vectors;
  std::vector<double> residuals;  // estimates
  std::int64_t restarts = 0;
  double scale = 0;  // largest |Ritz value| seen: the estimate of |A| that tolerances refer to
};

// Indices of w in the order `which` prefers.
std::vector<std::int64_t> order_by(const std::vector<double>& w, Which which) {
  std::vector<std::int64_t> idx(w.size());
  std::iota(idx.begin(), idx.end(), 0);
  auto key = [&](std::int64_t i) {
    switch (which) {
      case Which::smallest_real:
        return w[i];
      case Which::largest_real:
        return -w[i];
      case Which::largest_magnitude:
        return -std::abs(w[i]);
      case Which::smallest_magnitude:
        return std::abs(w[i]);
    }
    return w[i];
  };
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return key(a) < key(b); });
  return idx;
}

double largest_abs(const std::vector<double>& w) {
  double s = 0;
  for (double x : w) s = std::max(s, std::abs(x));
  return s > 0 ? s : 1.0;
}

struct RunParams {
  std::int64_t k, m, max_restarts;
  double tol;
  Which which;
  bool real;
  std::uint64_t seed;
  bool eager = false;
};

// Orthonormal start vector in the complement of `locked` (a random one if x has no component).
Tensor start_vector(Tensor x, std::span<const Tensor> locked, std::uint64_t seed) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::vector<Scalar> c(locked.size());
    const double before = vnorm(x);
    const double after = orthogonalize<Tensor>(x, locked, c);
    if (after > 1e-8 * before && after > 0) return vscale(x, 1.0 / after);
    x = random_like(x, seed + 7919 * (attempt + 1));
  }
  throw Error(ErrorKind::LinAlgError, "eigsh: no start vector outside the found eigenvectors");
}

Ritz ritz_result(const RowBasis& V, const SmallEigh& e, const std::vector<std::int64_t>& order,
                 const std::vector<double>& res, std::int64_t k) {
  Ritz out;
  for (std::int64_t i = 0; i < k; ++i) {
    out.values.push_back(e.w[order[i]]);
    out.vectors.push_back(V.combine(e.V.col(order[i])));
    out.residuals.push_back(res[i]);
  }
  return out;
}

// The Ritz pairs of the projected matrix Hn (a basis of Hn.rows vectors whose next residual has
// norm beta): eigenpairs in `which` order, each pair's residual beta * |last entry of its
// eigenvector|, and how many of the k wanted ones meet the tolerance.
struct RitzCheck {
  SmallEigh e;
  std::vector<std::int64_t> order;
  std::vector<double> res;
  std::int64_t nconv = 0;
};
RitzCheck check_ritz(const SmallMat& Hn, double beta, const RunParams& p) {
  RitzCheck c{small_eigh(Hn, p.real), {}, {}, 0};
  c.order = order_by(c.e.w, p.which);
  const double target = p.tol * largest_abs(c.e.w);
  const std::int64_t n = Hn.rows;
  c.res.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) c.res[i] = beta * std::abs(c.e.V(n - 1, c.order[i]));
  for (std::int64_t i = 0; i < p.k; ++i) c.nconv += c.res[i] <= target;
  return c;
}

// Thick-restart Lanczos (Wu-Simon) with full reorthogonalisation against the basis and `locked`.
// H = V^H A V is filled from the Gram-Schmidt coefficients, so the restart's arrow is automatic.
// The basis lives in the rows of one matrix (Note [Row basis] in space.hpp).
Ritz lanczos(const CountedMap& A, const Tensor& x0, std::span<const Tensor> locked,
             const RunParams& p) {
  const std::int64_t m = p.m;
  RowBasis V(x0, m);
  V.push(start_vector(x0, locked, p.seed), 1.0);
  SmallMat H(m, m);
  const double breakdown = p.real && x0.dtype() == DType::f32 ? 1e-6 : 1e-13;
  double anorm = 0;
  std::uint64_t seed = p.seed;
  for (std::int64_t restart = 0;; ++restart) {
    Tensor resid;
    double beta = 0;
    std::optional<RitzCheck> early;  // set when an eager check stopped the expansion
    for (std::int64_t j = V.size() - 1; j < m; ++j) {
      Tensor w = A(V[j]);
      anorm = std::max(anorm, vnorm(w));
      std::vector<Scalar> coef(static_cast<std::size_t>(V.size()));
      const double h = V.orthogonalize(w, locked, coef);
      for (std::size_t i = 0; i < coef.size(); ++i) {
        H(i, j) = coef[i];
        H(j, i) = std::conj(coef[i]);
      }
      beta = h;
      if (j + 1 == m) {
        resid = std::move(w);
        break;
      }
      // Note [Lanczos early exit]: the residual of every Ritz pair of the basis so far is
      // h * |last entry of its eigenvector|, so convergence is known after every step for the
      // price of a (j+1)-sized eigh. A good start vector (DMRG's previous state) converges in a
      // few steps instead of filling the whole krylov_dim space.
      if (p.eager && j + 1 >= p.k) {
        RitzCheck c = check_ritz(H.block(j + 1, j + 1), h, p);
        if (c.nconv == p.k) {
          resid = std::move(w);
          early = std::move(c);
          break;
        }
      }
      if (h <= breakdown * anorm) {  // invariant subspace: continue from a fresh direction
        std::vector<Tensor> all(locked.begin(), locked.end());
        all.insert(all.end(), V.vectors().begin(), V.vectors().end());
        ++seed;
        V.push(start_vector(random_like(x0, seed), all, seed), 1.0);
        H(j + 1, j) = H(j, j + 1) = 0;
      } else {
        V.push(w, 1.0 / h);
        H(j + 1, j) = H(j, j + 1) = h;
      }
    }
    const RitzCheck c = early ? std::move(*early) : check_ritz(H, beta, p);
    const SmallEigh& e = c.e;
    const std::vector<std::int64_t>& order = c.order;
    const std::vector<double>& res = c.res;
    const bool exhausted = beta <= breakdown * anorm;
    if (c.nconv == p.k || restart >= p.max_restarts || exhausted) {
      Ritz out = ritz_result(V, e, order, res, p.k);
      out.restarts = restart;
      out.scale = largest_abs(e.w);
      return out;
    }
    // Keep the best `keep` Ritz vectors, then the residual direction.
    const std::int64_t keep = std::min(m - 1, std::max(p.k, p.k + (m - p.k) / 2));
    std::vector<Tensor> kept;
    for (std::int64_t i = 0; i < keep; ++i) kept.push_back(V.combine(e.V.col(order[i])));
    H = SmallMat(m, m);
    for (std::int64_t i = 0; i < keep; ++i) {
      H(i, i) = e.w[order[i]];
      H(keep, i) = beta * e.V(m - 1, order[i]);
      H(i, keep) = std::conj(H(keep, i));
    }
    kept.push_back(vscale(resid, 1.0 / beta));
    V.assign(kept);
  }
}

// Davidson: the search space grows by the (preconditioned) residual of the first unconverged
// wanted Ritz pair; thick restart to the wanted pairs when it is full.
Ritz davidson(const CountedMap& A, const Tensor& x0, std::span<const Tensor> locked,
              const RunParams& p, const EigshOptions& o) {
  std::vector<Tensor> V{start_vector(x0, locked, p.seed)}, AV{A(V[0])};
  std::uint64_t seed = p.seed;
  const std::int64_t max_steps = p.max_restarts * p.m;
  for (std::int64_t step = 0;; ++step) {
    const auto n = static_cast<std::int64_t>(V.size());
    SmallMat H(n, n);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i <= j; ++i) {
        H(i, j) = vinner(V[i], AV[j]);
        H(j, i) = std::conj(H(i, j));
      }
    const SmallEigh e = small_eigh(H, p.real);
    const std::vector<std::int64_t> order = order_by(e.w, p.which);
    const double target = p.tol * largest_abs(e.w);
    const std::int64_t want = std::min(p.k, n);
    std::vector<Tensor> x, ax, r;
    std::vector<double> res;
    std::int64_t first_open = -1;
    for (std::int64_t i = 0; i < want; ++i) {
      const std::vector<Scalar> s = e.V.col(order[i]);
      x.push_back(combine<Tensor>(V, s));
      ax.push_back(combine<Tensor>(AV, s));
      r.push_back(vaxpy(-e.w[order[i]], x.back(), ax.back()));
      res.push_back(vnorm(r.back()));
      if (first_open < 0 && res.back() > target) first_open = i;
    }
    if ((want == p.k && first_open < 0) || step >= max_steps) {
      Ritz out;
      for (std::int64_t i = 0; i < want; ++i) out.values.push_back(e.w[order[i]]);
      out.vectors = std::move(x);
      out.residuals = std::move(res);
      out.restarts = step / p.m;
      out.scale = largest_abs(e.w);
      return out;
    }
    if (first_open < 0) first_open = want - 1;  // fewer than k vectors yet: grow
    Tensor t = o.preconditioner
                   ? plain_value("eigsh", o.preconditioner(r[first_open], e.w[order[first_open]]),
                                 "preconditioner")
                   : r[first_open];
    if (n == p.m) {  // thick restart to the wanted Ritz vectors
      V = std::move(x);
      AV = std::move(ax);
    }
    std::vector<Tensor> all(locked.begin(), locked.end());
    all.insert(all.end(), V.begin(), V.end());
    std::vector<Scalar> coef(all.size());
    const double before = vnorm(t);
    const double h = orthogonalize<Tensor>(t, all, coef);
    ++seed;
    V.push_back(h > 1e-10 * before && h > 0 ? vscale(t, 1.0 / h)
                                            : start_vector(random_like(x0, seed), all, seed));
    AV.push_back(A(V.back()));
  }
}

Ritz run(const CountedMap& A, const Tensor& x0, std::span<const Tensor> locked, const RunParams& p,
         const EigshOptions& o) {
  return o.method == EigshMethod::davidson ? davidson(A, x0, locked, p, o)
                                           : lanczos(A, x0, locked, p);
}

// For k > 1: look for eigenvalues the single start vector could not see (members of a degenerate
// multiplet) in the complement of those found; merge until a deflated run finds nothing better.
void complete_multiplets(const CountedMap& A, const Tensor& x0, Ritz& found, RunParams p,
                         const EigshOptions& o) {
  const std::int64_t n = x0.numel(), k = p.k;
  for (std::int64_t round = 0; round < k && n - k >= 1; ++round) {
    RunParams q = p;
    q.k = std::min(k, n - k);
    q.m = std::min(p.m, n - k);
    if (q.m <= q.k && q.m < n - k) q.m = std::min(n - k, q.k + 1);
    q.seed = p.seed + 104729 * (round + 1);
    Ritz cand = run(A, random_like(x0, q.seed), found.vectors, q, o);
    std::vector<double> all = found.values;
    all.insert(all.end(), cand.values.begin(), cand.values.end());
    const std::vector<std::int64_t> order = order_by(all, p.which);
    Ritz merged;
    bool took_new = false;
    for (std::int64_t i = 0; i < k; ++i) {
      const std::int64_t j = order[i];
      const bool old = j < k;
      took_new |= !old;
      merged.values.push_back(all[j]);
      merged.vectors.push_back(old ? found.vectors[j] : cand.vectors[j - k]);
      merged.residuals.push_back(old ? found.residuals[j] : cand.residuals[j - k]);
    }
    merged.restarts = found.restarts + cand.restarts;
    merged.scale = std::max(found.scale, cand.scale);
    found = std::move(merged);
    if (!took_new) return;
  }
}

}  // namespace
}  // namespace detail::krylov

EigshResult eigsh(ScalarFn f_in, const Tensor& x0, std::int64_t k, const EigshOptions& o) {
  using namespace detail::krylov;
  const char* op = "eigsh";
  require_floating(op, x0, "x0");
  const Tensor start = plain_value(op, x0, "x0");
  const std::int64_t n = start.numel();
  if (k < 1 || k > n)
    throw Error(ErrorKind::InvalidArgument,
                "eigsh: k = " + std::to_string(k) +
                    " must be in [1, dimension of x0 = " + std::to_string(n) + "]");
  if (o.krylov_dim < 0 || o.max_restarts < 0)
    throw Error(ErrorKind::InvalidArgument, "eigsh: krylov_dim and max_restarts must be >= 0");
  // Checked up front, not only when a derivative needs it.
  (void)resolve_degeneracy_eps(op, real_dtype(x0.dtype()), o.degeneracy_eps);
  auto f = std::make_shared<ScalarFn>(std::move(f_in));
  RunParams p{k,
              0,
              o.max_restarts,
              default_tol(op, x0.dtype(), o.tol),
              o.which,
              !is_complex(x0.dtype()),
              o.seed,
              o.eager};
  p.m = std::min(
      n, o.krylov_dim > 0 ? std::max(o.krylov_dim, k + 1) : std::max(2 * k + 10, std::int64_t{20}));
  Ritz found;
  CountedMap A{op, f.get()};
  {
    NoGradGuard no_grad;
    if (vnorm(start) == 0) throw Error(ErrorKind::InvalidArgument, "eigsh: x0 is zero");
    found = run(A, start, {}, p, o);
    if (k > 1 && o.verify_multiplicity) complete_multiplets(A, start, found, p, o);
  }
  // The true residuals, from one more application of f with the caller's grad mode: the same
  // values serve as the derivative probes (Note [Krylov autodiff]).
  EigshResult out;
  std::vector<Tensor> y;
  bool differentiable = false;
  for (std::int64_t i = 0; i < k; ++i) {
    const Tensor& x = found.vectors[i];
    y.push_back((*f)(std::span<const Tensor>(&x, 1)));
    ++A.calls;
    differentiable |= carries_derivative(y.back());
  }
  const double scale_abs = std::max(found.scale, largest_abs(found.values));
  {
    NoGradGuard no_grad;
    for (std::int64_t i = 0; i < k; ++i) {
      const double r = vnorm(vaxpy(-found.values[i], found.vectors[i], detach(y[i])));
      out.info.residuals.push_back(r);
      out.info.converged += r <= 10 * p.tol * scale_abs;
    }
  }
  out.info.iterations = found.restarts;
  out.info.applications = A.calls;
  if (o.require_convergence && out.info.converged < k)
    throw Error(ErrorKind::LinAlgError,
                "eigsh: " + std::to_string(out.info.converged) + " of k = " + std::to_string(k) +
                    " eigenpairs converged to tol = " + format_g(p.tol) + " after " +
                    std::to_string(found.restarts) + " restarts (residuals " +
                    format_list(out.info.residuals) + ", |A| estimate " + format_g(scale_abs) +
                    "); raise max_restarts or krylov_dim, or set require_convergence = false");
  const DType rdt = real_dtype(x0.dtype());
  std::vector<Scalar> lam(found.values.begin(), found.values.end());
  out.eigenvalues = from_scalars(lam, {k}, rdt);
  out.eigenvectors = found.vectors;
  if (!differentiable) return out;

  // Reattach (Note [Krylov autodiff]): d lambda_i = <x_i, dA x_i>; dx_i = sum_j x_j F_ij
  // <x_j, dA x_i> over the computed pairs + the solve -(A - lambda_i)^-1 Q dA x_i in their
  // complement (Q = 1 - X X^H), by MINRES.
  const std::vector<Tensor> X = found.vectors;
  const double eps = resolve_degeneracy_eps(op, rdt, o.degeneracy_eps);
  std::vector<Tensor> probe, dlam;
  for (std::int64_t i = 0; i < k; ++i) {
    probe.push_back(derivative_probe(y[i]));
    dlam.push_back(cast(real(vdot(X[i], probe[i])), rdt));
  }
  out.eigenvalues = add(out.eigenvalues, first_order_only(op, stack(dlam)));
  for (std::int64_t i = 0; i < k; ++i) {
    Tensor xi = X[i];
    for (std::int64_t j = 0; j < k; ++j) {
      if (j == i) continue;
      const double d = found.values[i] - found.values[j];
      // d / (d^2 + eps scale^2) on d / scale: d^2 overflowed beyond |A| ~ 1e154 (F = 0).
      const double unit = scale_abs > 0 && std::isfinite(scale_abs) ? scale_abs : 1.0;
      const double du = d / unit;
      const double F = du / (du * du + eps) / unit;
      if (F != 0) xi = add(xi, mul(X[j], mul(vdot(X[j], probe[i]), Scalar(F))));
    }
    auto map = std::make_shared<HostLinearMap>();
    map->solver = op;
    const double lambda = found.values[i], tol = p.tol;
    map->apply = [f, X, lambda, tol](std::span<const Tensor> in) {
      CountedMap A{"eigsh", f.get()};
      auto project = [&X](Tensor v) {
        std::vector<Scalar> c(X.size());
        orthogonalize<Tensor>(v, X, c);
        return v;
      };
      const Tensor v = project(in[0]);
      auto shifted = [&](const Tensor& w) { return project(vaxpy(-lambda, w, A(w))); };
      SolveOutcome<Tensor> s =
          solve_minres<Tensor>(shifted, v, vzeros_like(v), tol, 20 * v.numel() + 100);
      if (!s.converged)
        throw Error(
            ErrorKind::LinAlgError,
            "eigsh: the derivative's solve with (A - lambda) in the complement of the "
            "computed eigenvectors did not converge (lambda = " +
                format_g(lambda) +
                "); lambda may be degenerate with an eigenvalue that was not computed: raise k");
      return std::vector<Tensor>{vscale(project(s.x), -1.0)};
    };
    const Tensor p_i = probe[i];
    xi = add(xi, apply_linear_map(map, std::span<const Tensor>(&p_i, 1))[0]);
    out.eigenvectors[i] = xi;
  }
  return out;
}

}  // namespace tenferro
