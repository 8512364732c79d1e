// take_along_axis / gather / index_select / scatter_add / index_add / max_with_indices: values
// against loops over indices written here, every dtype, negative and broadcast indices, bad
// indices as typed errors (nothing written), derivatives by finite differences, and eager =
// traced = prepared results.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;

TEST(Indexing, TakeAlongAxisMatchesALoopForEveryDtypeAndNegativeIndices) {
  // x [3, 4], indices [3, 2] along axis 1 with negative entries.
  const std::vector<i64> iv = {0, -1, 3, 1, -4, 2};
  for (DType d : all_dtypes) {
    Tensor x = cast(arange(12).reshape({3, 4}) - 5, d);
    Tensor idx = from_vector<i64>(iv, {3, 2});
    Tensor y = take_along_axis(x, idx, 1);
    ASSERT_EQ(y.dtype(), d);
    ASSERT_EQ(y.shape(), (Dims{3, 2}));
    std::vector<double> w;
    for (i64 r = 0; r < 3; ++r)
      for (i64 c = 0; c < 2; ++c) {
        i64 j = iv[static_cast<std::size_t>(r * 2 + c)];
        if (j < 0) j += 4;
        w.push_back(static_cast<double>(r * 4 + j - 5));
      }
    EXPECT_TRUE(all(eq(y, cast(from_vector<double>(w, {3, 2}), d))).item<bool>()) << dtype_name(d);
    // i32 indices and the PyTorch spelling give the same.
    EXPECT_TRUE(all(eq(gather(x, -1, cast(idx, DType::i32)), y)).item<bool>());
  }
}

TEST(Indexing, TakeAlongAxisBroadcastsOffTheAxisAndReadsStridedInputs) {
  // x [2, 1, 3] (broadcast along dim 1), indices [1, 4, 2] along axis 2, x transposed source.
  Tensor base = from_vector<double>({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor x = base.transpose().reshape({2, 1, 3});  // [[1,3,5]],[[2,4,6]]
  Tensor idx = from_vector<i64>({0, 2, 1, 1, 2, 0, 0, 0}, {1, 4, 2});
  Tensor y = take_along_axis(x, idx, 2);
  ASSERT_EQ(y.shape(), (Dims{2, 4, 2}));
  const std::vector<double> xv = x.contiguous().to_vector<double>();
  const std::vector<i64> jv = idx.to_vector<i64>();
  std::vector<double> want;
  for (i64 a = 0; a < 2; ++a)
    for (i64 b = 0; b < 4; ++b)
      for (i64 c = 0; c < 2; ++c)
        want.push_back(
            xv[static_cast<std::size_t>(a * 3 + jv[static_cast<std::size_t>(b * 2 + c)])]);
  EXPECT_EQ(y.to_vector<double>(), want);
}

TEST(Indexing, IndexSelectAndIndexAdd) {
  Tensor x = arange(12).reshape({3, 4});
  Tensor sel = index_select(x, 0, from_vector<i64>({2, 0, 2}, {3}));
  EXPECT_EQ(sel.shape(), (Dims{3, 4}));
  EXPECT_EQ(sel.to_vector<double>(), (std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(index_select(x, -1, from_vector<i64>({3}, {1})).to_vector<double>(),
            (std::vector<double>{3, 7, 11}));
  // index_add with a repeated index accumulates.
  Tensor src = ones({3, 2});
  Tensor r = index_add(zeros({3, 4}), 1, from_vector<i64>({1, 1}, {2}), src);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0}));
  // Integers.
  Tensor xi = from_vector<std::int32_t>({1, 2, 3}, {3});
  EXPECT_EQ(index_add(xi, 0, from_vector<i64>({0, 2, 0}, {3}),
                      from_vector<std::int32_t>({10, 20, 30}, {3}))
                .to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{41, 2, 23}));
}

TEST(Indexing, ScatterAddMatchesALoopAndIsTheAdjointOfTakeAlongAxis) {
  Tensor x = from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor idx = from_vector<i64>({2, 2, 0, -3, 1, 1, 1, 0}, {2, 4});
  Tensor src = from_vector<double>({1, 10, 100, 1000, 2, 20, 200, 2000}, {2, 4});
  Tensor y = scatter_add(x, 1, idx, src);
  std::vector<double> want = {1, 2, 3, 4, 5, 6};
  const std::vector<i64> jv = idx.to_vector<i64>();
  const std::vector<double> sv = src.to_vector<double>();
  for (i64 r = 0; r < 2; ++r)
    for (i64 c = 0; c < 4; ++c) {
      i64 j = jv[static_cast<std::size_t>(r * 4 + c)];
      if (j < 0) j += 3;
      want[static_cast<std::size_t>(r * 3 + j)] += sv[static_cast<std::size_t>(r * 4 + c)];
    }
  EXPECT_EQ(y.to_vector<double>(), want);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));  // x untouched
  // <take(a, idx), b> == <a, scatter_add(0, idx, b)> for random a, b.
  Tensor a = randn({2, 3}, 1), b = randn({2, 4}, 2);
  const double lhs = sum(take_along_axis(a, idx, 1) * b).item<double>();
  const double rhs = sum(a * scatter_add(zeros({2, 3}), 1, idx, b)).item<double>();
  EXPECT_NEAR(lhs, rhs, 1e-12);
}

