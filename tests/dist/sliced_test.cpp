// dist::sliced_einsum and dist::sliced_value_and_grad on 1, 2 and 3 ranks: values and gradients
// equal to the local einsum / value_and_grad, the same on every rank, one scope per rank, and
// mismatched calls failing together.
#include <cmath>

#include "common/networks.hpp"
#include "dist/dist_test.hpp"

namespace tenferro {
namespace {

using testing::expect_same_error_everywhere;
using testing::Network;
using testing::world;

double sixteenth_of_peak(const Network& n) {
  return std::floor(slice_plan(n.spec, n.shapes).unsliced_peak / 16);
}

ValueAndGrad local_value_and_grad(const std::string& spec, std::span<const Tensor> ops) {
  return value_and_grad(
      [&spec](std::span<const Tensor> x) {
        const Tensor c = einsum(spec, x);
        return testing::squared_norm(std::span<const Tensor>(&c, 1));
      },
      ops);
}

TEST(DistSliced, OwnedSlicesPartitionThePlan) {
  for (std::int64_t slices : {0, 1, 2, 7, 16}) {
    SlicePlan p;
    p.slices = slices;
    std::int64_t next = 0;
    for (int r = 0; r < 3; ++r) {
      const auto [first, last] = dist::owned_slices(p, r, 3);
      EXPECT_EQ(first, next);
      EXPECT_GE(last, first);
      EXPECT_LE(last - first, (slices + 2) / 3);
      next = last;
    }
    EXPECT_EQ(next, slices);
  }
  testing::expect_error(ErrorKind::InvalidArgument, [] { dist::owned_slices(SlicePlan{}, 3, 3); });
}

TEST(DistSliced, ValuesEqualLocalEinsumOnEveryRank) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps(), testing::grid3x3()})
    for (DType dtype : {DType::f64, DType::c128}) {
      SCOPED_TRACE(n.name + " " + std::string(dtype_name(dtype)));
      const std::vector<Tensor> ops = n.operands(dtype);
      const SliceOptions opt{.memory_limit = sixteenth_of_peak(n)};
      EXPECT_GE(slice_plan(n.spec, n.shapes, opt).slices, 16);
      const Tensor r = dist::sliced_einsum(world(), n.spec, ops, opt);
      EXPECT_EQ(r.dtype(), dtype);
      EXPECT_LT(testing::rel_diff(r, einsum(n.spec, ops)), 1e-11);
      EXPECT_TRUE(testing::bitwise_same_on_every_rank(r));
    }
}

TEST(DistSliced, GradientsEqualLocalGradOnEveryRank) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps(), testing::grid3x3()})
    for (DType dtype : {DType::f64, DType::c128}) {
      SCOPED_TRACE(n.name + " " + std::string(dtype_name(dtype)));
      const std::vector<Tensor> ops = n.operands(dtype);
      const ValueAndGrad got = dist::sliced_value_and_grad(
          world(), n.spec, ops, testing::squared_norm, {.memory_limit = sixteenth_of_peak(n)});
      const ValueAndGrad want = local_value_and_grad(n.spec, ops);
      EXPECT_LT(testing::rel_diff(got.value, want.value), 1e-11);
      EXPECT_TRUE(testing::bitwise_same_on_every_rank(got.value));
      ASSERT_EQ(got.grads.size(), ops.size());
      for (std::size_t k = 0; k < ops.size(); ++k) {
        EXPECT_LT(testing::rel_diff(got.grads[k], want.grads[k]), 1e-10) << "operand " << k;
        EXPECT_TRUE(testing::bitwise_same_on_every_rank(got.grads[k])) << "operand " << k;
      }
    }
}

TEST(DistSliced, SlicedOutputLabels) {
  const Tensor a = randn({6, 8}, 1, DType::c128), b = randn({8, 4}, 2, DType::c128);
  const SliceOptions opt{.memory_limit = 4};
  const Tensor r = dist::sliced_einsum(world(), "ab,bc->ac", {a, b}, opt);
  EXPECT_LT(testing::rel_diff(r, einsum("ab,bc->ac", a, b)), 1e-12);
  const ValueAndGrad g =
      dist::sliced_value_and_grad(world(), "ab,bc->ac", {a, b}, testing::squared_norm, opt);
  const ValueAndGrad want = local_value_and_grad("ab,bc->ac", std::vector<Tensor>{a, b});
  EXPECT_LT(testing::rel_diff(g.grads[0], want.grads[0]), 1e-11);
  EXPECT_LT(testing::rel_diff(g.grads[1], want.grads[1]), 1e-11);
}

