// dot_general against the long-double reference: every dtype (and mixed), contiguous and strided
// operands, batches, size-0 dimensions, budgets 1 and 4, and the error contract.
#include <gtest/gtest.h>

#include "common/contract_reference.hpp"
#include "common/expect_error.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro {
namespace {

using testing::expect_error;
using testing::expect_matches;
using testing::reference_dot_general;

struct DotCase {
  const char* name;
  Dims a, b;
  DotDims dims;
};

std::vector<DotCase> dot_cases() {
  return {
      {"matmul", {3, 4}, {4, 5}, {{}, {}, {1}, {0}}},
      {"transposed_contract", {4, 3}, {5, 4}, {{}, {}, {0}, {1}}},
      {"batched", {2, 3, 4}, {2, 4, 5}, {{0}, {0}, {2}, {1}}},
      {"batch_not_leading", {3, 2, 4}, {4, 2, 5}, {{1}, {1}, {2}, {0}}},
      {"two_contractions", {2, 3, 4, 5}, {4, 6, 3}, {{}, {}, {1, 2}, {2, 0}}},
      {"two_batches_swapped", {2, 3, 4, 5}, {3, 2, 5, 6}, {{0, 1}, {1, 0}, {3}, {2}}},
      {"outer", {3}, {4}, {{}, {}, {}, {}}},
      {"dot", {5}, {5}, {{}, {}, {0}, {0}}},
      {"matvec", {3, 4}, {4}, {{}, {}, {1}, {0}}},
      {"vecmat", {4}, {4, 6}, {{}, {}, {0}, {0}}},
      {"tiny_batched", {16, 2, 2}, {16, 2, 2}, {{0}, {0}, {2}, {1}}},
      {"small_odd", {5, 3, 7}, {5, 7, 2}, {{0}, {0}, {2}, {1}}},
      {"mid_native", {2, 20, 17}, {2, 17, 13}, {{0}, {0}, {2}, {1}}},
      {"large_blas", {40, 36}, {36, 50}, {{}, {}, {1}, {0}}},
      {"batch_only", {3, 4}, {3, 5}, {{0}, {0}, {}, {}}},
      {"scalar_lhs", {}, {3}, {{}, {}, {}, {}}},
  };
}

// Views with the same logical shape as a fresh tensor of `shape`, but other strides.
enum class Layout { contiguous, transposed, sliced, broadcast };
const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous:
      return "contiguous";
    case Layout::transposed:
      return "transposed";
    case Layout::sliced:
      return "sliced";
    case Layout::broadcast:
      return "broadcast";
  }
  return "?";
}

Tensor make_operand(const Dims& shape, DType dtype, Layout layout, std::uint64_t seed) {
  const auto r = static_cast<std::int64_t>(shape.size());
  switch (layout) {
    case Layout::contiguous:
      break;
    case Layout::transposed: {
      if (r < 2) break;
      Dims rev, perm;
      for (std::int64_t i = r; i-- > 0;) {
        rev.push_back(shape[static_cast<std::size_t>(i)]);
        perm.push_back(i);
      }
      return randn(rev, seed, dtype).permute(perm);
    }
    case Layout::sliced: {
      if (r < 1) break;
      Dims big = shape;
      big.back() = 2 * big.back() + 1;
      return randn(big, seed, dtype).slice(-1, 1, big.back(), 2);
    }
    case Layout::broadcast: {
      if (r < 1) break;
      Dims one = shape;
      one[0] = 1;
      return randn(one, seed, dtype).broadcast_to(shape);
    }
  }
  return randn(shape, seed, dtype);
}

struct DTypePair {
  DType a, b;
};
constexpr DTypePair kDTypePairs[] = {
    {DType::f32, DType::f32},   {DType::f64, DType::f64},  {DType::c64, DType::c64},
    {DType::c128, DType::c128}, {DType::f32, DType::f64},  {DType::f64, DType::c64},
    {DType::c64, DType::f32},   {DType::f32, DType::c128},
};

