// build_plan(): lowers an optimized program to steps over one workspace (Note [Plan values]).
#include <algorithm>
#include <limits>

#include "core/alloc.hpp"
#include "trace/call_body.hpp"
#include "trace/plan.hpp"
#include "trace/trace_state.hpp"

namespace tenferro::detail {
namespace {

void no_release(Storage*) noexcept {}

constexpr std::size_t kMaxValueBytes = std::size_t{1} << 60;

// A buffer's byte count (Note [Byte counts]): OutOfMemory naming prepare when not allocatable.
std::size_t spec_bytes(const ValueSpec& s) { return checked_bytes(s.shape, s.dtype, "prepare"); }

// Re-runs every shape rule for `inputs` (which may differ from the traced specs).
void reinfer(Program& p, std::span<const ValueSpec> inputs) {
  if (inputs.size() != p.inputs.size())
    throw Error(ErrorKind::InvalidArgument, "prepare: expected " + std::to_string(p.inputs.size()) +
                                                " input specs, got " +
                                                std::to_string(inputs.size()));
  for (const ValueSpec& s : inputs) check_shape(s.shape, "prepare");
  p.input_specs.assign(inputs.begin(), inputs.end());
  std::vector<Tensor> sym(static_cast<std::size_t>(p.num_values));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    sym[static_cast<std::size_t>(p.inputs[i])] = Tensor::symbolic(inputs[i].shape, inputs[i].dtype);
  for (const ProgramConstant& c : p.constants) sym[static_cast<std::size_t>(c.id)] = c.value;
  TensorList in;
  SpecList specs;
  for (ProgramNode& n : p.nodes) {
    in.clear();
    specs.clear();
    for (ValueId v : n.inputs) in.push_back(sym[static_cast<std::size_t>(v)]);
    infer_specs(*n.primitive, in, specs);
    for (const TensorSpec& s : specs) check_shape(s.shape, n.primitive->name());
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      n.specs[k] = {specs[k].shape, specs[k].dtype};
      sym[static_cast<std::size_t>(n.outputs[k])] =
          Tensor::symbolic(specs[k].shape, specs[k].dtype);
    }
  }
}

enum class Loc : std::uint8_t { input, constant, kernel, view };

// Liveness-based buffer reuse: a buffer is free once the last reader of every value it holds
// (including views aliasing it) has run; a value defined at step s takes the best-fitting free
// buffer, growing the largest one when none fits.
class BufferAllocator {
 public:
  std::uint32_t take(std::size_t bytes, int last) {
    std::int64_t best = -1;
    for (std::size_t i = 0; i < free_.size(); ++i) {
      std::size_t b = sizes_[free_[i]];
      if (best < 0) {
        best = static_cast<std::int64_t>(i);
        continue;
      }
      std::size_t cur = sizes_[free_[static_cast<std::size_t>(best)]];
      bool fits = b >= bytes, cur_fits = cur >= bytes;
      if ((fits && (!cur_fits || b < cur)) || (!fits && !cur_fits && b > cur))
        best = static_cast<std::int64_t>(i);
    }
    std::uint32_t buf;
    if (best >= 0) {
      buf = free_[static_cast<std::size_t>(best)];
      free_.erase(free_.begin() + best);
      sizes_[buf] = std::max(sizes_[buf], bytes);
    } else {
      buf = static_cast<std::uint32_t>(sizes_.size());
      sizes_.push_back(bytes);
    }
    active_.push_back({last, buf});
    return buf;
  }
  void release_before(int step) {
    for (std::size_t i = 0; i < active_.size();) {
      if (active_[i].first < step) {
        free_.push_back(active_[i].second);
        active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
  const std::vector<std::size_t>& sizes() const { return sizes_; }

 private:
  std::vector<std::size_t> sizes_;
  std::vector<std::uint32_t> free_;
  std::vector<std::pair<int, std::uint32_t>> active_;
};

}  // namespace

std::shared_ptr<Plan> build_plan(const Program& program, std::span<const ValueSpec> inputs) {
  auto plan = std::make_shared<Plan>();
  plan->program = program;
  Program& p = plan->program;
  reinfer(p, inputs);
  // Note [Call nodes] (trace/call_body.hpp): custom-rule calls become their bodies, traced at the
  // re-inferred specs; optimize() then drops what only a derivative would read (residuals) and
  // merges a jvp's recomputed forward with the call's.
  if (has_calls(p)) p = optimize(inline_calls(p));
  plan->input_specs = p.input_specs;
  plan->output_specs = p.output_specs();
  std::vector<ValueSpec> spec = p.value_specs();
  // Every value, views and inputs included, must fit the probe layouts of pass 1, whose strides
  // and extents then stay far from overflow (Note [Byte counts]).
  for (const ValueSpec& s : spec) {
    const auto bytes = static_cast<unsigned __int128>(dims_numel(s.shape)) * dtype_size(s.dtype);
    if (bytes > kMaxValueBytes)
      throw_out_of_memory("prepare", "a value of shape " + dims_to_string(s.shape) + " " +
                                         std::string(dtype_name(s.dtype)) +
                                         ": a prepared program's values (inputs and views "
                                         "included) are limited to 2^60 bytes each");
  }

  const auto n = static_cast<std::size_t>(p.num_values);
  std::vector<Loc> loc(n);
  std::vector<std::uint32_t> index(n, 0);
  std::vector<ValueId> root(n), parent(n, -1);
  std::vector<int> def(n, -1);

  // Pass 1: which nodes are views, found by asking try_view() on probe layouts (contiguous for
  // inputs and buffers, the real tensor for constants). A probe storage is never dereferenced.
  Storage probe;
  probe.bytes = kMaxValueBytes;
  probe.release = &no_release;
  std::vector<Tensor> layout(n);
  auto probe_tensor = [&](const ValueSpec& s) {
    probe.refs.fetch_add(1, std::memory_order_relaxed);
    return Tensor::wrap_contiguous_unchecked(StoragePtr(&probe), s.shape, s.dtype);
  };
  // A layout in which no two dimensions can merge: a view that succeeds on it needs no merging
  // and so succeeds on any strides the caller passes (no fallback buffer is reserved for it).
  // Undefined when the shape is too large for such a layout (then no view counts as "always").
  auto scattered_probe = [&](const ValueSpec& s) {
    Dims strides(s.shape.size(), 1);
    for (std::size_t k = s.shape.size(); k-- > 1;)
      if (__builtin_mul_overflow(strides[k], std::max<std::int64_t>(s.shape[k], 1),
                                 &strides[k - 1]) ||
          __builtin_add_overflow(strides[k - 1], 1, &strides[k - 1]))
        return Tensor();
    probe.refs.fetch_add(1, std::memory_order_relaxed);
    StoragePtr storage(&probe);
    try {
      return Tensor(std::move(storage), s.shape, std::move(strides), 0, s.dtype);
    } catch (const Error&) {
      return Tensor();
    }
  };
  std::vector<char> always_view(n, 0);
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    auto v = static_cast<std::size_t>(p.inputs[i]);
    loc[v] = Loc::input;
    index[v] = static_cast<std::uint32_t>(i);
    root[v] = p.inputs[i];
    layout[v] = probe_tensor(spec[v]);
  }
  for (std::size_t c = 0; c < p.constants.size(); ++c) {
    auto v = static_cast<std::size_t>(p.constants[c].id);
    loc[v] = Loc::constant;
    index[v] = static_cast<std::uint32_t>(c);
    root[v] = p.constants[c].id;
    layout[v] = p.constants[c].value;
  }
  for (std::size_t s = 0; s < p.nodes.size(); ++s) {
    const ProgramNode& node = p.nodes[s];
    Plan::Step st;
    st.prim = node.primitive.get();
    st.args = plan->num_args;
    st.nargs = static_cast<std::uint32_t>(node.inputs.size());
    st.outs = plan->num_outs;
    st.nouts = static_cast<std::uint32_t>(node.outputs.size());
    plan->num_args += st.nargs;
    plan->num_outs += st.nouts;
    bool view = false;
    if (node.inputs.size() == 1 && node.outputs.size() == 1) {
      auto in = static_cast<std::size_t>(node.inputs[0]);
      Tensor out;
      if (node.primitive->try_view(layout[in], out)) {
        view = true;
        auto v = static_cast<std::size_t>(node.outputs[0]);
        layout[v] = std::move(out);
        parent[v] = node.inputs[0];
        root[v] = root[in];
        Tensor scattered = scattered_probe(spec[in]), ignored;
        always_view[v] = scattered.defined() && node.primitive->try_view(scattered, ignored);
      }
    }
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      auto v = static_cast<std::size_t>(node.outputs[k]);
      loc[v] = view ? Loc::view : Loc::kernel;
      index[v] = st.outs + static_cast<std::uint32_t>(k);
      def[v] = static_cast<int>(s);
      if (!view) {
        root[v] = node.outputs[k];
        layout[v] = probe_tensor(spec[v]);
      }
    }
    plan->steps.push_back(st);
  }
  layout.clear();

