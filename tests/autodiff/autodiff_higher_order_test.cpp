// Second derivatives of every differentiable public op (issue 32), eager and traced.
//
// For every row of hotest::cases() (tests/common/higher_order.hpp: elementwise, reductions,
// contractions, structural, indexing, scans, sorting, linear algebra) at f64 and c128, the
// Hessian-vector product H v of L(x) = Re<w1, y> + Re<w2, sin(y)>, y = op(x), is computed by
//   (a) forward over reverse   jvp(x -> grad L, x, v)        (and hvp(), the same thing)
//   (b) reverse over reverse   grad(x -> Re<grad L, v>)      and vjp of a vjp pullback
//   (c) reverse over forward   grad(x -> jvp(L, x, v).tangent)
//   (d) eager                  backward(L, create_graph) then backward(Re<x.grad(), v>)
// and compared with each other (rtol 1e-7) and with central differences of grad L along v
// (step 1e-5, tolerance 1e-5 relative). Forward over forward (jvp of jvp) gives v2^T H v, which
// must equal Re<v2, H v>. Why the four agree for complex inputs (no conj between them) is worked
// out in the header comment of higher_order.hpp.
//
// Traced: for every row, the same H v from programs: jvp(grad(p)),
// grad of a program that calls grad(p) and pairs it with v, vjp(grad(p)), and grad of a program
// that calls jvp(p); each must match the eager (a). grad(grad(trace(f))) of the scalar
// f(t) = L(x + t v) gives Re<v, H v>.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "common/higher_order.hpp"

using namespace tenferro;
using namespace tenferro::hotest;

namespace {

constexpr double kAgreeRtol = 1e-7, kAgreeAtol = 1e-9;
constexpr double kFdRtol = 1e-5, kFdAtol = 1e-6;

/// The forward-over-reverse H v of every instance, computed once (the reference of the others).
const V& reference(const Instance& in) {
  static std::map<const Instance*, V> cache;
  auto it = cache.find(&in);
  if (it == cache.end()) it = cache.emplace(&in, hvp_fwd_rev(in)).first;
  return it->second;
}

}  // namespace

TEST(AutodiffHigherOrder, TableCoversEveryFamily) {
  std::map<Family, int> rows;
  for (const Case& c : cases()) ++rows[c.family];
  for (Family f : {Family::elementwise, Family::reduction, Family::contraction, Family::structural,
                   Family::indexing, Family::scan, Family::sorting, Family::linalg})
    EXPECT_GT(rows[f], 0) << family_name(f);
  // Inputs are f64 / c128 as asked, and the loss is a real scalar.
  for (const Instance& in : instances()) {
    SCOPED_TRACE(in.label());
    for (const Tensor& t : in.x) EXPECT_EQ(t.dtype(), in.dtype);
    const Tensor l = in.loss()(in.x);
    EXPECT_EQ(l.dtype(), DType::f64);
    EXPECT_EQ(l.numel(), 1);
  }
}

TEST(AutodiffHigherOrder, ForwardOverReverseMatchesFiniteDifferences) {
  for (const Instance& in : instances()) {
    SCOPED_TRACE(in.label());
    const V& a = reference(in);
    EXPECT_TRUE(agree(hvp(in.loss(), in.x, in.v), a, 1e-12, 1e-14)) << "hvp() vs jvp(grad)";
    EXPECT_TRUE(agree(a, hvp_fd(in), kFdRtol, kFdAtol)) << "jvp(grad) vs finite differences";
  }
}

TEST(AutodiffHigherOrder, ReverseOverReverseAgrees) {
  for (const Instance& in : instances()) {
    SCOPED_TRACE(in.label());
    const V& a = reference(in);
    const V b = attempt("grad of grad", [&] { return hvp_rev_rev(in); });
    if (!b.empty()) EXPECT_TRUE(agree(b, a, kAgreeRtol, kAgreeAtol)) << "grad(Re<grad, v>)";
    const V bv = attempt("vjp of vjp", [&] { return hvp_vjp_vjp(in); });
    if (!bv.empty()) EXPECT_TRUE(agree(bv, a, kAgreeRtol, kAgreeAtol)) << "vjp of pullback";
  }
}

TEST(AutodiffHigherOrder, ReverseOverForwardAgrees) {
  for (const Instance& in : instances()) {
    SCOPED_TRACE(in.label());
    const V& a = reference(in);
    const V c = attempt("grad of jvp", [&] { return hvp_rev_fwd(in); });
    if (!c.empty()) EXPECT_TRUE(agree(c, a, kAgreeRtol, kAgreeAtol)) << "grad(jvp tangent)";
  }
}

TEST(AutodiffHigherOrder, ForwardOverForwardAgrees) {
  for (const Instance& in : instances()) {
    SCOPED_TRACE(in.label());
    const V& a = reference(in);
    const V ff = attempt("jvp of jvp", [&] { return V{fwd_fwd(in)}; });
    if (ff.empty()) continue;
    EXPECT_EQ(ff[0].dtype(), DType::f64);
    const V expect = {re_inner(in.v2, a)};  // v2^T H v
    EXPECT_TRUE(agree(ff, expect, kAgreeRtol, kAgreeAtol)) << "jvp(jvp) vs Re<v2, H v>";
  }
}

