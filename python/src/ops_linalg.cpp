// Contractions (ops/contract.hpp), einsum (einsum.hpp) and linear algebra (ops/linalg.hpp).
// Results with several tensors are Python tuples in the C++ field order (svd -> (U, S, Vh)).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common.hpp"

namespace tenferro::python {

namespace {

/// A real Python number (int, float, NumPy scalar) as a double; TypeError for anything else.
/// (pybind11 does not convert an int keyword argument to a double parameter of a function that
/// also takes *args: einsum(..., memory_limit=2**27) was refused.)
double real_number(const py::object& h, const char* what) {
  if (!PyNumber_Check(h.ptr()) || PyComplex_Check(h.ptr()) || py::isinstance<Tensor>(h))
    throw py::type_error(std::string("einsum: ") + what + " must be a real number, got " +
                         std::string(py::repr(h)));
  const double v = PyFloat_AsDouble(h.ptr());  // ints too; OverflowError beyond double's range
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

EinsumOptions einsum_options(const std::string& strategy, const py::object& optimal_limit,
                             const py::object& memory_limit) {
  EinsumOptions o;
  if (strategy == "auto" || strategy == "automatic")
    o.strategy = EinsumStrategy::automatic;
  else if (strategy == "optimal")
    o.strategy = EinsumStrategy::optimal;
  else if (strategy == "greedy")
    o.strategy = EinsumStrategy::greedy;
  else if (strategy == "sequential")
    o.strategy = EinsumStrategy::sequential;
  else
    throw Error(ErrorKind::InvalidArgument,
                "einsum: strategy must be 'auto', 'optimal', 'greedy' or 'sequential', not '" +
                    strategy + "'");
  // A negative limit is the C++ check's to report; beyond int it means "no limit" anyway.
  const std::int64_t limit = to_int64(optimal_limit);
  o.optimal_limit = static_cast<int>(std::clamp<std::int64_t>(
      limit, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  o.memory_limit = real_number(memory_limit, "memory_limit");
  return o;
}

Uplo to_uplo(const std::string& s) {
  if (s == "L" || s == "lower") return Uplo::lower;
  if (s == "U" || s == "upper") return Uplo::upper;
  throw Error(ErrorKind::InvalidArgument, "uplo must be 'L' or 'U', not '" + s + "'");
}

py::tuple svd_tuple(const SvdResult& r) { return py::make_tuple(r.U, r.S, r.Vh); }

}  // namespace

void bind_ops_linalg(py::module_& m) {
  // ---- Contractions ----
  m.def(
      "matmul", [](const Tensor& a, const Tensor& b) { return call(&matmul, a, b); }, "a"_a, "b"_a);
  m.def(
      "bmm", [](const Tensor& a, const Tensor& b) { return call(&bmm, a, b); }, "a"_a, "b"_a);
  m.def(
      "outer", [](const Tensor& a, const Tensor& b) { return call(&outer, a, b); }, "a"_a, "b"_a);
  m.def(
      "inner", [](const Tensor& a, const Tensor& b) { return call(&inner, a, b); }, "a"_a, "b"_a);
  m.def(
      "vdot", [](const Tensor& a, const Tensor& b) { return call(&vdot, a, b); }, "a"_a, "b"_a);
  m.def(
      "tensordot",
      [](const Tensor& a, const Tensor& b, const py::object& axes) {
        if (py::isinstance<py::int_>(axes)) {
          const auto n = to_int64(axes);
          return call([&](const Tensor& x, const Tensor& y) { return tensordot(x, y, n); }, a, b);
        }
        py::sequence s = axes.cast<py::sequence>();
        if (s.size() != 2)
          throw Error(ErrorKind::InvalidArgument,
                      "tensordot: axes must be an int or a pair of axis lists");
        Dims aa = to_dims(s[0]), bb = to_dims(s[1]);
        return call([&](const Tensor& x, const Tensor& y) { return tensordot(x, y, aa, bb); }, a,
                    b);
      },
      "a"_a, "b"_a, "axes"_a = 2);
  m.def(
      "dot_general",
      [](const Tensor& a, const Tensor& b, const py::object& lb, const py::object& rb,
         const py::object& lc, const py::object& rc) {
        DotDims d{to_dims(lb), to_dims(rb), to_dims(lc), to_dims(rc)};
        return call([&](const Tensor& x, const Tensor& y) { return dot_general(x, y, d); }, a, b);
      },
      "a"_a, "b"_a, "lhs_batch"_a, "rhs_batch"_a, "lhs_contract"_a, "rhs_contract"_a,
      "XLA's dot_general: output = batch dims, free dims of a, free dims of b.");
  m.def("last_gemm_provider", [] { return std::string(last_gemm_provider()); });

  // ---- einsum ----
  m.def(
      "einsum",
      [](const std::string& spec, py::args operands, const std::string& strategy,
         const py::object& optimal_limit, const py::object& memory_limit) {
        std::vector<Tensor> ops;
        for (py::handle h : operands) ops.push_back(asarray(py::reinterpret_borrow<py::object>(h)));
        EinsumOptions o = einsum_options(strategy, optimal_limit, memory_limit);
        return call(
            [&](const std::vector<Tensor>& v) {
              return einsum(spec, std::span<const Tensor>(v), o);
            },
            ops);
      },
      "spec"_a, py::kw_only(), "strategy"_a = "auto", "optimal_limit"_a = 8, "memory_limit"_a = 0.0,
      "einsum(spec, *operands): NumPy's subscript grammar ('ij,jk->ik', '...' broadcasting, "
      "implicit output).");
  py::class_<EinsumPath>(m, "EinsumPath")
      .def_readonly("subscripts", &EinsumPath::subscripts)
      .def_readonly("flops", &EinsumPath::flops)
      .def_readonly("naive_flops", &EinsumPath::naive_flops)
      .def_readonly("largest_intermediate", &EinsumPath::largest_intermediate)
      .def_property_readonly(
          "steps",
          [](const EinsumPath& p) {
            py::list l;
            for (const EinsumStep& s : p.steps)
              l.append(py::make_tuple(s.lhs, s.rhs, s.subscripts,
                                      std::vector<std::int64_t>(s.shape.begin(), s.shape.end()),
                                      s.flops));
            return l;
          })
      .def("__str__", &EinsumPath::to_string)
      .def("__repr__", &EinsumPath::to_string);
  m.def(
      "einsum_path",
      [](const std::string& spec, py::args operands, const std::string& strategy,
         const py::object& optimal_limit, const py::object& memory_limit) {
        std::vector<Dims> shapes;
        for (py::handle h : operands) {
          if (py::isinstance<Tensor>(h))
            shapes.push_back(h.cast<const Tensor&>().shape());
          else if (py::hasattr(h, "shape"))
            shapes.push_back(to_dims(h.attr("shape")));
          else
            shapes.push_back(to_dims(py::reinterpret_borrow<py::object>(h)));
        }
        return einsum_path(spec, shapes, einsum_options(strategy, optimal_limit, memory_limit));
      },
      "spec"_a, py::kw_only(), "strategy"_a = "auto", "optimal_limit"_a = 8, "memory_limit"_a = 0.0,
      "The contraction path for operands (tensors, arrays or shapes).");

  py::class_<EinsumPlan>(m, "EinsumPlan", "A prepared einsum for fixed shapes and dtypes.")
      .def("__call__",
           [](const EinsumPlan& p, py::args operands) {
             std::vector<Tensor> ops;
             for (py::handle h : operands)
               ops.push_back(asarray(py::reinterpret_borrow<py::object>(h)));
             return call(
                 [&](const std::vector<Tensor>& v) { return p(std::span<const Tensor>(v)); }, ops);
           })
      .def_property_readonly("path", &EinsumPlan::path)
      .def_property_readonly("output_shape",
                             [](const EinsumPlan& p) {
                               return std::vector<std::int64_t>(p.output_shape().begin(),
                                                                p.output_shape().end());
                             })
      .def_property_readonly("output_dtype", [](const EinsumPlan& p) {
        return py::module_::import("tenferro._tenferro")
            .attr("dtype")(std::string(dtype_name(p.output_dtype())));
      });
  m.def(
      "prepare_einsum",
      [](const std::string& spec, const std::vector<py::object>& shapes, const py::object& dtypes,
         const std::string& strategy, const py::object& optimal_limit,
         const py::object& memory_limit) {
        std::vector<Dims> sh;
        for (const py::object& s : shapes) sh.push_back(to_dims(s));
        std::vector<DType> dt;
        if (dtypes.is_none())
          dt.assign(sh.size(), DType::f64);
        else
          for (py::handle d : dtypes) dt.push_back(to_dtype(d));
        return prepare_einsum(spec, sh, dt, einsum_options(strategy, optimal_limit, memory_limit));
      },
      "spec"_a, "shapes"_a, "dtypes"_a = py::none(), py::kw_only(), "strategy"_a = "auto",
      "optimal_limit"_a = 8, "memory_limit"_a = 0.0,
      "An EinsumPlan for operands of these shapes and dtypes (default f64); call it with them.");

  // ---- Linear algebra ----
  m.def(
      "svd",
      [](const Tensor& a, bool full_matrices, double eps) {
        SvdOptions o{.full_matrices = full_matrices, .degeneracy_eps = eps};
        return svd_tuple(call([&](const Tensor& x) { return svd(x, o); }, a));
      },
      "a"_a, "full_matrices"_a = false, "degeneracy_eps"_a = kDefaultDegeneracyEps, "(U, S, Vh).");
  m.def(
      "svdvals", [](const Tensor& a) { return call(&svdvals, a); }, "a"_a);
  m.def(
      "svd_truncated",
      [](const Tensor& a, std::int64_t max_rank, double cutoff, double eps) {
        return svd_tuple(
            call([&](const Tensor& x) { return svd_truncated(x, max_rank, cutoff, eps); }, a));
      },
      "a"_a, "max_rank"_a, "cutoff"_a = 0.0, "degeneracy_eps"_a = kDefaultDegeneracyEps);
  m.def(
      "qr",
      [](const Tensor& a, const std::string& mode) {
        QrMode qm;
        if (mode == "reduced")
          qm = QrMode::reduced;
        else if (mode == "complete")
          qm = QrMode::complete;
        else
          throw Error(ErrorKind::InvalidArgument, "qr: mode must be 'reduced' or 'complete'");
        QrResult r = call([&](const Tensor& x) { return qr(x, qm); }, a);
        return py::make_tuple(r.Q, r.R);
      },
      "a"_a, "mode"_a = "reduced", "(Q, R).");
  m.def(
      "eigh",
      [](const Tensor& a, const std::string& uplo, double eps) {
        EighOptions o{.uplo = to_uplo(uplo), .degeneracy_eps = eps};
        EighResult r = call([&](const Tensor& x) { return eigh(x, o); }, a);
        return py::make_tuple(r.eigenvalues, r.eigenvectors);
      },
      "a"_a, "UPLO"_a = "L", "degeneracy_eps"_a = kDefaultDegeneracyEps,
      "(eigenvalues, eigenvectors).");
  m.def(
      "eigvalsh",
      [](const Tensor& a, const std::string& uplo) {
        Uplo u = to_uplo(uplo);
        return call([&](const Tensor& x) { return eigvalsh(x, u); }, a);
      },
      "a"_a, "UPLO"_a = "L");
  m.def(
      "cholesky",
      [](const Tensor& a, bool upper) {
        return call([&](const Tensor& x) { return cholesky(x, upper); }, a);
      },
      "a"_a, "upper"_a = false);
  m.def(
      "solve", [](const Tensor& a, const Tensor& b) { return call(&solve, a, b); }, "a"_a, "b"_a);
  m.def(
      "triangular_solve",
      [](const Tensor& a, const Tensor& b, bool upper, bool left, bool unit) {
        return call([&](const Tensor& x,
                        const Tensor& y) { return triangular_solve(x, y, upper, left, unit); },
                    a, b);
      },
      "a"_a, "b"_a, "upper"_a, "left"_a = true, "unit_diagonal"_a = false);
  m.def(
      "lstsq", [](const Tensor& a, const Tensor& b) { return call(&lstsq, a, b); }, "a"_a, "b"_a);
  m.def(
      "inv", [](const Tensor& a) { return call(&inv, a); }, "a"_a);
  m.def(
      "det", [](const Tensor& a) { return call(&det, a); }, "a"_a);
  m.def(
      "slogdet",
      [](const Tensor& a) {
        SlogdetResult r = call(&slogdet, a);
        return py::make_tuple(r.sign, r.logabsdet);
      },
      "a"_a, "(sign, logabsdet).");
  m.def(
      "matrix_norm",
      [](const Tensor& a, const py::object& ord, bool keepdims) {
        MatrixNormOrd o = MatrixNormOrd::fro;
        if (py::isinstance<py::str>(ord)) {
          const auto s = ord.cast<std::string>();
          if (s == "fro")
            o = MatrixNormOrd::fro;
          else if (s == "nuc")
            o = MatrixNormOrd::nuc;
          else
            throw Error(ErrorKind::InvalidArgument, "matrix_norm: ord must be 'fro', 'nuc' or 2");
        } else if (ord.cast<double>() == 2.0) {
          o = MatrixNormOrd::spectral;
        } else {
          throw Error(ErrorKind::InvalidArgument, "matrix_norm: ord must be 'fro', 'nuc' or 2");
        }
        return call([&](const Tensor& x) { return matrix_norm(x, o, keepdims); }, a);
      },
      "a"_a, "ord"_a = "fro", "keepdims"_a = false);
  m.def(
      "vector_norm",
      [](const Tensor& x, double ord, const py::object& axis, bool keepdims) {
        Dims axes = to_axes(axis);
        return call([&](const Tensor& t) { return vector_norm(t, ord, axes, keepdims); }, x);
      },
      "x"_a, "ord"_a = 2.0, "axis"_a = py::none(), "keepdims"_a = false);
}

}  // namespace tenferro::python
