// Building blocks of the linear-algebra derivative rules, written with public ops so every rule
// runs eagerly, on tangents (second order) or symbolically (traced gradient programs).
//
// Conventions (docs/linalg.md): cotangents follow PyTorch's conjugate-Wirtinger convention (the
// gradient of a real loss L with respect to z is dL/dRe z + i dL/dIm z), i.e. every VJP here is the
// adjoint of its JVP under <X, Y> = Re tr(X^H Y).
#pragma once

#include "tenferro/ops.hpp"
#include "tenferro/ops/linalg.hpp"

namespace tenferro::detail::linalg_rules {

/// Conjugate transpose of the last two dims (a view for real dtypes).
Tensor mH(const Tensor& x);
/// Re z, keeping z's dtype (x itself for a real dtype).
Tensor re(const Tensor& z);
/// i Im z, keeping z's dtype (zeros for a real dtype).
Tensor i_im(const Tensor& z);
/// Re z in the real dtype.
Tensor real_of(const Tensor& z);
/// F[..., i, j] = d / (d^2 + eps * scale^2 + tiny), d = x[..., j] - x[..., i], scale = max |x|
/// of the matrix: the broadened 1 / (x_j - x_i) of Note [Degenerate spectra], 0 on the diagonal.
Tensor inverse_gaps(const Tensor& x, double eps);
/// G[..., i, j] = the broadened 1 / (x_i + x_j) (same broadening; 0 where x_i + x_j = 0).
Tensor inverse_sums(const Tensor& x, double eps);
/// s / (s^2 + eps * max(s)^2 + tiny): the broadened 1 / s (0 for s = 0).
Tensor broadened_inverse(const Tensor& s, double eps);
/// The Hermitian matrix one triangle of x defines (real diagonal): what eigh and cholesky read.
Tensor hermitian_from_triangle(const Tensor& x, bool lower);
/// The adjoint of hermitian_from_triangle: the cotangent of the read triangle.
Tensor triangle_cotangent(const Tensor& g, bool lower);
/// The triangle triangular_solve reads (strict when unit_diagonal).
Tensor read_triangle(const Tensor& x, bool upper, bool unit_diagonal);
/// adj(a) = det(a) a^-1 for square a, through a = U S V^H: det(U) det(V^H) V diag(prod_{j != i}
/// s_j) U^H, continuous (and exact) at singular matrices; written with public ops.
Tensor adjugate(const Tensor& a);
/// The n x n identity of `dtype`, broadcast to `batch` + [n, n].
Tensor identity_like(std::int64_t n, DType dtype, Dims batch);

}  // namespace tenferro::detail::linalg_rules
