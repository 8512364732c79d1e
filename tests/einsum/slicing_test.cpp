// slice_plan, sliced_einsum and sliced_value_and_grad on one process (tenferro/slicing.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>

#include "common/expect_error.hpp"
#include "common/networks.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro {
namespace {

using testing::expect_error;
using testing::Network;
using testing::rel_diff;

double tol(DType d) { return d == DType::f32 || d == DType::c64 ? 2e-4 : 1e-11; }

// The fewest slices any combination of chunk counts (divisors) reaches within the limit, by
// brute force over every label: the reference for the greedy search on small networks.
std::int64_t fewest_slices(const std::string& spec, const std::vector<Dims>& shapes, double limit,
                           const SlicePlan& plan) {
  std::string letters;
  std::vector<std::int64_t> sizes;
  for (std::size_t k = 0, t = 0, a = 0; k < spec.size() && spec[k] != '-'; ++k) {
    if (spec[k] == ',') {
      ++t;
      a = 0;
      continue;
    }
    if (letters.find(spec[k]) == std::string::npos) {
      letters += spec[k];
      sizes.push_back(shapes[t][a]);
    }
    ++a;
  }
  std::int64_t best = -1;
  std::vector<std::int64_t> chunks(letters.size(), 1);
  std::function<void(std::size_t)> walk = [&](std::size_t i) {
    if (i == letters.size()) {
      std::vector<Dims> cut = shapes;
      std::int64_t slices = 1;
      for (std::size_t t = 0, k = 0, a = 0; k < spec.size() && spec[k] != '-'; ++k) {
        if (spec[k] == ',') {
          ++t;
          a = 0;
          continue;
        }
        const std::size_t l = letters.find(spec[k]);
        cut[t][a] = sizes[l] / chunks[l];
        ++a;
      }
      for (std::int64_t c : chunks) slices *= c;
      if (best >= 0 && slices >= best) return;
      EinsumOptions along;
      along.path = plan.pairs;
      if (einsum_path(spec, cut, along).largest_intermediate <= limit) best = slices;
      return;
    }
    for (std::int64_t c = 1; c <= sizes[i]; ++c)
      if (sizes[i] % c == 0) {
        chunks[i] = c;
        walk(i + 1);
      }
    chunks[i] = 1;
  };
  walk(0);
  return best;
}

TEST(SlicePlan, NoLimitMeansOneSlice) {
  const Network n = testing::ring8();
  const SlicePlan p = slice_plan(n.spec, n.shapes);
  EXPECT_EQ(p.slices, 1);
  EXPECT_TRUE(p.sliced.empty());
  EXPECT_EQ(p.slice_shapes, n.shapes);
  EXPECT_DOUBLE_EQ(p.overhead(), 1.0);
  EXPECT_EQ(p.peak, p.unsliced_peak);
  EXPECT_EQ(p.path.strategy, EinsumStrategy::given);
}

TEST(SlicePlan, MeetsTheLimitForEveryNetwork) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps(), testing::grid3x3()}) {
    const SlicePlan whole = slice_plan(n.spec, n.shapes);
    const double limit = std::floor(whole.unsliced_peak / 16);
    const SlicePlan p = slice_plan(n.spec, n.shapes, {.memory_limit = limit});
    SCOPED_TRACE(n.name + "\n" + p.to_string());
    EXPECT_LE(p.peak, limit);
    EXPECT_GE(p.slices, 16);
    EXPECT_EQ(p.path.largest_intermediate, p.peak);
    EXPECT_EQ(p.slices * p.flops_per_slice, p.total_flops);
    EXPECT_GE(p.overhead(), 1.0 - 1e-12);
    std::int64_t product = 1;
    for (const SlicedLabel& s : p.sliced) {
      EXPECT_GT(s.chunks, 1);
      EXPECT_EQ(s.size % s.chunks, 0);
      EXPECT_EQ(s.output_axis, -1);  // scalar results: every label is summed
      product *= s.chunks;
    }
    EXPECT_EQ(product, p.slices);
    // The tree is re-optimised for the sliced sizes (Note [Sliced search]); slicing greedy's tree
    // as it is (an explicit path) is never better.
    ASSERT_EQ(p.pairs.size(), whole.pairs.size());
    SliceOptions fixed{.memory_limit = limit};
    fixed.einsum.path = whole.pairs;
    const SlicePlan kept = slice_plan(n.spec, n.shapes, fixed);
    EXPECT_EQ(kept.pairs, whole.pairs);
    EXPECT_LE(p.total_flops, kept.total_flops);
    EXPECT_LE(p.slices, kept.slices);
  }
}

