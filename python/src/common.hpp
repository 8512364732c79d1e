// Shared pieces of the Python binding (docs/python.md): the GIL policy, dtype and axis
// conversions, and the per-area bind functions the module calls.
//
// Note [GIL policy]: a wrapper releases the GIL around the C++ call when the operands hold at
// least kReleaseElements elements in total; below that releasing costs more than the op. Every
// other thread must be able to take the GIL while one waits for a resource permit, whatever the
// size of its op: the permit's holder may be an execution scope whose Python body needs the GIL.
// So the module installs permit wait hooks (set_permit_wait_hooks, runtime.cpp) that release the
// GIL right before any thread sleeps on a permit and take it again when the wait ends. (Checking
// "is another thread in a scope?" before the op left a window: a scope that had taken its permit
// but not yet its GIL deadlocked against an op holding the GIL while waiting for that permit.)
// Python callbacks (grad of a Python function, scope bodies, traced functions) are called with
// the GIL held: a wrapper that releases it around a C++ call that calls back (the autodiff
// transforms, with_execution_scope) takes it again in the callback (py::gil_scoped_acquire)
// before touching Python; trace() keeps it.
#pragma once

#include <pybind11/complex.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tenferro/tenferro.hpp"

namespace tenferro::python {

namespace py = pybind11;
using namespace pybind11::literals;

inline constexpr std::int64_t kReleaseElements = 4096;

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

inline bool should_release(std::int64_t elements) { return elements >= kReleaseElements; }

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
/// dtype=None is the default dtype (f64), as NumPy's factories; otherwise to_dtype.
DType dtype_or_f64(py::handle obj);
/// operator.index(h) as int64: TypeError for a non-integer, ValueError beyond int64.
std::int64_t to_int64(py::handle h);
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
/// An int beyond double's range is OverflowError, as in NumPy.
std::optional<Scalar> as_python_scalar(py::handle obj);
/// A number argument (a Python number, a NumPy scalar, anything with __complex__/__float__) as a
/// Scalar: OverflowError for an int beyond double, TypeError for a non-number.
Scalar scalar_arg(py::handle h);
/// scalar_arg for a value written into a tensor of dtype `target`: ValueError for a Python int
/// that an integer target would receive rounded (|v| > 2**53 through the Scalar's double).
Scalar scalar_arg(py::handle h, DType target);
/// A Python int that int64 holds exactly but a double does not (|v| > 2**53).
bool inexact_python_int(py::handle h);

/// Where a Python int stands against the range of an integer dtype (NEP 50: beside an integer
/// tensor the int is converted to the tensor's dtype).
struct PythonIntRange {
  bool is_int = false;  // a Python int (not a bool) and an integer (not bool) dtype
  bool fits = false;    // inside the dtype's range
  bool above = false;   // (when it does not fit) above the maximum, else below the minimum
  bool exact = true;    // (when it fits) a double holds it exactly (|v| <= 2**53)
};
PythonIntRange python_int_range(py::handle h, DType d);
/// The OverflowError NumPy 2 raises for a Python int outside the range of the array's dtype
/// `d`: "<op>: Python integer 300 out of bounds for uint8".
[[noreturn]] void throw_python_int_out_of_bounds(const char* op, py::handle h, DType d);

/// matmul as the Array API standard has it: two integer operands contract exactly in
/// their promoted integer dtype (through vecdot; the C++ matmul is floating-only); anything else
/// is tenferro::matmul. Bound as tf.matmul and the @ operator.
Tensor standard_matmul(const Tensor& a, const Tensor& b);

/// r as a Tensor; TypeError "<who>: the function must return a tenferro.Tensor, not <type>"
/// (the check on what a Python callback returned).
Tensor result_tensor(const py::object& r, const char* who);

void bind_errors(py::module_& m);
void bind_tensor(py::module_& m);
void bind_dlpack(py::module_& m);
void bind_ops(py::module_& m);
void bind_ops_linalg(py::module_& m);
void bind_ops_array_api(py::module_& m);
void bind_ops_sets(py::module_& m);  // bitwise ops and operators, searchsorted, unique_*
void bind_krylov(py::module_& m);
void bind_custom_rules(py::module_& m);
void bind_fixed_point(py::module_& m);
void bind_einsum(py::module_& m);
void bind_autodiff(py::module_& m);
void bind_runtime(py::module_& m);
void bind_symmetric(py::module_& m);
void bind_fft(py::module_& m);  // the submodule _fft, imported as tenferro.fft

}  // namespace tenferro::python