TEST(DistSliced, RanksWithoutSlices) {
  const Network n = testing::ring8(3);
  const std::vector<Tensor> ops = n.operands(DType::f64);
  // One slice (no limit) and two slices: on 3 ranks, ranks 1-2 (or 2) contract nothing.
  for (std::int64_t min_slices : {1, 2}) {
    const SliceOptions opt{.min_slices = min_slices};
    const SlicePlan p = slice_plan(n.spec, n.shapes, opt);
    const auto [first, last] = dist::owned_slices(p, world().rank(), world().size());
    if (world().rank() >= p.slices) EXPECT_EQ(first, last);
    EXPECT_LT(
        testing::rel_diff(dist::sliced_einsum(world(), n.spec, ops, opt), einsum(n.spec, ops)),
        1e-12);
    const ValueAndGrad g = dist::sliced_value_and_grad(world(), n.spec, ops, {}, opt);
    const ValueAndGrad want =
        value_and_grad([&n](std::span<const Tensor> x) { return einsum(n.spec, x); },
                       std::span<const Tensor>(ops));
    for (std::size_t k = 0; k < ops.size(); ++k)
      EXPECT_LT(testing::rel_diff(g.grads[k], want.grads[k]), 1e-12);
  }
}

TEST(DistSliced, OneExecutionScopePerRank) {
  const Network n = testing::grid3x3();
  const std::vector<Tensor> ops = n.operands(DType::f64);
  CpuBackend cpu(CpuBackendOptions{.threads = 2});
  BackendGuard use(cpu);
  auto entries = [&](std::int64_t min_slices) {
    const std::uint64_t before = cpu.diagnostics().executor_entries;
    (void)dist::sliced_einsum(world(), n.spec, ops, {.min_slices = min_slices});
    return cpu.diagnostics().executor_entries - before;
  };
  EXPECT_EQ(entries(3 * world().size()), entries(48 * world().size()));
}

TEST(DistSliced, IntegerLabelsEqualTheLocalIntegerEinsum) {
  for (const Network& spec_form : {testing::ring8(), testing::mps_mpo_mps()}) {
    const testing::LabelNetwork n = testing::integer_form(spec_form);
    SCOPED_TRACE(n.name);
    const std::vector<Tensor> ops = n.operands(DType::c128);
    const SliceOptions opt{.memory_limit = sixteenth_of_peak(spec_form)};
    EXPECT_GE(dist::slice_plan(n.labels, n.output, n.shapes, opt).slices, 16);
    const Tensor r = dist::sliced_einsum(world(), ops, n.labels, n.output, opt);
    EXPECT_LT(testing::rel_diff(r, einsum(ops, n.labels, n.output)), 1e-11);
    EXPECT_TRUE(testing::bitwise_same_on_every_rank(r));
    const ValueAndGrad got =
        dist::sliced_value_and_grad(world(), ops, n.labels, n.output, testing::squared_norm, opt);
    const ValueAndGrad want = value_and_grad(
        [&n](std::span<const Tensor> x) {
          const Tensor c = einsum(x, n.labels, n.output);
          return testing::squared_norm(std::span<const Tensor>(&c, 1));
        },
        std::span<const Tensor>(ops));
    EXPECT_LT(testing::rel_diff(got.value, want.value), 1e-11);
    ASSERT_EQ(got.grads.size(), ops.size());
    for (std::size_t k = 0; k < ops.size(); ++k) {
      EXPECT_LT(testing::rel_diff(got.grads[k], want.grads[k]), 1e-10) << "operand " << k;
      EXPECT_TRUE(testing::bitwise_same_on_every_rank(got.grads[k])) << "operand " << k;
    }
  }
  // The initializer-list forms.
  const Tensor a = randn({6, 8}, 1), b = randn({8, 4}, 2);
  EXPECT_LT(testing::rel_diff(
                dist::sliced_einsum(world(), {a, b}, {{0, 1}, {1, 2}}, {0, 2}, {.memory_limit = 4}),
                einsum("ab,bc->ac", a, b)),
            1e-12);
  const ValueAndGrad g =
      dist::sliced_value_and_grad(world(), {a, a}, {{0, 1}, {0, 1}}, {}, {}, {.min_slices = 4});
  EXPECT_LT(testing::rel_diff(g.grads[0], a), 1e-14);  // d/dx0 of sum(x0 * x1) = x1
}

TEST(DistSliced, MoreThanAHundredLabelsOverTheRanks) {
  const testing::LabelNetwork n = testing::grid_labels(6, 20);
  ASSERT_GT(n.label_count(), 200u);
  const std::vector<Tensor> ops = n.operands(DType::f64);
  const SliceOptions opt{
      .memory_limit = std::floor(slice_plan(n.labels, n.output, n.shapes).unsliced_peak / 4),
      .min_slices = world().size()};
  const Tensor r = dist::sliced_einsum(world(), ops, n.labels, n.output, opt);
  EXPECT_LT(testing::rel_diff(r, einsum(ops, n.labels, n.output)), 1e-10);
  EXPECT_TRUE(testing::bitwise_same_on_every_rank(r));
}

