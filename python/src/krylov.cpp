// The Krylov solvers (tenferro/krylov.hpp, docs/krylov.md) for Python maps: f is a callable
// taking one Tensor and returning one. The solvers call back into Python on every iteration, so
// they run with the GIL held (the callbacks take it again when a backward pass applies the map
// with the GIL released). A map stays referenced by the derivative rules of the result: the
// holder (hold_callable) drops that reference with the GIL, whichever thread frees the graph. The
// holder, the info dict and the option builders are shared with the block-sparse solvers of
// symmetric.cpp (krylov_options.hpp).
#include "tenferro/krylov.hpp"

#include <memory>
#include <string>

#include "common.hpp"
#include "krylov_options.hpp"

namespace tenferro::python {

namespace {

ScalarFn map_of(py::function fn, const char* who) {
  return [f = hold_callable(std::move(fn)), who](std::span<const Tensor> in) -> Tensor {
    py::gil_scoped_acquire acquire;
    return result_tensor((*f)(py::cast(in[0])), who);
  };
}

std::function<Tensor(const Tensor&)> unary_of(const py::object& fn, const char* who) {
  if (fn.is_none()) return {};
  return [f = hold_callable(fn), who](const Tensor& v) -> Tensor {
    py::gil_scoped_acquire acquire;
    return result_tensor((*f)(py::cast(v)), who);
  };
}

template <class E>
E parse(const std::string& s, std::initializer_list<std::pair<const char*, E>> table,
        const char* what) {
  std::string names;
  for (const auto& [n, v] : table) {
    if (s == n) return v;
    names += (names.empty() ? "" : ", ") + std::string(n);
  }
  throw Error(ErrorKind::InvalidArgument,
              std::string(what) + " must be one of " + names + "; got '" + s + "'");
}

double tol_or_default(const std::optional<double>& tol) { return tol ? *tol : -1.0; }

}  // namespace

std::shared_ptr<py::object> hold_callable(py::object fn) {
  return std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* o) {
    py::gil_scoped_acquire acquire;
    delete o;
  });
}

py::dict krylov_info(const KrylovInfo& i) {
  return py::dict("converged"_a = i.converged, "iterations"_a = i.iterations,
                  "applications"_a = i.applications, "residuals"_a = i.residuals);
}

EigshOptions eigsh_options(const std::string& which, const std::string& method,
                           std::optional<double> tol, std::int64_t krylov_dim,
                           std::int64_t max_restarts, bool verify_multiplicity,
                           const py::object& preconditioner, bool require_convergence, bool eager) {
  EigshOptions o;
  o.which = parse<Which>(which,
                         {{"smallest_real", Which::smallest_real},
                          {"largest_real", Which::largest_real},
                          {"largest_magnitude", Which::largest_magnitude},
                          {"smallest_magnitude", Which::smallest_magnitude}},
                         "eigsh: which");
  o.method = parse<EigshMethod>(
      method, {{"lanczos", EigshMethod::lanczos}, {"davidson", EigshMethod::davidson}},
      "eigsh: method");
  o.tol = tol_or_default(tol);
  o.krylov_dim = krylov_dim;
  o.max_restarts = max_restarts;
  o.verify_multiplicity = verify_multiplicity;
  o.require_convergence = require_convergence;
  o.eager = eager;
  if (!preconditioner.is_none())
    o.preconditioner = [p = hold_callable(preconditioner)](const Tensor& r, double theta) {
      py::gil_scoped_acquire acquire;
      return result_tensor((*p)(py::cast(r), theta), "eigsh: preconditioner");
    };
  return o;
}

LinsolveOptions linsolve_options(const std::string& method, std::optional<double> tol,
                                 std::int64_t max_iterations, std::int64_t krylov_dim,
                                 const py::object& adjoint, bool require_convergence) {
  LinsolveOptions o;
  o.method = parse<LinsolveMethod>(method,
                                   {{"cg", LinsolveMethod::cg},
                                    {"minres", LinsolveMethod::minres},
                                    {"gmres", LinsolveMethod::gmres},
                                    {"bicgstab", LinsolveMethod::bicgstab}},
                                   "linsolve: method");
  o.tol = tol_or_default(tol);
  o.max_iterations = max_iterations;
  o.krylov_dim = krylov_dim;
  o.adjoint = unary_of(adjoint, "linsolve: adjoint");
  o.require_convergence = require_convergence;
  return o;
}

ExponentiateOptions exponentiate_options(bool hermitian, std::int64_t krylov_dim,
                                         std::optional<double> tol, std::int64_t max_steps,
                                         const py::object& adjoint) {
  ExponentiateOptions o;
  o.hermitian = hermitian;
  o.krylov_dim = krylov_dim;
  o.tol = tol_or_default(tol);
  o.max_steps = max_steps;
  o.adjoint = unary_of(adjoint, "exponentiate: adjoint");
  return o;
}

