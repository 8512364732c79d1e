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

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>

#include "cpu/admission.hpp"
#include "primitives/param_key.hpp"
#include "tenferro/small_vector.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

struct TensorSpec {
  DType dtype = DType::f64;
  Dims shape;
};
using SpecList = SmallVector<TensorSpec, 2>;
using TensorList = SmallVector<Tensor, 2>;
/// Inputs by reference: the eager fast path reads the caller's tensors without copying handles.
using InputRefs = std::span<const Tensor* const>;

/// A kernel that Primitive::prepare() specialised to fixed input layouts (dtypes, shapes and
/// strides; not data or offsets), kept in the eager cache (Note [Eager cache], eager_cache.hpp).
/// It runs only while its engine is borrowed, so it may keep mutable scratch state.
class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  /// Runs on inputs with exactly the prepared layouts into freshly allocated contiguous outputs
  /// of the inferred specs.
  virtual void run(ExecContext& ctx, InputRefs in, std::span<Tensor> out) = 0;
};

class Primitive {
 public:
  Primitive() = default;
  // A copy has the same parameters (so the same hash) but is never static (mark_static).
  Primitive(const Primitive& o) noexcept
      : hash_memo_(o.memo().load(std::memory_order_relaxed)), host_(o.host_) {}
  Primitive& operator=(const Primitive& o) noexcept {
    hash_memo_ = o.memo().load(std::memory_order_relaxed);
    host_ = o.host_;
    return *this;
  }
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

  /// Optional eager fast path: a kernel specialised to these inputs' layouts, given the specs
  /// infer() produced for them; the eager cache keeps it per (params, layouts) and calls it
  /// instead of execute() (Note [Eager cache]). Null (the default): execute() runs every time.
  virtual std::unique_ptr<PreparedKernel> prepare(std::span<const Tensor> in,
                                                  std::span<const TensorSpec> out) const {
    (void)in;
    (void)out;
    return nullptr;
  }

