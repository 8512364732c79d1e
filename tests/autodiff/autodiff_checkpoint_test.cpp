// checkpoint(f) (tenferro/custom_rules.hpp, docs/custom-rules.md): the same gradient as without
// it, f recomputed once per backward, and peak memory of an unrolled loop bounded by the carried
// states plus one step's intermediates, measured with the engine pool's peak counter.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>

#include "common/autodiff_fd.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;

namespace {

constexpr std::int64_t kChi = 32;

double max_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  return max(abs(a - b)).item<double>();
}

// One step of an RG-like loop on a chi x chi state: six chi x chi intermediates.
std::vector<Tensor> step(std::span<const Tensor> in) {
  const Tensor &x = in[0], &a = in[1];
  Tensor y = matmul(a, x);
  Tensor z = tanh(y);
  Tensor w = z * x;
  Tensor u = sin(w);
  Tensor v = matmul(u, a);
  return {0.5 * v + 0.5 * z};
}

// sum of the state after `steps` steps; each step checkpointed or not.
Tensor unrolled(const Tensor& x0, const Tensor& a, int steps, bool ckpt) {
  MultiFn s = ckpt ? checkpoint(step) : MultiFn(step);
  Tensor x = x0;
  for (int k = 0; k < steps; ++k) x = s(std::vector<Tensor>{x, a})[0];
  return sum(x);
}

struct Measured {
  Tensor gx, ga;
  std::size_t peak = 0;  // bytes above what was outstanding before the forward pass
};

// Forward and backward on the tape, all ops on `cpu`, with the pool's peak restarted first.
Measured measure(const CpuBackend& cpu, int steps, bool ckpt) {
  BackendGuard use(cpu);
  Tensor x0 = randn({kChi, kChi}, 1) * 0.3, a = randn({kChi, kChi}, 2) * 0.3;
  x0.requires_grad_();
  a.requires_grad_();
  const std::size_t base = cpu.buffer_pool_stats().outstanding_bytes;
  cpu.reset_peak_memory();
  backward(unrolled(x0, a, steps, ckpt));
  Measured r{x0.grad(), a.grad(), cpu.buffer_pool_stats().peak_outstanding_bytes - base};
  return r;
}

}  // namespace

TEST(Checkpoint, SameGradientAsWithoutOnTheTapeAndFunctionally) {
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  Measured plain = measure(cpu, 30, false), ckpt = measure(cpu, 30, true);
  EXPECT_LE(max_diff(plain.gx, ckpt.gx), 1e-12);
  EXPECT_LE(max_diff(plain.ga, ckpt.ga), 1e-12);

  Tensor x0 = randn({kChi, kChi}, 3) * 0.3, a = randn({kChi, kChi}, 4) * 0.3;
  auto loss = [](bool c) {
    return [c](std::span<const Tensor> in) { return unrolled(in[0], in[1], 5, c); };
  };
  std::vector<Tensor> g0 = grad(loss(false), {x0, a}), g1 = grad(loss(true), {x0, a});
  EXPECT_LE(max_diff(g0[0], g1[0]), 1e-12);
  EXPECT_LE(max_diff(g0[1], g1[1]), 1e-12);
}

TEST(Checkpoint, RecomputesFOncePerBackwardAndNotInTheForwardPass) {
  std::atomic<int> calls{0};
  MultiFn f = checkpoint([&calls](std::span<const Tensor> x) {
    ++calls;
    return std::vector<Tensor>{sin(x[0]) * x[0]};
  });
  Tensor x = randn({5}, 5);
  x.requires_grad_();
  Tensor y = sum(f(std::vector<Tensor>{x})[0]);
  EXPECT_EQ(calls, 1);
  backward(y);
  EXPECT_EQ(calls, 2);
  Tensor xv = detach(x);
  EXPECT_LT(max_diff(x.grad(), cos(xv) * xv + sin(xv)), 1e-14);
  EXPECT_TRUE(
      adtest::check_vjp([&](std::span<const Tensor> in) { return f(in); }, {randn({2, 3}, 6)}));
}

TEST(Checkpoint, NestedCheckpointsAndForwardMode) {
  MultiFn inner = checkpoint(step);
  MultiFn outer = checkpoint([&inner](std::span<const Tensor> in) {
    std::vector<Tensor> y = inner(in);
    return inner(std::vector<Tensor>{y[0], in[1]});
  });
  Tensor x0 = randn({kChi, kChi}, 7) * 0.3, a = randn({kChi, kChi}, 8) * 0.3;
  auto twice = [](std::span<const Tensor> in) {
    Tensor y = step(in)[0];
    return step(std::vector<Tensor>{y, in[1]});
  };
  auto l0 = [&](std::span<const Tensor> in) { return sum(twice(in)[0]); };
  auto l1 = [&](std::span<const Tensor> in) { return sum(outer(in)[0]); };
  std::vector<Tensor> g0 = grad(l0, {x0, a}), g1 = grad(l1, {x0, a});
  EXPECT_LE(max_diff(g0[0], g1[0]), 1e-12);
  EXPECT_LE(max_diff(g0[1], g1[1]), 1e-12);
  // jvp runs f with tangents.
  Tensor dx = randn({kChi, kChi}, 9), da = randn({kChi, kChi}, 10);
  JvpResult j0 = jvp(MultiFn(twice), {x0, a}, {dx, da}), j1 = jvp(outer, {x0, a}, {dx, da});
  EXPECT_LE(max_diff(j0.tangents[0], j1.tangents[0]), 1e-12);
}