TEST(Indexing, DerivativesMatchFiniteDifferences) {
  const Tensor idx = from_vector<i64>({2, 0, 2, 1, -1, 0}, {3, 2});
  const Tensor x = randn({3, 3}, 3);
  auto take = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{take_along_axis(in[0], idx, 1)};
  };
  EXPECT_TRUE(adtest::check_vjp(take, {x}));
  EXPECT_TRUE(adtest::check_jvp(take, {x}));
  // Broadcast x: the gradient sums over the broadcast dimension.
  const Tensor xb = randn({1, 3}, 4);
  EXPECT_TRUE(adtest::check_vjp(take, {xb}));
  const Tensor src = randn({3, 2}, 5);
  auto scat = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{scatter_add(in[0], 1, idx, in[1])};
  };
  EXPECT_TRUE(adtest::check_vjp(scat, {x, src}));
  EXPECT_TRUE(adtest::check_jvp(scat, {x, src}));
  const Tensor z = randn({3, 3}, 6, DType::c128);
  EXPECT_TRUE(adtest::check_vjp(take, {z}));
  // Second order through the gather: d2/dx2 of sum(take(x)^3).
  auto cube = [&](std::span<const Tensor> in) {
    return std::vector<Tensor>{grad(
        [&](std::span<const Tensor> v) {
          Tensor t = take_along_axis(v[0], idx, 1);
          return sum(t * t * t);
        },
        {in[0]})[0]};
  };
  EXPECT_TRUE(adtest::check_jvp(cube, {x}));  // forward over reverse
}

TEST(Indexing, MaxWithIndicesSendsTheGradientToTheChosenElement) {
  Tensor x = from_vector<double>({1, 7, 7, 3, -2, 0}, {2, 3});
  auto [v, k] = max_with_indices(x, 1);
  EXPECT_EQ(v.to_vector<double>(), (std::vector<double>{7, 3}));
  EXPECT_EQ(k.dtype(), DType::i64);
  EXPECT_EQ(k.to_vector<i64>(), (std::vector<i64>{1, 0}));
  auto [vm, km] = min_with_indices(x, 0, true);
  EXPECT_EQ(vm.shape(), (Dims{1, 3}));
  EXPECT_EQ(vm.to_vector<double>(), (std::vector<double>{1, -2, 0}));
  EXPECT_EQ(km.to_vector<i64>(), (std::vector<i64>{0, 1, 1}));
  // The tie at (0, 1)/(0, 2): the whole gradient goes to the first, unlike max(x, axes).
  auto g =
      grad([](std::span<const Tensor> in) { return sum(max_with_indices(in[0], 1).values); }, {x});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0, 1, 0, 1, 0, 0}));
  auto gs = grad([](std::span<const Tensor> in) { return sum(max(in[0], {1})); }, {x});
  EXPECT_EQ(gs[0].to_vector<double>(), (std::vector<double>{0, 0.5, 0.5, 1, 0, 0}));
  EXPECT_FALSE(k.requires_grad());
  expect_error([] { (void)max_with_indices(ones({2}, DType::c64), 0); }, ErrorKind::DTypeMismatch,
               {"argmax"});
}

