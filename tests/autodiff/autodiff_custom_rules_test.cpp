// custom_vjp / custom_jvp (tenferro/custom_rules.hpp, docs/custom-rules.md): the user's rule is
// what every transform computes -- eagerly, on the tape, in grad/vjp/jvp, in traces and prepared
// programs, inside an execution scope -- and bad rule results are typed errors that corrupt
// nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;

namespace {

double max_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  return max(abs(a - b)).item<double>();
}

// f = sin(x) with a deliberately different reverse rule, 3 cos(x) ct: any result that equals
// 3 cos(x) came from the custom rule, not from the derivative of f's ops.
struct Counts {
  std::atomic<int> f{0}, fwd{0}, bwd{0};
};
CustomVjp scaled_sin(Counts* c) {
  return CustomVjp(
      [c](std::span<const Tensor> x) {
        ++c->f;
        return std::vector<Tensor>{sin(x[0])};
      },
      [c](std::span<const Tensor> x) {
        ++c->fwd;
        return VjpFwdResult{{sin(x[0])}, {cos(x[0])}};
      },
      [c](std::span<const Tensor> res, std::span<const Tensor> ct) {
        ++c->bwd;
        return std::vector<Tensor>{3.0 * ct[0] * res[0]};
      },
      "scaled_sin");
}

// |x| = sqrt(sum x^2): its ops' derivative at 0 is 0 * inf = nan; the safe rule gives 0.
CustomVjp safe_norm() {
  return CustomVjp(
      [](std::span<const Tensor> x) { return std::vector<Tensor>{sqrt(sum(x[0] * x[0]))}; },
      [](std::span<const Tensor> x) {
        Tensor n = sqrt(sum(x[0] * x[0]));
        return VjpFwdResult{{n}, {x[0], n}};
      },
      [](std::span<const Tensor> res, std::span<const Tensor> ct) {
        Tensor safe = where(gt(res[1], 0.0), res[1], ones({}, res[1].dtype()));
        return std::vector<Tensor>{ct[0] * res[0] / safe};
      },
      "safe_norm");
}

}  // namespace

TEST(CustomVjp, PlainCallRunsFOnlyAndTapeRunsFwdThenBwd) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Tensor x = randn({4}, 1);
  EXPECT_LT(max_diff(g({x})[0], sin(x)), 1e-15);
  EXPECT_EQ(c.f, 1);
  EXPECT_EQ(c.fwd, 0);  // nothing to differentiate: no residuals computed

  Tensor leaf = randn({4}, 1).requires_grad_();
  backward(sum(g({leaf})[0]));
  EXPECT_EQ(c.fwd, 1);
  EXPECT_EQ(c.bwd, 1);
  EXPECT_LT(max_diff(leaf.grad(), 3.0 * cos(x)), 1e-14);
}

TEST(CustomVjp, FunctionalGradAndVjpUseBwd) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Tensor x = randn({5}, 2), u = randn({5}, 3);
  std::vector<Tensor> gr = grad([&](std::span<const Tensor> in) { return sum(g(in)[0]); }, {x});
  EXPECT_LT(max_diff(gr[0], 3.0 * cos(x)), 1e-14);
  VjpResult r = vjp(MultiFn(g), {x});
  EXPECT_LT(max_diff(r.outputs[0], sin(x)), 1e-15);
  EXPECT_LT(max_diff(r.pullback({u})[0], 3.0 * u * cos(x)), 1e-14);
}

TEST(CustomVjp, SafeRuleIsFiniteWhereTheOpsDerivativeIsNan) {
  Tensor z = zeros({3});
  auto plain = [](std::span<const Tensor> x) { return sqrt(sum(x[0] * x[0])); };
  EXPECT_TRUE(std::isnan(grad(plain, {z})[0].to_vector<double>()[0]));
  CustomVjp n = safe_norm();
  std::vector<Tensor> g = grad([&](std::span<const Tensor> x) { return n(x)[0]; }, {z});
  EXPECT_EQ(g[0].to_vector<double>(), std::vector<double>(3, 0.0));
}

TEST(CustomVjp, CorrectRuleWithSeveralInputsOutputsAndResidualsMatchesFiniteDifferences) {
  // f(a, b) = (a * b, sin(a)); residuals a, b, cos(a); bwd is the true derivative.
  CustomVjp f(
      [](std::span<const Tensor> x) {
        return std::vector<Tensor>{x[0] * x[1], sin(x[0])};
      },
      [](std::span<const Tensor> x) {
        return VjpFwdResult{{x[0] * x[1], sin(x[0])}, {x[0], x[1], cos(x[0])}};
      },
      [](std::span<const Tensor> r, std::span<const Tensor> ct) {
        return std::vector<Tensor>{ct[0] * r[1] + ct[1] * r[2], ct[0] * r[0]};
      });
  EXPECT_TRUE(adtest::check_vjp([&](std::span<const Tensor> x) { return f(x); },
                                {randn({2, 3}, 4), randn({2, 3}, 5)}));
  // Forward mode differentiates fwd's ops: here the same derivative.
  EXPECT_TRUE(adtest::check_jvp([&](std::span<const Tensor> x) { return f(x); },
                                {randn({2, 3}, 4), randn({2, 3}, 5)}));
}

