// Groups, legs, leg fusion, BlockTensor construction (zeros, randn, from_dense, from_blocks and
// their typed errors), the elementwise and structural ops against the dense equivalents, and
// fuse/split round trips, for every group (U(1), Z3, U(1)xU(1), U(1)xZ2, trivial) in f64 and c128.
#include <gtest/gtest.h>

#include <complex>
#include <sstream>

#include "symmetric/symmetric_test_util.hpp"

namespace tenferro::symmetric {
namespace {

using namespace test_util;
using tenferro::testing::expect_error;
using cd = std::complex<double>;

// ---- Group ----

TEST(SymmetricGroup, NamesModuliAndIdentity) {
  const Group u1 = Group::u1();
  EXPECT_EQ(u1.to_string(), "U(1)");
  EXPECT_EQ(Group::zn(2).to_string(), "Z2");
  EXPECT_EQ(Group::zn(3).to_string(), "Z3");
  EXPECT_EQ((u1 * Group::zn(2)).to_string(), "U(1)xZ2");
  EXPECT_EQ((u1 * u1).to_string(), "U(1)xU(1)");
  EXPECT_EQ(Group().to_string(), "trivial");
  EXPECT_EQ(u1.moduli(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(Group::zn(3).moduli(), (std::vector<std::int64_t>{3}));
  EXPECT_EQ((u1 * Group::zn(2)).moduli(), (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ((u1 * Group::zn(2)).num_factors(), 2u);
  EXPECT_EQ(Group().num_factors(), 0u);
  EXPECT_EQ((u1 * u1).identity(), (Charge{0, 0}));
  EXPECT_TRUE(Group().identity().empty());
  EXPECT_TRUE(u1 * Group() == u1);
  EXPECT_FALSE(u1 == Group::zn(2));
}

TEST(SymmetricGroup, FuseDualCanonical) {
  const Group u1 = Group::u1();
  const Group z3 = Group::zn(3);
  const Group u1z2 = u1 * Group::zn(2);
  EXPECT_EQ(u1.fuse({2}, {-5}), (Charge{-3}));
  EXPECT_EQ(u1.dual({3}), (Charge{-3}));
  EXPECT_EQ(u1.canonical({-4}), (Charge{-4}));
  EXPECT_EQ(z3.fuse({2}, {2}), (Charge{1}));
  EXPECT_EQ(z3.fuse({1}, {2}), (Charge{0}));
  EXPECT_EQ(z3.dual({1}), (Charge{2}));
  EXPECT_EQ(z3.dual({0}), (Charge{0}));
  EXPECT_EQ(z3.canonical({-1}), (Charge{2}));
  EXPECT_EQ(z3.canonical({7}), (Charge{1}));
  EXPECT_EQ(u1z2.fuse({1, 1}, {2, 1}), (Charge{3, 0}));
  EXPECT_EQ(u1z2.dual({1, 1}), (Charge{-1, 1}));
  EXPECT_EQ(u1z2.canonical({5, -3}), (Charge{5, 1}));
  EXPECT_EQ((u1 * u1).fuse({1, -2}, {3, 4}), (Charge{4, 2}));
  EXPECT_EQ(Group().fuse({}, {}), Charge{});
}

TEST(SymmetricGroup, Errors) {
  expect_error(ErrorKind::InvalidArgument, [] { (void)Group::zn(1); });
  expect_error(ErrorKind::InvalidArgument, [] { (void)Group::zn(0); });
  expect_error(ErrorKind::InvalidArgument, [] { (void)Group::zn(-2); });
  expect_error(ErrorKind::InvalidArgument, [] { (void)Group::u1().canonical({1, 2}); });
  expect_error(ErrorKind::InvalidArgument, [] { (void)Group::u1().canonical({}); });
  expect_error(ErrorKind::InvalidArgument, [] { (void)Group().canonical({0}); });
}

// ---- Leg ----

TEST(SymmetricLeg, SectorsOffsetsFind) {
  const Group u1 = Group::u1();
  const Leg l(u1, {{{0}, 2}, {{2}, 3}, {{-2}, 3}});
  EXPECT_EQ(l.direction(), Direction::out);
  EXPECT_EQ(l.num_sectors(), 3u);
  EXPECT_EQ(l.dim(), 8);
  EXPECT_EQ(l.offset(0), 0);
  EXPECT_EQ(l.offset(1), 2);
  EXPECT_EQ(l.offset(2), 5);
  EXPECT_EQ(l.charge(1), (Charge{2}));
  EXPECT_EQ(l.sector_dim(2), 3);
  EXPECT_EQ(l.find({2}), 1);
  EXPECT_EQ(l.find({-2}), 2);
  EXPECT_EQ(l.find({5}), -1);
  EXPECT_FALSE(l.is_fused());
  EXPECT_TRUE(l.group() == u1);
  EXPECT_EQ(l.to_string(), "U(1) out [0:2, 2:3, -2:3]");
}

TEST(SymmetricLeg, DualFlipsTheDirectionOnly) {
  const Leg l(Group::u1() * Group::zn(2), {{{0, 0}, 2}, {{1, 1}, 1}}, Direction::out);
  const Leg d = l.dual();
  EXPECT_EQ(d.direction(), Direction::in);
  EXPECT_EQ(d.sectors(), l.sectors());
  EXPECT_EQ(d.dim(), l.dim());
  EXPECT_TRUE(d.dual() == l);
  EXPECT_FALSE(d == l);
  EXPECT_TRUE(is_dual(l, d));
  EXPECT_TRUE(is_dual(d, l));
  EXPECT_FALSE(is_dual(l, l));
  // Same direction flipped but other sectors: not dual.
  const Leg other(Group::u1() * Group::zn(2), {{{0, 0}, 2}, {{1, 1}, 2}}, Direction::in);
  EXPECT_FALSE(is_dual(l, other));
  EXPECT_EQ(sign(Direction::out), 1);
  EXPECT_EQ(sign(Direction::in), -1);
  EXPECT_EQ(flip(Direction::in), Direction::out);
}

TEST(SymmetricLeg, ChargesAreMadeCanonical) {
  const Leg l(Group::zn(3), {{{4}, 1}, {{-1}, 2}});
  EXPECT_EQ(l.charge(0), (Charge{1}));
  EXPECT_EQ(l.charge(1), (Charge{2}));
  EXPECT_EQ(l.find({1}), 0);
  EXPECT_EQ(l.find({2}), 1);
  EXPECT_EQ(l.find({0}), -1);
}

TEST(SymmetricLeg, ZeroDimensionalSectorsAndTrivialLegs) {
  const Leg l(Group::u1(), {{{0}, 0}, {{1}, 2}, {{-1}, 0}});
  EXPECT_EQ(l.dim(), 2);
  EXPECT_EQ(l.offset(0), 0);
  EXPECT_EQ(l.offset(1), 0);
  EXPECT_EQ(l.offset(2), 2);
  const Leg t = Leg::trivial(5, Direction::in);
  EXPECT_TRUE(t.group() == Group());
  EXPECT_EQ(t.num_sectors(), 1u);
  EXPECT_EQ(t.dim(), 5);
  EXPECT_TRUE(t.charge(0).empty());
  EXPECT_EQ(t.direction(), Direction::in);
}

TEST(SymmetricLeg, ValidationErrors) {
  const Group u1 = Group::u1();
  expect_error(ErrorKind::InvalidArgument, [&] { Leg(u1, {{{1}, 1}, {{1}, 2}}); });
  expect_error(ErrorKind::InvalidArgument, [&] { Leg(Group::zn(3), {{{1}, 1}, {{4}, 1}}); });
  expect_error(ErrorKind::InvalidArgument, [&] { Leg(u1, {{{1}, -1}}); });
  expect_error(ErrorKind::InvalidArgument, [&] { Leg(u1, {{{1, 2}, 1}}); });
  expect_error(ErrorKind::InvalidArgument, [&] { Leg(u1, {{{}, 1}}); });
  expect_error(ErrorKind::InvalidArgument, [&] { Leg(u1 * u1, {{{1}, 1}}); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)Leg(u1, {{{0}, 1}}).fused_from(); });
}

// ---- fuse_legs ----

TEST(SymmetricFuseLegs, TwoU1LegsOut) {
  const Group u1 = Group::u1();
  const Leg a(u1, {{{0}, 1}, {{1}, 2}});
  const Leg b(u1, {{{0}, 2}, {{-1}, 1}});
  const std::vector<Leg> parts{a, b};
  const Leg f = fuse_legs(parts, Direction::out);
  ASSERT_EQ(f.num_sectors(), 3u);
  EXPECT_EQ(f.sectors()[0], (Sector{{-1}, 1}));
  EXPECT_EQ(f.sectors()[1], (Sector{{0}, 4}));
  EXPECT_EQ(f.sectors()[2], (Sector{{1}, 4}));
  EXPECT_EQ(f.dim(), a.dim() * b.dim());
  EXPECT_EQ(f.direction(), Direction::out);
  ASSERT_TRUE(f.is_fused());
  ASSERT_EQ(f.fused_from().size(), 2u);
  EXPECT_TRUE(f.fused_from()[0] == a);
  EXPECT_TRUE(f.fused_from()[1] == b);
  // Charge 0 = (a:0, b:0) then (a:1, b:-1), row-major over the parts.
  const Fusion& fu = *f.fusion();
  ASSERT_EQ(fu.pieces.size(), 3u);
  ASSERT_EQ(fu.pieces[1].size(), 2u);
  EXPECT_EQ(fu.pieces[1][0].parts, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(fu.pieces[1][0].offset, 0);
  EXPECT_EQ(fu.pieces[1][0].dim, 2);
  EXPECT_EQ(fu.pieces[1][1].parts, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(fu.pieces[1][1].offset, 2);
  EXPECT_EQ(fu.pieces[1][1].dim, 2);
  EXPECT_EQ(fu.index.at({1, 1}), (std::pair<std::int64_t, std::int64_t>{1, 1}));
  EXPECT_EQ(fu.index.at({0, 1}), (std::pair<std::int64_t, std::int64_t>{0, 0}));
  EXPECT_EQ(fu.index.at({1, 0}), (std::pair<std::int64_t, std::int64_t>{2, 0}));
  EXPECT_FALSE(f == fuse_legs(parts, Direction::in));
}

TEST(SymmetricFuseLegs, DirectionsEnterWithTheirSign) {
  const Group u1 = Group::u1();
  const Leg a(u1, {{{0}, 1}, {{1}, 2}});
  const Leg b(u1, {{{0}, 2}, {{-1}, 1}});
  {  // fused leg `in`: its charge is minus the signed sum
    const std::vector<Leg> parts{a, b};
    const Leg f = fuse_legs(parts, Direction::in);
    ASSERT_EQ(f.num_sectors(), 3u);
    EXPECT_EQ(f.sectors()[0], (Sector{{-1}, 4}));
    EXPECT_EQ(f.sectors()[1], (Sector{{0}, 4}));
    EXPECT_EQ(f.sectors()[2], (Sector{{1}, 1}));
    EXPECT_EQ(f.direction(), Direction::in);
  }
  {  // an `in` part counts with -1: a - b in {0, 1, 1, 2}
    const std::vector<Leg> parts{a, b.dual()};
    const Leg f = fuse_legs(parts, Direction::out);
    ASSERT_EQ(f.num_sectors(), 3u);
    EXPECT_EQ(f.sectors()[0], (Sector{{0}, 2}));
    EXPECT_EQ(f.sectors()[1], (Sector{{1}, 5}));
    EXPECT_EQ(f.sectors()[2], (Sector{{2}, 2}));
  }
}

TEST(SymmetricFuseLegs, Z3AndProductsAndNoLegs) {
  const Group z3 = Group::zn(3);
  const Leg a(z3, {{{0}, 1}, {{1}, 1}, {{2}, 1}});
  const std::vector<Leg> parts{a, a};
  const Leg f = fuse_legs(parts);
  ASSERT_EQ(f.num_sectors(), 3u);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(f.charge(s), (Charge{static_cast<std::int64_t>(s)}));
    EXPECT_EQ(f.sector_dim(s), 3);
  }
  const GroupCase& gc = group_case(2);  // U(1) x U(1)
  const std::vector<Leg> pp{sample_leg(gc, 1), sample_leg(gc, 2, Direction::in)};
  const Leg g = fuse_legs(pp);
  EXPECT_EQ(g.dim(), pp[0].dim() * pp[1].dim());
  std::vector<Charge> charges;
  for (const Sector& s : g.sectors()) charges.push_back(s.charge);
  EXPECT_TRUE(std::is_sorted(charges.begin(), charges.end()));
  const Leg none = fuse_legs(std::span<const Leg>{});
  ASSERT_EQ(none.num_sectors(), 1u);
  EXPECT_EQ(none.dim(), 1);
}

// ---- BlockTensor construction ----

class BlockTensorByGroup : public ::testing::TestWithParam<GroupDtype> {
 protected:
  const GroupCase& gc() const { return group_case(std::get<0>(GetParam())); }
  DType dt() const { return std::get<1>(GetParam()); }
  std::vector<Leg> legs3() const {
    return {sample_leg(gc(), 1), sample_leg(gc(), 2), sample_leg(gc(), 3, Direction::in)};
  }
};

TEST_P(BlockTensorByGroup, ZerosAndRandnStoreEveryAllowedBlock) {
  const std::vector<Leg> legs = legs3();
  for (const Charge& flux : {gc().group.identity(), gc().flux}) {
    const std::vector<BlockKey> want = conserving_keys(gc().group, legs, flux);
    ASSERT_FALSE(want.empty());
    for (const BlockTensor& t :
         {BlockTensor::zeros(legs, flux, dt()), BlockTensor::randn(legs, 3, flux, dt())}) {
      EXPECT_TRUE(t.defined());
      EXPECT_EQ(t.rank(), 3u);
      EXPECT_EQ(t.dtype(), dt());
      EXPECT_TRUE(t.group() == gc().group);
      EXPECT_EQ(norm_flux(t.group(), t.flux()), norm_flux(gc().group, flux));
      EXPECT_EQ(t.allowed_keys(), want);
      ASSERT_EQ(t.blocks().size(), want.size());
      std::int64_t total = 0;
      for (const auto& [k, b] : t.blocks()) {
        EXPECT_TRUE(t.allowed(k));
        EXPECT_EQ(b.shape(), key_shape(legs, k));
        EXPECT_EQ(t.block_shape(k), key_shape(legs, k));
        EXPECT_EQ(b.dtype(), dt());
        total += b.numel();
      }
      EXPECT_EQ(t.stored_size(), total);
      for (const BlockKey& k : all_keys(legs))
        EXPECT_EQ(t.allowed(k), conserves(gc().group, legs, k, flux)) << key_string(k);
    }
    EXPECT_EQ(max_abs(BlockTensor::zeros(legs, flux, dt()).to_dense()), 0.0);
  }
  const BlockTensor a = BlockTensor::randn(legs, 5, gc().flux, dt());
  const BlockTensor b = BlockTensor::randn(legs, 5, gc().flux, dt());
  const BlockTensor c = BlockTensor::randn(legs, 6, gc().flux, dt());
  EXPECT_EQ(max_abs_diff(a.to_dense(), b.to_dense()), 0.0) << "same seed, same values";
  EXPECT_GT(max_abs_diff(a.to_dense(), c.to_dense()), 0.0) << "another seed, other values";
  EXPECT_GT(max_abs(a.to_dense()), 0.0);
}

TEST_P(BlockTensorByGroup, ToDensePlacesBlocksAtLegOffsets) {
  const std::vector<Leg> legs = legs3();
  const BlockTensor t = BlockTensor::randn(legs, 7, gc().flux, dt());
  const Tensor d = t.to_dense();
  EXPECT_EQ(d.shape(), leg_dims(legs));
  EXPECT_EQ(d.dtype(), dt());
  EXPECT_EQ(max_abs_diff(d, reference_dense(t)), 0.0);
  // Zero outside the allowed blocks.
  EXPECT_EQ(
      max_abs(mul(d, sub(ones(d.shape(), dt()), allowed_mask(gc().group, legs, gc().flux, dt())))),
      0.0);
}

TEST_P(BlockTensorByGroup, FromDenseOfToDenseIsTheSameTensor) {
  const std::vector<Leg> legs = legs3();
  const BlockTensor t = BlockTensor::randn(legs, 8, gc().flux, dt());
  const BlockTensor u = BlockTensor::from_dense(t.to_dense(), legs, gc().flux);
  EXPECT_EQ(u.dtype(), dt());
  expect_same_blocks(u, t, 0.0, "from_dense(to_dense(t))");
  EXPECT_EQ(max_abs_diff(u.to_dense(), t.to_dense()), 0.0);
}

TEST_P(BlockTensorByGroup, FromDenseOfANonSymmetricTensorNamesTheLegAndSector) {
  if (gc().group.num_factors() == 0) GTEST_SKIP() << "every entry is allowed for the trivial group";
  const std::vector<Leg> legs = legs3();
  const BlockTensor t = BlockTensor::randn(legs, 9, gc().group.identity(), dt());
  // An entry in a block that breaks conservation (first forbidden key of non-zero volume).
  BlockKey bad;
  for (const BlockKey& k : all_keys(legs))
    if (!conserves(gc().group, legs, k, gc().group.identity())) {
      bad = k;
      break;
    }
  ASSERT_FALSE(bad.empty());
  const Tensor spike = place(legs, bad, full(key_shape(legs, bad), Scalar(1e-3), dt()));
  const Tensor d = add(t.to_dense(), spike);
  expect_error_mentions(ErrorKind::InvalidArgument,
                        [&] { (void)BlockTensor::from_dense(d, legs, gc().group.identity()); },
                        {"leg", "sector"});
  // Under the tolerance the entry is dropped.
  const BlockTensor u = BlockTensor::from_dense(d, legs, gc().group.identity(), 1e-2);
  expect_same_blocks(u, t, 0.0, "from_dense with tol");
  // Wrong dense shape.
  expect_error_of({ErrorKind::ShapeMismatch, ErrorKind::InvalidArgument}, [&] {
    (void)BlockTensor::from_dense(zeros({legs[0].dim() + 1, legs[1].dim(), legs[2].dim()}), legs,
                                  gc().group.identity());
  });
}

TEST_P(BlockTensorByGroup, FromBlocksChecksKeysAndShapes) {
  const std::vector<Leg> legs = legs3();
  const Charge flux = gc().flux;
  const std::vector<BlockKey> keys = conserving_keys(gc().group, legs, flux);
  ASSERT_FALSE(keys.empty());
  const BlockKey k0 = keys.front();
  const Tensor b0 = randn(key_shape(legs, k0), 3, dt());
  const BlockTensor t = BlockTensor::from_blocks(legs, flux, {{k0, b0}}, dt());
  EXPECT_EQ(t.blocks().size(), 1u);
  EXPECT_EQ(max_abs_diff(t.block(k0), b0), 0.0);
  EXPECT_EQ(t.allowed_keys(), keys);
  for (std::size_t i = 1; i < keys.size(); ++i) {
    const Tensor z = t.block(keys[i]);
    EXPECT_EQ(z.shape(), key_shape(legs, keys[i]));
    EXPECT_EQ(max_abs(z), 0.0);
  }
  EXPECT_EQ(max_abs_diff(t.to_dense(), place(legs, k0, b0)), 0.0);
  const BlockTensor f = t.filled();
  EXPECT_EQ(f.blocks().size(), keys.size());
  EXPECT_EQ(max_abs_diff(f.to_dense(), t.to_dense()), 0.0);
  if (gc().group.num_factors() > 0) {
    BlockKey bad;
    for (const BlockKey& k : all_keys(legs))
      if (!conserves(gc().group, legs, k, flux)) {
        bad = k;
        break;
      }
    ASSERT_FALSE(bad.empty());
    expect_error_mentions(ErrorKind::InvalidArgument,
                          [&] {
                            (void)BlockTensor::from_blocks(
                                legs, flux, {{bad, zeros(key_shape(legs, bad), dt())}}, dt());
                          },
                          {"leg", "sector", "flux"});
    expect_error(ErrorKind::InvalidArgument, [&] { (void)t.block(bad); });
  }
  Dims wrong = key_shape(legs, k0);
  wrong[0] += 1;
  expect_error(ErrorKind::ShapeMismatch, [&] {
    (void)BlockTensor::from_blocks(legs, flux, {{k0, zeros(wrong, dt())}}, dt());
  });
}

TEST(SymmetricBlockTensor, HandPlacedU1Matrix) {
  // Legs U(1) [0:1, 1:2] out and its dual: flux 0 allows the diagonal blocks (0,0) and (1,1).
  const Leg l(Group::u1(), {{{0}, 1}, {{1}, 2}});
  const BlockTensor t = BlockTensor::from_blocks(
      {l, l.dual()}, {0},
      {{{0, 0}, from_values({5}, {1, 1})}, {{1, 1}, from_values({1, 2, 3, 4}, {2, 2})}});
  const Tensor d = t.to_dense();
  ASSERT_EQ(d.shape(), (Dims{3, 3}));
  EXPECT_EQ(max_abs_diff(d, from_values({5, 0, 0, 0, 1, 2, 0, 3, 4}, {3, 3})), 0.0);
  EXPECT_EQ(t.allowed_keys(), (std::vector<BlockKey>{{0, 0}, {1, 1}}));
  EXPECT_FALSE(t.allowed({0, 1}));
  // Flux 1 with (out, in) legs: charge(row) - charge(col) = 1 -> only (1, 0).
  const BlockTensor u =
      BlockTensor::from_blocks({l, l.dual()}, {1}, {{{1, 0}, from_values({7, 8}, {2, 1})}});
  EXPECT_EQ(max_abs_diff(u.to_dense(), from_values({0, 0, 0, 7, 0, 0, 8, 0, 0}, {3, 3})), 0.0);
  EXPECT_EQ(u.allowed_keys(), (std::vector<BlockKey>{{1, 0}}));
  // A Z3 leg [1:1, 2:1] out, twice: flux 0 needs 1+2 = 0 mod 3.
  const Leg z(Group::zn(3), {{{1}, 1}, {{2}, 1}});
  const BlockTensor w = BlockTensor::from_blocks(
      {z, z}, {0}, {{{0, 1}, from_values({3}, {1, 1})}, {{1, 0}, from_values({4}, {1, 1})}});
  EXPECT_EQ(max_abs_diff(w.to_dense(), from_values({0, 3, 4, 0}, {2, 2})), 0.0);
}

TEST_P(BlockTensorByGroup, FluxThatAllowsNoBlock) {
  // U(1)-like groups: a flux far outside the reachable charges; Z3: legs with charge 0 only.
  if (gc().group.num_factors() == 0) GTEST_SKIP() << "the trivial group allows every block";
  std::vector<Leg> legs;
  Charge flux;
  if (gc().name == "Z3") {
    const Leg l(gc().group, {{{0}, 2}});
    legs = {l, l, l.dual()};
    flux = {1};
  } else {
    legs = legs3();
    flux = gc().group.identity();
    flux[0] = 40;
  }
  const BlockTensor t = BlockTensor::randn(legs, 1, flux, dt());
  const BlockTensor z = BlockTensor::zeros(legs, flux, dt());
  EXPECT_TRUE(t.allowed_keys().empty());
  EXPECT_TRUE(t.blocks().empty());
  EXPECT_EQ(t.stored_size(), 0);
  const Tensor d = t.to_dense();
  EXPECT_EQ(d.shape(), leg_dims(legs));
  EXPECT_EQ(max_abs(d), 0.0);
  EXPECT_EQ(value(norm(t)), cd(0.0));
  EXPECT_EQ(value(inner(t, z)), cd(0.0));
  EXPECT_EQ(max_abs(add(t, z).to_dense()), 0.0);
  EXPECT_EQ(max_abs(scale(t, Scalar(2.0)).to_dense()), 0.0);
  EXPECT_EQ(permute(t, {2, 0, 1}).to_dense().shape(),
            (Dims{legs[2].dim(), legs[0].dim(), legs[1].dim()}));
  EXPECT_EQ(max_abs(conj(t).to_dense()), 0.0);
  const BlockTensor f = fuse(t, 0, 2);
  EXPECT_EQ(f.rank(), 2u);
  EXPECT_EQ(f.leg(0).dim(), legs[0].dim() * legs[1].dim());
  expect_same_blocks(split(f, 0), t, 0.0, "split(fuse) of an empty tensor");
  const BlockTensor fd = BlockTensor::from_dense(zeros(leg_dims(legs), dt()), legs, flux);
  EXPECT_TRUE(fd.allowed_keys().empty());
  // Contracting with a non-empty tensor gives an empty result of the right legs and flux.
  const BlockTensor other =
      BlockTensor::randn({legs[2].dual(), legs[0]}, 2, gc().group.identity(), dt());
  const BlockTensor c = tensordot(t, other, {2}, {0});
  EXPECT_EQ(c.rank(), 3u);
  EXPECT_EQ(c.to_dense().shape(), (Dims{legs[0].dim(), legs[1].dim(), legs[0].dim()}));
  EXPECT_EQ(max_abs(c.to_dense()), 0.0);
  EXPECT_EQ(norm_flux(c.group(), c.flux()), norm_flux(gc().group, flux));
}

TEST_P(BlockTensorByGroup, ZeroDimensionalSectors) {
  // Every leg gets an extra sector of dimension 0.
  std::vector<Leg> legs;
  if (gc().group.num_factors() == 0) {
    legs = {Leg::trivial(0), Leg::trivial(3), Leg::trivial(2, Direction::in)};
  } else {
    for (const Leg& l : legs3()) {
      std::vector<Sector> s = l.sectors();
      for (const Charge& c : gc().pool)
        if (l.find(c) < 0) {
          s.push_back({c, 0});
          break;
        }
      if (s.size() == l.num_sectors()) s[0].dim = 0;  // every pool charge used: empty the first
      legs.emplace_back(gc().group, s, l.direction());
    }
  }
  const BlockTensor t = BlockTensor::randn(legs, 4, gc().group.identity(), dt());
  EXPECT_EQ(t.allowed_keys(), conserving_keys(gc().group, legs, gc().group.identity()));
  for (const auto& [k, b] : t.blocks()) EXPECT_EQ(b.shape(), key_shape(legs, k));
  const Tensor d = t.to_dense();
  EXPECT_EQ(d.shape(), leg_dims(legs));
  EXPECT_EQ(max_abs_diff(d, reference_dense(t)), 0.0);
  expect_same_blocks(BlockTensor::from_dense(d, legs, gc().group.identity()), t, 0.0, "round trip");
  EXPECT_NEAR(value(norm(t)).real(), value(tenferro::norm(d)).real(), 1e-12);
  const BlockTensor s = split(fuse(t, 0, 2), 0);
  expect_same_blocks(s, t, 0.0, "split(fuse) with zero-dim sectors");
  const BlockTensor c = tensordot(t, conj(t), {1, 2}, {1, 2});
  expect_near(c.to_dense(), tenferro::tensordot(d, tenferro::conj(d), {1, 2}, {1, 2}), 1e-12,
              "tensordot with zero-dim sectors");
}

// ---- Ops against dense ----

TEST_P(BlockTensorByGroup, PermuteConjDagger) {
  const std::vector<Leg> legs = legs3();
  const BlockTensor t = BlockTensor::randn(legs, 11, gc().flux, dt());
  const Tensor d = t.to_dense();
  const BlockTensor p = permute(t, {2, 0, 1});
  EXPECT_EQ(max_abs_diff(p.to_dense(), tenferro::permute(d, {2, 0, 1})), 0.0);
  EXPECT_TRUE(p.leg(0) == legs[2]);
  EXPECT_TRUE(p.leg(1) == legs[0]);
  EXPECT_TRUE(p.leg(2) == legs[1]);
  EXPECT_EQ(norm_flux(p.group(), p.flux()), norm_flux(gc().group, gc().flux));

  const BlockTensor c = conj(t);
  EXPECT_EQ(max_abs_diff(c.to_dense(), tenferro::conj(d)), 0.0);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(c.leg(i) == legs[i].dual()) << i;
  EXPECT_EQ(norm_flux(c.group(), c.flux()), gc().group.dual(norm_flux(gc().group, gc().flux)));
  EXPECT_EQ(c.allowed_keys(), t.allowed_keys());

  const BlockTensor h = dagger(t);
  EXPECT_EQ(max_abs_diff(h.to_dense(), tenferro::conj(tenferro::permute(d, {2, 1, 0}))), 0.0);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(h.leg(i) == legs[2 - i].dual()) << i;
  EXPECT_EQ(norm_flux(h.group(), h.flux()), gc().group.dual(norm_flux(gc().group, gc().flux)));
  expect_same_blocks(dagger(h), t, 0.0, "dagger(dagger(t))");
}

TEST_P(BlockTensorByGroup, LinearCombinationsInnerNorm) {
  const std::vector<Leg> legs = legs3();
  const BlockTensor a = BlockTensor::randn(legs, 12, gc().flux, dt());
  const BlockTensor b = BlockTensor::randn(legs, 13, gc().flux, dt());
  const Tensor da = a.to_dense(), db = b.to_dense();
  const double tol = 1e-12;
  expect_near(add(a, b).to_dense(), tenferro::add(da, db), tol, "add");
  expect_near((a + b).to_dense(), tenferro::add(da, db), tol, "operator+");
  expect_near(sub(a, b).to_dense(), tenferro::sub(da, db), tol, "sub");
  expect_near((a - b).to_dense(), tenferro::sub(da, db), tol, "operator-");
  const Scalar alpha = dt() == DType::c128 ? Scalar(0.5, -1.5) : Scalar(-2.5);
  expect_near(scale(a, alpha).to_dense(), mul(da, alpha), tol, "scale");
  expect_near((alpha * a).to_dense(), mul(da, alpha), tol, "alpha * a");
  expect_near(scale(a, scalar_tensor(alpha, dt())).to_dense(), mul(da, alpha), tol,
              "scale by a tensor");
  expect_near(axpy(alpha, a, b).to_dense(), tenferro::add(mul(da, alpha), db), tol, "axpy");
  // inner = sum conj(a) b.
  const cd want_inner = value(sum(mul(tenferro::conj(da), db)));
  const Tensor ip = inner(a, b);
  EXPECT_EQ(ip.rank(), 0);
  EXPECT_NEAR(std::abs(value(ip) - want_inner), 0.0, 1e-12);
  const Tensor n = norm(a);
  EXPECT_EQ(n.rank(), 0);
  EXPECT_TRUE(n.dtype() == DType::f64) << "norm is real";
  EXPECT_NEAR(value(n).real(), value(tenferro::norm(da)).real(), 1e-12);
  // Mixed dtypes promote.
  const BlockTensor r = BlockTensor::randn(legs, 14, gc().flux, DType::f64);
  const BlockTensor z = BlockTensor::randn(legs, 15, gc().flux, DType::c128);
  const BlockTensor rz = add(r, z);
  EXPECT_EQ(rz.dtype(), DType::c128);
  expect_near(rz.to_dense(), tenferro::add(r.to_dense(), z.to_dense()), tol, "add f64 + c128");
}

TEST_P(BlockTensorByGroup, MismatchedOperandsAreErrors) {
  const std::vector<Leg> legs = legs3();
  const BlockTensor a = BlockTensor::randn(legs, 12, gc().flux, dt());
  const BlockTensor other_legs =
      BlockTensor::randn({legs[0], legs[1], legs[2].dual()}, 1, gc().flux, dt());
  expect_error_of({ErrorKind::ShapeMismatch, ErrorKind::InvalidArgument},
                  [&] { (void)add(a, other_legs); });
  expect_error_of({ErrorKind::ShapeMismatch, ErrorKind::InvalidArgument},
                  [&] { (void)inner(a, other_legs); });
  expect_error_of({ErrorKind::ShapeMismatch, ErrorKind::InvalidArgument}, [&] {
    (void)add(a, permute(a, {2, 1, 0}));
  });
  if (gc().group.num_factors() > 0) {
    const BlockTensor other_flux = BlockTensor::randn(legs, 2, gc().group.identity(), dt());
    expect_error_of({ErrorKind::ShapeMismatch, ErrorKind::InvalidArgument},
                    [&] { (void)sub(a, other_flux); });
    expect_error_of({ErrorKind::ShapeMismatch, ErrorKind::InvalidArgument},
                    [&] { (void)axpy(Scalar(1.0), a, other_flux); });
  }
}

TEST_P(BlockTensorByGroup, TraceAgainstDense) {
  const Leg a = sample_leg(gc(), 21), b = sample_leg(gc(), 22);
  // Partial trace over (0, 2): legs (a, b, a^).
  const BlockTensor t = BlockTensor::randn({a, b, a.dual()}, 3, gc().group.identity(), dt());
  const Tensor d = t.to_dense();
  const BlockTensor p = trace(t, {0}, {2});
  ASSERT_EQ(p.rank(), 1u);
  EXPECT_TRUE(p.leg(0) == b);
  expect_near(p.to_dense(), tenferro::einsum("iji->j", {d}), 1e-12, "partial trace");
  // Full trace of a matrix (a, a^): rank 0.
  const BlockTensor m = BlockTensor::randn({a, a.dual()}, 4, gc().group.identity(), dt());
  const BlockTensor s = trace(m, {0}, {1});
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_NEAR(std::abs(value(scalar(s)) - value(sum(diagonal(m.to_dense())))), 0.0, 1e-12);
  // The rank-0 result keeps the group and its one block is allowed.
  EXPECT_TRUE(s.group() == gc().group) << s.group().to_string();
  EXPECT_TRUE(s.allowed({}));
  EXPECT_EQ(s.allowed_keys().size(), 1u);
  // Two pairs at once: legs (a, b, b^, a^) traced (0,3), (1,2).
  const BlockTensor q =
      BlockTensor::randn({a, b, b.dual(), a.dual()}, 5, gc().group.identity(), dt());
  const BlockTensor qs = trace(q, {0, 1}, {3, 2});
  EXPECT_EQ(qs.rank(), 0u);
  EXPECT_NEAR(std::abs(value(scalar(qs)) - value(tenferro::einsum("ijji->", {q.to_dense()}))), 0.0,
              1e-12);
  // A pair that is not dual.
  expect_error(ErrorKind::InvalidArgument, [&] { (void)trace(t, {0}, {1}); });
}

TEST_P(BlockTensorByGroup, ScaleLegAgainstDense) {
  const std::vector<Leg> legs = legs3();
  const BlockTensor t = BlockTensor::randn(legs, 16, gc().flux, dt());
  for (std::int64_t axis : {0, 2}) {
    const Leg& l = legs[static_cast<std::size_t>(axis)];
    std::vector<Tensor> w;
    std::vector<Tensor> parts;
    for (std::size_t s = 0; s < l.num_sectors(); ++s) {
      if (s == 1) {  // an undefined entry means zero
        w.emplace_back();
        parts.push_back(zeros({l.sector_dim(s)}));
      } else {
        w.push_back(randn({l.sector_dim(s)}, 30 + s));
        parts.push_back(w.back());
      }
    }
    const Tensor full_w = concatenate(std::span<const Tensor>(parts));
    Dims bshape{1, 1, 1};
    bshape[static_cast<std::size_t>(axis)] = l.dim();
    const Tensor want = mul(t.to_dense(), full_w.reshape(bshape));
    const BlockTensor got = scale_leg(t, axis, w);
    EXPECT_EQ(got.dtype(), dt());
    expect_near(got.to_dense(), want, 1e-12, "scale_leg axis " + std::to_string(axis));
  }
}

// ---- Fuse and split ----

TEST_P(BlockTensorByGroup, SplitOfFuseIsExact) {
  const std::vector<Leg> legs{
      sample_leg(gc(), 1, Direction::out, 2), sample_leg(gc(), 2, Direction::out, 2),
      sample_leg(gc(), 3, Direction::in, 2), sample_leg(gc(), 4, Direction::out, 2)};
  const BlockTensor t = BlockTensor::randn(legs, 17, gc().flux, dt());
  const Tensor d = t.to_dense();
  for (const auto& [b, e] :
       std::vector<std::pair<int, int>>{{0, 2}, {1, 3}, {0, 4}, {2, 3}, {1, 4}}) {
    for (Direction dir : {Direction::out, Direction::in}) {
      const std::string what = "fuse [" + std::to_string(b) + ", " + std::to_string(e) + ") " +
                               (dir == Direction::out ? "out" : "in");
      const BlockTensor f = fuse(t, b, e, dir);
      ASSERT_EQ(f.rank(), 4u - (e - b) + 1) << what;
      const Leg& fl = f.leg(b);
      EXPECT_TRUE(fl.is_fused()) << what;
      EXPECT_EQ(fl.direction(), dir) << what;
      ASSERT_EQ(fl.fused_from().size(), static_cast<std::size_t>(e - b)) << what;
      std::int64_t dim = 1;
      for (int i = b; i < e; ++i) {
        EXPECT_TRUE(fl.fused_from()[i - b] == legs[i]) << what;
        dim *= legs[i].dim();
      }
      EXPECT_EQ(fl.dim(), dim) << what;
      EXPECT_EQ(norm_flux(f.group(), f.flux()), norm_flux(gc().group, gc().flux)) << what;
      // A permutation of the entries: same norm, same sorted values.
      EXPECT_NEAR(value(norm(f)).real(), value(tenferro::norm(d)).real(), 1e-12) << what;
      const Tensor fd = f.to_dense();
      EXPECT_EQ(fd.numel(), d.numel()) << what;
      for (int im = 0; im < (dt() == DType::c128 ? 2 : 1); ++im) {
        const auto part = [&](const Tensor& x) {
          return (im ? tenferro::imag(x) : tenferro::real(x)).reshape({x.numel()});
        };
        EXPECT_EQ(max_abs_diff(sort(part(fd)).values, sort(part(d)).values), 0.0) << what;
      }
      const BlockTensor s = split(f, b);
      expect_same_blocks(s, t, 0.0, "split(" + what + ")");
      EXPECT_EQ(max_abs_diff(s.to_dense(), d), 0.0) << what;
    }
  }
  expect_error(ErrorKind::InvalidArgument, [&] { (void)split(t, 1); });
}

TEST_P(BlockTensorByGroup, FusePreservesInnerProductsAndContractions) {
  const Leg x = sample_leg(gc(), 1), y = sample_leg(gc(), 2),
            z = sample_leg(gc(), 3, Direction::in), w = sample_leg(gc(), 4);
  const BlockTensor A = BlockTensor::randn({x, y, z}, 18, gc().flux, dt());
  const BlockTensor A2 = BlockTensor::randn({x, y, z}, 19, gc().flux, dt());
  EXPECT_NEAR(std::abs(value(inner(fuse(A, 1, 3), fuse(A2, 1, 3))) - value(inner(A, A2))), 0.0,
              1e-12);
  EXPECT_NEAR(std::abs(value(inner(fuse(A, 0, 2, Direction::in), fuse(A2, 0, 2, Direction::in))) -
                       value(inner(A, A2))),
              0.0, 1e-12);
  // Contracting through the fused pair equals contracting the two legs.
  const BlockTensor B =
      BlockTensor::randn({y.dual(), z.dual(), w}, 20, gc().group.identity(), dt());
  const BlockTensor direct = tensordot(A, B, {1, 2}, {0, 1});
  const BlockTensor fA = fuse(A, 1, 3, Direction::out);
  const BlockTensor fB = fuse(B, 0, 2, Direction::in);
  EXPECT_TRUE(is_dual(fA.leg(1), fB.leg(0)))
      << fA.leg(1).to_string() << " / " << fB.leg(0).to_string();
  const BlockTensor via = tensordot(fA, fB, {1}, {0});
  expect_same_blocks(via, direct, 1e-12, "tensordot through fused legs");
  expect_near(via.to_dense(), direct.to_dense(), 1e-12, "tensordot through fused legs (dense)");
}

TEST_P(BlockTensorByGroup, FusedLegsSurviveConjPermuteAndContraction) {
  const Leg x = sample_leg(gc(), 1), y = sample_leg(gc(), 2),
            z = sample_leg(gc(), 3, Direction::in), w = sample_leg(gc(), 4);
  const BlockTensor A = BlockTensor::randn({x, y, z}, 21, gc().flux, dt());
  const BlockTensor f = fuse(A, 0, 2);
  // The fused leg keeps its history: equal to itself, not to a plain leg of the same sectors.
  const Leg& fl = f.leg(0);
  const Leg plain(fl.group(), fl.sectors(), fl.direction());
  EXPECT_TRUE(fl == fuse(A, 0, 2).leg(0));
  EXPECT_FALSE(plain == fl);
  // conj and dagger keep the fusion: split restores conj(A).
  const BlockTensor cf = conj(f);
  EXPECT_TRUE(cf.leg(0).is_fused());
  expect_same_blocks(split(cf, 0), conj(A), 0.0, "split(conj(fuse(A)))");
  // dagger reverses the legs, not the parts of a fused leg: (x y, z) -> (z^, (x y)^).
  expect_same_blocks(split(dagger(f), 1), permute(dagger(A), {0, 2, 1}), 0.0,
                     "split(dagger(fuse(A)))");
  // A permuted fused leg splits at its new place.
  const BlockTensor p = permute(f, {1, 0});
  expect_same_blocks(split(p, 1), permute(A, {2, 0, 1}), 0.0, "split after permute");
  // A free fused leg stays fused through tensordot.
  const BlockTensor B = BlockTensor::randn({z.dual(), w}, 22, gc().group.identity(), dt());
  const BlockTensor c = tensordot(f, B, {1}, {0});
  ASSERT_TRUE(c.leg(0).is_fused());
  expect_same_blocks(split(c, 0), tensordot(A, B, {2}, {0}), 1e-12, "split(tensordot(fuse))");
}

INSTANTIATE_TEST_SUITE_P(Groups, BlockTensorByGroup, all_groups_and_dtypes(), group_dt_label);

TEST(SymmetricBlockTensor, ComplexCoefficientsPromoteRealTensors) {
  // alpha * x + y with a complex alpha and real x, y is complex (as scale and the dense ops are).
  const GroupCase& gc = group_case(0);
  const std::vector<Leg> legs{sample_leg(gc, 1), sample_leg(gc, 2, Direction::in)};
  const BlockTensor x = BlockTensor::randn(legs, 1, {0});
  const BlockTensor y = BlockTensor::randn(legs, 2, {0});
  const Scalar alpha(0.5, -1.5);
  const Tensor want = tenferro::add(mul(x.to_dense(), alpha), y.to_dense());
  const BlockTensor s = scale(x, alpha);
  EXPECT_EQ(s.dtype(), DType::c128);
  expect_near(s.to_dense(), mul(x.to_dense(), alpha), 1e-15, "scale(x, complex)");
  expect_near((alpha * x).to_dense(), mul(x.to_dense(), alpha), 1e-15, "complex * x");
  const BlockTensor r = axpy(alpha, x, y);
  EXPECT_EQ(r.dtype(), DType::c128) << "axpy(complex, f64, f64)";
  expect_near(r.to_dense(), want, 1e-15, "axpy(complex, f64, f64)");
}

TEST(SymmetricBlockTensor, StructuralErrors) {
  const Leg l(Group::u1(), {{{0}, 1}, {{1}, 2}});
  const BlockTensor m = BlockTensor::randn({l, l.dual()}, 1, {0});
  // Keys out of range or of the wrong length.
  expect_error(ErrorKind::InvalidArgument, [&] {
    (void)BlockTensor::from_blocks({l, l.dual()}, {0}, {{{0, 5}, zeros({1, 2})}});
  });
  expect_error(ErrorKind::InvalidArgument, [&] {
    (void)BlockTensor::from_blocks({l, l.dual()}, {0}, {{{0}, zeros({1})}});
  });
  expect_error_of({ErrorKind::DTypeMismatch, ErrorKind::InvalidArgument}, [&] {
    (void)BlockTensor::from_blocks({l, l.dual()}, {0}, {{{0, 0}, zeros({1, 1}, DType::i64)}});
  });
  expect_error_of({ErrorKind::DTypeMismatch, ErrorKind::InvalidArgument},
                  [&] { (void)BlockTensor::zeros({l}, {0}, DType::i64); });
  // Legs of different groups; a flux of the wrong length.
  expect_error(ErrorKind::InvalidArgument, [&] {
    (void)BlockTensor::zeros({l, Leg(Group::zn(2), {{{0}, 1}})});
  });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)BlockTensor::zeros({l}, {0, 1}); });
  // Axes.
  expect_error(ErrorKind::InvalidArgument, [&] { (void)permute(m, {0, 0}); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)trace(m, {0}, {0}); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)fuse(m, 1, 3); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)split(m, 0); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)scalar(m); });
  // scale_leg: one weight per sector, of the sector's dim.
  expect_error(ErrorKind::InvalidArgument,
               [&] { (void)scale_leg(m, 0, std::vector<Tensor>{ones({1})}); });
  expect_error(ErrorKind::ShapeMismatch, [&] {
    (void)scale_leg(m, 0, std::vector<Tensor>{ones({1}), ones({3})});
  });
}