TEST(Indexing, BadIndicesAreTypedErrorsAndWriteNothing) {
  Tensor x = arange(6).reshape({2, 3});
  const Tensor before = copy(x);
  expect_error(
      [&] {
        (void)take_along_axis(x, from_vector<i64>({0, 3}, {2, 1}), 1);
      },
      ErrorKind::InvalidArgument, {"take_along_axis", "index 3", "[1, 0]", "size 3"});
  expect_error(
      [&] {
        (void)take_along_axis(x, from_vector<i64>({-4}, {1, 1}), 1);
      },
      ErrorKind::InvalidArgument, {"index -4", "-3 <= index < 3"});
  expect_error([&] { (void)index_select(x, 0, from_vector<i64>({2}, {1})); },
               ErrorKind::InvalidArgument, {"index 2", "size 2"});
  expect_error(
      [&] {
        (void)scatter_add(x, 1, from_vector<i64>({0, 9}, {2, 1}), ones({2, 1}));
      },
      ErrorKind::InvalidArgument, {"scatter_add", "index 9"});
  expect_error(
      [&] {
        (void)take_along_axis(x, from_vector<double>({0}, {1, 1}), 1);
      },
      ErrorKind::DTypeMismatch, {"integer dtype"});
  expect_error(
      [&] {
        (void)take_along_axis(x, from_vector<bool>({true}, {1, 1}), 1);
      },
      ErrorKind::DTypeMismatch, {"integer dtype"});
  expect_error([&] { (void)take_along_axis(x, from_vector<i64>({0}, {1}), 1); },
               ErrorKind::ShapeMismatch, {"rank"});
  expect_error(
      [&] {
        (void)take_along_axis(x, zeros({3, 1}, DType::i64), 1);
      },
      ErrorKind::ShapeMismatch, {"dimension 0"});
  expect_error(
      [&] {
        (void)take_along_axis(x, zeros({2, 1}, DType::i64), 2);
      },
      ErrorKind::InvalidArgument, {"axis 2"});
  expect_error(
      [&] {
        (void)index_select(x, 0, zeros({1, 1}, DType::i64));
      },
      ErrorKind::ShapeMismatch, {"rank 1"});
  expect_error(
      [&] {
        (void)scatter_add(x, 1, zeros({2, 1}, DType::i64), ones({2, 2}));
      },
      ErrorKind::ShapeMismatch, {"scatter_add"});
  expect_error(
      [&] {
        (void)scatter_add(x, 1, zeros({2, 1}, DType::i64), ones({2, 1}, DType::f32));
      },
      ErrorKind::DTypeMismatch, {"scatter_add"});
  EXPECT_TRUE(all(eq(x, before)).item<bool>());
  // Empty index lists are fine.
  EXPECT_EQ(index_select(x, 1, zeros({0}, DType::i64)).shape(), (Dims{2, 0}));
}

