// svd, svd_truncated, qr and eigh per charge sector against the dense decompositions of the
// matricized tensor (every group, f64 and c128): reconstruction, orthonormality per sector, the
// multiset of singular values / eigenvalues, global truncation (kept set = the dense top k,
// discarded weight), and tensors whose flux allows no block or whose legs have empty sectors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "symmetric/symmetric_test_util.hpp"

namespace tenferro::symmetric {
namespace {

using namespace test_util;
using tenferro::testing::expect_error;

class DecompByGroup : public ::testing::TestWithParam<GroupDtype> {
 protected:
  const GroupCase& gc() const { return group_case(std::get<0>(GetParam())); }
  DType dt() const { return std::get<1>(GetParam()); }
  Charge id() const { return gc().group.identity(); }
  std::vector<Leg> legs4() const {
    return {sample_leg(gc(), 1), sample_leg(gc(), 2), sample_leg(gc(), 3, Direction::in),
            sample_leg(gc(), 4)};
  }
  BlockTensor hermitian(std::uint64_t seed) const {
    // X X^H - Y Y^H over the legs (a, b | k): Hermitian, flux 0, columns (a^, b^).
    const Leg a = sample_leg(gc(), 31), b = sample_leg(gc(), 32), k = sample_leg(gc(), 33);
    const BlockTensor X = BlockTensor::randn({a, b, k}, seed, id(), dt());
    const BlockTensor Y = BlockTensor::randn({a, b, k}, seed + 1, id(), dt());
    return sub(tensordot(X, conj(X), {2}, {2}), tensordot(Y, conj(Y), {2}, {2}));
  }
};

// Structure shared by svd and qr: U (row legs + bond in, flux 0), Vh (bond^ + column legs, t's
// flux), orthonormal columns of U.
void expect_factor_structure(const BlockTensor& t, std::int64_t rows, const BlockTensor& U,
                             const BlockTensor& Vh, const std::string& what) {
  const auto r = static_cast<std::size_t>(rows);
  ASSERT_EQ(U.rank(), r + 1) << what;
  ASSERT_EQ(Vh.rank(), t.rank() - r + 1) << what;
  for (std::size_t i = 0; i < r; ++i) EXPECT_TRUE(U.leg(i) == t.leg(i)) << what << " U leg " << i;
  for (std::size_t i = r; i < t.rank(); ++i)
    EXPECT_TRUE(Vh.leg(i - r + 1) == t.leg(i)) << what << " Vh leg " << i - r + 1;
  const Leg& bond = U.leg(r);
  EXPECT_EQ(bond.direction(), Direction::in) << what;
  EXPECT_TRUE(is_dual(bond, Vh.leg(0))) << what;
  EXPECT_EQ(norm_flux(U.group(), U.flux()), U.group().identity()) << what;
  EXPECT_EQ(norm_flux(Vh.group(), Vh.flux()), norm_flux(t.group(), t.flux())) << what;
  const BlockTensor g = gram_of_columns(U);
  ASSERT_EQ(g.rank(), 2u) << what;
  expect_near(g.to_dense(), eye(bond.dim(), t.dtype()), 1e-10, what + ": U^H U = 1");
}

TEST_P(DecompByGroup, SvdReconstructsAndMatchesDenseSingularValues) {
  const std::vector<Leg> legs = legs4();
  for (const Charge& flux : {id(), gc().flux}) {
    const BlockTensor t = BlockTensor::randn(legs, 1, flux, dt());
    const Tensor d = t.to_dense();
    for (std::int64_t rows : {1, 2, 3}) {
      const std::string what = "rows " + std::to_string(rows);
      const BlockSvd s = svd(t, rows);
      expect_factor_structure(t, rows, s.U, s.Vh, what);
      const Leg& bond = s.U.leg(static_cast<std::size_t>(rows));
      ASSERT_EQ(s.S.size(), bond.num_sectors()) << what;
      for (std::size_t k = 0; k < s.S.size(); ++k) {
        ASSERT_EQ(s.S[k].rank(), 1) << what;
        EXPECT_EQ(s.S[k].shape()[0], bond.sector_dim(k)) << what;
        EXPECT_TRUE(s.S[k].dtype() == DType::f64) << what << ": S is real";
        const std::vector<double> v = to_doubles(s.S[k]);
        EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), std::greater<>()))
            << what << " sector " << k;
      }
      EXPECT_EQ(s.discarded_weight, 0.0) << what;
      expect_near(reconstruct(s.U, s.S, s.Vh).to_dense(), d, 1e-10, what + ": U S Vh = t");
      expect_near(gram_of_rows(s.Vh).to_dense(), eye(bond.dim(), dt()), 1e-10,
                  what + ": Vh Vh^H = 1");
      // The multiset of singular values, padded with the dense matrix's structural zeros.
      std::vector<double> got = all_values(s.S, true);
      const std::vector<double> want = to_doubles(svdvals(matricize(d, rows)));
      ASSERT_LE(got.size(), want.size()) << what;
      got.resize(want.size(), 0.0);
      for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-10) << what << " i " << i;
    }
  }
}