void bind_krylov(py::module_& m) {
  m.def(
      "eigsh",
      [](py::function f, const Tensor& x0, std::int64_t k, const std::string& which,
         const std::string& method, std::optional<double> tol, std::int64_t krylov_dim,
         std::int64_t max_restarts, bool verify_multiplicity, py::object preconditioner,
         bool require_convergence, bool eager) {
        EigshOptions o =
            eigsh_options(which, method, tol, krylov_dim, max_restarts, verify_multiplicity,
                          preconditioner, require_convergence, eager);
        EigshResult r = eigsh(map_of(std::move(f), "eigsh"), x0, k, o);
        return py::make_tuple(r.eigenvalues, r.eigenvectors, krylov_info(r.info));
      },
      "f"_a, "x0"_a, "k"_a = 1, py::kw_only(), "which"_a = "smallest_real", "method"_a = "lanczos",
      "tol"_a = py::none(), "krylov_dim"_a = 0, "max_restarts"_a = 200,
      "verify_multiplicity"_a = true, "preconditioner"_a = py::none(),
      "require_convergence"_a = true, "eager"_a = false,
      "(eigenvalues, [eigenvectors], info): k eigenpairs of the Hermitian map f (docs/krylov.md)");

  m.def(
      "linsolve",
      [](py::function f, const Tensor& b, std::optional<Tensor> x0, const std::string& method,
         std::optional<double> tol, std::int64_t max_iterations, std::int64_t krylov_dim,
         py::object adjoint, bool require_convergence) {
        LinsolveOptions o =
            linsolve_options(method, tol, max_iterations, krylov_dim, adjoint, require_convergence);
        LinsolveResult r = linsolve(map_of(std::move(f), "linsolve"), b, x0 ? *x0 : Tensor(), o);
        return py::make_tuple(r.x, krylov_info(r.info));
      },
      "f"_a, "b"_a, "x0"_a = py::none(), py::kw_only(), "method"_a = "gmres", "tol"_a = py::none(),
      "max_iterations"_a = 1000, "krylov_dim"_a = 30, "adjoint"_a = py::none(),
      "require_convergence"_a = true, "(x, info) with f(x) = b (docs/krylov.md)");

  m.def(
      "exponentiate",
      [](py::function f, std::complex<double> t, const Tensor& x, bool hermitian,
         std::int64_t krylov_dim, std::optional<double> tol, std::int64_t max_steps,
         py::object adjoint) {
        ExponentiateOptions o =
            exponentiate_options(hermitian, krylov_dim, tol, max_steps, adjoint);
        ExponentiateResult r = exponentiate(map_of(std::move(f), "exponentiate"), t, x, o);
        return py::make_tuple(r.x, krylov_info(r.info));
      },
      "f"_a, "t"_a, "x"_a, py::kw_only(), "hermitian"_a = false, "krylov_dim"_a = 30,
      "tol"_a = py::none(), "max_steps"_a = 10000, "adjoint"_a = py::none(),
      "(exp(t f) x, info) (docs/krylov.md)");

  m.def(
      "svds",
      [](py::object a, std::int64_t k, py::object adjoint, std::optional<Tensor> v0,
         const std::string& method, std::optional<double> tol, std::int64_t krylov_dim,
         std::int64_t oversampling, std::int64_t max_restarts, bool require_convergence) {
        SvdsOptions o;
        o.method = parse<SvdsMethod>(method,
                                     {{"automatic", SvdsMethod::automatic},
                                      {"lanczos", SvdsMethod::lanczos},
                                      {"randomized", SvdsMethod::randomized}},
                                     "svds: method");
        o.tol = tol_or_default(tol);
        o.krylov_dim = krylov_dim;
        o.oversampling = oversampling;
        o.max_restarts = max_restarts;
        o.require_convergence = require_convergence;
        if (py::isinstance<Tensor>(a)) {
          SvdsResult r = svds(a.cast<Tensor>(), k, o);
          return py::make_tuple(r.U, r.S, r.Vh, krylov_info(r.info));
        }
        if (!PyCallable_Check(a.ptr()) || adjoint.is_none() || !v0)
          throw py::type_error(
              "svds: a must be a tenferro.Tensor, or a callable map given with adjoint= and v0=");
        SvdsMapResult r = svds(map_of(a.cast<py::function>(), "svds"),
                               map_of(adjoint.cast<py::function>(), "svds: adjoint"), *v0, k, o);
        return py::make_tuple(r.U, r.S, r.V, krylov_info(r.info));
      },
      "a"_a, "k"_a, py::kw_only(), "adjoint"_a = py::none(), "v0"_a = py::none(),
      "method"_a = "automatic", "tol"_a = py::none(), "krylov_dim"_a = 0, "oversampling"_a = 0,
      "max_restarts"_a = 200, "require_convergence"_a = true,
      "(U, S, Vh, info) for a matrix; ([u], S, [v], info) for a map with its adjoint "
      "(docs/krylov.md)");
}

}  // namespace tenferro::python
