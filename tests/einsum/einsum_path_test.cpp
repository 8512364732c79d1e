// Contraction paths: known optimal costs, optimal vs an independent brute force, greedy vs left
// to right, memory limits, printing, explicit paths (EinsumOptions::path).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "common/expect_error.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"

namespace {

using namespace tenferro;
using tenferro::testing::expect_error;

// Independent cost model (Note [Einsum cost model]): all labels of both sides, doubled when a
// label is summed; labels kept when another remaining tensor or the output has them.
using Set = std::set<char>;
double brute_force(std::vector<Set> ts, const Set& out, std::map<char, double>& size) {
  if (ts.size() == 1) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < ts.size(); ++i)
    for (std::size_t j = i + 1; j < ts.size(); ++j) {
      Set all = ts[i], keep;
      all.insert(ts[j].begin(), ts[j].end());
      for (char c : all) {
        bool needed = out.count(c) > 0;
        for (std::size_t k = 0; k < ts.size(); ++k)
          if (k != i && k != j && ts[k].count(c)) needed = true;
        if (needed) keep.insert(c);
      }
      double cost = keep == all ? 1 : 2;
      for (char c : all) cost *= size[c];
      std::vector<Set> rest;
      for (std::size_t k = 0; k < ts.size(); ++k)
        if (k != i && k != j) rest.push_back(ts[k]);
      rest.push_back(keep);
      best = std::min(best, cost + brute_force(rest, out, size));
    }
  return best;
}

TEST(EinsumPath, MatrixChainHasTheTextbookOptimum) {
  // CLRS 15.2: dimensions 30x35, 35x15, 15x5, 5x10, 10x20, 20x25; 15125 scalar multiplications
  // optimally, 40500 left to right. Flops count 2 per multiply-add.
  const std::vector<Dims> shapes = {{30, 35}, {35, 15}, {15, 5}, {5, 10}, {10, 20}, {20, 25}};
  const char* spec = "ab,bc,cd,de,ef,fg->ag";
  EinsumPath opt = einsum_path(spec, shapes);
  EXPECT_EQ(opt.strategy, EinsumStrategy::optimal);
  EXPECT_DOUBLE_EQ(opt.flops, 2 * 15125.0);
  EXPECT_EQ(opt.steps.size(), 5u);
  EinsumPath seq = einsum_path(spec, shapes, {.strategy = EinsumStrategy::sequential});
  EXPECT_DOUBLE_EQ(seq.flops, 2 * 40500.0);
  EinsumPath greedy = einsum_path(spec, shapes, {.strategy = EinsumStrategy::greedy});
  EXPECT_LE(greedy.flops, seq.flops);
  EXPECT_GE(greedy.flops, opt.flops);
}

TEST(EinsumPath, OptimalEqualsBruteForceOnRandomNetworks) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 4);  // 2..5 operands
    std::map<char, double> size;
    std::string spec;
    std::vector<Dims> shapes;
    std::vector<Set> sets;
    std::map<char, int> count;
    for (char c = 'a'; c <= 'g'; ++c) size[c] = static_cast<double>(1 + rng() % 9);
    for (int k = 0; k < n; ++k) {
      if (k) spec += ',';
      Set s;
      Dims shape;
      for (int a = 0; a < 1 + static_cast<int>(rng() % 3); ++a) {
        const char c = static_cast<char>('a' + rng() % 7);
        if (s.count(c)) continue;
        s.insert(c);
        spec += c;
        shape.push_back(static_cast<std::int64_t>(size[c]));
        ++count[c];
      }
      sets.push_back(s);
      shapes.push_back(shape);
    }
    Set out;
    spec += "->";
    for (auto [c, m] : count)
      if (m == 1 || rng() % 4 == 0) {
        out.insert(c);
        spec += c;
      }
    // Labels that only one operand has and the output lacks are summed before the path.
    for (auto& s : sets)
      for (auto it = s.begin(); it != s.end();)
        it = (count[*it] == 1 && !out.count(*it)) ? s.erase(it) : std::next(it);
    SCOPED_TRACE(spec);
    const EinsumPath p = einsum_path(spec, shapes, {.strategy = EinsumStrategy::optimal});
    EXPECT_DOUBLE_EQ(p.flops, brute_force(sets, out, size));
    double sum = 0, largest = 0;
    for (const EinsumStep& s : p.steps) {
      sum += s.flops;
      double v = 1;
      for (auto d : s.shape) v *= static_cast<double>(d);
      largest = std::max(largest, v);
    }
    EXPECT_DOUBLE_EQ(p.flops, sum);
    EXPECT_DOUBLE_EQ(p.largest_intermediate, largest);
  }
}

