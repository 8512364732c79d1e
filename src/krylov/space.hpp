// Note [Krylov vectors]: the solvers (src/krylov/*.cpp) see their vectors only through the
// overload set below: inner products, linear combinations, norms. A vector is a dense Tensor of any
// shape, or a pair of them (the coupled left/right systems of the svds derivative); a block-sparse
// tensor joins by adding its overloads. Every function runs detached ops: callers hold a
// NoGradGuard and pass plain tensors (Note [Krylov autodiff] in src/krylov/reattach.hpp).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail::krylov {

/// The value of a one-element tensor of any floating dtype.
Scalar scalar_value(const Tensor& t);
/// %.3g of v (error messages).
std::string format_g(double v);
/// "[a, b, ...]", each %.3g (residuals in error messages).
std::string format_list(const std::vector<double>& v);
/// `op`'s tolerance: `tol` itself, or the dtype's default when `tol` < 0 (1e-12 for f64, c128;
/// 1e-5 for f32, c64). NaN or infinite is InvalidArgument naming `op` and the option (a NaN
/// failed `tol >= 0` and silently became the default).
double default_tol(const char* op, DType dtype, double tol);
/// `op`'s degeneracy broadening for the real dtype `rdt`: `eps` itself, or kDegeneracyEpsSingle
/// (f32) / kDegeneracyEpsDouble when `eps` < 0. NaN or infinite is InvalidArgument, as `tol`.
double resolve_degeneracy_eps(const char* op, DType rdt, double eps);
/// "f32"/"c128"... checked: float or complex dtype (DTypeMismatch naming `op` otherwise).
void require_floating(const char* op, const Tensor& x, const char* what);

// ---- Dense tensors ----
/// <a, b> = sum conj(a) b.
Scalar vinner(const Tensor& a, const Tensor& b);
double vnorm(const Tensor& a);
/// y + alpha x (alpha's imaginary part is ignored for real tensors).
Tensor vaxpy(Scalar alpha, const Tensor& x, const Tensor& y);
Tensor vscale(const Tensor& x, Scalar alpha);
Tensor vzeros_like(const Tensor& x);
/// A random vector like x (same seed, same vector).
Tensor random_like(const Tensor& x, std::uint64_t seed);

// ---- Pairs (svds' coupled systems) ----
struct Pair {
  Tensor a, b;
};
inline Scalar vinner(const Pair& x, const Pair& y) { return vinner(x.a, y.a) + vinner(x.b, y.b); }
inline double vnorm(const Pair& x) {
  const double p = vnorm(x.a), q = vnorm(x.b);
  return std::sqrt(p * p + q * q);
}
inline Pair vaxpy(Scalar alpha, const Pair& x, const Pair& y) {
  return {vaxpy(alpha, x.a, y.a), vaxpy(alpha, x.b, y.b)};
}
inline Pair vscale(const Pair& x, Scalar alpha) { return {vscale(x.a, alpha), vscale(x.b, alpha)}; }
inline Pair vzeros_like(const Pair& x) { return {vzeros_like(x.a), vzeros_like(x.b)}; }

// ---- Generic helpers over any vector type ----
/// sum_j c[j] v[j] (c.size() == v.size() > 0).
template <class V>
V combine(std::span<const V> v, std::span<const Scalar> c) {
  V out = vscale(v[0], c[0]);
  for (std::size_t j = 1; j < v.size(); ++j) out = vaxpy(c[j], v[j], out);
  return out;
}

/// Daniel-Gragg-Kaufman-Stewart: `pass(w)` (one classical Gram-Schmidt projection) is repeated
/// once when w lost more than half its norm ("twice is enough"). Returns the remaining norm.
template <class V, class Pass>
double dgks(V& w, Pass&& pass) {
  double before = vnorm(w);
  for (int round = 0; round < 2; ++round) {
    pass(w);
    const double after = vnorm(w);
    if (after > 0.5 * before) return after;
    before = after;
  }
  return before;
}

/// Projects w off span(locked) + span(basis) (together orthonormal) by dgks; the coefficients
/// <basis_j, w> are added to `coef` (basis.size() entries), those of `locked` dropped. Both sets
/// go through every pass: projecting off `locked` only once would let the rounding left along it
/// grow by 1 / |w| when w shrinks (a converging Krylov step). Returns the remaining norm.
template <class V>
double orthogonalize(V& w, std::span<const V> locked, std::span<const V> basis,
                     std::span<Scalar> coef) {
  return dgks(w, [&](V& x) {
    for (const V& l : locked) x = vaxpy(-vinner(l, x), l, x);
    for (std::size_t j = 0; j < basis.size(); ++j) {
      const Scalar c = vinner(basis[j], x);
      coef[j] += c;
      x = vaxpy(-c, basis[j], x);
    }
  });
}
template <class V>
double orthogonalize(V& w, std::span<const V> basis, std::span<Scalar> coef) {
  return orthogonalize<V>(w, {}, basis, coef);
}

/// Note [Row basis]: Lanczos keeps its orthonormal basis as the rows of one [capacity, n] tensor,
/// so projecting a vector off all of it is two matrix-vector products (c = B^H w, w -= B^T c)
/// that read the basis once each, instead of one inner product and one axpy per basis vector:
/// on 40000-element vectors a 12-step solve went from 14 ms to a few. The vectors handed out are
/// views of the rows (shaped like the start vector); rows are rewritten only at a restart, after
/// the new vectors were computed.
class RowBasis {
 public:
  RowBasis(const Tensor& like, std::int64_t capacity);
  std::int64_t size() const noexcept { return size_; }
  /// The first size() vectors (views of the rows).
  std::span<const Tensor> vectors() const {
    return {rows_.data(), static_cast<std::size_t>(size_)};
  }
  const Tensor& operator[](std::int64_t j) const { return rows_[static_cast<std::size_t>(j)]; }
  /// Appends scale * v (v shaped like the start vector).
  void push(const Tensor& v, Scalar scale);
  /// Replaces the rows by `vs` (fresh tensors, not views of this basis).
  void assign(const std::vector<Tensor>& vs);
  /// orthogonalize() against `locked` and the rows, the rows' coefficients added to `coef`.
  double orthogonalize(Tensor& w, std::span<const Tensor> locked, std::span<Scalar> coef) const;
  /// sum_j c[j] row_j, c.size() <= size() (a fresh tensor).
  Tensor combine(std::span<const Scalar> c) const;

 private:
  Tensor matrix_;  // [capacity, n]
  Dims shape_;
  std::vector<Tensor> rows_;
  std::int64_t size_ = 0;
};

/// Calls a map and checks its result against x (shape and dtype), counting applications.
struct CountedMap {
  const char* op;
  const ScalarFn* f;
  const char* what = "f";
  mutable std::int64_t calls = 0;
  Tensor operator()(const Tensor& x) const;
};

/// The plain value of t (no autodiff state), throwing Unsupported for a symbolic (traced) tensor.
Tensor plain_value(const char* op, const Tensor& t, const char* what);

}  // namespace tenferro::detail::krylov
