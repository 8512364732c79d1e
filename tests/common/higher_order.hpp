// Higher-order derivative checks (issue 32): one table of every differentiable public op, and the
// Hessian-vector product computed by every nesting of the transforms.
//
// Each row of `cases()` is a function of one or more f64/c128 tensors whose result y enters the
// real scalar loss
//
//     L(x) = Re<w1, y> + Re<w2, sin(y)>,   <a, b> = sum conj(a) b,
//
// with fixed random w1, w2 of y's shape and dtype, so every output element matters and L has
// non-zero second and third derivatives even where the op is linear (structural ops, sum,
// contractions in one operand). Multi-output ops (svd, eigh, lu, ...) return a gauge-invariant
// combination of their outputs (projectors U diag(c) U^H, |V|^2 weighted by functions of the
// eigenvalues, ...).
//
// Complex inputs (docs/autodiff.md, conjugate-Wirtinger convention): a complex x = a + ib is the
// real vector (a, b) and grad L = dL/da + i dL/db. The Hessian H is the real symmetric Hessian
// of L(a, b), and a complex vector v = va + i vb is the real direction (va, vb), so "H v" is
// the complex vector whose real / imaginary parts are the a / b blocks of H (va, vb). Every
// nesting computes exactly that vector (no conj anywhere):
//   (a) forward over reverse  jvp(x -> grad L(x), x, v): the directional derivative of the
//       (real-linear) gradient map along v, = H v;
//   (b) reverse over reverse  grad(x -> Re<grad L(x), v>): Re<g, v> = g_a.va + g_b.vb is the real
//       pairing, i.e. v^T grad L, whose gradient is H v (H symmetric);
//       vjp of vjp: the pullback of x -> grad L(x) with cotangent v is the u with
//       Re<u, t> = Re<v, H t> for all t, i.e. u = H^T v = H v;
//   (c) reverse over forward  grad(x -> jvp(L, x, v).tangent): the tangent of a real L is the
//       real number v^T grad L, so its gradient is H v again;
//   (d) eager backward(create_graph): x.grad() is grad L with a graph; backward of Re<x.grad(), v>
//       is (b) on the tape;
//   (fd) central differences of grad L along v.
// Forward over forward gives the number v2^T H v = Re<v2, H v>.
// Third order: T(v, v2) = d/dt [H(x + t v2) v] (symmetric in v and v2), by jvp of hvp, grad of
// Re<hvp, v2>, grad of Re<grad of Re<grad L, v>, v2> (reverse^3), jvp of reverse over forward, and
// central differences of hvp along v2; forward^3 gives Re<v3, T(v, v2)>.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/autodiff_fd.hpp"
#include "linalg_ad/linalg_ad_common.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/ops/linalg.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::hotest {

using In = std::span<const Tensor>;
using V = std::vector<Tensor>;
using I = std::int64_t;
using linalg_ad::mH;

enum class Family {
  elementwise,
  reduction,
  contraction,
  structural,
  indexing,
  scan,
  sorting,
  linalg,
};

inline const char* family_name(Family f) {
  switch (f) {
    case Family::elementwise:
      return "elementwise";
    case Family::reduction:
      return "reduction";
    case Family::contraction:
      return "contraction";
    case Family::structural:
      return "structural";
    case Family::indexing:
      return "indexing";
    case Family::scan:
      return "scan";
    case Family::sorting:
      return "sorting";
    case Family::linalg:
      return "linalg";
  }
  return "?";
}

struct Case {
  std::string name;
  Family family;
  std::function<Tensor(In)> op;    // the inputs -> y (any shape, f64 or c128)
  std::function<V(DType)> inputs;  // well-conditioned inputs of the dtype
  bool complex_ok = true;          // also run with c128 inputs
};

// ---- input generators (plain ops, fixed seeds) ----

inline Tensor normal(Dims s, std::uint64_t seed, DType d) { return contiguous(randn(s, seed, d)); }

/// Real part in [0.6, 1.8), imaginary part (complex) small: away from log/sqrt branch points.
inline Tensor positive(Dims s, std::uint64_t seed, DType d) {
  const Tensor re = rand(s, seed, DType::f64) * 1.2 + 0.6;
  if (d == DType::f64) return contiguous(re);
  return contiguous(complex(re, randn(s, seed + 1, DType::f64) * 0.3));
}

/// |x| >= 0.5 (complex: moved 0.5 outwards along its own phase): abs, sign, divisors.
inline Tensor nonzero(Dims s, std::uint64_t seed, DType d) {
  const Tensor r = randn(s, seed, d);
  return contiguous(r + sign(r) * 0.5);
}

/// Distinct real values spaced >= 0.28 apart (max/min/sort ties are at least that far), centred.
inline Tensor distinct(Dims s, std::uint64_t seed) {
  I n = 1;
  for (I e : s) n *= e;
  const Tensor r = randn({n}, seed, DType::f64);
  const Tensor rank = cast(argsort(argsort(r)), DType::f64);
  return contiguous(reshape(rank * 0.3 + r * 0.005 - 0.3 * static_cast<double>(n - 1) / 2, s));
}

inline Tensor idx(std::vector<I> v, Dims s) { return from_vector<I>(v, s); }

// ---- losses and pairings ----

/// Re<a, b> = Re sum(conj(a) * b), a real rank-0 tensor.
inline Tensor re_inner(const Tensor& a, const Tensor& b) { return real(sum(conj(a) * b)); }