TEST_P(DecompByGroup, SvdTruncatedKeepsTheGloballyLargestValues) {
  const std::vector<Leg> legs = legs4();
  const BlockTensor t = BlockTensor::randn(legs, 2, gc().flux, dt());
  const Tensor d = t.to_dense();
  const std::vector<double> dense = to_doubles(svdvals(matricize(d, 2)));
  double total = 0;
  for (double x : dense) total += x * x;
  std::int64_t nonzero = 0;
  for (double x : dense) nonzero += x > 1e-12 ? 1 : 0;
  for (std::int64_t k : {1, 2, 3, 5, 1000}) {
    const std::string what = "max_rank " + std::to_string(k);
    const BlockSvd s = svd_truncated(t, 2, {.max_rank = k});
    const std::int64_t kept_n = std::min(k, nonzero);
    const std::vector<double> kept = all_values(s.S, true);
    ASSERT_EQ(static_cast<std::int64_t>(kept.size()), kept_n) << what;
    for (std::int64_t i = 0; i < kept_n; ++i)
      EXPECT_NEAR(kept[i], dense[i], 1e-10) << what << " i " << i;
    double discarded = 0;
    for (std::size_t i = static_cast<std::size_t>(kept_n); i < dense.size(); ++i)
      discarded += dense[i] * dense[i];
    EXPECT_NEAR(s.discarded_weight, discarded / total, 1e-10) << what;
    // Sectors left empty are dropped from the bond; S sizes follow the bond.
    const Leg& bond = s.U.leg(2);
    ASSERT_EQ(s.S.size(), bond.num_sectors()) << what;
    for (std::size_t j = 0; j < bond.num_sectors(); ++j) {
      EXPECT_GT(bond.sector_dim(j), 0) << what;
      EXPECT_EQ(s.S[j].numel(), bond.sector_dim(j)) << what;
    }
    EXPECT_TRUE(is_dual(bond, s.Vh.leg(0))) << what;
    // ||t - U S Vh||^2 / ||t||^2 = discarded weight.
    const Tensor err = tenferro::sub(reconstruct(s.U, s.S, s.Vh).to_dense(), d);
    const double rel = std::pow(value(tenferro::norm(err)).real(), 2) / total;
    EXPECT_NEAR(rel, discarded / total, 1e-10) << what;
    expect_near(gram_of_columns(s.U).to_dense(), eye(bond.dim(), dt()), 1e-10, what + ": U^H U");
  }
  // cutoff: values <= cutoff * largest are dropped.
  const double cutoff = 0.3;
  const BlockSvd c = svd_truncated(t, 2, {.cutoff = cutoff});
  const std::vector<double> kept = all_values(c.S, true);
  std::size_t want_n = 0;
  for (double x : dense) want_n += x > cutoff * dense[0] ? 1 : 0;
  EXPECT_EQ(kept.size(), want_n);
  for (std::size_t i = 0; i < std::min(kept.size(), want_n); ++i)
    EXPECT_NEAR(kept[i], dense[i], 1e-10);
}

