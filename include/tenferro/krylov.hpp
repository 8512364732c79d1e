// Matrix-free Krylov solvers: eigenpairs, linear systems, the action of an exponential and the top
// singular triplets of a linear map that is only available as a function (docs/krylov.md).
//
//   auto H = [&](std::span<const Tensor> x) { return contract_env(L, W, R, x[0]); };
//   EigshResult g = tenferro::eigsh(H, x0, 1);                 // ground state, Lanczos
//   Tensor y = tenferro::linsolve(H, b).x;                      // H y = b, GMRES
//   Tensor psi = tenferro::exponentiate(H, {0, -0.1}, x).x;    // exp(-0.1 i H) x
//   SvdsResult t = tenferro::svds(a, 32);                        // top 32 triplets of a matrix
//
// The map f is a ScalarFn called as f({x}) on a vector x: a tensor of any shape (the shape of the
// start vector or right-hand side); f(x) must have x's shape and dtype (ShapeMismatch /
// DTypeMismatch otherwise) and be linear in x. The solvers touch vectors only through inner
// products, linear combinations and norms (src/krylov/space.hpp), so x may be a matrix, an MPS
// tensor or a whole environment-contracted block. Real start vectors give real arithmetic; use a
// complex x0 for a complex Hermitian map.
//
// Autodiff: every result is differentiable, in reverse and forward mode, with respect to the
// tensors f closes over (the tensors of an MPO, a matrix), the right-hand side b (linsolve), the
// vector x (exponentiate) and the matrix a (svds), by the adjoint rules of docs/krylov.md: a solve
// with the projected or adjoint map, not differentiation through the iterations. Second
// derivatives through a solver are Unsupported (they throw, never a silent wrong value).
// tracing a solver is Unsupported: the map is an arbitrary function.
//
// Execution: the iterations are ordinary tenferro ops, so inside CpuBackend::with_execution_scope a
// whole solve enters the executor once. Errors: a non-converged solve throws LinAlgError naming the
// solver, iterations and residual unless `require_convergence` is false (then info says so).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

/// How a solve went. Residual norms are the true ones, recomputed from a last application of f.
struct KrylovInfo {
  std::int64_t converged = 0;     ///< pairs / triplets / solutions meeting the tolerance
  std::int64_t iterations = 0;    ///< restarts (eigsh, svds, gmres) or steps (cg, minres, ...)
  std::int64_t applications = 0;  ///< calls of f (and of its adjoint, for svds and bicgstab)
  std::vector<double> residuals;  ///< one per returned pair / triplet / solution
};

/// Which eigenvalues eigsh targets.
enum class Which {
  smallest_real,       ///< algebraically smallest (ground states)
  largest_real,        ///< algebraically largest
  largest_magnitude,   ///< largest |lambda|
  smallest_magnitude,  ///< smallest |lambda| (slow: no shift-invert; prefer a shifted map)
};

enum class EigshMethod {
  lanczos,   ///< thick-restart Lanczos with full reorthogonalisation
  davidson,  ///< Davidson with an optional preconditioner
};

struct EigshOptions {
  Which which = Which::smallest_real;
  EigshMethod method = EigshMethod::lanczos;
  /// Krylov (Davidson: search) space size; 0: max(2 k + 10, 20), at most the dimension.
  std::int64_t krylov_dim = 0;
  /// Converged when |f(x) - lambda x| <= tol * max(|Ritz values|); negative: 1e-12 (f64, c128),
  /// 1e-5 (f32, c64). NaN or infinite (here and in every tol / degeneracy_eps below):
  /// InvalidArgument naming the solver and the option.
  double tol = -1.0;
  std::int64_t max_restarts = 200;
  /// Lanczos: check convergence after every step, not only when the Krylov space is full (the
  /// residual of each Ritz pair is known from the projected matrix; KrylovKit's `eager`). With a
  /// start vector close to the answer (the previous state in DMRG) a solve then costs a few
  /// applications instead of krylov_dim. Off by default: from a poor start vector, a small space
  /// may converge to a pair that a full space would have ranked below a better one.
  bool eager = false;
  /// For k > 1: a second, deflated run from a random vector orthogonal to the found pairs checks
  /// that no member of a degenerate multiplet was missed (a single start vector cannot see one).
  bool verify_multiplicity = true;
  /// Davidson's preconditioner: given the residual r and the current Ritz value theta, an
  /// approximation of (M - theta)^-1 r. Empty: the residual itself.
  std::function<Tensor(const Tensor& r, double theta)> preconditioner;
  bool require_convergence = true;
  /// Broadening of 1 / (lambda_i - lambda_j) in the derivative (relative to the largest
  /// |lambda|^2, as in eigh); negative: the dtype's default (tenferro/ops/linalg.hpp).
  double degeneracy_eps = -1.0;
  std::uint64_t seed = 0x5eed;  ///< for the random vectors of the multiplicity check
};

struct EigshResult {
  Tensor eigenvalues;                ///< [k], real dtype of x0, ordered by `which`
  std::vector<Tensor> eigenvectors;  ///< k orthonormal vectors, x0's shape and dtype
  KrylovInfo info;
};