TEST(SlicePlan, GreedyFindsTheFewestSlicesOnSmallNetworks) {
  struct Case {
    std::string spec;
    std::vector<Dims> shapes;
    double limit;
  };
  const Case cases[] = {
      {"ab,bc,cd->ad", {{8, 12}, {12, 16}, {16, 6}}, 30},
      {"abc,cd,dbe->ae", {{4, 6, 8}, {8, 9}, {9, 6, 4}}, 40},
      {"ab,bc,cd,da->", {{8, 8}, {8, 8}, {8, 8}, {8, 8}}, 10},
  };
  for (const Case& c : cases) {
    const SlicePlan p = slice_plan(c.spec, c.shapes, {.memory_limit = c.limit});
    SCOPED_TRACE(p.to_string());
    EXPECT_LE(p.peak, c.limit);
    EXPECT_EQ(p.slices, fewest_slices(c.spec, c.shapes, c.limit, p));
  }
}

TEST(SlicePlan, OffsetsAndViewsFollowTheMixedRadix) {
  const std::vector<Dims> shapes{{6, 8}, {8, 4}};
  const SlicePlan p = slice_plan("ab,bc->ac", shapes, {.memory_limit = 6, .min_slices = 1});
  ASSERT_FALSE(p.sliced.empty());
  const Tensor a = randn(shapes[0], 1), b = randn(shapes[1], 2);
  std::vector<std::vector<std::int64_t>> seen;
  for (std::int64_t k = 0; k < p.slices; ++k) {
    const std::vector<std::int64_t> off = p.offsets(k);
    ASSERT_EQ(off.size(), p.sliced.size());
    seen.push_back(off);
    const std::vector<Tensor> s = p.slice_operands({a, b}, k);
    for (std::size_t j = 0; j < s.size(); ++j) EXPECT_EQ(s[j].shape(), p.slice_shapes[j]);
    EXPECT_EQ(p.output_block(zeros({6, 4}), k).shape(), p.slice_output_shape);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());  // every slice distinct
  expect_error(ErrorKind::InvalidArgument, [&] { p.offsets(p.slices); }, {"out of range"});
  expect_error(ErrorKind::InvalidArgument, [&] { p.offsets(-1); });
  expect_error(ErrorKind::ShapeMismatch, [&] { p.slice_operands({b, a}, 0); }, {"operand 0"});
  expect_error(ErrorKind::InvalidArgument, [&] { p.slice_operands({a}, 0); }, {"got 1 operands"});
  expect_error(ErrorKind::ShapeMismatch, [&] { p.output_block(zeros({4, 6}), 0); });
}

TEST(SlicePlan, SingleOperandSumsCountTowardsTheLimit) {
  // Operand 0 is summed over a and b (only it carries them) before the path: a [c, d] tensor.
  const SlicePlan p = slice_plan("abcd,cd->", {{2, 2, 64, 64}, {64, 64}}, {.memory_limit = 512});
  EXPECT_EQ(p.unsliced_peak, 64 * 64);
  EXPECT_LE(p.peak, 512);
  EXPECT_GE(p.slices, 8);
  const Tensor x = randn({2, 2, 64, 64}, 1), y = randn({64, 64}, 2);
  EXPECT_LT(rel_diff(sliced_einsum("abcd,cd->", {x, y}, {.memory_limit = 512}),
                     einsum("abcd,cd->", x, y)),
            1e-12);
  // One operand: its sum is the slice's result; a permutation is a view and costs nothing.
  const SlicePlan one = slice_plan("ijk->k", {{64, 64, 4}}, {.memory_limit = 100});
  EXPECT_EQ(one.unsliced_peak, 4);
  EXPECT_EQ(one.slices, 1);
  EXPECT_EQ(slice_plan("ij->ji", {{64, 64}}, {.memory_limit = 10}).peak, 0);
  EXPECT_EQ(slice_plan("ij->ji", {{64, 64}}).path.strategy, EinsumStrategy::given);
}

