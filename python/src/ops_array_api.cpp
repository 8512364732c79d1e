// The Array API's statistical, manipulation, creation and linalg-extension functions (var, std,
// clip, moveaxis, expand_dims, broadcast_arrays, meshgrid, concat, cumulative_sum/prod, linspace,
// eye, *_like, vecdot, cross, matrix_power, matrix_rank) and finfo/iinfo, with the standard's
// names and keyword arguments (docs/python.md). One wrapper per C++ function.
#include <string>

#include "common.hpp"

namespace tenferro::python {

namespace {

// An int or a sequence of ints (the standard's Union[int, Tuple[int, ...]]).
Dims int_or_tuple(const py::object& o) {
  if (py::isinstance<py::int_>(o) || py::hasattr(o, "__index__")) return {to_int64(o)};
  return to_dims(o);
}

std::optional<std::int64_t> optional_int(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  return to_int64(o);
}

std::optional<DType> optional_dtype(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  return to_dtype(o);
}

// A dtype argument of finfo/iinfo: a dtype, or an array whose dtype is meant.
DType dtype_of_arg(const py::object& o) {
  if (py::isinstance<Tensor>(o)) return o.cast<Tensor>().dtype();
  return to_dtype(o);
}

py::object dtype_obj(DType d) {
  return py::module_::import("tenferro._tenferro").attr("dtype")(std::string(dtype_name(d)));
}

// A clip bound: nullopt for None, else a Tensor (an array-like) or a number.
struct Bound {
  std::optional<Scalar> scalar;
  Tensor tensor;
  bool given = false;
};
Bound bound_arg(const py::object& o) {
  Bound b;
  if (o.is_none()) return b;
  b.given = true;
  if (!py::isinstance<Tensor>(o))
    if (auto s = as_python_scalar(o)) {
      b.scalar = s;
      return b;
    }
  b.tensor = asarray(o);
  return b;
}

py::list to_list(const std::vector<Tensor>& ts) {
  py::list out;
  for (const Tensor& t : ts) out.append(py::cast(t));
  return out;
}

}  // namespace

void bind_ops_array_api(py::module_& m) {
  // ---- Statistics ----
  for (const char* name : {"var", "std"}) {
    const bool is_std = name[0] == 's';
    m.def(
        name,
        [is_std](const Tensor& x, const py::object& axis, double correction, bool keepdims) {
          Dims axes = to_axes(axis);
          return call(
              [&](const Tensor& t) {
                return is_std ? tenferro::std(t, axes, correction, keepdims)
                              : var(t, axes, correction, keepdims);
              },
              x);
        },
        "x"_a, "axis"_a = py::none(), "correction"_a = 0.0, "keepdims"_a = false,
        "Variance / standard deviation over `axis` (None: every axis) with the Array API's "
        "`correction` (NumPy's ddof); NaN where N - correction <= 0.");
  }
  m.def(
      "clip",
      [](const Tensor& x, const py::object& lo, const py::object& hi) {
        const Bound a = bound_arg(lo), b = bound_arg(hi);
        if ((!a.given || a.scalar) && (!b.given || b.scalar))
          return call([&](const Tensor& t) { return clip(t, a.scalar, b.scalar); }, x);
        // A number next to an array bound: a 0-d tensor of x's dtype (a complex number stays
        // complex, for clip's DTypeMismatch).
        const auto as_tensor = [&](const Bound& bd) {
          if (!bd.scalar) return bd.tensor;
          return scalar_tensor(*bd.scalar, bd.scalar->imag() != 0 ? DType::c128 : x.dtype());
        };
        const Tensor ta = as_tensor(a), tb = as_tensor(b);
        return call(
            [&](const Tensor& t, const Tensor& l, const Tensor& h) { return clip(t, l, h); }, x, ta,
            tb);
      },
      "x"_a, "min"_a = py::none(), "max"_a = py::none(),
      "x limited to [min, max] (either may be None; numbers or arrays), in x's dtype; NaN "
      "propagates as np.clip.");

  // ---- Manipulation ----
  m.def(
      "moveaxis",
      [](const Tensor& x, const py::object& src, const py::object& dst) {
        return moveaxis(x, int_or_tuple(src), int_or_tuple(dst));
      },
      "x"_a, "source"_a, "destination"_a);
  m.def(
      "expand_dims", [](const Tensor& x, std::int64_t axis) { return expand_dims(x, axis); }, "x"_a,
      "axis"_a = 0);
  m.def(
      "broadcast_arrays",
      [](const py::args& arrays) {
        std::vector<Tensor> ts;
        for (py::handle a : arrays) ts.push_back(asarray(py::reinterpret_borrow<py::object>(a)));
        return to_list(broadcast_arrays(std::span<const Tensor>(ts)));
      },
      "The arrays broadcast to their common shape (a list of views).");
  m.def(
      "meshgrid",
      [](const py::args& arrays, const std::string& indexing) {
        MeshIndexing ix;
        if (indexing == "xy")
          ix = MeshIndexing::xy;
        else if (indexing == "ij")
          ix = MeshIndexing::ij;
        else
          throw Error(ErrorKind::InvalidArgument, "meshgrid: indexing '" + indexing +
                                                      "' is not supported; expected 'xy' or 'ij'");
        std::vector<Tensor> ts;
        for (py::handle a : arrays) ts.push_back(asarray(py::reinterpret_borrow<py::object>(a)));
        return to_list(meshgrid(std::span<const Tensor>(ts), ix));
      },
      "indexing"_a = "xy", "Coordinate grids of 1-D arrays (a list of views).");
  m.def(
      "concat",
      [](const std::vector<Tensor>& ts, const py::object& axis) {
        const std::optional<std::int64_t> a = optional_int(axis);
        return call(
            [&](const std::vector<Tensor>& v) { return concat(std::span<const Tensor>(v), a); },
            ts);
      },
      "arrays"_a, "axis"_a = 0, "Joins along `axis`; axis=None flattens every array first.");
  for (const char* name : {"cumulative_sum", "cumulative_prod"}) {
    const bool is_prod = name[11] == 'p';
    m.def(
        name,
        [is_prod](const Tensor& x, const py::object& axis, const py::object& dtype,
                  bool include_initial) {
          const auto a = optional_int(axis);
          const auto d = optional_dtype(dtype);
          return call(
              [&](const Tensor& t) {
                return is_prod ? cumulative_prod(t, a, d, include_initial)
                               : cumulative_sum(t, a, d, include_initial);
              },
              x);
        },
        "x"_a, "axis"_a = py::none(), "dtype"_a = py::none(), "include_initial"_a = false);
  }

  // ---- Creation ----
  m.def(
      "linspace",
      [](py::handle start, py::handle stop, std::int64_t num, bool endpoint,
         const py::object& dtype) {
        return linspace(scalar_arg(start), scalar_arg(stop), num, endpoint, optional_dtype(dtype));
      },
      "start"_a, "stop"_a, "num"_a, "endpoint"_a = true, "dtype"_a = py::none());
  m.def(
      "eye",
      [](std::int64_t n_rows, const py::object& n_cols, std::int64_t k, const py::object& dtype) {
        return eye(n_rows, optional_int(n_cols), k, dtype_or_f64(dtype));
      },
      "n_rows"_a, "n_cols"_a = py::none(), "k"_a = 0, "dtype"_a = py::none());
  m.def(
      "zeros_like",
      [](const Tensor& x, const py::object& dtype) { return zeros_like(x, optional_dtype(dtype)); },
      "x"_a, "dtype"_a = py::none());
  m.def(
      "ones_like",
      [](const Tensor& x, const py::object& dtype) { return ones_like(x, optional_dtype(dtype)); },
      "x"_a, "dtype"_a = py::none());
  m.def(
      "empty_like",
      [](const Tensor& x, const py::object& dtype) { return empty_like(x, optional_dtype(dtype)); },
      "x"_a, "dtype"_a = py::none());
  m.def(
      "full_like",
      [](const Tensor& x, py::handle value, const py::object& dtype) {
        return full_like(x, scalar_arg(value), optional_dtype(dtype));
      },
      "x"_a, "fill_value"_a, "dtype"_a = py::none());

  // ---- linalg extension ----
  m.def(
      "vecdot",
      [](const Tensor& a, const Tensor& b, std::int64_t axis) {
        return call([&](const Tensor& x, const Tensor& y) { return vecdot(x, y, axis); }, a, b);
      },
      "x1"_a, "x2"_a, "axis"_a = -1, "sum(conj(x1) * x2) over `axis` (the Array API's vecdot).");
  m.def(
      "cross",
      [](const Tensor& a, const Tensor& b, std::int64_t axis) {
        return call([&](const Tensor& x, const Tensor& y) { return cross(x, y, axis); }, a, b);
      },
      "x1"_a, "x2"_a, "axis"_a = -1,
      "Cross product of 3-vectors along `axis` (the Array API's linalg.cross).");
  m.def(
      "matrix_power",
      [](const Tensor& x, std::int64_t n) {
        return call([&](const Tensor& t) { return matrix_power(t, n); }, x);
      },
      "x"_a, "n"_a);
  m.def(
      "matrix_rank",
      [](const Tensor& x, const py::object& rtol) {
        if (rtol.is_none() || as_python_scalar(rtol)) {
          const double r = rtol.is_none() ? kDefaultRankRtol : rtol.cast<double>();
          return call([&](const Tensor& t) { return matrix_rank(t, r); }, x);
        }
        const Tensor rt = asarray(rtol);  // one rtol per matrix, broadcast against the batch
        return call([&](const Tensor& t, const Tensor& r) { return matrix_rank(t, r); }, x, rt);
      },
      "x"_a, "rtol"_a = py::none(),
      "Number of singular values > rtol * the largest (default rtol: max(m, n) * eps); rtol may "
      "be a number or an array broadcast against the batch.");

  // ---- finfo / iinfo ----
  py::class_<FInfo>(m, "finfo_object", "Limits of a floating dtype (the Array API's finfo).")
      .def_readonly("bits", &FInfo::bits)
      .def_readonly("eps", &FInfo::eps)
      .def_readonly("max", &FInfo::max)
      .def_readonly("min", &FInfo::min)
      .def_readonly("smallest_normal", &FInfo::smallest_normal)
      .def_property_readonly("dtype", [](const FInfo& f) { return dtype_obj(f.dtype); })
      .def("__repr__", [](const FInfo& f) {
        return "finfo(bits=" + std::to_string(f.bits) +
               ", eps=" + py::str(py::float_(f.eps)).cast<std::string>() +
               ", dtype=" + std::string(dtype_name(f.dtype)) + ")";
      });
  py::class_<IInfo>(m, "iinfo_object", "Limits of an integer dtype (the Array API's iinfo).")
      .def_readonly("bits", &IInfo::bits)
      .def_readonly("max", &IInfo::max)
      .def_readonly("min", &IInfo::min)
      .def_property_readonly("dtype", [](const IInfo& i) { return dtype_obj(i.dtype); })
      .def("__repr__", [](const IInfo& i) {
        return "iinfo(bits=" + std::to_string(i.bits) + ", min=" + std::to_string(i.min) +
               ", max=" + std::to_string(i.max) + ", dtype=" + std::string(dtype_name(i.dtype)) +
               ")";
      });
  m.def(
      "finfo", [](const py::object& t) { return finfo(dtype_of_arg(t)); }, "type"_a,
      "Machine limits of a floating dtype (or of an array's dtype).");
  m.def(
      "iinfo", [](const py::object& t) { return iinfo(dtype_of_arg(t)); }, "type"_a,
      "Machine limits of an integer dtype (or of an array's dtype).");
}

}  // namespace tenferro::python
