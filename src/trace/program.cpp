// Program as data: specs, printing, structural hashing and equality, interpretation.
#include <cstring>
#include <ostream>

#include "core/alloc.hpp"
#include "core/strided.hpp"
#include "trace/trace_state.hpp"

namespace tenferro {

std::string to_string(const ValueSpec& spec) {
  return dims_to_string(spec.shape) + " " + std::string(dtype_name(spec.dtype));
}

std::string_view ProgramNode::name() const { return primitive->name(); }

std::vector<ValueSpec> Program::value_specs() const {
  std::vector<ValueSpec> s(static_cast<std::size_t>(num_values));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s[static_cast<std::size_t>(inputs[i])] = input_specs[i];
  for (const ProgramConstant& c : constants)
    s[static_cast<std::size_t>(c.id)] = {c.value.shape(), c.value.dtype()};
  for (const ProgramNode& n : nodes)
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      s[static_cast<std::size_t>(n.outputs[k])] = n.specs[k];
  return s;
}

std::vector<ValueSpec> Program::output_specs() const {
  std::vector<ValueSpec> all = value_specs(), out;
  for (ValueId v : outputs) out.push_back(all[static_cast<std::size_t>(v)]);
  return out;
}

namespace {
std::string ids(std::span<const ValueId> v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", %" : "%") + std::to_string(v[i]);
  return s;
}
}  // namespace

std::string Program::to_string() const {
  std::string s = "program(";
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s += (i ? ", %" : "%") + std::to_string(inputs[i]) + ": " + tenferro::to_string(input_specs[i]);
  s += ") {\n";
  for (const ProgramConstant& c : constants)
    s += "  %" + std::to_string(c.id) +
         " = constant : " + tenferro::to_string(ValueSpec{c.value.shape(), c.value.dtype()}) + "\n";
  for (const ProgramNode& n : nodes) {
    s += "  " + ids(n.outputs) + " = " + std::string(n.name()) + "(" + ids(n.inputs) + ")";
    std::string params = n.primitive->params();
    if (!params.empty()) s += " {" + params + "}";
    s += " :";
    for (std::size_t k = 0; k < n.specs.size(); ++k)
      s += (k ? ", " : " ") + tenferro::to_string(n.specs[k]);
    s += "\n";
  }
  return s + "  return " + ids(outputs) + "\n}\n";
}

std::ostream& operator<<(std::ostream& os, const Program& p) { return os << p.to_string(); }

namespace {
struct Hasher {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void bytes(const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 0x100000001b3ull;
  }
  template <class T>
  void pod(T v) {
    bytes(&v, sizeof v);
  }
  void str(std::string_view s) {
    pod(s.size());
    bytes(s.data(), s.size());
  }
  void spec(const ValueSpec& s) {
    pod(s.dtype);
    pod(s.shape.size());
    for (auto d : s.shape) pod(d);
  }
  void id_list(std::span<const ValueId> v) {
    pod(v.size());
    for (ValueId i : v) pod(i);
  }
};

}  // namespace

namespace detail {
std::vector<unsigned char> contiguous_bytes(const Tensor& t) {
  // A constant may be a broadcast view of far more elements than bytes (Note [Byte counts]).
  const std::size_t bytes = checked_bytes(t.numel(), t.dtype(), "trace constant");
  return translate_heap_failure("trace constant", [&] {
    std::vector<unsigned char> b(bytes);
    copy_to_contiguous(t, b.data(), t.dtype());
    return b;
  });
}
}  // namespace detail
using detail::contiguous_bytes;

