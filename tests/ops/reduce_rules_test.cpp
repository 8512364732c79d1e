// JVP/VJP rules of the reduction and structural primitives against finite differences, plus
// the documented special cases (ties, zeros, zero norm).
#include <gtest/gtest.h>

#include "common/reduce_fd.hpp"
#include "common/reduce_table.hpp"
#include "primitives/reduce.hpp"
#include "primitives/structural_prims.hpp"

using namespace tenferro;
using namespace tenferro::testing;
using detail::ReduceKind;
using detail::ReducePrim;

namespace {

ReduceKind kind_of(const std::string& name) {
  const std::pair<const char*, ReduceKind> kinds[] = {
      {"sum", ReduceKind::sum},   {"prod", ReduceKind::prod},
      {"mean", ReduceKind::mean}, {"max", ReduceKind::max},
      {"min", ReduceKind::min},   {"sum_squares", ReduceKind::sum_squares},
      {"norm", ReduceKind::norm}};
  for (auto& [n, k] : kinds)
    if (name == n) return k;
  throw std::logic_error("unknown row " + name);
}

Tensor vjp1(const detail::Primitive& p, const Tensor& x, const Tensor& ct) {
  const Tensor in[1] = {x}, outs[1] = {detail::bind1(p, {x})}, cts[1] = {ct};
  const bool needs[1] = {true};
  Tensor g[1];
  p.vjp(in, outs, cts, needs, g);
  return g[0];
}

}  // namespace

class ReduceRulesRow : public ::testing::TestWithParam<ReduceRow> {};
INSTANTIATE_TEST_SUITE_P(Table, ReduceRulesRow, ::testing::ValuesIn(reduce_table()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_P(ReduceRulesRow, MatchFiniteDifferences) {
  const ReduceRow& row = GetParam();
  const ReduceCase cases[] = {{{}, {}},         {{5}, {}},           {{3, 4}, {1}},
                              {{3, 4}, {0}},    {{2, 3, 4}, {0, 2}}, {{2, 3, 4}, {-1}},
                              {{4, 1, 5}, {1}}, {{3, 4}, {}}};
  std::uint64_t seed = 7;
  for (DType dt : {DType::f64, DType::c128}) {
    if (row.real_only && is_complex(dt)) continue;
    for (const ReduceCase& c : cases)
      for (bool keep : {false, true})
        for (Layout l : {Layout::contiguous, Layout::permuted}) {
          ReducePrim p(kind_of(row.name), c.axes, keep);
          Tensor x = with_layout(make_input(c.shape, dt, row.domain, seed), l);
          check_rules_fd(p, {x}, seed++,
                         std::string(row.name) + " " + std::string(dtype_name(dt)) + " " +
                             dims_to_string(c.shape) + " axes " + dims_to_string(c.axes) +
                             (keep ? " keep" : "") + " " + layout_name(l));
        }
  }
}

TEST(ReduceRules, MaxTiesShareTheCotangentEvenly) {
  Tensor x = from_values({1, 3, 3, 2, 5, 5, 5, 0}, {2, 4});
  Tensor g = vjp1(ReducePrim(ReduceKind::max, {1}, false), x, from_values({6, 9}, {2}));
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{0, 3, 3, 0, 3, 3, 3, 0}));
  Tensor h =
      vjp1(ReducePrim(ReduceKind::min, {}, false), from_values({2, 1, 1}, {3}), scalar_tensor(1.0));
  EXPECT_EQ(h.to_vector<double>(), (std::vector<double>{0, 0.5, 0.5}));
}

TEST(ReduceRules, ProdGradientIsExactWithZeros) {
  ReducePrim p(ReduceKind::prod, {}, false);
  EXPECT_EQ(vjp1(p, from_values({2, 0, 3}, {3}), scalar_tensor(1.0)).to_vector<double>(),
            (std::vector<double>{0, 6, 0}));
  EXPECT_EQ(vjp1(p, from_values({0, 0, 3}, {3}), scalar_tensor(1.0)).to_vector<double>(),
            (std::vector<double>{0, 0, 0}));
  // Complex: ct * conj(product of the others).
  Tensor z = from_vector<c128>({c128(1, 1), c128(0, 2)}, {2});
  EXPECT_EQ(vjp1(p, z, scalar_tensor(1.0, DType::c128)).to_vector<c128>(),
            (std::vector<c128>{c128(0, -2), c128(1, -1)}));
}

TEST(ReduceRules, NormGradientIsZeroAtZero) {
  for (DType dt : float_dtypes) {
    Tensor g = vjp1(ReducePrim(ReduceKind::norm, {}, false), zeros({3}, dt),
                    scalar_tensor(1.0, real_dtype(dt)));
    EXPECT_EQ(g.dtype(), dt);
    EXPECT_TRUE(allclose(g, zeros({3}, dt), 0, 0)) << g;
  }
  // sum_squares of complex: 2 z ct (PyTorch's convention: the gradient of |z|^2 is 2z).
  Tensor z = from_vector<c64>({c64(1, 2)}, {1});
  EXPECT_EQ(vjp1(ReducePrim(ReduceKind::sum_squares, {}, false), z, scalar_tensor(0.5, DType::f32))
                .to_vector<c64>(),
            (std::vector<c64>{c64(1, 2)}));
}

TEST(StructuralRules, MatchFiniteDifferences) {
  struct Case {
    std::shared_ptr<const detail::Primitive> p;
    std::vector<Dims> shapes;
  };
  const Case cases[] = {
      {detail::concatenate_primitive(0), {{2, 3}, {4, 3}}},
      {detail::concatenate_primitive(-1), {{2, 1}, {2, 3}, {2, 2}}},
      {detail::diag_primitive(0), {{3, 3}}},
      {detail::diag_primitive(1), {{3, 5}}},
      {detail::diag_primitive(-1), {{2, 4, 3}}},
      {detail::diag_embed_primitive(0), {{3}}},
      {detail::diag_embed_primitive(-2), {{2, 3}}},
      {detail::tri_primitive(true, 0), {{3, 4}}},
      {detail::tri_primitive(true, -1), {{2, 3, 3}}},
      {detail::tri_primitive(false, 1), {{4, 3}}},
  };
  std::uint64_t seed = 3;
  for (const Case& c : cases)
    for (DType dt : {DType::f64, DType::c128}) {
      std::vector<Tensor> xs;
      for (const Dims& s : c.shapes)
        xs.push_back(with_layout(make_input(s, dt, Domain::normal, seed++), Layout::permuted));
      check_rules_fd(*c.p, xs, seed++, std::string(c.p->name()) + " " + c.p->params());
    }
}
