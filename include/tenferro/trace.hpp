// Traced programs: capture once, transform, prepare on a runtime, replay many times.
//
//   using namespace tenferro;
//   Program p = trace([](std::span<const Tensor> x) { return sum(bmm(x[0], x[1])); },
//                     {ValueSpec{{16, 2, 2}}, ValueSpec{{16, 2, 2}}});
//   Program g = grad(p);                       // inputs (a, b) -> outputs (da, db)
//   Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
//   PreparedProgram plan = rt.prepare(g);      // shapes checked, buffers planned (cached)
//   std::vector<Tensor> dadb = rt.run(plan, {a, b});  // allocates only the outputs
//
// A Program is plain data (STYLE.md point 4): input values, constant values, a list of nodes
// {primitive, input value ids, output value ids, output specs} and output values. Tracing runs
// only the shape rules of the catalog (Note [One catalog, three interpreters]); tensors that the
// traced function closes over become constants. Transforms (grad/vjp/jvp) and passes (dead code,
// shape folding, common subexpressions) return new programs. See docs/trace.md.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

namespace detail {
class Primitive;
struct Plan;
struct RuntimeState;
}  // namespace detail

/// Shape and dtype of a program value.
struct ValueSpec {
  Dims shape;
  DType dtype = DType::f64;
  friend bool operator==(const ValueSpec& a, const ValueSpec& b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
};
/// "[16, 2, 2] f64"
std::string to_string(const ValueSpec& spec);

/// Index of a value in a program (inputs, constants and node outputs share one numbering).
using ValueId = std::int32_t;

/// One primitive application. `specs[k]` is the shape/dtype of `outputs[k]`.
struct ProgramNode {
  std::shared_ptr<const detail::Primitive> primitive;
  SmallVector<ValueId, 4> inputs;
  SmallVector<ValueId, 2> outputs;
  SmallVector<ValueSpec, 1> specs;
  /// Name of the primitive, e.g. "reshape".
  std::string_view name() const;
};

/// A concrete tensor the program reads (captured from the traced function's closure).
struct ProgramConstant {
  ValueId id = 0;
  Tensor value;
};

/// A traced program. Plain data: copy it, inspect it, transform it. Invariants (kept by every
/// function here): ids are < num_values and defined once; nodes are in dependency order.
struct Program {
  std::int32_t num_values = 0;
  std::vector<ValueId> inputs;
  std::vector<ValueSpec> input_specs;
  std::vector<ProgramConstant> constants;
  std::vector<ProgramNode> nodes;
  std::vector<ValueId> outputs;

  /// Spec of every value, indexed by id.
  std::vector<ValueSpec> value_specs() const;
  std::vector<ValueSpec> output_specs() const;
  /// One line per node, e.g. "  %3 = dot_general(%0, %1) {...} : [16, 2, 2] f64".
  std::string to_string() const;
  /// Structural hash: equal for programs with equal structure, parameters and constant values.
  std::uint64_t fingerprint() const;
  /// Runs the program through bind() on `args`: eagerly on concrete tensors, recorded by
  /// autodiff on tensors that require grad, captured on traced tensors. Checks count/specs.
  std::vector<Tensor> operator()(std::span<const Tensor> args) const;
  std::vector<Tensor> operator()(std::initializer_list<Tensor> args) const {
    return (*this)(std::span<const Tensor>(args.begin(), args.size()));
  }
};
std::ostream& operator<<(std::ostream& os, const Program& p);
/// True when the programs have the same structure, parameters and constant values.
bool structurally_equal(const Program& a, const Program& b);

namespace detail {
/// A non-owning reference to the traced callable (no std::function, no allocation), valid for the
/// one trace_impl call that trace() makes.
struct TraceFn {
  void* object;
  std::vector<Tensor> (*call)(void* object, std::span<const Tensor> inputs);
};
Program trace_impl(TraceFn fn, std::span<const ValueSpec> inputs);
}  // namespace detail

/// Captures f applied to symbolic inputs of the given specs. f takes std::span<const Tensor> and
/// returns std::vector<Tensor> or a single Tensor. Only shape rules run. Concrete tensors used
/// by f become constants; a concrete output becomes a constant output. Traced tensors must not
/// escape f (using one after trace() returned throws RuntimeState). Shape errors of f propagate.
/// f is called before trace() returns and is not kept (the Program holds no reference to it).
template <class F>
Program trace(F&& f, std::span<const ValueSpec> inputs) {
  using Fn = std::remove_reference_t<F>;
  if constexpr (std::is_function_v<Fn>) {
    return trace([fp = &f](std::span<const Tensor> in) { return fp(in); }, inputs);
  } else {
    detail::TraceFn fn{const_cast<void*>(static_cast<const void*>(std::addressof(f))),
                       [](void* o, std::span<const Tensor> in) -> std::vector<Tensor> {
                         auto&& r = (*static_cast<Fn*>(o))(in);
                         if constexpr (std::is_convertible_v<decltype(r), Tensor>) {
                           return {Tensor(std::forward<decltype(r)>(r))};
                         } else {
                           return std::vector<Tensor>(r.begin(), r.end());
                         }
                       }};
    return detail::trace_impl(fn, inputs);
  }
}
template <class F>
Program trace(F&& f, std::initializer_list<ValueSpec> inputs) {
  return trace(std::forward<F>(f), std::span<const ValueSpec>(inputs.begin(), inputs.size()));
}

// ---- Transforms (each returns a new, optimized program) ----

/// Gradient of a program with one single-element real floating output: inputs are the
/// program's inputs, outputs are d(out)/d(input) for each input index in `wrt` (every floating
/// input when empty; bool and integer inputs are constants, and naming one is DTypeMismatch),
/// shaped like that input. Complex inputs follow the conjugate-Wirtinger convention of autodiff.
Program grad(const Program& p, std::span<const int> wrt = {});
Program grad(const Program& p, std::initializer_list<int> wrt);
/// Reverse mode: inputs are (primals..., one cotangent per output); outputs are one cotangent
/// per primal input.
Program vjp(const Program& p);
/// Forward mode: inputs are (primals..., one tangent per input); outputs are (outputs...,
/// one tangent per output).
Program jvp(const Program& p);

// ---- Passes ----

/// Removes nodes and constants no output depends on; renumbers values densely.
Program eliminate_dead_code(const Program& p);
/// Shape-only folding: reshape/broadcast_to/permute/slice that do not change the value become
/// the identity; reshape of reshape and broadcast_to of broadcast_to read the original input.
Program fold_shapes(const Program& p);
/// Nodes with the same primitive (Primitive::same_as) on the same inputs are computed once.
Program eliminate_common_subexpressions(const Program& p);
/// fold_shapes, eliminate_common_subexpressions, eliminate_dead_code.
Program optimize(const Program& p);

// ---- Runtime ----

/// Settings of a Runtime.
struct RuntimeOptions {
  CpuBackendOptions backend{};
  /// Most prepared plans kept; the least recently used is evicted beyond it.
  std::size_t plan_cache_capacity = 64;
};

struct PlanCacheStats {
  std::uint64_t hits = 0, misses = 0, evictions = 0;
  std::size_t size = 0, capacity = 0;
};

/// A plan for one program on one runtime at one epoch (Note [Runtime epoch] in docs/trace.md).
/// Cheap to copy (shared, immutable). Running it from several threads at once is safe.
class PreparedProgram {
 public:
  PreparedProgram() = default;
  bool valid() const noexcept { return static_cast<bool>(plan_); }
  std::uint64_t runtime_id() const noexcept { return runtime_id_; }
  std::uint64_t epoch() const noexcept { return epoch_; }
  std::span<const ValueSpec> input_specs() const;
  std::span<const ValueSpec> output_specs() const;
  /// The optimized program the plan executes.
  const Program& program() const;
  /// Bytes of one workspace (intermediates after liveness-based reuse).
  std::size_t workspace_bytes() const;
  /// Kernel launches per run. Views are not counted: they are resolved once per workspace, or
  /// each run by metadata alone (a view of a caller's input falls back to its kernel only when
  /// the input's strides do not allow the view).
  std::size_t kernel_steps() const;

