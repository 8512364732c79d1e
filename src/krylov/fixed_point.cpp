// fixed_point: a plain forward iteration and the implicit-function derivative rule.
//
// Note [Fixed-point autodiff]: x* = f(x*, p), so dx* = J dx* + (df/dp) dp with J = df/dx at
// (x*, p), i.e. dx* = (I - J)^-1 (df/dp) dp. That is Note [Krylov autodiff]'s shape: the result is
// reattached as
//
//     probe = f(x*, p) - detach(f(x*, p))     value 0, derivative (df/dp) dp (and of closures)
//     x_out = x* + L(probe)                   L = (I - J)^-1, L^H = (I - J^H)^-1
//
// with L one LinearMapPrim, so the tape holds f's ops once plus one node, however many iterations
// the forward pass took. J is R-linear but not C-linear when f is not holomorphic (v / |v|,
// conj), so for complex x the systems are solved on the real pairs [Re, Im]: there J v is jvp's
// tangent and J^T w is the pullback (conjugate-Wirtinger: Re<P(u), v> = Re<u, J v>, which is the
// real transpose), with no assumption on f.
#include "tenferro/fixed_point.hpp"

#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor_aux.hpp"
#include "krylov/linear_map.hpp"
#include "krylov/space.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/ops.hpp"

namespace tenferro {
namespace detail::fixed_point {
namespace {

using krylov::format_g;
using krylov::vaxpy;
using krylov::vnorm;
using krylov::vscale;

constexpr const char* kOp = "fixed_point";

std::string describe(const Tensor& t) {
  return dims_to_string(t.shape()) + " " + std::string(dtype_name(t.dtype()));
}

[[noreturn]] void refuse_tracing(const std::string& what) {
  throw Error(ErrorKind::Unsupported,
              std::string(kOp) + ": " + what +
                  " is symbolic: fixed_point cannot be traced (f is an arbitrary function and the "
                  "iteration count depends on values); call it eagerly");
}

Tensor plain(const Tensor& t, const std::string& what) {
  if (!t.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(kOp) + ": " + what + " is undefined");
  if (!t.has_storage()) refuse_tracing(what);
  return t.aux() ? detach(t) : t;
}

/// f with the params bound: x -> f({x, params...}), its result checked against x.
struct BoundFn {
  std::shared_ptr<ScalarFn> f;
  std::vector<Tensor> params;

  Tensor operator()(const Tensor& x) const {
    std::vector<Tensor> args;
    args.reserve(params.size() + 1);
    args.push_back(x);
    args.insert(args.end(), params.begin(), params.end());
    Tensor y = (*f)(std::span<const Tensor>(args));
    check(x, y);
    return y;
  }
  static void check(const Tensor& x, const Tensor& y) {
    if (!y.defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(kOp) + ": f returned an undefined tensor");
    if (!y.has_storage()) refuse_tracing("f's result");
    if (y.shape() != x.shape() || y.dtype() != x.dtype())
      throw Error(y.shape() != x.shape() ? ErrorKind::ShapeMismatch : ErrorKind::DTypeMismatch,
                  std::string(kOp) + ": f({x, params...}) must return a tensor of x's shape and " +
                      "dtype (x " + describe(x) + "); f returned " + describe(y));
  }
};

// ---- forward iteration ----

Tensor flat_columns(const std::deque<Tensor>& cols) {
  std::vector<Tensor> flat;
  for (const Tensor& c : cols) flat.push_back(c.reshape({c.numel()}));
  return stack(std::span<const Tensor>(flat), 1);
}

/// Plain, damped or Anderson-accelerated (type II) iteration on plain tensors.
FixedPointResult iterate(const BoundFn& f, Tensor x, const FixedPointOptions& o, double tol) {
  NoGradGuard no_grad;
  FixedPointResult r;
  const std::int64_t depth = o.anderson_depth;
  std::deque<Tensor> dx, dg;  // last `depth` differences of iterates and of residuals
  Tensor x_prev, g_prev;
  while (r.iterations < o.max_iterations) {
    const Tensor fx = detach(f(x));
    ++r.iterations;
    const Tensor g = sub(fx, x);
    const double gnorm = vnorm(g), fnorm = vnorm(fx);
    r.residual = fnorm > 0 ? gnorm / fnorm : (gnorm > 0 ? INFINITY : 0.0);
    if (!std::isfinite(gnorm) || !std::isfinite(fnorm))
      throw Error(ErrorKind::LinAlgError,
                  std::string(kOp) + ": the iteration diverged: |f(x) - x| = " + format_g(gnorm) +
                      ", |f(x)| = " + format_g(fnorm) + " at iteration " +
                      std::to_string(r.iterations) + " (x " + describe(x) +
                      "); try mixing < 1 or a better x0");
    if (gnorm <= tol * fnorm) {
      r.converged = true;
      x = fx;
      break;
    }
    if (depth > 0 && x_prev.defined()) {
      dx.push_back(sub(x, x_prev));
      dg.push_back(sub(g, g_prev));
      if (static_cast<std::int64_t>(dx.size()) > depth) dx.pop_front(), dg.pop_front();
    }
    x_prev = x;
    g_prev = g;
    Tensor next = o.mixing == 1.0 ? fx : vaxpy(o.mixing, g, x);
    if (!dg.empty()) {
      // gamma minimises |g - dG gamma|; the step moves along the secant directions it picked.
      const Tensor gamma = matmul(pinv(flat_columns(dg)), g.reshape({g.numel()}));
      std::deque<Tensor> dirs;
      for (std::size_t i = 0; i < dx.size(); ++i) dirs.push_back(vaxpy(o.mixing, dg[i], dx[i]));
      next = sub(next, matmul(flat_columns(dirs), gamma).reshape(x.shape()));
    }
    x = next;
  }
  r.x = x;
  return r;
}

// ---- the derivative: (I - J) and its transpose on real pairs ----

Tensor to_real(const Tensor& z) { return is_complex(z.dtype()) ? stack({real(z), imag(z)}) : z; }
Tensor from_real(const Tensor& r, const Tensor& like) {
  if (!is_complex(like.dtype())) return r.dtype() == like.dtype() ? r : cast(r, like.dtype());
  return complex(slice(r, 0, 0, 1).reshape(like.shape()), slice(r, 0, 1, 2).reshape(like.shape()));
}

/// J and J^T at the fixed point, on real pairs, plus the dense I - J for small x.
struct Jacobian {
  BoundFn f;  // params detached: J is d/dx only
  Tensor at;  // x*, plain
  std::int64_t dense_threshold = 0;
  double tol = 0;
  std::optional<Pullback> pullback;
  Tensor dense;  // I - J as [N, N] on real pairs, built on first use