TEST(SlicePlan, OptionsAreChecked) {
  const std::vector<Dims> shapes{{4, 4}, {4, 4}};
  expect_error(ErrorKind::InvalidArgument,
               [&] { slice_plan("ab,bc->ac", shapes, {.memory_limit = -1}); }, {"memory_limit"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { slice_plan("ab,bc->ac", shapes, {.memory_limit = NAN}); }, {"NaN"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { slice_plan("ab,bc->ac", shapes, {.min_slices = 0}); }, {"min_slices"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { slice_plan("ab,bc->ac", shapes, {.einsum = {.memory_limit = 4}}); },
               {"SliceOptions::memory_limit"});
  expect_error(ErrorKind::ShapeMismatch, [&] { slice_plan("ab,bc->ac", {{4, 4}, {5, 4}}); });
  expect_error(ErrorKind::InvalidArgument, [&] { slice_plan("ab,b?->a", shapes); });
  EXPECT_EQ(slice_plan("ab,bc->ac", shapes, {.memory_limit = INFINITY}).slices, 1);
}

TEST(SlicePlan, UnreachableLimitNamesTheStep) {
  // Without output slicing the 16x16 result cannot shrink.
  const std::vector<Dims> shapes{{16, 4}, {4, 16}};
  expect_error(
      ErrorKind::InvalidArgument,
      [&] { slice_plan("ab,bc->ac", shapes, {.memory_limit = 100, .slice_output = false}); },
      {"no slicing brings", "step 0", "slice_output is false"});
  const SlicePlan p = slice_plan("ab,bc->ac", shapes, {.memory_limit = 100});
  EXPECT_LE(p.peak, 100);
  for (const SlicedLabel& s : p.sliced) EXPECT_GE(s.output_axis, 0);
  // A one-element limit is reachable only by cutting every label to single elements.
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 slice_plan("...ab,...bc->...ac", {{3, 2, 2}, {3, 2, 2}}, {.memory_limit = 1});
               },
               {"'...' dimensions are never cut"});
}

TEST(SlicePlan, MinSlicesCutsWhereFlopsGrowLeast) {
  // A chain: whichever path is taken, two of its labels are in both steps (cutting them repeats
  // nothing) and the other two in one step only (cutting them repeats the other step).
  const std::vector<Dims> shapes{{2, 32}, {32, 32}, {32, 2}};
  const SlicePlan p = slice_plan("ab,bc,cd->ad", shapes, {.min_slices = 8});
  SCOPED_TRACE(p.to_string());
  EXPECT_GE(p.slices, 8);
  EXPECT_NEAR(p.overhead(), 1.0, 1e-12);
  for (const SlicedLabel& s : p.sliced)
    for (const EinsumStep& step : p.path.steps)
      EXPECT_NE(step.subscripts.substr(0, step.subscripts.find("->")).find(s.label),
                std::string::npos)
          << s.label << " is missing from step " << step.subscripts;
  // More slices than the labels allow: as many as there are.
  EXPECT_EQ(slice_plan("ab,bc->ac", {{2, 2}, {2, 2}}, {.min_slices = 100}).slices, 8);
}

TEST(SlicePlan, IsDeterministicAndPrintable) {
  const Network n = testing::mps_mpo_mps();
  const SlicePlan a = slice_plan(n.spec, n.shapes, {.memory_limit = 20});
  const SlicePlan b = slice_plan(n.spec, n.shapes, {.memory_limit = 20});
  EXPECT_EQ(a.to_string(), b.to_string());
  const std::string s = a.to_string();
  for (const char* needle : {"slice plan: ", "sliced:", "slices: ", "peak per slice", "limit 20",
                             "overhead", "einsum path"})
    EXPECT_NE(s.find(needle), std::string::npos) << needle << " in\n" << s;
}

TEST(SlicedEinsum, EqualsEinsumOnTheNetworks) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps(), testing::grid3x3()})
    for (DType dtype : {DType::f64, DType::c128, DType::f32, DType::c64}) {
      SCOPED_TRACE(n.name + " " + std::string(dtype_name(dtype)));
      const std::vector<Tensor> ops = n.operands(dtype);
      const double limit = std::floor(slice_plan(n.spec, n.shapes).unsliced_peak / 16);
      const Tensor r = sliced_einsum(n.spec, ops, {.memory_limit = limit});
      EXPECT_EQ(r.dtype(), dtype);
      EXPECT_LT(rel_diff(r, einsum(n.spec, ops)), tol(dtype));
    }
}

