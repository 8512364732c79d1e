// Tensor renormalization group (Levin & Nave, PRL 99, 120601 (2007)) for the 2D Ising model on the
// square lattice (J = 1, k_B = 1, no field), differentiated end to end.
//
// TRG writes Z as a network of one 4-leg tensor per site, splits each tensor into two 3-leg
// halves by a truncated SVD (along one diagonal on one sublattice, the other on the other) and
// contracts four halves into one tensor of a lattice with half the sites; `steps` such steps
// leave one tensor for 2^steps sites. It is built from einsum and svd_truncated only, so the
// same function runs eagerly, under autodiff (first and second order) and as a traced program.
//
// Run:   cmake --build --preset release --target trg_ising && build/release/trg_ising
//        build/release/trg_ising [--ad | --values] [chi [steps [T ...]]]
//        (defaults: 12, 20, T = 1.5 2 2.269 2.5 3)
//
// Two paths. Below chi = 24 (or with --ad) every derivative is AD, as described below. From
// chi = 24 on (or with --values) only values of lnZ/N are computed, five per temperature, and u, c
// come from finite-difference stencils in beta: no derivative is asked of svd_truncated, so it
// finds its chi leading triplets of each chi^2 x chi^2 matrix by the randomised svds instead of a
// dense SVD. chi = 32 at T = 2 (2 cores): the AD path takes 40 s (28 s eager jvp(value_and_grad) +
// 12 s prepared gradient), the values path 6.9 s, with the same f (10 digits), u (8) and c (5).
//
// Prints, per temperature T: the free energy per site f = -T lnZ/N from TRG and from Onsager's
// solution and their relative difference; the internal energy u and specific heat c from AD
// and exactly; and |prepared - eager| for the gradient. Exact values are plain doubles: Simpson's
// rule for Onsager's integral, the arithmetic-geometric mean for the elliptic integrals K and E.
//
// AD conventions: lnZ/N is a 0-d f64 tensor, a function of the 0-d f64 tensor beta = 1/T.
//   u = -d(lnZ/N)/d beta            reverse mode (value_and_grad)
//   c = beta^2 d^2(lnZ/N)/d beta^2  forward over reverse (jvp of value_and_grad), no differences
//   prepared: Runtime::prepare(grad(trace(lnZ/N))), run per temperature, against the eager u.
// The forward-mode tangent of lnZ/N is compared with the reverse-mode gradient as well.
//
// Accuracy measured with 20 steps. chi = 12 (default, ~2 s on 2 cores): relative error of f
// 5e-7 .. 5e-6 away from T_c, 1.3e-5 at T = 2.269 (~T_c, where truncation hurts most); u within
// ~3e-5, c within 2e-4 away from T_c. chi = 16 (`trg_ising 16`, ~4x slower: the 256 x 256 SVDs
// dominate): f 5e-8 .. 9e-7 away from T_c, 3.9e-6 at T = 2.269. At T = 1.5 both stop at 5e-7:
// that is the finite torus, not the truncation (both ordered states count: ln 2 / N). Near T_c
// u is off by 1e-3 .. 4e-3 and c comes out 20-25% low: the exact c diverges, a finite chi rounds it
// off. Exit status 1 when a free-energy error exceeds 1e-3, prepared and eager gradients differ, or
// a value is not finite, so the example doubles as a smoke test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <span>
#include <string_view>
#include <vector>

#include "ising_site_tensor.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

struct TrgConfig {
  std::int64_t chi = 12;
  int steps = 20;
  enum class Mode { automatic, ad, values } mode = Mode::automatic;
  // The values path from this chi on (see main): its SVDs keep chi of chi^2 values, where the
  // randomised svds is several times faster than a dense SVD.
  static constexpr std::int64_t kValuesFromChi = 24;
  bool values() const {
    return mode == Mode::values || (mode == Mode::automatic && chi >= kValuesFromChi);
  }
};

