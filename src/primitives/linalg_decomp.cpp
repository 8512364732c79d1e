// svd / svdvals, eigh / eigvalsh, qr: shape rules, kernels and derivative rules.
//
// Note [Degenerate spectra]: the rules of svd and eigh divide by gaps x_j - x_i between
// eigenvalues (squared singular values), and the svd rule by s_i. Both are broadened,
// 1/d -> d / (d^2 + eps * scale^2) and 1/s -> s / (s^2 + eps * s_max^2), with eps the op's
// degeneracy_eps (relative, default kDefaultDegeneracyEps) so that degenerate or zero values give
// finite derivatives instead of Inf/NaN (the standard practice in differentiable tensor networks);
// gauge-invariant losses are unaffected up to O(eps) for gaps well above sqrt(eps) * scale.
//
// Note [SVD gauge]: for complex input each pair (u_i, v_i) is fixed only up to a common phase
// e^{i phi}. The JVP splits the phase rotation fixed by dP = U^H dA V symmetrically between U and
// V (diag(U^H dU) = -diag(V^H dV) = i Im(diag dP) / (2 s)); the VJP is its exact adjoint, so for a
// loss that depends on the phases it returns the gradient of the gauge-averaged (gauge-invariant)
// part: the component of i(Im diag(U^H gU) + Im diag(V^H gV)) is dropped (docs/linalg.md).
#include <cinttypes>
#include <cstdio>

#include "cpu/kernels/linalg.hpp"
#include "primitives/linalg_prims.hpp"
#include "primitives/linalg_rules.hpp"

namespace tenferro::detail {

using namespace linalg_rules;
using I = std::int64_t;

void require_matrices(const char* op, std::span<const Tensor> in, bool square) {
  for (const Tensor& t : in) {
    if (t.rank() < 2)
      throw Error(
          ErrorKind::ShapeMismatch,
          std::string(op) + ": expected a batch of matrices (rank >= 2), got " + describe(in));
  }
  const Tensor& a = in[0];
  if (square && a.shape()[a.rank() - 1] != a.shape()[a.rank() - 2])
    throw Error(ErrorKind::ShapeMismatch,
                std::string(op) + ": expected square matrices [..., n, n], got " + describe(in));
}

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

namespace {

Dims batch_of(const Tensor& t) { return Dims(t.shape().begin(), t.shape().end() - 2); }
Dims with(Dims d, std::initializer_list<I> tail) {
  for (I v : tail) d.push_back(v);
  return d;
}
I rows(const Tensor& t) { return t.shape()[t.rank() - 2]; }
I cols(const Tensor& t) { return t.shape()[t.rank() - 1]; }
Tensor first_cols(const Tensor& x, I k) { return slice(x, -1, 0, k); }
Tensor first_rows(const Tensor& x, I k) { return slice(x, -2, 0, k); }
Tensor add_opt(const Tensor& a, const Tensor& b) { return a.defined() ? a + b : b; }

}  // namespace

// ---- svd ----

std::string SvdPrim::params() const {
  return std::string(full_ ? "full_matrices=true" : "full_matrices=false") +
         " eps=" + format_double(eps_);
}

void SvdPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices(uv_ ? "svd" : "svdvals", in, false);
  const Tensor& a = in[0];
  const I m = rows(a), n = cols(a), k = std::min(m, n);
  const Dims b = batch_of(a);
  if (uv_) out.push_back({a.dtype(), with(b, {m, full_ ? m : k})});
  out.push_back({real_dtype(a.dtype()), with(b, {k})});
  if (uv_) out.push_back({a.dtype(), with(b, {full_ ? n : k, n})});
}

void SvdPrim::execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const {
  if (uv_)
    linalg::svd(ctx, in[0], &out[0], out[1], &out[2], full_);
  else
    linalg::svd(ctx, in[0], nullptr, out[0], nullptr, false);
}

