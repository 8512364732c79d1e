// Shared helpers of the linear-algebra autodiff tests (tests/linalg_ad/*.cpp): inputs with a
// prescribed, well-separated spectrum, gauge-invariant views of decompositions, and exact
// comparisons of tensors and of the VJP/JVP duality.
//
// Inputs are built with plain (non-recording) ops from fixed seeds, so every test is deterministic.
// Spectra of the svd / eigh inputs are prescribed rather than left to chance: the derivatives
// divide by gaps between singular values / eigenvalues, and prescribed, well-separated values keep
// the truncation error of the central differences far below the tolerance on every machine.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <sstream>
#include <string>
#include <vector>

#include "common/autodiff_fd.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/ops/linalg.hpp"

namespace tenferro::linalg_ad {

using I = std::int64_t;
using adtest::FdFn;

inline const DType kDtypes[] = {DType::f64, DType::c128};

/// VJP and JVP of f at x against central differences.
inline void check_fd(const FdFn& f, std::vector<Tensor> x) {
  EXPECT_TRUE(adtest::check_vjp(f, x));
  EXPECT_TRUE(adtest::check_jvp(f, x));
}

inline std::string name_of(DType d) { return std::string(dtype_name(d)); }

/// Conjugate transpose of the last two dims.
inline Tensor mH(const Tensor& x) { return conj(transpose(x)); }

inline Dims with(Dims batch, std::initializer_list<I> tail) {
  for (I v : tail) batch.push_back(v);
  return batch;
}

/// A rank-1 tensor of `dtype` holding the given real values.
inline Tensor vec(const std::vector<double>& v, DType dtype) {
  return cast(from_vector<double>(v, {static_cast<I>(v.size())}), dtype);
}

/// Fixed, distinct real weights start, start + step, ... (k of them) in `dtype`.
inline Tensor weights(I k, DType dtype, double start = 1.0, double step = 0.7) {
  std::vector<double> v;
  for (I i = 0; i < k; ++i) v.push_back(start + step * static_cast<double>(i));
  return vec(v, dtype);
}

/// Weights for a full_matrices factor with `total` columns of which the first k are singular
/// vectors: distinct on those, one common value on the complement (whose basis is arbitrary:
/// only the projector onto it is a function of the matrix).
inline Tensor complement_weights(I total, I k, DType dtype, double start = 1.0, double step = 0.7,
                                 double rest = -0.4) {
  std::vector<double> v;
  for (I i = 0; i < total; ++i) v.push_back(i < k ? start + step * static_cast<double>(i) : rest);
  return vec(v, dtype);
}

/// U diag(c) U^H: invariant under the gauge of each column of U (sign, phase) and, for equal
/// weights on a block, under rotations within that block.
inline Tensor proj(const Tensor& U, const Tensor& c) { return matmul(U * c, mH(U)); }

/// |x|^2 elementwise: invariant under a sign/phase of each column.
inline Tensor abs2(const Tensor& x) { return square(abs(x)); }

/// Orthonormal columns: the Q factor of a random [batch..., m, k] matrix (m >= k).
inline Tensor orthonormal(const Dims& batch, I m, I k, std::uint64_t seed, DType dtype) {
  return qr(randn(with(batch, {m, k}), seed, dtype)).Q;
}

/// A [batch..., m, n] matrix U0 diag(s) V0^H with the given singular values (min(m, n) of them).
inline Tensor with_singular_values(const Dims& batch, I m, I n, const std::vector<double>& s,
                                   std::uint64_t seed, DType dtype) {
  const I k = std::min(m, n);
  EXPECT_EQ(static_cast<I>(s.size()), k);
  const Tensor U0 = orthonormal(batch, m, k, seed, dtype);
  const Tensor V0 = orthonormal(batch, n, k, seed + 1000, dtype);
  return contiguous(matmul(U0 * vec(s, dtype), mH(V0)));
}

/// A Hermitian [batch..., n, n] matrix Q diag(w) Q^H with the given eigenvalues.
inline Tensor with_eigenvalues(const Dims& batch, const std::vector<double>& w, std::uint64_t seed,
                               DType dtype) {
  const I n = static_cast<I>(w.size());
  const Tensor Q = orthonormal(batch, n, n, seed, dtype);
  return contiguous(matmul(Q * vec(w, dtype), mH(Q)));
}

/// h with random garbage written where an op that reads triangle `lower` does not look: the other
/// strict triangle and (complex) the imaginary part of the diagonal. The function of the read
/// triangle is unchanged, and finite differences perturbing every entry must still match.
inline Tensor spoil_unread(const Tensor& h, bool lower, std::uint64_t seed) {
  const Tensor g = randn(h.shape(), seed, h.dtype());
  Tensor out = h + (lower ? triu(g, 1) : tril(g, -1));
  if (is_complex(h.dtype()))
    out =
        out + diag_embed(cast(cast(diagonal(g), real_dtype(h.dtype())), h.dtype())) * Scalar(0, 1);
  return contiguous(out);
}

/// x + a I for a square [..., n, n] x (plain op, for well-conditioned inputs).
inline Tensor shift_diag(const Tensor& x, double a) {
  const I n = x.shape().back();
  return contiguous(x + diag_embed(ones({n}, x.dtype()) * a));
}

/// A Hermitian positive-definite [batch..., n, n] matrix X X^H + n I.
inline Tensor positive_definite(const Dims& batch, I n, std::uint64_t seed, DType dtype) {
  const Tensor X = randn(with(batch, {n, n}), seed, dtype);
  return shift_diag(matmul(X, mH(X)), static_cast<double>(n));
}

/// A well-conditioned square [batch..., n, n] matrix: random plus 2.5 I.
inline Tensor square_matrix(const Dims& batch, I n, std::uint64_t seed, DType dtype) {
  return shift_diag(randn(with(batch, {n, n}), seed, dtype), 2.5);
}

/// A real loss with non-trivial second derivatives for real and complex y.
inline Tensor loss_of(const Tensor& y) { return sum_squares(sin(y)); }

/// Re sum(conj(w) * x) for a fixed random w (the same values in every precision: drawn in double,
/// then cast): a generic real linear functional of x.
inline Tensor pairing(const Tensor& x, std::uint64_t seed) {
  const DType wide = is_complex(x.dtype()) ? DType::c128 : DType::f64;
  const Tensor w = cast(randn(x.shape(), seed, wide), x.dtype());
  return cast(sum(conj(w) * x), real_dtype(x.dtype()));
}

/// All elements (as c128), row-major.
inline std::vector<c128> values(const Tensor& t) { return adtest::fd::values(t); }

inline bool all_finite(const Tensor& t) {
  for (const c128& v : values(t))
    if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) return false;
  return true;
}

