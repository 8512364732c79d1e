// The primitive catalog's spine: one class per operation, three interpreters.
//
// Note [One catalog, three interpreters]: every operation is a Primitive subclass defined once in
// its family file under src/primitives/: typed parameters (data members), the shape/dtype rule
// (infer), the CPU kernel (execute), the forward rule (jvp) and the reverse rule (vjp). Public op
// functions only build the primitive and call bind(). bind() is the one join point:
//   - inputs that carry autodiff or trace state (Note [Tensor aux]) go to the interpreter that
//     owns that state (tape -> forward -> tracer, in that order, see src/primitives/bind.cpp);
//   - plain concrete inputs run eagerly: infer, admit on the current backend, allocate outputs
//     from the engine pool, execute.
// jvp/vjp rules are written with public ops, so they run on whichever interpreter their operands
// belong to: that is what makes jvp-of-grad and traced grad programs work with no extra code.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include "cpu/admission.hpp"
#include "tenferro/small_vector.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

struct TensorSpec {
  DType dtype = DType::f64;
  Dims shape;
};
using SpecList = SmallVector<TensorSpec, 2>;
using TensorList = SmallVector<Tensor, 2>;

class Primitive {
 public:
  virtual ~Primitive() = default;
  /// The op's name. Must view a static string literal: tape errors and version counters keep
  /// the pointer (Note [Version counter] in tenferro/storage.hpp).
  virtual std::string_view name() const = 0;

  /// Shape/dtype rule: appends one spec per output. Reads only shapes and dtypes of `in` (which
  /// may be symbolic). Throws tenferro::Error naming the op, the shapes/dtypes and the expectation.
  virtual void infer(std::span<const Tensor> in, SpecList& out) const = 0;

  /// CPU kernel: `out` holds freshly allocated contiguous tensors with the inferred specs.
  /// Inputs have any strides. Not called when try_view() succeeded.
  virtual void execute(ExecContext& ctx, std::span<const Tensor> in,
                       std::span<Tensor> out) const = 0;

  /// View primitives produce their single output by metadata alone (no allocation, no backend
  /// entry) when they can: return true and set `out` (sharing the input's storage).
  virtual bool try_view(std::span<const Tensor> in, Tensor& out) const {
    (void)in;
    (void)out;
    return false;
  }

  /// Forward rule: out_tangents[k] for each output, given primals, outputs and input tangents
  /// (an undefined tangent means zero). Undefined outputs mean zero. Written with public ops.
  virtual void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                   std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const;
  /// Reverse rule: in_cotangents[i] for every input i with needs[i] set, given the output
  /// cotangents (undefined means zero). Results must have the input's shape and dtype.
  virtual void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                   std::span<const Tensor> cotangents, std::span<const bool> needs,
                   std::span<Tensor> in_cotangents) const;
  /// False for ops whose outputs are piecewise constant (comparisons): no gradient flows.
  virtual bool differentiable() const { return true; }
  /// True when execute() also accepts a single output with arbitrary non-overlapping strides
  /// that may be exactly the same view as an input (elementwise kernels). bind_into() then runs
  /// the kernel directly into the caller's tensor; otherwise it runs into a temporary and copies.
  virtual bool writes_strided_output() const { return false; }

  /// Parameters as text for program printing, e.g. "axes=[0, 2] keepdims=true". Empty if none.
  virtual std::string params() const { return {}; }
  /// Structural identity for CSE and fingerprints: same name and equal parameters.
  virtual bool same_as(const Primitive& other) const {
    return name() == other.name() && params() == other.params();
  }
  /// A shared copy to keep in a tape node or a program (param-free primitives may share a static).
  virtual std::shared_ptr<const Primitive> share() const = 0;
  /// Copy-constructs this primitive into `buf` (`size` bytes, aligned to max_align_t) and returns
  /// it when it fits; nullptr otherwise. Tape nodes keep small primitives inline this way, with no
  /// heap allocation (Note [Cheap tape] in src/autodiff/tape.hpp); the caller destroys it.
  virtual Primitive* clone_into(void* buf, std::size_t size) const {
    (void)buf;
    (void)size;
    return nullptr;
  }
};

/// Implements share() for a primitive whose parameters are its data members.
template <class Derived>
class PrimitiveWith : public Primitive {
 public:
  std::shared_ptr<const Primitive> share() const override {
    return std::make_shared<Derived>(static_cast<const Derived&>(*this));
  }
  Primitive* clone_into(void* buf, std::size_t size) const override {
    if constexpr (alignof(Derived) <= alignof(std::max_align_t)) {
      if (sizeof(Derived) <= size) return new (buf) Derived(static_cast<const Derived&>(*this));
    }
    return nullptr;
  }
};

/// The join point (Note [One catalog, three interpreters]).
TensorList bind(const Primitive& p, std::span<const Tensor> in);
/// bind() for a single-output primitive.
Tensor bind1(const Primitive& p, std::span<const Tensor> in);
inline Tensor bind1(const Primitive& p, std::initializer_list<Tensor> in) {
  return bind1(p, std::span<const Tensor>(in.begin(), in.size()));
}

/// Runs single-output p on `in`, writing the result into the caller's `out` (the `_into` ops).
/// Contract (Note [Writing into an existing tensor], src/primitives/bind_into.cpp): `out` is
/// defined, concrete, has exactly the inferred shape (ShapeMismatch) and dtype (DTypeMismatch),
/// has no self-overlapping elements, and overlaps an input only when it is exactly the same view
/// (same storage, offset, shape, strides) -- any other overlap is InvalidArgument. Operands that
/// carry autodiff or trace state are Unsupported. On error nothing is written. `name` is the
/// public op's name ("add_into"), a static string: errors name it, and the write bumps out's
/// storage version with it as the writer (Note [Version counter] in tenferro/storage.hpp).
void bind_into(const Primitive& p, std::span<const Tensor> in, Tensor& out, const char* name);

/// The eager interpreter alone: concrete inputs without aux, on the current backend.
TensorList eager_apply(const Primitive& p, std::span<const Tensor> in);
/// Runs p's kernel inside an already admitted operation (the trace runtime uses this).
TensorList execute_in(ExecContext& ctx, const Primitive& p, std::span<const Tensor> in);

/// Handles inputs that carry aux state; installed by the autodiff/trace modules.
TensorList apply_with_aux(const Primitive& p, std::span<const Tensor> in);

// Helpers for error messages and rules.
std::string describe(std::span<const Tensor> in);  // "[2, 3] f64, [3] f32"
/// Normalises an axis into [0, rank); throws InvalidArgument naming op and shape.
std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, std::string_view op);

}  // namespace tenferro::detail
