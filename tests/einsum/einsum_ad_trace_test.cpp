// einsum under autodiff (finite differences) and tracing (traced == eager, records dot_general).
#include <gtest/gtest.h>

#include "common/autodiff_fd.hpp"
#include "common/einsum_reference.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace {

using namespace tenferro;

struct AdCase {
  const char* spec;
  std::vector<Dims> shapes;
};

const std::vector<AdCase>& ad_cases() {
  static const std::vector<AdCase> c = {
      {"ij,jk->ik", {{2, 3}, {3, 2}}},
      {"ii->i", {{3, 3}}},
      {"iij->j", {{2, 2, 3}}},
      {"i,j->ij", {{2}, {3}}},
      {"ij->", {{2, 3}}},
      {"abc,bd,cde->ade", {{2, 2, 2}, {2, 3}, {2, 3, 2}}},
      {"...ij,...jk->...ik", {{2, 1, 2, 2}, {3, 2, 2}}},
      {"ab,bc,cd,da->", {{2, 3}, {3, 2}, {2, 2}, {2, 2}}},
  };
  return c;
}

adtest::FdFn einsum_fn(const char* spec) {
  return [spec](std::span<const Tensor> x) { return std::vector<Tensor>{einsum(spec, x)}; };
}

std::vector<Tensor> inputs(const AdCase& c, DType dt) {
  std::vector<Tensor> x;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) x.push_back(randn(c.shapes[k], 40 + k, dt));
  return x;
}

TEST(EinsumAutodiff, VjpMatchesFiniteDifferences) {
  for (const AdCase& c : ad_cases())
    for (DType dt : {DType::f64, DType::c128}) {
      SCOPED_TRACE(std::string(c.spec) + " " + std::string(dtype_name(dt)));
      EXPECT_TRUE(adtest::check_vjp(einsum_fn(c.spec), inputs(c, dt)));
    }
}

TEST(EinsumAutodiff, JvpMatchesFiniteDifferences) {
  for (const AdCase& c : ad_cases())
    for (DType dt : {DType::f64, DType::c128}) {
      SCOPED_TRACE(std::string(c.spec) + " " + std::string(dtype_name(dt)));
      EXPECT_TRUE(adtest::check_jvp(einsum_fn(c.spec), inputs(c, dt)));
    }
}

TEST(EinsumAutodiff, BackwardThroughPlanAndIntegerForm) {
  // Loss = sum(A B C): the gradient of A is 1 (B C 1)^T row-broadcast; checked against matmul.
  Tensor a = randn({2, 3}, 1).requires_grad_(), b = randn({3, 4}, 2), c = randn({4, 2}, 3);
  EinsumPlan plan = prepare_einsum("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}, {DType::f64});
  backward(sum(plan({a, b, c})));
  Tensor ga = a.grad();
  a.zero_grad_();
  backward(sum(matmul(matmul(a, b), c)));
  EXPECT_TRUE(allclose(ga, a.grad(), 1e-12, 1e-12));
  a.zero_grad_();
  backward(sum(einsum({a, b, c}, {{0, 1}, {1, 2}, {2, 3}}, {0, 3})));
  EXPECT_TRUE(allclose(ga, a.grad(), 1e-12, 1e-12));
}

std::size_t count_nodes(const Program& p, std::string_view name) {
  std::size_t n = 0;
  for (const ProgramNode& node : p.nodes) n += node.name() == name;
  return n;
}

TEST(EinsumTrace, TracedEqualsEagerAndRecordsDotGeneral) {
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  for (const AdCase& c : ad_cases()) {
    SCOPED_TRACE(c.spec);
    std::vector<ValueSpec> specs;
    for (const Dims& s : c.shapes) specs.push_back(ValueSpec{s, DType::f64});
    const char* spec = c.spec;
    Program p = trace([spec](std::span<const Tensor> x) { return einsum(spec, x); }, specs);
    EXPECT_EQ(count_nodes(p, "dot_general"), einsum_path(spec, c.shapes).steps.size());
    const std::vector<Tensor> x = inputs(c, DType::f64);
    const Tensor eager = einsum(spec, x);
    EXPECT_TRUE(allclose(rt.run(rt.prepare(p), x)[0], eager, 1e-13, 1e-13));
  }
}

TEST(EinsumTrace, PreparedPlanInsideATracedProgramAndItsGradient) {
  const std::vector<Dims> shapes = {{3, 4, 2}, {4, 3}, {2, 3, 2}};
  EinsumPlan plan = prepare_einsum("abc,bd,cde->ade", shapes, {DType::c128});
  Program p = trace([&](std::span<const Tensor> x) { return sum_squares(plan(x)); },
                    {ValueSpec{shapes[0], DType::c128}, ValueSpec{shapes[1], DType::c128},
                     ValueSpec{shapes[2], DType::c128}});
  EXPECT_EQ(count_nodes(p, "dot_general"), 2u);
  Program g = grad(p);
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  std::vector<Tensor> x;
  for (std::size_t k = 0; k < 3; ++k) x.push_back(randn(shapes[k], 60 + k, DType::c128));
  std::vector<Tensor> traced = rt.run(rt.prepare(g), x);
  std::vector<Tensor> eager =
      tenferro::grad([&](std::span<const Tensor> in) { return sum_squares(plan(in)); }, x);
  ASSERT_EQ(traced.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(allclose(traced[k], eager[k], 1e-12, 1e-12));
}

TEST(EinsumEval, ThreadBudgetsAgree) {
  const std::vector<Tensor> x = {randn({10, 8, 6}, 1), randn({8, 12}, 2), randn({6, 12, 5}, 3)};
  Tensor one, four;
  {
    CpuBackend cpu(CpuBackendOptions{.threads = 1});
    BackendGuard use(cpu);
    one = einsum("abc,bd,cde->ade", x);
  }
  {
    CpuBackend cpu(CpuBackendOptions{.threads = 4});
    BackendGuard use(cpu);
    four = einsum("abc,bd,cde->ade", x);
  }
  EXPECT_TRUE(allclose(one, four, 1e-12, 1e-12));
  EXPECT_TRUE(
      einsum_test::matches(one, einsum_test::reference_einsum("abc,bd,cde->ade", x), DType::f64));
}

}  // namespace
