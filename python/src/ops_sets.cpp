// The Array API's bitwise functions and operators, searchsorted and the unique_* functions
// (tenferro/ops/bitwise.hpp, tenferro/ops/sets.hpp) with the standard's names, keywords and
// result types (docs/python.md, "Bitwise, searching and set functions"). One wrapper per C++
// function; the Tensor operators & | ^ ~ << >> and their reflected and in-place forms are set on
// the class here, after bind_tensor, so `&` on integer tensors is bitwise (on bool tensors it is
// the logical op it was).
//
// Note [Python scalars of bitwise ops]: a Python int or bool next to a tensor becomes a 0-d
// tensor, never a C++ Scalar (a double, inexact beyond 2^53). Next to an integer tensor it takes
// the tensor's dtype (x_i32 & 5 is i32, x_u64 & (2**64 - 1) is u64: the standard's Python-scalar
// rule, NEP 50); an int outside that dtype's range is OverflowError naming the op ("Python
// integer 300 out of bounds for uint8", as NumPy 2). Next to a bool tensor or a non-tensor an int
// is NumPy's default (i64; beyond i64's range OverflowError naming the op); a Python bool next to
// a bool tensor is a bool.
// Anything else goes through asarray, so a float or complex operand reaches the C++ op, whose
// DTypeMismatch names it.
#include <string>

#include "common.hpp"

namespace tenferro::python {

namespace {

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

bool is_python_int(py::handle h) { return PyLong_Check(h.ptr()); }  // bool is a subclass

// OverflowError naming op for a Python int outside i64's range (asarray would make it uint64 or
// an object array and fail naming itself).
void check_int64_range(const char* op, py::handle h) {
  if (!is_python_int(h) || PyBool_Check(h.ptr())) return;
  int overflow = 0;
  (void)PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow == 0) return;
  const std::string msg = std::string(op) + ": the Python int " + py::str(h).cast<std::string>() +
                          " is outside int64's range [-2**63, 2**63), the widest integer dtype";
  PyErr_SetString(PyExc_OverflowError, msg.c_str());
  throw py::error_already_set();
}

// Note [Python scalars of bitwise ops].
Tensor bitwise_operand(const char* op, py::handle h, const Tensor* other) {
  py::object o = py::reinterpret_borrow<py::object>(h);
  if (py::isinstance<Tensor>(h)) return h.cast<Tensor>();
  if (other != nullptr && is_python_int(h) && is_integral(other->dtype())) {
    const DType d = other->dtype();
    if (PyBool_Check(h.ptr())) return asarray(o, d);  // True next to i32 is i32 1
    const PythonIntRange r = python_int_range(h, d);
    if (r.is_int) {  // d is an integer dtype: the int takes it, or is OverflowError (NEP 50)
      if (!r.fits) throw_python_int_out_of_bounds(op, h, d);
      return asarray(o, d);
    }
  }
  check_int64_range(op, h);
  return asarray(o);
}

std::pair<Tensor, Tensor> bitwise_operands(const char* op, py::handle a, py::handle b) {
  const bool ta = py::isinstance<Tensor>(a), tb = py::isinstance<Tensor>(b);
  if (ta && !tb) {
    Tensor x = a.cast<Tensor>();
    return {x, bitwise_operand(op, b, &x)};
  }
  if (tb && !ta) {
    Tensor y = b.cast<Tensor>();
    return {bitwise_operand(op, a, &y), y};
  }
  if (!ta && !tb && !is_python_int(a) && is_python_int(b)) {
    Tensor x = asarray(py::reinterpret_borrow<py::object>(a));
    return {x, bitwise_operand(op, b, &x)};
  }
  if (!ta && !tb && is_python_int(a) && !is_python_int(b)) {
    Tensor y = asarray(py::reinterpret_borrow<py::object>(b));
    return {bitwise_operand(op, a, &y), y};
  }
  return {bitwise_operand(op, a, nullptr), bitwise_operand(op, b, nullptr)};
}

Tensor apply_bitwise(const char* op, BinaryFn fn, py::handle a, py::handle b) {
  auto [x, y] = bitwise_operands(op, a, b);
  return call(fn, x, y);
}

/// What an operator accepts as its other operand (else NotImplemented, so Python tries the
/// reflected operator of the other object).
/// A Python int is one before as_python_scalar, which would raise its own OverflowError for an
/// int beyond a double's range (the op's check_int64_range names the op).
bool operand_like(py::handle h) {
  return py::isinstance<Tensor>(h) || is_python_int(h) || as_python_scalar(h) ||
         py::isinstance<py::array>(h) || py::isinstance<py::list>(h) ||
         py::isinstance<py::tuple>(h) || PyObject_HasAttrString(h.ptr(), "__array__") ||
         py::isinstance(h, py::module_::import("numpy").attr("generic"));
}

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

SearchSide side_arg(const std::string& side) {
  if (side == "left") return SearchSide::left;
  if (side == "right") return SearchSide::right;
  throw Error(ErrorKind::InvalidArgument,
              "searchsorted: side must be 'left' or 'right', got '" + side + "'");
}

py::object named_tuple(py::module_& m, const char* name, py::tuple fields, const char* doc) {
  py::object nt = py::module_::import("collections").attr("namedtuple")(name, fields);
  nt.attr("__module__") = "tenferro";
  nt.attr("__doc__") = doc;
  m.attr(name) = nt;
  return nt;
}

}  // namespace