TEST(SlicedEinsum, OutputLabelsDiagonalsAndEllipsis) {
  const Tensor a = randn({6, 8}, 1, DType::c128), b = randn({8, 4}, 2);
  // Output labels cut: each slice writes its block.
  const SlicePlan p = slice_plan("ab,bc->ac", {{6, 8}, {8, 4}}, {.memory_limit = 4});
  bool cuts_output = false;
  for (const SlicedLabel& s : p.sliced) cuts_output = cuts_output || s.output_axis >= 0;
  EXPECT_TRUE(cuts_output) << p.to_string();
  EXPECT_LT(
      rel_diff(sliced_einsum("ab,bc->ac", {a, b}, {.memory_limit = 4}), einsum("ab,bc->ac", a, b)),
      1e-12);
  // A label repeated within one operand (a diagonal) is cut on both axes at once.
  const Tensor m = randn({6, 6, 4}, 3), v = randn({6, 4}, 4);
  EXPECT_LT(
      rel_diff(sliced_einsum("iij,ij->j", {m, v}, {.min_slices = 6}), einsum("iij,ij->j", m, v)),
      1e-12);
  // '...' dimensions are never cut, letters are.
  const Tensor x = randn({3, 4, 5}, 5), y = randn({3, 5, 2}, 6);
  const SlicePlan e = slice_plan("...ab,...bc->...ac", {{3, 4, 5}, {3, 5, 2}}, {.min_slices = 5});
  for (const SlicedLabel& s : e.sliced) EXPECT_NE(s.label, 0);
  EXPECT_LT(rel_diff(sliced_einsum("...ab,...bc->...ac", {x, y}, {.min_slices = 5}),
                     einsum("...ab,...bc->...ac", x, y)),
            1e-12);
  // Strided operands are sliced as views.
  const Tensor t = randn({8, 6}, 7).transpose();
  EXPECT_LT(
      rel_diff(sliced_einsum("ab,bc->ac", {t, b}, {.min_slices = 4}), einsum("ab,bc->ac", t, b)),
      1e-12);
}

TEST(SlicedValueAndGrad, EqualsValueAndGradOnTheNetworks) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps(), testing::grid3x3()})
    for (DType dtype : {DType::f64, DType::c128}) {
      SCOPED_TRACE(n.name + " " + std::string(dtype_name(dtype)));
      const std::vector<Tensor> ops = n.operands(dtype);
      const double limit = std::floor(slice_plan(n.spec, n.shapes).unsliced_peak / 16);
      const ValueAndGrad s =
          sliced_value_and_grad(n.spec, ops, testing::squared_norm, {.memory_limit = limit});
      const std::string spec = n.spec;
      const ValueAndGrad ref = value_and_grad(
          [&spec](std::span<const Tensor> x) {
            const Tensor c = einsum(spec, x);
            return testing::squared_norm(std::span<const Tensor>(&c, 1));
          },
          std::span<const Tensor>(ops));
      EXPECT_LT(rel_diff(s.value, ref.value), 1e-11);
      ASSERT_EQ(s.grads.size(), ops.size());
      for (std::size_t k = 0; k < ops.size(); ++k) {
        EXPECT_EQ(s.grads[k].shape(), ops[k].shape());
        EXPECT_EQ(s.grads[k].dtype(), dtype);
        EXPECT_LT(rel_diff(s.grads[k], ref.grads[k]), 1e-10) << "operand " << k;
      }
    }
}

TEST(SlicedValueAndGrad, OutputSlicesMixedDtypesAndTheIdentityLoss) {
  const Tensor a = randn({6, 8}, 1), b = randn({8, 4}, 2, DType::c128);
  const ValueAndGrad s =
      sliced_value_and_grad("ab,bc->ac", {a, b}, testing::squared_norm, {.memory_limit = 4});
  const ValueAndGrad ref = value_and_grad(
      [](std::span<const Tensor> x) {
        const Tensor c = einsum("ab,bc->ac", x[0], x[1]);
        return testing::squared_norm(std::span<const Tensor>(&c, 1));
      },
      {a, b});
  EXPECT_LT(rel_diff(s.value, ref.value), 1e-12);
  EXPECT_EQ(s.grads[0].dtype(), DType::f64);  // a real operand gets a real gradient
  EXPECT_LT(rel_diff(s.grads[0], ref.grads[0]), 1e-11);
  EXPECT_LT(rel_diff(s.grads[1], ref.grads[1]), 1e-11);
  // No loss: the output itself must be a real scalar.
  const Tensor u = randn({16}, 3), v = randn({16}, 4);
  const ValueAndGrad id = sliced_value_and_grad("a,a->", {u, v}, {}, {.min_slices = 4});
  EXPECT_LT(rel_diff(id.value, einsum("a,a->", u, v)), 1e-12);
  EXPECT_LT(rel_diff(id.grads[0], v), 1e-14);
  EXPECT_LT(rel_diff(id.grads[1], u), 1e-14);
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 sliced_value_and_grad("a,b->ab", {u, v}, {}, {});
               },
               {"sliced_value_and_grad: loss: "});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 sliced_value_and_grad(
                     "a,a->", {u, v},
                     [](std::span<const Tensor> c) { return c[0].reshape({1}).broadcast_to({2}); },
                     {});
               },
               {"sliced_value_and_grad: loss: "});
}

