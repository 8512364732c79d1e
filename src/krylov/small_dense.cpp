// Small dense helpers of the Krylov solvers (small_dense.hpp).
#include "krylov/small_dense.hpp"

#include <algorithm>
#include <cmath>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

namespace tenferro::detail::krylov {

std::vector<Scalar> SmallMat::col(std::int64_t j) const {
  return std::vector<Scalar>(a.begin() + j * rows, a.begin() + (j + 1) * rows);
}

SmallMat SmallMat::block(std::int64_t r, std::int64_t c) const {
  SmallMat b(r, c);
  for (std::int64_t j = 0; j < c; ++j)
    for (std::int64_t i = 0; i < r; ++i) b(i, j) = (*this)(i, j);
  return b;
}

std::vector<Scalar> to_scalars(const Tensor& t) {
  switch (t.dtype()) {
    case DType::f32: {
      auto v = t.to_vector<float>();
      return std::vector<Scalar>(v.begin(), v.end());
    }
    case DType::f64: {
      auto v = t.to_vector<double>();
      return std::vector<Scalar>(v.begin(), v.end());
    }
    case DType::c64: {
      auto v = t.to_vector<std::complex<float>>();
      return std::vector<Scalar>(v.begin(), v.end());
    }
    default:
      return t.to_vector<std::complex<double>>();
  }
}

Tensor from_scalars(const std::vector<Scalar>& v, Dims shape, DType dtype) {
  if (is_complex(dtype)) return cast(from_vector<std::complex<double>>(v, std::move(shape)), dtype);
  std::vector<double> re(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) re[i] = v[i].real();
  return cast(from_vector<double>(re, std::move(shape)), dtype);
}

namespace {
// Row-major tensor of a column-major matrix.
Tensor to_tensor(const SmallMat& m, bool real) {
  std::vector<Scalar> row(m.a.size());
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) row[i * m.cols + j] = m(i, j);
  return from_scalars(row, {m.rows, m.cols}, real ? DType::f64 : DType::c128);
}
SmallMat from_tensor(const Tensor& t, bool conj_transpose = false) {
  const std::vector<Scalar> v = to_scalars(t);
  const std::int64_t r = t.size(0), c = t.size(1);
  SmallMat m(conj_transpose ? c : r, conj_transpose ? r : c);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j)
      if (conj_transpose)
        m(j, i) = std::conj(v[i * c + j]);
      else
        m(i, j) = v[i * c + j];
  return m;
}
}  // namespace

SmallEigh small_eigh(const SmallMat& H, bool real) {
  NoGradGuard no_grad;
  SmallMat h(H.rows, H.cols);
  for (std::int64_t i = 0; i < H.rows; ++i)
    for (std::int64_t j = 0; j < H.cols; ++j) h(i, j) = 0.5 * (H(i, j) + std::conj(H(j, i)));
  EighResult r = eigh(to_tensor(h, real));
  SmallEigh out;
  for (Scalar w : to_scalars(r.eigenvalues)) out.w.push_back(w.real());
  out.V = from_tensor(r.eigenvectors);
  return out;
}

SmallSvd small_svd(const SmallMat& B, bool real) {
  NoGradGuard no_grad;
  SvdResult r = svd(to_tensor(B, real));
  SmallSvd out;
  out.U = from_tensor(r.U);
  for (Scalar s : to_scalars(r.S)) out.s.push_back(s.real());
  out.V = from_tensor(r.Vh, /*conj_transpose=*/true);
  return out;
}

namespace {
SmallMat matmul_small(const SmallMat& a, const SmallMat& b) {
  SmallMat c(a.rows, b.cols);
  for (std::int64_t j = 0; j < b.cols; ++j)
    for (std::int64_t l = 0; l < a.cols; ++l) {
      const Scalar blj = b(l, j);
      if (blj == Scalar(0)) continue;
      for (std::int64_t i = 0; i < a.rows; ++i) c(i, j) += a(i, l) * blj;
    }
  return c;
}
}  // namespace

std::vector<Scalar> small_expm_e0(const SmallMat& H, Scalar t) {
  const std::int64_t m = H.rows;
  SmallMat A(m, m);
  double norm1 = 0;
  for (std::int64_t j = 0; j < m; ++j) {
    double colsum = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      A(i, j) = t * H(i, j);
      colsum += std::abs(A(i, j));
    }
    norm1 = std::max(norm1, colsum);
  }
  // Scale to norm <= 1/2, where 24 Taylor terms are exact to rounding (2^-24 / 24! << 1e-16).
  const int s = norm1 > 0.5 ? static_cast<int>(std::ceil(std::log2(norm1 / 0.5))) : 0;
  const double f = std::ldexp(1.0, -s);
  for (Scalar& x : A.a) x *= f;
  SmallMat E(m, m), term(m, m);
  for (std::int64_t i = 0; i < m; ++i) E(i, i) = term(i, i) = 1.0;
  for (int k = 1; k <= 24; ++k) {
    term = matmul_small(term, A);
    for (Scalar& x : term.a) x /= static_cast<double>(k);
    for (std::size_t i = 0; i < E.a.size(); ++i) E.a[i] += term.a[i];
  }
  for (int i = 0; i < s; ++i) E = matmul_small(E, E);
  return E.col(0);
}

}  // namespace tenferro::detail::krylov