TEST(DistSliced, MismatchedIntegerLabelsFailTogether) {
  if (world().size() < 2) GTEST_SKIP() << "needs two ranks";
  const bool odd = world().rank() == 1;
  const Tensor a = randn({4, 4}, 1), b = randn({4, 4}, 2);
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] {
        dist::sliced_einsum(world(), {a, b}, {{0, 1}, {1, 2}},
                            odd ? EinsumLabels{2, 0} : EinsumLabels{0, 2});
      },
      {"dist::sliced_einsum: the ranks disagree on the spec",
       "rank 1 has labels [[0, 1], [1, 2]] -> [2, 0]",
       "rank 0 has labels [[0, 1], [1, 2]] -> [0, 2]"},
      "labels differ");
  // One form on one rank, the other form on another: still one message everywhere.
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] {
        if (odd)
          dist::sliced_value_and_grad(world(), "ab,ab->", {a, b}, {}, {});
        else
          dist::sliced_value_and_grad(world(), {a, b}, {{0, 1}, {0, 1}}, {}, {}, {});
      },
      {"disagree on the spec", "rank 1 has spec 'ab,ab->'", "rank 0 has labels"}, "forms differ");
  // Invalid labels on every rank alike: einsum's error, raised on rank 0 first.
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] {
        dist::sliced_einsum(world(), {a, b}, {{0, -1}, {1, 2}}, {0, 2});
      },
      {"dist::sliced_einsum: einsum: label -1 in operand 0 entry 1 is negative",
       "[raised on rank 0 of"},
      "negative label everywhere");
  // Shapes that do not match the labels, on every rank.
  expect_same_error_everywhere(
      ErrorKind::ShapeMismatch,
      [&] {
        dist::sliced_einsum(world(), {a, randn({5, 4}, 3)}, {{0, 1}, {1, 2}}, {0, 2});
      },
      {"dist::sliced_einsum: einsum: label 1 has size 5"}, "label sizes disagree");
  EXPECT_LT(testing::rel_diff(
                dist::sliced_einsum(world(), {a, b}, {{0, 1}, {1, 2}}, {0, 2}, {.min_slices = 4}),
                einsum("ab,bc->ac", a, b)),
            1e-12);
}

TEST(DistSliced, MismatchedInputsFailTogether) {
  if (world().size() < 2) GTEST_SKIP() << "needs two ranks";
  const bool odd = world().rank() == 1;
  const Network n = testing::mps_mpo_mps();
  std::vector<Tensor> ops = n.operands(DType::f64);
  const SliceOptions opt{.memory_limit = sixteenth_of_peak(n)};
  {
    std::vector<Tensor> mine = ops;
    if (odd) mine[3] = randn({4, 3}, 5);
    expect_same_error_everywhere(
        ErrorKind::ShapeMismatch, [&] { dist::sliced_einsum(world(), n.spec, mine, opt); },
        {"dist::sliced_einsum: the ranks disagree on the operand shapes", "rank 1 has shapes",
         "[4, 3]", "rank 0 has shapes"},
        "shapes differ");
  }
  {
    std::vector<Tensor> mine = ops;
    if (odd) mine[0] = cast(mine[0], DType::c128);
    expect_same_error_everywhere(
        ErrorKind::DTypeMismatch,
        [&] { dist::sliced_value_and_grad(world(), n.spec, mine, testing::squared_norm, opt); },
        {"dist::sliced_value_and_grad: the ranks disagree on the operand dtypes"}, "dtypes differ");
  }
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] {
        dist::sliced_einsum(world(), odd ? "ab,bc->ca" : "ab,bc->ac", {ops[1], ops[1]});
      },
      {"disagree on the spec", "rank 1 has spec 'ab,bc->ca'"}, "specs differ");
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] { dist::sliced_einsum(world(), n.spec, ops, {.memory_limit = odd ? 100.0 : 50.0}); },
      {"disagree on the options", "memory_limit=100"}, "options differ");
  // Invalid on one rank only: the spec differs, which is the root cause reported.
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] {
        dist::sliced_einsum(world(), odd ? "ab,b?->a" : "ab,bc->a", {ops[1], ops[1]});
      },
      {"disagree on the spec"}, "invalid spec on one rank");
  // Invalid on every rank alike: the local error, raised on rank 0 first.
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] { dist::sliced_einsum(world(), n.spec, ops, {.memory_limit = -1}); },
      {"dist::sliced_einsum: slice_plan: SliceOptions::memory_limit is -1", "[raised on rank 0 of"},
      "invalid limit everywhere");
  // A loss that fails on one rank only.
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] {
        dist::sliced_value_and_grad(
            world(), n.spec, ops,
            [odd](std::span<const Tensor> c) {
              if (odd) throw Error(ErrorKind::InvalidArgument, "loss: refused on this rank");
              return testing::squared_norm(c);
            },
            opt);
      },
      {"loss: refused on this rank", "[raised on rank 1 of"}, "loss throws on one rank");
  // A loss that computes something else on each rank.
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] {
        dist::sliced_value_and_grad(
            world(), n.spec, ops,
            [](std::span<const Tensor> c) {
              return mul(testing::squared_norm(c), double(world().rank() + 1));
            },
            opt);
      },
      {"disagree on the loss value", "rank 1 has loss"}, "loss differs by rank");
  // Everything still works afterwards.
  EXPECT_LT(testing::rel_diff(dist::sliced_einsum(world(), n.spec, ops, opt), einsum(n.spec, ops)),
            1e-11);
}

}  // namespace
}  // namespace tenferro