TEST_P(DecompByGroup, QrReconstructsWithOrthonormalQ) {
  const std::vector<Leg> legs = legs4();
  for (const Charge& flux : {id(), gc().flux}) {
    const BlockTensor t = BlockTensor::randn(legs, 3, flux, dt());
    for (std::int64_t rows : {1, 2, 3}) {
      const std::string what = "qr rows " + std::to_string(rows);
      const BlockQr q = qr(t, rows);
      expect_factor_structure(t, rows, q.Q, q.R, what);
      const auto last = static_cast<std::int64_t>(rows);
      expect_near(tensordot(q.Q, q.R, {last}, {0}).to_dense(), t.to_dense(), 1e-10,
                  what + ": Q R = t");
    }
  }
}

TEST_P(DecompByGroup, EighMatchesDenseEigenvalues) {
  const BlockTensor h = hermitian(5);
  const Tensor hd = h.to_dense();
  // Hermitian as a matrix.
  const Tensor hm = matricize(hd, 2);
  ASSERT_LE(max_abs_diff(hm, tenferro::conj(hm.transpose())), 1e-12);
  const BlockEigh e = eigh(h, 2);
  const BlockTensor& V = e.eigenvectors;
  ASSERT_EQ(V.rank(), 3u);
  EXPECT_TRUE(V.leg(0) == h.leg(0));
  EXPECT_TRUE(V.leg(1) == h.leg(1));
  const Leg& bond = V.leg(2);
  EXPECT_EQ(bond.direction(), Direction::in);
  ASSERT_EQ(e.eigenvalues.size(), bond.num_sectors());
  for (std::size_t k = 0; k < e.eigenvalues.size(); ++k) {
    EXPECT_EQ(e.eigenvalues[k].numel(), bond.sector_dim(k));
    EXPECT_TRUE(e.eigenvalues[k].dtype() == DType::f64);
    const std::vector<double> v = to_doubles(e.eigenvalues[k]);
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end())) << "sector " << k << " ascending";
  }
  // Every charge through the cut is decomposed, also those whose block of h is not stored (a
  // zero block: eigenvalues 0): the spectrum is the dense one and V is square.
  const std::vector<double> got = all_values(e.eigenvalues, false);
  const std::vector<double> want = to_doubles(eigvalsh(hm));
  EXPECT_EQ(got.size(), want.size()) << "eigenvalues over all sectors";
  EXPECT_EQ(bond.dim(), hm.shape()[0]) << "bond dimension";
  if (got.size() == want.size())
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-10) << i;
  expect_near(gram_of_columns(V).to_dense(), eye(bond.dim(), dt()), 1e-10, "V^H V = 1");
  // V diag(w) V^H = h.
  const BlockTensor rec = tensordot(scale_leg(V, 2, e.eigenvalues), conj(V), {2}, {2});
  expect_near(rec.to_dense(), hd, 1e-10, "V w V^H");
  // A rank-2 Hermitian matrix (rows: one leg).
  const Leg a = sample_leg(gc(), 41);
  const BlockTensor X = BlockTensor::randn({a, a.dual()}, 7, id(), dt());
  const BlockTensor m = add(X, dagger(X));
  const BlockEigh em = eigh(m, 1);
  const std::vector<double> gm = all_values(em.eigenvalues, false);
  const std::vector<double> wm = to_doubles(eigvalsh(m.to_dense()));
  ASSERT_EQ(gm.size(), wm.size());
  for (std::size_t i = 0; i < wm.size(); ++i) EXPECT_NEAR(gm[i], wm[i], 1e-10) << i;
}