  /// View primitives (one input, one output) produce their output by metadata alone when they
  /// can: return true and set `out` (sharing the input's storage).
  virtual bool try_view(const Tensor& in, Tensor& out) const {
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
  /// True when infer() and execute() handle bool and integer inputs themselves. The default,
  /// false: infer_specs() rejects such inputs with DTypeMismatch before infer() runs, so a kernel
  /// written for the floating dtypes never sees them (Note [Integer dtypes] in docs/dtypes.md).
  virtual bool accepts_integers() const { return false; }
  /// False for ops whose outputs are piecewise constant (comparisons): no gradient flows.
  virtual bool differentiable() const { return true; }
  /// True when execute() also accepts a single output with arbitrary non-overlapping strides
  /// that may be exactly the same view as an input (elementwise kernels). bind_into() then runs
  /// the kernel directly into the caller's tensor; otherwise it runs into a temporary and copies.
  virtual bool writes_strided_output() const { return false; }

  /// Note [Host primitives]: a few primitives compute their outputs by calling other ops (the
  /// linear maps of the Krylov solvers, src/krylov/linear_map.hpp, call user functions). An op
  /// cannot run inside another's kernel (run_operation refuses re-entry), so the eager
  /// interpreter calls apply_on_host() for them, outside any operation body, instead of
  /// execute(). Tape and forward mode reach it through that same eager bind; such a primitive
  /// refuses symbolic inputs in infer(), so it never enters a traced program -- except a call
  /// node (custom rules), which is inlined before planning (Note [Call nodes],
  /// trace/call_body.hpp).
  bool runs_on_host() const noexcept { return host_; }
  /// Outputs of a host primitive from plain (aux-free, concrete) inputs.
  virtual void apply_on_host(std::span<const Tensor> in, TensorList& out) const;

  /// Parameters as text for program printing, e.g. "axes=[0, 2] keepdims=true". Empty if none.
  /// Printing only: identity is same_as/params_hash (Note [Typed params]).
  virtual std::string params() const { return {}; }
  /// Structural identity for CSE, program equality and the eager cache: same dynamic type, same
  /// name and equal typed parameters (Note [Typed params] in param_key.hpp).
  virtual bool same_as(const Primitive& other) const = 0;
  /// A hash consistent with same_as (equal primitives hash equal), stable across processes.
  /// Computed once per object (primitives are immutable after construction): the eager cache
  /// asks for it on every call.
  std::uint64_t params_hash() const noexcept {
    std::uint64_t h = memo().load(std::memory_order_relaxed);
    if (h == 0) {
      h = compute_params_hash() | 1;  // never 0, the "not yet" mark
      memo().store(h, std::memory_order_relaxed);
    }
    return h;
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

  /// For a primitive that lives until exit (a function-local static): share() then hands out
  /// this object itself instead of a copy, so the eager cache, which keeps what share() gave,
  /// recognises the next call's primitive by its address. Call once, before the first use;
  /// returns true (for `static const bool marked = prim.mark_static();`).
  bool mark_static() const noexcept {
    static_ = true;
    return true;
  }
  /// True for a primitive marked by mark_static(): it outlives every holder of share().
  bool is_static() const noexcept { return static_; }

 protected:
  virtual std::uint64_t compute_params_hash() const noexcept = 0;
  /// Marks this primitive as a host primitive (Note [Host primitives]); call in the constructor.
  void set_runs_on_host() noexcept { host_ = true; }

 private:
  std::atomic_ref<std::uint64_t> memo() const noexcept {
    return std::atomic_ref<std::uint64_t>(hash_memo_);
  }
  // Written at most once with the same value by any thread (a benign, atomic race); copies of a
  // primitive have the same parameters, so they may copy it.
  alignas(8) mutable std::uint64_t hash_memo_ = 0;
  mutable bool static_ = false;
  bool host_ = false;
};

/// Implements share(), clone_into(), same_as() and params_hash() for a primitive whose
/// parameters are its data members. Derived lists them in `auto key() const` (a std::tie of the
/// members; the default, an empty tuple, is for parameter-free primitives).
template <class Derived>
class PrimitiveWith : public Primitive {
 public:
  std::tuple<> key() const noexcept { return {}; }

  bool same_as(const Primitive& other) const final {
    if (typeid(other) != typeid(Derived)) return false;
    const auto& a = static_cast<const Derived&>(*this);
    const auto& b = static_cast<const Derived&>(other);
    // Names view static literals: equal pointers are the common case of equal names.
    const std::string_view na = a.name(), nb = b.name();
    return (na.data() == nb.data() ? na.size() == nb.size() : na == nb) &&
           key_equal(a.key(), b.key());
  }
  std::uint64_t compute_params_hash() const noexcept final {
    const auto& a = static_cast<const Derived&>(*this);
    KeyHasher h;
    h.add(a.name());
    key_hash(h, a.key());
    return h.h;
  }
  std::shared_ptr<const Primitive> share() const override {
    if (is_static()) return std::shared_ptr<const Primitive>(std::shared_ptr<void>(), this);
    return std::make_shared<Derived>(static_cast<const Derived&>(*this));
  }
  Primitive* clone_into(void* buf, std::size_t size) const override {
    if constexpr (alignof(Derived) <= alignof(std::max_align_t)) {
      if (sizeof(Derived) <= size) return new (buf) Derived(static_cast<const Derived&>(*this));
    }
    return nullptr;
  }
};

/// p.infer(in, out) after the integer check (Primitive::accepts_integers): every interpreter
/// infers through this.
void infer_specs(const Primitive& p, std::span<const Tensor> in, SpecList& out);

/// The join point (Note [One catalog, three interpreters]).
TensorList bind(const Primitive& p, std::span<const Tensor> in);
/// The jvp of a primitive that is linear in every input separately (concatenate, block_assemble):
/// the same primitive on the tangents, an undefined tangent counting as zeros. Leaves out_t[0]
/// undefined when every tangent is.
void linear_jvp(const Primitive& p, std::span<const Tensor> primals, std::span<const Tensor> t,
                std::span<Tensor> out_t);
/// bind() for a single-output primitive.
Tensor bind1(const Primitive& p, std::span<const Tensor> in);
inline Tensor bind1(const Primitive& p, std::initializer_list<Tensor> in) {
  return bind1(p, std::span<const Tensor>(in.begin(), in.size()));
}
/// bind1 without copying the operands' handles: plain concrete operands of a primitive with a
/// prepared kernel go straight to the eager cache (Note [Eager cache]); others as bind1 above.
Tensor bind1(const Primitive& p, const Tensor& a);
Tensor bind1(const Primitive& p, const Tensor& a, const Tensor& b);

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
/// The shortest decimal text that reads back as exactly `v` ("1e-09", "0.1", "-inf", "nan"):
/// program printing shows scalar parameters this way.
std::string round_trip(double v);
/// Normalises an axis into [0, rank); throws InvalidArgument naming op and shape.
std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, std::string_view op);
/// Checks a reduction's axes against x (each in [-rank, rank), none named twice) and returns the
/// number of elements they cover (x.numel() for no axes). Compositions over a reduction call it
/// first, so that a bad axis is reported under the public op's name, not the inner reduction's.
std::int64_t check_axes(const Tensor& x, const Dims& axes, std::string_view op);

}  // namespace tenferro::detail
