// Program passes: dead-code elimination (with dense renumbering), shape-only folding and
// common-subexpression elimination. Each returns a new program; the input is not modified.
#include <string>
#include <unordered_map>

#include "primitives/structural_prims.hpp"
#include "trace/trace_state.hpp"

namespace tenferro {
namespace detail {

Program compact(const Program& p) {
  const auto n = static_cast<std::size_t>(p.num_values);
  std::vector<char> live(n, 0);
  for (ValueId v : p.outputs) live[static_cast<std::size_t>(v)] = 1;
  std::vector<char> node_live(p.nodes.size(), 0);
  for (std::size_t i = p.nodes.size(); i-- > 0;) {
    const ProgramNode& node = p.nodes[i];
    for (ValueId v : node.outputs) node_live[i] |= live[static_cast<std::size_t>(v)];
    if (node_live[i])
      for (ValueId v : node.inputs) live[static_cast<std::size_t>(v)] = 1;
  }
  std::vector<int> const_index(n, -1);
  for (std::size_t c = 0; c < p.constants.size(); ++c)
    const_index[static_cast<std::size_t>(p.constants[c].id)] = static_cast<int>(c);

  Program out;
  std::vector<ValueId> map(n, -1);
  auto number = [&](ValueId v) { return map[static_cast<std::size_t>(v)] = out.num_values++; };
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    out.inputs.push_back(number(p.inputs[i]));
    out.input_specs.push_back(p.input_specs[i]);
  }
  // Constants are numbered in order of first use so that printed programs read top-down.
  auto use_constant = [&](ValueId v) {
    int c = const_index[static_cast<std::size_t>(v)];
    if (c < 0 || map[static_cast<std::size_t>(v)] >= 0) return;
    out.constants.push_back({number(v), p.constants[static_cast<std::size_t>(c)].value});
  };
  for (std::size_t i = 0; i < p.nodes.size(); ++i)
    if (node_live[i])
      for (ValueId v : p.nodes[i].inputs) use_constant(v);
  for (ValueId v : p.outputs) use_constant(v);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    if (!node_live[i]) continue;
    ProgramNode node = p.nodes[i];
    for (ValueId& v : node.inputs) v = map[static_cast<std::size_t>(v)];
    for (ValueId& v : node.outputs) v = number(v);
    out.nodes.push_back(std::move(node));
  }
  for (ValueId v : p.outputs) out.outputs.push_back(map[static_cast<std::size_t>(v)]);
  return out;
}

namespace {
bool is_shape_op(std::string_view name) {
  return name == "reshape" || name == "broadcast_to" || name == "permute" || name == "slice";
}
void substitute(SmallVector<ValueId, 4>& ids, const std::vector<ValueId>& subst) {
  for (ValueId& v : ids) v = subst[static_cast<std::size_t>(v)];
}
std::vector<ValueId> identity_map(const Program& p) {
  std::vector<ValueId> s(static_cast<std::size_t>(p.num_values));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<ValueId>(i);
  return s;
}
}  // namespace
}  // namespace detail

using detail::compact;

Program eliminate_dead_code(const Program& p) { return compact(p); }

Program fold_shapes(const Program& p) {
  std::vector<ValueSpec> specs = p.value_specs();
  std::vector<ValueId> subst = detail::identity_map(p);
  std::vector<int> producer(specs.size(), -1);  // index into out.nodes
  Program out = p;
  out.nodes.clear();
  for (ProgramNode node : p.nodes) {
    detail::substitute(node.inputs, subst);
    if (node.inputs.size() == 1 && node.outputs.size() == 1 && detail::is_shape_op(node.name())) {
      auto in = static_cast<std::size_t>(node.inputs[0]);
      // reshape(reshape(x)) == reshape(x); broadcast_to(broadcast_to(x)) == broadcast_to(x):
      // the outer op's target alone determines the result.
      int prod = producer[in];
      if ((node.name() == "reshape" || node.name() == "broadcast_to") && prod >= 0 &&
          out.nodes[static_cast<std::size_t>(prod)].name() == node.name() &&
          out.nodes[static_cast<std::size_t>(prod)].inputs.size() == 1) {
        node.inputs[0] = out.nodes[static_cast<std::size_t>(prod)].inputs[0];
        in = static_cast<std::size_t>(node.inputs[0]);
      }
      // An equal spec means "unchanged" except for a permute that moves axes of equal size and
      // a reversing (negative-step) slice.
      if (specs[in] == node.specs[0] &&
          (node.name() != "permute" ||
           detail::is_identity_permute(*node.primitive, specs[in].shape.size())) &&
          (node.name() != "slice" || detail::is_forward_slice(*node.primitive))) {
        subst[static_cast<std::size_t>(node.outputs[0])] = node.inputs[0];
        continue;
      }
    }
    for (ValueId v : node.outputs)
      producer[static_cast<std::size_t>(v)] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(std::move(node));
  }
  for (ValueId& v : out.outputs) v = subst[static_cast<std::size_t>(v)];
  return compact(out);
}

Program eliminate_common_subexpressions(const Program& p) {
  std::vector<ValueId> subst = detail::identity_map(p);
  Program out = p;
  out.constants.clear();
  out.nodes.clear();
  // Equal constants (same spec and elements) are one value.
  for (const ProgramConstant& c : p.constants) {
    bool merged = false;
    for (const ProgramConstant& k : out.constants) {
      if (k.value.dtype() != c.value.dtype() || !(k.value.shape() == c.value.shape())) continue;
      if (detail::contiguous_bytes(k.value) == detail::contiguous_bytes(c.value)) {
        subst[static_cast<std::size_t>(c.id)] = k.id;
        merged = true;
        break;
      }
    }
    if (!merged) out.constants.push_back(c);
  }
  // Candidates share the hash of (typed params, inputs); same_as decides (Note [Typed params]).
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> seen;
  for (ProgramNode node : p.nodes) {
    detail::substitute(node.inputs, subst);
    detail::KeyHasher key;
    key.add(node.primitive->params_hash());
    for (ValueId v : node.inputs) key.add(static_cast<std::uint64_t>(v));
    std::vector<std::size_t>& candidates = seen[key.h];
    const ProgramNode* same = nullptr;
    for (std::size_t j : candidates) {
      const ProgramNode& c = out.nodes[j];
      if (c.inputs == node.inputs && c.primitive->same_as(*node.primitive)) same = &c;
    }
    if (same) {
      for (std::size_t k = 0; k < node.outputs.size(); ++k)
        subst[static_cast<std::size_t>(node.outputs[k])] = same->outputs[k];
      continue;
    }
    candidates.push_back(out.nodes.size());
    out.nodes.push_back(std::move(node));
  }
  for (ValueId& v : out.outputs) v = subst[static_cast<std::size_t>(v)];
  return compact(out);
}

Program optimize(const Program& p) { return eliminate_common_subexpressions(fold_shapes(p)); }

}  // namespace tenferro