TEST(SlicedEinsum, RefusesWhatItCannotComputeOrRecord) {
  const Tensor a = randn({4, 4}, 1), b = randn({4, 4}, 2);
  Tensor w = randn({4, 4}, 3);
  w.requires_grad_();
  expect_error(ErrorKind::Unsupported,
               [&] {
                 sliced_einsum("ab,bc->ac", {w, b});
               },
               {"sliced_einsum: operand 0 requires grad", "sliced_value_and_grad"});
  {
    NoGradGuard off;  // nothing would be recorded anyway
    EXPECT_LT(rel_diff(sliced_einsum("ab,bc->ac", {w, b}), einsum("ab,bc->ac", w, b)), 1e-12);
  }
  // sliced_value_and_grad too: inside an outer grad its value would silently have no
  // derivative. Under NoGradGuard it runs and leaves w's grad alone.
  expect_error(ErrorKind::Unsupported,
               [&] {
                 sliced_value_and_grad("ab,ab->", {w, b}, {}, {});
               },
               {"sliced_value_and_grad: operand 0 requires grad", "outer grad"});
  expect_error(ErrorKind::Unsupported, [&] {
    grad(
        [&](std::span<const Tensor> x) {
          return sliced_value_and_grad("ab,ab->", {x[0], b}, {}, {.min_slices = 2}).value;
        },
        {a});
  });
  {
    NoGradGuard off;
    const ValueAndGrad g = sliced_value_and_grad("ab,ab->", {w, b}, {}, {});
    EXPECT_LT(rel_diff(g.grads[0], b), 1e-14);
  }
  EXPECT_FALSE(w.grad().defined());
  expect_error(ErrorKind::DTypeMismatch,
               [&] {
                 sliced_einsum("ab,bc->ac", {a, arange(16, DType::i64).reshape({4, 4})});
               },
               {"operand 1", "i64"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 sliced_einsum("ab,bc->ac", {a, Tensor()});
               },
               {"operand 1 is an undefined tensor"});
  expect_error(ErrorKind::Unsupported,
               [&] {
                 jvp(
                     [&](std::span<const Tensor> x) {
                       return std::vector<Tensor>{sliced_einsum("ab,bc->ac", {x[0], b})};
                     },
                     {a}, {b});
               },
               {"tangent"});
  expect_error(ErrorKind::Unsupported,
               [&] {
                 trace(
                     [&](std::span<const Tensor> x) {
                       return sliced_einsum("ab,bc->ac", {x[0], b});
                     },
                     {ValueSpec{{4, 4}}});
               },
               {"traced"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 sliced_einsum("ab,bc->ac", {a, randn({5, 4}, 4)});
               },
               {"sliced_einsum: "});
}

// ---- The integer-label form ----------------------------------------------------------------

ValueAndGrad integer_value_and_grad(const testing::LabelNetwork& n, std::span<const Tensor> ops) {
  return value_and_grad(
      [&n](std::span<const Tensor> x) {
        const Tensor c = einsum(x, n.labels, n.output);
        return testing::squared_norm(std::span<const Tensor>(&c, 1));
      },
      ops);
}

