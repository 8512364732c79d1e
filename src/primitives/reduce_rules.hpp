// Pieces the reduction rules are written with.
//
// Note [Reduction rules bridge]: the derivative rules of prod, max/min, mean, sum_squares and
// norm need a few elementwise operations (multiply, safe divide, scale, conj, real part). The
// elementwise family is written in parallel, so until it lands these are provided here as small
// catalog primitives (`rule_*`, bound through bind() like any op, so rules run on any
// interpreter). They carry first-order rules of their own only where trivially linear (scale,
// conj, real); mul and div_or_zero have none yet, so *second* derivatives of those reductions
// throw Unsupported. When the elementwise family is merged, each rule_* body becomes one call
// of the public op (mul, div, conj, real, ...) and this note goes away; callers do not change.
//
// The derived-value primitives below (tie weights of max/min, product of the other elements)
// are piecewise constant or values-only helpers: tie weights are not differentiable (zero
// derivative almost everywhere); prod_others has no rules (second derivatives of prod are
// Unsupported).
#pragma once

#include <span>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// a * b with NumPy broadcasting and dtype promotion.
Tensor rule_mul(const Tensor& a, const Tensor& b);
/// a / b with broadcasting and promotion, and 0 wherever b == 0 (the masked divide PyTorch's
/// norm backward uses).
Tensor rule_div_or_zero(const Tensor& a, const Tensor& b);
/// a * s for a real constant s.
Tensor rule_scale(const Tensor& a, double s);
/// Complex conjugate (a itself for real dtypes).
Tensor rule_conj(const Tensor& a);
/// Real part, real dtype (a itself for real dtypes).
Tensor rule_real(const Tensor& a);

/// For max/min: weights w of x's shape with w = 1/count where x equals the extremum of its run
/// (`extremum`: the reduced result with keepdims) and 0 elsewhere; count = ties in the run.
/// `reduced` lists the reduced axes (normalised, ascending). Not differentiable.
Tensor reduce_tie_weights(const Tensor& x, const Tensor& extremum,
                          std::span<const std::int64_t> reduced);
/// For prod: at every element, the product of the *other* elements of its reduced run
/// (prefix * suffix products, no division: exact with zeros). x's shape and dtype.
Tensor reduce_prod_others(const Tensor& x, std::span<const std::int64_t> reduced);

}  // namespace tenferro::detail