// Networks for the greedy-vs-left-to-right comparison.
std::vector<std::pair<std::string, std::vector<Dims>>> benchmark_networks() {
  std::vector<std::pair<std::string, std::vector<Dims>>> nets = {
      {"ab,bc,cd,de,ef,fg->ag", {{30, 35}, {35, 15}, {15, 5}, {5, 10}, {10, 20}, {20, 25}}},
      {"abc,bd,cde->ade", {{64, 64, 64}, {64, 64}, {64, 64, 64}}},
      {"ab,cd,bc->ad", {{100, 2}, {2, 100}, {2, 2}}},
      {"ij,jk,kl,lm->im", {{2, 1000}, {1000, 2}, {2, 1000}, {1000, 2}}},
      {"ai,bi,ci,di,ei->abcde", {{4, 50}, {4, 50}, {4, 50}, {4, 50}, {4, 50}}},
  };
  // MPS overlap <psi|psi> with bond 16, physical 2, 12 sites (24 operands: greedy territory).
  std::string spec;
  std::vector<Dims> shapes;
  const std::string bra = "abcdefghijklm", ket = "ABCDEFGHIJKLM", phys = "nopqrstuvwxyz";
  for (int s = 0; s < 12; ++s) {
    if (s) spec += ',';
    spec +=
        std::string{bra[s], phys[s], bra[s + 1]} + "," + std::string{ket[s], phys[s], ket[s + 1]};
    const std::int64_t l = s == 0 ? 1 : 16, r = s == 11 ? 1 : 16;
    shapes.push_back({l, 2, r});
    shapes.push_back({l, 2, r});
  }
  nets.emplace_back(spec + "->", shapes);
  // A 3x3 PEPS-like grid of bond-8 tensors (9 operands).
  nets.push_back(
      {"ab,acd,ce,bfg,dfhi,ehj,gk,ikl,jl->",
       {{8, 8}, {8, 8, 8}, {8, 8}, {8, 8, 8}, {8, 8, 8, 8}, {8, 8, 8}, {8, 8}, {8, 8, 8}, {8, 8}}});
  return nets;
}

TEST(EinsumPath, GreedyNeverWorseThanLeftToRight) {
  for (const auto& [spec, shapes] : benchmark_networks()) {
    SCOPED_TRACE(spec);
    const EinsumPath g = einsum_path(spec, shapes, {.strategy = EinsumStrategy::greedy});
    const EinsumPath s = einsum_path(spec, shapes, {.strategy = EinsumStrategy::sequential});
    EXPECT_LE(g.flops, s.flops);
    if (shapes.size() <= 12) {
      const EinsumPath o = einsum_path(spec, shapes, {.strategy = EinsumStrategy::optimal});
      EXPECT_LE(o.flops, g.flops);
    }
  }
}

TEST(EinsumPath, AutomaticSwitchesToGreedyAboveTheLimit) {
  const auto nets = benchmark_networks();
  const auto& mps = nets[5];
  EXPECT_EQ(einsum_path(mps.first, mps.second).strategy, EinsumStrategy::greedy);
  EXPECT_EQ(einsum_path("ab,bc,cd->ad", {{2, 3}, {3, 4}, {4, 5}}).strategy,
            EinsumStrategy::optimal);
  EXPECT_EQ(einsum_path("ab,bc,cd->ad", {{2, 3}, {3, 4}, {4, 5}}, {.optimal_limit = 2}).strategy,
            EinsumStrategy::greedy);
}

TEST(EinsumPath, MemoryLimitBoundsIntermediates) {
  // (AB)C costs 2*2*10*1000 + 2*2*1000*10 = 80000 but builds a 2x1000 intermediate; A(BC) costs
  // 2*10*1000*10 + 2*2*10*10 = 200400 with a 10x10 one.
  const char* spec = "ab,bc,cd->ad";
  const std::vector<Dims> shapes = {{2, 10}, {10, 1000}, {1000, 10}};
  const EinsumPath free = einsum_path(spec, shapes);
  EXPECT_DOUBLE_EQ(free.flops, 80000);
  EXPECT_DOUBLE_EQ(free.largest_intermediate, 2000);
  for (EinsumStrategy s : {EinsumStrategy::optimal, EinsumStrategy::greedy}) {
    const EinsumPath capped = einsum_path(spec, shapes, {.strategy = s, .memory_limit = 500});
    EXPECT_DOUBLE_EQ(capped.flops, 200400);
    EXPECT_DOUBLE_EQ(capped.largest_intermediate, 100);
  }
  try {
    einsum_path("ab,bc,cd->ad", {{50, 50}, {50, 50}, {50, 50}}, {.memory_limit = 10});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(e.message().find("memory_limit"), std::string::npos);
  }
}

