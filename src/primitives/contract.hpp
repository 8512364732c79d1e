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

#include <memory>
#include <optional>

#include "primitives/primitive.hpp"
#include "tenferro/ops/contract.hpp"

namespace tenferro::detail {

struct DotGeneralParams {
  DotDims dims;
  bool conj_lhs = false;
  bool conj_rhs = false;
  std::optional<DType> out_dtype;  // default: promote(lhs, rhs)
  auto key() const {
    return std::tie(dims.lhs_batch, dims.rhs_batch, dims.lhs_contract, dims.rhs_contract, conj_lhs,
                    conj_rhs, out_dtype);
  }
};

/// The eager cache's kernel for the direct case (no packing); null otherwise. contract_plan.cpp.
std::unique_ptr<PreparedKernel> prepare_dot_general(const Tensor& a, const Tensor& b,
                                                    const DotGeneralParams& p,
                                                    const TensorSpec& out);

// Note [Shared dot_general]: a dot_general made by make_shared (the two primitives of a VJP plan,
// Note [dot_general VJP plans] in contract.cpp) hands itself out from share() instead of a copy,
// so the eager cache's key holds that very object and the backward products of a recurring op
// find their entries by address, without comparing dimension lists. A copy (an inline tape node's,
// a stack object's) has no owner and shares a copy as before.
class DotGeneralPrim final : public PrimitiveWith<DotGeneralPrim>,
                             public std::enable_shared_from_this<DotGeneralPrim> {
 public:
  explicit DotGeneralPrim(DotGeneralParams p);
  std::string_view name() const override { return "dot_general"; }
  std::shared_ptr<const Primitive> share() const override {
    if (std::shared_ptr<const DotGeneralPrim> self = weak_from_this().lock()) return self;
    return PrimitiveWith::share();
  }
  std::string params() const override;
  auto key() const { return p_.key(); }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  std::unique_ptr<PreparedKernel> prepare(std::span<const Tensor> in,
                                          std::span<const TensorSpec> out) const override {
    return prepare_dot_general(in[0], in[1], p_, out[0]);
  }
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;
  const DotGeneralParams& dot_params() const noexcept { return p_; }

 private:
  DotGeneralParams p_;
  // Note [dot_general list masks]: the dimension lists are fixed at construction, so their
  // validity (no negative or repeated entry, equal pair lengths, every entry < 64) and the bit
  // masks of listed dimensions are computed once; infer() then only compares the ranks with
  // the largest listed dimension and the paired sizes.
  // (Kept small: the primitive is copied inline into tape nodes, kInlinePrimitive.)
  std::uint64_t lhs_listed_ = 0, rhs_listed_ = 0;
  std::uint8_t lhs_min_rank_ = 0, rhs_min_rank_ = 0;
  bool lists_simple_ = false;
};

/// dot_general with the full parameter set (Note [dot_general parameters]).
Tensor dot_general_ex(const Tensor& a, const Tensor& b, DotGeneralParams p);

/// Lowers out = dot_general(a, b) (out: contiguous, inferred spec) to GEMMs and runs them.
/// Defined in contract_plan.cpp.
void dot_general_kernel(ExecContext& ctx, const Tensor& a, const Tensor& b,
                        const DotGeneralParams& p, Tensor& out);

}  // namespace tenferro::detail
