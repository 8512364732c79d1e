// The dot_general primitive (Note [One catalog, three interpreters]) and its full parameters.
//
// Note [dot_general parameters]: beyond XLA's four dimension lists the primitive carries
// conj_lhs / conj_rhs (the operand enters conjugated; a no-op for real dtypes) and an optional
// output dtype (XLA's preferred_element_type). They close the family under differentiation:
// the complex VJP needs conj(B) and the VJP of a real operand with a complex partner needs the
// real part of a complex product (a complex -> real output dtype keeps the real part), so the
// rules stay one primitive with no extra elementwise ops and no conjugated copies. vdot uses
// conj_lhs directly. Computation happens in promote(lhs, rhs, out) and is then converted.
#pragma once

#include <optional>

#include "primitives/primitive.hpp"
#include "tenferro/ops/contract.hpp"

namespace tenferro::detail {

struct DotGeneralParams {
  DotDims dims;
  bool conj_lhs = false;
  bool conj_rhs = false;
  std::optional<DType> out_dtype;  // default: promote(lhs, rhs)
};

class DotGeneralPrim final : public PrimitiveWith<DotGeneralPrim> {
 public:
  explicit DotGeneralPrim(DotGeneralParams p) : p_(std::move(p)) {}
  std::string_view name() const override { return "dot_general"; }
  std::string params() const override;
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;
  const DotGeneralParams& dot_params() const noexcept { return p_; }

 private:
  DotGeneralParams p_;
};

/// dot_general with the full parameter set (Note [dot_general parameters]).
Tensor dot_general_ex(const Tensor& a, const Tensor& b, DotGeneralParams p);

/// Lowers out = dot_general(a, b) (out: contiguous, inferred spec) to GEMMs and runs them.
/// Defined in contract_plan.cpp.
void dot_general_kernel(ExecContext& ctx, const Tensor& a, const Tensor& b,
                        const DotGeneralParams& p, Tensor& out);

/// Temporary: same-shape, same-dtype sum used by the JVP rule until the elementwise family's
/// add lands (then the rule calls tenferro::add and this goes away).
Tensor contract_tangent_add(const Tensor& x, const Tensor& y);

}  // namespace tenferro::detail