namespace {

struct SvdParts {
  Tensor Uk, Vhk, V, Up, Vp;  // thin factors, and the complements of full_matrices (else undefined)
  I m, n, k;
};

SvdParts svd_parts(const Tensor& a, const Tensor& U, const Tensor& Vh, bool full) {
  SvdParts p;
  p.m = rows(a);
  p.n = cols(a);
  p.k = std::min(p.m, p.n);
  p.Uk = full ? first_cols(U, p.k) : U;
  p.Vhk = full ? first_rows(Vh, p.k) : Vh;
  p.V = mH(p.Vhk);
  if (full && p.m > p.k) p.Up = slice(U, -1, p.k, p.m);
  if (full && p.n > p.k) p.Vp = mH(slice(Vh, -2, p.k, p.n));
  return p;
}

}  // namespace

void SvdPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                  std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined()) return;
  const Tensor& a = primals[0];
  const Tensor& da = t[0];
  if (a.numel() == 0) return;
  Tensor U, S, Vh;
  if (uv_) {
    U = outputs[0], S = outputs[1], Vh = outputs[2];
  } else {
    SvdResult r = svd(a, SvdOptions{false, eps_});
    U = r.U, S = r.S, Vh = r.Vh;
  }
  const SvdParts p = svd_parts(a, U, Vh, uv_ && full_);
  if (p.k == 0) return;
  const Tensor dP = matmul(matmul(mH(p.Uk), da), p.V);
  const Tensor dS = real_of(diagonal(dP));
  if (!uv_) {
    out_t[0] = dS;
    return;
  }
  out_t[1] = dS;
  // Note [SVD rule]: J = U^H dU and K = V^H dV from the Hermitian (H) and skew (W) parts of dP.
  const Tensor dPH = mH(dP);
  const Tensor A1 = inverse_gaps(S, eps_) * ((dP + dPH) * 0.5);
  const Tensor A2 = inverse_sums(S, eps_) * ((dP - dPH) * 0.5);
  const Tensor J = A1 + A2, K = A1 - A2;
  const Tensor inv_s = broadened_inverse(S, eps_);
  const Tensor inv_r = unsqueeze(inv_s, -2);
  Tensor dU = matmul(p.Uk, J);
  if (p.m > p.k) dU = dU + (matmul(da, p.V) - matmul(p.Uk, dP)) * inv_r;
  Tensor dV = matmul(p.V, K);
  if (p.n > p.k) dV = dV + (matmul(mH(da), p.Uk) - matmul(p.V, dPH)) * inv_r;
  // full_matrices: the complement rotates only as much as keeping U unitary requires.
  if (p.Up.defined()) dU = concatenate({dU, -matmul(p.Uk, matmul(mH(dU), p.Up))}, -1);
  if (p.Vp.defined()) dV = concatenate({dV, -matmul(p.V, matmul(mH(dV), p.Vp))}, -1);
  out_t[0] = dU;
  out_t[2] = mH(dV);
}

void SvdPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                  std::span<const Tensor> ct, std::span<const bool>,
                  std::span<Tensor> in_ct) const {
  const Tensor& a = primals[0];
  Tensor gU, gS, gVh, U, S, Vh;
  if (uv_) {
    gU = ct[0], gS = ct[1], gVh = ct[2];
    U = outputs[0], S = outputs[1], Vh = outputs[2];
  } else {
    gS = ct[0];
    if (!gS.defined()) return;
    SvdResult r = svd(a, SvdOptions{false, eps_});
    U = r.U, S = r.S, Vh = r.Vh;
  }
  if (!gU.defined() && !gS.defined() && !gVh.defined()) return;
  const SvdParts p = svd_parts(a, U, Vh, uv_ && full_);
  if (p.k == 0 || a.numel() == 0) {
    in_ct[0] = zeros(a.shape(), a.dtype());
    return;
  }
  Tensor gV = gVh.defined() ? mH(gVh) : Tensor();
  if (gU.defined() && p.Up.defined())  // adjoint of the complement's rotation (jvp)
    gU = first_cols(gU, p.k) - matmul(p.Up, matmul(mH(slice(gU, -1, p.k, p.m)), p.Uk));
  else if (gU.defined() && uv_ && full_)
    gU = first_cols(gU, p.k);
  if (gV.defined() && p.Vp.defined())
    gV = first_cols(gV, p.k) - matmul(p.Vp, matmul(mH(slice(gV, -1, p.k, p.n)), p.V));
  else if (gV.defined() && uv_ && full_)
    gV = first_cols(gV, p.k);

  const Tensor inv_s = broadened_inverse(S, eps_);
  const Tensor inv_r = unsqueeze(inv_s, -2);
  Tensor gP;
  if (gS.defined()) gP = diag_embed(cast(gS, a.dtype()));
  Tensor x, y;
  if (gU.defined()) x = matmul(mH(p.Uk), gU);
  if (gV.defined()) y = matmul(mH(p.V), gV);
  if (x.defined() || y.defined()) {  // adjoint of Note [SVD rule]
    const Tensor sum_xy = x.defined() && y.defined() ? x + y : (x.defined() ? x : y);
    const Tensor diff_xy = x.defined() && y.defined() ? x - y : (x.defined() ? x : -y);
    const Tensor Ps = inverse_gaps(S, eps_) * sum_xy;
    const Tensor Pk = inverse_sums(S, eps_) * diff_xy;
    gP = add_opt(gP, (Ps + mH(Ps)) * 0.5 + (Pk - mH(Pk)) * 0.5);
  }
  Tensor gA = matmul(matmul(p.Uk, gP), p.Vhk);
  if (gU.defined() && p.m > p.k) gA = gA + matmul((gU - matmul(p.Uk, x)) * inv_r, p.Vhk);
  if (gV.defined() && p.n > p.k) gA = gA + matmul(p.Uk * inv_r, mH(gV - matmul(p.V, y)));
  in_ct[0] = gA;
}

