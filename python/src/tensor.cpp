// tenferro.Tensor and tenferro.DType: properties, NumPy interop (zero-copy both ways),
// construction, Python operators, indexing and item access (docs/python.md).
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "common.hpp"

namespace tenferro::python {

namespace {

// ---- dtypes ----

/// The Python-visible dtype object; one canonical instance per dtype (tenferro.f64, ...).
struct PyDType {
  DType d;
};

py::object& dtype_object(DType d) {
  static auto* objects =
      new py::object[std::size(all_dtypes)];  // leaked: never decref'd after interpreter exit
  return objects[static_cast<int>(d)];
}

std::optional<DType> dtype_from_numpy(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'b' && size == 1) return DType::boolean;
  if (kind == 'i' && size == 1) return DType::i8;
  if (kind == 'i' && size == 2) return DType::i16;
  if (kind == 'i' && size == 4) return DType::i32;
  if (kind == 'i' && size == 8) return DType::i64;
  if (kind == 'u' && size == 1) return DType::u8;
  if (kind == 'u' && size == 2) return DType::u16;
  if (kind == 'u' && size == 4) return DType::u32;
  if (kind == 'u' && size == 8) return DType::u64;
  if (kind == 'f' && size == 4) return DType::f32;
  if (kind == 'f' && size == 8) return DType::f64;
  if (kind == 'c' && size == 8) return DType::c64;
  if (kind == 'c' && size == 16) return DType::c128;
  return std::nullopt;
}

/// Every name of every dtype, tenferro's and NumPy's: dtype_from_name reads it, and bind_tensor
/// makes each name an attribute of the module holding the dtype's object (tenferro.u8,
/// tenferro.uint8, ...; the package's `tenferro.bool` is the same object).
constexpr std::pair<const char*, DType> kDTypeNames[] = {
    {"bool", DType::boolean}, {"bool_", DType::boolean},  {"i8", DType::i8},
    {"int8", DType::i8},      {"i16", DType::i16},        {"int16", DType::i16},
    {"i32", DType::i32},      {"int32", DType::i32},      {"i64", DType::i64},
    {"int64", DType::i64},    {"u8", DType::u8},          {"uint8", DType::u8},
    {"u16", DType::u16},      {"uint16", DType::u16},     {"u32", DType::u32},
    {"uint32", DType::u32},   {"u64", DType::u64},        {"uint64", DType::u64},
    {"f32", DType::f32},      {"float32", DType::f32},    {"f64", DType::f64},
    {"float64", DType::f64},  {"c64", DType::c64},        {"complex64", DType::c64},
    {"c128", DType::c128},    {"complex128", DType::c128}};

std::optional<DType> dtype_from_name(const std::string& s) {
  for (const auto& [n, d] : kDTypeNames)
    if (s == n) return d;
  return std::nullopt;
}

}  // namespace

std::optional<DType> to_dtype_or_none(py::handle obj) {
  if (py::isinstance<PyDType>(obj)) return obj.cast<const PyDType&>().d;
  if (py::isinstance<py::str>(obj)) {
    if (auto d = dtype_from_name(obj.cast<std::string>())) return d;
  }
  if (obj.is_none()) return std::nullopt;
  try {
    py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
    return dtype_from_numpy(dt);
  } catch (py::error_already_set&) {
    return std::nullopt;
  }
}

DType to_dtype(py::handle obj) {
  if (auto d = to_dtype_or_none(obj)) return *d;
  throw Error(ErrorKind::DTypeMismatch,
              "tenferro: not a tenferro dtype: " + std::string(py::str(py::repr(obj))) +
                  " (expected one of bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, c64, "
                  "c128, their NumPy names or "
                  "NumPy dtypes)");
}

/// True for a Python int that int64 holds but a double does not (|v| > 2^53). A Scalar is a
/// complex double: such an int must reach an integer op as an exact i64 0-d array, never as a
/// Scalar, which would round it (x_i64 + (2**53 + 1) once added 2**53 + 2, with no error).
bool inexact_python_int(py::handle h) {
  PyObject* p = h.ptr();
  if (!PyLong_Check(p) || PyBool_Check(p)) return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
  if (overflow != 0) return false;  // beyond int64: the double path (OverflowError past double)
  constexpr long long kExact = 1LL << 53;
  return v > kExact || v < -kExact;
}

PythonIntRange python_int_range(py::handle h, DType d) {
  PyObject* p = h.ptr();
  PythonIntRange r;
  if (!PyLong_Check(p) || PyBool_Check(p) || !is_integer(d)) return r;
  r.is_int = true;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
  if (overflow < 0) return r;  // below int64's minimum: below every dtype's
  if (overflow > 0) {          // above int64's maximum: only u64 may hold it
    r.above = true;
    if (d != DType::u64) return r;
    (void)PyLong_AsUnsignedLongLong(p);
    if (PyErr_Occurred()) {  // beyond 2**64 - 1
      PyErr_Clear();
      return r;
    }
    r.fits = true;
    r.exact = false;  // 2**63 <= v < 2**64: a double rounds most of these
    return r;
  }
  long long lo = 0, hi = 0;
  switch (d) {
    case DType::i8:
      lo = INT8_MIN, hi = INT8_MAX;
      break;
    case DType::i16:
      lo = INT16_MIN, hi = INT16_MAX;
      break;
    case DType::i32:
      lo = INT32_MIN, hi = INT32_MAX;
      break;
    case DType::u8:
      hi = UINT8_MAX;
      break;
    case DType::u16:
      hi = UINT16_MAX;
      break;
    case DType::u32:
      hi = UINT32_MAX;
      break;
    default:  // i64, u64 (v is a long long here, so only u64's minimum 0 can fail)
      lo = d == DType::u64 ? 0 : std::numeric_limits<long long>::min();
      hi = std::numeric_limits<long long>::max();
  }
  r.fits = lo <= v && v <= hi;
  r.above = v > hi;
  constexpr long long kExact = 1LL << 53;
  r.exact = -kExact <= v && v <= kExact;
  return r;
}

void throw_python_int_out_of_bounds(const char* op, py::handle h, DType d) {
  const std::string msg = std::string(op) + ": Python integer " + py::str(h).cast<std::string>() +
                          " out of bounds for " + py::str(numpy_dtype(d)).cast<std::string>();
  PyErr_SetString(PyExc_OverflowError, msg.c_str());
  throw py::error_already_set();
}

Scalar scalar_arg(py::handle h) {
  if (auto s = as_python_scalar(h)) return *s;  // OverflowError for an int beyond double
  return h.cast<Scalar>();  // NumPy scalars and other numbers; TypeError (cast_error) otherwise
}

Scalar scalar_arg(py::handle h, DType target) {
  // A value for an integer tensor (a fill, pad or clamp value) is a Scalar, i.e. a double, in
  // C++: refuse what it would round instead of writing a neighbouring integer. (For a floating
  // target the double is what the value becomes anyway.)
  // An int above int64's range that u64 holds (2**63 <= v < 2**64) is beyond 2**53 as well
  // (pad(x_u64, 1, constant_value=2**63 + 1) padded with 2**63).
  const auto above_int64 = [&] {
    const PythonIntRange r = python_int_range(h, target);
    return r.is_int && r.fits && !r.exact;
  };
  if (is_integral(target) && (inexact_python_int(h) || above_int64()))
    throw py::value_error("the Python int " + std::string(py::str(h)) + " for a " +
                          std::string(dtype_name(target)) +
                          " tensor is not exactly representable as the double this value is "
                          "passed as (|v| > 2**53)");
  return scalar_arg(h);
}