  Tensor apply(const Tensor& v) {
    const BoundFn& g = f;
    ScalarFn fn = [&g](std::span<const Tensor> in) { return g(in[0]); };
    const Tensor t = from_real(v, at);
    return to_real(detach(
        jvp(fn, std::span<const Tensor>(&at, 1), std::span<const Tensor>(&t, 1)).tangents[0]));
  }
  Tensor transpose_apply(const Tensor& w) {
    if (!pullback) {
      const BoundFn& g = f;
      pullback =
          vjp([g](std::span<const Tensor> in) { return g(in[0]); }, std::span<const Tensor>(&at, 1))
              .pullback;
    }
    const Tensor u = from_real(w, at);
    return to_real(detach((*pullback)(std::span<const Tensor>(&u, 1))[0]));
  }
  bool is_dense() const { return at.numel() <= dense_threshold; }
  const Tensor& dense_matrix() {
    if (dense.defined()) return dense;
    const Tensor z = to_real(zeros(at.shape(), at.dtype()));
    const std::int64_t n = z.numel();
    std::vector<Tensor> rows;  // row k of J is (J^T e_k)^T
    std::vector<double> eye(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t k = 0; k < n; ++k) {
      std::vector<double> e(static_cast<std::size_t>(n), 0.0);
      e[static_cast<std::size_t>(k)] = 1.0;
      eye[static_cast<std::size_t>(k * n + k)] = 1.0;
      const Tensor ek = cast(from_vector<double>(e, {n}), z.dtype()).reshape(z.shape());
      rows.push_back(transpose_apply(ek).reshape({n}));
    }
    Tensor m = sub(cast(from_vector<double>(eye, {n, n}), z.dtype()), stack(rows, 0));
    // A fixed point that is not isolated (a free gauge) makes I - J singular, but rounding
    // leaves its LU pivots at ~eps instead of zero, so solve() would return a meaningless
    // solution without an error. Refuse I - J that is numerically rank deficient by NumPy's
    // matrix_rank rule (s_min <= s_max N eps); checked before it is kept, so a retry checks again.
    const Tensor sv = cast(svdvals(m), DType::f64);
    const double s_max = max(sv).item<double>(), s_min = min(sv).item<double>();
    const double eps = z.dtype() == DType::f32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
    if (!(s_min > s_max * static_cast<double>(n) * eps))
      throw Error(ErrorKind::LinAlgError,
                  "I - J is numerically singular: its smallest singular value " + format_g(s_min) +
                      " <= N eps s_max = " + format_g(s_max * static_cast<double>(n) * eps) +
                      " (N = " + std::to_string(n) + ")");
    dense = std::move(m);
    return dense;
  }
};

/// (I - J) u = b (transposed: (I - J^T) u = b) on real pairs.
Tensor solve_shifted(Jacobian& jac, const Tensor& b, bool transposed) {
  if (vnorm(b) == 0) return b;
  const char* system = transposed ? "(I - J^H) w = x_bar" : "(I - J) dx = (df/dp) dp";
  try {
    if (jac.is_dense()) {
      const Tensor& a = jac.dense_matrix();
      const Tensor m = transposed ? a.transpose().contiguous() : a;
      return solve(m, b.reshape({b.numel()})).reshape(b.shape());
    }
    LinsolveOptions lo;
    lo.tol = jac.tol;
    ScalarFn shifted = [&jac, transposed](std::span<const Tensor> in) {
      return sub(in[0], transposed ? jac.transpose_apply(in[0]) : jac.apply(in[0]));
    };
    return linsolve(std::move(shifted), b, {}, lo).x;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::LinAlgError) throw;
    throw Error(ErrorKind::LinAlgError,
                std::string(kOp) + ": the derivative's system " + system + " (x " +
                    describe(jac.at) + ") failed: " + e.message() +
                    "; I - df/dx is singular or ill-conditioned at the fixed point (is the fixed "
                    "point isolated, e.g. a gauge left free?)");
  }
}

}  // namespace
}  // namespace detail::fixed_point