/// The k eigenpairs of the Hermitian map f selected by `which`, starting from x0 (any nonzero
/// vector; its dimension must be >= k).
///
/// Every solver takes its map by value and keeps it for the derivative rules (a backward() after
/// the call applies it again): pass a lambda, or an existing ScalarFn with std::move, or
/// std::ref(f) when f outlives every backward through the result.
EigshResult eigsh(ScalarFn f, const Tensor& x0, std::int64_t k, const EigshOptions& options = {});

enum class LinsolveMethod {
  cg,        ///< Hermitian positive definite f
  minres,    ///< Hermitian f (indefinite allowed)
  gmres,     ///< any f (restarted; `krylov_dim` per cycle)
  bicgstab,  ///< any f (no adjoint needed while solving)
};

struct LinsolveOptions {
  LinsolveMethod method = LinsolveMethod::gmres;
  /// Converged when |b - f(x)| <= tol * |b|; negative: 1e-12 (f64, c128), 1e-5 (f32, c64).
  double tol = -1.0;
  std::int64_t max_iterations = 1000;  ///< steps (cg, minres, bicgstab) or restarts (gmres)
  std::int64_t krylov_dim = 30;        ///< gmres restart length
  /// The adjoint map (v -> f^H v), used by the derivative of gmres / bicgstab solves. Empty: the
  /// vector-Jacobian product of f (exact for a linear f written with tenferro ops).
  std::function<Tensor(const Tensor&)> adjoint;
  bool require_convergence = true;
};

struct LinsolveResult {
  Tensor x;
  KrylovInfo info;
};

/// x with f(x) = b, starting from x0 (undefined: zeros).
LinsolveResult linsolve(ScalarFn f, const Tensor& b, const Tensor& x0 = {},
                        const LinsolveOptions& options = {});

struct ExponentiateOptions {
  /// f is Hermitian: its derivative rules use f as its own adjoint. (The projection is Arnoldi
  /// with full reorthogonalisation either way, which for a Hermitian f is Lanczos.)
  bool hermitian = false;
  /// Krylov space size per time step.
  std::int64_t krylov_dim = 30;
  /// Each step's error estimate must be <= tol * |x| * (the step's fraction of t), so the total is
  /// about tol |x|; negative: 1e-12 (f64, c128), 1e-5 (f32, c64).
  double tol = -1.0;
  /// More steps than this, or a step that cannot meet the tolerance, is LinAlgError (there is no
  /// partial result: exponentiate always converges or throws).
  std::int64_t max_steps = 10000;
  /// As LinsolveOptions::adjoint: used by the reverse-mode rule when f is not Hermitian.
  std::function<Tensor(const Tensor&)> adjoint;
};

struct ExponentiateResult {
  Tensor x;  ///< exp(t f) x; complex when t or x is
  /// converged = 1, iterations = time steps, applications of f; no residuals (the steps' error
  /// estimates are what the tolerance bounds).
  KrylovInfo info;
};

/// exp(t f) x by Krylov projection with adaptive time steps (Expokit's error estimate).
ExponentiateResult exponentiate(ScalarFn f, Scalar t, const Tensor& x,
                                const ExponentiateOptions& options = {});

enum class SvdsMethod {
  automatic,   ///< dense matrix: randomized while it converges fast, else lanczos; map: lanczos
  lanczos,     ///< Golub-Kahan-Lanczos bidiagonalisation, thick restart
  randomized,  ///< randomised subspace iteration (dense matrices): oversampling + power steps
};

struct SvdsOptions {
  SvdsMethod method = SvdsMethod::automatic;
  /// Converged when |A v - s u| and |A^H u - s v| <= tol * s_max; negative: 1e-12 (f64, c128),
  /// 1e-5 (f32, c64).
  double tol = -1.0;
  std::int64_t krylov_dim = 0;    ///< lanczos: 0 -> max(2 k + 1, 20); randomized: k + oversampling
  std::int64_t oversampling = 0;  ///< randomized: 0 -> max(k, 10)
  std::int64_t max_restarts = 200;  ///< restarts (lanczos) or power steps (randomized)
  bool require_convergence = true;
  double degeneracy_eps = -1.0;  ///< as in svd (tenferro/ops/linalg.hpp)
  std::uint64_t seed = 0x5eed;
};

/// Top-k singular triplets of a dense matrix a [m, n]: U [m, k], S [k] descending, Vh [k, n].
struct SvdsResult {
  Tensor U, S, Vh;
  KrylovInfo info;
};
SvdsResult svds(const Tensor& a, std::int64_t k, const SvdsOptions& options = {});

/// Top-k singular triplets of a linear map f: X -> Y given with its adjoint f_adj: Y -> X, from a
/// start vector v0 in X (Golub-Kahan-Lanczos).
struct SvdsMapResult {
  std::vector<Tensor> U;  ///< k vectors in Y
  Tensor S;               ///< [k], descending
  std::vector<Tensor> V;  ///< k vectors in X
  KrylovInfo info;
};
SvdsMapResult svds(ScalarFn f, ScalarFn f_adj, const Tensor& v0, std::int64_t k,
                   const SvdsOptions& options = {});

}  // namespace tenferro