DType dtype_or_f64(py::handle obj) { return obj.is_none() ? DType::f64 : to_dtype(obj); }

py::dtype numpy_dtype(DType d) {
  switch (d) {
    case DType::boolean:
      return py::dtype("bool");
    case DType::i32:
      return py::dtype("int32");
    case DType::i64:
      return py::dtype("int64");
    case DType::i8:
      return py::dtype("int8");
    case DType::i16:
      return py::dtype("int16");
    case DType::u8:
      return py::dtype("uint8");
    case DType::u16:
      return py::dtype("uint16");
    case DType::u32:
      return py::dtype("uint32");
    case DType::u64:
      return py::dtype("uint64");
    case DType::f32:
      return py::dtype("float32");
    case DType::f64:
      return py::dtype("float64");
    case DType::c64:
      return py::dtype("complex64");
    case DType::c128:
      break;
  }
  return py::dtype("complex128");
}

namespace {
/// operator.index(h) (TypeError for a non-integer) as a long long; `overflow` is +1 / -1 when the
/// value lies beyond int64 (the return value is then meaningless), else 0.
long long index_value(py::handle h, int& overflow) {
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (v == -1 && overflow == 0 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}
}  // namespace

std::int64_t to_int64(py::handle h) {
  // As NumPy: a value beyond int64 is ValueError ("Maximum allowed dimension exceeded").
  int overflow = 0;
  const long long v = index_value(h, overflow);
  if (overflow != 0)
    throw py::value_error("tenferro: " + std::string(py::str(h)) +
                          " does not fit in a 64-bit integer (shape, axis or count)");
  return v;
}

Dims to_dims(const py::object& shape) {
  Dims out;
  // A NumPy array or Tensor of rank >= 1 has __index__ too (raising "only integer scalar
  // arrays ..."): read it as the sequence of its elements, as NumPy takes
  // np.tile(a, np.array([2, 1])) and a.reshape(np.array([3, 2])).
  const bool ranked =
      (py::isinstance<py::array>(shape) && py::reinterpret_borrow<py::array>(shape).ndim() > 0) ||
      (py::isinstance<Tensor>(shape) && shape.cast<const Tensor&>().rank() > 0);
  if (PyIndex_Check(shape.ptr()) && !ranked) {
    out.push_back(to_int64(shape));
    return out;
  }
  if (py::isinstance<py::str>(shape))  // iterable, but its characters are no sizes
    throw py::type_error("tenferro: expected an int or a sequence of ints, got the str " +
                         std::string(py::repr(shape)));
  for (py::handle h : shape) out.push_back(to_int64(h));
  return out;
}

Dims to_axes(const py::object& axis) {
  if (axis.is_none()) return {};
  Dims out = to_dims(axis);
  if (out.empty())
    throw Error(ErrorKind::InvalidArgument,
                "tenferro: axis=() is not supported (an empty axis list means every axis in "
                "tenferro; pass axis=None for that, or skip the reduction)");
  return out;
}

std::optional<Scalar> as_python_scalar(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p)) return Scalar(p == Py_True ? 1.0 : 0.0, 0.0);
  if (PyLong_Check(p)) {
    const double v = PyLong_AsDouble(p);  // OverflowError beyond double's range, as NumPy
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return Scalar(v, 0.0);
  }
  if (PyFloat_Check(p)) return Scalar(PyFloat_AsDouble(p), 0.0);
  if (PyComplex_Check(p)) return Scalar(PyComplex_RealAsDouble(p), PyComplex_ImagAsDouble(p));
  return std::nullopt;
}

// ---- NumPy -> Tensor ----

namespace {

/// Storage release for memory owned by a Python object (Note [Storage ownership]): drops the
/// reference, taking the GIL, on whatever thread the last tensor dies.
void release_python_owner(Storage* s) noexcept {
  auto* owner = static_cast<PyObject*>(s->owner);
  delete s;
  if (owner != nullptr && Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(owner);
    PyGILState_Release(g);
  }
}

}  // namespace

/// A tensor viewing `bytes` at `base` (lowest address), kept alive by a new reference to `owner`.
Tensor adopt_python_memory(py::handle owner, void* base, std::size_t bytes, Dims shape,
                           Dims strides, std::int64_t offset, DType dtype) {
  auto* s = new Storage;
  s->data = base;
  s->bytes = bytes;
  s->release = &release_python_owner;
  s->owner = owner.inc_ref().ptr();
  StoragePtr storage(s);  // on a throw below, the storage (and the reference) is released
  return Tensor(std::move(storage), std::move(shape), std::move(strides), offset, dtype);
}

