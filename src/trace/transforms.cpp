// Program transforms by re-tracing (Note [Transforms re-trace]): the source program is
// interpreted on traced tensors, and the derivative rules of each primitive (written with public
// ops) are applied to traced tensors too, so the derivative is captured as a new program. Because
// the results are ordinary programs, transforms compose: jvp(grad(p)) is forward-over-reverse.
#include <string>

#include "trace/trace_state.hpp"

namespace tenferro {
namespace detail {
namespace {

// TODO(merge ops-elementwise): becomes tenferro::add once the elementwise family lands.
Tensor accumulate_sum(const Tensor& a, const Tensor&) {
  throw Error(ErrorKind::Unsupported,
              "trace transforms: accumulating cotangents needs add (elementwise family) for " +
                  describe(std::span<const Tensor>(&a, 1)));
}

// acc += x, where undefined means zero.
void accumulate(Tensor& acc, const Tensor& x) {
  if (!x.defined()) return;
  if (!acc.defined()) {
    acc = x;
    return;
  }
  acc = accumulate_sum(acc, x);
}

Tensor zeros_like_spec(const ValueSpec& s) { return zeros(s.shape, s.dtype); }

// Forward values of every program value, for programs whose inputs are `primals`.
std::vector<Tensor> forward_env(const Program& p, std::span<const Tensor> primals) {
  std::vector<Tensor> env(static_cast<std::size_t>(p.num_values));
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    env[static_cast<std::size_t>(p.inputs[i])] = primals[i];
  for (const ProgramConstant& c : p.constants) env[static_cast<std::size_t>(c.id)] = c.value;
  interpret_nodes(p, env);
  return env;
}

// Which values depend on a program input (only those carry derivatives).
std::vector<char> active_values(const Program& p) {
  std::vector<char> active(static_cast<std::size_t>(p.num_values), 0);
  for (ValueId v : p.inputs) active[static_cast<std::size_t>(v)] = 1;
  for (const ProgramNode& n : p.nodes) {
    bool a = false;
    for (ValueId v : n.inputs) a = a || active[static_cast<std::size_t>(v)];
    a = a && n.primitive->differentiable();
    for (ValueId v : n.outputs) active[static_cast<std::size_t>(v)] = a;
  }
  return active;
}

// Cotangent of every program input given output cotangents (undefined = zero).
std::vector<Tensor> reverse_pass(const Program& p, const std::vector<Tensor>& env,
                                 std::span<const Tensor> out_cts) {
  std::vector<char> active = active_values(p);
  std::vector<Tensor> ct(static_cast<std::size_t>(p.num_values));
  for (std::size_t k = 0; k < p.outputs.size(); ++k)
    accumulate(ct[static_cast<std::size_t>(p.outputs[k])], out_cts[k]);
  TensorList primals, outs, cts, in_ct;
  SmallVector<bool, 4> needs;
  for (std::size_t i = p.nodes.size(); i-- > 0;) {
    const ProgramNode& n = p.nodes[i];
    if (!n.primitive->differentiable()) continue;
    bool any_ct = false, any_need = false;
    cts.clear();
    outs.clear();
    for (ValueId v : n.outputs) {
      cts.push_back(ct[static_cast<std::size_t>(v)]);
      outs.push_back(env[static_cast<std::size_t>(v)]);
      any_ct = any_ct || cts.back().defined();
    }
    primals.clear();
    needs.clear();
    for (ValueId v : n.inputs) {
      primals.push_back(env[static_cast<std::size_t>(v)]);
      needs.push_back(active[static_cast<std::size_t>(v)] != 0);
      any_need = any_need || needs.back();
    }
    if (!any_ct || !any_need) continue;
    in_ct.assign(n.inputs.size(), Tensor());
    n.primitive->vjp(primals, outs, cts, needs, in_ct);
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (needs[k]) accumulate(ct[static_cast<std::size_t>(n.inputs[k])], in_ct[k]);
  }
  std::vector<Tensor> result;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const Tensor& c = ct[static_cast<std::size_t>(p.inputs[i])];
    result.push_back(c.defined() ? c : zeros_like_spec(p.input_specs[i]));
  }
  return result;
}

}  // namespace
}  // namespace detail

using detail::forward_env;
using detail::reverse_pass;
using detail::zeros_like_spec;