FixedPointResult fixed_point_with_info(ScalarFn f_in, const Tensor& x0,
                                       std::span<const Tensor> params, const FixedPointOptions& o) {
  using namespace detail::fixed_point;
  using detail::krylov::HostLinearMap;
  if (!f_in) throw Error(ErrorKind::InvalidArgument, std::string(kOp) + ": f is an empty function");
  const Tensor x = plain(x0, "x0");
  detail::krylov::require_floating(kOp, x, "x0");
  if (o.max_iterations < 1 || !(o.mixing > 0 && o.mixing <= 1) || o.anderson_depth < 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string(kOp) + ": expected max_iterations >= 1, 0 < mixing <= 1 and " +
                    "anderson_depth >= 0 (got " + std::to_string(o.max_iterations) + ", " +
                    format_g(o.mixing) + ", " + std::to_string(o.anderson_depth) + ")");
  std::vector<Tensor> frozen;
  for (std::size_t i = 0; i < params.size(); ++i)
    frozen.push_back(plain(params[i], "params[" + std::to_string(i) + "]"));
  auto f = std::make_shared<ScalarFn>(std::move(f_in));
  const double tol = detail::krylov::default_tol(kOp, x.dtype(), o.tol);
  const BoundFn bound{f, frozen};

  FixedPointResult out = iterate(bound, x, o, tol);
  if (o.require_convergence && !out.converged)
    throw Error(ErrorKind::LinAlgError,
                std::string(kOp) + ": did not converge: |f(x) - x| / |f(x)| = " +
                    format_g(out.residual) + " > tol = " + format_g(tol) + " after " +
                    std::to_string(out.iterations) + " iterations (x " + describe(x) +
                    "); raise max_iterations, try mixing < 1 or anderson_depth > 0, or set "
                    "require_convergence = false");

  // Note [Fixed-point autodiff]: one more f, with the caller's params, for the probe.
  std::vector<Tensor> args{out.x};
  args.insert(args.end(), params.begin(), params.end());
  const Tensor y = (*f)(std::span<const Tensor>(args));
  BoundFn::check(out.x, y);
  if (!detail::krylov::carries_derivative(y)) return out;
  // L is computed with x* and params frozen, so the rule is first order: LinearMapPrim refuses
  // operands that an enclosing transform differentiates (Note [Krylov autodiff]).
  auto jac = std::make_shared<Jacobian>();
  jac->f = bound;
  jac->at = out.x;
  jac->dense_threshold = o.dense_threshold;
  jac->tol = detail::krylov::default_tol(kOp, real_dtype(x.dtype()), -1.0);
  auto map = std::make_shared<HostLinearMap>();
  map->solver = kOp;
  map->apply = [jac](std::span<const Tensor> in) {
    const Tensor b = to_real(in[0]);
    return std::vector<Tensor>{from_real(solve_shifted(*jac, b, false), jac->at)};
  };
  map->adjoint = [jac](std::span<const Tensor> in) {
    const Tensor b = to_real(in[0]);
    return std::vector<Tensor>{from_real(solve_shifted(*jac, b, true), jac->at)};
  };
  const Tensor probe = detail::krylov::derivative_probe(y);
  out.x = add(out.x, detail::krylov::apply_linear_map(map, std::span<const Tensor>(&probe, 1))[0]);
  return out;
}

FixedPointResult fixed_point_with_info(ScalarFn f, const Tensor& x0,
                                       std::initializer_list<Tensor> params,
                                       const FixedPointOptions& o) {
  return fixed_point_with_info(std::move(f), x0,
                               std::span<const Tensor>(params.begin(), params.size()), o);
}

Tensor fixed_point(ScalarFn f, const Tensor& x0, std::span<const Tensor> params,
                   const FixedPointOptions& o) {
  return fixed_point_with_info(std::move(f), x0, params, o).x;
}

Tensor fixed_point(ScalarFn f, const Tensor& x0, std::initializer_list<Tensor> params,
                   const FixedPointOptions& o) {
  return fixed_point_with_info(std::move(f), x0,
                               std::span<const Tensor>(params.begin(), params.size()), o)
      .x;
}

}  // namespace tenferro
