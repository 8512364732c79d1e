// Elementwise, reduction, structural, scan, sorting and indexing ops: one wrapper per public C++
// op (ops/*.hpp), keyword names from NumPy where NumPy has the op (axis, keepdims). Binary ops
// with Scalar forms are bound in tensor.cpp (apply_binary).
#include "common.hpp"

namespace tenferro::python {

namespace {

using Unary = Tensor (*)(const Tensor&);
using IntoUnary = void (*)(Tensor&, const Tensor&);
using Reduce = Tensor (*)(const Tensor&, Dims, bool);

py::tuple pair(const ValuesIndices& r) { return py::make_tuple(r.values, r.indices); }

// A value the op writes into elements of x (pad's constant, masked_fill's value, scatter's
// number): a Python int outside the range of an integer x is NumPy 2's OverflowError ("pad:
// Python integer 300 out of bounds for uint8", as `x[key] = v` and `full`), not the saturated
// bound the C++ Scalar's cast gives (pad(x_u8, 1, constant_value=-1) padded with 0). Bounds
// (clamp) keep scalar_arg's saturation. Then scalar_arg(h, target): ValueError beyond 2**53.
Scalar written_scalar_arg(const char* op, py::handle h, DType target) {
  // A NumPy integer scalar (np.int64(300)) counts as the Python int it holds, as in `x[key] = v`
  // and `full`; through the Scalar's double it was saturated too (pad(x_u8, 1, np.int64(300))
  // padded with 255).
  py::object held;
  if (is_integer(target) && !PyLong_Check(h.ptr()) &&
      py::isinstance(h, py::module_::import("numpy").attr("integer"))) {
    held = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
    if (!held) throw py::error_already_set();
    h = held;
  }
  const PythonIntRange r = python_int_range(h, target);
  if (r.is_int && !r.fits) throw_python_int_out_of_bounds(op, h, target);
  return scalar_arg(h, target);
}

}  // namespace

void bind_ops(py::module_& m) {
  const std::pair<const char*, Unary> unaries[] = {{"neg", &neg},
                                                   {"conj", &conj},
                                                   {"abs", &tenferro::abs},
                                                   {"sign", &sign},
                                                   {"square", &square},
                                                   {"exp", &tenferro::exp},
                                                   {"log", &tenferro::log},
                                                   {"sin", &tenferro::sin},
                                                   {"cos", &tenferro::cos},
                                                   {"tanh", &tenferro::tanh},
                                                   {"sqrt", &tenferro::sqrt},
                                                   {"rsqrt", &rsqrt},
                                                   {"expm1", &tenferro::expm1},
                                                   {"log1p", &tenferro::log1p},
                                                   {"floor", &tenferro::floor},
                                                   {"ceil", &tenferro::ceil},
                                                   {"round", &tenferro::round},
                                                   {"trunc", &tenferro::trunc},
                                                   {"tan", &tenferro::tan},
                                                   {"sinh", &tenferro::sinh},
                                                   {"cosh", &tenferro::cosh},
                                                   {"asin", &tenferro::asin},
                                                   {"acos", &tenferro::acos},
                                                   {"atan", &tenferro::atan},
                                                   {"asinh", &tenferro::asinh},
                                                   {"acosh", &tenferro::acosh},
                                                   {"atanh", &tenferro::atanh},
                                                   {"log2", &tenferro::log2},
                                                   {"log10", &tenferro::log10},
                                                   {"exp2", &tenferro::exp2},
                                                   {"erf", &tenferro::erf},
                                                   {"isnan", &tenferro::isnan},
                                                   {"isinf", &tenferro::isinf},
                                                   {"isfinite", &tenferro::isfinite},
                                                   {"signbit", &tenferro::signbit},
                                                   {"real", &tenferro::real},
                                                   {"imag", &tenferro::imag},
                                                   {"logical_not", &logical_not},
                                                   {"angle", &angle},
                                                   {"contiguous", &tenferro::contiguous},
                                                   {"copy", &tenferro::copy}};
  for (const auto& [name, fn] : unaries) {
    Unary f = fn;
    m.def(
        name, [f](const Tensor& x) { return call(f, x); }, "x"_a);
  }
  const std::pair<const char*, IntoUnary> unary_into[] = {
      {"neg_into", &neg_into},       {"conj_into", &conj_into},   {"abs_into", &abs_into},
      {"square_into", &square_into}, {"exp_into", &exp_into},     {"log_into", &log_into},
      {"sin_into", &sin_into},       {"cos_into", &cos_into},     {"tanh_into", &tanh_into},
      {"sqrt_into", &sqrt_into},     {"rsqrt_into", &rsqrt_into}, {"expm1_into", &expm1_into},
      {"log1p_into", &log1p_into}};
  for (const auto& [name, fn] : unary_into) {
    IntoUnary f = fn;
    m.def(
        name, [f](Tensor& out, const Tensor& x) { call([&](const Tensor& a) { f(out, a); }, x); },
        "out"_a, "x"_a,
        "Writes the result into `out` (exact shape and dtype; see ops/elementwise.hpp).");
  }
  // The binary *_into functions are bound in tensor.cpp (write_binary_into), beside the plain
  // ops whose handling of Python numbers they share.
  m.def(
      "clamp",
      [](const Tensor& x, py::handle lo_arg, py::handle hi_arg) {
        const Scalar lo = scalar_arg(lo_arg, x.dtype()), hi = scalar_arg(hi_arg, x.dtype());
        return call([&](const Tensor& t) { return clamp(t, lo, hi); }, x);
      },
      "x"_a, "lo"_a, "hi"_a);
  m.def(
      "complex",
      [](const Tensor& re, const Tensor& im) { return call(&tenferro::complex, re, im); }, "re"_a,
      "im"_a);
  m.def(
      "atan2", [](const Tensor& y, const Tensor& x) { return call(&atan2, y, x); }, "y"_a, "x"_a);
  m.def(
      "polar", [](const Tensor& a, const Tensor& t) { return call(&polar, a, t); }, "abs"_a,
      "angle"_a);
  m.def(
      "where",
      [](const Tensor& c, const Tensor& a, const Tensor& b) { return call(&where, c, a, b); },
      "cond"_a, "a"_a, "b"_a);
  m.def(
      "select",
      [](const Tensor& c, const Tensor& a, const Tensor& b) { return call(&select, c, a, b); },
      "cond"_a, "a"_a, "b"_a);
  m.def(
      "cast",
      [](const Tensor& x, py::handle d) {
        DType dt = to_dtype(d);
        return call([dt](const Tensor& t) { return cast(t, dt); }, x);
      },
      "x"_a, "dtype"_a);
  m.def(
      "convert",
      [](const Tensor& x, py::handle d) {
        DType dt = to_dtype(d);
        return call([dt](const Tensor& t) { return convert(t, dt); }, x);
      },
      "x"_a, "dtype"_a);

  // ---- Reductions ----
  const std::pair<const char*, Reduce> reductions[] = {
      {"sum", &tenferro::sum},  {"prod", &prod},
      {"mean", &mean},          {"max", &tenferro::max},
      {"min", &tenferro::min},  {"sum_squares", &sum_squares},
      {"norm", &norm},          {"any", &tenferro::any},
      {"all", &tenferro::all},  {"count_nonzero", &count_nonzero},
      {"logsumexp", &logsumexp}};
  for (const auto& [name, fn] : reductions) {
    Reduce f = fn;
    m.def(
        name,
        [f](const Tensor& x, const py::object& axis, bool keepdims) {
          Dims axes = to_axes(axis);
          return call([&](const Tensor& t) { return f(t, axes, keepdims); }, x);
        },
        "x"_a, "axis"_a = py::none(), "keepdims"_a = false,
        "Reduces over `axis` (None: every axis; an int or a tuple).");
  }
  m.def(
      "softmax",
      [](const Tensor& x, std::int64_t axis) {
        return call([&](const Tensor& t) { return softmax(t, axis); }, x);
      },
      "x"_a, "axis"_a = -1);
  m.def(
      "log_softmax",
      [](const Tensor& x, std::int64_t axis) {
        return call([&](const Tensor& t) { return log_softmax(t, axis); }, x);
      },
      "x"_a, "axis"_a = -1);
  for (const char* name : {"argmax", "argmin"}) {
    const bool is_max = name[3] == 'm' && name[4] == 'a';
    m.def(
        name,
        [is_max](const Tensor& x, const py::object& axis, bool keepdims) {
          // The axis is read here, with the GIL: call() may release it (to_int64 checks
          // PyErr_Occurred for -1, which crashed without the GIL for axis=-1).
          const std::optional<std::int64_t> a =
              axis.is_none() ? std::nullopt : std::optional<std::int64_t>(to_int64(axis));
          return call(
              [&](const Tensor& t) {
                if (!a) return is_max ? argmax(t) : argmin(t);
                return is_max ? argmax(t, *a, keepdims) : argmin(t, *a, keepdims);
              },
              x);
        },
        "x"_a, "axis"_a = py::none(), "keepdims"_a = false,
        "Index (i64) of the extremum along `axis`; axis=None: into the flattened tensor.");
  }

  // ---- Structural ----
  m.def(
      "reshape", [](const Tensor& x, const py::object& s) { return reshape(x, to_dims(s)); }, "x"_a,
      "shape"_a);
  m.def(
      "permute", [](const Tensor& x, const py::object& a) { return permute(x, to_dims(a)); }, "x"_a,
      "axes"_a);
  m.def(
      "transpose",
      [](const Tensor& x, std::int64_t a, std::int64_t b) { return transpose(x, a, b); }, "x"_a,
      "a"_a = -2, "b"_a = -1);
  m.def(
      "slice",
      [](const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop,
         std::int64_t step) { return slice(x, axis, start, stop, step); },
      "x"_a, "axis"_a, "start"_a, "stop"_a, "step"_a = 1);
  m.def(
      "flip",
      [](const Tensor& x, const py::object& axis) {
        return flip(x, axis.is_none() ? Dims{} : to_axes(axis));
      },
      "x"_a, "axis"_a = py::none());
  m.def(
      "roll",
      [](const Tensor& x, std::int64_t shift, std::int64_t axis) {
        return call([&](const Tensor& t) { return roll(t, shift, axis); }, x);
      },
      "x"_a, "shift"_a, "axis"_a);
  m.def(
      "broadcast_to",
      [](const Tensor& x, const py::object& s) { return broadcast_to(x, to_dims(s)); }, "x"_a,
      "shape"_a);
  m.def(
      "squeeze", [](const Tensor& x, std::int64_t a) { return squeeze(x, a); }, "x"_a, "axis"_a);
  m.def(
      "unsqueeze", [](const Tensor& x, std::int64_t a) { return unsqueeze(x, a); }, "x"_a,
      "axis"_a);
  m.def(
      "concatenate",
      [](const std::vector<Tensor>& ts, std::int64_t axis) {
        return call(
            [&](const std::vector<Tensor>& v) {
              return concatenate(std::span<const Tensor>(v), axis);
            },
            ts);
      },
      "tensors"_a, "axis"_a = 0);
  m.def(
      "stack",
      [](const std::vector<Tensor>& ts, std::int64_t axis) {
        return call(
            [&](const std::vector<Tensor>& v) { return stack(std::span<const Tensor>(v), axis); },
            ts);
      },
      "tensors"_a, "axis"_a = 0);
  m.def(
      "diagonal",
      [](const Tensor& x, std::int64_t offset, std::int64_t a1, std::int64_t a2) {
        return diagonal(x, offset, a1, a2);
      },
      "x"_a, "offset"_a = 0, "axis1"_a = -2, "axis2"_a = -1);
  m.def(
      "diag",
      [](const Tensor& x, std::int64_t k) {
        return call([&](const Tensor& t) { return diag(t, k); }, x);
      },
      "x"_a, "offset"_a = 0);
  m.def(
      "diag_embed",
      [](const Tensor& x, std::int64_t k) {
        return call([&](const Tensor& t) { return diag_embed(t, k); }, x);
      },
      "v"_a, "offset"_a = 0);
  m.def(
      "tril",
      [](const Tensor& x, std::int64_t k) {
        return call([&](const Tensor& t) { return tril(t, k); }, x);
      },
      "x"_a, "k"_a = 0);
  m.def(
      "triu",
      [](const Tensor& x, std::int64_t k) {
        return call([&](const Tensor& t) { return triu(t, k); }, x);
      },
      "x"_a, "k"_a = 0);
  m.def(
      "tile",
      [](const Tensor& x, const py::object& reps) {
        Dims r = to_dims(reps);
        return call([&](const Tensor& t) { return tile(t, r); }, x);
      },
      "x"_a, "reps"_a);
  m.def(
      "repeat_interleave",
      [](const Tensor& x, py::handle repeats, std::int64_t axis) {
        if (py::isinstance<py::int_>(repeats)) {
          const auto n = to_int64(repeats);
          return call([&](const Tensor& t) { return repeat_interleave(t, n, axis); }, x);
        }
        Tensor r = asarray(py::reinterpret_borrow<py::object>(repeats));
        return call(
            [&](const Tensor& t, const Tensor& rr) { return repeat_interleave(t, rr, axis); }, x,
            r);
      },
      "x"_a, "repeats"_a, "axis"_a);

  // ---- Scans and pad ----
  m.def(
      "cumsum",
      [](const Tensor& x, std::int64_t axis) {
        return call([&](const Tensor& t) { return cumsum(t, axis); }, x);
      },
      "x"_a, "axis"_a);
  m.def(
      "cumprod",
      [](const Tensor& x, std::int64_t axis) {
        return call([&](const Tensor& t) { return cumprod(t, axis); }, x);
      },
      "x"_a, "axis"_a);
  py::enum_<PadMode>(m, "PadMode")
      .value("constant", PadMode::constant)
      .value("reflect", PadMode::reflect)
      .value("edge", PadMode::edge);
  m.def(
      "pad",
      [](const Tensor& x, const py::object& widths, py::handle mode, py::handle value_arg) {
        const Scalar value = written_scalar_arg("pad", value_arg, x.dtype());
        // NumPy's pad_width: one (before, after) pair per axis, a single pair, or a single int,
        // as anything np.asarray turns into integers of shape (), (1,), (2,), (k, 1) or (k, 2)
        // (NumPy integers and arrays too; they were TypeError).
        std::vector<std::pair<std::int64_t, std::int64_t>> w;
        const py::module_ np = py::module_::import("numpy");
        const py::array a = np.attr("asarray")(widths);
        const char kind = a.dtype().kind();
        if (a.size() > 0 && kind != 'i' && kind != 'u')
          throw py::type_error("pad: pad_width must be of integral type");
        const py::list rows = a.ndim() == 0   ? py::list(py::make_tuple(py::make_tuple(widths)))
                              : a.size() == 0 ? py::list()  // () for a 0-d x: no pairs
                              : a.ndim() == 1 ? py::list(py::make_tuple(a.attr("tolist")()))
                                              : py::list(a.attr("tolist")());
        if (a.ndim() > 2) throw py::value_error("pad: pad_width must have at most 2 dimensions");
        for (py::handle row : rows) {
          const py::sequence r = py::reinterpret_borrow<py::sequence>(row);
          if (r.size() == 1)
            w.emplace_back(to_int64(r[0]), to_int64(r[0]));
          else if (r.size() == 2)
            w.emplace_back(to_int64(r[0]), to_int64(r[1]));
          else
            throw py::value_error("pad: each pad_width entry is one int or a (before, after) pair");
        }
        PadMode pm = PadMode::constant;
        if (py::isinstance<py::str>(mode)) {
          const std::string name = py::str(mode);
          if (name == "constant")
            pm = PadMode::constant;
          else if (name == "reflect")
            pm = PadMode::reflect;
          else if (name == "edge")
            pm = PadMode::edge;
          else
            throw py::value_error("pad: mode '" + name +
                                  "' is not supported; expected 'constant', 'reflect' or 'edge'");
        } else {
          pm = mode.cast<PadMode>();
        }
        return call(
            [&](const Tensor& t) {
              return pad(t, std::span<const std::pair<std::int64_t, std::int64_t>>(w), pm, value);
            },
            x);
      },
      "x"_a, "pad_width"_a, "mode"_a = "constant", "constant_value"_a = Scalar(0));

  // ---- Sorting ----
  m.def(
      "argsort",
      [](const Tensor& x, std::int64_t axis, bool descending) {
        return call([&](const Tensor& t) { return argsort(t, axis, descending); }, x);
      },
      "x"_a, "axis"_a = -1, "descending"_a = false);
  m.def(
      "sort",
      [](const Tensor& x, std::int64_t axis, bool descending) {
        return pair(call([&](const Tensor& t) { return sort(t, axis, descending); }, x));
      },
      "x"_a, "axis"_a = -1, "descending"_a = false,
      "(values, indices); NumPy's np.sort returns values only.");
  m.def(
      "topk",
      [](const Tensor& x, std::int64_t k, std::int64_t axis, bool largest, bool sorted) {
        return pair(call([&](const Tensor& t) { return topk(t, k, axis, largest, sorted); }, x));
      },
      "x"_a, "k"_a, "axis"_a = -1, "largest"_a = true, "sorted"_a = true);

  // ---- Indexing ----
  m.def(
      "take_along_axis",
      [](const Tensor& x, const Tensor& i, std::int64_t axis) {
        return call([&](const Tensor& a, const Tensor& b) { return take_along_axis(a, b, axis); },
                    x, i);
      },
      "x"_a, "indices"_a, "axis"_a);
  m.def(
      "gather",
      [](const Tensor& x, std::int64_t axis, const Tensor& i) {
        return call([&](const Tensor& a, const Tensor& b) { return gather(a, axis, b); }, x, i);
      },
      "x"_a, "axis"_a, "indices"_a);
  m.def(
      "index_select",
      [](const Tensor& x, std::int64_t axis, const Tensor& i) {
        return call([&](const Tensor& a, const Tensor& b) { return index_select(a, axis, b); }, x,
                    i);
      },
      "x"_a, "axis"_a, "indices"_a);
  m.def(
      "scatter_add",
      [](const Tensor& x, std::int64_t axis, const Tensor& i, const Tensor& s) {
        return call([&](const Tensor& a, const Tensor& b,
                        const Tensor& c) { return scatter_add(a, axis, b, c); },
                    x, i, s);
      },
      "x"_a, "axis"_a, "indices"_a, "src"_a);
  m.def(
      "index_add",
      [](const Tensor& x, std::int64_t axis, const Tensor& i, const Tensor& s) {
        return call([&](const Tensor& a, const Tensor& b,
                        const Tensor& c) { return index_add(a, axis, b, c); },
                    x, i, s);
      },
      "x"_a, "axis"_a, "indices"_a, "src"_a);
  m.def(
      "scatter",
      [](const Tensor& x, std::int64_t axis, const Tensor& i, py::handle src) {
        auto s = py::isinstance<Tensor>(src) ? std::nullopt : as_python_scalar(src);
        if (s) s = written_scalar_arg("scatter", src, x.dtype());  // no rounded or saturated int
        if (s)
          return call([&](const Tensor& a, const Tensor& b) { return scatter(a, axis, b, *s); }, x,
                      i);
        Tensor ts = asarray(py::reinterpret_borrow<py::object>(src));
        return call([&](const Tensor& a, const Tensor& b,
                        const Tensor& c) { return scatter(a, axis, b, c); },
                    x, i, ts);
      },
      "x"_a, "axis"_a, "indices"_a, "src"_a,
      "src: a tensor, or a number written everywhere indexed.");
  m.def(
      "masked_fill",
      [](const Tensor& x, const Tensor& mask, py::handle value) {
        const Scalar v = written_scalar_arg("masked_fill", value, x.dtype());
        return call([&](const Tensor& a, const Tensor& b) { return masked_fill(a, b, v); }, x,
                    mask);
      },
      "x"_a, "mask"_a, "value"_a);
  m.def(
      "one_hot",
      [](const Tensor& i, std::int64_t n, py::handle d) {
        DType dt = to_dtype(d);
        return call([&](const Tensor& a) { return one_hot(a, n, dt); }, i);
      },
      "indices"_a, "num_classes"_a, "dtype"_a = "i64");
  m.def(
      "nonzero", [](const Tensor& x) { return call(&nonzero, x); }, "x"_a);
  m.def(
      "masked_select",
      [](const Tensor& x, const Tensor& mask) { return call(&masked_select, x, mask); }, "x"_a,
      "mask"_a);
  m.def(
      "max_with_indices",
      [](const Tensor& x, std::int64_t axis, bool keepdims) {
        return pair(call([&](const Tensor& t) { return max_with_indices(t, axis, keepdims); }, x));
      },
      "x"_a, "axis"_a, "keepdims"_a = false);
  m.def(
      "min_with_indices",
      [](const Tensor& x, std::int64_t axis, bool keepdims) {
        return pair(call([&](const Tensor& t) { return min_with_indices(t, axis, keepdims); }, x));
      },
      "x"_a, "axis"_a, "keepdims"_a = false);
}

}  // namespace tenferro::python
