// The internal energy of the 2D Ising model (J = 1, square lattice, no field) as the gradient of
// a corner-transfer-matrix RG fixed point, differentiated implicitly by tenferro::fixed_point
// (docs/fixed-point.md): no derivative is taken through the iterations.
//
// C4v-symmetric CTMRG (Nishino & Okunishi 1996; the differentiable form of Liao, Liu, Wang &
// Xiang, PRX 9, 031041 (2019)). The environment of the infinite lattice is one corner C [chi, chi]
// and one edge E [chi, 2, chi]; a step grows the corner by one edge pair and one site,
//   Rho[(i,t),(j,s)] = C[k,l] E[k,p,i] E[l,q,j] a[p,q,s,t],
// keeps its chi eigenvectors of largest |eigenvalue| (P) and renormalises C' = P^T Rho P,
// E' = P^T (E a) P. The eigenvectors' signs are fixed (largest entry positive) so that the
// converged environment is a fixed point in components, not only up to gauge. Then
//   lnZ/N = ln Z(3x3) + ln Z(2x2) - 2 ln Z(2x3)   (corners C, edges E, one site a in the 3x3)
// and u = -d(lnZ/N)/d beta is one backward pass: through a(beta) directly and through the fixed
// point (C*, E*)(beta) by the adjoint system (I - J)^T w = x_bar, solved by GMRES.
//
// Run:   cmake --build --preset release --target ctmrg_ising_gradient
//        build/release/ctmrg_ising_gradient [chi [beta ...]]   (defaults: 6, beta 0.3 0.35 0.5 0.6)
// Prints per beta: the forward iterations, u by the implicit gradient, by central differences of
// lnZ/N (each side a converged CTMRG), and Onsager's exact u. Exit status 1 when the implicit
// gradient and the difference quotient disagree beyond 1e-6 or u misses Onsager by more than
// 1e-4 (away from beta_c = 0.4407), so the example doubles as a smoke test.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ising_site_tensor.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

struct Env {
  Tensor c, e;
};

Tensor pack(const Env& env) {
  return concatenate({env.c.reshape({env.c.numel()}), env.e.reshape({env.e.numel()})});
}
Env unpack(const Tensor& x, std::int64_t chi) {
  return {slice(x, 0, 0, chi * chi).reshape({chi, chi}),
          slice(x, 0, chi * chi, 3 * chi * chi).reshape({chi, 2, chi})};
}

// One CTMRG step keeping min(2 dim, chi) states.
Env step(const Env& env, const Tensor& a, std::int64_t chi) {
  const std::int64_t d = env.c.shape()[0], keep = std::min(2 * d, chi);
  Tensor rho = einsum("kl,kpi,lqj,pqst->itjs", {env.c, env.e, env.e, a}).reshape({2 * d, 2 * d});
  rho = 0.5 * (rho + rho.transpose());
  const EighResult eig = eigh(rho);
  // Order by |eigenvalue| and fix each vector's sign: constants for the derivative.
  const Tensor order = slice(argsort(abs(detach(eig.eigenvalues)), -1, true), 0, 0, keep);
  const Tensor vsel = index_select(eig.eigenvectors, 1, order);
  Tensor signs;
  {
    NoGradGuard no_grad;
    const Tensor v = detach(vsel);
    signs = sign(take_along_axis(v, argmax(abs(v), 0).reshape({1, keep}), 0));
  }
  const Tensor proj = mul(vsel, signs);
  Tensor c = matmul(proj.transpose(), matmul(rho, proj));
  c = 0.5 * (c + c.transpose());
  const Tensor p3 = proj.reshape({d, 2, keep});
  Tensor e = einsum("itn,ipj,ptsu,jum->nsm", {p3, env.e, a, p3});
  e = 0.5 * (e + permute(e, {2, 1, 0}));
  return {c / norm(c), e / norm(e)};
}