TEST_P(DecompByGroup, ZeroDimensionalSectors) {
  std::vector<Leg> legs;
  for (const Leg& l : legs4()) {
    std::vector<Sector> s = l.sectors();
    if (s.size() > 1) s[1].dim = 0;
    legs.emplace_back(gc().group, s, l.direction());
  }
  const BlockTensor t = BlockTensor::randn(legs, 8, id(), dt());
  const BlockSvd s = svd(t, 2);
  expect_near(reconstruct(s.U, s.S, s.Vh).to_dense(), t.to_dense(), 1e-10, "svd");
  std::vector<double> got = all_values(s.S, true);
  const std::vector<double> want = to_doubles(svdvals(matricize(t.to_dense(), 2)));
  got.resize(want.size(), 0.0);
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-10) << i;
  const BlockSvd st = svd_truncated(t, 2, {.max_rank = 2});
  EXPECT_LE(all_values(st.S, true).size(), 2u);
  const BlockQr q = qr(t, 2);
  expect_near(tensordot(q.Q, q.R, {2}, {0}).to_dense(), t.to_dense(), 1e-10, "qr");
}

TEST_P(DecompByGroup, FluxThatAllowsNoBlock) {
  if (gc().group.num_factors() == 0) GTEST_SKIP() << "the trivial group allows every block";
  std::vector<Leg> legs;
  Charge flux;
  if (gc().name == "Z3") {
    const Leg l(gc().group, {{{0}, 2}});
    legs = {l, l, l.dual()};
    flux = {1};
  } else {
    legs = {sample_leg(gc(), 1), sample_leg(gc(), 2), sample_leg(gc(), 3, Direction::in)};
    flux = id();
    flux[0] = 40;
  }
  const BlockTensor t = BlockTensor::randn(legs, 9, flux, dt());
  ASSERT_TRUE(t.allowed_keys().empty());
  const BlockSvd s = svd(t, 1);
  EXPECT_TRUE(all_values(s.S, true).empty());
  const BlockTensor r = reconstruct(s.U, s.S, s.Vh);
  EXPECT_EQ(r.to_dense().shape(), leg_dims(legs));
  EXPECT_EQ(max_abs(r.to_dense()), 0.0);
  EXPECT_EQ(norm_flux(s.Vh.group(), s.Vh.flux()), norm_flux(gc().group, flux));
  const BlockSvd st = svd_truncated(t, 1, {.max_rank = 3});
  EXPECT_TRUE(all_values(st.S, true).empty());
  EXPECT_EQ(st.discarded_weight, 0.0);
  const BlockQr q = qr(t, 2);
  EXPECT_EQ(max_abs(tensordot(q.Q, q.R, {2}, {0}).to_dense()), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Groups, DecompByGroup, all_groups_and_dtypes(), group_dt_label);

TEST(SymmetricDecomp, SvdTruncatedIsNotTraceable) {
  const GroupCase& gc = group_case(0);
  const BlockTensor t =
      BlockTensor::randn({sample_leg(gc, 1), sample_leg(gc, 2, Direction::in)}, 1, {0});
  const BlockFn f = [](std::span<const BlockTensor> in) -> std::vector<BlockTensor> {
    const BlockSvd s = svd_truncated(in[0], 1, {.max_rank = 2});
    return {s.U};
  };
  const std::vector<BlockTensor> ex{t};
  expect_error(ErrorKind::Unsupported, [&] { (void)trace_blocks(f, ex); });
}

TEST(SymmetricDecomp, EighOfAMatrixWithAnUnstoredBlock) {
  // diag(2, 0) on U(1) [0:1, 1:1]: the block (1, 1) is allowed but not stored. Its eigenvalue 0
  // belongs to the spectrum, as for the same tensor with the block stored (filled()).
  const Leg l(Group::u1(), {{{0}, 1}, {{1}, 1}});
  const BlockTensor h =
      BlockTensor::from_blocks({l, l.dual()}, {0}, {{{0, 0}, from_values({2}, {1, 1})}});
  const BlockEigh e = eigh(h, 1);
  const BlockEigh ef = eigh(h.filled(), 1);
  EXPECT_EQ(ef.eigenvectors.leg(1).num_sectors(), 2u);
  EXPECT_EQ(e.eigenvectors.leg(1).num_sectors(), 2u) << "the unstored block's sector is missing";
  EXPECT_EQ(all_values(e.eigenvalues, false), (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(all_values(ef.eigenvalues, false), (std::vector<double>{0.0, 2.0}));
}

TEST(SymmetricDecomp, PartiallyStoredTensors) {
  // Blocks that are allowed but not stored are zero: svd and qr still reconstruct, and the
  // singular values are those of the dense matrix (zeros aside).
  const GroupCase& gc = group_case(0);
  const std::vector<Leg> legs{sample_leg(gc, 1), sample_leg(gc, 2),
                              sample_leg(gc, 3, Direction::in)};
  const std::vector<BlockKey> keys = conserving_keys(gc.group, legs, {0});
  ASSERT_GE(keys.size(), 3u);
  std::map<BlockKey, Tensor> blocks;
  for (std::size_t i = 0; i < keys.size(); i += 2)
    blocks[keys[i]] = randn(key_shape(legs, keys[i]), i);
  const BlockTensor t = BlockTensor::from_blocks(legs, {0}, blocks);
  const Tensor d = t.to_dense();
  for (std::int64_t rows : {1, 2}) {
    const BlockSvd s = svd(t, rows);
    expect_near(reconstruct(s.U, s.S, s.Vh).to_dense(), d, 1e-10, "svd");
    std::vector<double> got = all_values(s.S, true);
    const std::vector<double> want = to_doubles(svdvals(matricize(d, rows)));
    got.resize(want.size(), 0.0);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-10) << i;
    const BlockQr q = qr(t, rows);
    expect_near(tensordot(q.Q, q.R, {rows}, {0}).to_dense(), d, 1e-10, "qr");
    expect_near(gram_of_columns(q.Q).to_dense(),
                eye(q.Q.leg(static_cast<std::size_t>(rows)).dim(), DType::f64), 1e-10, "Q^H Q");
  }
}

// The discarded weight of a tensor scaled by 1e-170 or 1e170: the squares of its singular
// values left the double range and the weight came out 0.
TEST(SymmetricDecomp, DiscardedWeightAtExtremeScales) {
  const Leg l(Group::u1(), {{{0}, 4}, {{1}, 3}});
  const BlockTensor m = BlockTensor::randn({l, l.dual()}, 5, {0});
  const double want = svd_truncated(m, 1, {.max_rank = 3}).discarded_weight;
  ASSERT_GT(want, 0.01);
  for (double scale : {1e-170, 1e170})
    EXPECT_NEAR(svd_truncated(scale * m, 1, {.max_rank = 3}).discarded_weight, want, 1e-12)
        << scale;
}

// One sector is a dense matrix, so svd_truncated must keep what the dense op keeps: it kept
// nothing for cutoff >= 1 (the dense op keeps the largest value) and dropped exact zeros at
// cutoff 0 (the dense op tests no value there).
TEST(SymmetricDecomp, SvdTruncatedEdgesFollowTheDenseOp) {
  const Leg l(Group::u1(), {{{0}, 3}});
  const Tensor dense = from_vector<double>({3, 0, 0, 0, 1, 0, 0, 0, 0}, {3, 3});
  const BlockTensor m = BlockTensor::from_dense(dense, {l, l.dual()}, {0});
  ASSERT_EQ(tenferro::svdvals(dense).to_vector<double>(), (std::vector<double>{3, 1, 0}));
  struct Case {
    std::int64_t max_rank;
    double cutoff;
  };
  for (const Case c : {Case{0, 0.0}, Case{2, 0.0}, Case{0, 1.0}, Case{0, 2.5}, Case{1, 5.0},
                       Case{0, 0.2}, Case{0, 0.5}}) {
    const std::string what =
        "max_rank " + std::to_string(c.max_rank) + " cutoff " + std::to_string(c.cutoff);
    const SvdResult d = tenferro::svd_truncated(dense, c.max_rank, c.cutoff);
    const BlockSvd s = svd_truncated(m, 1, {.max_rank = c.max_rank, .cutoff = c.cutoff});
    const std::vector<double> want = d.S.to_vector<double>();
    EXPECT_EQ(all_values(s.S, true), want) << what;
    EXPECT_EQ(s.U.leg(1).dim(), static_cast<std::int64_t>(want.size())) << what;
    // The kept factors rebuild what the dense ones rebuild.
    expect_near(reconstruct(s.U, s.S, s.Vh).to_dense(),
                tenferro::matmul(tenferro::mul(d.U, d.S.unsqueeze(0)), d.Vh), 1e-12, what);
  }
  // Two sectors: cutoff >= 1 keeps the one globally largest value.
  const Leg two(Group::u1(), {{{0}, 2}, {{1}, 2}});
  const BlockTensor t = BlockTensor::randn({two, two.dual()}, 7, {0});
  const std::vector<double> all = all_values(svd(t, 1).S, true);
  const BlockSvd one = svd_truncated(t, 1, {.cutoff = 1.0});
  EXPECT_EQ(all_values(one.S, true), (std::vector<double>{all[0]}));
}

TEST(SymmetricDecomp, Errors) {
  const Leg l(Group::u1(), {{{0}, 1}, {{1}, 2}});
  const BlockTensor m = BlockTensor::randn({l, l.dual()}, 1, {0});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)svd(m, 3); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)qr(m, -1); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)svd_truncated(m, 1, {.max_rank = -1}); });
  // A NaN cutoff used to be taken as none (every value kept); infinite as the dense op.
  for (double c : {std::nan(""), -1.0, std::numeric_limits<double>::infinity()})
    expect_error(ErrorKind::InvalidArgument, [&] { (void)svd_truncated(m, 1, {.cutoff = c}); },
                 {"cutoff"});
  // A NaN or infinite degeneracy_eps is refused, also for a tensor without blocks.
  for (double e : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    expect_error(ErrorKind::InvalidArgument,
                 [&] { (void)svd_truncated(m, 1, {.degeneracy_eps = e}); },
                 {"symmetric::svd_truncated", "degeneracy_eps"});
    expect_error(
        ErrorKind::InvalidArgument,
        [&] {
          (void)svd_truncated(BlockTensor::zeros({l, l.dual()}, {0}), 1, {.degeneracy_eps = e});
        },
        {"symmetric::svd_truncated", "degeneracy_eps"});
  }
  // eigh: column legs not the duals of the row legs; a non-zero flux.
  expect_error(ErrorKind::InvalidArgument, [&] {
    (void)eigh(BlockTensor::randn({l, l}, 1, {1}), 1);
  });
  expect_error(ErrorKind::InvalidArgument, [&] {
    (void)eigh(BlockTensor::randn({l, l.dual()}, 1, {1}), 1);
  });
}