// sqrt of singular values whose derivative stays finite: the first splits are exactly rank
// deficient, and sqrt'(0) = inf would turn the whole gradient into NaN (inf * 0). Values below
// 1e-12 of the largest are round-off of an exact zero; they get value 0 and derivative 0
// (the "double where": the inner one keeps sqrt away from 0, the outer one selects).
Tensor sqrt_singular_values(const Tensor& s) {
  const std::int64_t last = s.rank() - 1;
  Tensor keep = gt(s, 1e-12 * s.slice(last, 0, 1));  // each row of s is descending
  return where(keep, sqrt(where(keep, s, scalar_tensor(1.0))), scalar_tensor(0.0));
}

// One TRG step. Sublattice A splits T[u,l,d,r] as A1[u,l,k] A2[k,d,r], sublattice B as B1[l,d,k]
// B2[k,r,u], each half absorbing sqrt(S) so that the new bonds carry no preferred direction.
// The four halves around a plaquette,
//   A2 (up-left) --r/l-- B1 (up-right)
//    |d/u                 |d/u
//   B2 (down-left) -r/l- A1 (down-right),
// contract over the four old bonds into T'[U,L,D,R] with U = A2's k, L = B2's, D = A1's,
// R = B1's: the lattice rotated by 45 degrees with the same leg order, so the step repeats.
// max_rank = chi with cutoff 0 keeps every shape a function of the input shape: that is what lets
// trace() capture the RG (a cutoff would make the shapes depend on the values).
Tensor trg_step(const Tensor& t, std::int64_t chi) {
  const std::int64_t d = t.size(0);
  // Both splits as one batch of two matrices: the SVDs dominate the run time, and a batch is
  // spread over the backend's threads (one LAPACK call per matrix on each).
  Tensor m = stack({t.reshape({d * d, d * d}), t.permute({1, 2, 3, 0}).reshape({d * d, d * d})});
  SvdResult f = svd_truncated(m, chi);  // U [2, d*d, k], S [2, k], Vh [2, k, d*d]
  const std::int64_t k = f.S.size(1);
  Tensor sq = sqrt_singular_values(f.S);
  Tensor left = f.U * sq.unsqueeze(1), right = f.Vh * sq.unsqueeze(2);
  Tensor a1 = left.slice(0, 0, 1).reshape({d, d, k});   // [u,l,k]
  Tensor a2 = right.slice(0, 0, 1).reshape({k, d, d});  // [k,d,r]
  Tensor b1 = left.slice(0, 1, 2).reshape({d, d, k});   // [l,d,k]
  Tensor b2 = right.slice(0, 1, 2).reshape({k, d, d});  // [k,r,u]
  // Labels: a = A2.d/B2.u, b = A2.r/B1.l, c = B2.r/A1.l, e = A1.u/B1.d.
  return einsum("Uab,Lca,ecD,beR->ULDR", a2, b2, a1, b1);
}

// lnZ/N for N = 2^steps sites on a torus. T is divided by its norm c_n before every step; the
// tensor at level n stands for 2^n sites, so ln c_n counts 2^-n per site. The last tensor is
// closed on itself (periodic in both directions). Normalising keeps the entries O(1) for any
// number of steps; the Frobenius norm, unlike the largest entry, has a derivative that does not
// jump when another entry becomes the largest.
Tensor ln_z_per_site(const Tensor& beta, const TrgConfig& cfg) {
  Tensor t = examples::ising_site_tensor(beta);
  Tensor ln_z = scalar_tensor(0.0);
  double weight = 1.0;
  for (int n = 0; n < cfg.steps; ++n) {
    Tensor c = norm(t);
    ln_z = ln_z + weight * log(c);
    t = trg_step(t / c, cfg.chi);
    weight *= 0.5;
  }
  return ln_z + weight * log(einsum("ulul->", t));
}

// ---- Onsager's exact solution, plain doubles ----

constexpr double kPi = std::numbers::pi;

template <class F>
double simpson(F&& g, double lo, double hi, int n) {  // n even
  const double h = (hi - lo) / n;
  double acc = g(lo) + g(hi);
  for (int i = 1; i < n; ++i) acc += g(lo + i * h) * (i % 2 ? 4 : 2);
  return acc * h / 3;
}

