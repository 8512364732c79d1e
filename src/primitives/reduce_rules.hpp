// Derived-value primitives the reduction rules need and the public ops cannot express.
//
// Note [Reduction rules]: the derivative rules of prod, max/min, mean, sum_squares and norm are
// written with public ops (mul, div, conj, cast, where, ...), so every rule is itself
// differentiable and second derivatives (forward-over-reverse HVP, grad of grad) work. Two
// values have no public-op form and are small catalog primitives here, bound through bind()
// like any op so they run under every interpreter:
// - tie weights of max/min: piecewise constant, so zero derivative almost everywhere (the
//   primitive's rules return undefined = zero tangents/cotangents);
// - the product of the *other* elements of each reduced run (prod's derivative; exact with
//   zeros, no division). Its own derivative is the dual part of the same prefix/suffix sweep
//   over dual numbers x + eps t, a third primitive (prod_others_tangent) that serves as both
//   its JVP and, at conj(x), its VJP (the Jacobian is symmetric). prod_others_tangent has no
//   rules: third derivatives of prod throw Unsupported.
#pragma once

#include <span>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// For max/min: weights w of x's shape with w = 1/count where x equals the extremum of its run
/// (`extremum`: the reduced result with keepdims) and 0 elsewhere; count = ties in the run.
/// `reduced` lists the reduced axes (normalised, ascending). Zero derivative.
Tensor reduce_tie_weights(const Tensor& x, const Tensor& extremum,
                          std::span<const std::int64_t> reduced);
/// For prod: at every element, the product of the *other* elements of its reduced run
/// (prefix * suffix products, no division: exact with zeros). x's shape and dtype.
Tensor reduce_prod_others(const Tensor& x, std::span<const std::int64_t> reduced);
/// The directional derivative of reduce_prod_others at x along t (same shape as x; dtype the
/// promotion of both). No derivative rules of its own.
Tensor reduce_prod_others_tangent(const Tensor& x, const Tensor& t,
                                  std::span<const std::int64_t> reduced);

}  // namespace tenferro::detail
