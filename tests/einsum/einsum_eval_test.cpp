// einsum results against the independent naive evaluator (tests/common/einsum_reference.hpp).
#include <gtest/gtest.h>

#include <random>

#include "common/einsum_reference.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"

namespace {

using namespace tenferro;
using einsum_test::matches;
using einsum_test::reference_einsum;

struct Case {
  const char* spec;
  std::vector<Dims> shapes;
};

// Named cases: the classic forms plus tensor-network chains.
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"ij,jk->ik", {{3, 4}, {4, 5}}},                       // matmul
      {"ij,jk", {{3, 4}, {4, 5}}},                           // implicit
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},              // batched matmul
      {"ii", {{4, 4}}},                                      // trace
      {"ii->i", {{4, 4}}},                                   // diagonal
      {"iij->j", {{3, 3, 2}}},                               // partial trace
      {"iii->i", {{3, 3, 3}}},                               // triple diagonal
      {"ijij->ij", {{2, 3, 2, 3}}},                          // two diagonals
      {"i,j->ij", {{3}, {4}}},                               // outer
      {"ij->ji", {{3, 4}}},                                  // transpose
      {"ijk->kij", {{2, 3, 4}}},                             // permutation
      {"ij->", {{3, 4}}},                                    // full sum
      {"ij->j", {{3, 4}}},                                   // partial sum
      {"i,i->", {{5}, {5}}},                                 // dot
      {"i,i->i", {{5}, {5}}},                                // Hadamard
      {",ij->ij", {{}, {2, 3}}},                             // scalar operand
      {",->", {{}, {}}},                                     // scalars
      {"...ij,...jk->...ik", {{2, 3, 2, 3}, {2, 3, 3, 2}}},  // ellipsis batch
      {"...ij,...jk->...ik", {{2, 1, 2, 3}, {3, 3, 2}}},     // ellipsis broadcast
      {"...ij,jk", {{2, 2, 3}, {3, 4}}},                     // implicit with ellipsis
      {"...i->i", {{2, 3, 4}}},                              // '...' summed
      {"i...->...", {{3, 2, 2}}},                            // ellipsis at the end
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}},            // chain
      {"ab,bc,cd,de,ef->af", {{2, 3}, {3, 2}, {2, 4}, {4, 3}, {3, 2}}},
      {"abc,bd,cde->ade", {{2, 3, 2}, {3, 4}, {2, 4, 3}}},  // MPS-style
      {"aib,bjc,ckd,dla,ijkl->", {{2, 2, 3}, {3, 2, 2}, {2, 2, 3}, {3, 2, 2}, {2, 2, 2, 2}}},
      {"ab,ac,bd,cd,ae,bf,eg,fg->",
       {{2, 2}, {2, 3}, {2, 2}, {3, 2}, {2, 2}, {2, 3}, {2, 2}, {3, 2}}},
      {"ai,aj,ak,al,am,an->ijklmn", {{3, 2}, {3, 2}, {3, 2}, {3, 2}, {3, 2}, {3, 2}}},  // 6 ops
      {"Ab,bC->AC", {{2, 3}, {3, 2}}},           // uppercase labels
      {"bA,aB", {{2, 3}, {2, 4}}},               // implicit: ASCII order
      {"ij,ij->", {{0, 3}, {0, 3}}},             // empty
      {"ij,jk->ik", {{2, 0}, {0, 3}}},           // k == 0: zeros
      {" i j , j k -> i k ", {{2, 3}, {3, 2}}},  // spaces
  };
  return c;
}

std::vector<Tensor> operands(const Case& c, DType dtype, std::uint64_t seed) {
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < c.shapes.size(); ++k)
    ops.push_back(randn(c.shapes[k], seed + k, dtype));
  return ops;
}

TEST(EinsumEval, NamedCasesAllDtypes) {
  for (const Case& c : cases())
    for (DType dt : float_dtypes) {
      SCOPED_TRACE(std::string(c.spec) + " " + std::string(dtype_name(dt)));
      const std::vector<Tensor> ops = operands(c, dt, 7);
      EXPECT_TRUE(matches(einsum(c.spec, ops), reference_einsum(c.spec, ops), dt));
    }
}

TEST(EinsumEval, StridedOperandsAndMixedDtypes) {
  // A transposed view, a sliced view and a broadcast view, with three different dtypes.
  Tensor a = randn({4, 3}, 1, DType::f32).transpose();            // [3, 4] strided
  Tensor b = slice(randn({4, 10}, 2, DType::c128), 1, 0, 10, 2);  // [4, 5] step 2
  Tensor c = broadcast_to(randn({1, 2}, 3, DType::f64), {5, 2});  // stride 0
  const std::vector<Tensor> ops = {a, b, c};
  EXPECT_TRUE(
      matches(einsum("ij,jk,kl->il", ops), reference_einsum("ij,jk,kl->il", ops), DType::c128));
}

// Mixed dtypes are computed in the result's dtype whatever the path: sequential used to contract
// the two f32 operands in f32 first, so the f64 result had f32 rounding (~1e-7 relative).
TEST(EinsumEval, MixedDtypesDoNotDependOnThePath) {
  const std::vector<Tensor> ops = {randn({6, 40}, 1, DType::f32), randn({40, 30}, 2, DType::f32),
                                   randn({30, 5}, 3, DType::f64)};
  const auto ref = reference_einsum("ij,jk,kl->il", ops);
  for (EinsumStrategy s :
       {EinsumStrategy::sequential, EinsumStrategy::optimal, EinsumStrategy::greedy}) {
    const Tensor r = einsum("ij,jk,kl->il", ops, EinsumOptions{.strategy = s});
    EXPECT_EQ(r.dtype(), DType::f64);
    EXPECT_TRUE(matches(r, ref, DType::f64)) << static_cast<int>(s);
  }
}