TEST(CustomVjp, ForwardModeDifferentiatesFwdNotTheReverseRule) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Tensor x = randn({4}, 6), v = randn({4}, 7);
  JvpResult r = jvp(MultiFn(g), {x}, {v});
  EXPECT_LT(max_diff(r.tangents[0], cos(x) * v), 1e-14);  // f's derivative, documented
}

TEST(CustomVjp, ForwardOverReverseDifferentiatesBwd) {
  // hvp = jvp of grad: grad is bwd = 3 cos(x), so H v = -3 sin(x) v (bwd's residual cos(x)
  // gets its tangent from jvp of fwd).
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Tensor x = randn({4}, 8), v = randn({4}, 9);
  std::vector<Tensor> hv = hvp([&](std::span<const Tensor> in) { return sum(g(in)[0]); }, {x}, {v});
  EXPECT_LT(max_diff(hv[0], -3.0 * sin(x) * v), 1e-13);
}

TEST(CustomVjp, ReverseOverReverseDifferentiatesBwd) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Tensor x = randn({4}, 10);
  auto inner = [&](std::span<const Tensor> in) {
    return sum(grad([&](std::span<const Tensor> y) { return sum(g(y)[0]); }, in)[0]);
  };
  const std::vector<Tensor> gg = grad(inner, {x});
  EXPECT_LT(max_diff(gg[0], -3.0 * sin(x)), 1e-13);  // d/dx sum(3 cos x)
}

TEST(CustomVjp, TracedGradAndPreparedProgramUseBwd) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Program p = trace([&](std::span<const Tensor> x) { return sum(g(x)[0]); }, {ValueSpec{{4}}});
  EXPECT_NE(p.to_string().find("custom_vjp"), std::string::npos) << p;
  EXPECT_NE(p.to_string().find("rule=scaled_sin"), std::string::npos) << p;
  Program dp = grad(p);
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  PreparedProgram value = rt.prepare(p), gradient = rt.prepare(dp);
  // Prepared plans run ordinary kernels: the call was inlined.
  EXPECT_EQ(gradient.program().to_string().find("custom_vjp"), std::string::npos)
      << gradient.program();
  Tensor x = randn({4}, 11);
  EXPECT_LT(max_diff(rt.run(value, {x})[0], sum(sin(x))), 1e-14);
  EXPECT_LT(max_diff(rt.run(gradient, {x})[0], 3.0 * cos(x)), 1e-14);
  // The program interpreted eagerly, and prepared at other specs (the body is traced again).
  EXPECT_LT(max_diff(dp({x})[0], 3.0 * cos(x)), 1e-14);
  Tensor y = randn({6}, 12);
  PreparedProgram other = rt.prepare(p, std::vector<ValueSpec>{{{6}}});
  EXPECT_LT(max_diff(rt.run(other, {y})[0], sum(sin(y))), 1e-14);
}

TEST(CustomVjp, TracedSafeRuleAndProgramSecondOrder) {
  CustomVjp n = safe_norm();
  Program p = trace([&](std::span<const Tensor> x) { return n(x)[0]; }, {ValueSpec{{3}}});
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  Tensor z = zeros({3});
  EXPECT_EQ(rt.run(rt.prepare(grad(p)), {z})[0].to_vector<double>(), std::vector<double>(3, 0.0));
  // grad of grad of the program: the bwd's ops are differentiated. d/dx sum(x/|x|) at x.
  Program s =
      trace([&](std::span<const Tensor> x) { return sum(grad(p)(x)[0]); }, {ValueSpec{{3}}});
  Tensor x = randn({3}, 13);
  Tensor nx = sqrt(sum(x * x));
  Tensor want = 1.0 / nx - x * sum(x) / (nx * nx * nx);
  EXPECT_LT(max_diff(rt.run(rt.prepare(grad(s)), {x})[0], want), 1e-13);
}

TEST(CustomVjp, TracedJvpAndVjpPrograms) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Program p = trace([&](std::span<const Tensor> x) { return g(x); }, {ValueSpec{{4}}});
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  Tensor x = randn({4}, 14), u = randn({4}, 15);
  std::vector<Tensor> t = rt.run(rt.prepare(jvp(p)), {x, u});
  EXPECT_LT(max_diff(t[1], cos(x) * u), 1e-14);
  std::vector<Tensor> b = rt.run(rt.prepare(vjp(p)), {x, u});
  EXPECT_LT(max_diff(b[0], 3.0 * u * cos(x)), 1e-14);
}