  // Pass 2: output roots are allocated fresh each run; views reaching an output fall back to
  // fresh buffers.
  std::vector<char> fresh(n, 0), reaching(n, 0);
  for (ValueId o : p.outputs) {
    auto v = static_cast<std::size_t>(o);
    for (;;) {
      reaching[v] = 1;
      if (loc[v] != Loc::view) break;
      v = static_cast<std::size_t>(parent[v]);
    }
    if (loc[v] == Loc::kernel) fresh[v] = 1;
  }
  auto dynamic = [&](std::size_t v) {
    auto r = static_cast<std::size_t>(root[v]);
    return loc[r] == Loc::input || fresh[r];
  };
  for (std::size_t s = 0; s < p.nodes.size(); ++s) {
    Plan::Step& st = plan->steps[s];
    auto v = static_cast<std::size_t>(p.nodes[s].outputs.empty() ? 0 : p.nodes[s].outputs[0]);
    if (!p.nodes[s].outputs.empty() && loc[v] == Loc::view)
      st.kind = dynamic(v) ? Plan::StepKind::dynamic_view : Plan::StepKind::static_view;
    if (st.kind == Plan::StepKind::kernel) ++plan->kernel_steps;
  }

  // Pass 3: liveness (a buffer lives until the last reader of it or of any view of it).
  std::vector<int> last(def);
  for (std::size_t s = 0; s < p.nodes.size(); ++s)
    for (ValueId v : p.nodes[s].inputs)
      last[static_cast<std::size_t>(v)] =
          std::max(last[static_cast<std::size_t>(v)], static_cast<int>(s));
  for (std::size_t s = p.nodes.size(); s-- > 0;) {
    if (plan->steps[s].kind == Plan::StepKind::kernel) continue;
    auto v = static_cast<std::size_t>(p.nodes[s].outputs[0]);
    auto par = static_cast<std::size_t>(parent[v]);
    last[par] = std::max(last[par], last[v]);
  }
  BufferAllocator alloc;
  for (std::size_t s = 0; s < p.nodes.size(); ++s) {
    alloc.release_before(static_cast<int>(s));
    Plan::Step& st = plan->steps[s];
    for (ValueId o : p.nodes[s].outputs) {
      auto v = static_cast<std::size_t>(o);
      if (st.kind == Plan::StepKind::kernel && !fresh[v]) {
        plan->buffer_outs.push_back({alloc.take(spec_bytes(spec[v]), last[v]), index[v], spec[v]});
      } else if (st.kind == Plan::StepKind::dynamic_view && !reaching[v] && !always_view[v]) {
        st.fallback = static_cast<std::int32_t>(plan->fallbacks.size());
        plan->fallbacks.push_back({alloc.take(spec_bytes(spec[v]), last[v]),
                                   static_cast<std::uint32_t>(st.fallback), spec[v]});
      }
    }
  }
  constexpr std::size_t kAlign = 64;
  for (std::size_t b : alloc.sizes()) {
    plan->buffer_offsets.push_back(plan->workspace_bytes);
    plan->buffer_bytes.push_back(b);
    const std::size_t padded = checked_add(b, kAlign - 1, "prepare") / kAlign * kAlign;
    plan->workspace_bytes = checked_add(plan->workspace_bytes, padded, "prepare");
  }

