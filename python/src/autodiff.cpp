// Autodiff: the functional transforms of Python callables (grad, value_and_grad, vjp, jvp, hvp;
// the JAX-style wrappers with argnums are in tenferro/__init__.py), grad mode, and backward.
// The Python function is called back with the GIL held (Note [GIL policy]): the wrappers release
// the GIL around the C++ transform when the policy says so (large inputs, or a scope held by
// another Python thread, whose permit the backward pass may wait for), and every callback takes
// it again before touching Python.
#include <memory>
#include <string>

#include "common.hpp"

namespace tenferro::python {

Tensor result_tensor(const py::object& r, const char* who) {
  if (!py::isinstance<Tensor>(r))
    throw py::type_error(std::string(who) + ": the function must return a tenferro.Tensor, not " +
                         std::string(py::str(py::type::of(r).attr("__name__"))));
  return r.cast<Tensor>();
}

namespace {

py::list to_list(std::span<const Tensor> ts) {
  py::list l;
  for (const Tensor& t : ts) l.append(py::cast(t));
  return l;
}

/// fn(list of tensors) -> Tensor, as a C++ ScalarFn (owns a reference to fn).
ScalarFn scalar_fn(py::function fn, const char* who) {
  return [fn = std::move(fn), who](std::span<const Tensor> in) -> Tensor {
    py::gil_scoped_acquire acquire;
    return result_tensor(fn(to_list(in)), who);
  };
}

/// f() with the GIL released when Note [GIL policy] says so for `inputs`; f may call back into
/// Python only through callbacks that acquire the GIL (scalar_fn, multi_fn).
template <class F>
decltype(auto) transform(F&& f, const std::vector<Tensor>& inputs) {
  return call([&](const std::vector<Tensor>&) { return f(); }, inputs);
}

/// fn(list of tensors) -> Tensor or sequence of tensors, as a C++ MultiFn.
MultiFn multi_fn(py::function fn, const char* who) {
  return [fn = std::move(fn), who](std::span<const Tensor> in) -> std::vector<Tensor> {
    py::gil_scoped_acquire acquire;
    py::object r = fn(to_list(in));
    std::vector<Tensor> out;
    if (py::isinstance<Tensor>(r)) {
      out.push_back(r.cast<Tensor>());
    } else if (py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r)) {
      for (py::handle h : r)
        out.push_back(result_tensor(py::reinterpret_borrow<py::object>(h), who));
    } else {
      result_tensor(r, who);  // throws the TypeError
    }
    return out;
  };
}

/// A context manager setting grad mode on this thread (GradModeGuard is thread-bound).
struct GradMode {
  bool enabled;
  std::unique_ptr<GradModeGuard> guard;
};

}  // namespace