TEST(CustomVjp, InsideOneExecutionScope) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  Tensor x = randn({4}, 16);
  const std::uint64_t before = cpu.diagnostics().executor_entries;
  Tensor gx = cpu.with_execution_scope([&] {
    Tensor leaf = x * 1.0;
    leaf.requires_grad_();
    backward(sum(g({leaf})[0]));
    return grad([&](std::span<const Tensor> in) { return sum(g(in)[0]); }, {x})[0] + leaf.grad();
  });
  EXPECT_EQ(cpu.diagnostics().executor_entries, before + 1);
  EXPECT_LT(max_diff(gx, 6.0 * cos(x)), 1e-14);
}

TEST(CustomVjp, BadBwdResultsAreTypedErrorsThatCorruptNothing) {
  auto with_bwd = [](VjpBwdFn bwd) {
    return CustomVjp([](std::span<const Tensor> x) { return std::vector<Tensor>{x[0] * x[1]}; },
                     [](std::span<const Tensor> x) {
                       return VjpFwdResult{{x[0] * x[1]}, {x[0], x[1]}};
                     },
                     std::move(bwd), "product");
  };
  CustomVjp too_few = with_bwd([](std::span<const Tensor> r, std::span<const Tensor> ct) {
    return std::vector<Tensor>{ct[0] * r[1]};
  });
  CustomVjp bad_shape = with_bwd([](std::span<const Tensor> r, std::span<const Tensor> ct) {
    return std::vector<Tensor>{ct[0] * r[1], zeros({3, 2})};
  });
  CustomVjp bad_dtype = with_bwd([](std::span<const Tensor> r, std::span<const Tensor> ct) {
    return std::vector<Tensor>{ct[0] * r[1], cast(ct[0] * r[0], DType::f32)};
  });
  CustomVjp good = with_bwd([](std::span<const Tensor> r, std::span<const Tensor> ct) {
    return std::vector<Tensor>{ct[0] * r[1], ct[0] * r[0]};
  });
  Tensor a = randn({2, 3}, 17).requires_grad_(), b = randn({2, 3}, 18).requires_grad_();
  auto run = [&](const CustomVjp& f) { return [&] { backward(sum(f({a, b})[0] * a)); }; };
  expect_error(run(too_few), ErrorKind::InvalidArgument,
               {"custom_vjp 'product'", "bwd returned 1 tensors", "one per input (2"});
  expect_error(run(bad_shape), ErrorKind::ShapeMismatch,
               {"custom_vjp 'product'", "bwd", "input 1", "[3, 2] f64", "[2, 3] f64"});
  expect_error(run(bad_dtype), ErrorKind::DTypeMismatch,
               {"custom_vjp 'product'", "input 1", "[2, 3] f32", "[2, 3] f64"});
  EXPECT_FALSE(a.grad().defined());  // backward is all-or-nothing
  EXPECT_FALSE(b.grad().defined());
  // A later backward on a correct graph works, and gets exactly its own gradient.
  backward(sum(good({a, b})[0]));
  EXPECT_LT(max_diff(a.grad(), b), 1e-15);
  EXPECT_LT(max_diff(b.grad(), a), 1e-15);
}

TEST(CustomVjp, MisuseOfTheApiIsRefused) {
  Tensor w = randn({3}, 19).requires_grad_();
  CustomVjp closes([w](std::span<const Tensor> x) { return std::vector<Tensor>{x[0] * w}; },
                   [w](std::span<const Tensor> x) {
                     return VjpFwdResult{{x[0] * w}, {}};
                   },
                   [](std::span<const Tensor>, std::span<const Tensor> ct) {
                     return std::vector<Tensor>{ct[0]};
                   },
                   "closes");
  Tensor x = randn({3}, 20);
  expect_error([&] { closes({x}); }, ErrorKind::InvalidArgument,
               {"custom_vjp 'closes'", "closure", "pass that tensor as an input"});
  expect_error([&] { grad([&](std::span<const Tensor> in) { return sum(closes(in)[0]); }, {x}); },
               ErrorKind::InvalidArgument, {"custom_vjp 'closes'", "fwd"});
  expect_error([] { CustomVjp(MultiFn(), nullptr, nullptr); }, ErrorKind::InvalidArgument,
               {"custom_vjp", "f is empty"});
  int calls = 0;
  CustomVjp varying(
      [&calls](std::span<const Tensor> x) {
        return std::vector<Tensor>(static_cast<std::size_t>(++calls), x[0]);
      },
      [](std::span<const Tensor> x) {
        return VjpFwdResult{{x[0]}, {}};
      },
      [](std::span<const Tensor>, std::span<const Tensor> ct) {
        return std::vector<Tensor>{ct[0]};
      },
      "varying");
  varying({x});
  expect_error([&] { varying({x}); }, ErrorKind::InvalidArgument,
               {"custom_vjp 'varying'", "returned 2 outputs; earlier calls returned 1"});
}