TEST(SlicePlanIntegerLabels, PlansAsTheSpecFormWithTheLabelsIdentity) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps(), testing::grid3x3()}) {
    const testing::LabelNetwork m = testing::integer_form(n);
    const double limit = std::floor(slice_plan(n.spec, n.shapes).unsliced_peak / 16);
    const SlicePlan a = slice_plan(n.spec, n.shapes, {.memory_limit = limit});
    const SlicePlan b = slice_plan(m.labels, m.output, m.shapes, {.memory_limit = limit});
    SCOPED_TRACE(a.to_string() + b.to_string());
    // The letters keep their order as integers: the same search, the same plan.
    EXPECT_EQ(b.pairs, a.pairs);
    EXPECT_EQ(b.slices, a.slices);
    EXPECT_EQ(b.peak, a.peak);
    EXPECT_EQ(b.total_flops, a.total_flops);
    EXPECT_EQ(b.slice_shapes, a.slice_shapes);
    ASSERT_EQ(b.sliced.size(), a.sliced.size());
    for (std::size_t i = 0; i < a.sliced.size(); ++i) {
      const SlicedLabel &x = a.sliced[i], &y = b.sliced[i];
      EXPECT_NE(x.label, 0);
      EXPECT_EQ(x.id, x.label);  // the letter's character code
      EXPECT_EQ(x.name, std::string(1, x.label));
      EXPECT_EQ(y.label, 0);
      EXPECT_EQ(y.id, 1000 + x.label);
      EXPECT_EQ(y.name, std::to_string(1000 + x.label));
      EXPECT_EQ(y.axes, x.axes);
      EXPECT_EQ(y.chunks, x.chunks);
      // to_string prints the name, and the generated name the subscripts use for it.
      EXPECT_NE(b.to_string().find(y.name + " as "), std::string::npos);
      EXPECT_NE(a.to_string().find(" " + x.name + " ("), std::string::npos);
    }
  }
  // ring8's labels are lowercase letters: the generated names are the letters themselves.
  const Network ring = testing::ring8();
  const testing::LabelNetwork r = testing::integer_form(ring);
  EXPECT_EQ(slice_plan(r.labels, r.output, r.shapes).subscripts, ring.spec);
}

TEST(SlicePlanIntegerLabels, OutputLabelsAndAnyNonNegativeValues) {
  // Labels far apart and beyond int32; the output order is the output list's.
  const std::int64_t big = std::int64_t{1} << 40;
  const std::vector<EinsumLabels> labels{{big, 7}, {7, 0}};
  const EinsumLabels output{0, big};
  const SlicePlan p = slice_plan(labels, output, {{6, 8}, {8, 4}}, {.memory_limit = 4});
  SCOPED_TRACE(p.to_string());
  EXPECT_EQ(p.output_shape, (Dims{4, 6}));
  EXPECT_LE(p.peak, 4);
  bool cuts_output = false;
  for (const SlicedLabel& s : p.sliced) {
    EXPECT_EQ(s.label, 0);
    EXPECT_TRUE(s.id == big || s.id == 7 || s.id == 0) << s.id;
    EXPECT_EQ(s.name, std::to_string(s.id));
    if (s.id == big) EXPECT_EQ(s.output_axis, 1);
    if (s.id == 0) EXPECT_EQ(s.output_axis, 0);
    cuts_output = cuts_output || s.output_axis >= 0;
  }
  EXPECT_TRUE(cuts_output);
  const Tensor a = randn({6, 8}, 1, DType::c128), b = randn({8, 4}, 2);
  EXPECT_LT(rel_diff(sliced_einsum({a, b}, labels, output, {.memory_limit = 4}),
                     einsum({a, b}, labels, output)),
            1e-12);
  // Diagonals (a label twice in one operand) are cut on both axes.
  const Tensor m = randn({6, 6, 4}, 3), v = randn({6, 4}, 4);
  EXPECT_LT(rel_diff(sliced_einsum({m, v}, {{3, 3, 9}, {3, 9}}, {9}, {.min_slices = 6}),
                     einsum("iij,ij->j", m, v)),
            1e-12);
  // The first-appearance order of the labels is the candidates' order (ties go to the first).
  const SlicePlan first = slice_plan({{5, 2}, {2, 5}}, {}, {{4, 4}, {4, 4}}, {.min_slices = 2});
  ASSERT_EQ(first.sliced.size(), 1u);
  EXPECT_EQ(first.sliced[0].id, 5);
}

TEST(SlicedEinsumIntegerLabels, EqualsTheIntegerEinsum) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps(), testing::grid3x3()})
    for (DType dtype : {DType::f64, DType::c64}) {
      const testing::LabelNetwork m = testing::integer_form(n, 3);
      SCOPED_TRACE(m.name + " " + std::string(dtype_name(dtype)));
      const std::vector<Tensor> ops = m.operands(dtype);
      const double limit = std::floor(slice_plan(n.spec, n.shapes).unsliced_peak / 16);
      const Tensor r = sliced_einsum(ops, m.labels, m.output, {.memory_limit = limit});
      EXPECT_EQ(r.dtype(), dtype);
      EXPECT_LT(rel_diff(r, einsum(ops, m.labels, m.output)), tol(dtype));
    }
}