// lnZ/N from the environment (the ratio is independent of the scales of C and E).
Tensor ln_z(const Env& env, const Tensor& a) {
  const Tensor& c = env.c;
  const Tensor& e = env.e;
  const Tensor z33 = einsum("ab,apc,cd,dte,ef,fsg,gh,hqb,pqst->", {c, e, c, e, c, e, c, e, a});
  const Tensor z22 = einsum("ab,bc,cd,da->", {c, c, c, c});
  const Tensor z23 = einsum("ab,apc,cd,de,epf,fb->", {c, e, c, c, e, c});
  return log(z33) + log(z22) - 2.0 * log(z23);
}

struct Solved {
  Tensor lnz;
  std::int64_t iterations;
};

// lnZ/N at beta, with the environment a fixed point of the CTMRG step.
Solved solve(const Tensor& beta, std::int64_t chi) {
  Env env;
  {
    // Grow the bond dimension to chi first: the fixed point does not depend on where it starts.
    NoGradGuard no_grad;
    const Tensor a = examples::ising_site_tensor(detach(beta));
    env = {sum(a, {0, 1}), sum(a, {0})};  // C[d,r], E[l,d,r]: a summed over open boundary legs
    env.c = env.c / norm(env.c);
    env.e = env.e / norm(env.e);
    while (env.c.shape()[0] < chi) env = step(env, a, chi);
  }
  auto f = [chi](std::span<const Tensor> in) {
    return pack(step(unpack(in[0], chi), examples::ising_site_tensor(in[1]), chi));
  };
  FixedPointOptions o;
  o.tol = 1e-13;
  o.max_iterations = 5000;
  const FixedPointResult r = fixed_point_with_info(f, pack(env), {beta}, o);
  return {ln_z(unpack(r.x, chi), examples::ising_site_tensor(beta)), r.iterations};
}

// Onsager: u = -coth(2b) [1 + (2/pi)(2 tanh^2(2b) - 1) K(k)], k = 2 sinh(2b) / cosh^2(2b).
double onsager_u(double b) {
  const double k = 2 * std::sinh(2 * b) / (std::cosh(2 * b) * std::cosh(2 * b));
  const double t = std::tanh(2 * b);
  return -(1 / t) * (1 + (2 / M_PI) * (2 * t * t - 1) * std::comp_ellint_1(k));
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t chi = argc > 1 ? std::atoll(argv[1]) : 6;
  std::vector<double> betas = {0.3, 0.35, 0.5, 0.6};
  if (argc > 2) betas.clear();
  for (int i = 2; i < argc; ++i) betas.push_back(std::atof(argv[i]));
  if (chi < 2) {
    std::fprintf(stderr, "usage: ctmrg_ising_gradient [chi >= 2 [beta ...]]\n");
    return 2;
  }
  bool ok = true;
  std::printf("chi = %lld\n%6s %6s %16s %16s %16s %10s %10s %8s\n", static_cast<long long>(chi),
              "beta", "iters", "u (implicit AD)", "u (differences)", "u (Onsager)", "|AD-FD|",
              "|AD-ex|", "ms");
  for (double b : betas) {
    const auto t0 = std::chrono::steady_clock::now();
    Tensor beta = full({}, b).requires_grad_();
    const Solved s = solve(beta, chi);
    backward(s.lnz);
    const double u = -beta.grad().item<double>();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double h = 1e-5;
    const double up = solve(full({}, b + h), chi).lnz.item<double>();
    const double dn = solve(full({}, b - h), chi).lnz.item<double>();
    const double u_fd = -(up - dn) / (2 * h), u_ex = onsager_u(b);
    std::printf("%6.3f %6lld %16.10f %16.10f %16.10f %10.2e %10.2e %8.1f\n", b,
                static_cast<long long>(s.iterations), u, u_fd, u_ex, std::abs(u - u_fd),
                std::abs(u - u_ex), ms);
    const bool near_critical = std::abs(b - 0.5 * std::log(1 + std::sqrt(2.0))) < 0.05;
    if (!std::isfinite(u) || std::abs(u - u_fd) > 1e-6 ||
        (!near_critical && std::abs(u - u_ex) > 1e-4))
      ok = false;
  }
  return ok ? 0 : 1;
}
