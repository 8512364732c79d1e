// The small dense matrices of a Krylov method (projected operator, bidiagonal, Hessenberg), held
// column-major in complex<double> whatever the vectors' dtype: m is at most a few hundred, so
// their factorisations cost nothing next to the applications of the map.
#pragma once

#include <cstdint>
#include <vector>

#include "tenferro/tensor.hpp"

namespace tenferro::detail::krylov {

/// A rows x cols column-major matrix.
struct SmallMat {
  std::int64_t rows = 0, cols = 0;
  std::vector<Scalar> a;
  SmallMat() = default;
  SmallMat(std::int64_t r, std::int64_t c) : rows(r), cols(c), a(static_cast<std::size_t>(r * c)) {}
  Scalar& operator()(std::int64_t i, std::int64_t j) {
    return a[static_cast<std::size_t>(i + j * rows)];
  }
  Scalar operator()(std::int64_t i, std::int64_t j) const {
    return a[static_cast<std::size_t>(i + j * rows)];
  }
  /// Column j as a vector.
  std::vector<Scalar> col(std::int64_t j) const;
  /// The leading r x c block.
  SmallMat block(std::int64_t r, std::int64_t c) const;
};

struct SmallEigh {
  std::vector<double> w;  ///< ascending
  SmallMat V;             ///< orthonormal columns
};
/// Eigendecomposition of the Hermitian part of H (real arithmetic when `real`).
SmallEigh small_eigh(const SmallMat& H, bool real);

struct SmallSvd {
  SmallMat U;             ///< rows x r
  std::vector<double> s;  ///< r = min(rows, cols), descending
  SmallMat V;             ///< cols x r
};
SmallSvd small_svd(const SmallMat& B, bool real);

/// exp(t H) e_0 for a square H (scaling and squaring of a Taylor series in complex<double>).
std::vector<Scalar> small_expm_e0(const SmallMat& H, Scalar t);

/// The vector of a dense tensor as complex scalars and back (dtype restored; real: real parts).
std::vector<Scalar> to_scalars(const Tensor& t);
Tensor from_scalars(const std::vector<Scalar>& v, Dims shape, DType dtype);

}  // namespace tenferro::detail::krylov