// -beta f = ln(2)/2 + 1/(2 pi) int_0^pi ln[cosh^2(2b) + sqrt(sinh^4(2b) + 1 - 2 sinh^2(2b) cos 2t)]
// (Onsager's double integral with one angle done analytically). Beware the variant with an extra
// sinh(2b) in front of the square root: it equals this one only where sinh(2b) = 1, i.e. at T_c,
// so a check at T_c alone does not catch it; the high-T check in main does. 200000 intervals
// resolve the integrand's near-kink at t = 0 (width |sinh^2(2b) - 1|) even at T = 2.269.
double exact_ln_z(double b) {
  const double s2 = std::sinh(2 * b) * std::sinh(2 * b), c2 = std::cosh(2 * b) * std::cosh(2 * b);
  auto g = [&](double t) {
    return std::log(c2 + std::sqrt(s2 * s2 + 1 - 2 * s2 * std::cos(2 * t)));
  };
  return std::log(2.0) / 2 + simpson(g, 0.0, kPi, 200000) / (2 * kPi);
}

// Complete elliptic integrals K(k) and E(k) from the arithmetic-geometric mean of 1 and
// k' = sqrt(1 - k^2) (passed in, since 1 - k^2 cancels near T_c).
void elliptic_ke(double k, double kp, double& K, double& E) {
  double a = 1, g = kp, c = k, sum = 0.5 * c * c, pow2 = 0.5;
  for (int i = 0; i < 64 && std::abs(a - g) > 1e-16 * a; ++i) {
    c = 0.5 * (a - g);
    const double an = 0.5 * (a + g);
    g = std::sqrt(a * g);
    a = an;
    pow2 *= 2;
    sum += pow2 * c * c;
  }
  K = kPi / (2 * a);
  E = K * (1 - sum);
}