void bind_ops_sets(py::module_& m) {
  // ---- bitwise ----
  const std::pair<const char*, BinaryFn> binaries[] = {
      {"bitwise_and", static_cast<BinaryFn>(&bitwise_and)},
      {"bitwise_or", static_cast<BinaryFn>(&bitwise_or)},
      {"bitwise_xor", static_cast<BinaryFn>(&bitwise_xor)},
      {"bitwise_left_shift", static_cast<BinaryFn>(&bitwise_left_shift)},
      {"bitwise_right_shift", static_cast<BinaryFn>(&bitwise_right_shift)}};
  for (const auto& [name, fn] : binaries) {
    BinaryFn f = fn;
    const char* op = name;
    m.def(
        name, [f, op](py::handle a, py::handle b) { return apply_bitwise(op, f, a, b); }, "x1"_a,
        "x2"_a,
        "Elementwise bitwise op on bool (and/or/xor) and integer arrays with broadcasting and "
        "promotion; shift counts outside [0, bits) shift every bit out (docs/ops.md).");
  }
  m.def(
      "bitwise_invert",
      [](py::handle x) {
        Tensor t = bitwise_operand("bitwise_invert", x, nullptr);
        return call(&bitwise_invert, t);
      },
      "x"_a, "~x: every bit flipped (bool: logical not).");

  // Operators on Tensor: self op other, and the reflected other op self.
  py::object cls = py::type::of<Tensor>();
  struct OperatorEntry {
    const char* name;  // the dunder's stem
    const char* op;    // the function, named in errors
    BinaryFn fn;
  };
  const OperatorEntry ops[] = {
      {"and", "bitwise_and", static_cast<BinaryFn>(&bitwise_and)},
      {"or", "bitwise_or", static_cast<BinaryFn>(&bitwise_or)},
      {"xor", "bitwise_xor", static_cast<BinaryFn>(&bitwise_xor)},
      {"lshift", "bitwise_left_shift", static_cast<BinaryFn>(&bitwise_left_shift)},
      {"rshift", "bitwise_right_shift", static_cast<BinaryFn>(&bitwise_right_shift)}};
  for (const auto& [name, op, fn] : ops) {
    BinaryFn f = fn;
    const char* fn_name = op;
    const std::string fwd = std::string("__") + name + "__";
    const std::string rev = std::string("__r") + name + "__";
    const std::string inp = std::string("__i") + name + "__";
    cls.attr(fwd.c_str()) = py::cpp_function(
        [f, fn_name](py::handle a, py::handle b) -> py::object {
          if (!operand_like(b)) return not_implemented();
          return py::cast(apply_bitwise(fn_name, f, a, b));
        },
        py::name(fwd.c_str()), py::is_method(cls), py::is_operator());
    cls.attr(rev.c_str()) = py::cpp_function(
        [f, fn_name](py::handle a, py::handle b) -> py::object {
          if (!operand_like(b)) return not_implemented();
          return py::cast(apply_bitwise(fn_name, f, b, a));
        },
        py::name(rev.c_str()), py::is_method(cls), py::is_operator());
    // In place: the result must keep self's dtype and shape (as every in-place operator of the
    // namespace); a plain concrete tensor is written through __setitem__, others (requiring grad,
    // traced) are computed out of place and the name is rebound.
    const std::string op_name = inp;
    cls.attr(inp.c_str()) = py::cpp_function(
        [f, fn_name, op_name](py::object self, py::handle b) -> py::object {
          if (!operand_like(b)) return not_implemented();
          const Tensor& s = self.cast<const Tensor&>();
          Tensor r = apply_bitwise(fn_name, f, self, b);
          if (r.dtype() != s.dtype())
            throw Error(ErrorKind::DTypeMismatch,
                        op_name + ": the result has dtype " + std::string(dtype_name(r.dtype())) +
                            " but the array has dtype " + std::string(dtype_name(s.dtype())) +
                            "; an in-place operator keeps the array's dtype");
          if (r.shape() != s.shape())
            throw Error(ErrorKind::ShapeMismatch,
                        op_name + ": the result has shape " + dims_to_string(r.shape()) +
                            " but the array has shape " + dims_to_string(s.shape()) +
                            "; an in-place operator keeps the array's shape");
          if (s.requires_grad() || !s.has_storage() || s.aux()) return py::cast(r);
          self.attr("__setitem__")(py::ellipsis(), py::cast(r));
          return self;
        },
        py::name(inp.c_str()), py::is_method(cls));
  }
  cls.attr("__invert__") =
      py::cpp_function([](const Tensor& t) { return call(&bitwise_invert, t); },
                       py::name("__invert__"), py::is_method(cls));

  // ---- searchsorted ----
  m.def(
      "searchsorted",
      [](py::handle x1, py::handle x2, const std::string& side, const py::object& sorter) {
        const SearchSide s = side_arg(side);
        Tensor a = asarray(py::reinterpret_borrow<py::object>(x1));
        Tensor v = asarray(py::reinterpret_borrow<py::object>(x2));
        Tensor srt = sorter.is_none() ? Tensor{} : asarray(sorter);
        return call([&](const Tensor& p, const Tensor& q,
                        const Tensor& r) { return searchsorted(p, q, s, r); },
                    a, v, srt);
      },
      "x1"_a, "x2"_a, py::pos_only(), py::kw_only(), "side"_a = "left", "sorter"_a = py::none(),
      "int64 indices where the elements of x2 would be inserted into the 1-D x1 (sorted "
      "ascending, NaNs last, or sorted by `sorter`) to keep it sorted; side 'left' or 'right'.");

  // ---- unique ----
  py::object all_t = named_tuple(
      m, "UniqueAllResult", py::make_tuple("values", "indices", "inverse_indices", "counts"),
      "unique_all's results: sorted distinct values, first-occurrence indices, inverse indices "
      "(x's shape), counts.");
  py::object counts_t = named_tuple(m, "UniqueCountsResult", py::make_tuple("values", "counts"),
                                    "unique_counts's results.");
  py::object inverse_t =
      named_tuple(m, "UniqueInverseResult", py::make_tuple("values", "inverse_indices"),
                  "unique_inverse's results.");
  m.def(
      "unique_all",
      [all_t](const Tensor& x) {
        UniqueAllResult r = call(&unique_all, x);
        return all_t(r.values, r.indices, r.inverse_indices, r.counts);
      },
      "x"_a,
      "Sorted distinct values of x (flattened; each NaN distinct, +0 and -0 one value), the "
      "flat index of each one's first occurrence, the inverse indices (x's shape) and the "
      "counts. Eager only.");
  m.def(
      "unique_counts",
      [counts_t](const Tensor& x) {
        UniqueCountsResult r = call(&unique_counts, x);
        return counts_t(r.values, r.counts);
      },
      "x"_a, "Sorted distinct values of x and their counts. Eager only.");
  m.def(
      "unique_inverse",
      [inverse_t](const Tensor& x) {
        UniqueInverseResult r = call(&unique_inverse, x);
        return inverse_t(r.values, r.inverse_indices);
      },
      "x"_a, "Sorted distinct values of x and the inverse indices (x's shape). Eager only.");
  m.def(
      "unique_values", [](const Tensor& x) { return call(&unique_values, x); }, "x"_a,
      "Sorted distinct values of x. Eager only.");
}

}  // namespace tenferro::python