/// sum_i Re<a_i, b_i>.
inline Tensor re_inner(In a, In b) {
  Tensor s = re_inner(a[0], b[0]);
  for (std::size_t i = 1; i < a.size(); ++i) s = s + re_inner(a[i], b[i]);
  return s;
}

/// The parts of a multi-output op flattened and joined (dtypes promote: real parts of a complex
/// decomposition become complex).
inline Tensor flat_cat(std::initializer_list<Tensor> parts) {
  V flat;
  for (const Tensor& p : parts) flat.push_back(reshape(p, {-1}));
  return concatenate(flat, 0);
}

// ---- the table ----

inline const std::vector<Case>& cases();

// ---- one case at one dtype ----

struct Instance {
  const Case* c = nullptr;
  DType dtype = DType::f64;
  V x, v, v2, v3;
  Tensor w1, w2;

  std::string label() const { return c->name + " " + std::string(dtype_name(dtype)); }
  /// The loss as a fresh function (captures the op and the weights).
  ScalarFn loss() const {
    return [op = &c->op, w1 = w1, w2 = w2](In in) {
      const Tensor y = (*op)(in);
      return re_inner(w1, y) + re_inner(w2, sin(y));
    };
  }
  std::vector<ValueSpec> specs(bool with_directions) const {
    std::vector<ValueSpec> s;
    for (const Tensor& t : x) s.push_back(ValueSpec{t.shape(), t.dtype()});
    if (with_directions)
      for (const Tensor& t : x) s.push_back(ValueSpec{t.shape(), t.dtype()});
    return s;
  }
};

inline Instance make_instance(const Case& c, DType d) {
  Instance in;
  in.c = &c;
  in.dtype = d;
  in.x = c.inputs(d);
  std::uint64_t seed = 9000;
  for (const Tensor& t : in.x) {
    in.v.push_back(normal(t.shape(), seed++, t.dtype()));
    in.v2.push_back(normal(t.shape(), seed++, t.dtype()));
    in.v3.push_back(normal(t.shape(), seed++, t.dtype()));
  }
  NoGradGuard off;
  const Tensor y = c.op(in.x);
  in.w1 = normal(y.shape(), 7001, y.dtype());
  in.w2 = normal(y.shape(), 7002, y.dtype());
  return in;
}

/// Every case at f64 and (where complex_ok) c128, built once.
inline const std::vector<Instance>& instances() {
  static const std::vector<Instance> all = [] {
    std::vector<Instance> out;
    for (const Case& c : cases())
      for (DType d : {DType::f64, DType::c128})
        if (d == DType::f64 || c.complex_ok) {
          try {
            out.push_back(make_instance(c, d));
          } catch (const Error& e) {
            ADD_FAILURE() << c.name << " " << dtype_name(d) << ": the op threw " << e.what();
          }
        }
    return out;
  }();
  return all;
}

/// backward's options for a pass that records itself (the leaves' grad() carry a graph).
inline BackwardOptions create_graph_options() {
  return BackwardOptions{.retain_graph = true, .create_graph = true};
}

// ---- the Hessian-vector product, every way ----

/// (a) forward over reverse, written out: jvp of x -> grad L(x).
inline V hvp_fwd_rev(const Instance& in, In x, In v) {
  const ScalarFn L = in.loss();
  return jvp(MultiFn([&](In xs) { return grad(L, xs); }), x, v).tangents;
}
inline V hvp_fwd_rev(const Instance& in) { return hvp_fwd_rev(in, in.x, in.v); }

/// (b) reverse over reverse: grad of x -> Re<grad L(x), v>.
inline V hvp_rev_rev(const Instance& in, In x, In v) {
  const ScalarFn L = in.loss();
  return grad([&](In xs) { return re_inner(grad(L, xs), v); }, x);
}
inline V hvp_rev_rev(const Instance& in) { return hvp_rev_rev(in, in.x, in.v); }

/// (b') vjp of a function that calls vjp and its pullback: the pullback of x -> grad L(x) at v.
inline V hvp_vjp_vjp(const Instance& in) {
  const ScalarFn L = in.loss();
  const MultiFn g = [&](In xs) {
    VjpResult r = vjp(L, xs);
    return r.pullback({scalar_tensor(1.0, r.outputs[0].dtype())});
  };
  return vjp(g, in.x).pullback(in.v);
}

/// (c) reverse over forward: grad of x -> jvp(L, x, v).tangent (a real scalar).
inline V hvp_rev_fwd(const Instance& in, In x, In v) {
  const ScalarFn L = in.loss();
  return grad([&](In xs) { return jvp(L, xs, v).tangents[0]; }, x);
}
inline V hvp_rev_fwd(const Instance& in) { return hvp_rev_fwd(in, in.x, in.v); }

/// Forward over forward: v2^T H v as a rank-0 tensor.
inline Tensor fwd_fwd(const Instance& in) {
  const ScalarFn L = in.loss();
  const V& v = in.v;
  return jvp(ScalarFn([&](In xs) { return jvp(L, xs, v).tangents[0]; }), in.x, in.v2).tangents[0];
}

/// backward(out, options) when out depends on a leaf; otherwise (imag or angle of a real input:
/// a constant) nothing, and the leaves keep an undefined (= zero) gradient, as the functional
/// API's zeros. If an op failed to record, the comparison with the functional result catches it.
template <class... O>
void backward_if_recorded(const Tensor& out, O... options) {
  if (out.requires_grad()) backward(out, options...);
}

