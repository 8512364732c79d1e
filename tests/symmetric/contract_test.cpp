// tensordot and einsum over BlockTensors against tenferro::tensordot / tenferro::einsum on the
// dense tensors (every group, f64 and c128): several ranks and axes, full contraction to a rank-0
// tensor, a side with no free legs, outer products, non-zero fluxes, legs that are not dual, and
// the block-aware costs (tensordot_cost, einsum_path).
#include <gtest/gtest.h>

#include "symmetric/symmetric_test_util.hpp"

namespace tenferro::symmetric {
namespace {

using namespace test_util;
using tenferro::testing::expect_error;

class ContractByGroup : public ::testing::TestWithParam<GroupDtype> {
 protected:
  const GroupCase& gc() const { return group_case(std::get<0>(GetParam())); }
  DType dt() const { return std::get<1>(GetParam()); }
  Leg leg(std::uint64_t seed, Direction d = Direction::out) const {
    return sample_leg(gc(), seed, d);
  }
  Charge id() const { return gc().group.identity(); }
  Charge flux_sum(const BlockTensor& a, const BlockTensor& b) const {
    return gc().group.canonical(
        gc().group.fuse(norm_flux(gc().group, a.flux()), norm_flux(gc().group, b.flux())));
  }
  // tensordot on blocks vs on dense, legs and flux of the result.
  void check(const BlockTensor& a, const BlockTensor& b, Dims axes_a, Dims axes_b,
             const std::string& what) const {
    const BlockTensor c = tensordot(a, b, axes_a, axes_b);
    const Tensor want = tenferro::tensordot(a.to_dense(), b.to_dense(), axes_a, axes_b);
    std::vector<Leg> legs;
    for (std::size_t i = 0; i < a.rank(); ++i)
      if (std::find(axes_a.begin(), axes_a.end(), static_cast<std::int64_t>(i)) == axes_a.end())
        legs.push_back(a.leg(i));
    for (std::size_t i = 0; i < b.rank(); ++i)
      if (std::find(axes_b.begin(), axes_b.end(), static_cast<std::int64_t>(i)) == axes_b.end())
        legs.push_back(b.leg(i));
    ASSERT_EQ(c.rank(), legs.size()) << what;
    for (std::size_t i = 0; i < legs.size(); ++i)
      EXPECT_TRUE(c.leg(i) == legs[i]) << what << " leg " << i;
    // A rank-0 result has no leg to take the group from: it keeps the operands' group.
    EXPECT_TRUE(c.group() == a.group()) << what << ": group " << c.group().to_string();
    EXPECT_EQ(norm_flux(gc().group, c.flux()), flux_sum(a, b)) << what;
    EXPECT_EQ(c.dtype(), dt()) << what;
    const Tensor got = c.rank() == 0 ? scalar(c) : c.to_dense();
    expect_near(got, want, 1e-11, what);
    // Nothing stored outside the allowed blocks.
    for (const auto& [k, blk] : c.blocks()) EXPECT_TRUE(c.allowed(k)) << what << key_string(k);
  }
};

TEST_P(ContractByGroup, TensordotAgainstDense) {
  const Leg a = leg(1), b = leg(2), c = leg(3), d = leg(4), e = leg(5, Direction::in);
  const BlockTensor A = BlockTensor::randn({a, b, c}, 1, id(), dt());
  const BlockTensor B = BlockTensor::randn({c.dual(), d, b.dual()}, 2, gc().flux, dt());
  check(A, B, {2}, {0}, "one leg");
  check(A, B, {1, 2}, {2, 0}, "two legs, crossed order");
  check(A, B, {2, 1}, {0, 2}, "two legs, other order");
  const BlockTensor E = BlockTensor::randn({e.dual(), a.dual()}, 3, gc().flux, dt());
  check(E, A, {1}, {0}, "matrix times rank-3");
  check(A, E, {0}, {1}, "rank-3 times matrix, leading leg");
}

TEST_P(ContractByGroup, FullContractionGivesARankZeroTensor) {
  const Leg a = leg(1), b = leg(2), c = leg(3, Direction::in);
  const BlockTensor A = BlockTensor::randn({a, b, c}, 4, gc().flux, dt());
  const BlockTensor A2 = BlockTensor::randn({a, b, c}, 5, gc().flux, dt());
  const BlockTensor s = tensordot(conj(A), A2, {0, 1, 2}, {0, 1, 2});
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(norm_flux(gc().group, s.flux()), id());
  // The rank-0 result keeps the group: its one block (key {}) is allowed.
  EXPECT_TRUE(s.group() == gc().group) << s.group().to_string();
  EXPECT_TRUE(s.allowed({}));
  EXPECT_EQ(s.allowed_keys(), std::vector<BlockKey>{BlockKey{}});
  const Tensor v = scalar(s);
  EXPECT_EQ(v.rank(), 0);
  EXPECT_NEAR(std::abs(value(v) - value(inner(A, A2))), 0.0, 1e-11);
  check(conj(A), A2, {0, 1, 2}, {0, 1, 2}, "full contraction");
  check(conj(A), A2, {2, 0, 1}, {2, 0, 1}, "full contraction, permuted pairs");
  // |A|^2.
  EXPECT_NEAR(value(scalar(tensordot(A, conj(A), {0, 1, 2}, {0, 1, 2}))).real(),
              std::pow(value(norm(A)).real(), 2), 1e-10);
}

TEST_P(ContractByGroup, OneSideWithoutFreeLegsAndOuterProducts) {
  const Leg a = leg(1), b = leg(2), c = leg(3, Direction::in);
  const BlockTensor A = BlockTensor::randn({a, b, c}, 6, id(), dt());
  const BlockTensor C = BlockTensor::randn({b.dual(), c.dual()}, 7, gc().flux, dt());
  check(A, C, {1, 2}, {0, 1}, "b has no free legs");
  check(C, A, {0, 1}, {1, 2}, "a has no free legs");
  const BlockTensor v = BlockTensor::randn({a.dual()}, 8, id(), dt());
  check(v, A, {0}, {0}, "vector times tensor");
  check(A, C, {}, {}, "outer product");
  // Mixed dtypes promote.
  const BlockTensor r = BlockTensor::randn({b.dual(), c.dual()}, 9, gc().flux, DType::f64);
  const BlockTensor mixed = tensordot(A, r, {1, 2}, {0, 1});
  EXPECT_EQ(mixed.dtype(), dt());
  expect_near(mixed.to_dense(), tenferro::tensordot(A.to_dense(), r.to_dense(), {1, 2}, {0, 1}),
              1e-11, "mixed dtypes");
}

TEST_P(ContractByGroup, LegsThatAreNotDualAreErrors) {
  const Leg a = leg(1), b = leg(2), c = leg(3);
  const BlockTensor A = BlockTensor::randn({a, b, c}, 1, id(), dt());
  const BlockTensor B = BlockTensor::randn({c, b.dual()}, 2, id(), dt());  // c is not c^
  expect_error_mentions(ErrorKind::InvalidArgument, [&] { (void)tensordot(A, B, {2}, {0}); },
                        {"leg"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)tensordot(A, A, {0}, {0}); });
  // Same direction flipped, other sector dims.
  std::vector<Sector> s = c.sectors();
  s[0].dim += 1;
  const Leg c2(gc().group, s, Direction::in);
  const BlockTensor B2 = BlockTensor::randn({c2}, 3, id(), dt());
  expect_error(ErrorKind::InvalidArgument, [&] { (void)tensordot(A, B2, {2}, {0}); });
  // Axis counts differ / out of range.
  expect_error_of({ErrorKind::InvalidArgument, ErrorKind::ShapeMismatch}, [&] {
    (void)tensordot(A, B, {2, 1}, {1});
  });
  expect_error_of({ErrorKind::InvalidArgument, ErrorKind::ShapeMismatch},
                  [&] { (void)tensordot(A, B, {5}, {1}); });
}

TEST_P(ContractByGroup, EinsumChainsAgainstDense) {
  const Leg p = leg(1), q = leg(2), x = leg(3), y = leg(4), z = leg(5), w = leg(6);
  // MPS-like chain: "ab,bcd,de->ace".
  const BlockTensor A = BlockTensor::randn({p, x}, 1, id(), dt());
  const BlockTensor B = BlockTensor::randn({x.dual(), q, y}, 2, gc().flux, dt());
  const BlockTensor C = BlockTensor::randn({y.dual(), z}, 3, id(), dt());
  {
    const BlockTensor r = einsum("ab,bcd,de->ace", {A, B, C});
    ASSERT_EQ(r.rank(), 3u);
    EXPECT_TRUE(r.leg(0) == p);
    EXPECT_TRUE(r.leg(1) == q);
    EXPECT_TRUE(r.leg(2) == z);
    EXPECT_EQ(norm_flux(r.group(), r.flux()), norm_flux(gc().group, gc().flux));
    expect_near(r.to_dense(),
                tenferro::einsum("ab,bcd,de->ace", {A.to_dense(), B.to_dense(), C.to_dense()}),
                1e-11, "ab,bcd,de->ace");
    // Output in another order.
    const BlockTensor r2 = einsum("ab,bcd,de->eca", {A, B, C});
    expect_near(r2.to_dense(), tenferro::permute(r.to_dense(), {2, 1, 0}), 1e-11, "->eca");
  }
  // Four operands: "ab,bcd,def,fg->aceg".
  const BlockTensor D = BlockTensor::randn({y.dual(), w, z}, 4, id(), dt());
  const BlockTensor E = BlockTensor::randn({z.dual(), p.dual()}, 5, id(), dt());
  {
    const std::vector<BlockTensor> ops{A, B, D, E};
    const BlockTensor r = einsum("ab,bcd,def,fg->aceg", ops);
    expect_near(r.to_dense(),
                tenferro::einsum("ab,bcd,def,fg->aceg",
                                 {A.to_dense(), B.to_dense(), D.to_dense(), E.to_dense()}),
                1e-11, "ab,bcd,def,fg->aceg");
    const BlockPath path = einsum_path("ab,bcd,def,fg->aceg", ops);
    EXPECT_EQ(path.pairs.size(), 3u);
    EXPECT_GT(path.flops, 0.0);
    EXPECT_LE(path.flops, path.dense_flops);
  }
  // Five matrices in a ring: "ab,bc,cd,de,ea->" (the trace of the product, rank 0).
  const BlockTensor M1 = BlockTensor::randn({p, x.dual()}, 6, id(), dt());
  const BlockTensor M2 = BlockTensor::randn({x, y.dual()}, 7, id(), dt());
  const BlockTensor M3 = BlockTensor::randn({y, z.dual()}, 8, id(), dt());
  const BlockTensor M4 = BlockTensor::randn({z, w.dual()}, 9, id(), dt());
  const BlockTensor M5 = BlockTensor::randn({w, p.dual()}, 10, id(), dt());
  {
    const std::vector<BlockTensor> ops{M1, M2, M3, M4, M5};
    const BlockTensor r = einsum("ab,bc,cd,de,ea->", ops);
    EXPECT_EQ(r.rank(), 0u);
    const Tensor want = tenferro::einsum(
        "ab,bc,cd,de,ea->",
        {M1.to_dense(), M2.to_dense(), M3.to_dense(), M4.to_dense(), M5.to_dense()});
    EXPECT_NEAR(std::abs(value(scalar(r)) - value(want)), 0.0, 1e-10);
    const BlockTensor open =
        einsum("ab,bc,cd,de,ef->af", {M1, M2, M3, M4, BlockTensor::randn({w, q}, 11, id(), dt())});
    EXPECT_EQ(open.rank(), 2u);
    const BlockPath path = einsum_path("ab,bc,cd,de,ea->", ops);
    EXPECT_EQ(path.pairs.size(), 4u);
    EXPECT_LE(path.flops, path.dense_flops);
  }
}

// Mixed dtypes: the cheap pair here is the two f32 operands; they used to be contracted in f32,
// so the f64 result carried f32 rounding (~1e-7 relative), depending on the path.
TEST(SymmetricEinsum, MixedDtypesAreContractedInTheResultDtype) {
  const Group u1 = Group::u1();
  const Leg a(u1, {{{0}, 1}, {{1}, 1}}), b(u1, {{{0}, 40}, {{1}, 40}}),
      c(u1, {{{0}, 30}, {{1}, 30}}), d(u1, {{{0}, 50}, {{1}, 50}});
  const BlockTensor A = BlockTensor::randn({a, b.dual()}, 1, {}, DType::f32);
  const BlockTensor B = BlockTensor::randn({b, c.dual()}, 2, {}, DType::f32);
  const BlockTensor C = BlockTensor::randn({c, d.dual()}, 3, {}, DType::f64);
  const std::vector<BlockTensor> ops{A, B, C};
  EXPECT_EQ(einsum_path("ij,jk,kl->il", ops).pairs[0], (std::pair<int, int>{0, 1}));
  const BlockTensor r = einsum("ij,jk,kl->il", ops);
  EXPECT_EQ(r.dtype(), DType::f64);
  const Tensor want = tenferro::einsum(
      "ij,jk,kl->il",
      {cast(A.to_dense(), DType::f64), cast(B.to_dense(), DType::f64), C.to_dense()});
  EXPECT_LT(max_abs_diff(r.to_dense(), want), 1e-12 * max_abs(want));
}

TEST_P(ContractByGroup, EinsumErrors) {
  const Leg p = leg(1), x = leg(3);
  const BlockTensor A = BlockTensor::randn({p, x}, 1, id(), dt());
  const BlockTensor B = BlockTensor::randn({x.dual(), p}, 2, id(), dt());
  // Summed label on legs that are not dual (x with x).
  expect_error(ErrorKind::InvalidArgument, [&] { (void)einsum("ab,cb->ac", {A, A}); });
  // A label three times.
  expect_error_of({ErrorKind::InvalidArgument, ErrorKind::Unsupported}, [&] {
    (void)einsum("ab,bc,bd->acd", {A, B, B});
  });
  // A repeated label within one operand.
  const BlockTensor S = BlockTensor::randn({p, p.dual()}, 3, id(), dt());
  expect_error_of({ErrorKind::InvalidArgument, ErrorKind::Unsupported},
                  [&] { (void)einsum("aa->", {S}); });
  // Wrong operand count.
  expect_error(ErrorKind::InvalidArgument, [&] { (void)einsum("ab,bc->ac", {A}); });
}

TEST_P(ContractByGroup, LongChainUsesTheGreedyOrder) {
  // 12 matrices (above the optimal search's 10): "ab,bc,...,lm->am".
  std::vector<Leg> legs;
  for (int i = 0; i < 13; ++i) legs.push_back(leg(100 + i));
  std::vector<BlockTensor> ops;
  std::vector<Tensor> dense;
  std::string spec;
  for (int i = 0; i < 12; ++i) {
    ops.push_back(
        BlockTensor::randn({i == 0 ? legs[0] : legs[i].dual(), legs[i + 1]}, 300 + i, id(), dt()));
    dense.push_back(ops.back().to_dense());
    spec += std::string(i ? "," : "") + static_cast<char>('a' + i) + static_cast<char>('a' + i + 1);
  }
  spec += "->am";
  const BlockTensor r = einsum(spec, ops);
  const Tensor want = tenferro::einsum(spec, std::span<const Tensor>(dense));
  const double scale = max_abs(want);
  EXPECT_LE(max_abs_diff(r.to_dense(), want), 1e-10 * (1 + scale)) << spec;
  const BlockPath path = einsum_path(spec, ops);
  EXPECT_EQ(path.pairs.size(), 11u);
  EXPECT_LE(path.flops, path.dense_flops);
}

INSTANTIATE_TEST_SUITE_P(Groups, ContractByGroup, all_groups_and_dtypes(), group_dt_label);

TEST(SymmetricContract, CostsCountBlockMultiplyAdds) {
  // A block-diagonal matrix product: per sector of dim d, d^3 multiply-adds.
  const Leg l(Group::u1(), {{{0}, 2}, {{1}, 3}, {{-1}, 4}});
  const BlockTensor A = BlockTensor::randn({l, l.dual()}, 1, {0});
  const BlockTensor B = BlockTensor::randn({l, l.dual()}, 2, {0});
  EXPECT_EQ(tensordot_cost(A, B, {1}, {0}), 8.0 + 27.0 + 64.0);
  EXPECT_EQ(tensordot_cost(A, B, {0}, {1}), 8.0 + 27.0 + 64.0);
  const std::vector<BlockTensor> ops{A, B};
  const BlockPath path = einsum_path("ab,bc->ac", ops);
  EXPECT_EQ(path.flops, 99.0);
  EXPECT_EQ(path.dense_flops, 729.0);
  ASSERT_EQ(path.pairs.size(), 1u);
  // Trivial group: the dense count.
  const Leg t = Leg::trivial(4);
  const BlockTensor T1 = BlockTensor::randn({t, t.dual()}, 3);
  const BlockTensor T2 = BlockTensor::randn({t, Leg::trivial(5)}, 4);
  EXPECT_EQ(tensordot_cost(T1, T2, {1}, {0}), 4.0 * 4.0 * 5.0);
}

TEST(SymmetricContract, DifferentGroupsDoNotContract) {
  const BlockTensor a = BlockTensor::randn({sample_leg(group_case(0), 1)}, 1, {0});
  const BlockTensor b = BlockTensor::randn({sample_leg(group_case(1), 1, Direction::in)}, 1, {0});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)tensordot(a, b, {0}, {0}); });
}

