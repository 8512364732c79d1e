// svds: the top-k singular triplets, by thick-restart Golub-Kahan-Lanczos bidiagonalisation on a
// pair of maps or by randomised subspace iteration on a dense matrix, and the truncated-svd
// derivative with the correction for the discarded space (docs/krylov.md "svds").
#include <algorithm>
#include <cmath>
#include <string>

#include "krylov/linear_map.hpp"
#include "krylov/small_dense.hpp"
#include "krylov/solvers.hpp"
#include "krylov/space.hpp"
#include "krylov/truncated.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/ops.hpp"

namespace tenferro {
namespace detail::krylov {
namespace {

using Apply = std::function<Tensor(const Tensor&)>;

// Triplets as flat columns: U [M, k], V [N, k] (plain), s descending.
struct Triplets {
  Tensor U, V;
  std::vector<double> s, residuals;
  std::int64_t iterations = 0;
  double scale = 0;  // largest singular value seen
};

Tensor columns(const std::vector<Tensor>& vs) {
  std::vector<Tensor> flat;
  for (const Tensor& v : vs) flat.push_back(v.reshape({v.numel()}));
  return stack(flat, 1);
}

// A unit vector of `like`'s space orthogonal to `basis` (random).
Tensor fresh_direction(const Tensor& like, std::span<const Tensor> basis, std::uint64_t seed) {
  Tensor r = random_like(like, seed);
  std::vector<Scalar> c(basis.size());
  const double h = orthogonalize<Tensor>(r, basis, c);
  return vscale(r, 1.0 / h);
}

// Thick-restart GKL with full reorthogonalisation of both bases. B = U^H A V is filled from the
// Gram-Schmidt coefficients of A v_j against U, so the restart's spike column is automatic:
// A V = U B and A^H U = V B^H + beta r e_m^T; a Ritz triplet (sigma, U x, V y) of svd(B) has
// residual |A^H u - sigma v| = beta |x_m|.
Triplets gkl(const Apply& A, const Apply& Ah, const Tensor& v0, const Tensor& u_like,
             std::int64_t k, std::int64_t m, double tol, std::int64_t max_restarts, bool real,
             std::uint64_t seed) {
  std::vector<Tensor> V{vscale(v0, 1.0 / vnorm(v0))}, U;
  SmallMat B(m, m);
  for (std::int64_t restart = 0;; ++restart) {
    Tensor resid;
    double beta = 0, anorm = 0;
    for (auto j = static_cast<std::int64_t>(V.size()) - 1; j < m; ++j) {
      Tensor w = A(V[j]);
      anorm = std::max(anorm, vnorm(w));
      std::vector<Scalar> cu(U.size());
      const double h = orthogonalize<Tensor>(w, U, cu);
      for (std::size_t i = 0; i < cu.size(); ++i) B(i, j) = cu[i];
      const bool dead = h <= 1e-13 * std::max(anorm, 1e-300);
      B(j, j) = dead ? 0.0 : h;
      U.push_back(dead ? fresh_direction(u_like, U, seed + 31 * j + 1) : vscale(w, 1.0 / h));
      Tensor z = Ah(U[j]);
      std::vector<Scalar> cv(V.size());
      const double h2 = orthogonalize<Tensor>(z, V, cv);
      beta = h2;
      if (j + 1 == m) {
        resid = std::move(z);
        break;
      }
      V.push_back(h2 <= 1e-13 * std::max(anorm, 1e-300) ? fresh_direction(v0, V, seed + 31 * j + 2)
                                                        : vscale(z, 1.0 / h2));
    }
    const SmallSvd sv = small_svd(B, real);
    const double smax = sv.s.empty() ? 0 : sv.s[0];
    std::vector<double> res(m);
    std::int64_t nconv = 0;
    for (std::int64_t i = 0; i < m; ++i) res[i] = beta * std::abs(sv.U(m - 1, i));
    for (std::int64_t i = 0; i < k; ++i) nconv += res[i] <= tol * std::max(smax, 1e-300);
    const bool exhausted = beta <= 1e-13 * std::max(anorm, 1e-300);
    if (nconv == k || restart >= max_restarts || exhausted) {
      Triplets t;
      std::vector<Tensor> us, vs;
      for (std::int64_t i = 0; i < k; ++i) {
        us.push_back(combine<Tensor>(U, sv.U.col(i)));
        vs.push_back(combine<Tensor>(V, sv.V.col(i)));
        t.s.push_back(sv.s[i]);
        t.residuals.push_back(res[i]);
      }
      t.U = columns(us);
      t.V = columns(vs);
      t.iterations = restart;
      t.scale = smax;
      return t;
    }
    const std::int64_t keep = std::min(m - 1, std::max(k, k + (m - k) / 2));
    std::vector<Tensor> nu, nv;
    for (std::int64_t i = 0; i < keep; ++i) {
      nu.push_back(combine<Tensor>(U, sv.U.col(i)));
      nv.push_back(combine<Tensor>(V, sv.V.col(i)));
    }
    nv.push_back(beta > 0 ? vscale(resid, 1.0 / beta) : fresh_direction(v0, nv, seed + 7));
    B = SmallMat(m, m);
    for (std::int64_t i = 0; i < keep; ++i) B(i, i) = sv.s[i];
    U = std::move(nu);
    V = std::move(nv);
  }
}

// Randomised subspace iteration on a dense [M, N] matrix. Per step, with Q [M, l] orthonormal:
// svd(Q^H A) = Ub S Vh gives triplets (Q Ub, S, Vh^H) with A^H u = s v exactly, and W = A Vh^H
// gives both their residuals |A v - s u| (the first k columns of W - U S) and, as it spans
// A A^H Q, the next basis: one power step costs two products with A. With `give_up`, a step
// whose residual decay predicts more than max_iter steps in all ends the iteration unconverged
// (the caller then takes another method).
Triplets randomized(const Tensor& a, std::int64_t k, std::int64_t l, double tol,
                    std::int64_t max_iter, std::uint64_t seed, bool give_up = false) {
  const Tensor ah = conj(a).transpose();
  Tensor Q = qr(matmul(a, randn({a.size(1), l}, seed, a.dtype()))).Q;
  Triplets t;
  double previous = 0;
  for (std::int64_t it = 0;; ++it) {
    const SvdResult r = svd(conj(matmul(ah, Q)).transpose());  // Q^H A, [l, N]
    const Tensor V = conj(r.Vh).transpose();                   // [N, l]
    const Tensor W = matmul(a, V);                             // A V, [M, l]
    const Tensor U = matmul(Q, r.U);
    const Tensor Sk = r.S.slice(0, 0, k);
    const Tensor R = sub(W.slice(1, 0, k), mul(U.slice(1, 0, k), cast(Sk, a.dtype()).unsqueeze(0)));
    const std::vector<Scalar> sv = to_scalars(cast(Sk, DType::f64));
    // Column norms of R / s_max (times s_max): the squares of a matrix scaled by 1e-170 underflowed
    // to 0, which passed as converged after no power step (krylov/space.cpp, vnorm).
    const double unit =
        !sv.empty() && sv[0].real() > 0 && std::isfinite(sv[0].real()) ? sv[0].real() : 1.0;
    const Tensor Ru = mul(R, Scalar(1.0 / unit));
    std::vector<Scalar> rn = to_scalars(cast(sqrt(sum(real(mul(conj(Ru), Ru)), {0})), DType::f64));
    for (Scalar& x : rn) x = Scalar(x.real() * unit);
    t.s.clear();
    t.residuals.clear();
    t.scale = sv.empty() ? 0 : sv[0].real();
    const double target = tol * std::max(t.scale, 1e-300);
    std::int64_t nconv = 0;
    double worst = 0;
    for (std::int64_t i = 0; i < k; ++i) {
      t.s.push_back(sv[i].real());
      t.residuals.push_back(rn[i].real());
      nconv += rn[i].real() <= target;
      worst = std::max(worst, rn[i].real());
    }
    t.iterations = it;
    bool stop = nconv == k || it >= max_iter;
    if (!stop && give_up && it >= 1) {
      const double rate = worst / previous;  // per power step
      stop = !(rate < 0.9) ||
             it + std::log(target / worst) / std::log(rate) > static_cast<double>(max_iter);
    }
    if (stop) {
      t.U = U.slice(1, 0, k);
      t.V = V.slice(1, 0, k);
      return t;
    }
    previous = worst;
    Q = qr(W).Q;
  }
}

// Reattaches triplets (Note [Krylov autodiff]). ZU = probe(A V), ZV = probe(A^H U) carry dA V and
// dA^H U; inside span(U), span(V) the thin-svd rule with J = U^H dA V; outside, per triplet i the
// Hermitian system [s_i, -A; -A^H, s_i] [du; dv] = [Q_U dA v_i; Q_V dA^H u_i] on the complements,
// solved by MINRES (the correction for the discarded space).
struct Reattached {
  Tensor U, S, V;
};
Reattached reattach(const Triplets& t, const Tensor& ZU, const Tensor& ZV, const Apply& A,
                    const Apply& Ah, double tol, double eps, DType rdt, const char* op) {
  const auto k = static_cast<std::int64_t>(t.s.size());
  const DType dt = t.U.dtype();
  const Tensor J = matmul(conj(t.U).transpose(), ZU);  // J_ji = <u_j, dA v_i>
  const Tensor Jh = conj(J).transpose();
  std::vector<Scalar> f(static_cast<std::size_t>(k * k));
  // (s_i^2 - s_j^2) / ((s_i^2 - s_j^2)^2 + eps s_max^4) on s / s_max: s_max^4 overflowed beyond
  // s_max ~ 1e77 (F = 0, the in-space coupling dropped silently).
  const double unit = t.scale > 0 && std::isfinite(t.scale) ? t.scale : 1.0;
  for (std::int64_t j = 0; j < k; ++j)
    for (std::int64_t i = 0; i < k; ++i) {
      if (i == j) continue;
      const double si = t.s[i] / unit, sj = t.s[j] / unit;
      const double d = si * si - sj * sj;
      f[j * k + i] = d / (d * d + eps) / unit / unit;
    }
  const Tensor F = from_scalars(f, {k, k}, dt);
  std::vector<Scalar> sv(t.s.begin(), t.s.end());
  const Tensor srow = from_scalars(sv, {1, k}, dt), scol = from_scalars(sv, {k, 1}, dt);
  const Tensor CU = mul(F, add(mul(J, srow), mul(scol, Jh)));
  Tensor CV = mul(F, add(mul(scol, J), mul(Jh, srow)));
  // The phase gauge: <u_i, du_i> real, so from J = (U^H dU) S + dS - S (V^H dV) on the diagonal,
  // Im <v_i, dv_i> = -Im J_ii / s_i.
  if (is_complex(dt)) {
    std::vector<Scalar> inv(t.s.size());
    for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = t.s[i] > 0 ? -1.0 / t.s[i] : 0.0;
    const Tensor d = mul(complex(zeros({k}, rdt), imag(diagonal(J))), from_scalars(inv, {k}, dt));
    CV = add(CV, diag_embed(d));
  }
  Reattached out;
  out.S = add(from_scalars(sv, {k}, rdt), first_order_only(op, cast(real(diagonal(J)), rdt)));
  Tensor U = add(t.U, matmul(t.U, CU)), V = add(t.V, matmul(t.V, CV));
  // The complement parts, one MINRES per triplet.
  std::vector<Tensor> du, dv;
  for (std::int64_t i = 0; i < k; ++i) {
    auto map = std::make_shared<HostLinearMap>();
    map->solver = op;
    const Tensor Up = t.U, Vp = t.V;
    const double s = t.s[i];
    map->apply = [A, Ah, Up, Vp, s, tol, op](std::span<const Tensor> in) {
      auto proj = [](const Tensor& B, const Tensor& x) {
        return sub(x, matmul(B, matmul(conj(B).transpose(), x)));
      };
      auto M = [&](const Pair& x) {
        return Pair{proj(Up, sub(vscale(x.a, s), A(x.b))), proj(Vp, sub(vscale(x.b, s), Ah(x.a)))};
      };
      // Projected twice ("twice is enough"): a cotangent inside span(U) (as s_i u_i is, for a
      // loss <u_i, A v_i>) leaves rounding whose part in span(U) one projection keeps at its own
      // size, which the projected operator cannot match, and MINRES stalled.
      const Pair rhs{proj(Up, proj(Up, in[0])), proj(Vp, proj(Vp, in[1]))};
      SolveOutcome<Pair> r =
          solve_minres<Pair>(M, rhs, vzeros_like(rhs), tol, 20 * (Up.size(0) + Vp.size(0)) + 100);
      if (!r.converged)
        throw Error(ErrorKind::LinAlgError,
                    std::string(op) +
                        ": the derivative's solve in the discarded space did not "
                        "converge (s = " +
                        format_g(s) +
                        "); s may equal a singular value that was not computed: raise k");
      return std::vector<Tensor>{proj(Up, r.x.a), proj(Vp, r.x.b)};
    };
    const Tensor in[2] = {ZU.slice(1, i, i + 1).squeeze(1), ZV.slice(1, i, i + 1).squeeze(1)};
    const std::vector<Tensor> r = apply_linear_map(map, in);
    du.push_back(r[0]);
    dv.push_back(r[1]);
  }
  out.U = add(U, stack(du, 1));
  out.V = add(V, stack(dv, 1));
  return out;
}

double eps_for(double given, DType rdt) { return resolve_degeneracy_eps("svds", rdt, given); }

void check_converged(const char* op, const Triplets& t, double tol, bool require,
                     KrylovInfo& info) {
  info.iterations = t.iterations;
  info.residuals = t.residuals;
  for (double r : t.residuals) info.converged += r <= 10 * tol * std::max(t.scale, 1e-300);
  if (require && info.converged < static_cast<std::int64_t>(t.s.size()))
    throw Error(ErrorKind::LinAlgError,
                std::string(op) + ": " + std::to_string(info.converged) + " of k = " +
                    std::to_string(t.s.size()) + " triplets converged to tol = " + format_g(tol) +
                    " after " + std::to_string(t.iterations) + " iterations (residuals " +
                    format_list(t.residuals) +
                    "); raise max_restarts or krylov_dim, or set require_convergence = false");
}

}  // namespace
}  // namespace detail::krylov

namespace detail {

namespace {
thread_local std::uint64_t t_by_svds = 0;
}
std::uint64_t truncated_by_svds_count() noexcept { return t_by_svds; }

std::optional<SvdResult> truncated_by_svds(const Tensor& a, std::int64_t k) {
  using namespace krylov;
  if (a.rank() < 2 || !a.has_storage() || a.aux() || k <= 0) return std::nullopt;
  const std::int64_t m = a.size(-2), n = a.size(-1), mn = std::min(m, n);
  if (mn < 128 || 8 * k > mn) return std::nullopt;
  const std::int64_t l = std::min(mn, k + std::max(k, std::int64_t{10}));
  const std::int64_t budget = std::max<std::int64_t>(2, mn / (2 * l));
  // The residual of an exact triplet computed in floating point is ~ eps sqrt(max(m, n)) s_max.
  const double eps = a.dtype() == DType::f32 || a.dtype() == DType::c64 ? 1.2e-7 : 2.3e-16;
  const double tol = 20 * eps * std::sqrt(static_cast<double>(std::max(m, n)));
  const std::int64_t batch = a.numel() / std::max<std::int64_t>(1, m * n);
  if (batch == 0) return std::nullopt;
  NoGradGuard no_grad;
  const Tensor flat = a.reshape({batch, m, n});
  std::vector<Tensor> us, ss, vhs;
  for (std::int64_t b = 0; b < batch; ++b) {
    const Triplets t = randomized(flat.slice(0, b, b + 1).squeeze(0), k, l, tol, budget,
                                  0x5eed + static_cast<std::uint64_t>(b), /*give_up=*/true);
    for (double r : t.residuals)
      if (!(r <= tol * t.scale)) return std::nullopt;
    std::vector<Scalar> sv(t.s.begin(), t.s.end());
    us.push_back(t.U);
    ss.push_back(from_scalars(sv, {k}, real_dtype(a.dtype())));
    vhs.push_back(conj(t.V).transpose());
  }
  Dims lead(a.shape().begin(), a.shape().end() - 2);
  auto shaped = [&](const std::vector<Tensor>& parts, std::int64_t r, std::int64_t c) {
    Dims s = lead;
    s.push_back(r);
    if (c > 0) s.push_back(c);
    return stack(parts, 0).reshape(s);
  };
  ++t_by_svds;
  return SvdResult{shaped(us, m, k), shaped(ss, k, 0), shaped(vhs, k, n)};
}

}  // namespace detail

SvdsResult svds(const Tensor& a, std::int64_t k, const SvdsOptions& o) {
  using namespace detail::krylov;
  const char* op = "svds";
  require_floating(op, a, "a");
  if (a.rank() != 2)
    throw Error(ErrorKind::ShapeMismatch,
                "svds: a must be a matrix [m, n]; got " + dims_to_string(a.shape()));
  const std::int64_t m = a.size(0), n = a.size(1), mn = std::min(m, n);
  if (k < 1 || k > mn)
    throw Error(ErrorKind::InvalidArgument,
                "svds: k = " + std::to_string(k) +
                    " must be in [1, min(m, n) = " + std::to_string(mn) + "]");
  const double tol = default_tol(op, a.dtype(), o.tol);
  (void)resolve_degeneracy_eps(op, real_dtype(a.dtype()), o.degeneracy_eps);  // checked up front
  const Tensor ap = plain_value(op, a, "a");
  const bool real = !is_complex(a.dtype());
  Triplets t;
  SvdsResult out;
  {
    NoGradGuard no_grad;
    const Tensor aph = conj(ap).transpose();
    std::int64_t& calls = out.info.applications;
    auto run_gkl = [&] {
      auto A = [&](const Tensor& v) { return ++calls, matmul(ap, v); };
      auto Ah = [&](const Tensor& u) { return ++calls, matmul(aph, u); };
      const std::int64_t kd =
          std::min(mn, o.krylov_dim > 0 ? std::max(o.krylov_dim, k + 1)
                                        : std::max(2 * k + 1, std::int64_t{20}));
      return gkl(A, Ah, randn({n}, o.seed, a.dtype()), zeros({m}, a.dtype()), k, kd, tol,
                 o.max_restarts, real, o.seed);
    };
    const std::int64_t over = o.oversampling > 0 ? o.oversampling : std::max(k, std::int64_t{10});
    const std::int64_t l = std::min(mn, o.krylov_dim > 0 ? std::max(o.krylov_dim, k) : k + over);
    if (o.method == SvdsMethod::lanczos) {
      t = run_gkl();
    } else if (l >= mn) {  // the range is the whole space: one dense svd is exact
      const SvdResult r = svd(ap);
      t.U = r.U.slice(1, 0, k);
      t.V = conj(r.Vh.slice(0, 0, k)).transpose();
      for (Scalar s : to_scalars(cast(r.S.slice(0, 0, k), DType::f64))) t.s.push_back(s.real());
      t.residuals.assign(k, 0.0);
      t.scale = t.s[0];
    } else {
      // automatic: randomised while its residuals fall fast enough to finish within
      // min(m, n) / (2 l) steps (cheaper than GKL there), else Golub-Kahan-Lanczos.
      const bool automatic = o.method == SvdsMethod::automatic;
      const std::int64_t steps =
          automatic ? std::max<std::int64_t>(2, mn / (2 * l)) : o.max_restarts;
      t = randomized(ap, k, l, tol, steps, o.seed, automatic);
      calls = 2 * (t.iterations + 1) * l;
      if (automatic) {
        bool done = true;
        for (double r : t.residuals) done = done && r <= tol * std::max(t.scale, 1e-300);
        if (!done) t = run_gkl();
      }
    }
  }
  check_converged(op, t, tol, o.require_convergence, out.info);
  const DType rdt = real_dtype(a.dtype());
  std::vector<Scalar> sv(t.s.begin(), t.s.end());
  out.U = t.U;
  out.S = from_scalars(sv, {k}, rdt);
  out.Vh = conj(t.V).transpose();
  if (!carries_derivative(a)) return out;
  const Tensor ZU = derivative_probe(matmul(a, t.V));
  const Tensor ZV = derivative_probe(matmul(conj(a).transpose(), t.U));
  const Tensor aph = conj(ap).transpose();
  auto A = [ap](const Tensor& v) { return matmul(ap, v); };
  auto Ah = [aph](const Tensor& u) { return matmul(aph, u); };
  const Reattached r = reattach(t, ZU, ZV, A, Ah, tol, eps_for(o.degeneracy_eps, rdt), rdt, op);
  out.U = r.U;
  out.S = r.S;
  out.Vh = conj(r.V).transpose();
  return out;
}

SvdsMapResult svds(ScalarFn f_in, ScalarFn fadj_in, const Tensor& v0, std::int64_t k,
                   const SvdsOptions& o) {
  using namespace detail::krylov;
  const char* op = "svds";
  require_floating(op, v0, "v0");
  const Tensor x0 = plain_value(op, v0, "v0");
  auto f = std::make_shared<ScalarFn>(std::move(f_in));
  auto fa = std::make_shared<ScalarFn>(std::move(fadj_in));
  const double tol = default_tol(op, v0.dtype(), o.tol);
  (void)resolve_degeneracy_eps(op, real_dtype(v0.dtype()), o.degeneracy_eps);  // checked up front
  // The output space's shape comes from one application.
  Tensor y0;
  {
    NoGradGuard no_grad;
    y0 = detach((*f)(std::span<const Tensor>(&x0, 1)));
  }
  if (!y0.defined() || y0.dtype() != v0.dtype())
    throw Error(ErrorKind::DTypeMismatch, "svds: f(v) must be defined with v's dtype");
  const Dims xs = v0.shape(), ys = y0.shape();
  const std::int64_t mn = std::min(v0.numel(), y0.numel());
  if (k < 1 || k > mn)
    throw Error(ErrorKind::InvalidArgument,
                "svds: k = " + std::to_string(k) +
                    " must be in [1, min(dim X, dim Y) = " + std::to_string(mn) + "]");
  // The maps outlive this call (the derivative's solves apply them in backward): they own f.
  auto calls = std::make_shared<std::int64_t>(1);
  auto checked = [op, calls](std::shared_ptr<ScalarFn> g, const char* what, Dims in,
                             Dims out_shape) {
    return [g, what, in, out_shape, op, calls](const Tensor& v) {
      ++*calls;
      const Tensor x = v.reshape(in);
      Tensor y = plain_value(op, (*g)(std::span<const Tensor>(&x, 1)), what);
      if (y.shape() != out_shape || y.dtype() != v.dtype())
        throw Error(ErrorKind::ShapeMismatch, std::string("svds: ") + what + " returned " +
                                                  dims_to_string(y.shape()) + "; expected " +
                                                  dims_to_string(out_shape));
      return y.reshape({y.numel()});
    };
  };
  const Apply A = checked(f, "f", xs, ys), Ah = checked(fa, "f_adj", ys, xs);
  const std::int64_t kd = std::min(
      mn, o.krylov_dim > 0 ? std::max(o.krylov_dim, k + 1) : std::max(2 * k + 1, std::int64_t{20}));
  Triplets t;
  SvdsMapResult out;
  {
    NoGradGuard no_grad;
    t = gkl(A, Ah, x0.reshape({x0.numel()}), zeros({y0.numel()}, y0.dtype()), k, kd, tol,
            o.max_restarts, !is_complex(v0.dtype()), o.seed);
  }
  check_converged(op, t, tol, o.require_convergence, out.info);
  out.info.applications = *calls + 2 * k;
  const DType rdt = real_dtype(v0.dtype());
  std::vector<Scalar> sv(t.s.begin(), t.s.end());
  out.S = from_scalars(sv, {k}, rdt);
  // Probes: f and f_adj applied with the caller's grad mode, one column at a time.
  std::vector<Tensor> zu, zv;
  bool differentiable = false;
  for (std::int64_t i = 0; i < k; ++i) {
    const Tensor v = t.V.slice(1, i, i + 1).reshape(xs), u = t.U.slice(1, i, i + 1).reshape(ys);
    zu.push_back((*f)(std::span<const Tensor>(&v, 1)));
    zv.push_back((*fa)(std::span<const Tensor>(&u, 1)));
    differentiable |= carries_derivative(zu.back()) || carries_derivative(zv.back());
  }
  Tensor U = t.U, V = t.V;
  if (differentiable) {
    std::vector<Tensor> pu, pv;
    for (std::int64_t i = 0; i < k; ++i) {
      pu.push_back(derivative_probe(zu[i]).reshape({zu[i].numel()}));
      pv.push_back(derivative_probe(zv[i]).reshape({zv[i].numel()}));
    }
    const Reattached r = reattach(t, stack(pu, 1), stack(pv, 1), A, Ah, tol,
                                  eps_for(o.degeneracy_eps, rdt), rdt, op);
    U = r.U;
    V = r.V;
    out.S = r.S;
  }
  for (std::int64_t i = 0; i < k; ++i) {
    out.U.push_back(U.slice(1, i, i + 1).reshape(ys));
    out.V.push_back(V.slice(1, i, i + 1).reshape(xs));
  }
  return out;
}

}  // namespace tenferro