/// (d) eager: backward(create_graph) leaves a gradient with a graph; backward of Re<x.grad(), v>.
inline V hvp_eager(const Instance& in) {
  V leaves;
  for (const Tensor& t : in.x) {
    Tensor l = copy(t);
    l.requires_grad_();
    leaves.push_back(l);
  }
  const ScalarFn L = in.loss();
  backward_if_recorded(L(leaves), create_graph_options());
  V g;
  for (Tensor& l : leaves) {
    g.push_back(l.grad().defined() ? l.grad() : zeros(l.shape(), l.dtype()));
    l.zero_grad_();
  }
  backward_if_recorded(re_inner(g, in.v));
  V h;
  for (const Tensor& l : leaves)
    h.push_back(l.grad().defined() ? l.grad() : zeros(l.shape(), l.dtype()));
  return h;
}

/// Central differences of g(x) along dir, for any list-valued g.
template <class G>
V central_difference(const V& x, const V& dir, double eps, G&& g) {
  V xp, xm;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xp.push_back(contiguous(x[i] + dir[i] * eps));
    xm.push_back(contiguous(x[i] - dir[i] * eps));
  }
  const V gp = g(xp), gm = g(xm);
  V d;
  for (std::size_t i = 0; i < gp.size(); ++i) d.push_back((gp[i] - gm[i]) * (0.5 / eps));
  return d;
}

/// Central differences of grad L along v (no nesting at all).
inline V hvp_fd(const Instance& in, double eps = 1e-5) {
  const ScalarFn L = in.loss();
  return central_difference(in.x, in.v, eps, [&](const V& x) { return grad(L, x); });
}

// ---- third order: T(v, v2) ----

/// jvp of hvp (forward over forward over reverse).
inline V third_fwd_fwd_rev(const Instance& in) {
  const Instance* p = &in;
  return jvp(MultiFn([p](In xs) { return hvp_fwd_rev(*p, xs, p->v); }), in.x, in.v2).tangents;
}
/// grad of Re<hvp, v2> (reverse over forward over reverse).
inline V third_rev_fwd_rev(const Instance& in) {
  const Instance* p = &in;
  return grad([p](In xs) { return re_inner(hvp_fwd_rev(*p, xs, p->v), p->v2); }, in.x);
}
/// grad of Re<reverse over reverse, v2> (reverse^3).
inline V third_rev_rev_rev(const Instance& in) {
  const Instance* p = &in;
  return grad([p](In xs) { return re_inner(hvp_rev_rev(*p, xs, p->v), p->v2); }, in.x);
}
/// jvp of reverse over forward (forward over reverse over forward).
inline V third_fwd_rev_fwd(const Instance& in) {
  const Instance* p = &in;
  return jvp(MultiFn([p](In xs) { return hvp_rev_fwd(*p, xs, p->v); }), in.x, in.v2).tangents;
}
/// jvp of reverse over reverse (forward over reverse over reverse).
inline V third_fwd_rev_rev(const Instance& in) {
  const Instance* p = &in;
  return jvp(MultiFn([p](In xs) { return hvp_rev_rev(*p, xs, p->v); }), in.x, in.v2).tangents;
}
/// Forward^3: Re<v3, T(v, v2)> as a rank-0 tensor.
inline Tensor third_fwd3(const Instance& in) {
  const ScalarFn L = in.loss();
  const V &v = in.v, &v2 = in.v2;
  const ScalarFn d1 = [&](In xs) { return jvp(L, xs, v).tangents[0]; };
  const ScalarFn d2 = [&](In xs) { return jvp(d1, xs, v2).tangents[0]; };
  return jvp(d2, in.x, in.v3).tangents[0];
}
/// Eager: three backward passes, the first two with create_graph.
inline V third_eager(const Instance& in) {
  V leaves;
  for (const Tensor& t : in.x) {
    Tensor l = copy(t);
    l.requires_grad_();
    leaves.push_back(l);
  }
  const ScalarFn L = in.loss();
  backward_if_recorded(L(leaves), create_graph_options());
  V g, h, t;
  for (Tensor& l : leaves) {
    g.push_back(l.grad().defined() ? l.grad() : zeros(l.shape(), l.dtype()));
    l.zero_grad_();
  }
  backward_if_recorded(re_inner(g, in.v), create_graph_options());
  for (Tensor& l : leaves) {
    h.push_back(l.grad().defined() ? l.grad() : zeros(l.shape(), l.dtype()));
    l.zero_grad_();
  }
  backward_if_recorded(re_inner(h, in.v2));
  for (const Tensor& l : leaves)
    t.push_back(l.grad().defined() ? l.grad() : zeros(l.shape(), l.dtype()));
  return t;
}
/// Central differences of hvp along v2.
inline V third_fd(const Instance& in, double eps = 1e-4) {
  return central_difference(in.x, in.v2, eps, [&](const V& x) { return hvp(in.loss(), x, in.v); });
}

// ---- comparison ----