Program vjp(const Program& p) {
  std::vector<ValueSpec> specs = p.input_specs, outs = p.output_specs();
  specs.insert(specs.end(), outs.begin(), outs.end());
  const std::size_t n = p.inputs.size();
  return optimize(trace(
      [&](std::span<const Tensor> xs) {
        std::vector<Tensor> env = forward_env(p, xs.first(n));
        return reverse_pass(p, env, xs.subspan(n));
      },
      specs));
}

Program grad(const Program& p, std::span<const int> wrt) {
  std::vector<ValueSpec> outs = p.output_specs();
  if (outs.size() != 1 || dims_numel(outs[0].shape) != 1)
    throw Error(ErrorKind::InvalidArgument,
                "grad: the program must have exactly one output with one element; it has " +
                    std::to_string(outs.size()) + " outputs" +
                    (outs.empty() ? std::string() : " (first: " + to_string(outs[0]) + ")") +
                    "; use vjp() for other programs");
  std::vector<int> chosen(wrt.begin(), wrt.end());
  if (chosen.empty())
    for (std::size_t i = 0; i < p.inputs.size(); ++i) chosen.push_back(static_cast<int>(i));
  for (int i : chosen)
    if (i < 0 || static_cast<std::size_t>(i) >= p.inputs.size())
      throw Error(ErrorKind::InvalidArgument, "grad: wrt index " + std::to_string(i) +
                                                  " is out of range for a program with " +
                                                  std::to_string(p.inputs.size()) + " inputs");
  return optimize(trace(
      [&](std::span<const Tensor> xs) {
        std::vector<Tensor> env = forward_env(p, xs);
        Tensor seed = ones(outs[0].shape, outs[0].dtype);
        std::vector<Tensor> cts = reverse_pass(p, env, std::span<const Tensor>(&seed, 1));
        std::vector<Tensor> result;
        for (int i : chosen) result.push_back(cts[static_cast<std::size_t>(i)]);
        return result;
      },
      p.input_specs));
}

Program grad(const Program& p, std::initializer_list<int> wrt) {
  return grad(p, std::span<const int>(wrt.begin(), wrt.size()));
}

Program jvp(const Program& p) {
  std::vector<ValueSpec> specs = p.input_specs;
  specs.insert(specs.end(), p.input_specs.begin(), p.input_specs.end());
  const std::size_t n = p.inputs.size();
  std::vector<ValueSpec> value_specs = p.value_specs();
  return optimize(trace(
      [&](std::span<const Tensor> xs) {
        std::vector<Tensor> env(static_cast<std::size_t>(p.num_values)), tan(env.size());
        for (std::size_t i = 0; i < n; ++i) {
          env[static_cast<std::size_t>(p.inputs[i])] = xs[i];
          tan[static_cast<std::size_t>(p.inputs[i])] = xs[n + i];
        }
        for (const ProgramConstant& c : p.constants) env[static_cast<std::size_t>(c.id)] = c.value;
        detail::TensorList in, tin, out_t;
        for (const ProgramNode& node : p.nodes) {
          in.clear();
          tin.clear();
          bool any = false;
          for (ValueId v : node.inputs) {
            in.push_back(env[static_cast<std::size_t>(v)]);
            tin.push_back(tan[static_cast<std::size_t>(v)]);
            any = any || tin.back().defined();
          }
          detail::TensorList out = detail::bind(*node.primitive, in);
          if (any && node.primitive->differentiable()) {
            out_t.assign(node.outputs.size(), Tensor());
            node.primitive->jvp(in, out, tin, out_t);
            for (std::size_t k = 0; k < node.outputs.size(); ++k)
              tan[static_cast<std::size_t>(node.outputs[k])] = out_t[k];
          }
          for (std::size_t k = 0; k < node.outputs.size(); ++k)
            env[static_cast<std::size_t>(node.outputs[k])] = out[k];
        }
        std::vector<Tensor> result;
        for (ValueId v : p.outputs) result.push_back(env[static_cast<std::size_t>(v)]);
        for (ValueId v : p.outputs) {
          const Tensor& t = tan[static_cast<std::size_t>(v)];
          result.push_back(t.defined() ? t
                                       : zeros_like_spec(value_specs[static_cast<std::size_t>(v)]));
        }
        return result;
      },
      specs));
}

}  // namespace tenferro