TEST(ContractDotGeneral, MatchesReferenceForAllCasesDTypesAndLayouts) {
  std::uint64_t seed = 1;
  int checked = 0;
  for (const DotCase& c : dot_cases()) {
    for (DTypePair dt : kDTypePairs) {
      for (Layout la :
           {Layout::contiguous, Layout::transposed, Layout::sliced, Layout::broadcast}) {
        Layout lb = la == Layout::sliced ? Layout::transposed : la;
        Tensor a = make_operand(c.a, dt.a, la, seed++);
        Tensor b = make_operand(c.b, dt.b, lb, seed++);
        std::string what = std::string(c.name) + " " + std::string(dtype_name(dt.a)) + "x" +
                           std::string(dtype_name(dt.b)) + " " + layout_name(la);
        Tensor out = dot_general(a, b, c.dims);
        expect_matches(out, reference_dot_general(a, b, c.dims), promote(dt.a, dt.b), what.c_str());
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 16 * 8 * 4);
}

TEST(ContractDotGeneral, SizeZeroDimensions) {
  for (DType d : float_dtypes) {
    // Empty output.
    Tensor e = dot_general(randn({0, 3}, 1, d), randn({3, 4}, 2, d), {{}, {}, {1}, {0}});
    EXPECT_EQ(e.shape(), Dims({0, 4}));
    Tensor eb = dot_general(randn({0, 2, 3}, 1, d), randn({0, 3, 4}, 2, d), {{0}, {0}, {2}, {1}});
    EXPECT_EQ(eb.shape(), Dims({0, 2, 4}));
    // k == 0: an empty sum is zero.
    Tensor z = dot_general(randn({3, 0}, 1, d), randn({0, 4}, 2, d), {{}, {}, {1}, {0}});
    ASSERT_EQ(z.shape(), Dims({3, 4}));
    for (auto v : testing::values_ld(z)) EXPECT_EQ(v, testing::cld(0));
    Tensor zb = dot_general(randn({2, 3, 0}, 1, d), randn({2, 0, 4}, 2, d), {{0}, {0}, {2}, {1}});
    for (auto v : testing::values_ld(zb)) EXPECT_EQ(v, testing::cld(0));
  }
}

TEST(ContractDotGeneral, BudgetsOneAndFourAgree) {
  CpuBackend one(CpuBackendOptions{.threads = 1});
  CpuBackend four(CpuBackendOptions{.threads = 4});
  CpuBackend four_blas(CpuBackendOptions{.threads = 4, .kind = BackendKind::blas});
  const DotCase cases[] = {
      {"tiny_large_batch", {1024, 2, 2}, {1024, 2, 2}, {{0}, {0}, {2}, {1}}},
      {"mid_batch", {256, 16, 16}, {256, 16, 16}, {{0}, {0}, {2}, {1}}},
      {"big", {96, 96}, {96, 96}, {{}, {}, {1}, {0}}},
      {"tall", {300, 40}, {40, 50}, {{}, {}, {1}, {0}}},
  };
  for (const DotCase& c : cases) {
    for (DType d : float_dtypes) {
      Tensor a = randn(c.a, 11, d), b = randn(c.b, 12, d);
      Tensor r1, r4, r4b;
      {
        BackendGuard use(one);
        r1 = dot_general(a, b, c.dims);
      }
      {
        BackendGuard use(four);
        r4 = dot_general(a, b, c.dims);
      }
      {
        BackendGuard use(four_blas);
        r4b = dot_general(a, b, c.dims);
      }
      auto ref = reference_dot_general(a, b, c.dims);
      expect_matches(r1, ref, d, c.name);
      expect_matches(r4, ref, d, c.name);
      expect_matches(r4b, ref, d, c.name);
      // Reassociation tolerance between thread counts.
      testing::expect_close(r1, r4, is_double_precision(d) ? 1e-12L : 1e-4L, c.name);
    }
  }
}

TEST(ContractDotGeneral, ResultIsFreshAndContiguous) {
  Tensor a = randn({3, 4}, 1), b = randn({4, 5}, 2);
  Tensor c = dot_general(a, b, {{}, {}, {1}, {0}});
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.storage().get(), a.storage().get());
}

// ---- errors ----

TEST(ContractDotGeneral, InvalidDimensionNumbers) {
  Tensor a = randn({3, 4}, 1), b = randn({4, 5}, 2, DType::f32);
  auto before_a = testing::raw_bytes(a), before_b = testing::raw_bytes(b);
  const char* shapes[] = {"dot_general", "[3, 4] f64", "[4, 5] f32"};
  expect_error(
      [&] {
        dot_general(a, b, {{}, {}, {2}, {0}});
      },
      ErrorKind::InvalidArgument, {shapes[0], shapes[1], shapes[2], "out of range"});
  expect_error(
      [&] {
        dot_general(a, b, {{}, {}, {-1}, {0}});
      },
      ErrorKind::InvalidArgument, {shapes[0], "out of range"});
  expect_error(
      [&] {
        dot_general(a, b, {{}, {}, {1}, {5}});
      },
      ErrorKind::InvalidArgument, {shapes[0], "rhs"});
  expect_error(
      [&] {
        dot_general(a, b, {{1}, {0}, {1}, {0}});
      },
      ErrorKind::InvalidArgument, {shapes[0], "more than once"});
  expect_error(
      [&] {
        dot_general(a, b, {{}, {}, {1, 1}, {0, 1}});
      },
      ErrorKind::InvalidArgument, {"more than once"});
  expect_error(
      [&] {
        dot_general(a, b, {{0}, {}, {1}, {0}});
      },
      ErrorKind::InvalidArgument, {"different lengths"});
  expect_error(
      [&] {
        dot_general(a, b, {{}, {}, {1}, {}});
      },
      ErrorKind::InvalidArgument, {"different lengths"});
  EXPECT_EQ(before_a, testing::raw_bytes(a));
  EXPECT_EQ(before_b, testing::raw_bytes(b));
}

TEST(ContractDotGeneral, SizeMismatches) {
  Tensor a = randn({2, 3, 4}, 1, DType::c64), b = randn({3, 5, 4}, 2);
  auto before_a = testing::raw_bytes(a), before_b = testing::raw_bytes(b);
  expect_error(
      [&] {
        dot_general(a, b, {{}, {}, {2}, {1}});
      },
      ErrorKind::ShapeMismatch, {"dot_general", "[2, 3, 4] c64", "[3, 5, 4] f64", "sizes 4 and 5"});
  expect_error(
      [&] {
        dot_general(a, b, {{0}, {0}, {2}, {2}});
      },
      ErrorKind::ShapeMismatch, {"batch", "sizes 2 and 3"});
  EXPECT_EQ(before_a, testing::raw_bytes(a));
  EXPECT_EQ(before_b, testing::raw_bytes(b));
  expect_error([&] { dot_general(Tensor(), b, {}); }, ErrorKind::InvalidArgument, {"undefined"});
}

}  // namespace
}  // namespace tenferro