/// Elementwise |a - b| <= atol * (1 + scale) + rtol * max(|a|, |b|), scale = the largest |b|.
inline ::testing::AssertionResult agree(const V& a, const V& b, double rtol, double atol) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << a.size() << " vs " << b.size() << " tensors";
  std::ostringstream fails;
  int nfail = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].defined() || !b[i].defined())
      return ::testing::AssertionFailure() << "tensor " << i << " undefined";
    if (a[i].shape() != b[i].shape())
      return ::testing::AssertionFailure()
             << "tensor " << i << " shape " << dims_to_string(a[i].shape()) << " vs "
             << dims_to_string(b[i].shape());
    const std::vector<c128> x = adtest::fd::values(a[i]), y = adtest::fd::values(b[i]);
    double scale = 0;
    for (const c128& e : y) scale = std::max(scale, std::abs(e));
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double err = std::abs(x[j] - y[j]);
      if (!(err <= atol * (1 + scale) + rtol * std::max(std::abs(x[j]), std::abs(y[j]))) &&
          nfail++ < 4)
        fails << "\n  tensor " << i << " element " << j << ": " << x[j] << " vs " << y[j];
    }
  }
  if (nfail) return ::testing::AssertionFailure() << nfail << " mismatches:" << fails.str();
  return ::testing::AssertionSuccess();
}

/// Runs one way; a tenferro::Error becomes a failure naming the way (and the result is empty).
template <class F>
V attempt(const char* way, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    ADD_FAILURE() << way << " threw: " << e.what();
    return {};
  }
}

// ---- the table ----

namespace gen {
inline std::function<V(DType)> one(Dims s, std::uint64_t seed,
                                   Tensor (*g)(Dims, std::uint64_t, DType) = &normal) {
  return [s, seed, g](DType d) { return V{g(s, seed, d)}; };
}
inline std::function<V(DType)> two(Dims s, Dims t, std::uint64_t seed,
                                   Tensor (*ga)(Dims, std::uint64_t, DType) = &normal,
                                   Tensor (*gb)(Dims, std::uint64_t, DType) = &normal) {
  return [s, t, seed, ga, gb](DType d) { return V{ga(s, seed, d), gb(t, seed + 1, d)}; };
}
/// Real distinct values (f64 only rows).
inline std::function<V(DType)> dist(Dims s, std::uint64_t seed) {
  return [s, seed](DType) { return V{distinct(s, seed)}; };
}
}  // namespace gen