// ---- eigh ----

std::string EighPrim::params() const {
  return std::string(lower_ ? "uplo=lower" : "uplo=upper") + " eps=" + format_double(eps_);
}

void EighPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices(v_ ? "eigh" : "eigvalsh", in, true);
  const Tensor& a = in[0];
  const I n = rows(a);
  out.push_back({real_dtype(a.dtype()), with(batch_of(a), {n})});
  if (v_) out.push_back({a.dtype(), a.shape()});
}

void EighPrim::execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const {
  linalg::eigh(ctx, in[0], lower_, out[0], v_ ? &out[1] : nullptr);
}

void EighPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                   std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined() || primals[0].numel() == 0) return;
  const Tensor V =
      v_ ? outputs[1]
         : eigh(primals[0], EighOptions{lower_ ? Uplo::lower : Uplo::upper, eps_}).eigenvectors;
  const Tensor dP = matmul(matmul(mH(V), hermitian_from_triangle(t[0], lower_)), V);
  out_t[0] = real_of(diagonal(dP));
  if (v_) out_t[1] = matmul(V, inverse_gaps(outputs[0], eps_) * dP);
}

void EighPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                   std::span<const Tensor> ct, std::span<const bool>,
                   std::span<Tensor> in_ct) const {
  const Tensor& a = primals[0];
  const Tensor gw = ct[0];
  const Tensor gV = v_ ? ct[1] : Tensor();
  if (!gw.defined() && !gV.defined()) return;
  if (a.numel() == 0) {
    in_ct[0] = zeros(a.shape(), a.dtype());
    return;
  }
  const Tensor V =
      v_ ? outputs[1] : eigh(a, EighOptions{lower_ ? Uplo::lower : Uplo::upper, eps_}).eigenvectors;
  Tensor gP;
  if (gw.defined()) gP = diag_embed(cast(gw, a.dtype()));
  if (gV.defined()) gP = add_opt(gP, inverse_gaps(outputs[0], eps_) * matmul(mH(V), gV));
  in_ct[0] = triangle_cotangent(matmul(matmul(V, gP), mH(V)), lower_);
}

// ---- qr ----

void QrPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("qr", in, false);
  const Tensor& a = in[0];
  const I m = rows(a), n = cols(a), q = complete_ ? m : std::min(m, n);
  const Dims b = batch_of(a);
  out.push_back({a.dtype(), with(b, {m, q})});
  out.push_back({a.dtype(), with(b, {q, n})});
}

void QrPrim::execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const {
  linalg::qr(ctx, in[0], out[0], out[1], complete_);
}

