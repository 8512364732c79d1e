// Contractions (ops/contract.hpp) and linear algebra (ops/linalg.hpp); einsum is einsum.cpp.
// Results with several tensors are Python tuples in the C++ field order (svd -> (U, S, Vh)).
#include <string>

#include "common.hpp"

namespace tenferro::python {

namespace {

Uplo to_uplo(const std::string& s) {
  if (s == "L" || s == "lower") return Uplo::lower;
  if (s == "U" || s == "upper") return Uplo::upper;
  throw Error(ErrorKind::InvalidArgument, "uplo must be 'L' or 'U', not '" + s + "'");
}

py::tuple svd_tuple(const SvdResult& r) { return py::make_tuple(r.U, r.S, r.Vh); }

}  // namespace

Tensor standard_matmul(const Tensor& a, const Tensor& b) {
  // An integer or bool operand beside a floating one is promoted first, as NumPy (the C++ matmul
  // is floating-only and refused i64 @ f32 with DTypeMismatch); so is u64 beside a signed
  // integer, whose promotion is f64.
  const bool ints = is_integer(a.dtype()) && is_integer(b.dtype());
  if (is_integral(a.dtype()) != is_integral(b.dtype()) ||
      (ints && !is_integral(promote(a.dtype(), b.dtype())))) {
    const DType d = promote(a.dtype(), b.dtype());
    return matmul(a.dtype() == d ? a : cast(a, d), b.dtype() == d ? b : cast(b, d));
  }
  if (!ints || a.rank() == 0 || b.rank() == 0) return matmul(a, b);
  // Each row of a against each column of b: (..., n, 1, k) . (..., 1, m, k) -> (..., n, m).
  const Tensor x = a.rank() == 1 ? a.unsqueeze(0) : a;  // (..., n, k)
  const Tensor y = b.rank() == 1 ? b.unsqueeze(1) : b;  // (..., k, m)
  Tensor r = vecdot(x.unsqueeze(x.rank() - 1), y.transpose(-2, -1).unsqueeze(y.rank() - 2), -1);
  if (a.rank() == 1) r = r.squeeze(r.rank() - 2);
  if (b.rank() == 1) r = r.squeeze(r.rank() - 1);
  return r;
}

void bind_ops_linalg(py::module_& m) {
  // ---- Contractions ----
  m.def(
      "matmul", [](const Tensor& a, const Tensor& b) { return call(&standard_matmul, a, b); },
      "a"_a, "b"_a);
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
      "qr_pivoted",
      [](const Tensor& a) {
        QrPivotedResult r = call(&qr_pivoted, a);
        return py::make_tuple(r.Q, r.R, r.P);
      },
      "a"_a, "(Q, R, P): QR with column pivoting, a[..., :, P] = Q R, P i64 (0-based).");
  m.def(
      "eig",
      [](const Tensor& a) {
        EigResult r = call(&eig, a);
        return py::make_tuple(r.eigenvalues, r.eigenvectors);
      },
      "a"_a, "(eigenvalues, eigenvectors), complex, of a general square matrix.");
  m.def(
      "eigvals", [](const Tensor& a) { return call(&eigvals, a); }, "a"_a);
  m.def(
      "lu",
      [](const Tensor& a) {
        LuResult r = call(&lu, a);
        return py::make_tuple(r.P, r.L, r.U);
      },
      "a"_a, "(P, L, U) with a = P L U.");
  m.def(
      "lu_factor",
      [](const Tensor& a) {
        LuFactorResult r = call(&lu_factor, a);
        return py::make_tuple(r.LU, r.pivots);
      },
      "a"_a, "(LU, pivots): packed factors and 0-based i64 pivots (SciPy's convention).");
  m.def(
      "lu_solve",
      [](const Tensor& lu_, const Tensor& piv, const Tensor& b, bool adjoint) {
        return call([&](const Tensor& x, const Tensor& p,
                        const Tensor& y) { return lu_solve(x, p, y, adjoint); },
                    lu_, piv, b);
      },
      "LU"_a, "pivots"_a, "b"_a, "adjoint"_a = false);
  m.def(
      "matrix_exp", [](const Tensor& a) { return call(&matrix_exp, a); }, "a"_a);
  m.def(
      "pinv",
      [](const Tensor& a, double rcond) {
        return call([&](const Tensor& x) { return pinv(x, rcond); }, a);
      },
      "a"_a, "rcond"_a = kDefaultRcond,
      "Pseudoinverse; rcond < 0 (default): max(m, n) * eps of the dtype.");
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
