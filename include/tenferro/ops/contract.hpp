// Contractions: dot_general and the NumPy-style products built on it.
//
// Every function here lowers to the one catalog primitive `dot_general` (plus views such as
// reshape/permute/broadcast_to), so autodiff and tracing see a single contraction primitive.
// Inputs may have any dtypes (the result has the promoted dtype, see dtype.hpp) and any strides
// (transposed, sliced, broadcast); results are fresh tensors except where noted. Errors are
// tenferro::Error: InvalidArgument for bad dimension numbers or ranks, ShapeMismatch for sizes
// that do not agree; the message names the op and the operands' shapes and dtypes.
//
// Complex autodiff follows PyTorch's conjugate-Wirtinger convention: for C = A B the gradient
// with respect to A is dC * conj(B)^T (see docs/providers.md, "Gradients").
//
// Example:
//   auto a = tenferro::randn({16, 2, 2}, 1), b = tenferro::randn({16, 2, 2}, 2);
//   auto c = tenferro::bmm(a, b);                        // [16, 2, 2]
//   auto d = tenferro::dot_general(a, b, {{0}, {0}, {2}, {1}});  // the same product
#pragma once

#include <string_view>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// Dimension numbers of dot_general (XLA semantics). Entry i of lhs_batch pairs with entry i of
/// rhs_batch, likewise for the contracting lists. Dimensions are 0-based, non-negative.
struct DotDims {
  Dims lhs_batch, rhs_batch, lhs_contract, rhs_contract;
};

/// General contraction. Output dimensions are: the batch dimensions (in lhs_batch order), then
/// the remaining ("free") dimensions of a in increasing order, then those of b. Contracted
/// dimensions are summed over (an empty contraction gives zeros).
/// Throws InvalidArgument when a list has a dimension out of [0, rank), a dimension appears twice
/// in one operand's lists, or paired lists differ in length; ShapeMismatch when paired
/// dimensions differ in size.
Tensor dot_general(const Tensor& a, const Tensor& b, const DotDims& dims);

/// NumPy matmul: 1-D x 1-D is the inner product (a scalar); a 1-D left operand is a row vector
/// and a 1-D right operand a column vector (the added dimension is removed from the result);
/// otherwise the last two dimensions multiply and the leading (batch) dimensions broadcast.
/// Throws InvalidArgument for rank-0 operands, ShapeMismatch when the inner sizes differ or the
/// batch dimensions do not broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);

/// Batched matmul of rank-3 tensors [B, m, k] x [B, k, n] -> [B, m, n] (no broadcasting).
/// Throws InvalidArgument unless both have rank 3, ShapeMismatch when B or k differ.
Tensor bmm(const Tensor& a, const Tensor& b);

/// NumPy tensordot: contracts a's axes_a[i] with b's axes_b[i] (negative axes count from the
/// end); the result has a's free dimensions followed by b's.
Tensor tensordot(const Tensor& a, const Tensor& b, Dims axes_a, Dims axes_b);
/// tensordot over the last n axes of a and the first n axes of b (n >= 0).
Tensor tensordot(const Tensor& a, const Tensor& b, std::int64_t n);

/// Outer product of the flattened operands: result[i, j] = a.flat[i] * b.flat[j].
Tensor outer(const Tensor& a, const Tensor& b);

/// NumPy inner: sum over the last axes, result shape a.shape[:-1] + b.shape[:-1]. For 1-D
/// operands: sum_i a[i] * b[i] (no conjugation). Throws InvalidArgument for rank 0.
Tensor inner(const Tensor& a, const Tensor& b);

/// sum_i conj(a.flat[i]) * b.flat[i] over the flattened operands (equal element counts), rank 0.
Tensor vdot(const Tensor& a, const Tensor& b);

/// Diagnostic: the name of the GEMM provider ("small_fixed", "native_blocked", "openblas", ...)
/// that executed the most recent contraction kernel on the calling thread ("none" before any).
/// Problems with nothing to compute (an empty output, or k == 0) do not change it.
std::string_view last_gemm_provider() noexcept;

}  // namespace tenferro