// Index tensors of every integer dtype (NumPy's take accepts them all; bool stays refused):
// the same values as i64 indices in every index-taking op, strided index tensors included; an
// unsigned index is never negative (u8 255 is 255, out of range, not -1), and a u64 index above
// INT64_MAX is out of range by its own value (never wrapped to a negative index).
TEST(Indexing, EveryIntegerDtypeIndexesAsI64AndU64AboveInt64MaxIsOutOfRange) {
  const DType index_dtypes[] = {DType::i8, DType::i16, DType::i32, DType::i64,
                                DType::u8, DType::u16, DType::u32, DType::u64};
  auto equal = [](const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && all(eq(a, b)).item<bool>();
  };
  const Tensor x = arange(12).reshape({3, 4});
  const Tensor idx64 = from_vector<i64>({0, 3, 1, 2, 2, 0}, {3, 2});
  const Tensor sel64 = from_vector<i64>({3, 0, 3}, {3});
  const Tensor reps64 = from_vector<i64>({1, 0, 2}, {3});
  const Tensor x1 = from_vector<double>({3.0, 1.0, 2.0}, {3}), x2 = from_vector<double>({2.5}, {1});
  for (DType d : index_dtypes) {
    SCOPED_TRACE(dtype_name(d));
    const Tensor idx = cast(idx64, d);
    EXPECT_TRUE(equal(take_along_axis(x, idx, 1), take_along_axis(x, idx64, 1)));
    // Strided (transposed) indices read through their strides.
    EXPECT_TRUE(equal(take_along_axis(x.transpose(), idx.transpose(), 0),
                      take_along_axis(x.transpose(), idx64.transpose(), 0)));
    EXPECT_TRUE(equal(index_select(x, 1, cast(sel64, d)), index_select(x, 1, sel64)));
    EXPECT_TRUE(equal(scatter_add(zeros({3, 4}), 1, idx, ones({3, 2})),
                      scatter_add(zeros({3, 4}), 1, idx64, ones({3, 2}))));
    EXPECT_TRUE(equal(index_add(zeros({3, 4}), 1, cast(sel64, d), ones({3, 3})),
                      index_add(zeros({3, 4}), 1, sel64, ones({3, 3}))));
    EXPECT_TRUE(equal(scatter(x, 1, idx, 7.0), scatter(x, 1, idx64, 7.0)));
    EXPECT_TRUE(equal(one_hot(idx.transpose(), 4), one_hot(idx64.transpose(), 4)));
    EXPECT_TRUE(equal(repeat_interleave(x, cast(reps64, d), 0), repeat_interleave(x, reps64, 0)));
    const Tensor order = argsort(x1);
    EXPECT_TRUE(equal(searchsorted(x1, x2, SearchSide::left, cast(order, d)),
                      searchsorted(x1, x2, SearchSide::left, order)));
    // -1: the last element for a signed dtype; the dtype's maximum (out of range) for unsigned.
    const Tensor minus1 = cast(from_vector<i64>({-1}, {1, 1}), d);
    if (is_signed_integer(d)) {
      EXPECT_EQ(take_along_axis(arange(4).reshape({1, 4}), minus1, 1).item<double>(), 3.0);
    } else {
      const std::string max = d == DType::u8    ? "255"
                              : d == DType::u16 ? "65535"
                              : d == DType::u32 ? "4294967295"
                                                : "18446744073709551615";
      const std::string needle = "index " + max;
      expect_error([&] { (void)take_along_axis(x, minus1, 1); }, ErrorKind::InvalidArgument,
                   {"take_along_axis", needle.c_str(), "size 4"});
    }
  }
  // u64 above INT64_MAX: InvalidArgument naming the value, in every op; nothing wrapped.
  const Tensor big = from_vector<std::uint64_t>({0, 9223372036854775808ULL}, {1, 2});
  expect_error([&] { (void)take_along_axis(x, big, 1); }, ErrorKind::InvalidArgument,
               {"take_along_axis", "index 9223372036854775808", "size 4"});
  expect_error([&] { (void)index_select(x, 1, big.reshape({2})); }, ErrorKind::InvalidArgument,
               {"index 9223372036854775808"});
  expect_error(
      [&] {
        (void)scatter_add(zeros({1, 4}), 1, big, ones({1, 2}));
      },
      ErrorKind::InvalidArgument, {"scatter_add", "index 9223372036854775808"});
  expect_error(
      [&] {
        (void)scatter(zeros({1, 4}), 1, big, 1.0);
      },
      ErrorKind::InvalidArgument, {"scatter", "index 9223372036854775808"});
  expect_error([&] { (void)one_hot(big, 4); }, ErrorKind::InvalidArgument,
               {"one_hot", "index 9223372036854775808", "[0, 4)"});
  expect_error(
      [&] {
        (void)repeat_interleave(from_vector<double>({1.0, 2.0}, {2}), big.reshape({2}), 0);
      },
      ErrorKind::InvalidArgument,
      {"repeat_interleave", "repeats[1] = 9223372036854775808", "too large"});
  expect_error(
      [&] {
        (void)searchsorted(from_vector<double>({1.0, 2.0}, {2}), x2, SearchSide::left,
                           big.reshape({2}));
      },
      ErrorKind::InvalidArgument, {"searchsorted", "sorter", "index 9223372036854775808"});
  // A negative i8 count is still refused, with its value.
  expect_error(
      [&] {
        (void)repeat_interleave(from_vector<double>({1.0}, {1}),
                                cast(from_vector<i64>({-2}, {1}), DType::i8), 0);
      },
      ErrorKind::InvalidArgument, {"repeats[0] = -2", "negative"});
}

TEST(Indexing, TracedAndPreparedMatchEager) {
  const Tensor idx = from_vector<i64>({3, 0, 1, 1}, {4});
  auto f = [](std::span<const Tensor> in) {
    Tensor s = index_select(in[0], 1, in[1]);
    auto [v, k] = max_with_indices(s, 0);
    return std::vector<Tensor>{
        s, v, k, scatter_add(in[0], 1, broadcast_to(reshape(in[1], {1, 4}), {3, 4}), s)};
  };
  const Tensor x = randn({3, 4}, 9);
  const Tensor in[2] = {x, idx};
  Program p = trace(f, {ValueSpec{{3, 4}, DType::f64}, ValueSpec{{4}, DType::i64}});
  Runtime rt;
  const std::vector<Tensor> want = f(in), got = rt.run(rt.prepare(p), in);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t o = 0; o < want.size(); ++o)
    EXPECT_TRUE(all(eq(got[o], want[o])).item<bool>()) << o;
  // A bad index at run time is the same typed error in a prepared program.
  const Tensor bad[2] = {x, from_vector<i64>({0, 0, 4, 0}, {4})};
  expect_error([&] { (void)rt.run(rt.prepare(p), bad); }, ErrorKind::InvalidArgument, {"index 4"});
  // grad of a program through the gather.
  Program g = grad(trace(
      [](std::span<const Tensor> in) {
        return std::vector<Tensor>{sum(index_select(in[0], 0, in[1]))};
      },
      {ValueSpec{{3}, DType::f64}, ValueSpec{{4}, DType::i64}}));
  const Tensor idx3 = from_vector<i64>({2, 0, 1, -2}, {4});  // 1 twice
  EXPECT_EQ(g({ones({3}), idx3})[0].to_vector<double>(), (std::vector<double>{1, 2, 1}));
}

}  // namespace
}  // namespace tenferro::testing