TEST(SymmetricBlockTensor, PartiallyStoredOperands) {
  // Operands storing different subsets of the allowed blocks behave as their dense tensors.
  const GroupCase& gc = group_case(0);
  const std::vector<Leg> legs{sample_leg(gc, 1), sample_leg(gc, 2),
                              sample_leg(gc, 3, Direction::in)};
  const std::vector<BlockKey> keys = conserving_keys(gc.group, legs, {1});
  ASSERT_GE(keys.size(), 3u);
  std::map<BlockKey, Tensor> even, odd;
  for (std::size_t i = 0; i < keys.size(); ++i)
    (i % 2 ? odd : even)[keys[i]] = randn(key_shape(legs, keys[i]), 100 + i);
  const BlockTensor a = BlockTensor::from_blocks(legs, {1}, even);
  const BlockTensor b = BlockTensor::from_blocks(legs, {1}, odd);
  const Tensor da = a.to_dense(), db = b.to_dense();
  expect_near(add(a, b).to_dense(), tenferro::add(da, db), 0.0, "add");
  expect_near(sub(a, b).to_dense(), tenferro::sub(da, db), 0.0, "sub");
  expect_near(axpy(Scalar(2.0), a, b).to_dense(), tenferro::add(mul(da, Scalar(2.0)), db), 1e-15,
              "axpy");
  EXPECT_NEAR(value(inner(a, b)).real(), 0.0, 1e-15);
  EXPECT_NEAR(value(inner(a, add(a, b))).real(), value(sum(mul(da, da))).real(), 1e-12);
  const BlockTensor c = tensordot(a, conj(add(a, b)), {1, 2}, {1, 2});
  expect_near(c.to_dense(), tenferro::tensordot(da, tenferro::add(da, db), {1, 2}, {1, 2}), 1e-12,
              "tensordot");
  expect_same_blocks(split(fuse(a, 0, 2), 0), a, 0.0, "split(fuse) of a partial tensor");
  EXPECT_EQ(a.filled().blocks().size(), keys.size());
}

TEST(SymmetricBlockTensor, Printing) {
  const BlockTensor t =
      BlockTensor::randn({sample_leg(group_case(0), 1), sample_leg(group_case(0), 2)}, 1, {1});
  std::ostringstream os;
  os << t;
  EXPECT_FALSE(os.str().empty());
  EXPECT_FALSE(BlockTensor().defined());
}

}  // namespace
}  // namespace tenferro::symmetric
