// masked_fill, one_hot, nonzero, masked_select: values against loops written here, bad masks and
// indices as typed errors, the eager-only ops refused inside trace(), gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/agreement.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;

TEST(Masking, MaskedFillBroadcastsTheMaskAndKeepsTheDtype) {
  Tensor x = arange(6, DType::i32).reshape({2, 3});
  Tensor m = from_vector<bool>({true, false, true}, {3});
  Tensor y = masked_fill(x, m, -1);
  EXPECT_EQ(y.dtype(), DType::i32);
  EXPECT_EQ(y.to_vector<std::int32_t>(), (std::vector<std::int32_t>{-1, 1, -1, -1, 4, -1}));
  Tensor f = masked_fill(ones({2, 3}), gt(x, 2), -std::numeric_limits<double>::infinity());
  EXPECT_NEAR(softmax(f, 1).to_vector<double>()[0], 1.0 / 3.0, 1e-15);
  // Gradient: 0 where filled.
  auto g = grad([&](std::span<const Tensor> in) { return sum(masked_fill(in[0], m, 5.0)); },
                {zeros({2, 3})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0, 1, 0, 0, 1, 0}));
  expect_error([&] { (void)masked_fill(x, cast(m, DType::i64), 0); }, ErrorKind::DTypeMismatch,
               {"masked_fill", "bool"});
  expect_error(
      [&] {
        (void)masked_fill(ones({3}), from_vector<bool>({true, false}, {2, 1}), 0.0);
      },
      ErrorKind::ShapeMismatch, {});
  expect_error([&] { (void)masked_fill(ones({3}), ones({3}, DType::boolean), Scalar(0, 1)); },
               ErrorKind::DTypeMismatch, {"imaginary"});
}

TEST(Masking, OneHotChecksItsIndices) {
  Tensor idx = from_vector<i64>({2, 0, 3}, {3});
  Tensor y = one_hot(idx, 4);
  EXPECT_EQ(y.dtype(), DType::i64);
  EXPECT_EQ(y.shape(), (Dims{3, 4}));
  EXPECT_EQ(y.to_vector<i64>(), (std::vector<i64>{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
  Tensor yf = one_hot(cast(idx, DType::i32).reshape({3, 1}).transpose(), 5, DType::f32);
  EXPECT_EQ(yf.shape(), (Dims{1, 3, 5}));
  EXPECT_EQ(sum(yf).item<float>(), 3.0f);
  EXPECT_EQ(one_hot(zeros({0}, DType::i64), 3).shape(), (Dims{0, 3}));
  expect_error([&] { (void)one_hot(idx, 3); }, ErrorKind::InvalidArgument,
               {"one_hot", "index 3", "[0, 3)"});
  expect_error([] { (void)one_hot(from_vector<i64>({-1}, {1}), 3); }, ErrorKind::InvalidArgument,
               {"index -1"});
  expect_error([] { (void)one_hot(ones({1}), 3); }, ErrorKind::DTypeMismatch, {"integer dtype"});
  expect_error([&] { (void)one_hot(idx, -1); }, ErrorKind::InvalidArgument, {"negative"});
  // Traced: a fixed shape, so it is a primitive like any other.
  Program p =
      trace([](std::span<const Tensor> in) { return std::vector<Tensor>{one_hot(in[0], 4)}; },
            {ValueSpec{{3}, DType::i64}});
  EXPECT_EQ(p({idx})[0].to_vector<i64>(), y.to_vector<i64>());
}

TEST(Masking, NonzeroAndMaskedSelectAreRowMajorAndEagerOnly) {
  Tensor x = from_vector<double>({0, 1.5, 0, std::nan(""), -2, 0}, {2, 3});
  Tensor nz = nonzero(x);
  EXPECT_EQ(nz.dtype(), DType::i64);
  EXPECT_EQ(nz.shape(), (Dims{3, 2}));
  EXPECT_EQ(nz.to_vector<i64>(), (std::vector<i64>{0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(nonzero(x.transpose()).to_vector<i64>(), (std::vector<i64>{0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(nonzero(zeros({2, 2})).shape(), (Dims{0, 2}));
  EXPECT_EQ(nonzero(scalar_tensor(3.0)).shape(), (Dims{1, 0}));
  EXPECT_EQ(nonzero(scalar_tensor(0.0)).shape(), (Dims{0, 0}));

  Tensor v = arange(6).reshape({2, 3});
  Tensor m = from_vector<bool>({false, true, true}, {3});
  EXPECT_EQ(masked_select(v, m).to_vector<double>(), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(masked_select(v, from_vector<bool>({true, false}, {2, 1})).to_vector<double>(),
            (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(masked_select(v, zeros({2, 3}, DType::boolean)).shape(), (Dims{0}));
  auto g =
      grad([&](std::span<const Tensor> in) { return sum(masked_select(in[0], m) * 3.0); }, {v});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0, 3, 3, 0, 3, 3}));
  expect_error([&] { (void)masked_select(v, gt(v, 2.0).reshape({6})); }, ErrorKind::ShapeMismatch,
               {"masked_select"});
  expect_error([&] { (void)masked_select(v, ones({3})); }, ErrorKind::DTypeMismatch, {"bool"});
  expect_error(
      [] {
        (void)trace([](std::span<const Tensor> in) { return std::vector<Tensor>{nonzero(in[0])}; },
                    {ValueSpec{{3}}});
      },
      ErrorKind::Unsupported, {"nonzero", "trace"});
  expect_error(
      [] {
        (void)trace(
            [](std::span<const Tensor> in) {
              return std::vector<Tensor>{masked_select(in[0], gt(in[0], 0.0))};
            },
            {ValueSpec{{3}}});
      },
      ErrorKind::Unsupported, {"masked_select"});
}

}  // namespace
}  // namespace tenferro::testing

namespace tenferro::testing {
namespace {

// masked_fill, one_hot, flip, roll, a negative-step slice and diagonal inside one program.
TEST(Masking, EagerPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  auto f = [](std::span<const Tensor> in) {
    Tensor filled = masked_fill(in[0], gt(in[0], 0.5), -1.0);
    Tensor hot = one_hot(in[1], 6, DType::f64);  // [5, 6]
    Tensor r = roll(flip(filled, {0}), 2, 1);
    return std::vector<Tensor>{
        filled,    hot, r, slice(r, 1, -1, -7, -2), diagonal(matmul(hot, transpose(r)), 1),
        sum(r * r)};
  };
  const Tensor x = randn({5, 6}, 12);
  const Tensor idx = from_vector<i64>({5, 0, 2, 2, 1}, {5});
  const Tensor in[2] = {x, idx};
  expect_eager_prepared_scoped_bitwise(
      f, {ValueSpec{{5, 6}, DType::f64}, ValueSpec{{5}, DType::i64}}, in);
}

}  // namespace
}  // namespace tenferro::testing