struct ExactThermo {
  double u, c;
};
// u = -coth(2b) [1 + (2/pi)(2 tanh^2(2b) - 1) K(k)],
// c = (4/pi) (b coth 2b)^2 [K - E - (1 - tanh^2 2b)(pi/2 + (2 tanh^2 2b - 1) K)],
// k = 2 sinh(2b)/cosh^2(2b), k' = |sinh^2(2b) - 1| / cosh^2(2b). c diverges at T_c (k = 1).
ExactThermo exact_thermo(double b) {
  const double s = std::sinh(2 * b), c2 = std::cosh(2 * b) * std::cosh(2 * b), t = std::tanh(2 * b);
  const double k = 2 * s / c2, kp = std::abs(s * s - 1) / c2;
  double K = 0, E = 0;
  elliptic_ke(k, kp, K, E);
  // (2 t^2 - 1) K -> 0 at T_c (x ln x); K itself is infinite there.
  const double mk = (2 * t * t - 1) == 0 ? 0.0 : (2 * t * t - 1) * K;
  const double u = -(1 + 2 / kPi * mk) / t;
  const double c = 4 / kPi * (b / t) * (b / t) * (K - E - (1 - t * t) * (kPi / 2 + mk));
  return {u, c};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every derivative by AD: u by reverse mode, c by forward over reverse, and the traced,
// prepared gradient against the eager one. The SVDs are dense (a derivative is asked for).
bool run_ad(const TrgConfig& cfg, const std::vector<double>& temps, const CpuBackend& cpu) {
  auto ln_z = [&cfg](std::span<const Tensor> x) { return ln_z_per_site(x[0], cfg); };
  // Forward over reverse: the tangent (d beta = 1) of (lnZ/N, d lnZ/N / d beta) is
  // (d lnZ/N / d beta again, now by forward mode, d^2 lnZ/N / d beta^2), so one pass gives u,
  // c and a check of the forward rules against the reverse ones.
  auto value_and_slope = [&ln_z](std::span<const Tensor> x) {
    ValueAndGrad vg = value_and_grad(ln_z, x);
    return std::vector<Tensor>{vg.value, vg.grads[0]};
  };

  // The RG's shapes depend on chi and steps only, so one trace serves every temperature.
  auto t0 = std::chrono::steady_clock::now();
  Program program = trace(ln_z, {ValueSpec{Dims{}, DType::f64}});
  Runtime runtime(cpu);
  PreparedProgram grad_plan = runtime.prepare(grad(program));
  const double prepare_s = seconds_since(t0);

  std::printf("%6s %14s %14s %9s %11s %11s %9s %9s %9s\n", "T", "f_TRG", "f_exact", "rel.err",
              "u_AD", "u_exact", "c_AD", "c_exact", "|prep-AD|");
  double eager_s = 0, prepared_s = 0, worst_f = 0, worst_prep = 0, worst_fwd = 0;
  bool finite = true;
  for (double temp : temps) {
    const double b = 1 / temp;
    Tensor beta = scalar_tensor(b);

    t0 = std::chrono::steady_clock::now();
    JvpResult r = jvp(value_and_slope, {beta}, {scalar_tensor(1.0)});
    eager_s += seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const double prep_grad = runtime.run(grad_plan, {beta})[0].item<double>();
    prepared_s += seconds_since(t0);

    const double lz = r.outputs[0].item<double>(), dlz = r.outputs[1].item<double>();
    const double dlz_fwd = r.tangents[0].item<double>(), d2lz = r.tangents[1].item<double>();
    const double lz_exact = exact_ln_z(b);
    const ExactThermo ex = exact_thermo(b);
    const double f = -temp * lz, f_exact = -temp * lz_exact;
    const double rel = std::abs(f - f_exact) / std::abs(f_exact);
    const double prep = std::abs(prep_grad - dlz), fwd = std::abs(dlz_fwd - dlz);
    finite = finite && std::isfinite(lz) && std::isfinite(dlz) && std::isfinite(d2lz);
    worst_f = std::max(worst_f, std::isfinite(rel) ? rel : 1.0);
    worst_prep = std::max(worst_prep, std::isfinite(prep) ? prep : 1.0);
    worst_fwd = std::max(worst_fwd, std::isfinite(fwd) ? fwd : 1.0);
    std::printf("%6.3f %14.10f %14.10f %9.2e %11.7f %11.7f %9.5f %9.5f %9.1e\n", temp, f, f_exact,
                rel, -dlz, ex.u, b * b * d2lz, ex.c, prep);
  }

  const double n = static_cast<double>(temps.size());
  std::printf(
      "\nper temperature: eager jvp(value_and_grad) %.3f s, prepared grad %.3f s"
      " (trace + grad + prepare, once: %.3f s)\n",
      eager_s / n, prepared_s / n, prepare_s);
  std::printf("d lnZ/N / d beta, forward mode vs reverse mode: largest difference %.1e\n",
              worst_fwd);
  // Eager and prepared runs do the same arithmetic, so they agree to round-off; forward and
  // reverse rules are different formulas of the same derivative.
  const bool ok = finite && worst_f <= 1e-3 && worst_prep <= 1e-8 && worst_fwd <= 1e-6;
  std::printf(
      "%s: largest relative free-energy error %.1e (bound 1e-3), |prepared - eager| %.1e"
      " (bound 1e-8), |forward - reverse| %.1e (bound 1e-6)%s\n",
      ok ? "PASS" : "FAIL", worst_f, worst_prep, worst_fwd, finite ? "" : ", NON-FINITE VALUES");
  return ok;
}

// Values only: lnZ/N at five inverse temperatures per T, u and c from the five-point stencils
//   d1 = (-f(+2h) + 8 f(+h) - 8 f(-h) + f(-2h)) / 12h,
//   d2 = (-f(+2h) + 16 f(+h) - 30 f(0) + 16 f(-h) - f(-2h)) / 12h^2,  h = 1e-3 beta
// (truncation error O(h^4), rounding ~1e-14 / h^2). No derivative is asked for, so svd_truncated
// computes its chi leading triplets by svds (src/krylov/truncated.hpp) instead of a dense SVD.
bool run_values(const TrgConfig& cfg, const std::vector<double>& temps) {
  auto ln_z = [&cfg](double b) { return ln_z_per_site(scalar_tensor(b), cfg).item<double>(); };
  std::printf("%6s %14s %14s %9s %11s %11s %9s %9s\n", "T", "f_TRG", "f_exact", "rel.err",
              "u_stencil", "u_exact", "c_stencil", "c_exact");
  double total_s = 0, worst_f = 0;
  bool finite = true;
  for (double temp : temps) {
    const double b = 1 / temp, h = 1e-3 * b;
    const auto t0 = std::chrono::steady_clock::now();
    double f[5];
    for (int i = 0; i < 5; ++i) f[i] = ln_z(b + (i - 2) * h);
    total_s += seconds_since(t0);
    const double d1 = (-f[4] + 8 * f[3] - 8 * f[1] + f[0]) / (12 * h);
    const double d2 = (-f[4] + 16 * f[3] - 30 * f[2] + 16 * f[1] - f[0]) / (12 * h * h);
    const ExactThermo ex = exact_thermo(b);
    const double fe = -temp * f[2], f_exact = -temp * exact_ln_z(b);
    const double rel = std::abs(fe - f_exact) / std::abs(f_exact);
    finite = finite && std::isfinite(f[0] + f[1] + f[2] + f[3] + f[4]);
    worst_f = std::max(worst_f, std::isfinite(rel) ? rel : 1.0);
    std::printf("%6.3f %14.10f %14.10f %9.2e %11.7f %11.7f %9.5f %9.5f\n", temp, fe, f_exact, rel,
                -d1, ex.u, b * b * d2, ex.c);
  }
  std::printf("\nper temperature: 5 values of lnZ/N %.3f s (svd_truncated by svds)\n",
              total_s / static_cast<double>(temps.size()));
  const bool ok = finite && worst_f <= 1e-3;
  std::printf("%s: largest relative free-energy error %.1e (bound 1e-3)%s\n", ok ? "PASS" : "FAIL",
              worst_f, finite ? "" : ", NON-FINITE VALUES");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  TrgConfig cfg;
  std::vector<double> temps = {1.5, 2.0, 2.269, 2.5, 3.0};
  if (argc > 1 &&
      (std::string_view(argv[1]) == "--ad" || std::string_view(argv[1]) == "--values")) {
    cfg.mode = argv[1][2] == 'a' ? TrgConfig::Mode::ad : TrgConfig::Mode::values;
    --argc;
    ++argv;
  }
  if (argc > 1) cfg.chi = std::atoll(argv[1]);
  if (argc > 2) cfg.steps = std::atoi(argv[2]);
  if (argc > 3) temps.assign(argc - 3, 0.0);
  for (int i = 3; i < argc; ++i) temps[i - 3] = std::atof(argv[i]);
  const bool temps_ok = std::all_of(temps.begin(), temps.end(), [](double t) { return t > 0; });
  if (cfg.chi < 2 || cfg.steps < 1 || cfg.steps > 60 || !temps_ok) {
    std::fprintf(stderr,
                 "usage: trg_ising [--ad | --values] [chi >= 2 [steps 1..60 [T > 0 ...]]]\n");
    return 2;
  }

  // The exact reference must itself be right before it can judge TRG: at T_c against
  // ln(2)/2 + 2G/pi (G Catalan's constant), at T = 100 against the high-temperature series
  // ln(2 cosh^2 b) + tanh^4 b + O(tanh^6 b).
  const double tc = 2 / std::log(1 + std::sqrt(2.0));
  const double catalan = 0.915965594177219015;
  const double th = std::tanh(0.01);
  const double ref_tc = exact_ln_z(1 / tc) - (std::log(2.0) / 2 + 2 * catalan / kPi);
  const double ref_hot =
      exact_ln_z(0.01) - (std::log(2 * std::cosh(0.01) * std::cosh(0.01)) + th * th * th * th);
  const bool exact_ok = std::abs(ref_tc) < 1e-11 && std::abs(ref_hot) < 1e-11;
  std::printf("Onsager check: %.1e at T_c, %.1e at T = 100 (series, O(1e-12))\n", ref_tc, ref_hot);

  try {
    CpuBackend cpu;  // every available core
    BackendGuard use(cpu);
    std::printf("TRG, 2D Ising: chi = %lld, %d steps (2^%d sites), %d threads\n\n",
                static_cast<long long>(cfg.chi), cfg.steps, cfg.steps, cpu.threads());

    const bool ok = cfg.values() ? run_values(cfg, temps) : run_ad(cfg, temps, cpu);
    if (!(ok && exact_ok)) return 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "tenferro error: %s\n", e.what());
    return 1;
  }
  return 0;
}
