// fixed_point (tenferro/fixed_point.hpp, docs/fixed-point.md) for a Python f(x, *params) -> Tensor.
// As the Krylov solvers (krylov.cpp): the iteration calls back into Python on every step, so it
// runs with the GIL held; the derivative rule keeps f (through hold_callable, which drops it with
// the GIL) and calls it again from a backward pass, taking the GIL in the callback.
#include "tenferro/fixed_point.hpp"

#include <memory>
#include <optional>
#include <vector>

#include "common.hpp"
#include "krylov_options.hpp"

namespace tenferro::python {

namespace {

ScalarFn step_of(py::function fn) {
  return [f = hold_callable(std::move(fn))](std::span<const Tensor> in) -> Tensor {
    py::gil_scoped_acquire acquire;
    py::tuple args(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) args[i] = py::cast(in[i]);
    return result_tensor((*f)(*args), "fixed_point: f");
  };
}

/// params as a list of tensors: a sequence, or one Tensor on its own.
std::vector<Tensor> params_of(const py::object& params) {
  if (py::isinstance<Tensor>(params)) return {params.cast<Tensor>()};
  return params.cast<std::vector<Tensor>>();
}

FixedPointResult run(py::function f, const Tensor& x0, const py::object& params,
                     std::optional<double> tol, std::int64_t max_iterations, double mixing,
                     std::int64_t anderson_depth, bool require_convergence,
                     std::int64_t dense_threshold) {
  FixedPointOptions o;
  o.tol = tol ? *tol : -1.0;
  o.max_iterations = max_iterations;
  o.mixing = mixing;
  o.anderson_depth = anderson_depth;
  o.require_convergence = require_convergence;
  o.dense_threshold = dense_threshold;
  const std::vector<Tensor> p = params_of(params);
  return fixed_point_with_info(step_of(std::move(f)), x0, p, o);
}

}  // namespace

void bind_fixed_point(py::module_& m) {
  m.def(
      "fixed_point",
      [](py::function f, const Tensor& x0, py::object params, std::optional<double> tol,
         std::int64_t max_iterations, double mixing, std::int64_t anderson_depth,
         std::int64_t dense_threshold) {
        return run(std::move(f), x0, params, tol, max_iterations, mixing, anderson_depth, true,
                   dense_threshold)
            .x;
      },
      "f"_a, "x0"_a, "params"_a = py::tuple(), py::kw_only(), "tol"_a = py::none(),
      "max_iterations"_a = 1000, "mixing"_a = 1.0, "anderson_depth"_a = 0, "dense_threshold"_a = 64,
      "x with x = f(x, *params), iterated from x0; differentiable w.r.t. params by the implicit "
      "function theorem, not through the iterations (docs/fixed-point.md)");

  m.def(
      "fixed_point_with_info",
      [](py::function f, const Tensor& x0, py::object params, std::optional<double> tol,
         std::int64_t max_iterations, double mixing, std::int64_t anderson_depth,
         bool require_convergence, std::int64_t dense_threshold) {
        FixedPointResult r = run(std::move(f), x0, params, tol, max_iterations, mixing,
                                 anderson_depth, require_convergence, dense_threshold);
        return py::make_tuple(r.x,
                              py::dict("converged"_a = r.converged, "iterations"_a = r.iterations,
                                       "residual"_a = r.residual));
      },
      "f"_a, "x0"_a, "params"_a = py::tuple(), py::kw_only(), "tol"_a = py::none(),
      "max_iterations"_a = 1000, "mixing"_a = 1.0, "anderson_depth"_a = 0,
      "require_convergence"_a = true, "dense_threshold"_a = 64,
      "(x, info) as fixed_point, info = {converged, iterations, residual} (docs/fixed-point.md)");
}

}  // namespace tenferro::python