inline const std::vector<Case>& cases() {
  using namespace linalg_ad;
  using gen::dist;
  using gen::one;
  using gen::two;
  const Dims s23{2, 3};
  static const std::vector<Case> rows = [&] {
    std::vector<Case> r;
    auto row = [&](std::string name, Family f, std::function<Tensor(In)> op,
                   std::function<V(DType)> inputs, bool complex_ok = true) {
      r.push_back(Case{std::move(name), f, std::move(op), std::move(inputs), complex_ok});
    };
    const Family E = Family::elementwise, R = Family::reduction, C = Family::contraction,
                 S = Family::structural, X = Family::indexing, N = Family::scan,
                 O = Family::sorting, L = Family::linalg;

    // ---- elementwise, unary ----
    row(
        "neg", E, [](In x) { return neg(x[0]); }, one(s23, 1));
    row(
        "conj", E, [](In x) { return conj(x[0]); }, one(s23, 2));
    row(
        "abs", E, [](In x) { return abs(x[0]); }, one(s23, 3, &nonzero));
    row(
        "square", E, [](In x) { return square(x[0]); }, one(s23, 4));
    row(
        "exp", E, [](In x) { return exp(x[0]); }, one(s23, 5), true);
    row(
        "log", E, [](In x) { return log(x[0]); }, one(s23, 6, &positive));
    row(
        "sin", E, [](In x) { return sin(x[0]); }, one(s23, 7));
    row(
        "cos", E, [](In x) { return cos(x[0]); }, one(s23, 8));
    row(
        "tanh", E, [](In x) { return tanh(x[0]); }, one(s23, 9));
    row(
        "sqrt", E, [](In x) { return sqrt(x[0]); }, one(s23, 10, &positive), true);
    row(
        "rsqrt", E, [](In x) { return rsqrt(x[0]); }, one(s23, 11, &positive));
    row(
        "expm1", E, [](In x) { return expm1(x[0]); }, one(s23, 12));
    row(
        "log1p", E, [](In x) { return log1p(x[0]); }, one(s23, 13, &positive));
    // The Array API functions: arguments mapped away from poles and branch cuts.
    row(
        "tan", E, [](In x) { return tan(0.5 * x[0]); }, one(s23, 201, &positive));
    row(
        "sinh", E, [](In x) { return sinh(x[0]); }, one(s23, 202));
    row(
        "cosh", E, [](In x) { return cosh(x[0]); }, one(s23, 203));
    row(
        "asin", E, [](In x) { return asin(0.5 * x[0]); }, one(s23, 204, &positive));
    row(
        "acos", E, [](In x) { return acos(0.5 * x[0]); }, one(s23, 205, &positive));
    row(
        "atan", E, [](In x) { return atan(x[0]); }, one(s23, 206, &positive));
    row(
        "asinh", E, [](In x) { return asinh(x[0]); }, one(s23, 207, &positive));
    row(
        "acosh", E, [](In x) { return acosh(x[0] + 1.0); }, one(s23, 208, &positive));
    row(
        "atanh", E, [](In x) { return atanh(0.5 * x[0]); }, one(s23, 209, &positive));
    row(
        "log2", E, [](In x) { return log2(x[0]); }, one(s23, 210, &positive));
    row(
        "log10", E, [](In x) { return log10(x[0]); }, one(s23, 211, &positive));
    row(
        "exp2", E, [](In x) { return exp2(x[0]); }, one(s23, 212));
    row(
        "erf", E, [](In x) { return erf(x[0]); }, one(s23, 213), false);
    row(
        "real", E, [](In x) { return real(x[0]); }, one(s23, 14));
    row(
        "imag", E, [](In x) { return imag(x[0]); }, one(s23, 15));
    row(
        "angle", E, [](In x) { return angle(x[0]); },
        [](DType d) {
          return V{
              contiguous(cast(nonzero({2, 3}, 16, DType::f64), d) + normal({2, 3}, 17, d) * 0.5)};
        });
    row(
        "clamp", E, [](In x) { return clamp(x[0], -0.5, 0.5); }, dist(s23, 18), false);
    // sign: piecewise constant on reals; on complex numbers z / |z|, smooth away from 0.
    row(
        "sign", E, [](In x) { return sign(x[0]) * x[0]; }, one(s23, 22, &nonzero));
    row(
        "convert", E, [](In x) { return convert(x[0], DType::c128); }, one(s23, 23));
    row(
        "cast_to_complex", E, [](In x) { return cast(x[0], DType::c128); }, one(s23, 19));
    row(
        "cast_to_real", E, [](In x) { return cast(x[0], DType::f64); }, one(s23, 20));
    row(
        "floor_ceil_round", E,
        [](In x) { return floor(x[0]) + ceil(x[0]) + round(x[0] * 1.3) + x[0]; },
        [](DType) {
          return V{contiguous(distinct({2, 3}, 21) + 0.11)};
        },
        false);
    // ---- elementwise, binary ----
    // Piecewise linear: d/da = 1, d/db = -floor(a / b); a / b stays away from integers.
    row(
        "remainder_floor_divide", E,
        [](In x) {
          return remainder(x[0], x[1]) + floor_divide(x[0], x[1]) * x[1] + remainder(x[0], 0.7);
        },
        [](DType) {
          return V{distinct({2, 3}, 24),
                   contiguous(from_values({0.9, 1.3, 0.45, 1.1, 0.8, 1.7}, {2, 3}))};
        },
        false);
    row(
        "add", E, [](In x) { return add(x[0], x[1]); }, two(s23, s23, 30));
    row(
        "sub", E, [](In x) { return sub(x[0], x[1]); }, two(s23, s23, 31));
    row(
        "mul", E, [](In x) { return mul(x[0], x[1]); }, two(s23, s23, 32), true);
    row(
        "mul_broadcast", E, [](In x) { return x[0] * x[1]; }, two({3}, s23, 33));
    row(
        "div", E, [](In x) { return div(x[0], x[1]); }, two(s23, s23, 34, &normal, &nonzero), true);
    row(
        "pow", E, [](In x) { return pow(x[0], x[1]); }, two(s23, s23, 35, &positive), true);
    row(
        "pow_scalar", E, [](In x) { return pow(x[0], 2.5); }, one(s23, 36, &positive));
    row(
        "scalar_pow", E, [](In x) { return pow(1.7, x[0]); }, one(s23, 37));
    row(
        "scalar_sub_div", E, [](In x) { return sub(1.5, x[0]) + div(2.0, x[0]); },
        one(s23, 38, &nonzero));
    row(
        "maximum", E, [](In x) { return maximum(x[0], x[1]); },
        [](DType) {
          const Tensor t = distinct({2, 2, 3}, 39);
          return V{contiguous(t.slice(0, 0, 1).squeeze(0)),
                   contiguous(t.slice(0, 1, 2).squeeze(0))};
        },
        false);
    row(
        "minimum", E, [](In x) { return minimum(x[0], x[1]); },
        [](DType) {
          const Tensor t = distinct({2, 2, 3}, 40);
          return V{contiguous(t.slice(0, 0, 1).squeeze(0)),
                   contiguous(t.slice(0, 1, 2).squeeze(0))};
        },
        false);
    row(
        "atan2", E, [](In x) { return atan2(x[0], x[1]); }, two(s23, s23, 41, &normal, &nonzero),
        false);
    row(
        "hypot", E, [](In x) { return hypot(x[0], x[1]); }, two(s23, s23, 214, &nonzero, &nonzero),
        false);
    row(
        "copysign", E, [](In x) { return copysign(x[0], x[1]); },
        two(s23, s23, 216, &nonzero, &nonzero), false);
    row(
        "logaddexp", E, [](In x) { return logaddexp(x[0], x[1]); }, two(s23, s23, 218), false);
    row(
        "complex", E, [](In x) { return complex(x[0], x[1]); }, two(s23, s23, 42), false);
    row(
        "polar", E, [](In x) { return polar(x[0], x[1]); }, two(s23, s23, 43, &positive), false);
    row(
        "where", E,
        [](In x) {
          const Tensor mask = gt(from_values({1, 0, 0, 1, 1, 0}, {2, 3}), 0.5);
          return where(mask, x[0], x[1] * x[1]);
        },
        two(s23, s23, 44));

    // ---- reductions ----
    row(
        "sum_axis", R, [](In x) { return sum(x[0], {1}); }, one({2, 3, 2}, 50), true);
    row(
        "sum_all_keepdims", R, [](In x) { return sum(x[0], {}, true); }, one(s23, 51));
    row(
        "prod", R, [](In x) { return prod(x[0], {1}); }, one({2, 3, 2}, 52), true);
    row(
        "mean", R,
        [](In x) {
          return mean(x[0], {0, 2}, true);
        },
        one({2, 3, 2}, 53));
    row(
        "max", R, [](In x) { return max(x[0], {1}); }, dist({2, 3, 2}, 54), false);
    row(
        "min", R, [](In x) { return min(x[0]); }, dist(s23, 55), false);
    row(
        "sum_squares", R, [](In x) { return sum_squares(x[0], {1}); }, one(s23, 56));
    row(
        "norm", R, [](In x) { return norm(x[0], {0}); }, one(s23, 57));
    row(
        "logsumexp", R, [](In x) { return logsumexp(x[0], {1}); }, one(s23, 58), false);
    row(
        "softmax", R, [](In x) { return softmax(x[0], 1); }, one(s23, 59), false);
    row(
        "log_softmax", R, [](In x) { return log_softmax(x[0], 0); }, one(s23, 60), false);
    row(
        "vector_norm_3", R, [](In x) { return vector_norm(x[0], 3.0, {1}); },
        one(s23, 61, &nonzero));
    row(
        "vector_norm_1", R, [](In x) { return vector_norm(x[0], 1.0, {0}); },
        one(s23, 65, &nonzero));
    row(
        "vector_norm_inf", R, [](In x) { return vector_norm(x[0], INFINITY, {1}); }, dist(s23, 62),
        false);
    row(
        "max_with_indices", R, [](In x) { return max_with_indices(x[0], 1).values; }, dist(s23, 63),
        false);
    row(
        "min_with_indices", R, [](In x) { return min_with_indices(x[0], 0, true).values; },
        dist(s23, 64), false);

    // ---- contractions ----
    row(
        "matmul", C, [](In x) { return matmul(x[0], x[1]); }, two(s23, {3, 2}, 70), true);
    row(
        "matmul_broadcast_vec", C, [](In x) { return matmul(x[0], x[1]); },
        two({2, 2, 3}, {3}, 71));
    row(
        "bmm", C, [](In x) { return bmm(x[0], x[1]); }, two({2, 2, 3}, {2, 3, 2}, 72));
    row(
        "dot_general", C,
        [](In x) {
          return dot_general(x[0], x[1], {{1}, {0}, {0}, {2}});
        },
        two({3, 2, 2}, {2, 2, 3}, 73));
    row(
        "tensordot", C,
        [](In x) {
          return tensordot(x[0], x[1], {0, 2}, {1, 0});
        },
        two({2, 3, 2}, {2, 2, 3}, 74));
    row(
        "outer", C, [](In x) { return outer(x[0], x[1]); }, two({3}, {2}, 75));
    row(
        "inner", C, [](In x) { return inner(x[0], x[1]); }, two(s23, {2, 3}, 76));
    row(
        "vdot", C, [](In x) { return vdot(x[0], x[1]); }, two(s23, s23, 77));
    row(
        "self_product", C, [](In x) { return matmul(x[0], mH(x[0])); }, one(s23, 78));
    row(
        "einsum_chain", C, [](In x) { return einsum("ij,jk,kl->il", x[0], x[1], x[2]); },
        [](DType d) {
          return V{normal({2, 3}, 79, d), normal({3, 2}, 80, d), normal({2, 2}, 81, d)};
        },
        true);
    row(
        "einsum_trace_hadamard", C, [](In x) { return einsum("ii,ij,ij->j", x[0], x[1], x[1]); },
        two({2, 2}, {2, 3}, 82));

    // ---- structural ----
    row(
        "reshape", S,
        [](In x) {
          return reshape(x[0], {3, 2});
        },
        one(s23, 90));
    row(
        "permute", S,
        [](In x) {
          return permute(x[0], {2, 0, 1});
        },
        one({2, 3, 2}, 91), true);
    row(
        "transpose", S, [](In x) { return transpose(x[0]); }, one(s23, 92));
    row(
        "slice_step", S, [](In x) { return slice(x[0], 1, 0, 3, 2); }, one(s23, 93), true);
    row(
        "flip", S, [](In x) { return flip(x[0], {1}); }, one(s23, 94));
    row(
        "roll", S, [](In x) { return roll(x[0], 1, 1); }, one(s23, 95));
    row(
        "broadcast_to", S,
        [](In x) {
          return broadcast_to(x[0], {2, 2, 3});
        },
        one({1, 3}, 96));
    row(
        "squeeze_unsqueeze", S, [](In x) { return unsqueeze(squeeze(x[0], 0), 1); },
        one({1, 3}, 97));
    row(
        "concatenate", S,
        [](In x) {
          return concatenate({x[0], x[1]}, 1);
        },
        two(s23, {2, 2}, 98), true);
    row(
        "stack", S,
        [](In x) {
          return stack({x[0], x[1]}, 1);
        },
        two(s23, s23, 99));
    row(
        "diagonal", S, [](In x) { return diagonal(x[0], 1); }, one({3, 3}, 100));
    row(
        "diag", S, [](In x) { return diag(diag(x[0], 1), -1) + diag(diag(x[0])); },
        one({3, 3}, 109));
    row(
        "diag_embed", S, [](In x) { return diag_embed(x[0], -1); }, one(s23, 101));
    row(
        "tril_triu", S, [](In x) { return tril(x[0]) + triu(x[0], 1) * 2.0; }, one({3, 3}, 102));
    row(
        "tile", S,
        [](In x) {
          return tile(x[0], {2, 1});
        },
        one(s23, 103));
    row(
        "repeat_interleave", S, [](In x) { return repeat_interleave(x[0], 2, 1); }, one(s23, 104));
    row(
        "repeat_interleave_counts", S,
        [](In x) {
          return repeat_interleave(x[0], idx({1, 0, 2}, {3}), 1);
        },
        one(s23, 119));
    row(
        "pad_constant", S,
        [](In x) {
          return pad(x[0], {{1, 0}, {0, 2}});
        },
        one(s23, 105));
    row(
        "pad_reflect", S,
        [](In x) {
          return pad(x[0], {{1, 1}, {2, 1}}, PadMode::reflect);
        },
        one(s23, 106), true);
    row(
        "pad_edge", S,
        [](In x) {
          return pad(x[0], {{0, 2}, {1, 1}}, PadMode::edge);
        },
        one(s23, 107));
    row(
        "copy_contiguous", S,
        [](In x) { return copy(x[0]) + transpose(contiguous(transpose(x[0]))); }, one({3, 3}, 108));

    // ---- indexing ----
    row(
        "take_along_axis", X,
        [](In x) {
          return take_along_axis(x[0], idx({2, 0, 0, 1, 1, 2}, {2, 3}), 1);
        },
        one(s23, 110), true);
    row(
        "gather", X,
        [](In x) {
          return gather(x[0], 0, idx({1, 0, 1, 1, 0, 0}, {2, 3}));
        },
        one(s23, 111));
    row(
        "index_select", X,
        [](In x) {
          return index_select(x[0], 1, idx({2, 2, 0}, {3}));
        },
        one(s23, 112));
    row(
        "scatter_add", X,
        [](In x) {
          return scatter_add(x[0], 1, idx({0, 0, 2, 1}, {2, 2}), x[1]);
        },
        two(s23, {2, 2}, 113), true);
    row(
        "index_add", X,
        [](In x) {
          return index_add(x[0], 1, idx({2, 2}, {2}), x[1]);
        },
        two(s23, {2, 2}, 114));
    row(
        "scatter", X,
        [](In x) {
          return scatter(x[0], 1, idx({1, 2, 0, 2}, {2, 2}), x[1]);
        },
        two(s23, {2, 2}, 115));
    row(
        "scatter_value", X,
        [](In x) {
          return scatter(x[0], 0, idx({1, 0, 1}, {1, 3}), 0.5);
        },
        one(s23, 116));
    row(
        "masked_fill", X,
        [](In x) {
          return masked_fill(x[0], gt(from_values({1, 0, 1}, {3}), 0.5), 2.0);
        },
        one(s23, 117));
    row(
        "masked_select", X,
        [](In x) {
          return masked_select(x[0], gt(from_values({0, 1, 1, 1, 0, 1}, {2, 3}), 0.5));
        },
        one(s23, 118));

    // ---- scans ----
    row(
        "cumsum", N, [](In x) { return cumsum(x[0], 1); }, one(s23, 120));
    row(
        "cumprod", N, [](In x) { return cumprod(x[0], 1); }, one({2, 4}, 121), true);

    // ---- sorting (values are differentiable) ----
    row(
        "sort", O, [](In x) { return sort(x[0], 1).values; }, dist({2, 4}, 130), false);
    row(
        "sort_descending", O, [](In x) { return sort(x[0], 0, true).values; }, dist({3, 2}, 131),
        false);
    row(
        "topk", O, [](In x) { return topk(x[0], 2).values; }, dist({2, 4}, 132), false);
    row(
        "argsort_gather", O, [](In x) { return take_along_axis(x[0], argsort(x[0], 1), 1) * x[0]; },
        dist({2, 3}, 133), false);

    // ---- linear algebra ----
    row(
        "svd", L,
        [](In x) {
          const SvdResult s = svd(x[0]);
          const DType dt = s.U.dtype();
          return flat_cat({proj(s.U, weights(3, dt)), proj(mH(s.Vh), weights(3, dt, 2.0)),
                           matmul(s.U * weights(3, dt, 0.5, 1.1), s.Vh), s.S});
        },
        [](DType d) {
          return V{with_singular_values({}, 4, 3, {3.0, 2.1, 1.3}, 140, d)};
        },
        true);
    row(
        "svd_full_matrices", L,
        [](In x) {
          const SvdResult s = svd(x[0], true);
          const DType dt = s.U.dtype();
          return flat_cat({proj(s.U, complement_weights(3, 3, dt)),
                           proj(mH(s.Vh), complement_weights(4, 3, dt, 2.0, 0.5, -0.3)), s.S});
        },
        [](DType d) {
          return V{with_singular_values({}, 3, 4, {2.5, 1.6, 0.7}, 141, d)};
        });
    row(
        "svdvals", L, [](In x) { return svdvals(x[0]); },
        [](DType d) {
          return V{with_singular_values({}, 3, 3, {2.5, 1.6, 0.7}, 142, d)};
        });
    row(
        "svd_truncated", L,
        [](In x) {
          const SvdResult s = svd_truncated(x[0], 2);
          return flat_cat({proj(s.U, weights(2, s.U.dtype())), s.S});
        },
        [](DType d) {
          return V{with_singular_values({}, 4, 3, {3.0, 2.1, 1.3}, 143, d)};
        });
    row(
        "eigh", L,
        [](In x) {
          const EighResult e = eigh(x[0]);
          const Tensor& Vv = e.eigenvectors;
          return flat_cat({proj(Vv, weights(3, Vv.dtype(), -1.0, 0.8)), e.eigenvalues});
        },
        [](DType d) {
          return V{spoil_unread(with_eigenvalues({}, {-1.2, 0.3, 1.5}, 144, d), true, 145)};
        },
        true);
    row(
        "eigvalsh_upper", L, [](In x) { return eigvalsh(x[0], Uplo::upper); },
        [](DType d) {
          return V{spoil_unread(with_eigenvalues({}, {-1.0, 0.4, 1.7}, 146, d), false, 147)};
        });
    // eig: LAPACK's eigenvalue order is not a smooth function of a, and each eigenvector has a
    // free phase: use sum_j |V_ij|^2 exp(w_j) (order and phase invariant) and power sums of w.
    // (|V|^2 as V conj(V), not abs(V)^2: the abs row tests abs.)
    auto general = [](DType d) {
      const Tensor Q = shift_diag(randn({3, 3}, 148, d) * 0.3, 1.0);
      return V{contiguous(matmul(Q * vec({-1.0, 0.5, 2.0}, d), inv(Q)))};
    };
    row(
        "eig", L,
        [](In x) {
          const EigResult e = eig(x[0]);
          const Tensor w = e.eigenvalues;
          return flat_cat({sum(e.eigenvectors * conj(e.eigenvectors) * exp(w), {1}), sum(w * w),
                           sum(w * w * w)});
        },
        general);
    row(
        "eigvals", L,
        [](In x) {
          const Tensor w = eigvals(x[0]);
          return flat_cat({sum(w * w), sum(exp(w))});
        },
        general);
    row(
        "qr", L,
        [](In x) {
          const QrResult q = qr(x[0]);
          return flat_cat({q.Q, q.R});
        },
        [](DType d) {
          return V{with_singular_values({}, 4, 3, {2.0, 1.5, 1.0}, 149, d)};
        });
    row(
        "qr_wide", L,
        [](In x) {
          const QrResult q = qr(x[0]);
          return flat_cat({q.Q, q.R});
        },
        [](DType d) { return V{square_matrix({}, 3, 150, d).slice(0, 0, 2).contiguous()}; });
    row(
        "qr_pivoted", L,
        [](In x) {
          const QrPivotedResult q = qr_pivoted(x[0]);
          return flat_cat({q.Q, q.R});
        },
        [](DType d) {
          return V{with_singular_values({}, 4, 3, {2.0, 1.5, 1.0}, 151, d)};
        });
    row(
        "cholesky", L, [](In x) { return cholesky(x[0]); },
        [](DType d) { return V{spoil_unread(positive_definite({}, 3, 152, d), true, 153)}; }, true);
    row(
        "cholesky_upper", L, [](In x) { return cholesky(x[0], true); },
        [](DType d) { return V{positive_definite({2}, 2, 154, d)}; });
    row(
        "solve", L, [](In x) { return solve(x[0], x[1]); },
        [](DType d) {
          return V{square_matrix({}, 3, 155, d), normal({3, 2}, 156, d)};
        },
        true);
    row(
        "triangular_solve", L,
        [](In x) {
          return triangular_solve(x[0], x[1], true) +
                 transpose(triangular_solve(x[0], transpose(x[1]), false, false, true));
        },
        [](DType d) {
          return V{square_matrix({}, 3, 157, d), normal({3, 3}, 158, d)};
        });
    row(
        "lstsq", L, [](In x) { return lstsq(x[0], x[1]); },
        [](DType d) {
          return V{with_singular_values({}, 4, 3, {2.0, 1.5, 1.0}, 159, d), normal({4, 2}, 160, d)};
        });
    row(
        "inv", L, [](In x) { return inv(x[0]); },
        [](DType d) { return V{square_matrix({}, 3, 161, d)}; });
    row(
        "det", L, [](In x) { return det(x[0]); },
        [](DType d) { return V{square_matrix({2}, 3, 162, d)}; }, true);
    row(
        "slogdet", L,
        [](In x) {
          const SlogdetResult s = slogdet(x[0]);
          return flat_cat({s.sign, s.logabsdet});
        },
        [](DType d) { return V{square_matrix({}, 3, 163, d)}; });
    row(
        "lu", L,
        [](In x) {
          const LuResult l = lu(x[0]);
          return flat_cat({l.L, l.U, matmul(l.P, x[0])});
        },
        [](DType d) { return V{square_matrix({}, 3, 164, d).slice(1, 0, 2).contiguous()}; });
    row(
        "lu_factor_solve", L,
        [](In x) {
          const LuFactorResult f = lu_factor(x[0]);
          return flat_cat(
              {f.LU, lu_solve(f.LU, f.pivots, x[1]), lu_solve(f.LU, f.pivots, x[1], true)});
        },
        [](DType d) {
          return V{square_matrix({}, 3, 165, d), normal({3, 2}, 166, d)};
        });
    row(
        "matrix_exp", L, [](In x) { return matrix_exp(x[0]); },
        [](DType d) {
          return V{contiguous(randn({3, 3}, 167, d) * 0.6)};
        });
    row(
        "pinv", L, [](In x) { return pinv(x[0]); },
        [](DType d) {
          return V{with_singular_values({}, 4, 3, {2.0, 1.5, 1.0}, 168, d)};
        });
    row(
        "matrix_norms", L,
        [](In x) {
          return flat_cat({matrix_norm(x[0]), matrix_norm(x[0], MatrixNormOrd::nuc),
                           matrix_norm(x[0], MatrixNormOrd::spectral)});
        },
        [](DType d) {
          return V{with_singular_values({}, 3, 3, {2.5, 1.6, 0.7}, 169, d)};
        });
    return r;
  }();
  return rows;
}

}  // namespace tenferro::hotest