/// |a - b| <= atol + rtol * max(|a|, |b|) elementwise, shapes equal.
inline ::testing::AssertionResult near(const Tensor& a, const Tensor& b, double rtol = 1e-9,
                                       double atol = 1e-10) {
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure()
           << "shapes differ: " << dims_to_string(a.shape()) << " vs " << dims_to_string(b.shape());
  const std::vector<c128> x = values(a), y = values(b);
  std::ostringstream fails;
  int nfail = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(std::abs(x[i] - y[i]) <= atol + rtol * std::max(std::abs(x[i]), std::abs(y[i]))) &&
        nfail++ < 5)
      fails << "\n  element " << i << ": " << x[i] << " vs " << y[i];
  if (nfail) return ::testing::AssertionFailure() << nfail << " mismatches:" << fails.str();
  return ::testing::AssertionSuccess();
}

/// The VJP is the adjoint of the JVP: for random output cotangents g and input tangents t,
/// sum_inputs Re<vjp(g), t> == sum_outputs Re<g, jvp(t)>, computed with tenferro's own vjp and
/// jvp. Holds for any function, gauge-dependent outputs included.
inline ::testing::AssertionResult check_duality(const FdFn& f, std::vector<Tensor> x,
                                                std::uint64_t seed = 5) {
  VjpResult r = vjp(MultiFn(f), x);
  std::vector<Tensor> g, t;
  for (std::size_t k = 0; k < r.outputs.size(); ++k)
    g.push_back(randn(r.outputs[k].shape(), seed + 10 * k, r.outputs[k].dtype()));
  for (std::size_t i = 0; i < x.size(); ++i)
    t.push_back(randn(x[i].shape(), seed + 1000 + 10 * i, x[i].dtype()));
  const std::vector<Tensor> gx = r.pullback(g);
  JvpResult j = jvp(MultiFn(f), x, t);
  double lhs = 0, rhs = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = adtest::fd::rdot(values(gx[i]), values(t[i]));
    lhs += d;
    scale += std::abs(d);
  }
  for (std::size_t k = 0; k < g.size(); ++k) {
    const double d = adtest::fd::rdot(values(g[k]), values(j.tangents[k]));
    rhs += d;
    scale += std::abs(d);
  }
  if (!std::isfinite(lhs) || !std::isfinite(rhs) || std::abs(lhs - rhs) > 1e-10 * (1 + scale))
    return ::testing::AssertionFailure() << "<vjp(g), t> = " << lhs << " but <g, jvp(t)> = " << rhs;
  return ::testing::AssertionSuccess();
}

}  // namespace tenferro::linalg_ad