TEST(AutodiffHigherOrder, EagerBackwardWithCreateGraphAgrees) {
  for (const Instance& in : instances()) {
    SCOPED_TRACE(in.label());
    const V d = attempt("backward(create_graph)", [&] { return hvp_eager(in); });
    if (!d.empty()) EXPECT_TRUE(agree(d, reference(in), kAgreeRtol, kAgreeAtol));
  }
}

TEST(AutodiffHigherOrder, EagerCreateGraphSemantics) {
  // L = sum(x^3): grad 3 x^2 (with a graph), second derivative 6 x.
  Tensor x = from_values({1.0, -2.0, 0.5}, {3});
  x.requires_grad_();
  backward(sum(x * x * x), create_graph_options());
  const Tensor g = x.grad();
  ASSERT_TRUE(g.defined());
  EXPECT_TRUE(g.requires_grad());
  EXPECT_FALSE(is_leaf(g));
  EXPECT_TRUE(agree({g}, {from_values({3.0, 12.0, 0.75}, {3})}, 1e-14, 0));
  // Without zero_grad the second backward accumulates into the same leaf: 3 x^2 + 6 x.
  backward(sum(g));
  EXPECT_TRUE(agree({x.grad()}, {from_values({9.0, 0.0, 3.75}, {3})}, 1e-14, 1e-15));
  // A plain backward records nothing: the gradient has no graph.
  Tensor y = from_values({1.0, 2.0}, {2});
  y.requires_grad_();
  backward(sum(y * y));
  EXPECT_FALSE(y.grad().requires_grad());
  x.zero_grad_();
  // Two create_graph passes accumulate graph-carrying gradients (2 * 3 x^2), and a create_graph
  // pass on top of a plain gradient adds to it; the sums differentiate like any tensor.
  backward(sum(x * x * x), create_graph_options());
  backward(sum(x * x * x), create_graph_options());
  const Tensor g2 = x.grad();
  EXPECT_TRUE(agree({g2}, {from_values({6.0, 24.0, 1.5}, {3})}, 1e-14, 0));
  x.zero_grad_();
  backward(sum(g2));  // d/dx sum(6 x^2) = 12 x
  EXPECT_TRUE(agree({x.grad()}, {from_values({12.0, -24.0, 6.0}, {3})}, 1e-14, 0));
  backward(sum(x * x * x), create_graph_options());  // plain 12 x + graph-carrying 3 x^2
  const Tensor g3 = x.grad();
  EXPECT_TRUE(agree({g3}, {from_values({15.0, -12.0, 6.75}, {3})}, 1e-14, 0));
  x.zero_grad_();
  backward(sum(g3));  // only the 3 x^2 part has a graph: 6 x
  EXPECT_TRUE(agree({x.grad()}, {from_values({6.0, -12.0, 3.0}, {3})}, 1e-14, 0));
  // x.grad() refers back to x through its graph (a reference cycle, as in PyTorch): break it.
  x.zero_grad_();
}

TEST(AutodiffHigherOrder, HessianContractedWithVIsTheHvp) {
  // hessian() (real inputs only): sum_j H[i][j] . v[j] over v[j]'s dimensions equals H v.
  for (const Instance& in : instances()) {
    if (in.dtype != DType::f64) continue;
    SCOPED_TRACE(in.label());
    const V hv = attempt("hessian", [&] {
      const std::vector<V> H = hessian(in.loss(), in.x);
      V out;
      for (std::size_t i = 0; i < in.x.size(); ++i) {
        Tensor s = zeros(in.x[i].shape(), DType::f64);
        for (std::size_t j = 0; j < in.x.size(); ++j)
          s = s + tensordot(H[i][j], in.v[j], in.v[j].rank());
        out.push_back(s);
      }
      return out;
    });
    if (!hv.empty()) EXPECT_TRUE(agree(hv, reference(in), kAgreeRtol, kAgreeAtol));
  }
}

// ---- traced ----

