// The Array API's creation functions that tensor.hpp's factories (zeros, ones, full, arange,
// rand, randn) do not cover: evenly spaced values, identity-like matrices, and *_like.
//
//   Tensor t = tenferro::linspace(0.0, 1.0, 5);              // [0, 0.25, 0.5, 0.75, 1]
//   Tensor i = tenferro::eye(3, 4, 1, tenferro::DType::f32); // ones on the first superdiagonal
//   Tensor z = tenferro::zeros_like(t, tenferro::DType::c64);
//
// Each returns a fresh contiguous tensor of concrete values (a constant: no gradient flows from
// it; inside trace() it is a constant of the program, and *_like read only x's shape and dtype,
// so x may be symbolic). Every dtype. Errors name the function.
#pragma once

#include <cstdint>
#include <optional>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// `num` evenly spaced values from `start` to `stop` (endpoint = true: stop included, step
/// (stop - start) / (num - 1); false: excluded, step (stop - start) / num), as the Array API and
/// NumPy. Element i is start + i * step computed in double (complex) precision, and with endpoint
/// the last element is exactly stop; then converted to `dtype` (as cast(), after the floor of
/// each value for an integer dtype, as NumPy: [-1, -0.5, 0] becomes [-1, -1, 0]). Default dtype:
/// f64, or c128 when start or stop has a non-zero imaginary part. num = 0 gives an empty tensor,
/// num = 1 gives [start]; a negative num is InvalidArgument. A real dtype with a complex start or
/// stop is DTypeMismatch.
Tensor linspace(Scalar start, Scalar stop, std::int64_t num, bool endpoint = true,
                std::optional<DType> dtype = std::nullopt);

/// The n_rows x n_cols matrix (n_cols defaults to n_rows) with ones on diagonal k (k = 0 the main
/// diagonal, k > 0 above, k < 0 below) and zeros elsewhere, in `dtype`. A negative size is
/// InvalidArgument; a k beyond the matrix gives all zeros.
Tensor eye(std::int64_t n_rows, std::optional<std::int64_t> n_cols = std::nullopt,
           std::int64_t k = 0, DType dtype = DType::f64);

/// Tensors of x's shape and of `dtype` (default: x's dtype): zeros, ones, `value` (converted as
/// cast()), or uninitialised values (empty_like; bool: all false). x must be defined
/// (InvalidArgument). A complex value for a real dtype is DTypeMismatch (full_like only).
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);
Tensor ones_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);
Tensor full_like(const Tensor& x, Scalar value, std::optional<DType> dtype = std::nullopt);
Tensor empty_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);

}  // namespace tenferro
