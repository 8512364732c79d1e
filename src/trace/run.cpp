// Running a plan: workspaces (Note [Workspace pool]) and the step loop (Note [Plan values]).
#include <new>

#include "core/alloc.hpp"
#include "core/strided.hpp"
#include "trace/plan.hpp"

namespace tenferro::detail {

namespace {
void no_release(Storage*) noexcept {}

// A tensor on a workspace buffer: the storage header belongs to the workspace, so taking a
// reference allocates nothing and dropping the last one frees nothing.
Tensor on_header(Storage& h, const ValueSpec& s) {
  h.refs.fetch_add(1, std::memory_order_relaxed);
  return Tensor::wrap_contiguous_unchecked(StoragePtr(&h), s.shape, s.dtype);
}

Tensor allocate_output(ExecContext& ctx, const ValueSpec& s) {
  const std::size_t bytes = checked_bytes(s.shape, s.dtype, "run");
  return Tensor::wrap_contiguous_unchecked(
      StoragePtr(translate_heap_failure("run", [&] { return ctx.allocate(bytes); })), s.shape,
      s.dtype);
}
}  // namespace

struct Workspace {
  static constexpr std::size_t kAlign = 64;
  void* block = nullptr;
  std::unique_ptr<Storage[]> headers;
  // Declared after the block and headers: destroyed first.
  std::vector<Tensor> args, outs, fallbacks, results;

  ~Workspace() {
    args.clear();
    outs.clear();
    fallbacks.clear();
    results.clear();
    ::operator delete (block, std::align_val_t{kAlign});
  }
};

Workspace* make_workspace(const Plan& plan) {
  auto ws = std::make_unique<Workspace>();
  if (plan.workspace_bytes > allocation_limit())  // Note [Byte counts]
    throw_out_of_memory("run", "a workspace of " + std::to_string(plan.workspace_bytes) +
                                   " bytes: more than the largest allocation of " +
                                   std::to_string(allocation_limit()) + " bytes");
  ws->block = translate_heap_failure("run", [&] {
    return ::operator new (std::max<std::size_t>(plan.workspace_bytes, Workspace::kAlign),
                           std::align_val_t{Workspace::kAlign});
  });
  ws->headers = std::make_unique<Storage[]>(plan.buffer_offsets.size());
  for (std::size_t b = 0; b < plan.buffer_offsets.size(); ++b) {
    Storage& h = ws->headers[b];
    h.data = static_cast<char*>(ws->block) + plan.buffer_offsets[b];
    h.bytes = plan.buffer_bytes[b];
    h.release = &no_release;
  }
  ws->args.resize(plan.num_args);
  ws->outs.resize(plan.num_outs);
  ws->fallbacks.resize(plan.fallbacks.size());
  ws->results.resize(plan.results.size());
  for (const Plan::BufferTensor& b : plan.buffer_outs)
    ws->outs[b.slot] = on_header(ws->headers[b.buffer], b.spec);
  for (const Plan::BufferTensor& b : plan.fallbacks)
    ws->fallbacks[b.slot] = on_header(ws->headers[b.buffer], b.spec);
  for (const Plan::Step& st : plan.steps) {
    for (std::uint32_t i = st.statics_begin; i < st.statics_end; ++i) {
      const Plan::StaticArg& a = plan.statics[i];
      ws->args[a.dst] = a.constant ? plan.program.constants[a.src].value : ws->outs[a.src];
    }
    if (st.kind == Plan::StepKind::static_view &&
        !st.prim->try_view(ws->args[st.args], ws->outs[st.outs]))
      throw Error(ErrorKind::BackendFailure, std::string(st.prim->name()) +
                                                 ": a view planned at prepare time could not be "
                                                 "made on the workspace");
  }
  return ws.release();
}

void destroy_workspace(Workspace* ws) noexcept { delete ws; }

std::span<Tensor> workspace_results(Workspace& ws) { return ws.results; }

void clear_tensor(Tensor& t) noexcept {
  // Default-initialised, not value-initialised: Tensor() would zero all ~190 bytes first.
  Tensor undefined;
  t = std::move(undefined);
}

void reset_dynamic(const Plan& plan, Workspace& ws) noexcept {
  for (std::uint32_t a : plan.dynamic_args) clear_tensor(ws.args[a]);
  for (std::uint32_t o : plan.dynamic_outs) clear_tensor(ws.outs[o]);
  for (Tensor& t : ws.results) clear_tensor(t);
}

Plan::~Plan() {
  for (auto& slot : pool) destroy_workspace(slot.exchange(nullptr));
}

Workspace* Plan::acquire() const {
  for (auto& slot : pool)
    if (slot.load(std::memory_order_relaxed))
      if (Workspace* ws = slot.exchange(nullptr, std::memory_order_acquire)) return ws;
  return make_workspace(*this);
}

void Plan::release(Workspace* ws) const noexcept {
  for (auto& slot : pool) {
    Workspace* expected = nullptr;
    if (slot.compare_exchange_strong(expected, ws, std::memory_order_release)) return;
  }
  destroy_workspace(ws);
}

void Plan::execute(ExecContext& ctx, Workspace& ws, std::span<const Tensor> inputs) const {
  Tensor* args = ws.args.data();
  Tensor* outs = ws.outs.data();
  for (const Patch& pt : input_patches) args[pt.dst] = inputs[pt.src];
  for (const Fresh& f : fresh) {
    outs[f.out].set_layout_unchecked(
        StoragePtr(translate_heap_failure("run", [&] { return ctx.allocate(f.bytes); })), f.layout);
    for (std::uint32_t i = f.patches_begin; i < f.patches_end; ++i)
      args[patches[i].dst] = outs[patches[i].src];
  }
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const Step& st = steps[s];
    std::span<const Tensor> in(args + st.args, st.nargs);
    std::span<Tensor> out(outs + st.outs, st.nouts);
    switch (st.kind) {
      case StepKind::static_view:
        continue;
      case StepKind::kernel:  // a kernel's temporaries: Note [Byte counts]
        translate_heap_failure(st.prim->name(), [&] { st.prim->execute(ctx, in, out); });
        break;
      case StepKind::dynamic_view:
        if (!st.prim->try_view(in[0], out[0])) {
          // The caller's strides do not allow a view: compute the copy instead.
          out[0] = st.fallback >= 0 ? ws.fallbacks[static_cast<std::size_t>(st.fallback)]
                                    : allocate_output(ctx, program.nodes[s].specs[0]);
          translate_heap_failure(st.prim->name(), [&] { st.prim->execute(ctx, in, out); });
        }
        for (std::uint32_t i = st.patches_begin; i < st.patches_end; ++i)
          args[patches[i].dst] = outs[patches[i].src];
        break;
    }
  }
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& r = results[k];
    Tensor& dst = ws.results[k];
    switch (r.kind) {
      case ResultKind::input:
        dst = inputs[r.src];
        dst.set_aux(nullptr);
        break;
      case ResultKind::outs:
        dst = outs[r.src];
        break;
      case ResultKind::copy_constant:
      case ResultKind::copy_outs: {
        const Tensor& src =
            r.kind == ResultKind::copy_outs ? outs[r.src] : program.constants[r.src].value;
        dst = allocate_output(ctx, output_specs[k]);
        copy_to_contiguous(src, dst.data_ptr(), dst.dtype());
        break;
      }
    }
  }
}

}  // namespace tenferro::detail