std::uint64_t Program::fingerprint() const {
  Hasher h;
  h.pod(num_values);
  h.id_list(inputs);
  for (const ValueSpec& s : input_specs) h.spec(s);
  h.pod(constants.size());
  for (const ProgramConstant& c : constants) {
    h.pod(c.id);
    h.spec({c.value.shape(), c.value.dtype()});
    auto b = contiguous_bytes(c.value);
    h.bytes(b.data(), b.size());
  }
  h.pod(nodes.size());
  for (const ProgramNode& n : nodes) {
    h.str(n.name());
    h.pod(n.primitive->params_hash());
    h.id_list(n.inputs);
    h.id_list(n.outputs);
    for (const ValueSpec& s : n.specs) h.spec(s);
  }
  h.id_list(outputs);
  return h.h;
}

bool structurally_equal(const Program& a, const Program& b) {
  if (a.num_values != b.num_values || a.inputs != b.inputs || a.input_specs != b.input_specs ||
      a.outputs != b.outputs || a.constants.size() != b.constants.size() ||
      a.nodes.size() != b.nodes.size())
    return false;
  for (std::size_t i = 0; i < a.constants.size(); ++i) {
    const Tensor &x = a.constants[i].value, &y = b.constants[i].value;
    if (a.constants[i].id != b.constants[i].id || x.dtype() != y.dtype() ||
        !(x.shape() == y.shape()))
      return false;
    if (x.storage().get() == y.storage().get() && x.offset() == y.offset() &&
        x.strides() == y.strides())
      continue;
    if (contiguous_bytes(x) != contiguous_bytes(y)) return false;
  }
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const ProgramNode &x = a.nodes[i], &y = b.nodes[i];
    if (!(x.inputs == y.inputs) || !(x.outputs == y.outputs) || !(x.specs == y.specs) ||
        !(x.primitive == y.primitive || x.primitive->same_as(*y.primitive)))
      return false;
  }
  return true;
}

namespace detail {

void check_args(std::span<const Tensor> args, std::span<const ValueSpec> specs, const char* what) {
  if (args.size() != specs.size())
    throw Error(ErrorKind::InvalidArgument,
                std::string(what) + ": expected " + std::to_string(specs.size()) + " inputs, got " +
                    std::to_string(args.size()) + " (" + describe(args) + ")");
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Tensor& t = args[i];
    if (!t.defined())
      throw Error(ErrorKind::InvalidArgument, std::string(what) + ": input " + std::to_string(i) +
                                                  " is undefined; expected " + to_string(specs[i]));
    if (!(t.shape() == specs[i].shape))
      throw Error(ErrorKind::ShapeMismatch, std::string(what) + ": input " + std::to_string(i) +
                                                " has shape " + dims_to_string(t.shape()) +
                                                "; expected " + to_string(specs[i]) +
                                                " (inputs: " + describe(args) + ")");
    if (t.dtype() != specs[i].dtype)
      throw Error(ErrorKind::DTypeMismatch, std::string(what) + ": input " + std::to_string(i) +
                                                " has dtype " + std::string(dtype_name(t.dtype())) +
                                                "; expected " + to_string(specs[i]) +
                                                " (inputs: " + describe(args) + ")");
  }
}

void interpret_nodes(const Program& p, std::vector<Tensor>& env) {
  TensorList in;
  for (const ProgramNode& n : p.nodes) {
    in.clear();
    for (ValueId v : n.inputs) in.push_back(env[static_cast<std::size_t>(v)]);
    TensorList out = bind(*n.primitive, in);
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      env[static_cast<std::size_t>(n.outputs[k])] = std::move(out[k]);
  }
}

}  // namespace detail

std::vector<Tensor> Program::operator()(std::span<const Tensor> args) const {
  detail::check_args(args, input_specs, "program");
  std::vector<Tensor> env(static_cast<std::size_t>(num_values));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    env[static_cast<std::size_t>(inputs[i])] = args[i];
  for (const ProgramConstant& c : constants) env[static_cast<std::size_t>(c.id)] = c.value;
  detail::interpret_nodes(*this, env);
  std::vector<Tensor> out;
  for (ValueId v : outputs) out.push_back(env[static_cast<std::size_t>(v)]);
  return out;
}

}  // namespace tenferro
