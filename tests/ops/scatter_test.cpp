// scatter (overwrite): values against a loop over the index positions written here for every
// dtype, duplicates (the last write in row-major order wins) and their gradients, strided and
// negative-stride operands, the Scalar form, finite-difference VJP/JVP (real and complex), bad
// input as typed errors with the operands unchanged, and eager = traced+prepared = in-scope,
// bitwise, at budgets 1 and 4.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/ops/indexing.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;

// The reference: x (row-major values, shape [rows, cols]) with src[r][c] written at
// column idx[r][c] (axis 1) in row-major order of (r, c), so the last write wins.
std::vector<double> scatter_cols(std::vector<double> x, i64 cols, const std::vector<i64>& idx,
                                 const std::vector<double>& src, i64 rows, i64 k) {
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < k; ++c) {
      i64 j = idx[static_cast<std::size_t>(r * k + c)];
      if (j < 0) j += cols;
      x[static_cast<std::size_t>(r * cols + j)] = src[static_cast<std::size_t>(r * k + c)];
    }
  return x;
}

// Which positions of idx ([rows, k], axis 1) write last to their target.
std::vector<bool> winners(const std::vector<i64>& idx, i64 cols, i64 rows, i64 k) {
  std::vector<bool> w(idx.size(), false);
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < k; ++c) {
      i64 j = idx[static_cast<std::size_t>(r * k + c)];
      if (j < 0) j += cols;
      bool last = true;
      for (i64 c2 = c + 1; c2 < k; ++c2) {
        i64 j2 = idx[static_cast<std::size_t>(r * k + c2)];
        if (j2 < 0) j2 += cols;
        if (j2 == j) last = false;
      }
      w[static_cast<std::size_t>(r * k + c)] = last;
    }
  return w;
}

bool same(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && all(eq(a, b)).item<bool>();
}

// Row 0: 0, 2, 0 (0 twice); row 1: -1 and 3 both name column 3; row 2: column 2 three times.
const std::vector<i64> kIdx = {0, 2, 0, -1, 3, 1, 2, 2, -2};

TEST(Scatter, MatchesALoopForEveryDtypeAndTheLastDuplicateWins) {
  std::vector<double> xv, sv;
  for (i64 k = 0; k < 12; ++k) xv.push_back(static_cast<double>(k % 5) - 2);
  for (i64 k = 0; k < 9; ++k) sv.push_back(static_cast<double>(k % 3) + 10 * (k % 2));
  const std::vector<double> want = scatter_cols(xv, 4, kIdx, sv, 3, 3);
  for (DType d : all_dtypes) {
    for (DType id : {DType::i64, DType::i32}) {
      const Tensor x = cast(from_vector<double>(xv, {3, 4}), d);
      const Tensor src = cast(from_vector<double>(sv, {3, 3}), d);
      const Tensor idx = cast(from_vector<i64>(kIdx, {3, 3}), id);
      const Tensor before = copy(x), src_before = copy(src);
      const Tensor y = scatter(x, 1, idx, src);
      ASSERT_EQ(y.dtype(), d);
      ASSERT_EQ(y.shape(), (Dims{3, 4}));
      EXPECT_TRUE(same(y, cast(from_vector<double>(want, {3, 4}), d))) << dtype_name(d);
      EXPECT_TRUE(same(scatter(x, -1, idx, src), y));
      EXPECT_TRUE(same(x, before));
      EXPECT_TRUE(same(src, src_before));
    }
  }
}

TEST(Scatter, ReadsStridedAndNegativeStrideOperandsAlongAxisZero) {
  // x = base^T [4, 3]; idx and src [2, 3] along axis 0; src reversed along both axes.
  const Tensor base = randn({3, 4}, 1);
  const Tensor x = base.transpose();
  const Tensor idx = transpose(from_vector<i64>({3, 0, 1, 3, -4, 1}, {3, 2}));  // [2, 3]
  const Tensor src_c = randn({2, 3}, 2);
  const Tensor src = flip(flip(src_c, {0, 1}), {0, 1});  // a view with negative strides
  const Tensor y = scatter(x, 0, idx, src);
  std::vector<double> want = x.contiguous().to_vector<double>();
  const std::vector<i64> iv = idx.contiguous().to_vector<i64>();
  const std::vector<double> s = src_c.to_vector<double>();
  for (i64 r = 0; r < 2; ++r)
    for (i64 c = 0; c < 3; ++c) {
      i64 j = iv[static_cast<std::size_t>(r * 3 + c)];
      if (j < 0) j += 4;
      want[static_cast<std::size_t>(j * 3 + c)] = s[static_cast<std::size_t>(r * 3 + c)];
    }
  EXPECT_EQ(y.to_vector<double>(), want);
  // Empty indices: a copy of x. Rank 3, middle axis.
  EXPECT_TRUE(same(scatter(x, 0, zeros({0, 3}, DType::i64), zeros({0, 3})), x));
  const Tensor x3 = randn({2, 3, 2}, 3);
  const Tensor i3 = from_vector<i64>({2, 2, 0, 1}, {2, 1, 2});
  const Tensor s3 = from_vector<double>({1, 2, 3, 4}, {2, 1, 2});
  std::vector<double> w3 = x3.to_vector<double>();
  w3[2 * 2 + 0] = 1;      // [0, 2, 0]
  w3[2 * 2 + 1] = 2;      // [0, 2, 1]
  w3[6 + 0 * 2 + 0] = 3;  // [1, 0, 0]
  w3[6 + 1 * 2 + 1] = 4;  // [1, 1, 1]
  EXPECT_EQ(scatter(x3, 1, i3, s3).to_vector<double>(), w3);
}