TEST(SlicedValueAndGradIntegerLabels, EqualsValueAndGradOfTheIntegerEinsum) {
  for (const Network& n : {testing::ring8(), testing::mps_mpo_mps()})
    for (DType dtype : {DType::f64, DType::c128}) {
      const testing::LabelNetwork m = testing::integer_form(n);
      SCOPED_TRACE(m.name + " " + std::string(dtype_name(dtype)));
      const std::vector<Tensor> ops = m.operands(dtype);
      const double limit = std::floor(slice_plan(n.spec, n.shapes).unsliced_peak / 16);
      const ValueAndGrad s = sliced_value_and_grad(ops, m.labels, m.output, testing::squared_norm,
                                                   {.memory_limit = limit});
      const ValueAndGrad ref = integer_value_and_grad(m, ops);
      EXPECT_LT(rel_diff(s.value, ref.value), 1e-11);
      ASSERT_EQ(s.grads.size(), ops.size());
      for (std::size_t k = 0; k < ops.size(); ++k)
        EXPECT_LT(rel_diff(s.grads[k], ref.grads[k]), 1e-10) << "operand " << k;
    }
  // The initializer-list form, and no loss: the output is the scalar.
  const Tensor u = randn({16}, 3), v = randn({16}, 4);
  const ValueAndGrad id = sliced_value_and_grad({u, v}, {{4}, {4}}, {}, {}, {.min_slices = 4});
  EXPECT_LT(rel_diff(id.value, einsum("a,a->", u, v)), 1e-12);
  EXPECT_LT(rel_diff(id.grads[0], v), 1e-14);
  EXPECT_LT(rel_diff(id.grads[1], u), 1e-14);
}

TEST(SlicedEinsumIntegerLabels, MoreThanAHundredLabelsUnderAMemoryLimit) {
  // 120 tensors, 216 labels (214 bonds and two open legs): no alphabet would do.
  const testing::LabelNetwork n = testing::grid_labels(6, 20);
  ASSERT_GT(n.label_count(), 200u);
  const SlicePlan whole = slice_plan(n.labels, n.output, n.shapes);
  // A quarter: a grid's intermediates all carry a boundary of bonds, so tighter limits need
  // thousands of slices (a sixteenth: millions).
  const double limit = std::floor(whole.unsliced_peak / 4);
  const SlicePlan p = slice_plan(n.labels, n.output, n.shapes, {.memory_limit = limit});
  SCOPED_TRACE(p.to_string());
  EXPECT_LE(p.peak, limit);
  EXPECT_GE(p.slices, 4);
  EXPECT_LE(p.slices, 1024);
  EXPECT_EQ(p.pairs.size(), whole.pairs.size());
  // Past the 52 letters the subscripts print generated names "{k}".
  EXPECT_NE(p.subscripts.find("{52}"), std::string::npos) << p.subscripts;
  for (const SlicedLabel& s : p.sliced) {
    EXPECT_EQ(s.label, 0);
    EXPECT_GE(s.id, (std::int64_t{1} << 40) - 2);
    EXPECT_EQ(s.name, std::to_string(s.id));
    EXPECT_NE(p.to_string().find(s.name + " as "), std::string::npos);
  }
  const std::vector<Tensor> ops = n.operands(DType::f64);
  const Tensor want = einsum(ops, n.labels, n.output);
  const Tensor got = sliced_einsum(ops, n.labels, n.output, {.memory_limit = limit});
  EXPECT_EQ(got.shape(), (Dims{2, 2}));
  EXPECT_LT(rel_diff(got, want), 1e-10);
  const ValueAndGrad g = sliced_value_and_grad(ops, n.labels, n.output, testing::squared_norm,
                                               {.memory_limit = limit});
  const ValueAndGrad ref = integer_value_and_grad(n, ops);
  EXPECT_LT(rel_diff(g.value, ref.value), 1e-10);
  for (std::size_t k = 0; k < ops.size(); k += 7)
    EXPECT_LT(rel_diff(g.grads[k], ref.grads[k]), 1e-9) << "operand " << k;
}