TEST(SymmetricDecomp, U1SectorsAreDecomposedSeparately) {
  // A block-diagonal U(1) matrix: the singular values of each sector are those of its block.
  const Leg l(Group::u1(), {{{0}, 2}, {{1}, 3}});
  const Tensor b0 = randn({2, 2}, 1), b1 = randn({3, 3}, 2);
  const BlockTensor t = BlockTensor::from_blocks({l, l.dual()}, {0}, {{{0, 0}, b0}, {{1, 1}, b1}});
  const BlockSvd s = svd(t, 1);
  const Leg& bond = s.U.leg(1);
  ASSERT_EQ(bond.num_sectors(), 2u);
  const std::int64_t i0 = bond.find({0}), i1 = bond.find({1});
  ASSERT_GE(i0, 0);
  ASSERT_GE(i1, 0);
  expect_near(s.S[static_cast<std::size_t>(i0)], svdvals(b0), 1e-12, "sector 0");
  expect_near(s.S[static_cast<std::size_t>(i1)], svdvals(b1), 1e-12, "sector 1");
  // Truncating to 2 keeps the two largest values over both sectors.
  std::vector<double> all = to_doubles(svdvals(b0));
  for (double x : to_doubles(svdvals(b1))) all.push_back(x);
  std::sort(all.begin(), all.end(), std::greater<>());
  const BlockSvd st = svd_truncated(t, 1, {.max_rank = 2});
  const std::vector<double> kept = all_values(st.S, true);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_NEAR(kept[0], all[0], 1e-12);
  EXPECT_NEAR(kept[1], all[1], 1e-12);
}

}  // namespace
}  // namespace tenferro::symmetric