namespace {

Tensor from_numpy(py::array arr) {
  std::optional<DType> d = dtype_from_numpy(arr.dtype());
  if (!d)
    throw Error(ErrorKind::DTypeMismatch,
                "tenferro.asarray: NumPy dtype " + std::string(py::str(arr.dtype())) +
                    " has no tenferro dtype (bool, int8 ... int64, uint8 ... uint64, float32, "
                    "float64, complex64, complex128); pass dtype= to convert");
  const auto item = static_cast<py::ssize_t>(dtype_size(*d));
  const int flags = py::detail::array_proxy(arr.ptr())->flags;
  const bool aligned = (flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
  const bool writeable = (flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_) != 0;
  const char order = arr.dtype().attr("byteorder").cast<std::string>()[0];
  bool strides_ok = true;
  for (py::ssize_t k = 0; k < arr.ndim(); ++k)
    if (arr.strides(k) % item != 0) strides_ok = false;
  // Copy when tenferro could not address the memory as elements, or must not write into it.
  if (!aligned || !writeable || order == '>' || !strides_ok) {
    py::module_ np = py::module_::import("numpy");
    arr = np.attr("array")(arr, py::arg("dtype") = numpy_dtype(*d), py::arg("copy") = true);
  }
  Dims shape, strides;
  std::int64_t lo = 0, hi = 0;
  bool empty = false;
  for (py::ssize_t k = 0; k < arr.ndim(); ++k) {
    const std::int64_t n = arr.shape(k), st = arr.strides(k) / item;
    shape.push_back(n);
    strides.push_back(st);
    if (n == 0) empty = true;
    if (n > 1) (st < 0 ? lo : hi) += st * (n - 1);
  }
  auto* data = static_cast<char*>(const_cast<void*>(arr.data()));
  if (empty) return adopt_python_memory(arr, data, 0, shape, strides, 0, *d);
  void* base = data + lo * item;
  const auto bytes = static_cast<std::size_t>((hi - lo + 1) * item);
  return adopt_python_memory(arr, base, bytes, shape, strides, -lo, *d);
}

}  // namespace

Tensor asarray(const py::object& obj, std::optional<DType> dtype) {
  if (py::isinstance<Tensor>(obj)) {
    const Tensor& t = obj.cast<const Tensor&>();
    return dtype && *dtype != t.dtype() ? call([&](const Tensor& x) { return cast(x, *dtype); }, t)
                                        : t;
  }
  py::module_ np = py::module_::import("numpy");
  py::object arr;
  if (dtype) {
    // Floating or complex values into an integer dtype go through tenferro's cast (NaN -> 0,
    // saturation; docs/dtypes.md), as for a Tensor source: NumPy's astype leaves them
    // unspecified (NaN and 1e30 -> INT_MIN, -3.7 -> uint8 253) or raises for a Python NaN.
    // Other conversions are NumPy's, which agree with cast there and keep its range checks.
    if (is_integer(*dtype)) {
      py::object plain = np.attr("asarray")(obj);
      const py::dtype src = py::reinterpret_borrow<py::array>(plain).dtype();
      const std::optional<DType> d = dtype_from_numpy(src);
      if (d && is_floating(*d)) {
        const Tensor t = from_numpy(py::reinterpret_borrow<py::array>(plain));
        return call([&](const Tensor& x) { return cast(x, *dtype); }, t);
      }
    }
    arr = np.attr("asarray")(obj, py::arg("dtype") = numpy_dtype(*dtype));
  } else {
    arr = np.attr("asarray")(obj);
    // Python ints become int64 and floats float64 (NumPy's defaults on Linux).
  }
  return from_numpy(py::reinterpret_borrow<py::array>(arr));
}

// ---- Tensor -> NumPy ----

void check_exportable(const Tensor& t, const char* what) {
  if (!t.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(what) + ": the tensor is undefined");
  if (!t.has_storage())
    throw Error(ErrorKind::RuntimeState,
                std::string(what) + ": a traced (symbolic) tensor has no values to export");
  if (t.requires_grad())
    throw Error(ErrorKind::RuntimeState,
                std::string(what) +
                    ": the tensor requires grad; export t.detach() instead (writes through the "
                    "shared memory would bypass autodiff)");
}

namespace {

py::array to_numpy(const Tensor& t) {
  check_exportable(t, "Tensor.numpy");
  const auto item = static_cast<py::ssize_t>(dtype_size(t.dtype()));
  std::vector<py::ssize_t> shape, strides;
  for (std::int64_t k = 0; k < t.rank(); ++k) {
    shape.push_back(static_cast<py::ssize_t>(t.shape()[k]));
    strides.push_back(static_cast<py::ssize_t>(t.strides()[k]) * item);
  }
  auto* keep = new StoragePtr(t.storage());
  py::capsule base(keep, [](void* p) { delete static_cast<StoragePtr*>(p); });
  return py::array(numpy_dtype(t.dtype()), shape, strides, t.data_ptr(), base);
}

py::object item_of(const Tensor& t) {
  return visit_dtype(t.dtype(), [&](auto v) -> py::object {
    using T = decltype(v);
    return py::cast(t.item<T>());
  });
}

// ---- operators ----

using TT = Tensor (*)(const Tensor&, const Tensor&);
using TS = Tensor (*)(const Tensor&, Scalar);
using ST = Tensor (*)(Scalar, const Tensor&);

/// What a Python int outside the range of the integer tensor beside it does (NEP 50, NumPy 2):
/// `overflow` for ops that compute in the tensor's dtype (OverflowError, as NumPy 2); `compare`
/// for comparisons, which NumPy 2 answers exactly (u8 < 300 is all true); `as_number` for the
/// ops that compute integers in f64 (/, hypot, ...), which take it as a number.
enum class IntArg { as_number, overflow, compare };
/// The relation a comparison op tests, a R b.
enum class Rel { eq, ne, lt, le, gt, ge };

/// A binary op with its optional Scalar forms; `flipped(b, a)` computes op(a, b) for a scalar a.
struct Binary {
  TT tt;
  TS ts = nullptr;
  ST st = nullptr;
  TS flipped = nullptr;
  IntArg int_arg = IntArg::as_number;
  Rel rel = Rel::eq;  // for IntArg::compare
  const char* name = "";
};

Binary with_int_arg(Binary b, const char* name, IntArg k, Rel r = Rel::eq) {
  b.name = name;
  b.int_arg = k;
  b.rel = r;
  return b;
}

/// t R v for every element, where v is a Python int beyond t's integer dtype (above its maximum
/// or below its minimum): one answer for all, as a bool tensor of t's shape (t == t is all true
/// for integers, t != t all false), so it traces like the comparison it stands for.
Tensor out_of_range_comparison(const Tensor& t, Rel rel, bool above) {
  bool holds = false;
  switch (rel) {
    case Rel::eq:
      holds = false;
      break;
    case Rel::ne:
      holds = true;
      break;
    case Rel::lt:
    case Rel::le:
      holds = above;
      break;
    case Rel::gt:
    case Rel::ge:
      holds = !above;
      break;
  }
  return call(holds ? static_cast<TT>(&tenferro::eq) : static_cast<TT>(&tenferro::ne), t, t);
}

Rel mirrored(Rel r) {
  switch (r) {
    case Rel::lt:
      return Rel::gt;
    case Rel::le:
      return Rel::ge;
    case Rel::gt:
      return Rel::lt;
    case Rel::ge:
      return Rel::le;
    default:
      return r;
  }
}

Tensor operand(py::handle h) { return asarray(py::reinterpret_borrow<py::object>(h)); }

}  // namespace

Tensor apply_binary(const Binary& op, py::handle a, py::handle b);

namespace {
/// A Python int beside an integer tensor (NEP 50): converted to the tensor's dtype, exactly (a
/// 0-d tensor of that dtype) when a double would round it; outside the dtype's range it is
/// OverflowError, an exact comparison, or a number, as op.int_arg says. nullopt where the
/// general rule applies (no such pair, or an int a Scalar holds exactly).
std::optional<Tensor> with_python_int(const Binary& op, py::handle a, py::handle b) {
  const bool ta = py::isinstance<Tensor>(a), tb = py::isinstance<Tensor>(b);
  if (!ta && !tb) {
    // A NumPy array (or scalar) beside a Python int: the array becomes a tensor first, so the
    // int takes its dtype as beside a tensor (an np.uint64 array + 2**63 + 1 stayed uint64
    // only when the array was a tensor; otherwise the int went as i64 and the sum as f64).
    const auto python_int = [](py::handle h) {
      return PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr());
    };
    const bool ia = python_int(a), ib = python_int(b);
    if (ia == ib) return std::nullopt;
    py::handle other = ia ? b : a;
    if (!py::isinstance<py::array>(other) &&
        !py::isinstance(other, py::module_::import("numpy").attr("generic")))
      return std::nullopt;
    const py::object t = py::cast(operand(other));
    return ia ? with_python_int(op, a, t) : with_python_int(op, t, b);
  }
  if (ta == tb) return std::nullopt;
  const Tensor& t = (ta ? a : b).cast<const Tensor&>();
  py::handle h = ta ? b : a;
  const PythonIntRange r = python_int_range(h, t.dtype());
  if (!r.is_int) return std::nullopt;
  if (r.fits) {
    if (r.exact) return std::nullopt;  // the Scalar path keeps the dtype and the value
    Tensor s = asarray(py::reinterpret_borrow<py::object>(h), t.dtype());
    return ta ? call(op.tt, t, s) : call(op.tt, s, t);
  }
  switch (op.int_arg) {
    case IntArg::overflow:
      throw_python_int_out_of_bounds(op.name, h, t.dtype());
    case IntArg::compare:
      return out_of_range_comparison(t, ta ? op.rel : mirrored(op.rel), r.above);
    case IntArg::as_number:
      break;
  }
  return std::nullopt;
}
}  // namespace

