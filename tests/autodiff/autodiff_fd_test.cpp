// Finite-difference checks of every available primitive's VJP and JVP, the scope feature's
// sum(bmm(a, b)) case, and thread-budget independence.
#include "common/autodiff_fd.hpp"

#include <gtest/gtest.h>

#include "common/autodiff_test_ops.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using namespace tenferro::adtest;

namespace {

struct Case {
  const char* name;
  FdFn f;
  std::vector<Dims> shapes;
};

// Every structural primitive, on non-contiguous inputs where the op allows it.
std::vector<Case> structural_cases() {
  auto one = [](auto g) {
    return FdFn([g](std::span<const Tensor> in) { return std::vector<Tensor>{g(in[0])}; });
  };
  return {
      {"reshape",
       one([](const Tensor& x) {
         return reshape(x, {3, 4});
       }),
       {{2, 6}}},
      {"reshape_of_transposed",
       one([](const Tensor& x) { return reshape(transpose(x), {-1}); }),
       {{3, 4}}},
      {"permute",
       one([](const Tensor& x) {
         return permute(x, {2, 0, 1});
       }),
       {{2, 3, 4}}},
      {"transpose", one([](const Tensor& x) { return transpose(x, 0, 2); }), {{2, 3, 2}}},
      {"slice", one([](const Tensor& x) { return slice(transpose(x), 1, 1, 5, 2); }), {{5, 3}}},
      {"squeeze_unsqueeze",
       one([](const Tensor& x) { return unsqueeze(squeeze(x, 1), 0); }),
       {{3, 1, 2}}},
      {"copy", one([](const Tensor& x) { return copy(transpose(x)); }), {{2, 3}}},
      {"contiguous",
       one([](const Tensor& x) {
         return contiguous(permute(x, {1, 0}));
       }),
       {{3, 2}}},
      {"broadcast_same_shape",
       one([](const Tensor& x) {
         return broadcast_to(x, {2, 3});
       }),
       {{2, 3}}},
      {"broadcast_expand",
       one([](const Tensor& x) {
         return broadcast_to(transpose(x), {2, 3, 4});
       }),
       {{1, 3}}},
      {"broadcast_leading",
       one([](const Tensor& x) {
         return broadcast_to(x, {2, 3});
       }),
       {{3}}},
  };
}

// The reference primitives of autodiff_test_ops.hpp (their rules are the machinery's test load).
std::vector<Case> reference_cases() {
  return {
      {"mul_add_sin",
       [](std::span<const Tensor> in) {
         return std::vector<Tensor>{tadd(tmul(in[0], transpose(in[1])), tsin(in[0]))};
       },
       {{2, 3}, {3, 2}}},
      {"exp_sum",
       [](std::span<const Tensor> in) { return std::vector<Tensor>{tsum(texp(in[0]))}; },
       {{4}}},
      {"bmm",
       [](std::span<const Tensor> in) { return std::vector<Tensor>{tbmm(in[0], in[1])}; },
       {{2, 2, 3}, {2, 3, 2}}},
      {"bmm_transposed",
       [](std::span<const Tensor> in) {
         return std::vector<Tensor>{tbmm(transpose(in[0]), in[1])};
       },
       {{2, 3, 2}, {2, 3, 2}}},
      {"two_outputs",
       [](std::span<const Tensor> in) {
         return std::vector<Tensor>{tmul(in[0], in[0]), tsum(in[0])};
       },
       {{3}}},
  };
}

std::vector<Tensor> inputs_for(const Case& c, DType dtype, std::uint64_t seed) {
  std::vector<Tensor> xs;
  for (const Dims& s : c.shapes) xs.push_back(randn(s, seed++, dtype));
  return xs;
}

}  // namespace

TEST(AutodiffFd, StructuralPrimitivesF64AndC128) {
  for (DType d : {DType::f64, DType::c128})
    for (const Case& c : structural_cases()) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(d)));
      EXPECT_TRUE(check_vjp(c.f, inputs_for(c, d, 1)));
      EXPECT_TRUE(check_jvp(c.f, inputs_for(c, d, 1)));
    }
}

TEST(AutodiffFd, ReferencePrimitivesF64AndC128) {
  for (DType d : {DType::f64, DType::c128})
    for (const Case& c : reference_cases()) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(d)));
      EXPECT_TRUE(check_vjp(c.f, inputs_for(c, d, 5)));
      EXPECT_TRUE(check_jvp(c.f, inputs_for(c, d, 5)));
    }
}

TEST(AutodiffFd, CheckerDetectsAWrongRule) {
  // conj has a wrong derivative as a function of z if we pretend it is identity: compare
  // f(z) = conj(z) against a rule-free identity by swapping in a deliberately wrong function.
  FdFn wrong = [](std::span<const Tensor> in) {
    // value conj(z) but its derivative is the identity's: detach the value and add z - detach(z).
    Tensor z = in[0];
    return std::vector<Tensor>{tadd(tconj(detach(z)), tadd(z, unary(U::neg, detach(z))))};
  };
  Tensor z = randn({3}, 9, DType::c128);
  EXPECT_FALSE(check_vjp(wrong, {z}));
  EXPECT_FALSE(check_jvp(wrong, {z}));
}