 private:
  friend class Runtime;
  std::shared_ptr<const detail::Plan> plan_;
  std::uint64_t runtime_id_ = 0;
  std::uint64_t epoch_ = 0;
};

/// Prepares and runs programs on a CPU backend. A handle: copies share identity, epoch, backend
/// and plan cache; every constructor makes a new identity. All members are thread-safe.
class Runtime {
 public:
  /// A runtime on a copy of default_backend().
  Runtime();
  explicit Runtime(CpuBackend backend, std::size_t plan_cache_capacity = 64);
  explicit Runtime(RuntimeOptions options);

  std::uint64_t id() const noexcept;
  /// Grows by one at every reconfigure()/set_backend(); plans from older epochs are rejected.
  std::uint64_t epoch() const noexcept;
  CpuBackend backend() const;

  /// Switches to a new backend made from `options`; bumps the epoch and drops cached plans.
  void reconfigure(const CpuBackendOptions& options);
  /// Switches to `backend`; bumps the epoch and drops cached plans.
  void set_backend(CpuBackend backend);

  /// Plans `p` for its traced input specs (or `inputs`, re-inferring shapes): optimizes, checks
  /// shapes, resolves views, plans intermediates into one workspace. Served from the plan cache
  /// when an equal program with equal input specs was prepared at this epoch.
  PreparedProgram prepare(const Program& p);
  PreparedProgram prepare(const Program& p, std::span<const ValueSpec> inputs);

  /// Runs `plan` on `inputs` under ONE backend admission. Allocates only the outputs (and the
  /// returned vector). Throws RuntimeState for a plan of another runtime or an older epoch,
  /// InvalidArgument/ShapeMismatch/DTypeMismatch for wrong inputs; inputs are never written.
  std::vector<Tensor> run(const PreparedProgram& plan, std::span<const Tensor> inputs) const;
  std::vector<Tensor> run(const PreparedProgram& plan, std::initializer_list<Tensor> inputs) const {
    return run(plan, std::span<const Tensor>(inputs.begin(), inputs.size()));
  }
  /// run() storing its results in the caller's `outputs` slots (size = number of outputs): each
  /// slot is replaced by a fresh result tensor, whatever it held (the old tensors are not written
  /// into). It allocates the output buffers and nothing else (no result vector). On error,
  /// `outputs` is left unchanged.
  void run_into(const PreparedProgram& plan, std::span<const Tensor> inputs,
                std::span<Tensor> outputs) const;

  PlanCacheStats cache_stats() const;
  void clear_cache();

 private:
  std::shared_ptr<detail::RuntimeState> state_;
};

}  // namespace tenferro