TEST(Scatter, ScalarValueForEveryDtype) {
  for (DType d : all_dtypes) {
    const Tensor x = cast(arange(12).reshape({3, 4}) - 5, d);
    const Tensor idx = from_vector<i64>(kIdx, {3, 3});
    const Tensor y = scatter(x, 1, idx, Scalar(1.0));
    EXPECT_TRUE(same(y, scatter(x, 1, idx, ones({3, 3}, d)))) << dtype_name(d);
  }
  // Converted as cast(): 2.75 into i32 is 2; a complex value needs a complex x.
  const Tensor xi = zeros({2, 2}, DType::i32);
  EXPECT_EQ(scatter(xi, 0, from_vector<i64>({1, 0}, {1, 2}), 2.75).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 2, 2, 0}));
  const Tensor z = zeros({2}, DType::c128);
  EXPECT_EQ(scatter(z, 0, from_vector<i64>({1}, {1}), Scalar(1, 2)).to_vector<c128>(),
            (std::vector<c128>{0, c128(1, 2)}));
  const Tensor xr = ones({2});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)scatter(xr, 0, from_vector<i64>({1}, {1}), Scalar(1, 2)); },
               {"scatter", "imaginary"});
  EXPECT_EQ(xr.to_vector<double>(), (std::vector<double>{1, 1}));
}

TEST(Scatter, GradientsZeroTheOverwrittenAndReachOnlyTheWinningWrites) {
  const Tensor x = randn({3, 4}, 4), src = randn({3, 3}, 5), w = randn({3, 4}, 6);
  const Tensor idx = from_vector<i64>(kIdx, {3, 3});
  auto g = grad([&](std::span<const Tensor> in) { return sum(w * scatter(in[0], 1, idx, in[1])); },
                {x, src});
  const std::vector<double> wv = w.to_vector<double>();
  std::vector<double> gx = wv, gs(9, 0.0);
  const std::vector<bool> win = winners(kIdx, 4, 3, 3);
  for (i64 r = 0; r < 3; ++r)
    for (i64 c = 0; c < 3; ++c) {
      i64 j = kIdx[static_cast<std::size_t>(r * 3 + c)];
      if (j < 0) j += 4;
      gx[static_cast<std::size_t>(r * 4 + j)] = 0;
      if (win[static_cast<std::size_t>(r * 3 + c)])
        gs[static_cast<std::size_t>(r * 3 + c)] = wv[static_cast<std::size_t>(r * 4 + j)];
    }
  EXPECT_EQ(g[0].to_vector<double>(), gx);
  EXPECT_EQ(g[1].to_vector<double>(), gs);
  // Row 0 loses position (0, 0) to (0, 2); row 2 keeps only (2, 2).
  EXPECT_EQ(gs[0], 0.0);
  EXPECT_EQ(gs[6], 0.0);
  EXPECT_EQ(gs[7], 0.0);
  // The scalar form is differentiable in x.
  auto gv =
      grad([&](std::span<const Tensor> in) { return sum(w * scatter(in[0], 1, idx, 3.0)); }, {x});
  EXPECT_EQ(gv[0].to_vector<double>(), gx);
}

TEST(Scatter, DerivativesMatchFiniteDifferences) {
  const Tensor idx = from_vector<i64>(kIdx, {3, 3});
  auto f = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{scatter(in[0], 1, idx, in[1])};
  };
  EXPECT_TRUE(adtest::check_vjp(f, {randn({3, 4}, 7), randn({3, 3}, 8)}));
  EXPECT_TRUE(adtest::check_jvp(f, {randn({3, 4}, 7), randn({3, 3}, 8)}));
  // Complex operands (conjugate-Wirtinger: the rule is linear, so the gradient is the mask).
  const Tensor zx = randn({3, 4}, 9, DType::c128), zs = randn({3, 3}, 10, DType::c128);
  EXPECT_TRUE(adtest::check_vjp(f, {zx, zs}));
  EXPECT_TRUE(adtest::check_jvp(f, {zx, zs}));
  // A smooth function around it, second order: forward over reverse (reverse over reverse is
  // not supported by the library, docs/autodiff.md).
  auto h = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{grad(
        [&](std::span<const Tensor> v) {
          const Tensor s = scatter(v[0], 1, idx, v[1]);
          return sum(s * s * s);
        },
        {in[0], in[1]})[1]};
  };
  EXPECT_TRUE(adtest::check_jvp(h, {randn({3, 4}, 11), randn({3, 3}, 12)}));
}

