// Gradients of real losses of BlockTensor ops against the dense gradient of the same loss on
// to_dense, restricted to the allowed blocks (f64 and c128, every group); trace_blocks programs
// against eager; the Krylov solvers on block-sparse maps against the dense matrix of the charge
// sector; and BlockTensor work inside one execution scope.
#include <gtest/gtest.h>

#include <functional>

#include "symmetric/symmetric_test_util.hpp"

namespace tenferro::symmetric {
namespace {

using namespace test_util;
using tenferro::testing::expect_error;

using BlockLoss = std::function<Tensor(const BlockTensor&)>;
using DenseLoss = std::function<Tensor(const Tensor&)>;

// The gradient of block_loss with respect to every allowed block of x0 (a filled leaf) against
// the dense gradient of dense_loss at x0.to_dense(), masked to the allowed blocks.
void check_grad(const BlockTensor& x0, const BlockLoss& block_loss, const DenseLoss& dense_loss,
                double tol, const std::string& what) {
  BlockTensor x = x0.filled().detach();
  x.requires_grad_();
  EXPECT_TRUE(x.requires_grad()) << what;
  const Tensor loss = block_loss(x);
  ASSERT_EQ(loss.numel(), 1) << what;
  const Tensor dense = x0.to_dense();
  const Tensor dense_value = dense_loss(dense);
  EXPECT_NEAR(value(loss).real(), value(dense_value).real(),
              tol * (1 + std::abs(value(dense_value))))
      << what << ": loss values";
  backward(loss);
  const BlockTensor g = x.grad();
  ASSERT_TRUE(g.defined()) << what;
  ASSERT_EQ(g.rank(), x.rank()) << what;
  for (std::size_t i = 0; i < x.rank(); ++i) EXPECT_TRUE(g.leg(i) == x.leg(i)) << what;
  EXPECT_EQ(norm_flux(g.group(), g.flux()), norm_flux(x.group(), x.flux())) << what;
  const std::vector<Tensor> dg = tenferro::grad(
      [&dense_loss](std::span<const Tensor> in) { return dense_loss(in[0]); }, {dense});
  const Tensor want = mul(dg[0], allowed_mask(x.group(), x.legs(), x.flux(), dg[0].dtype()));
  const Tensor got = g.to_dense();
  EXPECT_LE(max_abs_diff(got, want), tol * (1 + max_abs(want))) << what << ": gradient";
  // The documented projection gives the same reference.
  const BlockTensor projected = BlockTensor::from_dense(dg[0], x.legs(), x.flux(), 1e300);
  EXPECT_LE(max_abs_diff(got, projected.to_dense()), tol * (1 + max_abs(want))) << what;
}

class GradByGroup : public ::testing::TestWithParam<GroupDtype> {
 protected:
  const GroupCase& gc() const { return group_case(std::get<0>(GetParam())); }
  DType dt() const { return std::get<1>(GetParam()); }
  Charge id() const { return gc().group.identity(); }
  Leg leg(std::uint64_t seed, Direction d = Direction::out) const {
    return sample_leg(gc(), seed, d);
  }
};

TEST_P(GradByGroup, TensordotNormAndInner) {
  const Leg a = leg(1), b = leg(2), c = leg(3), d = leg(4);
  const BlockTensor A = BlockTensor::randn({a, b, c}, 1, gc().flux, dt());
  const BlockTensor B = BlockTensor::randn({c.dual(), d}, 2, id(), dt());
  const Tensor Bd = B.to_dense();
  check_grad(
      A, [&](const BlockTensor& x) { return norm(tensordot(x, B, {2}, {0})); },
      [&](const Tensor& x) { return tenferro::norm(tenferro::tensordot(x, Bd, {2}, {0})); }, 1e-10,
      "norm(tensordot(A, B))");
  // The leaf on the right, and Re<C, A . B>.
  const BlockTensor C = BlockTensor::randn({a, b, d}, 3, gc().flux, dt());
  const Tensor Ad = A.to_dense(), Cd = C.to_dense();
  check_grad(
      B, [&](const BlockTensor& y) { return real(inner(C, tensordot(A, y, {2}, {0}))); },
      [&](const Tensor& y) {
        return real(sum(mul(tenferro::conj(Cd), tenferro::tensordot(Ad, y, {2}, {0}))));
      },
      1e-10, "Re<C, A B> wrt B");
  // Full contraction to a rank-0 tensor, the leaf on both sides.
  check_grad(
      A,
      [&](const BlockTensor& x) {
        return real(scalar(tensordot(x, conj(x), {0, 1, 2}, {0, 1, 2})));
      },
      [&](const Tensor& x) { return real(sum(mul(x, tenferro::conj(x)))); }, 1e-10, "|A|^2");
}

TEST_P(GradByGroup, LinearOpsPermuteConjTraceScaleLeg) {
  const Leg a = leg(5), b = leg(6);
  const BlockTensor A = BlockTensor::randn({a, b, a.dual()}, 4, id(), dt());
  const BlockTensor A2 = BlockTensor::randn({a, b, a.dual()}, 5, id(), dt());
  const Tensor A2d = A2.to_dense();
  const Scalar alpha = dt() == DType::c128 ? Scalar(0.5, 1.0) : Scalar(-1.5);
  check_grad(
      A,
      [&](const BlockTensor& x) {
        return norm(axpy(alpha, x, sub(scale(conj(conj(x)), Scalar(2.0)), A2)));
      },
      [&](const Tensor& x) {
        return tenferro::norm(
            tenferro::sub(tenferro::add(mul(x, alpha), mul(x, Scalar(2.0))), A2d));
      },
      1e-10, "axpy/scale/sub/conj");
  check_grad(
      A,
      [&](const BlockTensor& x) {
        return real(inner(permute(A2, {2, 0, 1}), permute(x, {2, 0, 1})));
      },
      [&](const Tensor& x) { return real(sum(mul(tenferro::conj(A2d), x))); }, 1e-10,
      "inner of permuted");
  check_grad(
      A, [&](const BlockTensor& x) { return norm(trace(x, {0}, {2})); },
      [&](const Tensor& x) { return tenferro::norm(tenferro::einsum("iji->j", {x})); }, 1e-10,
      "norm(partial trace)");
  // scale_leg on the leaf's middle leg.
  std::vector<Tensor> w;
  std::vector<Tensor> parts;
  for (std::size_t s = 0; s < b.num_sectors(); ++s) {
    w.push_back(randn({b.sector_dim(s)}, 50 + s));
    parts.push_back(w.back());
  }
  const Tensor wfull = concatenate(std::span<const Tensor>(parts)).reshape({1, b.dim(), 1});
  check_grad(
      A, [&](const BlockTensor& x) { return norm(scale_leg(x, 1, w)); },
      [&](const Tensor& x) { return tenferro::norm(mul(x, wfull)); }, 1e-10, "norm(scale_leg)");
}

TEST_P(GradByGroup, ThroughFuseSplitAndEinsum) {
  const Leg x = leg(1), y = leg(2), z = leg(3, Direction::in), w = leg(4);
  const BlockTensor A = BlockTensor::randn({x, y, z}, 6, gc().flux, dt());
  const BlockTensor B = BlockTensor::randn({y.dual(), z.dual(), w}, 7, id(), dt());
  const Tensor Bd = B.to_dense();
  check_grad(
      A,
      [&](const BlockTensor& a) {
        return norm(tensordot(fuse(a, 1, 3), fuse(B, 0, 2, Direction::in), {1}, {0}));
      },
      [&](const Tensor& a) {
        return tenferro::norm(tenferro::tensordot(a, Bd, {1, 2}, {0, 1}));
      },
      1e-10, "through fused legs");
  check_grad(
      A, [&](const BlockTensor& a) { return norm(split(scale(fuse(a, 0, 2), Scalar(3.0)), 0)); },
      [&](const Tensor& a) { return tenferro::norm(mul(a, Scalar(3.0))); }, 1e-10, "split(fuse)");
  // einsum chain with the leaf in the middle.
  const Leg p = leg(11), q = leg(12), u = leg(13), v = leg(14), r = leg(15);
  const BlockTensor L = BlockTensor::randn({p, u}, 8, id(), dt());
  const BlockTensor M = BlockTensor::randn({u.dual(), q, v}, 9, gc().flux, dt());
  const BlockTensor R = BlockTensor::randn({v.dual(), r}, 10, id(), dt());
  const Tensor Ld = L.to_dense(), Rd = R.to_dense();
  check_grad(
      M,
      [&](const BlockTensor& m) {
        return norm(einsum("ab,bcd,de->ace", {L, m, R}));
      },
      [&](const Tensor& m) {
        return tenferro::norm(tenferro::einsum("ab,bcd,de->ace", {Ld, m, Rd}));
      },
      1e-10, "einsum chain");
}

TEST_P(GradByGroup, SumOfSingularValues) {
  // Rows (a, b), columns (a^, b^), flux 0: every charge block is square, so the dense matrix has
  // no structural zero singular values and sum(S) is smooth.
  const Leg a = leg(21), b = leg(22);
  const BlockTensor T = BlockTensor::randn({a, b, a.dual(), b.dual()}, 11, id(), dt());
  check_grad(
      T,
      [](const BlockTensor& t) {
        const BlockSvd s = svd(t, 2);
        Tensor acc = scalar_tensor(0.0);
        for (const Tensor& x : s.S) acc = tenferro::add(acc, sum(x));
        return acc;
      },
      [](const Tensor& t) { return sum(svdvals(matricize(t, 2))); }, 1e-9, "sum(S)");
  // Truncated: the sum of the kept values.
  check_grad(
      T,
      [](const BlockTensor& t) {
        const BlockSvd s = svd_truncated(t, 2, {.max_rank = 3});
        Tensor acc = scalar_tensor(0.0);
        for (const Tensor& x : s.S) acc = tenferro::add(acc, sum(x));
        return acc;
      },
      [](const Tensor& t) { return sum(tenferro::svd_truncated(matricize(t, 2), 3).S); }, 1e-9,
      "sum(S) truncated");
  // A gauge-invariant function of U and Vh: |U^H C Vh^H| ... through the reconstruction.
  const BlockTensor C = BlockTensor::randn({a, b, a.dual(), b.dual()}, 12, id(), dt());
  const Tensor Cd = C.to_dense();
  check_grad(
      T,
      [&](const BlockTensor& t) {
        const BlockSvd s = svd(t, 2);
        return real(inner(C, reconstruct(s.U, s.S, s.Vh)));
      },
      [&](const Tensor& t) { return real(sum(mul(tenferro::conj(Cd), t))); }, 1e-9,
      "Re<C, U S Vh>");
}

TEST_P(GradByGroup, EighEigenvalues) {
  const Leg a = leg(31), b = leg(32);
  const BlockTensor A = BlockTensor::randn({a, b, a.dual(), b.dual()}, 13, id(), dt());
  // H = A + A^H as a matrix (rows a, b).
  check_grad(
      A,
      [](const BlockTensor& x) {
        const BlockTensor h = add(x, permute(conj(x), {2, 3, 0, 1}));
        const BlockEigh e = eigh(h, 2);
        Tensor acc = scalar_tensor(0.0);
        for (const Tensor& w : e.eigenvalues) acc = tenferro::add(acc, sum(mul(mul(w, w), w)));
        return acc;
      },
      [](const Tensor& x) {
        const Tensor h = tenferro::add(x, tenferro::conj(tenferro::permute(x, {2, 3, 0, 1})));
        const Tensor w = tenferro::eigh(matricize(h, 2)).eigenvalues;
        return sum(mul(mul(w, w), w));
      },
      1e-9, "sum(w^3)");
}

TEST(SymmetricGrad, ScaleByATensorAndScaleLegWeights) {
  const GroupCase& gc = group_case(0);
  const BlockTensor t =
      BlockTensor::randn({sample_leg(gc, 1), sample_leg(gc, 2, Direction::in)}, 1, {0});
  const Tensor d = t.to_dense();
  Tensor alpha = scalar_tensor(0.7).requires_grad_();
  backward(norm(scale(t, alpha)));
  ASSERT_TRUE(alpha.grad().defined());
  Tensor alpha_d = scalar_tensor(0.7);
  const Tensor want = tenferro::grad(
      [&](std::span<const Tensor> in) { return tenferro::norm(mul(d, in[0])); }, {alpha_d})[0];
  EXPECT_NEAR(value(alpha.grad()).real(), value(want).real(), 1e-12);
  // Gradients of the per-sector weights of scale_leg.
  const Leg& l = t.leg(1);
  std::vector<Tensor> w;
  for (std::size_t s = 0; s < l.num_sectors(); ++s)
    w.push_back(randn({l.sector_dim(s)}, 10 + s).requires_grad_());
  backward(norm(scale_leg(t, 1, w)));
  std::vector<Tensor> parts;
  for (const Tensor& x : w) parts.push_back(detach(x));
  const Tensor wd = concatenate(std::span<const Tensor>(parts));
  const Tensor gw = tenferro::grad(
      [&](std::span<const Tensor> in) {
        return tenferro::norm(mul(d, in[0].reshape({1, l.dim()})));
      },
      {wd})[0];
  for (std::size_t s = 0; s < l.num_sectors(); ++s) {
    ASSERT_TRUE(w[s].grad().defined()) << s;
    expect_near(w[s].grad(), gw.slice(0, l.offset(s), l.offset(s) + l.sector_dim(s)), 1e-12,
                "weight grad, sector " + std::to_string(s));
  }
}

TEST_P(GradByGroup, ForwardModeMatchesDense) {
  // jvp of a function of the blocks (assembled with from_blocks) against jvp of the dense loss.
  const Leg a = leg(1), b = leg(2), c = leg(3), d = leg(4);
  const std::vector<Leg> legs{a, b, c};
  const BlockTensor A = BlockTensor::randn(legs, 1, gc().flux, dt());
  const BlockTensor B = BlockTensor::randn({c.dual(), d}, 2, id(), dt());
  const Tensor Bd = B.to_dense();
  const std::vector<BlockKey> keys = A.allowed_keys();
  std::vector<Tensor> primals, tangents;
  std::map<BlockKey, Tensor> tangent_blocks;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    primals.push_back(A.block(keys[i]));
    tangents.push_back(randn(key_shape(legs, keys[i]), 200 + i, dt()));
    tangent_blocks[keys[i]] = tangents.back();
  }
  const Charge flux = gc().flux;
  const DType dtype = dt();
  const JvpResult r = jvp(
      [&](std::span<const Tensor> in) {
        std::map<BlockKey, Tensor> m;
        for (std::size_t i = 0; i < keys.size(); ++i) m[keys[i]] = in[i];
        return norm(tensordot(BlockTensor::from_blocks(legs, flux, m, dtype), B, {2}, {0}));
      },
      std::span<const Tensor>(primals), std::span<const Tensor>(tangents));
  const Tensor dense_tangent =
      BlockTensor::from_blocks(legs, flux, tangent_blocks, dt()).to_dense();
  const JvpResult rd = jvp(
      [&](std::span<const Tensor> in) {
        return tenferro::norm(tenferro::tensordot(in[0], Bd, {2}, {0}));
      },
      {A.to_dense()}, {dense_tangent});
  ASSERT_EQ(r.tangents.size(), 1u);
  EXPECT_NEAR(value(r.outputs[0]).real(), value(rd.outputs[0]).real(), 1e-10);
  EXPECT_NEAR(value(r.tangents[0]).real(), value(rd.tangents[0]).real(), 1e-10);
}

TEST_P(GradByGroup, ThroughToDenseAndFromDense) {
  const Leg a = leg(1), b = leg(2), c = leg(3, Direction::in);
  const std::vector<Leg> legs{a, b, c};
  const BlockTensor A = BlockTensor::randn(legs, 1, gc().flux, dt());
  const Tensor W = randn(leg_dims(legs), 2, dt());
  // A block loss written on to_dense.
  check_grad(
      A, [&](const BlockTensor& x) { return tenferro::norm(mul(x.to_dense(), W)); },
      [&](const Tensor& x) { return tenferro::norm(mul(x, W)); }, 1e-10, "through to_dense");
  // A dense leaf entering through from_dense: its gradient is the block gradient, zero outside.
  const BlockTensor B = BlockTensor::randn({c.dual(), a}, 3, id(), dt());
  const Tensor Bd = B.to_dense();
  const Tensor D = A.to_dense();
  const Tensor g = tenferro::grad(
      [&](std::span<const Tensor> in) {
        return norm(tensordot(BlockTensor::from_dense(in[0], legs, gc().flux), B, {2}, {0}));
      },
      {D})[0];
  const Tensor want = tenferro::grad(
      [&](std::span<const Tensor> in) {
        return tenferro::norm(tenferro::tensordot(in[0], Bd, {2}, {0}));
      },
      {D})[0];
  expect_near(g, mul(want, allowed_mask(gc().group, legs, gc().flux, want.dtype())), 1e-10,
              "through from_dense");
}

TEST_P(GradByGroup, PartiallyStoredLeafGetsZeroGradientElsewhere) {
  // A leaf storing only some allowed blocks: the gradient of the others reads as zero.
  const Leg a = leg(1), b = leg(2), c = leg(3);
  const std::vector<Leg> legs{a, b, c};
  const std::vector<BlockKey> keys = conserving_keys(gc().group, legs, gc().flux);
  std::map<BlockKey, Tensor> blocks;
  blocks[keys.front()] = randn(key_shape(legs, keys.front()), 1, dt());
  BlockTensor x = BlockTensor::from_blocks(legs, gc().flux, blocks, dt());
  x.requires_grad_();
  const BlockTensor other = BlockTensor::randn(legs, 2, gc().flux, dt());
  backward(real(inner(other, x)));
  const BlockTensor g = x.grad();
  // d Re<o, x> / dx = o on the stored block, zero elsewhere.
  expect_near(g.to_dense(), place(legs, keys.front(), other.block(keys.front())), 1e-14,
              "partial leaf gradient");
}

INSTANTIATE_TEST_SUITE_P(Groups, GradByGroup, all_groups_and_dtypes(), group_dt_label);

// ---- Traced programs ----

class TraceByGroup : public ::testing::TestWithParam<GroupDtype> {
 protected:
  const GroupCase& gc() const { return group_case(std::get<0>(GetParam())); }
  DType dt() const { return std::get<1>(GetParam()); }
  Charge id() const { return gc().group.identity(); }
};

TEST_P(TraceByGroup, ProgramRunMatchesEagerForTwoInputSets) {
  const Leg a = sample_leg(gc(), 1), b = sample_leg(gc(), 2), c = sample_leg(gc(), 3),
            d = sample_leg(gc(), 4);
  const BlockFn f = [](std::span<const BlockTensor> in) -> std::vector<BlockTensor> {
    const BlockTensor s = add(tensordot(in[0], in[1], {2}, {0}), in[2]);
    return {s, scale(s, norm(s)), trace(tensordot(s, conj(s), {1, 2}, {1, 2}), {0}, {1})};
  };
  const auto inputs = [&](std::uint64_t seed) {
    return std::vector<BlockTensor>{BlockTensor::randn({a, b, c}, seed, gc().flux, dt()),
                                    BlockTensor::randn({c.dual(), d}, seed + 1, id(), dt()),
                                    BlockTensor::randn({a, b, d}, seed + 2, gc().flux, dt())};
  };
  const std::vector<BlockTensor> ex = inputs(1);
  const BlockProgram prog = trace_blocks(f, ex);
  ASSERT_EQ(prog.input_structures.size(), 3u);
  ASSERT_EQ(prog.output_structures.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < ex[i].rank(); ++j)
      EXPECT_TRUE(prog.input_structures[i].leg(j) == ex[i].leg(j));
  std::size_t n_blocks = 0;
  for (const BlockTensor& t : ex) n_blocks += t.allowed_keys().size();
  EXPECT_EQ(prog.flatten_inputs(ex).size(), n_blocks);
  Runtime rt;
  for (std::uint64_t seed : {1u, 100u}) {
    const std::vector<BlockTensor> in = inputs(seed);
    const std::vector<BlockTensor> eager = f(in);
    const std::vector<BlockTensor> got = prog.run(rt, in);
    ASSERT_EQ(got.size(), eager.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::string what = "seed " + std::to_string(seed) + " output " + std::to_string(i);
      ASSERT_EQ(got[i].rank(), eager[i].rank()) << what;
      for (std::size_t j = 0; j < got[i].rank(); ++j)
        EXPECT_TRUE(got[i].leg(j) == eager[i].leg(j)) << what;
      EXPECT_TRUE(got[i].group() == gc().group) << what << ": " << got[i].group().to_string();
      EXPECT_EQ(norm_flux(gc().group, got[i].flux()), norm_flux(gc().group, eager[i].flux()))
          << what;
      const Tensor g = got[i].rank() == 0 ? scalar(got[i]) : got[i].to_dense();
      const Tensor e = eager[i].rank() == 0 ? scalar(eager[i]) : eager[i].to_dense();
      expect_near(g, e, 1e-11, what);
    }
    // The program called directly on the flattened blocks gives the same.
    const std::vector<Tensor> flat = prog.program(prog.flatten_inputs(in));
    const std::vector<BlockTensor> direct = prog.unflatten_outputs(flat);
    ASSERT_EQ(direct.size(), eager.size());
    expect_near(direct[0].to_dense(), eager[0].to_dense(), 1e-11, "direct program call");
  }
  // Inputs of other legs.
  const std::vector<BlockTensor> wrong{BlockTensor::randn({a, b, c.dual()}, 1, gc().flux, dt()),
                                       ex[1], ex[2]};
  expect_error(ErrorKind::InvalidArgument, [&] { (void)prog.flatten_inputs(wrong); });
  expect_error(ErrorKind::InvalidArgument, [&] { (void)prog.run(rt, wrong); });
}

TEST_P(TraceByGroup, TracedSvdReconstructs) {
  const Leg a = sample_leg(gc(), 1), b = sample_leg(gc(), 2),
            c = sample_leg(gc(), 3, Direction::in);
  const BlockFn f = [](std::span<const BlockTensor> in) -> std::vector<BlockTensor> {
    const BlockSvd s = svd(in[0], 1);
    const BlockQr q = qr(in[0], 2);
    return {reconstruct(s.U, s.S, s.Vh), tensordot(q.Q, q.R, {2}, {0})};
  };
  const std::vector<BlockTensor> ex{BlockTensor::randn({a, b, c}, 3, gc().flux, dt())};
  const BlockProgram prog = trace_blocks(f, ex);
  Runtime rt;
  for (std::uint64_t seed : {3u, 4u}) {
    const std::vector<BlockTensor> in{BlockTensor::randn({a, b, c}, seed, gc().flux, dt())};
    const std::vector<BlockTensor> out = prog.run(rt, in);
    ASSERT_EQ(out.size(), 2u);
    expect_near(out[0].to_dense(), in[0].to_dense(), 1e-10, "traced svd");
    expect_near(out[1].to_dense(), in[0].to_dense(), 1e-10, "traced qr");
  }
}

INSTANTIATE_TEST_SUITE_P(Groups, TraceByGroup, all_groups_and_dtypes(), group_dt_label);

TEST(SymmetricTrace, GradientProgramOfATracedFunctionMatchesEagerBackward) {
  const GroupCase& gc = group_case(3);  // U(1) x Z2
  const Leg a = sample_leg(gc, 1), b = sample_leg(gc, 2), c = sample_leg(gc, 3);
  const BlockFn f = [](std::span<const BlockTensor> in) -> std::vector<BlockTensor> {
    const BlockTensor s = tensordot(in[0], in[1], {2}, {0});
    return {tensordot(s, conj(s), {0, 1, 2}, {0, 1, 2})};  // |A B|^2, rank 0
  };
  const std::vector<BlockTensor> in{BlockTensor::randn({a, b, c}, 1, gc.flux),
                                    BlockTensor::randn({c.dual(), a}, 2, gc.group.identity())};
  const BlockProgram prog = trace_blocks(f, in);
  ASSERT_EQ(prog.output_structures.size(), 1u);
  ASSERT_EQ(prog.output_structures[0].rank(), 0u);
  const Program g = tenferro::grad(prog.program);
  Runtime rt;
  const PreparedProgram plan = rt.prepare(g);
  const std::vector<Tensor> flat = prog.flatten_inputs(in);
  const std::vector<Tensor> traced = rt.run(plan, flat);
  // Eager: backward through the same function.
  std::vector<BlockTensor> leaves{in[0].filled().detach(), in[1].filled().detach()};
  leaves[0].requires_grad_();
  leaves[1].requires_grad_();
  backward(scalar(f(leaves)[0]));
  const std::vector<BlockTensor> eager_grads{leaves[0].grad(), leaves[1].grad()};
  const std::vector<Tensor> eager_flat = prog.flatten_inputs(eager_grads);
  ASSERT_EQ(traced.size(), eager_flat.size());
  for (std::size_t i = 0; i < traced.size(); ++i)
    expect_near(traced[i], eager_flat[i], 1e-10, "block " + std::to_string(i));
}

// ---- Krylov solvers ----

struct SectorProblem {
  Leg l;
  BlockTensor H;  // legs (l, l, l^, l^), Hermitian as a matrix, flux 0
  Tensor dense_rows(const Charge& flux) const {
    // The flat indices of the allowed entries of a (l, l) vector of this flux.
    const Tensor mask = allowed_mask(l.group(), {l, l}, flux).reshape({l.dim() * l.dim()});
    std::vector<std::int64_t> idx;
    const std::vector<double> m = to_doubles(mask);
    for (std::size_t i = 0; i < m.size(); ++i)
      if (m[i] != 0) idx.push_back(static_cast<std::int64_t>(i));
    return from_vector<std::int64_t>(idx, {static_cast<std::int64_t>(idx.size())});
  }
  // The dense matrix of the map restricted to the vectors of this flux.
  static Tensor restrict(const Tensor& hd, const Tensor& rows) {
    return index_select(index_select(matricize(hd, 2), 0, rows), 1, rows);
  }
  Tensor restricted(const Charge& flux) const { return restrict(H.to_dense(), dense_rows(flux)); }
};

SectorProblem sector_problem(DType dt, bool positive) {
  const Leg l(Group::u1(), {{{0}, 3}, {{1}, 3}, {{-1}, 3}, {{2}, 2}});
  const Leg k(Group::u1(), {{{0}, 4}, {{1}, 3}, {{-1}, 3}});
  const BlockTensor X = BlockTensor::randn({l, l, k}, 1, {0}, dt);
  BlockTensor H = tensordot(X, conj(X), {2}, {2});
  if (!positive) {
    const BlockTensor Y = BlockTensor::randn({l, l, k}, 2, {0}, dt);
    H = sub(H, tensordot(Y, conj(Y), {2}, {2}));
  }
  return {l, H};
}

class KrylovByDtype : public ::testing::TestWithParam<DType> {};

TEST_P(KrylovByDtype, EigshFindsTheLowestEigenvaluesOfTheSector) {
  const DType dt = GetParam();
  const SectorProblem p = sector_problem(dt, false);
  const BlockTensor H = p.H;
  const BlockMap f = [H](const BlockTensor& x) { return tensordot(H, x, {2, 3}, {0, 1}); };
  for (const Charge& flux : {Charge{0}, Charge{1}}) {
    const std::string what = "flux " + std::to_string(flux[0]);
    const std::vector<double> w = to_doubles(eigvalsh(p.restricted(flux)));
    const BlockTensor x0 = BlockTensor::randn({p.l, p.l}, 5, flux, dt);
    const BlockEigshResult r = eigsh(f, x0, 2);
    const std::vector<double> got = to_doubles(r.eigenvalues);
    ASSERT_EQ(got.size(), 2u) << what;
    EXPECT_NEAR(got[0], w[0], 1e-8) << what;
    EXPECT_NEAR(got[1], w[1], 1e-8) << what;
    ASSERT_EQ(r.eigenvectors.size(), 2u) << what;
    for (std::size_t i = 0; i < 2; ++i) {
      const BlockTensor& v = r.eigenvectors[i];
      ASSERT_EQ(v.rank(), 2u);
      EXPECT_TRUE(v.leg(0) == p.l && v.leg(1) == p.l) << what;
      EXPECT_EQ(norm_flux(v.group(), v.flux()), flux) << what;
      EXPECT_NEAR(value(norm(v)).real(), 1.0, 1e-8) << what;
      const BlockTensor res = sub(f(v), scale(v, Scalar(got[i])));
      EXPECT_LT(value(norm(res)).real(), 1e-7) << what << " pair " << i;
    }
    EXPECT_EQ(r.info.converged, 2) << what;
  }
  // Davidson gives the same values.
  EigshOptions o;
  o.method = EigshMethod::davidson;
  const BlockEigshResult dv = eigsh(f, BlockTensor::randn({p.l, p.l}, 8, {0}, dt), 1, o);
  EXPECT_NEAR(to_doubles(dv.eigenvalues)[0], to_doubles(eigvalsh(p.restricted({0})))[0], 1e-8);
  // A map that changes the legs.
  const BlockMap bad = [](const BlockTensor& x) { return conj(x); };
  expect_error(ErrorKind::InvalidArgument, [&] {
    (void)eigsh(bad, BlockTensor::randn({p.l, p.l}, 5, {0}, dt), 1);
  });
}

TEST_P(KrylovByDtype, EigshEigenvalueGradientWithRespectToTheMap) {
  const DType dt = GetParam();
  const SectorProblem p = sector_problem(dt, false);
  const Tensor rows = p.dense_rows({0});
  const BlockTensor x0 = BlockTensor::randn({p.l, p.l}, 6, {0}, dt);
  // H itself is the leaf (its values are Hermitian); the loss is the lowest eigenvalue.
  check_grad(
      p.H,
      [&](const BlockTensor& h) {
        const BlockMap f = [h](const BlockTensor& x) { return tensordot(h, x, {2, 3}, {0, 1}); };
        return eigsh(f, x0, 1).eigenvalues.slice(0, 0, 1).reshape({});
      },
      [&](const Tensor& hd) {
        // eigh reads one triangle: symmetrize so that the gradient is the full v v^H.
        const Tensor hs = SectorProblem::restrict(hd, rows);
        const Tensor sym = mul(tenferro::add(hs, tenferro::conj(hs.transpose())), Scalar(0.5));
        return tenferro::eigh(sym).eigenvalues.slice(0, 0, 1).reshape({});
      },
      1e-7, "d lambda_0 / d H");
}

TEST_P(KrylovByDtype, LinsolveAndExponentiate) {
  const DType dt = GetParam();
  const SectorProblem p = sector_problem(dt, true);
  const BlockTensor H = p.H;
  const BlockMap f = [H](const BlockTensor& x) {
    return axpy(Scalar(2.0), x, tensordot(H, x, {2, 3}, {0, 1}));
  };
  const Tensor rows = p.dense_rows({1});
  const Tensor hs = p.restricted({1});
  const std::int64_t n = hs.shape()[0];
  const Tensor as = tenferro::add(hs, mul(eye(n, dt), Scalar(2.0)));
  const BlockTensor b = BlockTensor::randn({p.l, p.l}, 7, {1}, dt);
  const Tensor bs = index_select(b.to_dense().reshape({p.l.dim() * p.l.dim()}), 0, rows);
  const BlockLinsolveResult r = linsolve(f, b);
  EXPECT_EQ(norm_flux(r.x.group(), r.x.flux()), Charge{1});
  const BlockTensor res = sub(f(r.x), b);
  EXPECT_LT(value(norm(res)).real() / value(norm(b)).real(), 1e-8);
  const Tensor xs = index_select(r.x.to_dense().reshape({p.l.dim() * p.l.dim()}), 0, rows);
  expect_near(xs, tenferro::solve(as, bs.reshape({n, 1})).reshape({n}), 1e-7, "linsolve vs solve");
  // Gradient of |x| with respect to b.
  check_grad(
      b, [&](const BlockTensor& bb) { return norm(linsolve(f, bb).x); },
      [&](const Tensor& bd) {
        const Tensor sel = index_select(bd.reshape({p.l.dim() * p.l.dim()}), 0, rows);
        return tenferro::norm(tenferro::solve(as, sel.reshape({n, 1})));
      },
      1e-7, "d|x|/db");
  // exp(-0.1 f) b against matrix_exp on the sector.
  const BlockExponentiateResult e = exponentiate(f, Scalar(-0.1), b);
  const Tensor es = index_select(e.x.to_dense().reshape({p.l.dim() * p.l.dim()}), 0, rows);
  const Tensor want = matmul(matrix_exp(mul(as, Scalar(-0.1))), bs.reshape({n, 1})).reshape({n});
  expect_near(es, want, 1e-8, "exponentiate vs matrix_exp");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, KrylovByDtype, ::testing::Values(DType::f64, DType::c128),
                         [](const ::testing::TestParamInfo<DType>& i) {
                           return dt_label(i.param);
                         });

// ---- Execution scope ----

TEST(SymmetricExecutionScope, BlockOpsEnterTheExecutorOnce) {
  const GroupCase& gc = group_case(0);
  const Leg a = sample_leg(gc, 1), b = sample_leg(gc, 2), c = sample_leg(gc, 3);
  // Eager reference on the default backend.
  const BlockTensor A0 = BlockTensor::randn({a, b, c}, 1, {1});
  const BlockTensor B0 = BlockTensor::randn({c.dual(), a}, 2, {0});
  const double want = value(norm(tensordot(A0, B0, {2}, {0}))).real();
  const double want_s = all_values(svd(A0, 1).S, true).front();

  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  const auto before = cpu.executor_entries();
  const auto [got, got_s, grad_norm] = cpu.with_execution_scope([&] {
    BlockTensor A = BlockTensor::randn({a, b, c}, 1, {1});
    const BlockTensor B = BlockTensor::randn({c.dual(), a}, 2, {0});
    A.requires_grad_();
    const Tensor n = norm(tensordot(A, B, {2}, {0}));
    backward(n);
    const BlockSvd s = svd(A.detach(), 1);
    return std::tuple<double, double, double>(value(n).real(), all_values(s.S, true).front(),
                                              value(norm(A.grad())).real());
  });
  EXPECT_EQ(cpu.executor_entries() - before, 1u);
  EXPECT_NEAR(got, want, 1e-12);
  // A traced block program run inside a scope: still one entry.
  const BlockFn f = [](std::span<const BlockTensor> in) -> std::vector<BlockTensor> {
    return {tensordot(in[0], in[1], {2}, {0})};
  };
  const std::vector<BlockTensor> in{A0, B0};
  const BlockProgram prog = trace_blocks(f, in);
  Runtime rt(cpu);
  const auto before2 = cpu.executor_entries();
  const double traced =
      cpu.with_execution_scope([&] { return value(norm(prog.run(rt, in)[0])).real(); });
  EXPECT_EQ(cpu.executor_entries() - before2, 1u);
  EXPECT_NEAR(traced, want, 1e-12);
  EXPECT_NEAR(got_s, want_s, 1e-12);
  EXPECT_GT(grad_norm, 0.0);
}

TEST(SymmetricTrace, KeptPlanFollowsRuntimeEpochAndProgram) {
  // run(rt, inputs) keeps the plan of the last runtime; another runtime, a reconfigured one, a
  // replaced program and an explicitly prepared plan all give the eager values.
  const GroupCase& gc = group_case(0);
  const Leg a = sample_leg(gc, 1), b = sample_leg(gc, 2), c = sample_leg(gc, 3);
  const BlockFn f = [](std::span<const BlockTensor> in) -> std::vector<BlockTensor> {
    return {tensordot(in[0], in[1], {2}, {0})};
  };
  const std::vector<BlockTensor> in{BlockTensor::randn({a, b, c}, 1),
                                    BlockTensor::randn({c.dual(), a}, 2)};
  const Tensor want = f(in)[0].to_dense();
  BlockProgram p = trace_blocks(f, in);
  Runtime r1, r2;
  for (int i = 0; i < 2; ++i) expect_near(p.run(r1, in)[0].to_dense(), want, 1e-13, "r1");
  expect_near(p.run(r2, in)[0].to_dense(), want, 1e-13, "r2");
  r1.reconfigure(CpuBackendOptions{.threads = 1});
  expect_near(p.run(r1, in)[0].to_dense(), want, 1e-13, "r1 after reconfigure");
  p.program = optimize(p.program);
  expect_near(p.run(r1, in)[0].to_dense(), want, 1e-13, "replaced program");
  const PreparedProgram plan = p.prepare(r2);
  expect_near(p.run(r2, plan, in)[0].to_dense(), want, 1e-13, "explicit plan");
}

}  // namespace
}  // namespace tenferro::symmetric