TEST(AutodiffFd, SumOfSquarePlusSinClosedFormAllSizes) {
  auto f = [](std::span<const Tensor> in) { return tsum(tadd(tmul(in[0], in[0]), tsin(in[0]))); };
  for (std::int64_t n : {3, 64, 1024}) {
    SCOPED_TRACE(n);
    Tensor x = randn({n}, 21);
    std::vector<double> xv = x.to_vector<double>(), want(xv.size());
    for (std::size_t i = 0; i < xv.size(); ++i) want[i] = 2 * xv[i] + std::cos(xv[i]);
    Tensor leaf = from_vector<double>(xv, {n}).requires_grad_();
    backward(f(std::span<const Tensor>(&leaf, 1)));
    std::vector<Tensor> g = grad(f, {x});
    std::vector<double> ge = leaf.grad().to_vector<double>(), gf = g[0].to_vector<double>();
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(ge[i], want[i], 1e-12);
      ASSERT_NEAR(gf[i], want[i], 1e-12);
    }
    FdFn fv = [&](std::span<const Tensor> in) { return std::vector<Tensor>{f(in)}; };
    EXPECT_TRUE(check_vjp(fv, {x}));
    EXPECT_TRUE(check_jvp(fv, {x}));
  }
}

namespace {

struct BmmGrads {
  std::vector<double> ga, gb, ga_fn, gb_fn, ga_vjp, gb_vjp;
  double jvp_tangent;
};

BmmGrads bmm_case(const Tensor& a0, const Tensor& b0, const Tensor& ta, const Tensor& tb) {
  BmmGrads r;
  Tensor a = detach(a0), b = detach(b0);
  a.requires_grad_();
  b.requires_grad_();
  backward(tsum(tbmm(a, b)));
  r.ga = a.grad().to_vector<double>();
  r.gb = b.grad().to_vector<double>();
  auto f = [](std::span<const Tensor> in) { return tsum(tbmm(in[0], in[1])); };
  std::vector<Tensor> g = grad(f, {a0, b0});
  r.ga_fn = g[0].to_vector<double>();
  r.gb_fn = g[1].to_vector<double>();
  VjpResult v = vjp(f, {a0, b0});
  std::vector<Tensor> gv = v.pullback({scalar_tensor(1.0)});
  r.ga_vjp = gv[0].to_vector<double>();
  r.gb_vjp = gv[1].to_vector<double>();
  r.jvp_tangent = jvp(f, {a0, b0}, {ta, tb}).tangents[0].item<double>();
  return r;
}

}  // namespace

TEST(AutodiffFd, ScopeCaseSumBmmClosedFormAllModesAndBudgets) {
  Tensor a = randn({16, 2, 2}, 31), b = randn({16, 2, 2}, 32);
  Tensor ta = randn({16, 2, 2}, 33), tb = randn({16, 2, 2}, 34);
  std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> ta_v = ta.to_vector<double>(), tb_v = tb.to_vector<double>();
  // grad_a[p, i, k] = sum_j b[p, k, j]; grad_b[p, k, j] = sum_i a[p, i, k]
  std::vector<double> ga(64), gb(64);
  double dir = 0;
  for (int p = 0; p < 16; ++p)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        ga[p * 4 + i * 2 + k] = bv[p * 4 + k * 2 + 0] + bv[p * 4 + k * 2 + 1];
        gb[p * 4 + i * 2 + k] = av[p * 4 + 0 * 2 + i] + av[p * 4 + 1 * 2 + i];
      }
  for (int e = 0; e < 64; ++e) dir += ga[e] * ta_v[e] + gb[e] * tb_v[e];

  BmmGrads results[2];
  int slot = 0;
  for (int threads : {1, 4}) {
    CpuBackend cpu(CpuBackendOptions{.threads = threads});
    BackendGuard use(cpu);
    results[slot++] = bmm_case(a, b, ta, tb);
  }
  for (const BmmGrads& r : results)
    for (int e = 0; e < 64; ++e) {
      ASSERT_NEAR(r.ga[e], ga[e], 1e-12);
      ASSERT_NEAR(r.gb[e], gb[e], 1e-12);
      ASSERT_NEAR(r.ga_fn[e], ga[e], 1e-12);
      ASSERT_NEAR(r.gb_fn[e], gb[e], 1e-12);
      ASSERT_NEAR(r.ga_vjp[e], ga[e], 1e-12);
      ASSERT_NEAR(r.gb_vjp[e], gb[e], 1e-12);
    }
  for (const BmmGrads& r : results) EXPECT_NEAR(r.jvp_tangent, dir, 1e-10);
  for (int e = 0; e < 64; ++e) EXPECT_NEAR(results[0].ga[e], results[1].ga[e], 1e-13);
}