TEST(Scatter, BadInputAreTypedErrorsAndChangeNothing) {
  const Tensor x = arange(6).reshape({2, 3});
  const Tensor src = ones({2, 2});
  const Tensor before = copy(x);
  // The bad index is the last one: nothing is written before it is found.
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)scatter(x, 1, from_vector<i64>({0, 1, 2, 3}, {2, 2}), src);
               },
               {"scatter", "index 3", "[1, 1]", "axis 1", "size 3"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)scatter(x, 1, from_vector<i64>({-4, 0, 0, 0}, {2, 2}), src);
               },
               {"index -4", "[0, 0]", "-3 <= index < 3"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)scatter(x, 1, from_vector<i64>({9, 0, 0, 0}, {2, 2}), 1.0);
               },
               {"index 9"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] {
                 (void)scatter(x, 1, zeros({2, 2}), src);
               },
               {"integer dtype"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] {
                 (void)scatter(x, 1, zeros({2, 2}, DType::boolean), src);
               },
               {"integer dtype"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] {
                 (void)scatter(x, 1, zeros({2, 2}, DType::i64), ones({2, 2}, DType::f32));
               },
               {"scatter", "dtype"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)scatter(x, 1, zeros({2, 2}, DType::i64), ones({2, 1}));
               },
               {"scatter"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)scatter(x, 1, zeros({3, 1}, DType::i64), ones({3, 1}));
               },
               {"scatter"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] { (void)scatter(x, 1, zeros({2}, DType::i64), ones({2})); }, {"scatter"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)scatter(x, 2, zeros({2, 1}, DType::i64), ones({2, 1}));
               },
               {"axis 2"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)scatter(x, 0, Tensor(), src); },
               {"undefined"});
  EXPECT_TRUE(same(x, before));
  EXPECT_EQ(src.to_vector<double>(), (std::vector<double>(4, 1.0)));
}

TEST(Scatter, EagerTracedPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  // Values and both gradients (through the winner mask) of one program, and an integer scatter.
  auto f2 = [](std::span<const Tensor> in) {
    const Tensor y = scatter(in[0], 1, in[2], in[1]);
    auto g =
        grad([&](std::span<const Tensor> v) { return sum(square(scatter(v[0], 1, in[2], v[1]))); },
             {in[0], in[1]});
    return std::vector<Tensor>{
        y, scatter(in[0], 1, in[2], -1.5), g[0], g[1],
        scatter(cast(in[0] * 4.0, DType::i32), 1, in[2], cast(in[1] * 4.0, DType::i32))};
  };
  const std::vector<Tensor> in = {randn({3, 4}, 13), randn({3, 3}, 14),
                                  from_vector<i64>(kIdx, {3, 3})};
  const std::vector<ValueSpec> specs = {
      ValueSpec{{3, 4}, DType::f64}, ValueSpec{{3, 3}, DType::f64}, ValueSpec{{3, 3}, DType::i64}};
  expect_eager_prepared_scoped_bitwise(f2, specs, in);
  Program p = trace(f2, specs);
  // A bad index at run time is the same typed error in a prepared program.
  Runtime rt;
  const std::vector<Tensor> bad = {in[0], in[1],
                                   from_vector<i64>({0, 0, 0, 0, 4, 0, 0, 0, 0}, {3, 3})};
  expect_error(ErrorKind::InvalidArgument, [&] { (void)rt.run(rt.prepare(p), bad); },
               {"index 4", "[1, 1]"});
  // grad of a traced program: the x gradient is 1 off the overwritten positions.
  Program g = grad(trace(
      [](std::span<const Tensor> v) {
        return std::vector<Tensor>{sum(scatter(v[0], 0, v[1], v[2]))};
      },
      {ValueSpec{{3}, DType::f64}, ValueSpec{{2}, DType::i64}, ValueSpec{{2}, DType::f64}}));
  const std::vector<Tensor> gv = g({ones({3}), from_vector<i64>({1, 1}, {2}), ones({2})});
  ASSERT_EQ(gv.size(), 2u);
  EXPECT_EQ(gv[0].to_vector<double>(), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(gv[1].to_vector<double>(), (std::vector<double>{0, 1}));
}

}  // namespace
}  // namespace tenferro::testing
