// The reduction primitive (one class for the family: the kinds share the axis rule, the kernel
// and the broadcast-back step of every VJP; the per-kind rules are separate functions in
// reduce.cpp). Exposed here so tests can call the rules directly.
#pragma once

#include "cpu/kernels/reduce.hpp"
#include "primitives/primitive.hpp"

namespace tenferro::detail {

/// The axis set of one reduction resolved against an input shape.
struct ResolvedAxes {
  SmallVector<bool, 8> mask;  // mask[d]: axis d is reduced
  Dims reduced;               // reduced axes, ascending
  Dims out_shape;             // result shape (with or without keepdims)
  Dims keep_shape;            // input shape with reduced axes set to 1
  std::int64_t count = 1;     // elements per reduced run
};

class ReducePrim final : public PrimitiveWith<ReducePrim> {
 public:
  ReducePrim(ReduceKind kind, Dims axes, bool keepdims)
      : kind_(kind), axes_(std::move(axes)), keepdims_(keepdims) {}
  ReduceKind kind() const { return kind_; }
  bool keepdims() const { return keepdims_; }
  std::string_view name() const override;
  std::string params() const override;
  auto key() const { return std::tie(kind_, axes_, keepdims_); }
  bool accepts_integers() const override { return true; }
  bool differentiable() const override {
    return kind_ != ReduceKind::any && kind_ != ReduceKind::all;
  }
  void infer(std::span<const Tensor> in, SpecList& out) const override;
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override;
  std::unique_ptr<PreparedKernel> prepare(std::span<const Tensor> in,
                                          std::span<const TensorSpec> out) const override;
  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override;
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override;

  /// Validates the axes against `x` (InvalidArgument for out-of-range/duplicate axes, and for
  /// an empty run under max/min; DTypeMismatch for complex max/min) and resolves them.
  ResolvedAxes resolve(const Tensor& x) const;
  /// The dtype the kernel reads: i64 for sum/prod of bool and integers, bool for any/all.
  DType kernel_dtype(DType d) const;

 private:
  ReduceKind kind_;
  Dims axes_;  // as given; empty = all axes
  bool keepdims_;
};

}  // namespace tenferro::detail