// ---- custom_jvp ----

namespace {
// f = sin(x) with the forward rule 2 cos(x) t (again deliberately not f's derivative).
CustomJvp doubled_sin(bool with_vjp) {
  VjpRuleFn vjp_rule;
  if (with_vjp)
    vjp_rule = [](std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct) {
      return std::vector<Tensor>{2.0 * ct[0] * cos(x[0])};
    };
  return CustomJvp([](std::span<const Tensor> x) { return std::vector<Tensor>{sin(x[0])}; },
                   [](std::span<const Tensor> x, std::span<const Tensor> t) {
                     return std::vector<Tensor>{2.0 * cos(x[0]) * t[0]};
                   },
                   std::move(vjp_rule), "doubled_sin");
}
}  // namespace

TEST(CustomJvp, ForwardModeUsesTheRuleEagerAndTraced) {
  CustomJvp g = doubled_sin(false);
  Tensor x = randn({4}, 21), v = randn({4}, 22);
  EXPECT_LT(max_diff(jvp(MultiFn(g), {x}, {v}).tangents[0], 2.0 * cos(x) * v), 1e-14);
  Program p = trace([&](std::span<const Tensor> in) { return g(in); }, {ValueSpec{{4}}});
  EXPECT_NE(p.to_string().find("custom_jvp"), std::string::npos);
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  std::vector<Tensor> r = rt.run(rt.prepare(jvp(p)), {x, v});
  EXPECT_LT(max_diff(r[0], sin(x)), 1e-15);
  EXPECT_LT(max_diff(r[1], 2.0 * cos(x) * v), 1e-14);
}

TEST(CustomJvp, ReverseModeNeedsAVjpRule) {
  CustomJvp g = doubled_sin(false);
  Tensor x = randn({4}, 23);
  auto loss = [&](std::span<const Tensor> in) { return sum(g(in)[0]); };
  expect_error([&] { grad(loss, {x}); }, ErrorKind::Unsupported,
               {"custom_jvp 'doubled_sin'", "reverse mode", "cannot be transposed"});
  Program p = trace(loss, {ValueSpec{{4}}});
  expect_error([&] { grad(p); }, ErrorKind::Unsupported, {"custom_jvp 'doubled_sin'"});

  CustomJvp h = doubled_sin(true);
  auto loss2 = [&](std::span<const Tensor> in) { return sum(h(in)[0]); };
  EXPECT_LT(max_diff(grad(loss2, {x})[0], 2.0 * cos(x)), 1e-14);
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  EXPECT_LT(
      max_diff(rt.run(rt.prepare(grad(trace(loss2, {ValueSpec{{4}}}))), {x})[0], 2.0 * cos(x)),
      1e-14);
}

TEST(CustomJvp, BadJvpResultIsATypedError) {
  CustomJvp g([](std::span<const Tensor> x) { return std::vector<Tensor>{sin(x[0])}; },
              [](std::span<const Tensor>, std::span<const Tensor>) {
                return std::vector<Tensor>{zeros({5})};
              },
              {}, "bad");
  Tensor x = randn({4}, 24);
  expect_error([&] { jvp(MultiFn(g), {x}, {x}); }, ErrorKind::ShapeMismatch,
               {"custom_jvp 'bad'", "jvp rule", "output 0", "[5] f64", "[4] f64"});
}

TEST(CustomJvp, ForwardOverForwardDifferentiatesTheRule) {
  CustomJvp g = doubled_sin(false);
  Tensor x = randn({3}, 25), v = randn({3}, 26), w = randn({3}, 27);
  // d/dx along w of (2 cos(x) v) = -2 sin(x) v w.
  auto inner = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{jvp(MultiFn(g), {in[0]}, {v}).tangents[0]};
  };
  const JvpResult r = jvp(MultiFn(inner), {x}, {w});
  EXPECT_LT(max_diff(r.tangents[0], -2.0 * sin(x) * v * w), 1e-13);
}

TEST(CustomVjp, ForwardOverForwardDifferentiatesFwdTwice) {
  Counts c;
  CustomVjp g = scaled_sin(&c);
  Tensor x = randn({3}, 28), v = randn({3}, 29), w = randn({3}, 30);
  auto inner = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{jvp(MultiFn(g), {in[0]}, {v}).tangents[0]};
  };
  const JvpResult r = jvp(MultiFn(inner), {x}, {w});
  EXPECT_LT(max_diff(r.tangents[0], -1.0 * sin(x) * v * w), 1e-13);  // f = sin's own ops
}
