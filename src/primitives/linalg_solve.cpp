// cholesky, solve, triangular_solve, slogdet: shape rules, kernels and derivative rules. Every rule
// is written with public ops (solves included), so second order (hvp) works through all of them.
#include "cpu/kernels/linalg.hpp"
#include "primitives/linalg_prims.hpp"
#include "primitives/linalg_rules.hpp"

namespace tenferro::detail {

using namespace linalg_rules;
using I = std::int64_t;

namespace {

I rows(const Tensor& t) { return t.shape()[t.rank() - 2]; }
I cols(const Tensor& t) { return t.shape()[t.rank() - 1]; }
Dims batch_of(const Tensor& t) { return Dims(t.shape().begin(), t.shape().end() - 2); }

// Two operands: equal dtypes and batch dims (the public ops promote and broadcast first).
void require_pair(const char* op, std::span<const Tensor> in) {
  if (in[0].dtype() != in[1].dtype())
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": operands must have one dtype, got " + describe(in));
  if (batch_of(in[0]) != batch_of(in[1]))
    throw Error(ErrorKind::ShapeMismatch,
                std::string(op) + ": batch dimensions differ, got " + describe(in));
}

}  // namespace

// ---- cholesky ----

void CholeskyPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("cholesky", in, true);
  out.push_back({in[0].dtype(), in[0].shape()});
}

void CholeskyPrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                           std::span<Tensor> out) const {
  linalg::cholesky(ctx, in[0], out[0]);
}

// a = L L^H: L^-1 dA L^-H = L^-1 dL + (L^-1 dL)^H with L^-1 dL lower triangular, real diagonal.
void CholeskyPrim::jvp(std::span<const Tensor>, std::span<const Tensor> outputs,
                       std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined() || t[0].numel() == 0) return;
  const Tensor& L = outputs[0];
  const Tensor Y = triangular_solve(L, hermitian_from_triangle(t[0], true), false, true);
  const Tensor Z = triangular_solve(mH(L), Y, true, false);  // L^-1 dA L^-H
  out_t[0] = matmul(L, tril(Z, -1) + diag_embed(re(diagonal(Z)) * 0.5));
}

void CholeskyPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                       std::span<const Tensor> ct, std::span<const bool>,
                       std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  if (primals[0].numel() == 0) {
    in_ct[0] = zeros(primals[0].shape(), primals[0].dtype());
    return;
  }
  const Tensor& L = outputs[0];
  const Tensor X = matmul(mH(L), ct[0]);
  const Tensor Phi = tril(X, -1) + diag_embed(re(diagonal(X)) * 0.5);
  const Tensor W = triangular_solve(L, Phi, false, false);  // Phi L^-1
  const Tensor G = triangular_solve(mH(L), W, true, true);  // L^-H Phi L^-1
  in_ct[0] = triangle_cotangent(G, true);
}

// ---- solve ----

void SolvePrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("solve", in, true);
  require_pair("solve", in);
  if (rows(in[1]) != rows(in[0]))
    throw Error(
        ErrorKind::ShapeMismatch,
        "solve: b must have as many rows as a (a [..., n, n], b [..., n, r]), got " + describe(in));
  out.push_back({in[1].dtype(), in[1].shape()});
}

void SolvePrim::execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const {
  linalg::solve(ctx, in[0], in[1], out[0]);
}

void SolvePrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                    std::span<const Tensor> t, std::span<Tensor> out_t) const {
  Tensor rhs = t[1];
  if (t[0].defined()) {
    const Tensor dax = matmul(t[0], outputs[0]);
    rhs = rhs.defined() ? rhs - dax : -dax;
  }
  if (rhs.defined()) out_t[0] = bind1(*this, {primals[0], rhs});
}

void SolvePrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                    std::span<const Tensor> ct, std::span<const bool> needs,
                    std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  const Tensor gb = bind1(*this, {mH(primals[0]), ct[0]});
  if (needs[1]) in_ct[1] = gb;
  if (needs[0]) in_ct[0] = -matmul(gb, mH(outputs[0]));
}

// ---- triangular_solve ----

std::string TriangularSolvePrim::params() const {
  return std::string(upper_ ? "upper=true" : "upper=false") +
         (left_ ? " left=true" : " left=false") +
         (unit_ ? " unit_diagonal=true" : " unit_diagonal=false");
}

void TriangularSolvePrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("triangular_solve", in, true);
  require_pair("triangular_solve", in);
  const I n = rows(in[0]);
  if ((left_ ? rows(in[1]) : cols(in[1])) != n)
    throw Error(ErrorKind::ShapeMismatch,
                std::string("triangular_solve: b must be ") +
                    (left_ ? "[..., n, r] (left)" : "[..., r, n] (right)") +
                    " for a [..., n, n], got " + describe(in));
  out.push_back({in[1].dtype(), in[1].shape()});
}

void TriangularSolvePrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                                  std::span<Tensor> out) const {
  linalg::triangular_solve(ctx, in[0], in[1], out[0], upper_, left_, unit_);
}

void TriangularSolvePrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                              std::span<const Tensor> t, std::span<Tensor> out_t) const {
  Tensor rhs = t[1];
  if (t[0].defined()) {
    const Tensor da = read_triangle(t[0], upper_, unit_);
    const Tensor term = left_ ? matmul(da, outputs[0]) : matmul(outputs[0], da);
    rhs = rhs.defined() ? rhs - term : -term;
  }
  if (rhs.defined()) out_t[0] = bind1(*this, {primals[0], rhs});
}

void TriangularSolvePrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                              std::span<const Tensor> ct, std::span<const bool> needs,
                              std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  const Tensor gb = bind1(TriangularSolvePrim(!upper_, left_, unit_), {mH(primals[0]), ct[0]});
  if (needs[1]) in_ct[1] = gb;
  if (needs[0]) {
    const Tensor x = outputs[0];
    in_ct[0] = -read_triangle(left_ ? matmul(gb, mH(x)) : matmul(mH(x), gb), upper_, unit_);
  }
}

// ---- slogdet ----

void SlogdetPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("slogdet", in, true);
  const Dims b = batch_of(in[0]);
  out.push_back({in[0].dtype(), b});
  out.push_back({real_dtype(in[0].dtype()), b});
}

void SlogdetPrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                          std::span<Tensor> out) const {
  linalg::slogdet(ctx, in[0], out[0], out[1]);
}

// d log det a = tr(a^-1 da): log|det| moves by its real part, the sign (complex) by its phase.
void SlogdetPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                      std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined()) return;
  const Tensor tr = sum(diagonal(solve(primals[0], t[0])), {-1});
  out_t[1] = real_of(tr);
  if (is_complex(primals[0].dtype())) out_t[0] = outputs[0] * i_im(tr);
}

void SlogdetPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                      std::span<const Tensor> ct, std::span<const bool>,
                      std::span<Tensor> in_ct) const {
  const Tensor& a = primals[0];
  const bool cx = is_complex(a.dtype());
  const Tensor& g_sign = ct[0];
  const Tensor& g_log = ct[1];
  if (!g_log.defined() && !(cx && g_sign.defined())) return;
  Tensor gt;
  if (g_log.defined()) gt = cast(g_log, a.dtype());
  if (cx && g_sign.defined()) {
    const Tensor phase = i_im(conj(g_sign) * outputs[0]);
    gt = gt.defined() ? gt - phase : -phase;
  }
  in_ct[0] = mH(inv(a)) * unsqueeze(unsqueeze(gt, -1), -1);
}

// ---- det ----

void DetPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  require_matrices("det", in, true);
  out.push_back({in[0].dtype(), batch_of(in[0])});
}

void DetPrim::execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const {
  linalg::det(ctx, in[0], out[0]);
}

// d det a = tr(adj(a) da), with the adjugate from an svd (linalg_rules.hpp), so the rule holds at
// singular matrices, where a^-1 does not exist.
void DetPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor>,
                  std::span<const Tensor> t, std::span<Tensor> out_t) const {
  if (!t[0].defined()) return;
  out_t[0] = sum(transpose(adjugate(primals[0])) * t[0], {-2, -1});
}

void DetPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor>,
                  std::span<const Tensor> ct, std::span<const bool>,
                  std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  in_ct[0] = mH(adjugate(primals[0])) * unsqueeze(unsqueeze(ct[0], -1), -1);
}

}  // namespace tenferro::detail