Tensor apply_binary(const Binary& op, py::handle a, py::handle b) {
  if (auto r = with_python_int(op, a, b)) return *r;
  // An int beyond 2**53 goes as an exact i64 0-d array, not as a (double) Scalar.
  const bool a_tensor = py::isinstance<Tensor>(a) || inexact_python_int(a);
  const bool b_tensor = py::isinstance<Tensor>(b) || inexact_python_int(b);
  std::optional<Scalar> sa = a_tensor ? std::nullopt : as_python_scalar(a);
  std::optional<Scalar> sb = b_tensor ? std::nullopt : as_python_scalar(b);
  if (sa && sb) sa.reset();  // two numbers: a 0-d tensor for a
  if (sb && op.ts) {
    Tensor ta = operand(a);
    return call([&](const Tensor& x) { return op.ts(x, *sb); }, ta);
  }
  if (sa && (op.st || op.flipped)) {
    Tensor tb = operand(b);
    return op.st ? call([&](const Tensor& y) { return op.st(*sa, y); }, tb)
                 : call([&](const Tensor& y) { return op.flipped(y, *sa); }, tb);
  }
  Tensor ta = operand(a), tb = operand(b);
  return call(op.tt, ta, tb);
}

namespace {

#define TF_BINARY_FULL(fn) \
  Binary { static_cast<TT>(&fn), static_cast<TS>(&fn), static_cast<ST>(&fn), nullptr }
#define TF_BINARY_FLIP(fn, flip) \
  Binary { static_cast<TT>(&fn), static_cast<TS>(&fn), nullptr, static_cast<TS>(&flip) }

// Ops computing in an integer operand's dtype raise for an out-of-range Python int beside it;
// comparisons answer exactly; the rest (computing integers in f64) take it as a number.
const Binary kAdd =
    with_int_arg(TF_BINARY_FLIP(tenferro::add, tenferro::add), "add", IntArg::overflow);
const Binary kSub = with_int_arg(TF_BINARY_FULL(tenferro::sub), "sub", IntArg::overflow);
const Binary kMul =
    with_int_arg(TF_BINARY_FLIP(tenferro::mul, tenferro::mul), "mul", IntArg::overflow);
const Binary kDiv = TF_BINARY_FULL(tenferro::div);
const Binary kPow = TF_BINARY_FULL(tenferro::pow);
const Binary kFloorDiv =
    with_int_arg(Binary{static_cast<TT>(&floor_divide), static_cast<TS>(&floor_divide)},
                 "floor_divide", IntArg::overflow);
const Binary kRemainder =
    with_int_arg(Binary{static_cast<TT>(&remainder), static_cast<TS>(&remainder)}, "remainder",
                 IntArg::overflow);
const Binary kEq =
    with_int_arg(TF_BINARY_FLIP(tenferro::eq, tenferro::eq), "eq", IntArg::compare, Rel::eq);
const Binary kNe =
    with_int_arg(TF_BINARY_FLIP(tenferro::ne, tenferro::ne), "ne", IntArg::compare, Rel::ne);
const Binary kLt =
    with_int_arg(TF_BINARY_FLIP(tenferro::lt, tenferro::gt), "lt", IntArg::compare, Rel::lt);
const Binary kLe =
    with_int_arg(TF_BINARY_FLIP(tenferro::le, tenferro::ge), "le", IntArg::compare, Rel::le);
const Binary kGt =
    with_int_arg(TF_BINARY_FLIP(tenferro::gt, tenferro::lt), "gt", IntArg::compare, Rel::gt);
const Binary kGe =
    with_int_arg(TF_BINARY_FLIP(tenferro::ge, tenferro::le), "ge", IntArg::compare, Rel::ge);
const Binary kMaximum =
    with_int_arg(TF_BINARY_FLIP(tenferro::maximum, tenferro::maximum), "maximum", IntArg::overflow);
const Binary kMinimum =
    with_int_arg(TF_BINARY_FLIP(tenferro::minimum, tenferro::minimum), "minimum", IntArg::overflow);
const Binary kHypot = TF_BINARY_FULL(tenferro::hypot);
const Binary kCopysign = TF_BINARY_FULL(tenferro::copysign);
const Binary kLogaddexp = TF_BINARY_FULL(tenferro::logaddexp);
const Binary kMatmul{&standard_matmul};
const Binary kAnd{&logical_and};
const Binary kOr{&logical_or};
const Binary kXor{&logical_xor};

/// A Python operator: NotImplemented when `other` is nothing a tensor can be made from (so
/// Python tries the reflected operator, or falls back to identity for == and !=). A Python int
/// is one before as_python_scalar, which raises OverflowError for an int beyond a double (beside
/// an integer tensor such an int is compared exactly; elsewhere apply_binary raises that error).
bool operand_like(py::handle h) {
  return py::isinstance<Tensor>(h) || PyLong_Check(h.ptr()) || as_python_scalar(h) ||
         py::isinstance<py::array>(h) || py::isinstance<py::list>(h) ||
         py::isinstance<py::tuple>(h) || PyObject_HasAttrString(h.ptr(), "__array__") ||
         py::isinstance(h, py::module_::import("numpy").attr("generic"));
}
py::object dunder(const Binary& op, py::handle a, py::handle b, py::handle other) {
  if (!operand_like(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return py::cast(apply_binary(op, a, b));
}

/// Whether a and b may address common bytes: one storage, or (a NumPy array wrapped without a
/// copy, np.asarray(t) converted back) another storage object over the same memory, detected by
/// the byte ranges the strided layouts span. The storage test alone missed the second case, and
/// t[1:] = np.asarray(t)[:-1] or t += np.asarray(t)[::-1] read elements already written.
bool may_share_memory(const Tensor& a, const Tensor& b) {
  if (!a.has_storage() || !b.has_storage() || a.numel() == 0 || b.numel() == 0) return false;
  if (a.storage().get() == b.storage().get()) return true;
  const auto span = [](const Tensor& t) {
    const auto item = static_cast<std::intptr_t>(dtype_size(t.dtype()));
    std::intptr_t lo = reinterpret_cast<std::intptr_t>(t.data_ptr()), hi = lo + item;
    for (std::int64_t k = 0; k < t.rank(); ++k) {
      const auto ext = static_cast<std::intptr_t>(t.shape()[k] - 1) *
                       static_cast<std::intptr_t>(t.strides()[k]) * item;
      (ext < 0 ? lo : hi) += ext;
    }
    return std::pair{lo, hi};
  };
  const auto [alo, ahi] = span(a);
  const auto [blo, bhi] = span(b);
  return alo < bhi && blo < ahi;
}

using IntoTT = void (*)(Tensor&, const Tensor&, const Tensor&);
using IntoTS = void (*)(Tensor&, const Tensor&, Scalar);

/// Writes op(a, other) into `out` through the `_into` op, taking `other` as the plain op takes
/// it beside the tensor a (apply_binary): a Python int beside an integer a takes a's dtype (NEP
/// 50; out of its range OverflowError where the op computes in it; exactly, as a 0-d tensor of
/// a's dtype, where a double would round it), another Python number goes as a C++ Scalar, the
/// rest as a tensor. `copy_overlap`: a tensor `other` over out's memory is copied first (the
/// in-place operators; the `_into` functions refuse a partial overlap instead).
void write_binary_into(Tensor& out, const Tensor& a, py::handle other, const Binary& op, IntoTT tt,
                       IntoTS ts, bool copy_overlap) {
  const PythonIntRange r = python_int_range(other, a.dtype());
  if (r.is_int && !r.fits && op.int_arg == IntArg::overflow)
    throw_python_int_out_of_bounds(op.name, other, a.dtype());
  if (r.is_int && r.fits && !r.exact) {
    Tensor b = asarray(py::reinterpret_borrow<py::object>(other), a.dtype());
    call([&](const Tensor& x, const Tensor& y) { tt(out, x, y); }, a, b);
    return;
  }
  if (py::isinstance<Tensor>(other) || inexact_python_int(other) || !as_python_scalar(other)) {
    Tensor b = operand(other);
    // A view of out's own storage (x[1:] += x[:-1]) is read as if copied first, as NumPy: the
    // _into op refuses a partial overlap rather than read elements it has already written.
    if (copy_overlap && !b.aux() && may_share_memory(b, out))
      b = call([](const Tensor& y) { return tenferro::copy(y); }, b);
    call([&](const Tensor& x, const Tensor& y) { tt(out, x, y); }, a, b);
  } else {
    Scalar s = *as_python_scalar(other);
    call([&](const Tensor& x) { ts(out, x, s); }, a);
  }
}

/// In-place operator: writes into `self` through the `_into` op when that is allowed (a plain
/// concrete tensor), else computes out of place (Python then rebinds the name), as a tensor that
/// requires grad or is traced cannot be written in place.
py::object inplace(py::object self_obj, py::handle other, const Binary& op, IntoTT tt, IntoTS ts) {
  Tensor& self = self_obj.cast<Tensor&>();
  // Under no_grad a tensor that only requires grad is written in place (a parameter update);
  // otherwise autodiff/trace state makes the operator compute out of place and rebind the name.
  if (!self.has_storage() || !writable_in_place(self))
    return py::cast(apply_binary(op, self_obj, other));
  write_binary_into(self, self, other, op, tt, ts, true);
  return self_obj;
}

// ---- indexing ----

std::int64_t clamp_index(py::handle h, std::int64_t none_value) {
  if (h.is_none()) return none_value;
  // Python ints beyond int64 clamp (slice bounds are clamped to the axis anyway).
  int overflow = 0;
  const long long v = index_value(h, overflow);
  if (overflow > 0) return std::numeric_limits<std::int64_t>::max();
  if (overflow < 0) return std::numeric_limits<std::int64_t>::min();
  return v;
}

bool is_basic_index(py::handle h) {
  return h.is_none() || h.ptr() == Py_Ellipsis || PySlice_Check(h.ptr()) ||
         (PyIndex_Check(h.ptr()) && !py::isinstance<Tensor>(h) && !py::isinstance<py::array>(h));
}

/// x[key] for a key of ints, slices, Ellipsis and None: views through slice/squeeze/unsqueeze.
Tensor basic_index(const Tensor& x, py::handle key_in) {
  py::tuple key = py::isinstance<py::tuple>(key_in)
                      ? py::reinterpret_borrow<py::tuple>(key_in)
                      : py::make_tuple(py::reinterpret_borrow<py::object>(key_in));
  std::int64_t consuming = 0;
  int ellipses = 0;
  for (py::handle h : key) {
    if (h.ptr() == Py_Ellipsis)
      ++ellipses;
    else if (!h.is_none())
      ++consuming;
  }
  if (ellipses > 1) throw py::index_error("an index can only have a single ellipsis ('...')");
  if (consuming > x.rank())
    throw py::index_error("too many indices for tensor: tensor is " + std::to_string(x.rank()) +
                          "-dimensional, but " + std::to_string(consuming) + " were indexed");
  Tensor r = x;
  std::int64_t ax = 0;
  for (py::handle h : key) {
    if (h.ptr() == Py_Ellipsis) {
      ax += x.rank() - consuming;
    } else if (h.is_none()) {
      r = r.unsqueeze(ax);
      ++ax;
    } else if (PySlice_Check(h.ptr())) {
      auto* s = reinterpret_cast<PySliceObject*>(h.ptr());
      const std::int64_t step = clamp_index(s->step, 1);
      if (step == 0) throw py::value_error("slice step cannot be zero");
      constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
      constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
      const std::int64_t start = clamp_index(s->start, step > 0 ? 0 : kMax);
      const std::int64_t stop = clamp_index(s->stop, step > 0 ? kMax : kMin);
      r = r.slice(ax, start, stop, step);
      ++ax;
    } else {
      std::int64_t i = clamp_index(h, 0);
      const std::int64_t n = r.shape()[ax];
      if (i < -n || i >= n)
        throw py::index_error("index " + std::to_string(i) + " is out of bounds for axis " +
                              std::to_string(ax) + " with size " + std::to_string(n));
      if (i < 0) i += n;
      r = r.slice(ax, i, i + 1).squeeze(ax);
    }
  }
  return r;
}

/// NumPy's x[mask]: a k-dimensional bool mask selects along the first k axes, whose sizes it must
/// match (IndexError otherwise, as NumPy; no broadcasting); the result is [count] + x.shape[k:],
/// a copy (masked_select for k == rank, else index_select of the flattened leading axes).
Tensor bool_mask_index(const Tensor& x, const Tensor& mask) {
  const std::int64_t k = mask.rank();
  if (k > x.rank())
    throw py::index_error("too many indices for tensor: tensor is " + std::to_string(x.rank()) +
                          "-dimensional, but " + std::to_string(k) + " were indexed");
  for (std::int64_t i = 0; i < k; ++i)
    if (mask.shape()[i] != x.shape()[i])
      throw py::index_error(
          "boolean index did not match indexed tensor along axis " + std::to_string(i) +
          "; size of axis is " + std::to_string(x.shape()[i]) +
          " but size of corresponding boolean axis is " + std::to_string(mask.shape()[i]));
  return call(
      [k](const Tensor& t, const Tensor& m) {
        if (k == t.rank()) return masked_select(t, m);
        Dims rows{1};
        for (std::int64_t i = 0; i < k; ++i) rows[0] *= t.shape()[i];
        for (std::int64_t i = k; i < t.rank(); ++i) rows.push_back(t.shape()[i]);
        const Tensor picked = nonzero(m.reshape({m.numel()}));  // [count, 1] i64
        return index_select(t.reshape(rows), 0, picked.reshape({picked.shape()[0]}));
      },
      x, mask);
}

Tensor getitem(const Tensor& x, py::handle key) {
  bool basic = true;
  if (py::isinstance<py::tuple>(key)) {
    for (py::handle h : key)
      if (!is_basic_index(h)) basic = false;
  } else {
    basic = is_basic_index(key);
  }
  if (basic) return basic_index(x, key);
  if (!py::isinstance<py::tuple>(key)) {
    // A single array-like index: a bool mask (masked_select) or rank-1 integers (index_select).
    Tensor idx = operand(key);
    if (idx.dtype() == DType::boolean) return bool_mask_index(x, idx);
    if ((idx.dtype() == DType::i32 || idx.dtype() == DType::i64) && idx.rank() == 1)
      return call([](const Tensor& a, const Tensor& i) { return index_select(a, 0, i); }, x, idx);
  }
  throw Error(ErrorKind::Unsupported,
              "Tensor.__getitem__: supported keys are ints, slices, Ellipsis, None (views), a "
              "single bool mask or a single rank-1 integer tensor; use take_along_axis, "
              "index_select or masked_select for other advanced indexing");
}

void setitem(Tensor& x, py::handle key, py::handle value) {
  for (py::handle h : py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key)
                                                     : py::make_tuple(key))
    if (!is_basic_index(h))
      throw Error(ErrorKind::Unsupported,
                  "Tensor.__setitem__: only ints, slices, Ellipsis and None are supported keys");
  Tensor view = basic_index(x, key);
  Tensor src;
  if (auto s = as_python_scalar(value); s && !py::isinstance<Tensor>(value)) {
    src = scalar_tensor(*s, view.dtype());
  } else {
    src = operand(value);
    if (may_share_memory(src, view))
      src = call(&copy, src);  // the _into ops refuse overlapping (shifted) views of the output
    if (src.dtype() != view.dtype())
      src = call([&](const Tensor& t) { return cast(t, view.dtype()); }, src);
  }
  src = src.broadcast_to(view.shape());
  call([&](const Tensor& s) { conj_into(view, s); }, src);  // conj is the identity on real dtypes
  if (is_complex(view.dtype())) call([&](const Tensor& v) { conj_into(view, v); }, view);
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<PyDType>(m, "DType",
                      "A tenferro element type. The canonical objects are tenferro.bool_, i8, "
                      "i16, i32, i64, u8, u16, u32, u64, f32, f64, c64, c128 (aliases int8 ... "
                      "int64, uint8 ... uint64, float32, float64, complex64, complex128); "
                      "compares equal to its names and NumPy dtypes.")
      .def_property_readonly("name", [](const PyDType& d) { return std::string(dtype_name(d.d)); })
      .def_property_readonly("itemsize", [](const PyDType& d) { return dtype_size(d.d); })
      .def_property_readonly("is_complex", [](const PyDType& d) { return is_complex(d.d); })
      .def_property_readonly("is_floating", [](const PyDType& d) { return is_floating(d.d); })
      .def_property_readonly("is_integral", [](const PyDType& d) { return is_integral(d.d); })
      .def_property_readonly(
          "dtype", [](const PyDType& d) { return numpy_dtype(d.d); },
          "The NumPy dtype (so np.dtype(tenferro.f64) works).")
      .def("__eq__",
           [](const PyDType& d, py::handle o) {
             auto other = to_dtype_or_none(o);
             return other && *other == d.d;
           })
      .def("__ne__",
           [](const PyDType& d, py::handle o) {
             auto other = to_dtype_or_none(o);
             return !(other && *other == d.d);
           })
      .def("__hash__",
           [](const PyDType& d) { return py::hash(py::str(std::string(dtype_name(d.d)))); })
      .def("__str__", [](const PyDType& d) { return std::string(dtype_name(d.d)); })
      .def("__repr__", [](const PyDType& d) {
        return "tenferro." + std::string(d.d == DType::boolean ? "bool_" : dtype_name(d.d));
      });
  for (const auto& [name, d] : kDTypeNames) {
    py::object& obj = dtype_object(d);
    if (!obj) obj = py::cast(PyDType{d});
    m.attr(name) = obj;
  }
  m.def(
      "dtype", [](py::handle o) { return dtype_object(to_dtype(o)); }, "obj"_a,
      "The tenferro dtype object for a name, a NumPy dtype or a tenferro dtype.");
  m.def(
      "promote_types",
      [](py::handle a, py::handle b) { return dtype_object(promote(to_dtype(a), to_dtype(b))); },
      "a"_a, "b"_a, "The promoted dtype (tenferro's rules, docs/dtypes.md).");

  auto dims_tuple = [](const Dims& d) {
    py::tuple t(d.size());
    for (std::size_t k = 0; k < d.size(); ++k) t[k] = d[k];
    return t;
  };
  py::class_<Tensor> cls(m, "Tensor",
                         "A strided view of shared, reference-counted storage (C++ "
                         "tenferro::Tensor). Tensor(obj, dtype=None) is asarray(obj, dtype).");
  cls.def(py::init([](const py::object& obj, const py::object& dtype) {
            return asarray(obj, to_dtype_or_none(dtype));
          }),
          "obj"_a, "dtype"_a = py::none())
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("shape", [=](const Tensor& t) { return dims_tuple(t.shape()); })
      .def_property_readonly(
          "strides", [=](const Tensor& t) { return dims_tuple(t.strides()); },
          "Strides in ELEMENTS (NumPy's ndarray.strides are in bytes).")
      .def_property_readonly("offset", &Tensor::offset, "Offset into the storage, in elements.")
      .def_property_readonly("ndim", &Tensor::rank)
      .def_property_readonly("size", &Tensor::numel)
      .def_property_readonly("itemsize", [](const Tensor& t) { return dtype_size(t.dtype()); })
      .def_property_readonly("nbytes",
                             [](const Tensor& t) { return t.numel() * dtype_size(t.dtype()); })
      .def_property_readonly("defined", &Tensor::defined)
      .def_property_readonly("has_storage", &Tensor::has_storage)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("data_ptr",
           [](const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.data_ptr()); })
      .def("__repr__",
           [](const Tensor& t) {
             return t.defined() ? t.to_string() : std::string("Tensor(undefined)");
           })
      .def("__str__",
           [](const Tensor& t) {
             return t.defined() ? t.to_string() : std::string("Tensor(undefined)");
           })
      .def("numpy", &to_numpy,
           "A NumPy array sharing this tensor's memory (zero-copy; it keeps the storage alive).")
      .def(
          "__array__",
          [](const Tensor& t, const py::object& dtype, const py::object&) -> py::object {
            py::array a = to_numpy(t);
            if (dtype.is_none()) return a;
            return a.attr("astype")(dtype, py::arg("copy") = false);
          },
          "dtype"_a = py::none(), "copy"_a = py::none())
      .def("item", &item_of, "The only element as a Python bool, int, float or complex.")
      .def("tolist", [](const Tensor& t) { return to_numpy(t).attr("tolist")(); })
      .def("__bool__",
           [](const Tensor& t) {
             if (t.numel() != 1)
               throw Error(ErrorKind::InvalidArgument,
                           "Tensor.__bool__: the truth value of a tensor with " +
                               std::to_string(t.numel()) +
                               " elements is ambiguous; use any() or all()");
             return py::bool_(item_of(t)).cast<bool>();
           })
      .def("__float__", [](const Tensor& t) { return py::float_(item_of(t)); })
      .def("__int__", [](const Tensor& t) { return py::int_(item_of(t)); })
      .def("__complex__", [](const Tensor& t) { return t.item<c128>(); })
      .def("__index__",
           [](const Tensor& t) {
             if (!is_integral(t.dtype()) || t.rank() != 0)
               throw py::type_error("only 0-d integer tensors can be used as an index");
             return py::int_(item_of(t));
           })
      .def("__len__",
           [](const Tensor& t) {
             if (t.rank() == 0) throw py::type_error("len() of a 0-d tensor");
             return t.shape()[0];
           })
      .def("__getitem__", &getitem)
      .def("__setitem__", &setitem)
      // Views and layout (catalog ops: recorded by autodiff, captured by tracing).
      .def("reshape",
           [](const Tensor& t, py::args shape) {
             Dims d = shape.size() == 1 && !py::isinstance<py::int_>(shape[0]) ? to_dims(shape[0])
                                                                               : to_dims(shape);
             return t.reshape(d);
           })
      .def("permute",
           [](const Tensor& t, py::args axes) {
             Dims d = axes.size() == 1 && !py::isinstance<py::int_>(axes[0]) ? to_dims(axes[0])
                                                                             : to_dims(axes);
             return t.permute(d);
           })
      .def("transpose", &Tensor::transpose, "a"_a = -2, "b"_a = -1)
      .def_property_readonly(
          "T",
          [](const Tensor& t) {
            Dims axes;
            for (std::int64_t k = t.rank() - 1; k >= 0; --k) axes.push_back(k);
            return t.permute(axes);
          },
          "All axes reversed (NumPy's .T).")
      .def("slice", &Tensor::slice, "axis"_a, "start"_a, "stop"_a, "step"_a = 1)
      .def("broadcast_to",
           [](const Tensor& t, const py::object& s) { return t.broadcast_to(to_dims(s)); })
      .def("expand", [](const Tensor& t, const py::object& s) { return t.expand(to_dims(s)); })
      .def("squeeze", &Tensor::squeeze, "axis"_a)
      .def("unsqueeze", &Tensor::unsqueeze, "axis"_a)
      .def("contiguous",
           [](const Tensor& t) { return call([](const Tensor& x) { return x.contiguous(); }, t); })
      .def(
          "astype",
          [](const Tensor& t, py::handle d) {
            // A new array, as NumPy's and the standard's astype (copy=True): cast() returns x
            // itself for an equal dtype, and `y = x.astype(x.dtype); y += 1` changed x.
            DType dt = to_dtype(d);
            return call(
                [dt](const Tensor& x) { return x.dtype() == dt ? tenferro::copy(x) : cast(x, dt); },
                t);
          })
      // Autodiff (tape style).
      .def_property_readonly("requires_grad", &Tensor::requires_grad)
      .def(
          "requires_grad_",
          [](py::object self, bool on) {
            self.cast<Tensor&>().requires_grad_(on);
            return self;
          },
          "requires_grad"_a = true)
      .def_property_readonly("grad",
                             [](const Tensor& t) -> py::object {
                               Tensor g = t.grad();
                               if (!g.defined()) return py::none();
                               return py::cast(std::move(g));
                             })
      .def("zero_grad_",
           [](py::object self) {
             self.cast<Tensor&>().zero_grad_();
             return self;
           })
      .def_property_readonly("is_leaf", [](const Tensor& t) { return is_leaf(t); })
      .def("detach", [](const Tensor& t) { return detach(t); })
      .def(
          "backward",
          [](const Tensor& t, const py::object& gradient, bool retain_graph, bool create_graph) {
            BackwardOptions o{.retain_graph = retain_graph, .create_graph = create_graph};
            if (gradient.is_none()) {
              call([&](const Tensor& x) { backward(x, o); }, t);
            } else {
              Tensor ct = operand(gradient);
              call([&](const Tensor& x, const Tensor& c) { backward(x, c, o); }, t, ct);
            }
          },
          "gradient"_a = py::none(), "retain_graph"_a = false, "create_graph"_a = false)
      // Operators (NumPy broadcasting and tenferro's promotion, docs/dtypes.md).
      .def(
          "__add__", [](py::handle a, py::handle b) { return dunder(kAdd, a, b, b); },
          py::is_operator())
      .def(
          "__radd__", [](py::handle a, py::handle b) { return dunder(kAdd, b, a, b); },
          py::is_operator())
      .def(
          "__sub__", [](py::handle a, py::handle b) { return dunder(kSub, a, b, b); },
          py::is_operator())
      .def(
          "__rsub__", [](py::handle a, py::handle b) { return dunder(kSub, b, a, b); },
          py::is_operator())
      .def(
          "__mul__", [](py::handle a, py::handle b) { return dunder(kMul, a, b, b); },
          py::is_operator())
      .def(
          "__rmul__", [](py::handle a, py::handle b) { return dunder(kMul, b, a, b); },
          py::is_operator())
      .def(
          "__truediv__", [](py::handle a, py::handle b) { return dunder(kDiv, a, b, b); },
          py::is_operator())
      .def(
          "__rtruediv__", [](py::handle a, py::handle b) { return dunder(kDiv, b, a, b); },
          py::is_operator())
      .def(
          "__floordiv__", [](py::handle a, py::handle b) { return dunder(kFloorDiv, a, b, b); },
          py::is_operator())
      .def(
          "__rfloordiv__", [](py::handle a, py::handle b) { return dunder(kFloorDiv, b, a, b); },
          py::is_operator())
      .def(
          "__mod__", [](py::handle a, py::handle b) { return dunder(kRemainder, a, b, b); },
          py::is_operator())
      .def(
          "__rmod__", [](py::handle a, py::handle b) { return dunder(kRemainder, b, a, b); },
          py::is_operator())
      .def(
          "__pow__", [](py::handle a, py::handle b) { return dunder(kPow, a, b, b); },
          py::is_operator())
      .def(
          "__rpow__", [](py::handle a, py::handle b) { return dunder(kPow, b, a, b); },
          py::is_operator())
      .def(
          "__matmul__", [](py::handle a, py::handle b) { return dunder(kMatmul, a, b, b); },
          py::is_operator())
      .def(
          "__rmatmul__", [](py::handle a, py::handle b) { return dunder(kMatmul, b, a, b); },
          py::is_operator())
      .def(
          "__and__", [](py::handle a, py::handle b) { return dunder(kAnd, a, b, b); },
          py::is_operator())
      .def(
          "__rand__", [](py::handle a, py::handle b) { return dunder(kAnd, b, a, b); },
          py::is_operator())
      .def(
          "__or__", [](py::handle a, py::handle b) { return dunder(kOr, a, b, b); },
          py::is_operator())
      .def(
          "__ror__", [](py::handle a, py::handle b) { return dunder(kOr, b, a, b); },
          py::is_operator())
      .def(
          "__xor__", [](py::handle a, py::handle b) { return dunder(kXor, a, b, b); },
          py::is_operator())
      .def(
          "__rxor__", [](py::handle a, py::handle b) { return dunder(kXor, b, a, b); },
          py::is_operator())
      .def(
          "__eq__", [](py::handle a, py::handle b) { return dunder(kEq, a, b, b); },
          py::is_operator())
      .def(
          "__ne__", [](py::handle a, py::handle b) { return dunder(kNe, a, b, b); },
          py::is_operator())
      .def(
          "__lt__", [](py::handle a, py::handle b) { return dunder(kLt, a, b, b); },
          py::is_operator())
      .def(
          "__le__", [](py::handle a, py::handle b) { return dunder(kLe, a, b, b); },
          py::is_operator())
      .def(
          "__gt__", [](py::handle a, py::handle b) { return dunder(kGt, a, b, b); },
          py::is_operator())
      .def(
          "__ge__", [](py::handle a, py::handle b) { return dunder(kGe, a, b, b); },
          py::is_operator())
      .def("__neg__",
           [](const Tensor& t) { return call(static_cast<Tensor (*)(const Tensor&)>(&neg), t); })
      // A new array, as NumPy (+x aliasing x let `y = +x; y[0] = 9` write into x).
      .def("__pos__",
           [](const Tensor& t) {
             return call([](const Tensor& x) { return tenferro::copy(x); }, t);
           })
      .def("__abs__",
           [](const Tensor& t) {
             return call(static_cast<Tensor (*)(const Tensor&)>(&tenferro::abs), t);
           })
      .def("__invert__", [](const Tensor& t) { return call(&logical_not, t); })
      .def("__iadd__",
           [](py::object s, py::handle o) {
             return inplace(s, o, kAdd, static_cast<IntoTT>(&add_into),
                            static_cast<IntoTS>(&add_into));
           })
      .def("__isub__",
           [](py::object s, py::handle o) {
             return inplace(s, o, kSub, static_cast<IntoTT>(&sub_into),
                            static_cast<IntoTS>(&sub_into));
           })
      .def("__imul__",
           [](py::object s, py::handle o) {
             return inplace(s, o, kMul, static_cast<IntoTT>(&mul_into),
                            static_cast<IntoTS>(&mul_into));
           })
      .def("__itruediv__", [](py::object s, py::handle o) {
        return inplace(s, o, kDiv, static_cast<IntoTT>(&div_into), static_cast<IntoTS>(&div_into));
      });
  cls.attr("__array_ufunc__") = py::none();  // ndarray <op> Tensor defers to Tensor's reflected op
  cls.attr("__hash__") = py::none();
  py::implicitly_convertible<py::object, Tensor>();  // any array-like where a Tensor is expected

  m.def(
      "asarray",
      [](const py::object& obj, const py::object& dtype) {
        return asarray(obj, to_dtype_or_none(dtype));
      },
      "obj"_a, "dtype"_a = py::none(),
      "A Tensor from a Tensor, NumPy array (zero-copy when aligned, writeable and native-endian), "
      "Python scalar or nested list; dtype converts (a Tensor is cast).");
  m.def("numpy", &to_numpy, "t"_a);

  // ---- Construction ----
  m.def(
      "zeros", [](const py::object& s, py::handle d) { return zeros(to_dims(s), dtype_or_f64(d)); },
      "shape"_a, "dtype"_a = dtype_object(DType::f64));
  m.def(
      "ones", [](const py::object& s, py::handle d) { return ones(to_dims(s), dtype_or_f64(d)); },
      "shape"_a, "dtype"_a = dtype_object(DType::f64));
  m.def(
      "empty",
      [](const py::object& s, py::handle d) { return Tensor::empty(to_dims(s), dtype_or_f64(d)); },
      "shape"_a, "dtype"_a = dtype_object(DType::f64));
  m.def(
      "full",
      [](const py::object& s, py::handle v, py::handle d) {
        return full(to_dims(s), scalar_arg(v), dtype_or_f64(d));
      },
      "shape"_a, "value"_a, "dtype"_a = dtype_object(DType::f64));
  m.def(
      "scalar_tensor",
      [](py::handle v, py::handle d) {
        // As full (NumPy 2): a Python int outside an integer dtype's range is OverflowError, not
        // the bound the Scalar's cast saturates it to (scalar_tensor(300, uint8) was 255), and
        // one beyond 2**53 that the double would round is ValueError.
        const DType dt = dtype_or_f64(d);
        const PythonIntRange r = python_int_range(v, dt);
        if (r.is_int && !r.fits) throw_python_int_out_of_bounds("scalar_tensor", v, dt);
        return scalar_tensor(scalar_arg(v, dt), dt);
      },
      "value"_a, "dtype"_a = dtype_object(DType::f64));
  m.def(
      "arange",
      [](const py::object& start, const py::object& stop, const py::object& step,
         const py::object& dtype) {
        // NumPy's signature: arange(stop) or arange(start, stop, step); all-int arguments give
        // i64 when dtype is None (the C++ default is f64).
        const bool ints = py::isinstance<py::int_>(start) &&
                          (stop.is_none() || py::isinstance<py::int_>(stop)) &&
                          py::isinstance<py::int_>(step);
        DType d = dtype.is_none() ? (ints ? DType::i64 : DType::f64) : to_dtype(dtype);
        if (stop.is_none()) return arange(0.0, start.cast<double>(), step.cast<double>(), d);
        return arange(start.cast<double>(), stop.cast<double>(), step.cast<double>(), d);
      },
      "start"_a, "stop"_a = py::none(), "step"_a = 1, "dtype"_a = py::none());
  m.def(
      "rand",
      [](const py::object& s, std::uint64_t seed, py::handle d) {
        return rand(to_dims(s), seed, dtype_or_f64(d));
      },
      "shape"_a, "seed"_a, "dtype"_a = dtype_object(DType::f64));
  m.def(
      "randn",
      [](const py::object& s, std::uint64_t seed, py::handle d) {
        return randn(to_dims(s), seed, dtype_or_f64(d));
      },
      "shape"_a, "seed"_a, "dtype"_a = dtype_object(DType::f64));
  m.def(
      "allclose",
      [](const Tensor& a, const Tensor& b, double rtol, double atol) {
        return call([&](const Tensor& x, const Tensor& y) { return allclose(x, y, rtol, atol); }, a,
                    b);
      },
      "a"_a, "b"_a, "rtol"_a = 1e-5, "atol"_a = 1e-8);

  // Binary ops with NumPy-style scalar handling (Scalar forms where C++ has them).
  const std::pair<const char*, const Binary*> binaries[] = {{"add", &kAdd},
                                                            {"sub", &kSub},
                                                            {"mul", &kMul},
                                                            {"div", &kDiv},
                                                            {"pow", &kPow},
                                                            {"floor_divide", &kFloorDiv},
                                                            {"remainder", &kRemainder},
                                                            {"maximum", &kMaximum},
                                                            {"minimum", &kMinimum},
                                                            {"eq", &kEq},
                                                            {"ne", &kNe},
                                                            {"lt", &kLt},
                                                            {"le", &kLe},
                                                            {"gt", &kGt},
                                                            {"ge", &kGe},
                                                            {"logical_and", &kAnd},
                                                            {"logical_or", &kOr},
                                                            {"logical_xor", &kXor},
                                                            {"hypot", &kHypot},
                                                            {"copysign", &kCopysign},
                                                            {"logaddexp", &kLogaddexp}};
  for (const auto& [name, op] : binaries) {
    const Binary* p = op;
    m.def(
        name, [p](py::handle a, py::handle b) { return apply_binary(*p, a, b); }, "a"_a, "b"_a);
  }

  // The binary *_into functions take b as the plain ops do (write_binary_into): they used to
  // convert a Python number by asarray where the op has no Scalar form (maximum_into(out_f32,
  // x_f32, 0.5) was DTypeMismatchError) and a Python int without x's dtype (add_into(out_u64,
  // x_u64, 2**63 + 1) added 2**63, as the int went through a double).
  struct BinaryInto {
    const char* name;
    const Binary* op;
    IntoTT tt;
    IntoTS ts;
  };
  const BinaryInto binary_into[] = {{"add_into", &kAdd, &add_into, &add_into},
                                    {"sub_into", &kSub, &sub_into, &sub_into},
                                    {"mul_into", &kMul, &mul_into, &mul_into},
                                    {"div_into", &kDiv, &div_into, &div_into},
                                    {"pow_into", &kPow, &pow_into, &pow_into},
                                    {"maximum_into", &kMaximum, &maximum_into, &maximum_into},
                                    {"minimum_into", &kMinimum, &minimum_into, &minimum_into}};
  for (const BinaryInto& b : binary_into) {
    const BinaryInto into = b;
    m.def(
        into.name,
        [into](Tensor& out, const Tensor& a, py::handle other) {
          write_binary_into(out, a, other, *into.op, into.tt, into.ts, false);
        },
        "out"_a, "a"_a, "b"_a,
        "Writes op(a, b) into `out` (exact shape and dtype; see ops/elementwise.hpp); b as in the "
        "plain op.");
  }
}

}  // namespace tenferro::python
