// Fixed points x* = f(x*, params) with implicit derivatives (docs/fixed-point.md).
//
//   auto f = [](std::span<const Tensor> in) { return mul(cos(in[0]), in[1]); };  // {x, a} -> x_new
//   Tensor a = full({3}, 0.8).requires_grad_();
//   Tensor x = tenferro::fixed_point(f, zeros({3}), {a});   // x = cos(x) a
//   backward(sum(x));                                        // a.grad() = cos x / (1 + a sin x)
//
// The forward pass iterates on plain tensors (nothing is recorded per iteration). The derivatives
// come from the implicit function theorem at the fixed point, with J = df/dx at (x*, params):
//   reverse: w solves (I - J)^H w = x_bar, and params' cotangents are (df/dparams)^H w;
//   forward: dx* solves (I - J) dx* = (df/dparams) dparams.
// Those systems are solved with GMRES (a dense LU of J when x is small), so a gradient costs one
// more application of f plus a linear solve, however many iterations the forward pass took.
// Tensors f closes over are differentiated in reverse mode too, but forward mode needs every
// differentiated tensor passed through `params` (see docs/fixed-point.md, "Limits").
//
// First order only: second derivatives through a fixed point throw Unsupported, and so does
// tracing (f is an arbitrary function and the iteration count depends on values).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

#include "tenferro/autodiff.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

struct FixedPointOptions {
  /// Converged when |f(x) - x| <= tol * |f(x)| (Frobenius norms); negative: 1e-12 (f64, c128),
  /// 1e-5 (f32, c64); NaN or infinite: InvalidArgument.
  double tol = -1.0;
  /// Applications of f in the forward iteration; more is LinAlgError (unless
  /// require_convergence is false).
  std::int64_t max_iterations = 1000;
  /// Damping: x_{k+1} = x_k + mixing (f(x_k) - x_k), in (0, 1]; 1 is the plain iteration.
  double mixing = 1.0;
  /// Anderson acceleration over this many previous steps (type II, least squares by pinv); 0 is
  /// off. Changes the path, not the fixed point nor its derivative.
  std::int64_t anderson_depth = 0;
  /// False: a run that misses tol returns with converged = false (and derivatives taken at the
  /// last iterate, which is not a fixed point) instead of throwing.
  bool require_convergence = true;
  /// The derivative solves (I - J) with a dense LU of J, built by 2 numel (complex) or numel
  /// (real) pullbacks of f, when x has at most this many elements; GMRES otherwise. 0: always
  /// GMRES.
  std::int64_t dense_threshold = 64;
};

struct FixedPointResult {
  Tensor x;                     ///< the fixed point, differentiable w.r.t. params
  std::int64_t iterations = 0;  ///< applications of f in the forward iteration
  double residual = 0;          ///< |f(x_k) - x_k| / |f(x_k)| at the last step
  bool converged = false;
};

/// The fixed point of x -> f({x, params...}) reached from x0. f must return a tensor of x0's shape
/// and dtype (ShapeMismatch / DTypeMismatch otherwise); x0 must be floating (DTypeMismatch). Not
/// converging within options.max_iterations, or a non-finite residual, is LinAlgError naming the
/// residual and the iteration count. The result is differentiable with respect to params (and
/// tensors f closes over, reverse mode only) by the implicit rule above, not through the
/// iterations; it does not depend on x0. f is kept by the derivative rule (pass a lambda, a
/// ScalarFn with std::move, or std::ref(f) when f outlives every backward through the result).
FixedPointResult fixed_point_with_info(ScalarFn f, const Tensor& x0, std::span<const Tensor> params,
                                       const FixedPointOptions& options = {});
FixedPointResult fixed_point_with_info(ScalarFn f, const Tensor& x0,
                                       std::initializer_list<Tensor> params,
                                       const FixedPointOptions& options = {});
/// fixed_point_with_info(...).x
Tensor fixed_point(ScalarFn f, const Tensor& x0, std::span<const Tensor> params,
                   const FixedPointOptions& options = {});
Tensor fixed_point(ScalarFn f, const Tensor& x0, std::initializer_list<Tensor> params,
                   const FixedPointOptions& options = {});

}  // namespace tenferro