namespace {
void require_qr_rule(const Tensor& a, bool complete) {
  const I m = rows(a), n = cols(a);
  if (complete && m > n)
    throw Error(ErrorKind::Unsupported,
                "qr: derivatives of the complete factorisation need m <= n; got " +
                    dims_to_string(a.shape()) +
                    " complete (the m - n extra columns of Q are not a function of a)");
}

// m >= n (R square): with M = Q^H dA R^-1, Omega = tril(M, -1) - tril(M, -1)^H + i Im diag(M):
// dQ = Q Omega + dA R^-1 - Q M, dR = (M - Omega) R.
void qr_jvp_tall(const Tensor& Q, const Tensor& R, const Tensor& da, Tensor& dQ, Tensor& dR) {
  const Tensor N = triangular_solve(R, da, /*upper=*/true, /*left=*/false);  // dA R^-1
  const Tensor M = matmul(mH(Q), N);
  const Tensor L = tril(M, -1);
  const Tensor Omega = L - mH(L) + diag_embed(i_im(diagonal(M)));
  dQ = matmul(Q, Omega) + N - matmul(Q, M);
  dR = triu(matmul(M - Omega, R));
}

// The adjoint of qr_jvp_tall (either cotangent may be undefined, not both).
Tensor qr_vjp_tall(const Tensor& Q, const Tensor& R, const Tensor& gQ, const Tensor& gR) {
  Tensor X;
  if (gQ.defined()) X = matmul(mH(Q), gQ);
  if (gR.defined()) X = X.defined() ? X - matmul(gR, mH(R)) : -matmul(gR, mH(R));
  const Tensor Omega_star = tril(X - mH(X), -1) + diag_embed(i_im(diagonal(X)));
  Tensor gN = matmul(Q, Omega_star - X);
  if (gQ.defined()) gN = gN + gQ;
  return triangular_solve(mH(R), gN, /*upper=*/false, /*left=*/false);  // gN R^-H
}
}  // namespace

// m < n: a = [X | Y] with X m x m; Q R1 = qr(X) and R2 = Q^H Y, so Y = Q R2 and
// dR2 = dQ^H Y + Q^H dY (PyTorch's linalg_qr_backward).
void qr_rule_jvp(const Tensor& Q, const Tensor& R, const Tensor& da, Tensor& dQ, Tensor& dR) {
  const I m = rows(Q), n = cols(R);
  if (m >= n) return qr_jvp_tall(Q, R, da, dQ, dR);
  const Tensor R1 = first_cols(R, m), R2 = slice(R, -1, m, n);
  Tensor dR1;
  qr_jvp_tall(Q, R1, first_cols(da, m), dQ, dR1);
  const Tensor dR2 = matmul(mH(dQ), matmul(Q, R2)) + matmul(mH(Q), slice(da, -1, m, n));
  dR = concatenate({dR1, dR2}, -1);
}

Tensor qr_rule_vjp(const Tensor& Q, const Tensor& R, const Tensor& gQ, const Tensor& gR) {
  const I m = rows(Q), n = cols(R);
  if (m >= n) return qr_vjp_tall(Q, R, gQ, gR);
  const Tensor R1 = first_cols(R, m), R2 = slice(R, -1, m, n);
  Tensor gQ1 = gQ, gR1, gY;
  if (gR.defined()) {
    gR1 = first_cols(gR, m);
    const Tensor gR2 = slice(gR, -1, m, n);
    const Tensor t = matmul(matmul(Q, R2), mH(gR2));  // Y gR2^H
    gQ1 = gQ1.defined() ? gQ1 + t : t;
    gY = matmul(Q, gR2);
  } else {
    gY = zeros(with(batch_of(Q), {m, n - m}), Q.dtype());
  }
  return concatenate({qr_vjp_tall(Q, R1, gQ1, gR1), gY}, -1);
}

void QrPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                 std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined()) return;
  require_qr_rule(primals[0], complete_);
  if (primals[0].numel() == 0) return;
  qr_rule_jvp(outputs[0], outputs[1], t[0], out_t[0], out_t[1]);
}

void QrPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                 std::span<const Tensor> ct, std::span<const bool>, std::span<Tensor> in_ct) const {
  const Tensor& gQ = ct[0];
  const Tensor& gR = ct[1];
  if (!gQ.defined() && !gR.defined()) return;
  require_qr_rule(primals[0], complete_);
  if (primals[0].numel() == 0) {
    in_ct[0] = zeros(primals[0].shape(), primals[0].dtype());
    return;
  }
  in_ct[0] = qr_rule_vjp(outputs[0], outputs[1], gQ, gR);
}

}  // namespace tenferro::detail