TEST(EinsumEval, VariadicAndInitializerListForms) {
  Tensor a = randn({3, 4}, 1), b = randn({4, 2}, 2);
  const auto ref = reference_einsum("ij,jk->ik", {a, b});
  EXPECT_TRUE(matches(einsum("ij,jk->ik", a, b), ref, DType::f64));
  EXPECT_TRUE(matches(einsum("ij,jk->ik", {a, b}), ref, DType::f64));
  EXPECT_TRUE(matches(matmul(a, b), ref, DType::f64));  // the reference itself is sane
}

TEST(EinsumEval, IntegerLabelForm) {
  Tensor a = randn({3, 4}, 1), b = randn({4, 2}, 2), c = randn({2, 3}, 3);
  EXPECT_TRUE(matches(einsum({a, b}, {{0, 1}, {1, 2}}, {0, 2}),
                      reference_einsum("ij,jk->ik", {a, b}), DType::f64));
  EXPECT_TRUE(matches(einsum({a, b}, {{10, 7}, {7, 1000}}),  // implicit: increasing labels
                      reference_einsum("ij,jk", {a, b}), DType::f64));
  EXPECT_TRUE(matches(einsum({a, b, c}, {{5, 6}, {6, 7}, {7, 5}}, {}),
                      reference_einsum("ij,jk,ki->", {a, b, c}), DType::f64));
  // More labels than letters: a 60-operand ring of 2x2 matrices (trace of the product).
  std::vector<Tensor> ring;
  std::vector<EinsumLabels> labels;
  Tensor prod;
  for (int k = 0; k < 60; ++k) {
    ring.push_back(mul(randn({2, 2}, 100 + k), 0.7));
    labels.push_back({k, (k + 1) % 60});
    prod = k == 0 ? ring[0] : matmul(prod, ring.back());
  }
  const double expect = prod.at<double>({0, 0}) + prod.at<double>({1, 1});
  EXPECT_NEAR(einsum(ring, labels, {}).item<double>(), expect, 1e-9 * (1 + std::abs(expect)));
}

// Random networks: 1-6 operands, labels of size 1-3 shared at random, occasional repeats.
TEST(EinsumEval, RandomNetworksAgainstReference) {
  std::mt19937_64 rng(2024);
  const std::string pool = "abcdefgh";
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int nops = 1 + static_cast<int>(rng() % 6);
    std::map<char, std::int64_t> size;
    for (char c : pool) size[c] = 1 + static_cast<std::int64_t>(rng() % 3);
    std::string spec;
    std::vector<Dims> shapes;
    std::map<char, int> used;
    for (int k = 0; k < nops; ++k) {
      if (k) spec += ',';
      const int rank = static_cast<int>(rng() % 4);
      Dims shape;
      for (int a = 0; a < rank; ++a) {
        char c = pool[rng() % (2 + static_cast<std::size_t>(nops))];
        spec += c;
        shape.push_back(size[c]);
        ++used[c];
      }
      shapes.push_back(shape);
    }
    if (rng() % 3) {  // explicit output: a random subset in random order
      std::string out;
      for (auto [c, n] : used)
        if (rng() % 2) out += c;
      std::shuffle(out.begin(), out.end(), rng);
      spec += "->" + out;
    }
    const DType dt = float_dtypes[rng() % 4];
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < shapes.size(); ++k) ops.push_back(randn(shapes[k], rng(), dt));
    SCOPED_TRACE(spec + " " + std::string(dtype_name(dt)));
    ASSERT_TRUE(matches(einsum(spec, ops), reference_einsum(spec, ops), dt));
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}

TEST(EinsumEval, AllStrategiesAgree) {
  const Case c{"ab,bc,cd,de,ea->", {{3, 4}, {4, 2}, {2, 5}, {5, 3}, {3, 3}}};
  const std::vector<Tensor> ops = operands(c, DType::f64, 3);
  const auto ref = reference_einsum(c.spec, ops);
  for (EinsumStrategy s : {EinsumStrategy::automatic, EinsumStrategy::optimal,
                           EinsumStrategy::greedy, EinsumStrategy::sequential})
    EXPECT_TRUE(matches(einsum(c.spec, ops, EinsumOptions{.strategy = s}), ref, DType::f64));
}

TEST(EinsumEval, PreparedPlanMatchesEagerAndIsReusable) {
  const Case c{"abc,bd,cde->ade", {{3, 4, 2}, {4, 3}, {2, 3, 2}}};
  for (DType dt : float_dtypes) {
    EinsumPlan plan = prepare_einsum(c.spec, c.shapes, {dt});
    EXPECT_EQ(plan.output_shape(), (Dims{3, 3, 2}));
    EXPECT_EQ(plan.output_dtype(), dt);
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const std::vector<Tensor> ops = operands(c, dt, seed);
      EXPECT_TRUE(matches(plan(ops), reference_einsum(c.spec, ops), dt));
    }
  }
}

TEST(EinsumEval, SingleOperandViewsShareStorage) {
  Tensor m = randn({3, 3}, 5);
  Tensor d = einsum("ii->i", m);
  EXPECT_EQ(d.storage().get(), m.storage().get());  // a diag view, as NumPy
  Tensor t = einsum("ij->ji", m);
  EXPECT_EQ(t.storage().get(), m.storage().get());
}

}  // namespace
