// eig / eigvals, lu_factor (and lu), lu_solve, matrix_exp, pinv, qr_pivoted: shape rules, kernels,
// derivative rules and the public ops (docs/linalg.md).
//
// Note [Eig gauge]: each eigenvector of a general matrix is fixed only up to a complex factor.
// The kernel normalises every column to unit norm (LAPACK's geev), which leaves a phase. The JVP
// (PyTorch's linalg_eig_jvp) is dV = V X - V Re diag(V^H V X) with X = E^-1 o dP off the diagonal
// and 0 on it, dP = V^-1 dA V, E_ij = l_j - l_i: the first term moves no eigenvector along itself
// (diag(V^-1 dV) = 0 before the normalisation term), the second keeps the norm, Re(v_j^H dv_j) = 0.
// The VJP is its exact adjoint (PyTorch's linalg_eig_backward, normalisation term included). For a
// loss invariant under v_j -> v_j e^{i phi} (|v|^2, V diag(c) V^-1, the eigenvalues) it is the
// exact gradient; for a phase-dependent loss it is the gradient of the gauge-fixed function above
// (no data-dependent check as PyTorch's: it could not run inside trace()). Repeated eigenvalues
// divide by zero in E (Inf/NaN in the eigenvector derivative, as PyTorch); eigvals' rule has no E.
#include <cmath>
#include <limits>
#include <string>

#include "cpu/kernels/linalg.hpp"
#include "primitives/linalg_prims.hpp"
#include "primitives/linalg_rules.hpp"

namespace tenferro::detail {

using namespace linalg_rules;
using I = std::int64_t;

namespace {

Dims batch_of(const Tensor& t) { return Dims(t.shape().begin(), t.shape().end() - 2); }
Dims with(Dims d, std::initializer_list<I> tail) {
  for (I v : tail) d.push_back(v);
  return d;
}
I rows(const Tensor& t) { return t.shape()[t.rank() - 2]; }
I cols(const Tensor& t) { return t.shape()[t.rank() - 1]; }
Tensor add_opt(const Tensor& a, const Tensor& b) { return a.defined() ? a + b : b; }

// True off the diagonal of an n x n matrix (bool, broadcasts over the batch).
Tensor off_diagonal(I n) { return logical_not(identity_like(n, DType::boolean, {})); }

// x / y off the diagonal, 0 on it (y's diagonal is never read, so it may be 0).
Tensor div_off_diagonal(const Tensor& x, const Tensor& y) {
  const I n = x.shape().back();
  const Tensor off = off_diagonal(n);
  const Tensor one = scalar_tensor(1.0, y.dtype()), zero = scalar_tensor(0.0, x.dtype());
  return where(off, x / where(off, y, one), zero);
}

}  // namespace

// ---- eig / eigvals ----

void EigPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices(v_ ? "eig" : "eigvals", in, true);
  const Tensor& a = in[0];
  const DType c = complex_dtype(a.dtype());
  out.push_back({c, with(batch_of(a), {rows(a)})});
  if (v_) out.push_back({c, a.shape()});
}

void EigPrim::execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const {
  linalg::eig(ctx, in[0], out[0], v_ ? &out[1] : nullptr);
}

// Note [Eig gauge].
void EigPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                  std::span<const Tensor> t, std::span<Tensor> out_t) const {
  const Tensor& a = primals[0];
  if (!t[0].defined() || a.numel() == 0) return;
  const DType c = complex_dtype(a.dtype());
  const Tensor V = v_ ? outputs[1] : eig(a).eigenvectors;
  const Tensor dP = solve(V, matmul(cast(t[0], c), V));  // V^-1 dA V
  out_t[0] = diagonal(dP);
  if (!v_) return;
  const Tensor& L = outputs[0];
  const Tensor X = div_off_diagonal(dP, unsqueeze(L, -2) - unsqueeze(L, -1));
  const Tensor dV = matmul(V, X);
  out_t[1] = dV - V * unsqueeze(re(diagonal(matmul(mH(V), dV))), -2);
}

void EigPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                  std::span<const Tensor> ct, std::span<const bool>,
                  std::span<Tensor> in_ct) const {
  const Tensor& a = primals[0];
  const Tensor gL = ct[0];
  const Tensor gV = v_ ? ct[1] : Tensor();
  if (!gL.defined() && !gV.defined()) return;
  if (a.numel() == 0) {
    in_ct[0] = zeros(a.shape(), a.dtype());
    return;
  }
  const Tensor V = v_ ? outputs[1] : eig(a).eigenvectors;
  Tensor gP;
  if (gL.defined()) gP = diag_embed(gL);
  if (gV.defined()) {
    const Tensor& L = outputs[0];
    const Tensor VhgV = matmul(mH(V), gV);
    const Tensor Y = VhgV - matmul(mH(V), V * unsqueeze(re(diagonal(VhgV)), -2));
    gP = add_opt(gP, div_off_diagonal(Y, conj(unsqueeze(L, -2) - unsqueeze(L, -1))));
  }
  const Tensor gA = solve(mH(V), matmul(gP, mH(V)));  // V^-H gP V^H
  in_ct[0] = is_complex(a.dtype()) ? gA : real_of(gA);
}

// ---- lu_factor ----

namespace {

// P^T as a matrix of `dtype` from the row permutation (P^T a = a[perm]).
Tensor perm_transpose(const Tensor& perm, DType dtype) {
  return one_hot(perm, perm.shape().back(), dtype);
}

}  // namespace

void LuFactorPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("lu_factor", in, false);
  const Tensor& a = in[0];
  const I m = rows(a), n = cols(a);
  out.push_back({a.dtype(), a.shape()});
  out.push_back({DType::i64, with(batch_of(a), {std::min(m, n)})});
  out.push_back({DType::i64, with(batch_of(a), {m})});
}

void LuFactorPrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                           std::span<Tensor> out) const {
  linalg::lu_factor(ctx, in[0], out[0], out[1], out[2]);
}

// a = P L U, L m x k unit lower, U k x n upper. With the square blocks L1 (k x k) and U1 and
// M = L1^-1 (P^T dA)_11 U1^-1: dL1 = L1 tril(M, -1), dU1 = triu(M) U1; the rectangular rest
// (PyTorch's linalg_lu_jvp): m < n: dU2 = L^-1 (P^T dA)_2 - tril(M, -1) U2; m > n: dL2 =
// (P^T dA)_2 U^-1 - L2 triu(M). The packed LU's tangent is dL (strictly lower) + dU.
void LuFactorPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                       std::span<const Tensor> t, std::span<Tensor> out_t) const {
  const Tensor& a = primals[0];
  if (!t[0].defined() || a.numel() == 0) return;
  const I m = rows(a), n = cols(a), k = std::min(m, n);
  const Tensor& LU = outputs[0];
  const Tensor PA = matmul(perm_transpose(outputs[2], a.dtype()), t[0]);
  const Tensor S = slice(slice(LU, -2, 0, k), -1, 0, k);  // L1 (unit lower) and U1 (upper)
  const Tensor PA1 = slice(slice(PA, -2, 0, k), -1, 0, k);
  const Tensor M = triangular_solve(S, triangular_solve(S, PA1, false, true, true), true, false);
  const Tensor Ml = tril(M, -1), Mu = triu(M);
  const Tensor d11 =
      matmul(tril(S, -1) + identity_like(k, a.dtype(), {}), Ml) + matmul(Mu, triu(S));
  if (m == n) {
    out_t[0] = d11;
  } else if (m < n) {
    const Tensor U2 = slice(LU, -1, m, n);
    const Tensor dU2 = triangular_solve(S, slice(PA, -1, m, n), false, true, true) - matmul(Ml, U2);
    out_t[0] = concatenate({d11, dU2}, -1);
  } else {
    const Tensor L2 = slice(LU, -2, n, m);
    const Tensor dL2 = triangular_solve(S, slice(PA, -2, n, m), true, false) - matmul(L2, Mu);
    out_t[0] = concatenate({d11, dL2}, -2);
  }
}

void LuFactorPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                       std::span<const Tensor> ct, std::span<const bool>,
                       std::span<Tensor> in_ct) const {
  const Tensor& a = primals[0];
  const Tensor& g = ct[0];
  if (!g.defined()) return;
  if (a.numel() == 0) {
    in_ct[0] = zeros(a.shape(), a.dtype());
    return;
  }
  const I m = rows(a), n = cols(a), k = std::min(m, n);
  const Tensor& LU = outputs[0];
  const Tensor S = slice(slice(LU, -2, 0, k), -1, 0, k);
  const Tensor L1 = tril(S, -1) + identity_like(k, a.dtype(), {}), U1 = triu(S);
  const Tensor g11 = slice(slice(g, -2, 0, k), -1, 0, k);
  Tensor lower = matmul(mH(L1), tril(g11, -1)), upper = matmul(triu(g11), mH(U1));
  Tensor rest;  // the cotangent of (P^T a)'s rectangular block
  if (m < n) {
    const Tensor U2 = slice(LU, -1, m, n), gU2 = slice(g, -1, m, n);
    lower = lower - matmul(gU2, mH(U2));
    rest = triangular_solve(mH(S), gU2, true, true, true);  // L^-H gU2
  } else if (m > n) {
    const Tensor L2 = slice(LU, -2, n, m), gL2 = slice(g, -2, n, m);
    upper = upper - matmul(mH(L2), gL2);
    rest = triangular_solve(mH(S), gL2, false, false);  // gL2 U^-H
  }
  const Tensor gM = tril(lower, -1) + triu(upper);
  // L1^-H gM U1^-H
  const Tensor g1 =
      triangular_solve(mH(S), triangular_solve(mH(S), gM, true, true, true), false, false);
  Tensor gPA = g1;
  if (m < n) gPA = concatenate({g1, rest}, -1);
  if (m > n) gPA = concatenate({g1, rest}, -2);
  in_ct[0] = matmul(transpose(perm_transpose(outputs[2], a.dtype())), gPA);
}

// ---- lu_solve ----

void LuSolvePrim::infer(std::span<const Tensor> in, SpecList& out) const {
  const Tensor& lu = in[0];
  const Tensor& piv = in[1];
  const Tensor& b = in[2];
  if (is_integral(lu.dtype()) || is_integral(b.dtype()) || lu.dtype() != b.dtype() ||
      piv.dtype() != DType::i64)
    throw Error(
        ErrorKind::DTypeMismatch,
        "lu_solve: expected LU and b of one floating dtype and i64 pivots, got " + describe(in));
  const Tensor mats[] = {lu, b};
  require_matrices("lu_solve", mats, true);
  const I n = rows(lu);
  if (piv.rank() != lu.rank() - 1 || piv.shape().back() != n || rows(b) != n ||
      batch_of(lu) != batch_of(b) ||
      !std::equal(piv.shape().begin(), piv.shape().end() - 1, lu.shape().begin()))
    throw Error(ErrorKind::ShapeMismatch,
                "lu_solve: expected LU [..., n, n], pivots [..., n], b [..., n, r] with one batch, "
                "got " +
                    describe(in));
  out.push_back({b.dtype(), b.shape()});
}

void LuSolvePrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                          std::span<Tensor> out) const {
  linalg::lu_solve(ctx, in[0], in[1], in[2], out[0], adjoint_);
}

