// A prepared plan: the program lowered to steps over one workspace (ggml's "plan" phase).
//
// Note [Plan values]: every program value lives in one place at run time:
//  - program inputs are read from the caller's tensors (never written);
//  - constants are the program's tensors;
//  - kernel outputs live in the workspace, at offsets chosen by liveness-based reuse, except
//    *output roots* (the buffers program outputs are, or are views of), which are allocated
//    fresh each run from the execution context, since the caller keeps them;
//  - view outputs alias their input. A view whose root is a workspace buffer or a constant is
//    *static*: resolved once per workspace. A view whose root changes every run (an input or a
//    fresh buffer) is *dynamic*: try_view() each run, falling back to the kernel into a reserved
//    workspace buffer (or a fresh one, when the view reaches an output) when the caller's
//    strides do not allow a view.
// Each step reads its inputs from a contiguous run of `args` tensors and writes a run of `outs`
// tensors in the workspace. Static slots are filled when a workspace is made; dynamic slots are
// patched at the start of a run (or after the dynamic view producing them) and reset at its end,
// so a run allocates nothing but its outputs.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "primitives/primitive.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::detail {

struct Workspace;

struct Plan {
  enum class StepKind : std::uint8_t { kernel, static_view, dynamic_view };
  struct Step {
    const Primitive* prim = nullptr;
    StepKind kind = StepKind::kernel;
    std::uint32_t args = 0, nargs = 0;  // range in Workspace::args
    std::uint32_t outs = 0, nouts = 0;  // range in Workspace::outs
    // Dynamic view: Workspace::fallbacks index, or -1 when the view reaches an output or was
    // found to succeed on any strides (then a failure, not expected, allocates a fresh buffer).
    std::int32_t fallback = -1;
    std::uint32_t patches_begin = 0, patches_end = 0;  // applied after a dynamic view
    std::uint32_t statics_begin = 0, statics_end = 0;  // static args, filled at workspace creation
  };
  struct Patch {
    std::uint32_t src = 0;  // input index (input_patches) or outs index
    std::uint32_t dst = 0;  // args index
  };
  struct StaticArg {
    bool constant = false;
    std::uint32_t src = 0;  // constant index or outs index
    std::uint32_t dst = 0;
  };
  struct Fresh {  // an output root, allocated each run
    std::uint32_t out = 0;
    std::size_t bytes = 0;
    LayoutRef layout;  // shared by the output of every run (Note [Layout record])
    std::uint32_t patches_begin = 0, patches_end = 0;
  };
  struct BufferTensor {  // a workspace-resident tensor (kernel output or view fallback)
    std::uint32_t buffer = 0;
    std::uint32_t slot = 0;  // outs index (kernel output) or fallbacks index
    ValueSpec spec;
  };
  enum class ResultKind : std::uint8_t { input, outs, copy_constant, copy_outs };
  struct Result {
    ResultKind kind = ResultKind::outs;
    std::uint32_t src = 0;
  };

  std::uint64_t runtime_id = 0, epoch = 0;
  CpuBackend backend;
  Program program;  // optimized, specs re-inferred for input_specs
  std::vector<ValueSpec> input_specs, output_specs;

  std::vector<Step> steps;
  std::vector<Patch> input_patches, patches;
  std::vector<StaticArg> statics;
  std::vector<Fresh> fresh;
  std::vector<BufferTensor> buffer_outs, fallbacks;
  std::vector<std::size_t> buffer_offsets, buffer_bytes;
  std::size_t workspace_bytes = 0;
  std::uint32_t num_args = 0, num_outs = 0;
  std::vector<std::uint32_t> dynamic_args, dynamic_outs;  // reset after each run
  std::vector<Result> results;
  std::size_t kernel_steps = 0;

  // Note [Workspace pool]: each concurrent run takes a workspace from this lock-free pool (or
  // makes one when all are taken) and puts it back afterwards; beyond the pool size, extra
  // workspaces are freed. A steady-state run therefore allocates no workspace.
  mutable std::array<std::atomic<Workspace*>, 8> pool{};

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan();

  Workspace* acquire() const;
  void release(Workspace* ws) const noexcept;
  /// Executes under an admitted operation; `results` has one slot per output.
  void execute(ExecContext& ctx, Workspace& ws, std::span<const Tensor> inputs) const;
};

/// Lowers `program` (already optimized) for `inputs`; re-infers every node's specs.
std::shared_ptr<Plan> build_plan(const Program& program, std::span<const ValueSpec> inputs);

/// Makes a workspace for `plan` (buffers, static slots, static views).
Workspace* make_workspace(const Plan& plan);
void destroy_workspace(Workspace* ws) noexcept;
/// The run's outputs, in the workspace until moved out.
std::span<Tensor> workspace_results(Workspace& ws);
/// Makes `t` undefined without zero-filling a temporary.
void clear_tensor(Tensor& t) noexcept;
/// Drops every reference a run left in the workspace (inputs, fresh outputs, dynamic views,
/// results).
void reset_dynamic(const Plan& plan, Workspace& ws) noexcept;

}  // namespace tenferro::detail
