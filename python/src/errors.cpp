// tenferro.Error and one subclass per ErrorKind (error.hpp), plus ContractViolation. Each also
// derives from the builtin exception a Python caller would catch for that kind of failure. The
// message is the C++ what(): "<Kind>: <message>".
#include <array>
#include <string>

#include "common.hpp"

namespace tenferro::python {

namespace {

struct KindClass {
  ErrorKind kind;
  const char* name;
  PyObject* builtin;  // the builtin exception it also derives from
};

PyObject* g_error = nullptr;
PyObject* g_contract_violation = nullptr;
std::array<PyObject*, 8> g_kind_classes{};

PyObject* new_exception(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  std::string qualified = std::string("tenferro.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (cls == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(cls));  // the module keeps a reference (never released)
  return cls;
}

}  // namespace

void bind_errors(py::module_& m) {
  g_error = new_exception(m, "Error", py::make_tuple(py::handle(PyExc_Exception)),
                          "Base of every tenferro error (C++ tenferro::Error).");
  const KindClass kinds[] = {
      {ErrorKind::InvalidArgument, "InvalidArgumentError", PyExc_ValueError},
      {ErrorKind::ShapeMismatch, "ShapeMismatchError", PyExc_ValueError},
      {ErrorKind::DTypeMismatch, "DTypeMismatchError", PyExc_TypeError},
      {ErrorKind::RuntimeState, "RuntimeStateError", PyExc_RuntimeError},
      {ErrorKind::Unsupported, "UnsupportedError", PyExc_NotImplementedError},
      {ErrorKind::BackendFailure, "BackendFailureError", PyExc_RuntimeError},
      {ErrorKind::OutOfMemory, "OutOfMemoryError", PyExc_MemoryError},
      {ErrorKind::LinAlgError, "LinAlgError", PyExc_ValueError},
  };
  for (const KindClass& k : kinds) {
    std::string doc =
        std::string("tenferro::Error of kind ") + std::string(to_string(k.kind)) + ".";
    PyObject* cls = new_exception(
        m, k.name, py::make_tuple(py::handle(g_error), py::handle(k.builtin)), doc.c_str());
    py::handle(cls).attr("kind") = std::string(to_string(k.kind));
    g_kind_classes[static_cast<std::size_t>(k.kind)] = cls;
  }
  g_contract_violation = new_exception(
      m, "ContractViolation", py::make_tuple(py::handle(g_error), py::handle(PyExc_RuntimeError)),
      "Misuse of an infallible entry point (C++ tenferro::ContractViolation), e.g. a session "
      "inside a session. Everything stays usable.");
  py::handle(g_contract_violation).attr("kind") = std::string("ContractViolation");
  py::handle(g_error).attr("kind") = py::none();  // the subclasses name theirs
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* cls = g_kind_classes[static_cast<std::size_t>(e.kind())];
      PyErr_SetString(cls != nullptr ? cls : g_error, e.what());
    } catch (const ContractViolation& e) {
      PyErr_SetString(g_contract_violation, e.what());
    } catch (const py::cast_error& e) {
      // An argument of the wrong Python type that pybind11 could not convert: TypeError, as
      // NumPy and the docs say (pybind11 itself reports a cast_error as RuntimeError).
      PyErr_SetString(PyExc_TypeError, e.what());
    }
  });
}

}  // namespace tenferro::python