void bind_autodiff(py::module_& m) {
  m.def(
      "_grad",
      [](py::function f, const std::vector<Tensor>& inputs) {
        ScalarFn fn = scalar_fn(std::move(f), "grad");
        return transform([&] { return grad(fn, std::span<const Tensor>(inputs)); }, inputs);
      },
      "f"_a, "inputs"_a,
      "C++ grad(f, inputs): f takes a list of tensors and returns a real one-element tensor.");
  m.def(
      "_value_and_grad",
      [](py::function f, const std::vector<Tensor>& inputs) {
        ScalarFn fn = scalar_fn(std::move(f), "value_and_grad");
        ValueAndGrad r =
            transform([&] { return value_and_grad(fn, std::span<const Tensor>(inputs)); }, inputs);
        return py::make_tuple(r.value, r.grads);
      },
      "f"_a, "inputs"_a);
  py::class_<Pullback>(m, "Pullback",
                       "The reverse-mode linear map of one evaluation (holds the graph).")
      .def(
          "__call__",
          [](const Pullback& p, const std::vector<Tensor>& cts) {
            return call([&](const std::vector<Tensor>& c) { return p(std::span<const Tensor>(c)); },
                        cts);
          },
          "cotangents"_a);
  m.def(
      "_vjp",
      [](py::function f, const std::vector<Tensor>& primals) {
        MultiFn fn = multi_fn(std::move(f), "vjp");
        VjpResult r = transform([&] { return vjp(fn, std::span<const Tensor>(primals)); }, primals);
        return py::make_tuple(r.outputs, r.pullback);
      },
      "f"_a, "primals"_a);
  m.def(
      "_jvp",
      [](py::function f, const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents) {
        MultiFn fn = multi_fn(std::move(f), "jvp");
        JvpResult r = transform(
            [&] {
              return jvp(fn, std::span<const Tensor>(primals), std::span<const Tensor>(tangents));
            },
            primals);
        return py::make_tuple(r.outputs, r.tangents);
      },
      "f"_a, "primals"_a, "tangents"_a);
  m.def(
      "_hvp",
      [](py::function f, const std::vector<Tensor>& primals, const std::vector<Tensor>& v) {
        ScalarFn fn = scalar_fn(std::move(f), "hvp");
        return transform(
            [&] { return hvp(fn, std::span<const Tensor>(primals), std::span<const Tensor>(v)); },
            primals);
      },
      "f"_a, "primals"_a, "v"_a);

  m.def(
      "_jacobian",
      [](py::function f, const std::vector<Tensor>& inputs, const std::string& mode) {
        ScalarFn fn = scalar_fn(std::move(f), mode == "rev" ? "jacrev" : "jacfwd");
        return transform(
            [&] {
              std::span<const Tensor> in(inputs);
              return mode == "rev" ? jacrev(fn, in) : jacfwd(fn, in);
            },
            inputs);
      },
      "f"_a, "inputs"_a, "mode"_a);
  m.def(
      "_hessian",
      [](py::function f, const std::vector<Tensor>& inputs) {
        ScalarFn fn = scalar_fn(std::move(f), "hessian");
        return transform([&] { return hessian(fn, std::span<const Tensor>(inputs)); }, inputs);
      },
      "f"_a, "inputs"_a);

  m.def(
      "backward",
      [](const py::object& outputs, const py::object& cotangents, bool retain_graph,
         bool create_graph) {
        BackwardOptions o{.retain_graph = retain_graph, .create_graph = create_graph};
        if (py::isinstance<Tensor>(outputs)) {
          const Tensor& out = outputs.cast<const Tensor&>();
          if (cotangents.is_none()) return call([&](const Tensor& t) { backward(t, o); }, out);
          Tensor ct = asarray(cotangents);
          return call([&](const Tensor& t, const Tensor& c) { backward(t, c, o); }, out, ct);
        }
        auto outs = outputs.cast<std::vector<Tensor>>();
        auto cts = cotangents.cast<std::vector<Tensor>>();
        call(
            [&](const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
              backward(std::span<const Tensor>(a), std::span<const Tensor>(b), o);
            },
            outs, cts);
      },
      "outputs"_a, "cotangents"_a = py::none(), "retain_graph"_a = false, "create_graph"_a = false);
  m.def(
      "zero_grad", [](const Tensor& x) { zero_grad(x); }, "x"_a);
  m.def(
      "detach", [](const Tensor& x) { return detach(x); }, "x"_a);
  m.def(
      "is_leaf", [](const Tensor& x) { return is_leaf(x); }, "x"_a);
  m.def("is_grad_enabled", &is_grad_enabled);

  py::class_<GradMode>(m, "_GradMode")
      .def("__enter__",
           [](GradMode& g) {
             if (g.guard) throw Error(ErrorKind::RuntimeState, "grad mode context entered twice");
             g.guard = std::make_unique<GradModeGuard>(g.enabled);
           })
      .def("__exit__", [](GradMode& g, py::args) {
        g.guard.reset();
        return false;
      });
  m.def(
      "no_grad",
      [] {
        return GradMode{false, nullptr};
      },
      "Context manager: ops on this thread do not record (NoGradGuard).");
  m.def(
      "enable_grad",
      [] {
        return GradMode{true, nullptr};
      },
      "Context manager: ops on this thread record (GradModeGuard(true)).");
  m.def(
      "set_grad_enabled",
      [](bool on) {
        return GradMode{on, nullptr};
      },
      "enabled"_a);
}

}  // namespace tenferro::python
