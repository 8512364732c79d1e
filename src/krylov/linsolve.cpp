// linsolve: cg / minres / gmres / bicgstab on a map, with the adjoint rule of Note [Krylov
// autodiff]: x = A^-1 b, so dx = A^-1 (db - dA x) and the cotangent of b is A^-H x_bar.
#include <optional>
#include <string>

#include "krylov/linear_map.hpp"
#include "krylov/solvers.hpp"
#include "krylov/space.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/ops.hpp"

namespace tenferro {
namespace detail::krylov {
namespace {

const char* method_name(LinsolveMethod m) {
  switch (m) {
    case LinsolveMethod::cg:
      return "cg";
    case LinsolveMethod::minres:
      return "minres";
    case LinsolveMethod::gmres:
      return "gmres";
    case LinsolveMethod::bicgstab:
      return "bicgstab";
  }
  return "?";
}

template <class Op>
SolveOutcome<Tensor> solve_with(LinsolveMethod m, const Op& op, const Tensor& b, Tensor x,
                                double tol, std::int64_t max_iter, std::int64_t krylov_dim) {
  switch (m) {
    case LinsolveMethod::cg:
      return solve_cg<Tensor>(op, b, std::move(x), tol, max_iter);
    case LinsolveMethod::minres:
      return solve_minres<Tensor>(op, b, std::move(x), tol, max_iter);
    case LinsolveMethod::bicgstab:
      return solve_bicgstab<Tensor>(op, b, std::move(x), tol, max_iter);
    case LinsolveMethod::gmres:
      break;
  }
  return solve_gmres<Tensor>(op, b, std::move(x), tol, max_iter, krylov_dim);
}

bool hermitian(LinsolveMethod m) { return m == LinsolveMethod::cg || m == LinsolveMethod::minres; }

}  // namespace

std::function<Tensor(const Tensor&)> adjoint_of(std::shared_ptr<ScalarFn> f,
                                                std::function<Tensor(const Tensor&)> given,
                                                const Tensor& at) {
  if (given) return given;
  auto pullback = std::make_shared<std::optional<Pullback>>();
  return [f, pullback, at](const Tensor& v) {
    if (!*pullback) *pullback = vjp(*f, {at}).pullback;
    return (**pullback)({v})[0];
  };
}

}  // namespace detail::krylov

LinsolveResult linsolve(ScalarFn f_in, const Tensor& b, const Tensor& x0,
                        const LinsolveOptions& o) {
  using namespace detail::krylov;
  const char* op = "linsolve";
  require_floating(op, b, "b");
  const Tensor bp = plain_value(op, b, "b");
  Tensor x = bp;
  if (x0.defined()) {
    if (x0.shape() != b.shape() || x0.dtype() != b.dtype())
      throw Error(x0.shape() != b.shape() ? ErrorKind::ShapeMismatch : ErrorKind::DTypeMismatch,
                  "linsolve: x0 must have b's shape and dtype (b " + dims_to_string(b.shape()) +
                      " " + std::string(dtype_name(b.dtype())) + ", x0 " +
                      dims_to_string(x0.shape()) + " " + std::string(dtype_name(x0.dtype())) + ")");
    x = plain_value(op, x0, "x0");
  }
  if (o.max_iterations < 0 || o.krylov_dim < 1)
    throw Error(ErrorKind::InvalidArgument,
                "linsolve: max_iterations must be >= 0 and krylov_dim >= 1");
  auto f = std::make_shared<ScalarFn>(std::move(f_in));
  const double tol = default_tol(op, b.dtype(), o.tol);
  const LinsolveMethod method = o.method;
  const std::int64_t max_iter = o.max_iterations, kdim = o.krylov_dim;
  CountedMap A{op, f.get()};
  SolveOutcome<Tensor> s;
  double bnorm = 0;
  {
    NoGradGuard no_grad;
    if (!x0.defined()) x = vzeros_like(bp);
    bnorm = vnorm(bp);
    s = solve_with(method, A, bp, x, tol, max_iter, kdim);
  }
  LinsolveResult out;
  const Tensor& xs = s.x;
  const Tensor y = (*f)(std::span<const Tensor>(&xs, 1));  // true residual and derivative probe
  ++A.calls;
  {
    NoGradGuard no_grad;
    out.info.residuals.push_back(vnorm(vaxpy(-1.0, detach(y), bp)));
  }
  out.info.converged = out.info.residuals[0] <= 10 * tol * bnorm;
  out.info.iterations = s.iterations;
  out.info.applications = A.calls;
  if (o.require_convergence && !out.info.converged)
    throw Error(ErrorKind::LinAlgError,
                std::string("linsolve: ") + method_name(method) +
                    " did not converge: |b - f(x)| = " + format_g(out.info.residuals[0]) +
                    " > tol |b| = " + format_g(tol * bnorm) + " after " +
                    std::to_string(s.iterations) +
                    " iterations; raise max_iterations (gmres: krylov_dim), or set "
                    "require_convergence = false");
  out.x = s.x;
  const bool db = carries_derivative(b), dA = carries_derivative(y);
  if (!db && !dA) return out;

  // x_out = x + A^-1 (probe(b) - probe(f(x))): value x, derivative A^-1 (db - dA x).
  auto map = std::make_shared<HostLinearMap>();
  map->solver = op;
  auto solve = [f, method, tol, max_iter, kdim](std::function<Tensor(const Tensor&)> apply,
                                                const Tensor& v) {
    SolveOutcome<Tensor> r = solve_with(method, apply, v, vzeros_like(v), tol, max_iter, kdim);
    if (!r.converged)
      throw Error(ErrorKind::LinAlgError, std::string("linsolve: the derivative's ") +
                                              method_name(method) + " solve did not converge");
    return r.x;
  };
  map->apply = [f, solve](std::span<const Tensor> in) {
    CountedMap A{"linsolve", f.get()};
    return std::vector<Tensor>{solve([&A](const Tensor& v) { return A(v); }, in[0])};
  };
  if (!hermitian(method)) {
    auto adj = adjoint_of(f, o.adjoint, s.x);
    map->adjoint = [adj, solve](std::span<const Tensor> in) {
      return std::vector<Tensor>{solve([&adj](const Tensor& v) { return detach(adj(v)); }, in[0])};
    };
  }
  Tensor rhs;
  if (db) rhs = derivative_probe(b);
  if (dA) rhs = rhs.defined() ? sub(rhs, derivative_probe(y)) : neg(derivative_probe(y));
  out.x = add(out.x, apply_linear_map(map, std::span<const Tensor>(&rhs, 1))[0]);
  return out;
}

}  // namespace tenferro