// a = P L U with L = I + tril(LU, -1), U = triu(LU); neither rule needs P: x = a^-1 b gives
// dx = -U^-1 (L^-1 dL (U x) + dU x); x = a^-H b gives dx = -a^-H (U^H dL^H z + dU^H L^H z) with
// z = P^T x = L^-H U^-H b.
void LuSolvePrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                      std::span<const Tensor> t, std::span<Tensor> out_t) const {
  const Tensor& LU = primals[0];
  const Tensor& piv = primals[1];
  const Tensor& x = outputs[0];
  Tensor dx;
  if (t[2].defined()) dx = bind1(*this, {LU, piv, t[2]});
  if (t[0].defined()) {
    const Tensor dL = tril(t[0], -1), dU = triu(t[0]);
    Tensor term;
    if (!adjoint_) {
      const Tensor y = matmul(triu(LU), x);
      const Tensor inner = triangular_solve(LU, matmul(dL, y), false, true, true) + matmul(dU, x);
      term = -triangular_solve(LU, inner, true, true);
    } else {
      const I n = rows(LU);
      const Tensor L = tril(LU, -1) + identity_like(n, LU.dtype(), {});
      const Tensor z = triangular_solve(mH(LU), triangular_solve(mH(LU), primals[2], false, true),
                                        true, true, true);
      const Tensor rhs = matmul(mH(triu(LU)), matmul(mH(dL), z)) + matmul(mH(dU), matmul(mH(L), z));
      term = -bind1(*this, {LU, piv, rhs});
    }
    dx = add_opt(dx, term);
  }
  if (dx.defined()) out_t[0] = dx;
}

void LuSolvePrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                      std::span<const Tensor> ct, std::span<const bool> needs,
                      std::span<Tensor> in_ct) const {
  const Tensor& gx = ct[0];
  if (!gx.defined()) return;
  const Tensor& LU = primals[0];
  const Tensor& piv = primals[1];
  const Tensor& x = outputs[0];
  const I n = rows(LU);
  const Tensor gb = bind1(LuSolvePrim(!adjoint_), {LU, piv, gx});
  if (needs[2]) in_ct[2] = gb;
  if (!needs[0]) return;
  const Tensor L = tril(LU, -1) + identity_like(n, LU.dtype(), {}), U = triu(LU);
  if (!adjoint_) {
    // h = -L^-H U^-H gx: gLU = tril(h (U x)^H, -1) + triu(L^H h x^H).
    const Tensor h =
        -triangular_solve(mH(LU), triangular_solve(mH(LU), gx, false, true), true, true, true);
    in_ct[0] = tril(matmul(h, mH(matmul(U, x))), -1) + triu(matmul(matmul(mH(L), h), mH(x)));
  } else {
    // q = -a^-1 gx = -gb, z = L^-H U^-H b: gLU = tril(z (U q)^H, -1) + triu(L^H z q^H).
    const Tensor z = triangular_solve(mH(LU), triangular_solve(mH(LU), primals[2], false, true),
                                      true, true, true);
    const Tensor q = -gb;
    in_ct[0] = tril(matmul(z, mH(matmul(U, q))), -1) + triu(matmul(matmul(mH(L), z), mH(q)));
  }
}

// ---- matrix_exp ----

void MatrixExpPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("matrix_exp", in, true);
  out.push_back({in[0].dtype(), in[0].shape()});
}

void MatrixExpPrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                            std::span<Tensor> out) const {
  linalg::matrix_exp(ctx, in[0], out[0]);
}

namespace {
// The top-right block of exp([[x, y], [0, x]]) (Frechet derivative of exp at x in direction y),
// through the public op so that it differentiates again. The block is linear in y, so y is
// scaled to max |y| = 1 and the result scaled back: a huge y (a cotangent of 1e13, say) would
// otherwise set the scaling power of the whole block matrix, and the rounding-level fill-in of
// its zero block, raised to that power, overflows (seen as NaN in an hvp). The scale's own
// derivative cancels exactly: d[c L(y / c)] = L(dy).
Tensor frechet_block(const Tensor& x, const Tensor& y) {
  const I n = rows(x);
  const Tensor c = max(abs(y), {-2, -1}, true);
  const Tensor scale = cast(where(gt(c, 0.0), c, scalar_tensor(1.0, c.dtype())), y.dtype());
  const Tensor z = zeros(x.shape(), x.dtype());
  const Tensor big = concatenate({concatenate({x, y / scale}, -1), concatenate({z, x}, -1)}, -2);
  return slice(slice(matrix_exp(big), -2, 0, n), -1, n, 2 * n) * scale;
}
}  // namespace

void MatrixExpPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor>,
                        std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined() || primals[0].numel() == 0) return;
  out_t[0] = frechet_block(primals[0], t[0]);
}

void MatrixExpPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor>,
                        std::span<const Tensor> ct, std::span<const bool>,
                        std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  if (primals[0].numel() == 0) {
    in_ct[0] = zeros(primals[0].shape(), primals[0].dtype());
    return;
  }
  in_ct[0] = frechet_block(mH(primals[0]), ct[0]);
}

// ---- pinv ----

std::string PinvPrim::params() const { return "rcond=" + format_double(rcond_); }

void PinvPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("pinv", in, false);
  const Tensor& a = in[0];
  out.push_back({a.dtype(), with(batch_of(a), {cols(a), rows(a)})});
}

void PinvPrim::execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const {
  linalg::pinv(ctx, in[0], out[0], rcond_);
}

// The derivative of the pseudoinverse at constant rank (Golub & Pereyra 1973):
// dA+ = -A+ dA A+ + A+ A+^H dA^H (I - A A+) + (I - A+ A) dA^H A+^H A+, exact also at repeated
// singular values (no 1 / (s_i - s_j)).
void PinvPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                   std::span<const Tensor> t, std::span<Tensor> out_t) const {
  const Tensor& A = primals[0];
  if (!t[0].defined() || A.numel() == 0) return;
  const Tensor& X = outputs[0];  // A+, n x m
  const Tensor& dA = t[0];
  const Tensor dAh = mH(dA), Xh = mH(X);
  const Tensor t1 = -matmul(matmul(X, dA), X);
  const Tensor w = matmul(dAh, Xh);                       // dA^H A+^H (n x n)
  const Tensor left = matmul(matmul(X, Xh), dAh);         // A+ A+^H dA^H (n x m)
  const Tensor t2 = left - matmul(matmul(left, A), X);    // (.. )(I - A A+)
  const Tensor right = matmul(w, X);                      // dA^H A+^H A+ (n x m)
  const Tensor t3 = right - matmul(X, matmul(A, right));  // (I - A+ A)(..)
  out_t[0] = t1 + t2 + t3;
}

// The adjoint: gA = -A+^H G A+^H + (I - A A+) G^H A+ A+^H + A+^H A+ G^H (I - A+ A).
void PinvPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                   std::span<const Tensor> ct, std::span<const bool>,
                   std::span<Tensor> in_ct) const {
  const Tensor& A = primals[0];
  const Tensor& G = ct[0];
  if (!G.defined()) return;
  if (A.numel() == 0) {
    in_ct[0] = zeros(A.shape(), A.dtype());
    return;
  }
  const Tensor& X = outputs[0];
  const Tensor Xh = mH(X), Gh = mH(G);
  const Tensor t1 = -matmul(matmul(Xh, G), Xh);
  const Tensor u = matmul(Gh, matmul(X, Xh));  // G^H A+ A+^H (m x n)
  const Tensor t2 = u - matmul(A, matmul(X, u));
  const Tensor v = matmul(matmul(Xh, X), Gh);  // A+^H A+ G^H (m x n)
  const Tensor t3 = v - matmul(matmul(v, X), A);
  in_ct[0] = t1 + t2 + t3;
}

// ---- qr_pivoted ----

void QrPivotedPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("qr_pivoted", in, false);
  const Tensor& a = in[0];
  const I m = rows(a), n = cols(a), k = std::min(m, n);
  const Dims b = batch_of(a);
  out.push_back({a.dtype(), with(b, {m, k})});
  out.push_back({a.dtype(), with(b, {k, n})});
  out.push_back({DType::i64, with(b, {n})});
}

void QrPivotedPrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                            std::span<Tensor> out) const {
  linalg::qr_pivoted(ctx, in[0], out[0], out[1], out[2]);
}

// The QR rules of a[:, P] with P held fixed: a[:, P] = a Pm^T with Pm = one_hot(P).
void QrPivotedPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                        std::span<const Tensor> t, std::span<Tensor> out_t) const {
  const Tensor& a = primals[0];
  if (!t[0].defined() || a.numel() == 0) return;
  const Tensor Pm = one_hot(outputs[2], cols(a), a.dtype());
  qr_rule_jvp(outputs[0], outputs[1], matmul(t[0], transpose(Pm)), out_t[0], out_t[1]);
}

void QrPivotedPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                        std::span<const Tensor> ct, std::span<const bool>,
                        std::span<Tensor> in_ct) const {
  const Tensor& a = primals[0];
  if (!ct[0].defined() && !ct[1].defined()) return;
  if (a.numel() == 0) {
    in_ct[0] = zeros(a.shape(), a.dtype());
    return;
  }
  const Tensor Pm = one_hot(outputs[2], cols(a), a.dtype());
  in_ct[0] = matmul(qr_rule_vjp(outputs[0], outputs[1], ct[0], ct[1]), Pm);
}

}  // namespace tenferro::detail

// ---- public ops ----

