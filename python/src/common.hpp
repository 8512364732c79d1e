// Shared pieces of the Python binding (docs/python.md): the GIL policy, dtype and axis
// conversions, and the per-area bind functions the module calls.
//
// Note [GIL policy]: a wrapper releases the GIL around the C++ call when the operands hold at
// least kReleaseElements elements in total, or when some Python thread is inside a tenferro
// execution scope on another thread (an op outside that scope may then wait for the scope's
// permit, and must not wait holding the GIL the scope's Python callback needs). Below the
// threshold releasing costs more than the op. Python callbacks (grad of a Python function, scope
// bodies, traced functions) are called with the GIL held: a wrapper that releases it around a C++
// call that calls back (the autodiff transforms, with_execution_scope) takes it again in the
// callback (py::gil_scoped_acquire) before touching Python; trace() keeps it throughout.
#pragma once

#include <pybind11/complex.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tenferro/tenferro.hpp"

namespace tenferro::python {

namespace py = pybind11;
using namespace pybind11::literals;

inline constexpr std::int64_t kReleaseElements = 4096;

/// Number of Python threads inside a scope entered from Python (Note [GIL policy]).
std::atomic<int>& scopes_active();
/// True while this thread runs the body of a scope it entered from Python.
bool& in_python_scope();

inline std::int64_t elements_of(const Tensor& t) { return t.defined() ? t.numel() : 0; }
inline std::int64_t elements_of(const std::vector<Tensor>& ts) {
  std::int64_t n = 0;
  for (const Tensor& t : ts) n += elements_of(t);
  return n;
}
template <class T>
std::int64_t elements_of(const T&) {
  return 0;
}

inline bool should_release(std::int64_t elements) {
  if (elements >= kReleaseElements) return true;
  return scopes_active().load(std::memory_order_relaxed) > 0 && !in_python_scope();
}

/// f(args...) with the GIL released when Note [GIL policy] says so. f must not touch Python.
template <class F, class... A>
decltype(auto) call(F&& f, const A&... args) {
  if (should_release((elements_of(args) + ... + std::int64_t{0}))) {
    py::gil_scoped_release release;
    return f(args...);
  }
  return f(args...);
}

/// A dtype from a tenferro dtype object, a name ("f64", "float64", "bool", ...), a NumPy dtype
/// or scalar type (np.float32). TypeError (DTypeMismatch) for anything else.
DType to_dtype(py::handle obj);
std::optional<DType> to_dtype_or_none(py::handle obj);
/// The NumPy dtype of a tenferro dtype.
py::dtype numpy_dtype(DType d);

/// axis=None -> {} (all), an int -> {axis}, a sequence -> its entries. axis=() is
/// InvalidArgument: the C++ API reads an empty list as "all axes" (docs/python.md).
Dims to_axes(const py::object& axis);
Dims to_dims(const py::object& shape);

/// A Tensor from a Tensor (returned as is, or cast when dtype differs), a NumPy array (zero-copy
/// when its layout allows), a Python scalar or a nested list (through np.asarray).
Tensor asarray(const py::object& obj, std::optional<DType> dtype = std::nullopt);
/// Throws unless t's memory may be shared with Python (Tensor.numpy, __dlpack__): defined
/// (InvalidArgument), concrete, not symbolic, and not requiring grad (RuntimeState).
void check_exportable(const Tensor& t, const char* what);
/// A Python number (bool, int, float, complex, numpy float/complex scalars that subclass them).
std::optional<Scalar> as_python_scalar(py::handle obj);

void bind_errors(py::module_& m);
void bind_tensor(py::module_& m);
void bind_dlpack(py::module_& m);
void bind_ops(py::module_& m);
void bind_ops_linalg(py::module_& m);
void bind_autodiff(py::module_& m);
void bind_runtime(py::module_& m);

}  // namespace tenferro::python
