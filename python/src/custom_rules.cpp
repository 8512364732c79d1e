// User-defined derivative rules from Python (docs/python.md, docs/custom-rules.md):
// tenferro.custom_vjp(f, fwd, bwd), tenferro.custom_jvp(f, jvp, vjp=None), tenferro.checkpoint(f),
// each returning a callable CustomFunction. The Python functions become the C++ rules; every
// callback takes the GIL (backward may run them with it released) and the functions are held
// through hold_callable, which drops them with the GIL whichever thread frees the graph.
#include <atomic>
#include <memory>
#include <string>

#include "common.hpp"
#include "krylov_options.hpp"  // hold_callable

namespace tenferro::python {

namespace {

// Whether f returned one tensor (the call then returns a tensor) or a tuple: -1 until known.
using SingleFlag = std::shared_ptr<std::atomic<int>>;

py::tuple tuple_of(std::span<const Tensor> ts) {
  py::tuple t(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) t[i] = ts[i].defined() ? py::cast(ts[i]) : py::none();
  return t;
}

// One tensor, or a tuple/list of tensors (None = an undefined tensor, "zero", when allowed).
std::vector<Tensor> tensors_of(const py::handle& r, const char* who, bool none_is_zero) {
  std::vector<Tensor> out;
  if (py::isinstance<Tensor>(r)) {
    out.push_back(r.cast<Tensor>());
    return out;
  }
  if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r))
    throw py::type_error(std::string(who) +
                         ": expected a tenferro.Tensor or a tuple of tensors, not " +
                         std::string(py::str(py::type::of(r).attr("__name__"))));
  for (py::handle h : r) {
    if (none_is_zero && h.is_none())
      out.emplace_back();
    else
      out.push_back(result_tensor(py::reinterpret_borrow<py::object>(h), who));
  }
  return out;
}

void note_single(const SingleFlag& single, const py::handle& r) {
  single->store(py::isinstance<Tensor>(r) ? 1 : 0);
}

// One tensor when f returned one, else a tuple (cotangents and outputs passed to rules).
py::object like_output(std::span<const Tensor> ts, const SingleFlag& single) {
  if (single->load() == 1 && ts.size() == 1) return py::cast(ts[0]);
  return tuple_of(ts);
}

MultiFn forward_fn(std::shared_ptr<py::object> f, SingleFlag single, const char* who) {
  return [f = std::move(f), single = std::move(single), who](std::span<const Tensor> in) {
    py::gil_scoped_acquire acquire;
    py::object r = (*f)(*tuple_of(in));
    note_single(single, r);
    return tensors_of(r, who, false);
  };
}

struct CustomFunction {
  MultiFn call;
  SingleFlag single;
  std::string name;
};

py::object call_custom(const CustomFunction& self, const py::args& args) {
  std::vector<Tensor> in;
  for (py::handle a : args) in.push_back(asarray(py::reinterpret_borrow<py::object>(a)));
  std::vector<Tensor> out = self.call(in);
  return like_output(out, self.single);
}

CustomFunction make_custom_vjp(py::function f, py::function fwd, py::function bwd,
                               std::string name) {
  auto single = std::make_shared<std::atomic<int>>(-1);
  auto fwd_h = hold_callable(std::move(fwd)), bwd_h = hold_callable(std::move(bwd));
  VjpFwdFn fwd_fn = [fwd_h, single](std::span<const Tensor> in) {
    py::gil_scoped_acquire acquire;
    py::object r = (*fwd_h)(*tuple_of(in));
    if (!py::isinstance<py::tuple>(r) || py::len(r) != 2)
      throw py::type_error("custom_vjp: fwd must return a pair (outputs, residuals)");
    py::tuple pair = r.cast<py::tuple>();
    note_single(single, pair[0]);
    return VjpFwdResult{tensors_of(pair[0], "custom_vjp: fwd outputs", false),
                        tensors_of(pair[1], "custom_vjp: fwd residuals", false)};
  };
  VjpBwdFn bwd_fn = [bwd_h, single](std::span<const Tensor> res, std::span<const Tensor> ct) {
    py::gil_scoped_acquire acquire;
    return tensors_of((*bwd_h)(tuple_of(res), like_output(ct, single)), "custom_vjp: bwd", true);
  };
  CustomVjp rule(forward_fn(hold_callable(std::move(f)), single, "custom_vjp: f"),
                 std::move(fwd_fn), std::move(bwd_fn), name);
  return {MultiFn(std::move(rule)), single, std::move(name)};
}

CustomFunction make_custom_jvp(py::function f, py::function jvp, const py::object& vjp,
                               std::string name) {
  auto single = std::make_shared<std::atomic<int>>(-1);
  auto jvp_h = hold_callable(std::move(jvp));
  JvpRuleFn jvp_fn = [jvp_h](std::span<const Tensor> x, std::span<const Tensor> t) {
    py::gil_scoped_acquire acquire;
    return tensors_of((*jvp_h)(tuple_of(x), tuple_of(t)), "custom_jvp: jvp", true);
  };
  VjpRuleFn vjp_fn;
  if (!vjp.is_none())
    vjp_fn = [vjp_h = hold_callable(vjp), single](
                 std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> ct) {
      py::gil_scoped_acquire acquire;
      return tensors_of((*vjp_h)(tuple_of(x), like_output(y, single), like_output(ct, single)),
                        "custom_jvp: vjp", true);
    };
  CustomJvp rule(forward_fn(hold_callable(std::move(f)), single, "custom_jvp: f"),
                 std::move(jvp_fn), std::move(vjp_fn), name);
  return {MultiFn(std::move(rule)), single, std::move(name)};
}

}  // namespace

void bind_custom_rules(py::module_& m) {
  py::class_<CustomFunction>(m, "CustomFunction",
                             "A function with a user-defined derivative rule (custom_vjp, "
                             "custom_jvp, checkpoint): call it on tensors.")
      .def("__call__", &call_custom)
      .def_property_readonly("name", [](const CustomFunction& c) { return c.name; })
      .def("__repr__", [](const CustomFunction& c) { return "<CustomFunction " + c.name + ">"; });
  m.def("custom_vjp", &make_custom_vjp, "f"_a, "fwd"_a, "bwd"_a, "name"_a = "custom_vjp",
        "JAX's custom_vjp: f(*xs) -> tensor or tuple; fwd(*xs) -> (outputs, residuals); "
        "bwd(residuals, cotangents) -> one cotangent per input (a tensor or a tuple; None = "
        "zero). Reverse mode uses bwd, forward mode differentiates fwd (docs/custom-rules.md).");
  m.def("custom_jvp", &make_custom_jvp, "f"_a, "jvp"_a, "vjp"_a = py::none(),
        "name"_a = "custom_jvp",
        "custom_jvp: f(*xs); jvp(primals, tangents) -> output tangent(s) (tangents only, unlike "
        "JAX's rule); vjp(primals, outputs, cotangents) -> input cotangents, optional: without "
        "it reverse mode raises UnsupportedError.");
  m.def(
      "checkpoint",
      [](py::function f) {
        auto single = std::make_shared<std::atomic<int>>(-1);
        MultiFn g = checkpoint(forward_fn(hold_callable(std::move(f)), single, "checkpoint: f"));
        return CustomFunction{std::move(g), single, "checkpoint"};
      },
      "f"_a,
      "checkpoint(f): f's values; backward recomputes f instead of keeping its intermediates.");
}

}  // namespace tenferro::python