  // Pass 4: where each step argument comes from.
  std::vector<std::vector<Plan::Patch>> after(n);  // patches applied once value v exists
  for (std::size_t s = 0; s < p.nodes.size(); ++s) {
    Plan::Step& st = plan->steps[s];
    st.statics_begin = static_cast<std::uint32_t>(plan->statics.size());
    for (std::size_t j = 0; j < p.nodes[s].inputs.size(); ++j) {
      auto v = static_cast<std::size_t>(p.nodes[s].inputs[j]);
      std::uint32_t a = st.args + static_cast<std::uint32_t>(j);
      if (loc[v] == Loc::input) {
        plan->input_patches.push_back({index[v], a});
        plan->dynamic_args.push_back(a);
      } else if (dynamic(v)) {
        after[v].push_back({index[v], a});
        plan->dynamic_args.push_back(a);
      } else {
        plan->statics.push_back({loc[v] == Loc::constant, index[v], a});
      }
    }
    st.statics_end = static_cast<std::uint32_t>(plan->statics.size());
  }
  for (std::size_t s = 0; s < p.nodes.size(); ++s) {
    Plan::Step& st = plan->steps[s];
    for (ValueId o : p.nodes[s].outputs) {
      auto v = static_cast<std::size_t>(o);
      auto begin = static_cast<std::uint32_t>(plan->patches.size());
      plan->patches.insert(plan->patches.end(), after[v].begin(), after[v].end());
      auto end = static_cast<std::uint32_t>(plan->patches.size());
      if (fresh[v]) {
        plan->fresh.push_back({index[v], spec_bytes(spec[v]),
                               make_contiguous_layout(spec[v].shape, spec[v].dtype), begin, end});
        plan->dynamic_outs.push_back(index[v]);
      } else if (st.kind == Plan::StepKind::dynamic_view) {
        st.patches_begin = begin;
        st.patches_end = end;
        plan->dynamic_outs.push_back(index[v]);
      }
    }
  }
  for (ValueId o : p.outputs) {
    auto v = static_cast<std::size_t>(o);
    if (loc[v] == Loc::input)
      plan->results.push_back({Plan::ResultKind::input, index[v]});
    else if (loc[v] == Loc::constant)
      plan->results.push_back({Plan::ResultKind::copy_constant, index[v]});
    else if (dynamic(v))
      plan->results.push_back({Plan::ResultKind::outs, index[v]});
    else  // a static view of a constant: the caller gets its own copy
      plan->results.push_back({Plan::ResultKind::copy_outs, index[v]});
  }
  return plan;
}

}  // namespace tenferro::detail
