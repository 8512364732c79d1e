// The linear-algebra primitives (Note [One catalog, three interpreters]): svd, eigh, qr,
// cholesky, solve, triangular_solve, slogdet; eig, lu_factor, lu_solve, matrix_exp, pinv and
// qr_pivoted (rules in linalg_more.cpp). Their kernels are in src/cpu/kernels/linalg*.cpp,
// their rules in linalg_decomp.cpp / linalg_solve.cpp; the public ops (linalg_ops.cpp) compose
// them (svdvals, svd_truncated, lstsq, inv, det, norms).
#pragma once

#include <string>

#include "primitives/primitive.hpp"

namespace tenferro::detail {

/// Shape rule helpers: rank >= 2 (ShapeMismatch), square when asked, a float/complex dtype.
void require_matrices(const char* op, std::span<const Tensor> in, bool square);
/// "1e-24" printed round-trippably (%.17g) for params().
std::string format_double(double v);

/// svd (compute_uv) -> U, S, Vh; svdvals (!compute_uv) -> S.
class SvdPrim final : public PrimitiveWith<SvdPrim> {
 public:
  SvdPrim(bool full, bool compute_uv, double eps) : full_(full), uv_(compute_uv), eps_(eps) {}
  std::string_view name() const override { return uv_ ? "svd" : "svdvals"; }
  std::string params() const override;
  auto key() const { return std::tie(full_, uv_, eps_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;

 private:
  bool full_, uv_;
  double eps_;
};

/// eigh (compute_v) -> eigenvalues, eigenvectors; eigvalsh -> eigenvalues.
class EighPrim final : public PrimitiveWith<EighPrim> {
 public:
  EighPrim(bool lower, bool compute_v, double eps) : lower_(lower), v_(compute_v), eps_(eps) {}
  std::string_view name() const override { return v_ ? "eigh" : "eigvalsh"; }
  std::string params() const override;
  auto key() const { return std::tie(lower_, v_, eps_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;

 private:
  bool lower_, v_;
  double eps_;
};

class QrPrim final : public PrimitiveWith<QrPrim> {
 public:
  explicit QrPrim(bool complete) : complete_(complete) {}
  std::string_view name() const override { return "qr"; }
  std::string params() const override { return complete_ ? "mode=complete" : "mode=reduced"; }
  auto key() const { return std::tie(complete_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;

 private:
  bool complete_;
};

/// Lower Cholesky factor read from the lower triangle (upper is composed with mH).
class CholeskyPrim final : public PrimitiveWith<CholeskyPrim> {
 public:
  std::string_view name() const override { return "cholesky"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;
};

/// x = a^-1 b, a [..., n, n], b [..., n, r], equal batch dims and dtypes.
class SolvePrim final : public PrimitiveWith<SolvePrim> {
 public:
  std::string_view name() const override { return "solve"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;
};

class TriangularSolvePrim final : public PrimitiveWith<TriangularSolvePrim> {
 public:
  TriangularSolvePrim(bool upper, bool left, bool unit) : upper_(upper), left_(left), unit_(unit) {}
  std::string_view name() const override { return "triangular_solve"; }
  std::string params() const override;
  auto key() const { return std::tie(upper_, left_, unit_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;

 private:
  bool upper_, left_, unit_;
};

/// slogdet -> sign (input dtype), logabsdet (real dtype).
class SlogdetPrim final : public PrimitiveWith<SlogdetPrim> {
 public:
  std::string_view name() const override { return "slogdet"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;
};

/// det: its own primitive so that the derivative is the adjugate, defined at singular matrices.
class DetPrim final : public PrimitiveWith<DetPrim> {
 public:
  std::string_view name() const override { return "det"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;
};

#define TENFERRO_LINALG_RULES                                                                \
  void infer(std::span<const Tensor> in, SpecList& out) const override;                      \
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out)          \
      const override;                                                                        \
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,                 \
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override; \
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,                 \
           std::span<const Tensor> cotangents, std::span<const bool> needs,                  \
           std::span<Tensor> in_cotangents) const override;

/// eig (compute_v) -> eigenvalues, eigenvectors (complex); eigvals -> eigenvalues (Note
/// [Values-only primal]: the values-only driver, vectors computed in the rules).
class EigPrim final : public PrimitiveWith<EigPrim> {
 public:
  explicit EigPrim(bool compute_v) : v_(compute_v) {}
  std::string_view name() const override { return v_ ? "eig" : "eigvals"; }
  auto key() const { return std::tie(v_); }
  TENFERRO_LINALG_RULES

 private:
  bool v_;
};

/// lu_factor -> LU (packed), pivots (i64, 0-based), perm (i64 row permutation, a[perm] = L U).
class LuFactorPrim final : public PrimitiveWith<LuFactorPrim> {
 public:
  std::string_view name() const override { return "lu_factor"; }
  TENFERRO_LINALG_RULES
};

/// lu_solve(LU, pivots, b) -> a^-1 b (adjoint: a^-H b), a = P L U; LU, b: one dtype and batch.
class LuSolvePrim final : public PrimitiveWith<LuSolvePrim> {
 public:
  explicit LuSolvePrim(bool adjoint) : adjoint_(adjoint) {}
  std::string_view name() const override { return "lu_solve"; }
  std::string params() const override { return adjoint_ ? "adjoint=true" : "adjoint=false"; }
  auto key() const { return std::tie(adjoint_); }
  bool accepts_integers() const override { return true; }  // the pivots
  TENFERRO_LINALG_RULES

 private:
  bool adjoint_;
};

class MatrixExpPrim final : public PrimitiveWith<MatrixExpPrim> {
 public:
  std::string_view name() const override { return "matrix_exp"; }
  TENFERRO_LINALG_RULES
};

/// pinv with an absolute relative cutoff rcond (resolved by the public op, >= 0).
class PinvPrim final : public PrimitiveWith<PinvPrim> {
 public:
  explicit PinvPrim(double rcond) : rcond_(rcond) {}
  std::string_view name() const override { return "pinv"; }
  std::string params() const override;
  auto key() const { return std::tie(rcond_); }
  TENFERRO_LINALG_RULES

 private:
  double rcond_;
};

/// qr_pivoted -> Q, R, P (i64 column permutation).
class QrPivotedPrim final : public PrimitiveWith<QrPivotedPrim> {
 public:
  std::string_view name() const override { return "qr_pivoted"; }
  TENFERRO_LINALG_RULES
};

#undef TENFERRO_LINALG_RULES

/// The QR rules for a = Q R (reduced; or complete with m == n), any m, n: m >= n directly, m < n
/// by the split a = [X | Y], Q R1 = qr(X), R2 = Q^H Y (linalg_decomp.cpp).
void qr_rule_jvp(const Tensor& Q, const Tensor& R, const Tensor& da, Tensor& dQ, Tensor& dR);
Tensor qr_rule_vjp(const Tensor& Q, const Tensor& R, const Tensor& gQ, const Tensor& gR);

}  // namespace tenferro::detail
