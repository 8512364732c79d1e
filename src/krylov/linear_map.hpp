// Note [Krylov autodiff]: a Krylov solver's result is a function of the map's parameters (the
// tensors f closes over), of b or x, but not of the iterations: differentiating through them
// would be slow and wrong (they stop at a tolerance). Each solver instead runs detached and then
// "reattaches" its result with ops whose derivative is the adjoint rule (docs/krylov.md):
//
//     probe_i = f(x_i) - detach(f(x_i))          value 0, derivative (df) x_i, recorded by f's ops
//     x_out   = x + L(probe)                      L a fixed linear map: a solve with (A - lambda),
//                                                 A^-1, exp(tA)... held as a host primitive
//
// so the value is exactly the solver's and the tape/forward mode see only ordinary nodes plus one
// LinearMapPrim per rule, whose jvp is L(t) and whose vjp is L^H(ct). L itself is computed with
// the parameters frozen, so the rules are first order only: a LinearMapPrim rule whose operands
// carry a live layer of another autodiff level (Note [Autodiff levels]; an enclosing jvp, or an
// enclosing tape that records) throws Unsupported instead of dropping the derivative of L.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail::krylov {

using VectorMap = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

/// A linear map on a tuple of tensors, called on plain tensors with grad mode off.
struct HostLinearMap {
  const char* solver;  ///< static string: "eigsh", "linsolve", ... (for error messages)
  VectorMap apply;
  VectorMap adjoint;  ///< empty: self-adjoint
};

/// L(in) (L^H(in) when `adjoint`) as one recorded node (Note [Krylov autodiff]). L may map n
/// tensors to m: the adjoint then maps m to n, each to its primal's shape (a complex result for a
/// real primal is cut to its real part, PyTorch's convention).
std::vector<Tensor> apply_linear_map(const std::shared_ptr<const HostLinearMap>& map,
                                     std::span<const Tensor> in, bool adjoint = false);

/// v -> f^H v: `given` when set, else the pullback of f (linear, so its vjp is its adjoint),
/// built once at `at` on first use.
std::function<Tensor(const Tensor&)> adjoint_of(std::shared_ptr<ScalarFn> f,
                                                std::function<Tensor(const Tensor&)> given,
                                                const Tensor& at);

/// t's value as one recorded identity LinearMapPrim: a rule term that holds the computed vectors
/// fixed (an eigenvalue's <x, dA x>, a singular value's <u, dA v>) is first order only, and
/// through this node an enclosing transform gets Unsupported instead of a missing dx term.
Tensor first_order_only(const char* solver, const Tensor& t);

/// y - detach(y): zero, with y's derivative.
Tensor derivative_probe(const Tensor& y);
/// True when t carries live autodiff state at some level (a leaf, a tape node or a tangent).
bool carries_derivative(const Tensor& t);

}  // namespace tenferro::detail::krylov