namespace tenferro {
namespace {

using detail::bind;
using detail::bind1;
using I = std::int64_t;

void check_input(const char* op, const Tensor& a, bool square) {
  if (!a.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": an input tensor is undefined");
  if (is_integral(a.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": got an input of dtype " + std::string(dtype_name(a.dtype())) +
                    "; expected floating dtypes (f32, f64, c64, c128); cast() it first");
  detail::require_matrices(op, std::span<const Tensor>(&a, 1), square);
}

Dims batch_dims(const Tensor& t, I tail) { return Dims(t.shape().begin(), t.shape().end() - tail); }

}  // namespace

EigResult eig(const Tensor& a) {
  check_input("eig", a, true);
  auto r = bind(detail::EigPrim(true), {&a, 1});
  return {std::move(r[0]), std::move(r[1])};
}

Tensor eigvals(const Tensor& a) {
  check_input("eigvals", a, true);  // Note [Values-only primal]
  return bind1(detail::EigPrim(false), {a});
}

LuFactorResult lu_factor(const Tensor& a) {
  check_input("lu_factor", a, false);
  auto r = bind(detail::LuFactorPrim(), {&a, 1});
  return {std::move(r[0]), std::move(r[1])};
}

LuResult lu(const Tensor& a) {
  check_input("lu", a, false);
  auto r = bind(detail::LuFactorPrim(), {&a, 1});
  const I m = a.shape()[a.rank() - 2], n = a.shape()[a.rank() - 1], k = std::min(m, n);
  const Tensor& LU = r[0];
  const Tensor eye = slice(detail::linalg_rules::identity_like(m, a.dtype(), {}), -1, 0, k);
  Tensor P = transpose(one_hot(r[2], m, a.dtype()));
  Tensor L = tril(slice(LU, -1, 0, k), -1) + eye;
  Tensor U = triu(slice(LU, -2, 0, k));
  return {std::move(P), std::move(L), std::move(U)};
}

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& b, bool adjoint) {
  check_input("lu_solve", LU, true);
  if (!pivots.defined() || !b.defined())
    throw Error(ErrorKind::InvalidArgument, "lu_solve: an input tensor is undefined");
  if (is_integral(b.dtype()))
    throw Error(ErrorKind::DTypeMismatch, "lu_solve: b has dtype " +
                                              std::string(dtype_name(b.dtype())) +
                                              "; expected a floating dtype");
  if (pivots.dtype() != DType::i64)
    throw Error(ErrorKind::DTypeMismatch, "lu_solve: pivots must be i64 (lu_factor's), got " +
                                              std::string(dtype_name(pivots.dtype())));
  const I n = LU.shape()[LU.rank() - 1];
  if (pivots.rank() < 1 || pivots.shape().back() != n)
    throw Error(ErrorKind::ShapeMismatch, "lu_solve: pivots must be [..., n] for LU " +
                                              dims_to_string(LU.shape()) + ", got " +
                                              dims_to_string(pivots.shape()));
  if (b.rank() < 1)
    throw Error(ErrorKind::ShapeMismatch,
                "lu_solve: b must be [..., n] or [..., n, r], got " + dims_to_string(b.shape()));
  // b is a vector when it has rank 1 or LU's shape without the last dim (as solve()).
  const bool vec =
      b.rank() == 1 || (b.rank() == LU.rank() - 1 &&
                        std::equal(b.shape().begin(), b.shape().end(), LU.shape().begin()));
  Tensor B = vec ? unsqueeze(b, -1) : b;
  if (B.rank() < 2 || B.shape()[B.rank() - 2] != n)
    throw Error(ErrorKind::ShapeMismatch, "lu_solve: b must have n rows (LU " +
                                              dims_to_string(LU.shape()) + "), got b " +
                                              dims_to_string(b.shape()));
  const DType dt = promote(LU.dtype(), B.dtype());
  Tensor F = cast(LU, dt);
  B = cast(B, dt);
  // Broadcast the batch dims of LU, pivots and b.
  const Dims lb = batch_dims(F, 2), pb = batch_dims(pivots, 1), bb = batch_dims(B, 2);
  const std::size_t r = std::max({lb.size(), pb.size(), bb.size()});
  Dims batch(r, 1);
  for (const Dims* d : {&lb, &pb, &bb})
    for (std::size_t i = 0; i < d->size(); ++i) {
      I& o = batch[r - d->size() + i];
      const I v = (*d)[i];
      if (v != o && v != 1 && o != 1) {
        const Tensor in[] = {LU, pivots, b};
        throw Error(ErrorKind::ShapeMismatch,
                    "lu_solve: batch dimensions do not broadcast, got " + detail::describe(in));
      }
      if (o == 1) o = v;
    }
  auto to = [&](const Tensor& t, std::initializer_list<I> tail) {
    Dims s = batch;
    for (I v : tail) s.push_back(v);
    return s == t.shape() ? t : broadcast_to(t, s);
  };
  const I cols_b = B.shape().back();
  const Tensor in[] = {to(F, {n, n}), to(pivots, {n}), to(B, {n, cols_b})};
  const Tensor x = bind1(detail::LuSolvePrim(adjoint), in);
  return vec ? squeeze(x, -1) : x;
}

Tensor matrix_exp(const Tensor& a) {
  check_input("matrix_exp", a, true);
  return bind1(detail::MatrixExpPrim(), a);
}

Tensor pinv(const Tensor& a, double rcond) {
  check_input("pinv", a, false);
  if (std::isnan(rcond) || std::isinf(rcond))
    throw Error(ErrorKind::InvalidArgument,
                "pinv: rcond must be finite, got " + detail::format_double(rcond));
  if (rcond < 0) {
    const I m = a.shape()[a.rank() - 2], n = a.shape()[a.rank() - 1];
    const double eps = is_double_precision(a.dtype())
                           ? std::numeric_limits<double>::epsilon()
                           : static_cast<double>(std::numeric_limits<float>::epsilon());
    rcond = static_cast<double>(std::max(m, n)) * eps;
  }
  return bind1(detail::PinvPrim(rcond), a);
}

QrPivotedResult qr_pivoted(const Tensor& a) {
  check_input("qr_pivoted", a, false);
  auto r = bind(detail::QrPivotedPrim(), {&a, 1});
  return {std::move(r[0]), std::move(r[1]), std::move(r[2])};
}

}  // namespace tenferro