TEST(SymmetricContract, MpsTransferMatrixAsInTheHeader) {
  using namespace tenferro::symmetric;
  const Group u1 = Group::u1();
  const Leg phys(u1, {{{1}, 1}, {{-1}, 1}});
  const Leg bond(u1, {{{0}, 4}, {{2}, 3}, {{-2}, 3}});
  // Flux 1 so that (bond, phys, bond^) has blocks: c_l + s - c_r = 1.
  const BlockTensor A = BlockTensor::randn({bond, phys, bond.dual()}, 1, {1});
  EXPECT_FALSE(A.blocks().empty());
  const BlockTensor E = tensordot(A, conj(A), {0, 1}, {0, 1});
  ASSERT_EQ(E.rank(), 2u);
  EXPECT_TRUE(is_dual(E.leg(0), E.leg(1)));
  expect_near(E.to_dense(),
              tenferro::tensordot(A.to_dense(), tenferro::conj(A.to_dense()), {0, 1}, {0, 1}),
              1e-11, "transfer matrix");
}

TEST(SymmetricContract, ManyEqualSmallSectorsRunAsOneBmm) {
  // Twelve U(1) sectors of dimension 2: every charge's GEMM is 2 x 2 x 2, so the products run as
  // one bmm over stacked blocks (Note [Block contraction]); values, gradients and a traced replay
  // must equal the dense ones.
  std::vector<Sector> sectors;
  for (int q = -6; q < 6; ++q) sectors.push_back({{q}, 2});
  const Leg l(Group::u1(), sectors);
  for (DType dt : {DType::f64, DType::c128}) {
    BlockTensor a = BlockTensor::randn({l, l.dual()}, 1, {}, dt);
    const BlockTensor b = BlockTensor::randn({l, l.dual()}, 2, {}, dt);
    const BlockTensor c = tensordot(a, b, {1}, {0});
    const Tensor want = tenferro::matmul(a.to_dense(), b.to_dense());
    expect_near(c.to_dense(), want, 1e-12, "bmm path");
    EXPECT_EQ(c.blocks().size(), 12u);
    a = a.filled();
    a.requires_grad_();
    backward(real(inner(tensordot(a, b, {1}, {0}), tensordot(a, b, {1}, {0}))));
    Tensor ad = a.detach().to_dense().requires_grad_();
    const Tensor cd = tenferro::matmul(ad, b.to_dense());
    backward(real(vdot(cd, cd)));
    expect_near(a.grad().to_dense(), ad.grad(), 1e-11, "bmm path gradient");
    std::vector<BlockTensor> ex{a.detach(), b};
    const BlockProgram p = trace_blocks(
        [](std::span<const BlockTensor> in) {
          return std::vector<BlockTensor>{tensordot(in[0], in[1], {1}, {0})};
        },
        ex);
    bool has_bmm = false;
    for (const auto& n : p.program.nodes)
      has_bmm |= n.name() == "dot_general" && n.specs[0].shape.size() == 3;
    EXPECT_TRUE(has_bmm) << p.program.to_string();
    Runtime rt;
    expect_near(p.run(rt, ex)[0].to_dense(), want, 1e-12, "bmm path, traced");
  }
}

}  // namespace
}  // namespace tenferro::symmetric
