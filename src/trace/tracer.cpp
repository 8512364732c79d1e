// The tracer: the third interpreter of the catalog (Note [One catalog, three interpreters]).
// It runs only shape rules and appends nodes (Note [Traced tensors] in trace_state.hpp).
#include <string>

#include "core/alloc.hpp"
#include "primitives/interpreters.hpp"
#include "trace/trace_state.hpp"

namespace tenferro {
namespace detail {

Tensor make_traced(const std::shared_ptr<TraceState>& state, ValueId id, const ValueSpec& spec) {
  Tensor t = Tensor::symbolic(spec.shape, spec.dtype);
  auto aux = std::make_shared<TensorAux>();
  aux->trace = state;
  aux->trace_value = id;
  t.set_aux(std::move(aux));
  return t;
}

Tensor strip_aux(const Tensor& t) {
  Tensor c = t;
  c.set_aux(nullptr);
  return c;
}

ValueId TraceState::value_of(const Tensor& t) {
  if (trace_of(t) == this) return static_cast<ValueId>(t.aux()->trace_value);
  // A concrete tensor: the same view of the same storage is one constant.
  for (const ProgramConstant& c : program.constants) {
    const Tensor& v = c.value;
    if (v.storage().get() == t.storage().get() && v.offset() == t.offset() &&
        v.dtype() == t.dtype() && v.shape() == t.shape() && v.strides() == t.strides())
      return c.id;
  }
  ValueId id = new_value({t.shape(), t.dtype()});
  program.constants.push_back({id, strip_aux(t)});
  return id;
}

namespace {
// The open trace all traced inputs belong to; throws when they disagree or the trace is over.
std::shared_ptr<TraceState> owning_trace(const Primitive& p, std::span<const Tensor> in) {
  const std::shared_ptr<TraceBase>* found = nullptr;
  for (const Tensor& t : in) {
    const TensorAux* a = t.aux().get();
    if (!a || !a->trace) continue;
    if (found && found->get() != a->trace.get())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(p.name()) + ": inputs belong to different traces (inputs: " +
                      describe(in) + "); nested traces cannot share traced tensors");
    found = &a->trace;
  }
  // Only trace() creates trace blocks, and always from a TraceState (Note [Core hooks]).
  std::shared_ptr<TraceState> state = std::static_pointer_cast<TraceState>(*found);
  if (!state->open)
    throw Error(ErrorKind::RuntimeState,
                std::string(p.name()) +
                    ": a traced tensor was used after its trace() returned "
                    "(inputs: " +
                    describe(in) +
                    "); traced tensors have no "
                    "values, run the program instead");
  return state;
}
}  // namespace

TensorList trace_apply(const Primitive& p, std::span<const Tensor> in) {
  const std::shared_ptr<TraceState> state = owning_trace(p, in);
  SpecList specs;
  infer_specs(p, in, specs);  // first, so that a shape error leaves the program unchanged
  for (const TensorSpec& s : specs) check_shape(s.shape, p.name());  // e.g. > INT64_MAX elements
  ProgramNode node;
  node.primitive = p.share();
  for (const Tensor& t : in) node.inputs.push_back(state->value_of(t));
  TensorList out;
  for (TensorSpec& s : specs) {
    ValueSpec spec{std::move(s.shape), s.dtype};
    ValueId id = state->new_value(spec);
    node.outputs.push_back(id);
    out.push_back(make_traced(state, id, spec));
    node.specs.push_back(std::move(spec));
  }
  state->program.nodes.push_back(std::move(node));
  return out;
}

Program trace_impl(TraceFn fn, std::span<const ValueSpec> inputs) {
  auto state = std::make_shared<TraceState>();
  std::vector<Tensor> args;
  args.reserve(inputs.size());
  for (const ValueSpec& s : inputs) check_shape(s.shape, "trace");
  for (const ValueSpec& s : inputs) {
    ValueId id = state->new_value(s);
    state->program.inputs.push_back(id);
    state->program.input_specs.push_back(s);
    args.push_back(make_traced(state, id, s));
  }
  struct Close {
    TraceState& s;
    ~Close() { s.open = false; }
  } close{*state};
  std::vector<Tensor> results = fn.call(fn.object, args);
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Tensor& r = results[k];
    if (!r.defined())
      throw Error(ErrorKind::InvalidArgument,
                  "trace: output " + std::to_string(k) + " of the traced function is undefined");
    TraceState* owner = trace_of(r);
    if (owner && owner != state.get())
      throw Error(ErrorKind::InvalidArgument,
                  "trace: output " + std::to_string(k) + " belongs to a different trace");
    if (!owner && !r.has_storage())
      throw Error(ErrorKind::InvalidArgument,
                  "trace: output " + std::to_string(k) + " is symbolic but not traced");
    state->program.outputs.push_back(state->value_of(r));
  }
  return std::move(state->program);
}

}  // namespace detail
}  // namespace tenferro