TEST(Checkpoint, TracedProgramGradientMatchesEager) {
  auto loss = [](std::span<const Tensor> in) { return unrolled(in[0], in[1], 3, true); };
  Program p = trace(loss, {ValueSpec{{kChi, kChi}}, ValueSpec{{kChi, kChi}}});
  Runtime rt(CpuBackend(CpuBackendOptions{.threads = 1}));
  Tensor x0 = randn({kChi, kChi}, 11) * 0.3, a = randn({kChi, kChi}, 12) * 0.3;
  std::vector<Tensor> g = rt.run(rt.prepare(grad(p)), {x0, a}), e = grad(loss, {x0, a});
  EXPECT_LE(max_diff(g[0], e[0]), 1e-12);
  EXPECT_LE(max_diff(g[1], e[1]), 1e-12);
}

// Not timed: memory. The tape keeps every op's outputs; with checkpoint it keeps only each
// step's output (the next step's input), and one step's intermediates live while that step's
// backward recomputes them. Numbers are printed for docs/custom-rules.md.
TEST(Checkpoint, PeakMemoryOfAnUnrolledLoopIsBounded) {
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  constexpr std::size_t kState = kChi * kChi * sizeof(double);  // 8 KiB, one pool class exactly
  const Measured one_plain =
      measure(cpu, 1, false);  // one step's intermediates, forward + backward
  const Measured plain10 = measure(cpu, 10, false), plain30 = measure(cpu, 30, false);
  const Measured ckpt10 = measure(cpu, 10, true), ckpt30 = measure(cpu, 30, true);
  std::printf(
      "chi=%lld state=%zu B: one step %zu B; plain 10/30 steps %zu / %zu B; "
      "checkpoint 10/30 steps %zu / %zu B\n",
      static_cast<long long>(kChi), kState, one_plain.peak, plain10.peak, plain30.peak, ckpt10.peak,
      ckpt30.peak);
  // The counter sees the tape's intermediates: without checkpoint the peak grows by several
  // states per step (20 more steps: at least 20 * 4 states).
  EXPECT_GE(plain30.peak - plain10.peak, 20 * 4 * kState);
  // With checkpoint it grows by the carried state only (one state per step, plus slack).
  EXPECT_LE(ckpt30.peak - ckpt10.peak, 20 * kState + 4 * kState);
  // And it is bounded by the carried states plus one step's forward + backward.
  EXPECT_LE(ckpt30.peak, 30 * kState + one_plain.peak + 4 * kState);
  EXPECT_LT(3 * ckpt30.peak, plain30.peak);
}

// An integer input (indices) is a constant of the recomputation, in every mode. Forward mode
// and second derivatives gave the integer input a zero tangent (jvp of fwd) or a cotangent (the
// residual cotangents of reverse over reverse) and raised DTypeMismatch.
TEST(Checkpoint, IntegerInputWorksInForwardModeAndAtSecondOrder) {
  auto f = [](std::span<const Tensor> in) {
    Tensor t = index_select(in[0], 0, in[1]);
    return std::vector<Tensor>{t * t * t};
  };
  MultiFn c = checkpoint(f);
  const Tensor idx = from_vector<std::int64_t>({0, 2, 2, 3}, {4});
  Tensor x = randn({4}, 21), v = randn({4}, 22);
  auto loss = [idx](const MultiFn& g) {
    return [&g, idx](std::span<const Tensor> in) {
      return sum(g(std::vector<Tensor>{in[0], idx})[0] * in[0]);
    };
  };
  MultiFn plain(f);
  auto grad_of = [&](const MultiFn& g) {
    return [&g, &loss](std::span<const Tensor> in) { return grad(loss(g), in)[0]; };
  };
  // first order (worked before), forward mode, forward over reverse, reverse over reverse
  EXPECT_LE(max_diff(grad(loss(c), {x})[0], grad(loss(plain), {x})[0]), 1e-12);
  EXPECT_LE(max_diff(jvp(loss(c), {x}, {v}).tangents[0], jvp(loss(plain), {x}, {v}).tangents[0]),
            1e-12);
  EXPECT_LE(max_diff(hvp(loss(c), {x}, {v})[0], hvp(loss(plain), {x}, {v})[0]), 1e-12);
  auto gv = [&](const MultiFn& g) {
    return [&](std::span<const Tensor> in) { return sum(grad_of(g)(in) * v); };
  };
  EXPECT_LE(max_diff(grad(gv(c), {x})[0], grad(gv(plain), {x})[0]), 1e-12);
  EXPECT_LE(max_diff(hessian(loss(c), {x})[0][0], hessian(loss(plain), {x})[0][0]), 1e-12);
  // the checkpoint called directly under jvp, with the integer input's tangent undefined
  JvpResult j0 = jvp(plain, {x, idx}, {v, Tensor()}), j1 = jvp(c, {x, idx}, {v, Tensor()});
  EXPECT_LE(max_diff(j0.tangents[0], j1.tangents[0]), 1e-12);
  // against finite differences: the Hessian-vector product
  EXPECT_TRUE(adtest::check_jvp(
      [&](std::span<const Tensor> in) { return std::vector<Tensor>{grad_of(c)(in)}; }, {x}));
}
