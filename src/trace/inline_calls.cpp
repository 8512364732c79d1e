// inline_calls(): call nodes become their bodies before planning (Note [Call nodes]).
#include <string>

#include "trace/call_body.hpp"
#include "trace/trace_state.hpp"

namespace tenferro::detail {

namespace {
const CallBody* call_of(const ProgramNode& n) {
  return dynamic_cast<const CallBody*>(n.primitive.get());
}

[[noreturn]] void mismatch(const ProgramNode& n, const std::string& what) {
  throw Error(ErrorKind::RuntimeState, "prepare: the body of call node '" + std::string(n.name()) +
                                           "' " + what +
                                           "; the call's function is not a "
                                           "deterministic function of its input specs");
}
}  // namespace

bool has_calls(const Program& p) {
  for (const ProgramNode& n : p.nodes)
    if (call_of(n)) return true;
  return false;
}

Program inline_calls(const Program& p) {
  Program out;
  out.num_values = p.num_values;
  out.inputs = p.inputs;
  out.input_specs = p.input_specs;
  out.constants = p.constants;
  // A call's outputs are replaced by the values its body computes them as (possibly one of the
  // call's inputs, when the body returns an input); later readers are rewritten through `subst`.
  std::vector<ValueId> subst(static_cast<std::size_t>(p.num_values));
  for (std::size_t v = 0; v < subst.size(); ++v) subst[v] = static_cast<ValueId>(v);
  const std::vector<ValueSpec> specs = p.value_specs();
  for (const ProgramNode& node : p.nodes) {
    ProgramNode n = node;
    for (ValueId& v : n.inputs) v = subst[static_cast<std::size_t>(v)];
    const CallBody* call = call_of(n);
    if (!call) {
      out.nodes.push_back(std::move(n));
      continue;
    }
    std::vector<ValueSpec> in_specs;
    for (ValueId v : node.inputs) in_specs.push_back(specs[static_cast<std::size_t>(v)]);
    const Program body = inline_calls(*call->body(in_specs));  // calls inside calls
    if (body.inputs.size() != n.inputs.size() || body.outputs.size() != n.outputs.size())
      mismatch(n, "has " + std::to_string(body.inputs.size()) + " inputs and " +
                      std::to_string(body.outputs.size()) + " outputs, the node " +
                      std::to_string(n.inputs.size()) + " and " + std::to_string(n.outputs.size()));
    // Body value -> value of `out`: inputs are the call's arguments, the rest get new ids.
    std::vector<ValueId> map(static_cast<std::size_t>(body.num_values), -1);
    for (std::size_t i = 0; i < body.inputs.size(); ++i)
      map[static_cast<std::size_t>(body.inputs[i])] = n.inputs[i];
    for (const ProgramConstant& c : body.constants) {
      map[static_cast<std::size_t>(c.id)] = out.num_values;
      out.constants.push_back({out.num_values++, c.value});
    }
    for (const ProgramNode& b : body.nodes) {
      ProgramNode m = b;
      for (ValueId& v : m.inputs) v = map[static_cast<std::size_t>(v)];
      for (ValueId& v : m.outputs) v = map[static_cast<std::size_t>(v)] = out.num_values++;
      out.nodes.push_back(std::move(m));
    }
    const std::vector<ValueSpec> body_out = body.output_specs();
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (!(body_out[k] == n.specs[k]))
        mismatch(n, "gives output " + std::to_string(k) + " as " + to_string(body_out[k]) +
                        ", the node as " + to_string(n.specs[k]));
      subst[static_cast<std::size_t>(node.outputs[k])] =
          map[static_cast<std::size_t>(body.outputs[k])];
    }
  }
  for (ValueId v : p.outputs) out.outputs.push_back(subst[static_cast<std::size_t>(v)]);
  return out;
}

}  // namespace tenferro::detail