TEST(EinsumPath, PrintableForm) {
  const EinsumPath p = einsum_path("ij,jk,kl->il", {{2, 30}, {30, 40}, {40, 3}});
  const std::string s = p.to_string();
  EXPECT_NE(s.find("ij,jk,kl->il"), std::string::npos) << s;
  EXPECT_NE(s.find("optimal"), std::string::npos) << s;
  EXPECT_NE(s.find("step 0"), std::string::npos) << s;
  EXPECT_NE(s.find("step 1"), std::string::npos) << s;
  EXPECT_EQ(p.steps.size(), 2u);
  EXPECT_LT(p.flops, p.naive_flops);
  // Integer labels print with generated letters.
  const EinsumPath q = einsum_path({{0, 1}, {1, 2}}, {0, 2}, {{2, 3}, {3, 4}});
  EXPECT_EQ(q.subscripts, "ab,bc->ac");
  EXPECT_DOUBLE_EQ(q.flops, 2.0 * 2 * 3 * 4);
}

TEST(EinsumPath, LargeGreedyChainIsLinear) {
  // 40 equal square matrices: any order costs the same; greedy must not blow up.
  std::vector<EinsumLabels> labels;
  std::vector<Dims> shapes;
  for (int k = 0; k < 40; ++k) {
    labels.push_back({k, k + 1});
    shapes.push_back({8, 8});
  }
  const EinsumPath p = einsum_path(labels, {0, 40}, shapes);
  EXPECT_EQ(p.strategy, EinsumStrategy::greedy);
  EXPECT_EQ(p.steps.size(), 39u);
  EXPECT_DOUBLE_EQ(p.flops, 39 * 2.0 * 8 * 8 * 8);
  EXPECT_DOUBLE_EQ(p.largest_intermediate, 64);
}

double rel_diff_path(const Tensor& a, const Tensor& b) {
  return max(abs(sub(a, b))).item<double>() / max(abs(b)).item<double>();
}

TEST(EinsumExplicitPath, GivenPairsAreUsedAndReported) {
  const std::vector<Dims> shapes{{2, 64}, {64, 64}, {64, 2}};
  const EinsumPath p = einsum_path("ab,bc,cd->ad", shapes, {.path = {{1, 2}, {0, 3}}});
  EXPECT_EQ(p.strategy, EinsumStrategy::given);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].lhs, 1);
  EXPECT_EQ(p.steps[0].rhs, 2);
  EXPECT_EQ(p.steps[1].lhs, 0);
  EXPECT_EQ(p.steps[1].rhs, 3);
  EXPECT_NE(p.to_string().find("given"), std::string::npos);
  const Tensor a = randn(shapes[0], 1), b = randn(shapes[1], 2), c = randn(shapes[2], 3);
  const Tensor r = einsum("ab,bc,cd->ad", {a, b, c}, {.path = {{1, 2}, {0, 3}}});
  EXPECT_LT(rel_diff_path(r, einsum("ab,bc,cd->ad", a, b, c)), 1e-12);
  const EinsumPlan plan =
      prepare_einsum("ab,bc,cd->ad", shapes, {DType::f64}, {.path = {{1, 2}, {0, 3}}});
  EXPECT_EQ(plan.path().strategy, EinsumStrategy::given);
  EXPECT_LT(rel_diff_path(plan({a, b, c}), r), 1e-12);
}

TEST(EinsumExplicitPath, InvalidPathsNameThePair) {
  const std::vector<Dims> shapes{{2, 3}, {3, 4}, {4, 5}};
  using P = std::vector<std::pair<int, int>>;
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 einsum_path("ab,bc,cd->ad", shapes, {.path = P{{0, 1}}});
               },
               {"has 1 pairs for 3 operands", "expected 2"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 einsum_path("ab,bc,cd->ad", shapes, {.path = P{{0, 4}, {2, 3}}});
               },
               {"pair 0 (0, 4)", "id in [0, 3)"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 einsum_path("ab,bc,cd->ad", shapes, {.path = P{{0, 1}, {0, 2}}});
               },
               {"pair 1 (0, 2)", "a second time"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 einsum_path("ab,bc,cd->ad", shapes, {.path = P{{1, 1}, {0, 3}}});
               },
               {"pair 0 (1, 1)"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { einsum_path("ab,bc,cd->ad", shapes, {.strategy = EinsumStrategy::given}); },
               {"path is empty"});
  // memory_limit still applies to a given path: (0,1) first makes a 2x4 intermediate.
  expect_error(
      ErrorKind::InvalidArgument,
      [&] {
        einsum_path("ab,bc,cd->ad", shapes, {.memory_limit = 7, .path = P{{0, 1}, {2, 3}}});
      },
      {"pair 0 (0, 1) makes an intermediate of 8 elements", "memory_limit"});
  EXPECT_NO_THROW(
      einsum_path("ab,bc,cd->ad", shapes, {.memory_limit = 8, .path = P{{0, 1}, {2, 3}}}));
}

}  // namespace
