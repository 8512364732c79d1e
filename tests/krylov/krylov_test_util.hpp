// Dense test maps for the Krylov suites: Hermitian matrices with a prescribed spectrum and the
// matrix-vector closures the solvers take.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "tenferro/krylov.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro::testing {

/// Q diag(w) Q^H with a random unitary Q (seeded): an n x n Hermitian matrix of dtype `dt`.
inline Tensor hermitian_with_spectrum(const std::vector<double>& w, std::uint64_t seed, DType dt) {
  const auto n = static_cast<std::int64_t>(w.size());
  NoGradGuard no_grad;
  const Tensor q = qr(randn({n, n}, seed, dt)).Q;
  const Tensor d = cast(from_vector<double>(w, {n}), dt);
  const Tensor a = matmul(mul(q, d.unsqueeze(0)), conj(q).transpose());
  return mul(add(a, conj(a).transpose()), Scalar(0.5)).contiguous();
}

/// A random Hermitian matrix (real symmetric for real dtypes).
inline Tensor random_hermitian(std::int64_t n, std::uint64_t seed, DType dt) {
  NoGradGuard no_grad;
  const Tensor g = randn({n, n}, seed, dt);
  return mul(add(g, conj(g).transpose()), Scalar(0.5)).contiguous();
}

/// x -> a x on vectors of a's size (any shape, flattened and restored).
inline ScalarFn matvec(const Tensor& a) {
  return [a](std::span<const Tensor> x) {
    return matmul(a, x[0].reshape({x[0].numel()})).reshape(x[0].shape());
  };
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  NoGradGuard no_grad;
  return cast(max(abs(sub(detach(a), detach(b)))), DType::f64).item<double>();
}

}  // namespace tenferro::testing