namespace {

/// H v from programs: jvp(grad(p)), grad of a program pairing grad(p) with v (reverse over
/// reverse), vjp(grad(p)) with cotangent v, grad of a program returning jvp(p)'s tangent
/// (reverse over forward).
struct TracedHvp {
  V fwd_rev, rev_rev, rev_fwd, vjp_grad;
};

TracedHvp traced_hvp(const Instance& in) {
  const std::size_t n = in.x.size();
  const ScalarFn L = in.loss();
  const Program p = trace([&](In x) { return L(x); }, in.specs(false));
  const Program g = grad(p);
  V xv = in.x;
  xv.insert(xv.end(), in.v.begin(), in.v.end());
  std::vector<int> wrt;
  for (std::size_t i = 0; i < n; ++i) wrt.push_back(static_cast<int>(i));
  TracedHvp out;
  out.fwd_rev = attempt("traced jvp(grad(p))", [&] {
    const V r = jvp(g)(xv);
    return V(r.begin() + static_cast<std::ptrdiff_t>(n), r.end());
  });
  out.rev_rev = attempt("traced grad of Re<grad(p), v>", [&] {
    const Program pair = trace(
        [&](In xs) { return re_inner(g(xs.subspan(0, n)), xs.subspan(n, n)); }, in.specs(true));
    return grad(pair, wrt)(xv);
  });
  out.vjp_grad = attempt("traced vjp(grad(p))", [&] { return vjp(g)(xv); });
  out.rev_fwd = attempt("traced grad of jvp(p)", [&] {
    const Program j = jvp(p);
    const Program tangent = trace([&](In xs) { return j(xs)[1]; }, in.specs(true));
    return grad(tangent, wrt)(xv);
  });
  return out;
}

}  // namespace

TEST(AutodiffHigherOrderTraced, ProgramsAgreeWithEager) {
  int n = 0;
  for (const Instance& in : instances()) {
    ++n;
    SCOPED_TRACE(in.label());
    const V& a = reference(in);
    const TracedHvp t = traced_hvp(in);
    if (!t.fwd_rev.empty()) EXPECT_TRUE(agree(t.fwd_rev, a, kAgreeRtol, kAgreeAtol)) << "jvp(grad)";
    if (!t.rev_rev.empty())
      EXPECT_TRUE(agree(t.rev_rev, a, kAgreeRtol, kAgreeAtol)) << "grad(grad)";
    if (!t.rev_fwd.empty()) EXPECT_TRUE(agree(t.rev_fwd, a, kAgreeRtol, kAgreeAtol)) << "grad(jvp)";
    if (!t.vjp_grad.empty())
      EXPECT_TRUE(agree(t.vjp_grad, a, kAgreeRtol, kAgreeAtol)) << "vjp(grad)";
  }
  EXPECT_GE(n, 200);
}

TEST(AutodiffHigherOrderTraced, GradOfGradOfAScalarProgram) {
  // The literal grad(grad(trace(f))) of a scalar function: f(t) = L(x + t v) has f''(0) =
  // Re<v, H v> (the real pairing of the direction with the Hessian-vector product).
  for (const Instance& in : instances()) {
    if (in.dtype != DType::f64) continue;
    SCOPED_TRACE(in.label());
    const ScalarFn L = in.loss();
    const auto f = [&](In t) {
      V xs;
      for (std::size_t i = 0; i < in.x.size(); ++i) xs.push_back(in.x[i] + in.v[i] * t[0]);
      return L(xs);
    };
    const V second = attempt("grad(grad(trace(f)))", [&] {
      return grad(grad(trace(f, {ValueSpec{{}, DType::f64}})))({scalar_tensor(0.0)});
    });
    if (!second.empty())
      EXPECT_TRUE(agree(second, {re_inner(in.v, reference(in))}, kAgreeRtol, kAgreeAtol));
  }
}

// ---- the smallest cases of the table's complex abs / sign rows, with exact values ----

// At z = 3 + 4i (|z| = 5): grad |z| = z / |z| = sign(z) = 0.6 + 0.8i, and the derivative of that
// along v = 1 is 1/|z| - z Re(conj(z) v) / |z|^3 = 0.2 - 3 (3 + 4i) / 125 = 0.128 - 0.096i. The
// same vector is grad Re(sign(z)) (d/dx x/r = 1/r - x^2/r^3, d/dy x/r = -x y/r^3).
TEST(AutodiffHigherOrder, ComplexAbsAndSignExactValues) {
  const Tensor z = from_vector<c128>({c128(3, 4)}, {1});
  const Tensor v = from_vector<c128>({c128(1, 0)}, {1});
  const V want = {from_vector<c128>({c128(0.128, -0.096)}, {1})};
  const ScalarFn abs_sum = [](In x) { return sum(abs(x[0])); };
  EXPECT_TRUE(agree(grad(abs_sum, {z}), {from_vector<c128>({c128(0.6, 0.8)}, {1})}, 1e-15, 0));
  EXPECT_TRUE(agree(hvp(abs_sum, {z}, {v}), want, 1e-15, 1e-16)) << "hvp of |z|";
  const V rr = attempt("grad of grad of |z|", [&] {
    return grad([&](In x) { return re_inner(grad(abs_sum, x)[0], v); }, {z});
  });
  if (!rr.empty()) EXPECT_TRUE(agree(rr, want, 1e-15, 1e-16)) << "grad(grad) of |z|";
  const V g = attempt("grad of Re sign(z)",
                      [&] { return grad([](In x) { return real(sum(sign(x[0]))); }, {z}); });
  if (!g.empty()) EXPECT_TRUE(agree(g, want, 1e-15, 1e-16)) << "grad Re(sign(z))";
}
