// The pieces of the Krylov bindings shared by dense maps (krylov.cpp) and block-sparse maps
// (symmetric.cpp): the holder that drops a Python callable with the GIL, the info dict, and the
// solver options built from the Python keywords (same names, defaults and errors in both).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common.hpp"
#include "tenferro/krylov.hpp"

namespace tenferro::python {

/// fn kept alive by the derivative rules of a result: the reference is dropped with the GIL,
/// whichever thread frees the graph.
std::shared_ptr<py::object> hold_callable(py::object fn);

/// KrylovInfo as {"converged", "iterations", "applications", "residuals"}.
py::dict krylov_info(const KrylovInfo& info);

/// EigshOptions from eigsh's keywords: which / method by name (InvalidArgument naming the choices
/// otherwise), tol None for the dtype's default, preconditioner None or (r, theta) -> Tensor.
EigshOptions eigsh_options(const std::string& which, const std::string& method,
                           std::optional<double> tol, std::int64_t krylov_dim,
                           std::int64_t max_restarts, bool verify_multiplicity,
                           const py::object& preconditioner, bool require_convergence, bool eager);

/// LinsolveOptions from linsolve's keywords (adjoint None or v -> Tensor).
LinsolveOptions linsolve_options(const std::string& method, std::optional<double> tol,
                                 std::int64_t max_iterations, std::int64_t krylov_dim,
                                 const py::object& adjoint, bool require_convergence);

/// ExponentiateOptions from exponentiate's keywords (adjoint None or v -> Tensor).
ExponentiateOptions exponentiate_options(bool hermitian, std::int64_t krylov_dim,
                                         std::optional<double> tol, std::int64_t max_steps,
                                         const py::object& adjoint);

}  // namespace tenferro::python
