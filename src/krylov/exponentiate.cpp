// exponentiate: exp(t A) x by Krylov projection with adaptive steps, and its adjoint rule
// (Note [Krylov autodiff], docs/krylov.md "exponentiate"):
//   d[exp(tA) x] = exp(tA) dx + t int_0^1 exp((1-s) tA) dA exp(s tA) x ds,
// the integral by composite Gauss-Legendre quadrature, marching one Krylov propagation through
// the nodes in each direction.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "krylov/linear_map.hpp"
#include "krylov/small_dense.hpp"
#include "krylov/space.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/ops.hpp"

namespace tenferro {
namespace detail::krylov {
namespace {

using Apply = std::function<Tensor(const Tensor&)>;

struct Propagation {
  std::int64_t krylov_dim, max_steps;
  double tol;
  std::int64_t steps = 0;
  double norm_est = 0;  // largest |H|_1 seen: an estimate of |A|
};

// exp(t A) w. Each step builds one Arnoldi basis from the current vector and takes the largest
// fraction of the remaining time whose error estimate (Saad: beta h_{m+1,m} |e_m^T exp(tau H) e_1|)
// is below tol * beta * fraction, halving on the same basis until it is.
Tensor propagate(const Apply& A, Scalar t, Tensor w, Propagation& p) {
  if (t == Scalar(0)) return w;
  double done = 0, tau = 1;
  while (done < 1) {
    const double beta = vnorm(w);
    if (beta == 0) return w;
    if (p.steps >= p.max_steps)
      throw Error(ErrorKind::LinAlgError, "exponentiate: " + std::to_string(p.steps) +
                                              " steps reached " + format_g(done) +
                                              " of t; raise max_steps or krylov_dim");
    const std::int64_t m = std::min(p.krylov_dim, w.numel());
    std::vector<Tensor> V{vscale(w, 1.0 / beta)};
    SmallMat H(m + 1, m);
    std::int64_t mm = m;
    double h_last = 0;
    for (std::int64_t j = 0; j < m; ++j) {
      Tensor v = A(V[j]);
      std::vector<Scalar> coef(V.size());
      const double before = vnorm(v);
      const double h = orthogonalize<Tensor>(v, V, coef);
      for (std::size_t i = 0; i < coef.size(); ++i) H(i, j) = coef[i];
      if (h <= 1e-14 * std::max(before, 1e-300)) {  // invariant subspace: the projection is exact
        mm = j + 1;
        break;
      }
      H(j + 1, j) = h;
      if (j + 1 < m)
        V.push_back(vscale(v, 1.0 / h));
      else
        h_last = h;
    }
    const SmallMat Hm = H.block(mm, mm);
    for (std::int64_t j = 0; j < mm; ++j) {
      double col = 0;
      for (std::int64_t i = 0; i < mm; ++i) col += std::abs(Hm(i, j));
      p.norm_est = std::max(p.norm_est, col);
    }
    tau = std::min(tau, 1 - done);
    std::vector<Scalar> e;
    double err = 0;
    for (;;) {
      e = small_expm_e0(Hm, tau * t);
      err = beta * h_last * std::abs(e[mm - 1]);
      if (err <= p.tol * beta * tau || tau < 1e-10) break;
      tau *= 0.5;
    }
    if (err > p.tol * beta * tau)
      throw Error(ErrorKind::LinAlgError,
                  "exponentiate: no step meets the tolerance (|t A| too large for krylov_dim)");
    w = vscale(combine<Tensor>(std::span<const Tensor>(V.data(), mm), e), beta);
    done += tau;
    ++p.steps;
    if (err < 0.1 * p.tol * beta * tau) tau *= 2;
  }
  return w;
}

// Gauss-Legendre nodes and weights on (0, 1), n points (Newton on P_n).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
  x.assign(n, 0);
  w.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    double z = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5)), dp = 0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = z;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1);
      const double dz = p1 / dp;
      z -= dz;
      if (std::abs(dz) < 1e-16) break;
    }
    x[n - 1 - i] = 0.5 * (z + 1);
    w[n - 1 - i] = 1.0 / ((1 - z * z) * dp * dp);  // 2 / ((1 - z^2) P'^2), halved for (0, 1)
  }
}

// Nodes and weights on (0, 1) for an integrand like exp(s rho): panels of width <= 4 / rho, each
// with the fewest Gauss points whose error bound rho_p^2n (n!)^4 / ((2n)!^3 (2n + 1)) <= tol / 10.
void quadrature(double rho, double tol, std::vector<double>& s, std::vector<double>& w) {
  const int panels = std::max(1, static_cast<int>(std::ceil(rho / 4)));
  const double rp = rho / panels;
  int n = 1;
  for (; n < 30; ++n) {
    const double log_bound = 2 * n * std::log(std::max(rp, 1e-300)) + 4 * std::lgamma(n + 1.0) -
                             3 * std::lgamma(2 * n + 1.0) - std::log(2 * n + 1.0);
    if (log_bound <= std::log(0.1 * tol)) break;
  }
  n = std::max(n, 2);
  std::vector<double> gx, gw;
  gauss_legendre(n, gx, gw);
  s.clear();
  w.clear();
  for (int p = 0; p < panels; ++p)
    for (int i = 0; i < n; ++i) {
      s.push_back((p + gx[i]) / panels);
      w.push_back(gw[i] / panels);
    }
}

}  // namespace
}  // namespace detail::krylov