// The message einsum_path's integer form throws for these arguments (the sliced calls throw it,
// prefixed).
std::string einsum_error(const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                         const std::vector<Dims>& shapes, ErrorKind kind) {
  try {
    (void)einsum_path(labels, output, shapes);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "einsum_path threw nothing";
  return "";
}

TEST(SlicedEinsumIntegerLabels, ErrorsAsTheIntegerEinsum) {
  const std::vector<Dims> shapes{{4, 4}, {4, 4}};
  const Tensor a = randn({4, 4}, 1), b = randn({4, 4}, 2);
  struct Case {
    std::vector<EinsumLabels> labels;
    EinsumLabels output;
    std::vector<Dims> shapes;
    ErrorKind kind;
    const char* needle;
  };
  const Case cases[] = {
      {{{0, -1}, {1, 2}}, {0, 2}, shapes, ErrorKind::InvalidArgument, "negative"},
      {{{0, 1}, {1, 2}}, {0, 5}, shapes, ErrorKind::InvalidArgument, "does not appear"},
      {{{0, 1}, {1, 2}}, {0, 0}, shapes, ErrorKind::InvalidArgument, "repeats"},
      {{{0, 1}, {1, 2}, {2, 3}}, {0}, shapes, ErrorKind::InvalidArgument, "operand(s)"},
      {{{0, 1, 3}, {1, 2}}, {0}, shapes, ErrorKind::InvalidArgument, "rank"},
      {{{0, 1}, {1, 2}}, {0, 2}, {{4, 4}, {5, 4}}, ErrorKind::ShapeMismatch, "label 1 has size"},
  };
  for (const Case& c : cases) {
    const std::string want = einsum_error(c.labels, c.output, c.shapes, c.kind);
    SCOPED_TRACE(want);
    EXPECT_NE(want.find(c.needle), std::string::npos);
    expect_error(c.kind, [&] { slice_plan(c.labels, c.output, c.shapes); }, {want.c_str()});
    if (c.shapes != shapes) continue;  // sliced calls take operands of `shapes`
    const std::string in_einsum = "sliced_einsum: " + want;
    expect_error(c.kind, [&] { sliced_einsum({a, b}, c.labels, c.output); }, {in_einsum.c_str()});
    const std::string in_grad = "sliced_value_and_grad: " + want;
    expect_error(c.kind,
                 [&] {
                   sliced_value_and_grad({a, b}, c.labels, c.output, testing::squared_norm);
                 },
                 {in_grad.c_str()});
  }
  // Mismatched operand shapes, options and limits as in the spec form.
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 sliced_einsum({a, randn({5, 4}, 3)}, {{0, 1}, {1, 2}}, {0, 2});
               },
               {"sliced_einsum: einsum: label 1 has size 5"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 slice_plan({{0, 1}, {1, 2}}, {0, 2}, shapes, {.memory_limit = -1});
               },
               {"slice_plan: SliceOptions::memory_limit is -1"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 slice_plan({{10, 20}, {20, 30}}, {10, 30}, {{16, 4}, {4, 16}},
                            {.memory_limit = 100, .slice_output = false});
               },
               {"no slicing brings", "step 0's result (labels [10, 30])"});
  expect_error(ErrorKind::DTypeMismatch, [&] {
    sliced_einsum({a, arange(16, DType::i64).reshape({4, 4})}, {{0, 1}, {1, 2}}, {0, 2});
  });
}

TEST(SlicedEinsum, RunsInOneExecutionScope) {
  const Network n = testing::ring8();
  const std::vector<Tensor> ops = n.operands(DType::f64);
  for (int threads : {1, 4}) {
    CpuBackend cpu(CpuBackendOptions{.threads = threads});
    BackendGuard use(cpu);
    auto entries = [&](std::int64_t min_slices) {
      const std::uint64_t before = cpu.diagnostics().executor_entries;
      (void)sliced_einsum(n.spec, ops, {.min_slices = min_slices});
      return cpu.diagnostics().executor_entries - before;
    };
    const std::uint64_t few = entries(2), many = entries(64);
    EXPECT_EQ(few, many) << "entries must not grow with the slice count (" << threads << "T)";
    EXPECT_LE(many, 2u);
    // Inside the caller's scope: no nested-scope error, no new entry.
    cpu.with_execution_scope([&] {
      const std::uint64_t before = cpu.diagnostics().executor_entries;
      const Tensor r = sliced_einsum(n.spec, ops, {.min_slices = 16});
      EXPECT_EQ(cpu.diagnostics().executor_entries, before);
      EXPECT_LT(rel_diff(r, einsum(n.spec, ops)), 1e-11);
    });
  }
}

}  // namespace
}  // namespace tenferro
