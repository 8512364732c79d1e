// dot_general's derivative rules, called directly on concrete tensors (the rules are written with
// public ops, so they run eagerly here): the JVP against the bilinear definition computed by the
// reference, the VJP against the adjoint identity Re<g, J t> = Re<J* g, t> (which pins down the
// conjugate-Wirtinger convention), and the complex matmul gradient in closed form.
#include <gtest/gtest.h>

#include "common/contract_reference.hpp"
#include "primitives/contract.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro {
namespace {

using testing::cld;
using testing::values_ld;

struct RuleCase {
  const char* name;
  Dims a, b;
  DotDims dims;
};

const RuleCase kCases[] = {
    {"matmul", {3, 4}, {4, 5}, {{}, {}, {1}, {0}}},
    {"batched", {2, 3, 4}, {2, 4, 5}, {{0}, {0}, {2}, {1}}},
    {"batch_not_leading", {3, 2, 4}, {4, 2, 5}, {{1}, {1}, {2}, {0}}},
    {"two_contractions", {2, 3, 4, 5}, {4, 6, 3}, {{}, {}, {1, 2}, {2, 0}}},
    {"two_batches_swapped", {2, 3, 4, 5}, {3, 2, 5, 6}, {{0, 1}, {1, 0}, {3}, {2}}},
    {"outer", {3}, {4}, {{}, {}, {}, {}}},
    {"dot", {5}, {5}, {{}, {}, {0}, {0}}},
    {"contract_first_of_b_last", {4, 3}, {2, 4}, {{}, {}, {0}, {1}}},
};

long double re_inner(const Tensor& x, const Tensor& y) {  // Re sum conj(x) y
  auto vx = values_ld(x), vy = values_ld(y);
  EXPECT_EQ(vx.size(), vy.size());
  long double s = 0;
  for (std::size_t i = 0; i < vx.size(); ++i) s += (std::conj(vx[i]) * vy[i]).real();
  return s;
}

struct Flags {
  bool ca, cb;
};

TEST(ContractRules, JvpMatchesBilinearDefinitionAndVjpIsItsAdjoint) {
  const std::pair<DType, DType> dtypes[] = {{DType::f64, DType::f64},  {DType::c128, DType::c128},
                                            {DType::f64, DType::c128}, {DType::c128, DType::f64},
                                            {DType::f32, DType::f32},  {DType::c64, DType::c64}};
  std::uint64_t seed = 1;
  for (const RuleCase& c : kCases)
    for (auto [da, db] : dtypes)
      for (Flags f :
           {Flags{false, false}, Flags{true, false}, Flags{false, true}, Flags{true, true}}) {
        detail::DotGeneralParams p;
        p.dims = c.dims;
        p.conj_lhs = f.ca;
        p.conj_rhs = f.cb;
        detail::DotGeneralPrim prim(p);
        Tensor a = randn(c.a, seed++, da), b = randn(c.b, seed++, db);
        Tensor ta = randn(c.a, seed++, da), tb = randn(c.b, seed++, db);
        Tensor y = detail::dot_general_ex(a, b, p);
        const Tensor primals[] = {a, b}, outputs[] = {y}, tangents[] = {ta, tb};
        Tensor out_t[1];
        prim.jvp(primals, outputs, tangents, out_t);
        std::string what = std::string(c.name) + " " + std::string(dtype_name(da)) + "x" +
                           std::string(dtype_name(db)) + " conj " + std::to_string(f.ca) +
                           std::to_string(f.cb);
        // JVP = B(ta, b) + B(a, tb), by the long-double definition.
        auto r1 = testing::reference_dot_general(ta, b, c.dims, f.ca, f.cb);
        auto r2 = testing::reference_dot_general(a, tb, c.dims, f.ca, f.cb);
        for (std::size_t i = 0; i < r1.values.size(); ++i) {
          r1.values[i] += r2.values[i];
          r1.magnitude[i] += r2.magnitude[i];
        }
        testing::expect_matches(out_t[0], r1, y.dtype(), what.c_str());

        // VJP: shapes and dtypes of the primals, and Re<g, jvp(t)> = Re<ga, ta> + Re<gb, tb>.
        Tensor g = randn(y.shape(), seed++, y.dtype());
        const Tensor cts[] = {g};
        const bool needs[] = {true, true};
        Tensor in_ct[2];
        prim.vjp(primals, outputs, cts, needs, in_ct);
        ASSERT_EQ(in_ct[0].shape(), a.shape()) << what;
        ASSERT_EQ(in_ct[1].shape(), b.shape()) << what;
        EXPECT_EQ(in_ct[0].dtype(), da) << what;
        EXPECT_EQ(in_ct[1].dtype(), db) << what;
        long double lhs = re_inner(g, out_t[0]);
        long double rhs = re_inner(in_ct[0], ta) + re_inner(in_ct[1], tb);
        long double scale = 1 + std::abs(lhs);
        EXPECT_LE(std::abs(lhs - rhs),
                  (is_double_precision(y.dtype()) ? 1e-11L : 1e-4L) * scale * 10)
            << what;

        // Only one input needed: the other stays undefined.
        const bool only_b[] = {false, true};
        Tensor in_ct2[2];
        prim.vjp(primals, outputs, cts, only_b, in_ct2);
        EXPECT_FALSE(in_ct2[0].defined());
        testing::expect_close(in_ct2[1], in_ct[1], 1e-12L, what.c_str());
      }
}

TEST(ContractRules, ComplexMatmulGradientIsConjugateWirtinger) {
  // PyTorch convention: C = A B, grad_A = G conj(B)^T, grad_B = conj(A)^T G.
  Tensor a = randn({3, 4}, 1, DType::c128), b = randn({4, 2}, 2, DType::c128),
         g = randn({3, 2}, 3, DType::c128);
  detail::DotGeneralPrim prim(detail::DotGeneralParams{{{}, {}, {1}, {0}}});
  Tensor y = matmul(a, b);
  const Tensor primals[] = {a, b}, outputs[] = {y}, cts[] = {g};
  const bool needs[] = {true, true};
  Tensor in_ct[2];
  prim.vjp(primals, outputs, cts, needs, in_ct);
  auto va = values_ld(a), vb = values_ld(b), vg = values_ld(g), ga = values_ld(in_ct[0]),
       gb = values_ld(in_ct[1]);
  for (int i = 0; i < 3; ++i)
    for (int p = 0; p < 4; ++p) {
      cld s = 0;
      for (int j = 0; j < 2; ++j) s += vg[i * 2 + j] * std::conj(vb[p * 2 + j]);
      EXPECT_LE(std::abs(ga[i * 4 + p] - s), 1e-13L);
    }
  for (int p = 0; p < 4; ++p)
    for (int j = 0; j < 2; ++j) {
      cld s = 0;
      for (int i = 0; i < 3; ++i) s += std::conj(va[i * 4 + p]) * vg[i * 2 + j];
      EXPECT_LE(std::abs(gb[p * 2 + j] - s), 1e-13L);
    }
}

TEST(ContractRules, RealInputWithComplexPartnerGetsRealPartGradient) {
  Tensor a = randn({2, 3}, 1, DType::f64), b = randn({3, 2}, 2, DType::c128),
         g = randn({2, 2}, 3, DType::c128);
  detail::DotGeneralPrim prim(detail::DotGeneralParams{{{}, {}, {1}, {0}}});
  Tensor y = matmul(a, b);
  const Tensor primals[] = {a, b}, outputs[] = {y}, cts[] = {g};
  const bool needs[] = {true, false};
  Tensor in_ct[2];
  prim.vjp(primals, outputs, cts, needs, in_ct);
  ASSERT_EQ(in_ct[0].dtype(), DType::f64);
  auto vb = values_ld(b), vg = values_ld(g), ga = values_ld(in_ct[0]);
  for (int i = 0; i < 2; ++i)
    for (int p = 0; p < 3; ++p) {
      cld s = 0;
      for (int j = 0; j < 2; ++j) s += vg[i * 2 + j] * std::conj(vb[p * 2 + j]);
      EXPECT_LE(std::abs(ga[i * 3 + p] - cld(s.real(), 0)), 1e-13L);
    }
}

TEST(ContractRules, ParamsTextNamesEverything) {
  detail::DotGeneralParams p{{{0}, {0}, {2}, {1}}, true, false, DType::f32};
  EXPECT_EQ(
      detail::DotGeneralPrim(p).params(),
      "lhs_batch=[0] rhs_batch=[0] lhs_contract=[2] rhs_contract=[1] conj_lhs=true out_dtype=f32");
}

}  // namespace
}  // namespace tenferro