ExponentiateResult exponentiate(ScalarFn f_in, Scalar t, const Tensor& x,
                                const ExponentiateOptions& o) {
  using namespace detail::krylov;
  const char* op = "exponentiate";
  require_floating(op, x, "x");
  if (o.krylov_dim < 1 || o.max_steps < 1)
    throw Error(ErrorKind::InvalidArgument, "exponentiate: krylov_dim and max_steps must be >= 1");
  if (!std::isfinite(t.real()) || !std::isfinite(t.imag()))
    throw Error(ErrorKind::InvalidArgument, "exponentiate: t must be finite");
  const DType dt = t.imag() != 0 ? complex_dtype(x.dtype()) : x.dtype();
  auto f = std::make_shared<ScalarFn>(std::move(f_in));
  const double tol = default_tol(op, x.dtype(), o.tol);
  const std::int64_t kdim = o.krylov_dim, max_steps = o.max_steps;
  CountedMap A{op, f.get()};
  const Apply apply = [&A](const Tensor& v) { return A(v); };
  Propagation prop{kdim, max_steps, tol};
  Tensor y;
  const Tensor xc = cast(plain_value(op, x, "x"), dt);
  {
    NoGradGuard no_grad;
    y = propagate(apply, t, xc, prop);
  }
  ExponentiateResult out;
  out.x = y;
  out.info.converged = 1;
  out.info.iterations = prop.steps;
  // Do the map's parameters carry a derivative? One application at x tells.
  const Tensor probe_x = (*f)(std::span<const Tensor>(&xc, 1));
  ++A.calls;
  out.info.applications = A.calls;
  const bool dx = carries_derivative(x), dA = carries_derivative(probe_x);
  if (!dx && !dA) return out;

  // Maps for the rule; they re-run the propagation with the map frozen.
  auto frozen = [f](const char* what) {
    return [f, what](const Tensor& v) { return CountedMap{"exponentiate", f.get(), what}(v); };
  };
  const Apply adj =
      o.hermitian
          ? Apply(frozen("f"))
          : Apply([g = adjoint_of(f, o.adjoint, xc)](const Tensor& v) { return detach(g(v)); });
  const Apply fwd = frozen("f");
  auto run = [kdim, max_steps, tol](const Apply& a, Scalar tt, const Tensor& v) {
    Propagation q{kdim, max_steps, tol};
    return propagate(a, tt, v, q);
  };
  if (dx) {  // exp(tA) dx; adjoint exp(conj(t) A^H)
    auto map = std::make_shared<HostLinearMap>();
    map->solver = op;
    map->apply = [fwd, run, t, dt](std::span<const Tensor> in) {
      return std::vector<Tensor>{run(fwd, t, cast(in[0], dt))};
    };
    map->adjoint = [adj, run, t](std::span<const Tensor> in) {
      return std::vector<Tensor>{run(adj, std::conj(t), in[0])};
    };
    const Tensor px = derivative_probe(x);
    out.x = add(out.x, apply_linear_map(map, std::span<const Tensor>(&px, 1))[0]);
  }
  if (dA) {  // t sum_q w_q exp((1 - s_q) tA) dA u_q, u_q = exp(s_q tA) x
    std::vector<double> s, w;
    quadrature(std::abs(t) * prop.norm_est, tol, s, w);
    std::vector<Tensor> probes;
    Tensor u = xc;
    double at = 0;
    for (std::size_t q = 0; q < s.size(); ++q) {
      {
        NoGradGuard no_grad;
        u = run(fwd, (s[q] - at) * t, u);
      }
      at = s[q];
      probes.push_back(derivative_probe((*f)(std::span<const Tensor>(&u, 1))));
    }
    auto map = std::make_shared<HostLinearMap>();
    map->solver = op;
    map->apply = [fwd, run, t, s, w, dt](std::span<const Tensor> in) {  // Horner through the nodes
      Tensor acc;
      double at = 0;
      for (std::size_t q = 0; q < s.size(); ++q) {
        const Tensor term = vscale(cast(in[q], dt), w[q] * t);
        acc = acc.defined() ? vaxpy(1.0, term, run(fwd, (s[q] - at) * t, acc)) : term;
        at = s[q];
      }
      return std::vector<Tensor>{run(fwd, (1 - at) * t, acc)};
    };
    map->adjoint = [adj, run, t, s, w](std::span<const Tensor> in) {
      std::vector<Tensor> outs(s.size());
      Tensor v = in[0];
      double at = 1;
      for (std::size_t q = s.size(); q-- > 0;) {
        v = run(adj, std::conj((at - s[q]) * t), v);
        at = s[q];
        outs[q] = vscale(v, std::conj(w[q] * t));
      }
      return outs;
    };
    out.x = add(out.x, apply_linear_map(map, probes)[0]);
  }
  return out;
}

}  // namespace tenferro
