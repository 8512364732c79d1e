// bool, i32 and i64: promotion, casts, integer arithmetic (wrapping), comparisons and logical ops
// (bool results), where with a bool mask, reductions (sum in i64, any/all/count_nonzero,
// argmax/argmin), structural ops, factories, printing, the autodiff and trace boundaries, and
// eager = prepared = in-scope results. References are loops over indices written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/agreement.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;
constexpr i32 kI32Max = std::numeric_limits<i32>::max(), kI32Min = std::numeric_limits<i32>::min();
constexpr i64 kI64Max = std::numeric_limits<i64>::max(), kI64Min = std::numeric_limits<i64>::min();

// Two's-complement wrap of an exact 128-bit result into T (the reference for wrapping ops).
template <class T>
T wrap(__int128 v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<unsigned __int128>(v)));
}

// ---- promotion ----

TEST(IntegerDTypes, PromotionTableAndItsLaws) {
  // The seven original dtypes (the 8-16 bit and unsigned integers: small_int_dtypes_test.cpp).
  using D = DType;
  const D b = D::boolean, i = D::i32, l = D::i64, f = D::f32, d = D::f64, c = D::c64, z = D::c128;
  const D order[7] = {b, i, l, f, d, c, z};
  const D table[7][7] = {
      {b, i, l, f, d, c, z}, {i, i, l, f, d, c, z}, {l, l, l, f, d, c, z}, {f, f, f, f, d, c, z},
      {d, d, d, d, d, z, z}, {c, c, c, c, z, c, z}, {z, z, z, z, z, z, z},
  };
  for (std::size_t r = 0; r < 7; ++r)
    for (std::size_t k = 0; k < 7; ++k)
      EXPECT_EQ(promote(order[r], order[k]), table[r][k])
          << dtype_name(order[r]) << " + " << dtype_name(order[k]);
  for (D x : order)
    for (D y : order)
      for (D w : order) EXPECT_EQ(promote(promote(x, y), w), promote(x, promote(y, w)));
  EXPECT_EQ(dtype_name(D::boolean), "bool");
  EXPECT_EQ(dtype_size(D::boolean), 1u);
  EXPECT_EQ(dtype_size(D::i32), 4u);
  EXPECT_EQ(dtype_size(D::i64), 8u);
}

// is_lossless_cast(from, to) holds exactly when every probe value of `from` survives the trip
// from -> to -> from; each lossy pair has a probe that shows it.
TEST(IntegerDTypes, LosslessCastsAreExactlyTheValuePreservingOnes) {
  auto probes = [](DType d) -> Tensor {
    switch (d) {
      case DType::boolean:
        return from_vector<bool>({false, true}, {2});
      case DType::i32:
        return from_vector<i32>({kI32Min, -1, 0, 1, (1 << 24) + 1, kI32Max}, {6});
      case DType::i64:
        return from_vector<i64>({kI64Min, -(i64{1} << 53) - 1, 0, (i64{1} << 53) + 1, kI64Max},
                                {5});
      case DType::i8:
        return from_vector<std::int8_t>({-128, -1, 0, 1, 127}, {5});
      case DType::i16:
        return from_vector<std::int16_t>({-32768, -129, -1, 128, 32767}, {5});
      case DType::u8:
        return from_vector<std::uint8_t>({0, 1, 128, 255}, {4});
      case DType::u16:
        return from_vector<std::uint16_t>({0, 255, 256, 65535}, {4});
      case DType::u32:
        return from_vector<std::uint32_t>({0, (1u << 24) + 1, 1u << 31, 0xFFFFFFFFu}, {4});
      case DType::u64:
        return from_vector<std::uint64_t>(
            {0, (std::uint64_t{1} << 53) + 1, std::uint64_t{1} << 63, ~std::uint64_t{0}}, {4});
      case DType::f32:
        return from_vector<float>({0.1f, -2.5f, 3e38f, 1e-45f}, {4});
      case DType::f64:
        return from_vector<double>({0.1, -2.5, 1e300, 4.9e-324}, {4});
      case DType::c64:
        return from_vector<c64>({{0.1f, -0.3f}, {2.5f, 1.0f}}, {2});
      case DType::c128:
        break;
    }
    return from_vector<c128>({{0.1, -0.3}, {1e300, 0.7}}, {2});
  };
  for (DType from : all_dtypes)
    for (DType to : all_dtypes) {
      Tensor x = probes(from);
      Tensor y = cast(x, to);
      Tensor back = cast(y, from);
      // Integer casts are modular, so i8 -> u8 -> i8 round-trips; the value changed sign on the
      // way (-1 became 255), which the sign comparison catches.
      const bool same_sign = is_complex(from) || is_complex(to) ||
                             all(eq(lt(x, Scalar(0.0)), lt(y, Scalar(0.0)))).item<bool>();
      const bool survives = all(eq(back, x)).item<bool>() && same_sign;
      EXPECT_EQ(is_lossless_cast(from, to), survives)
          << dtype_name(from) << " -> " << dtype_name(to);
      if (is_lossless_cast(from, to))
        EXPECT_TRUE(all(eq(cast(convert(x, to), from), x)).item<bool>());
      else
        expect_error([&] { (void)convert(x, to); }, ErrorKind::DTypeMismatch,
                     {"convert", dtype_name(from).data(), "cast()"});
    }
}

// ---- casts ----

TEST(IntegerDTypes, FloatToIntegerTruncatesSaturatesAndMapsNanToZero) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Tensor x = from_vector<double>(
      {2.7, -2.7, 0.5, -0.0, nan, 1e30, -1e30, inf, -inf, 2147483647.9, -2147483648.9}, {11});
  EXPECT_EQ(
      cast(x, DType::i32).to_vector<i32>(),
      (std::vector<i32>{2, -2, 0, 0, 0, kI32Max, kI32Min, kI32Max, kI32Min, kI32Max, kI32Min}));
  EXPECT_EQ(cast(x, DType::i64).to_vector<i64>(),
            (std::vector<i64>{2, -2, 0, 0, 0, kI64Max, kI64Min, kI64Max, kI64Min, 2147483647,
                              -2147483648}));
  EXPECT_EQ(cast(x, DType::boolean).to_vector<bool>(),
            (std::vector<bool>{true, true, true, false, true, true, true, true, true, true, true}));
  // f32 keeps its own saturation bound; complex keeps the real part.
  EXPECT_EQ(cast(from_vector<float>({3e9f, -3e9f}, {2}), DType::i32).to_vector<i32>(),
            (std::vector<i32>{kI32Max, kI32Min}));
  EXPECT_EQ(cast(from_vector<c128>({{-3.9, 5}, {0, 1}}, {2}), DType::i64).to_vector<i64>(),
            (std::vector<i64>{-3, 0}));
  EXPECT_EQ(cast(from_vector<c128>({{0, 1}, {0, 0}}, {2}), DType::boolean).to_vector<bool>(),
            (std::vector<bool>{true, false}));
  // i64 -> i32 keeps the low 32 bits; bool -> numbers is 0/1.
  EXPECT_EQ(
      cast(from_vector<i64>({(i64{1} << 32) + 5, -1, kI64Max}, {3}), DType::i32).to_vector<i32>(),
      (std::vector<i32>{5, -1, -1}));
  EXPECT_EQ(cast(from_vector<bool>({true, false}, {2}), DType::f64).to_vector<double>(),
            (std::vector<double>{1.0, 0.0}));
  // A strided (transposed) source converts element by element in logical order.
  Tensor t = from_vector<i64>({1, 2, 3, 4, 5, 6}, {2, 3}).transpose();
  EXPECT_EQ(cast(t, DType::f32).to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

// ---- integer arithmetic ----

TEST(IntegerDTypes, ArithmeticWrapsLikeTwosComplementAndBroadcasts) {
  const std::vector<i32> av = {kI32Max, kI32Min, -7, 0, 123456, 46341};
  const std::vector<i32> bv = {1, -1, 3};  // broadcast along the last axis
  Tensor a = from_vector<i32>(av, {2, 3}), b = from_vector<i32>(bv, {3});
  struct Case {
    const char* name;
    Tensor got;
    __int128 (*ref)(__int128, __int128);
  };
  const Case cases[] = {
      {"add", a + b, [](__int128 x, __int128 y) { return x + y; }},
      {"sub", a - b, [](__int128 x, __int128 y) { return x - y; }},
      {"mul", a * b, [](__int128 x, __int128 y) { return x * y; }},
      {"maximum", maximum(a, b), [](__int128 x, __int128 y) { return x > y ? x : y; }},
      {"minimum", minimum(a, b), [](__int128 x, __int128 y) { return x < y ? x : y; }},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(c.got.dtype(), DType::i32) << c.name;
    ASSERT_EQ(c.got.shape(), (Dims{2, 3})) << c.name;
    const std::vector<i32> g = c.got.to_vector<i32>();
    for (std::size_t k = 0; k < 6; ++k)
      EXPECT_EQ(g[k], wrap<i32>(c.ref(av[k], bv[k % 3]))) << c.name << " at " << k;
  }
  const std::vector<i32> neg_v = neg(a).to_vector<i32>(), abs_v = abs(a).to_vector<i32>(),
                         sq_v = square(a).to_vector<i32>(), sg_v = sign(a).to_vector<i32>();
  for (std::size_t k = 0; k < 6; ++k) {
    const __int128 x = av[k];
    EXPECT_EQ(neg_v[k], wrap<i32>(-x)) << k;
    EXPECT_EQ(abs_v[k], wrap<i32>(x < 0 ? -x : x)) << k;  // |INT_MIN| wraps to INT_MIN
    EXPECT_EQ(sq_v[k], wrap<i32>(x * x)) << k;
    EXPECT_EQ(sg_v[k], (x > 0) - (x < 0)) << k;
  }
  // i64 wraps at 64 bits.
  Tensor l = from_vector<i64>({kI64Max, kI64Min}, {2});
  EXPECT_EQ((l + i64{1}).to_vector<i64>(), (std::vector<i64>{kI64Min, kI64Min + 1}));
  EXPECT_EQ((l * 2).to_vector<i64>(), (std::vector<i64>{-2, 0}));
}

TEST(IntegerDTypes, MixedOperandsPromoteAndScalarsKeepOrWidenTheDtype) {
  Tensor i = from_vector<i32>({1, 2, 3}, {3});
  Tensor l = from_vector<i64>({10, 20, 30}, {3});
  Tensor m = from_vector<bool>({true, false, true}, {3});
  Tensor f = from_vector<float>({0.5f, 0.25f, 0.125f}, {3});
  EXPECT_EQ((i + l).dtype(), DType::i64);
  EXPECT_EQ((i + l).to_vector<i64>(), (std::vector<i64>{11, 22, 33}));
  EXPECT_EQ((l + f).dtype(), DType::f32);
  EXPECT_EQ((l + f).to_vector<float>(), (std::vector<float>{10.5f, 20.25f, 30.125f}));
  EXPECT_EQ((m + i).dtype(), DType::i32);
  EXPECT_EQ((m + i).to_vector<i32>(), (std::vector<i32>{2, 2, 4}));
  // Whole-number scalars keep the integer dtype; fractional or out-of-range ones give f64.
  EXPECT_EQ((i + 2).dtype(), DType::i32);
  EXPECT_EQ((i * 2.0).to_vector<i32>(), (std::vector<i32>{2, 4, 6}));
  EXPECT_EQ((i * 0.5).dtype(), DType::f64);
  EXPECT_EQ((i * 0.5).to_vector<double>(), (std::vector<double>{0.5, 1.0, 1.5}));
  EXPECT_EQ((i + 3e9).dtype(), DType::f64);
  EXPECT_EQ((l + 3e9).dtype(), DType::i64);
  EXPECT_EQ((m + 1).dtype(), DType::i64);
  EXPECT_EQ((m + 1).to_vector<i64>(), (std::vector<i64>{2, 1, 2}));
  EXPECT_EQ((i * Scalar(0, 1)).dtype(), DType::c128);
  EXPECT_EQ(sub(10, i).to_vector<i32>(), (std::vector<i32>{9, 8, 7}));
  // Division and the analytic functions compute in f64.
  EXPECT_EQ((i / from_vector<i32>({2, 2, 2}, {3})).dtype(), DType::f64);
  EXPECT_EQ((i / from_vector<i32>({2, 2, 2}, {3})).to_vector<double>(),
            (std::vector<double>{0.5, 1.0, 1.5}));
  EXPECT_EQ(exp(i).dtype(), DType::f64);
  const std::vector<double> e = exp(i).to_vector<double>();
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(e[k], std::exp(k + 1.0), 1e-14 * e[k]);
  EXPECT_EQ(pow(i, 2).to_vector<double>(), (std::vector<double>{1, 4, 9}));
  EXPECT_EQ(sqrt(m).to_vector<double>(), (std::vector<double>{1, 0, 1}));
}

TEST(IntegerDTypes, ArithmeticOnBoolIsATypedError) {
  Tensor m = from_vector<bool>({true, false}, {2});
  for (auto f : {+[](const Tensor& x) { return x + x; }, +[](const Tensor& x) { return x * x; },
                 +[](const Tensor& x) { return x - x; }, +[](const Tensor& x) { return -x; },
                 +[](const Tensor& x) { return square(x); }})
    expect_error([&] { (void)f(m); }, ErrorKind::DTypeMismatch, {"bool", "logical"});
}

// ---- comparisons, logical ops, where ----

TEST(IntegerDTypes, ComparisonsAndLogicalOpsReturnBool) {
  Tensor a = from_vector<i64>({-2, 0, 5, kI64Max}, {4});
  Tensor b = from_vector<i32>({-2, 1, 4, -1}, {4});
  struct Case {
    const char* name;
    Tensor got;
    std::vector<bool> want;
  };
  const Case cases[] = {
      {"eq", eq(a, b), {true, false, false, false}},
      {"ne", ne(a, b), {false, true, true, true}},
      {"lt", lt(a, b), {false, true, false, false}},
      {"le", le(a, b), {true, true, false, false}},
      {"gt", gt(a, b), {false, false, true, true}},
      {"ge", ge(a, b), {true, false, true, true}},
      {"gt scalar", gt(a, 0), {false, false, true, true}},
      {"lt fractional scalar", lt(a, 0.5), {true, true, false, false}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.got.dtype(), DType::boolean) << c.name;
    EXPECT_EQ(c.got.to_vector<bool>(), c.want) << c.name;
  }
  // i64 values beyond 2^53 compare exactly (no detour through double).
  Tensor big = from_vector<i64>({(i64{1} << 53) + 1}, {1});
  EXPECT_FALSE(eq(big, from_vector<i64>({i64{1} << 53}, {1})).item<bool>());
  // Floats compare as floats; NaN is unequal to itself.
  Tensor f = from_vector<double>({1.0, std::nan("")}, {2});
  EXPECT_EQ(eq(f, f).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(eq(from_vector<c64>({{1, 2}}, {1}), from_vector<c64>({{1, 2}}, {1})).dtype(),
            DType::boolean);

  // Truth tables on bool, and mixed dtypes read as non-zero (NaN and 0+1i are true).
  Tensor p = from_vector<bool>({false, false, true, true}, {4});
  Tensor q = from_vector<bool>({false, true, false, true}, {4});
  EXPECT_EQ(logical_and(p, q).to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(logical_or(p, q).to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(logical_xor(p, q).to_vector<bool>(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(logical_not(p).to_vector<bool>(), (std::vector<bool>{true, true, false, false}));
  Tensor x = from_vector<double>({0.0, std::nan(""), -0.0, 2.0}, {4});
  Tensor z = from_vector<c128>({{0, 1}, {0, 0}, {0, 0}, {3, 0}}, {4});
  EXPECT_EQ(logical_and(x, z).to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(logical_or(x, b).to_vector<bool>(), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(logical_not(x).to_vector<bool>(), (std::vector<bool>{true, false, true, false}));
  // Broadcasting: [2, 1] with [3].
  Tensor r =
      logical_and(from_vector<bool>({true, false}, {2, 1}), from_vector<i32>({0, 1, 2}, {3}));
  EXPECT_EQ(r.shape(), (Dims{2, 3}));
  EXPECT_EQ(r.to_vector<bool>(), (std::vector<bool>{false, true, true, false, false, false}));
  // Ordering comparisons refuse complex operands.
  expect_error([&] { (void)lt(z, z); }, ErrorKind::DTypeMismatch, {"lt", "complex"});
}

TEST(IntegerDTypes, WhereTakesABoolMaskAndAnyValueDtypes) {
  Tensor mask = from_vector<bool>({true, false, true, false, false, true}, {2, 3});
  Tensor a = from_vector<i64>({1, 2, 3}, {3});
  Tensor b = from_vector<i32>({-1, -2}, {2, 1});
  Tensor y = where(mask, a, b);
  EXPECT_EQ(y.dtype(), DType::i64);
  EXPECT_EQ(y.to_vector<i64>(), (std::vector<i64>{1, -1, 3, -2, -2, 3}));
  // A transposed mask and a float branch.
  Tensor yt = where(mask.transpose(), from_vector<double>({0.5, 1.5}, {2}), 0.0 * ones({3, 2}));
  EXPECT_EQ(yt.to_vector<double>(), (std::vector<double>{0.5, 0, 0, 0, 0.5, 1.5}));
  // The mask of a comparison selects, and a real condition still counts non-zero as true.
  Tensor x = from_vector<double>({-1, 2, -3}, {3});
  EXPECT_EQ(where(gt(x, 0.0), x, zeros({3})).to_vector<double>(), (std::vector<double>{0, 2, 0}));
  EXPECT_EQ(where(from_vector<i32>({0, 7, 0}, {3}), x, zeros({3})).to_vector<double>(),
            (std::vector<double>{0, 2, 0}));
}

// ---- reductions ----

TEST(IntegerDTypes, SumAndProdAccumulateInI64) {
  // Three values near INT32_MAX: the i32 sum would overflow; the result is i64 and exact.
  Tensor x = from_vector<i32>({kI32Max, kI32Max, kI32Max, 1, 2, 3}, {2, 3});
  EXPECT_EQ(sum(x).dtype(), DType::i64);
  EXPECT_EQ(sum(x).item<i64>(), 3 * i64{kI32Max} + 6);
  EXPECT_EQ(sum(x, {1}).to_vector<i64>(), (std::vector<i64>{3 * i64{kI32Max}, 6}));
  EXPECT_EQ(sum(x, {0}, true).shape(), (Dims{1, 3}));
  EXPECT_EQ(prod(from_vector<i32>({-3, 4, 5}, {3})).item<i64>(), -60);
  EXPECT_EQ(sum(from_vector<bool>({true, true, false}, {3})).item<i64>(), 2);
  // i64 sums wrap.
  EXPECT_EQ(sum(from_vector<i64>({kI64Max, 1}, {2})).item<i64>(), kI64Min);
  // Many elements, strided (every block path): the loop reference.
  std::vector<i64> v(70000);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<i64>(k * 7919 % 1000) - 500;
  Tensor big = from_vector<i64>(v, {350, 200}).transpose();
  std::vector<i64> want(350, 0);
  for (std::size_t r = 0; r < 350; ++r)
    for (std::size_t c = 0; c < 200; ++c) want[r] += v[r * 200 + c];
  EXPECT_EQ(sum(big, {0}).to_vector<i64>(), want);
  // mean, sum_squares and norm compute in f64.
  Tensor s = from_vector<i32>({1, 2, 3, 4}, {4});
  EXPECT_EQ(mean(s).dtype(), DType::f64);
  EXPECT_DOUBLE_EQ(mean(s).item<double>(), 2.5);
  EXPECT_DOUBLE_EQ(sum_squares(s).item<double>(), 30.0);
  EXPECT_DOUBLE_EQ(norm(s).item<double>(), std::sqrt(30.0));
}

TEST(IntegerDTypes, MaxMinAnyAllCountNonzero) {
  Tensor x = from_vector<i32>({3, -7, 3, 0, 9, -1}, {2, 3});
  EXPECT_EQ(max(x).dtype(), DType::i32);
  EXPECT_EQ(max(x).item<i32>(), 9);
  EXPECT_EQ(min(x, {1}).to_vector<i32>(), (std::vector<i32>{-7, -1}));
  Tensor m = from_vector<bool>({false, true, false, false, false, false}, {2, 3});
  EXPECT_TRUE(max(m).item<bool>());
  EXPECT_EQ(any(m, {1}).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(all(x, {0}).to_vector<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(any(x).dtype(), DType::boolean);
  EXPECT_EQ(count_nonzero(x).dtype(), DType::i64);
  EXPECT_EQ(count_nonzero(x).item<i64>(), 5);
  EXPECT_EQ(count_nonzero(x, {1}, true).to_vector<i64>(), (std::vector<i64>{3, 2}));
  // Floats: NaN and -0.0; complex: either part.
  Tensor f = from_vector<double>({-0.0, std::nan(""), 0.0}, {3});
  EXPECT_EQ(count_nonzero(f).item<i64>(), 1);
  EXPECT_TRUE(any(f).item<bool>());
  EXPECT_FALSE(all(f).item<bool>());
  EXPECT_TRUE(all(from_vector<c64>({{0, 1}, {2, 0}}, {2})).item<bool>());
  // Empty reductions: any of nothing is false, all of nothing is true.
  EXPECT_FALSE(any(zeros({0, 3}, DType::i32)).item<bool>());
  EXPECT_EQ(all(zeros({0, 3}), {0}).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  expect_error([] { (void)max(zeros({0}, DType::i64)); }, ErrorKind::InvalidArgument, {"max"});
}

TEST(IntegerDTypes, ArgmaxArgminFirstIndexAtTiesNanWins) {
  Tensor x = from_vector<double>({1, 5, 5, -2, 0, -2, 7, 7, 7}, {3, 3});
  EXPECT_EQ(argmax(x, 1).dtype(), DType::i64);
  EXPECT_EQ(argmax(x, 1).to_vector<i64>(), (std::vector<i64>{1, 1, 0}));
  EXPECT_EQ(argmin(x, -1).to_vector<i64>(), (std::vector<i64>{0, 0, 0}));
  EXPECT_EQ(argmax(x, 0).to_vector<i64>(), (std::vector<i64>{2, 2, 2}));
  EXPECT_EQ(argmin(x, 0, true).shape(), (Dims{1, 3}));
  EXPECT_EQ(argmin(x, 0, true).to_vector<i64>(), (std::vector<i64>{1, 1, 1}));
  EXPECT_EQ(argmax(x).shape(), Dims{});
  EXPECT_EQ(argmax(x).item<i64>(), 6);
  EXPECT_EQ(argmin(x).item<i64>(), 3);
  // Strided input: the flat index counts logical (row-major) positions of the view.
  Tensor t = x.transpose();  // [[1,-2,7],[5,0,7],[5,-2,7]]
  EXPECT_EQ(argmax(t).item<i64>(), 2);
  EXPECT_EQ(argmin(t).item<i64>(), 1);
  EXPECT_EQ(argmax(t, 1).to_vector<i64>(), (std::vector<i64>{2, 2, 2}));
  // NaN is both the largest and the smallest; the first one wins.
  const double nan = std::nan("");
  Tensor n = from_vector<double>({1, nan, 3, nan}, {4});
  EXPECT_EQ(argmax(n).item<i64>(), 1);
  EXPECT_EQ(argmin(n).item<i64>(), 1);
  // Integers and bool.
  EXPECT_EQ(argmax(from_vector<i32>({kI32Min, kI32Max, kI32Max}, {3})).item<i64>(), 1);
  EXPECT_EQ(argmin(from_vector<bool>({true, false, false}, {3})).item<i64>(), 1);
  // A reference loop over a larger strided case, every output.
  std::vector<float> v(4 * 50 * 3);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>((k * 37) % 101);
  Tensor big = from_vector<float>(v, {4, 50, 3});
  std::vector<i64> want;
  for (std::size_t a = 0; a < 4; ++a)
    for (std::size_t c = 0; c < 3; ++c) {
      std::size_t best = 0;
      for (std::size_t b = 1; b < 50; ++b)
        if (v[(a * 50 + b) * 3 + c] > v[(a * 50 + best) * 3 + c]) best = b;
      want.push_back(static_cast<i64>(best));
    }
  EXPECT_EQ(argmax(big, 1).to_vector<i64>(), want);
  // Bad input.
  expect_error(
      [] {
        (void)argmax(zeros({2, 0}), 1);
      },
      ErrorKind::InvalidArgument, {"argmax", "size 0"});
  expect_error([] { (void)argmin(zeros({0})); }, ErrorKind::InvalidArgument, {"argmin", "empty"});
  expect_error([] { (void)argmax(zeros({2}), 1); }, ErrorKind::InvalidArgument, {"argmax", "axis"});
  expect_error([] { (void)argmax(zeros({2}, DType::c64)); }, ErrorKind::DTypeMismatch, {"argmax"});
}

// ---- structural ops, factories, printing ----

TEST(IntegerDTypes, StructuralOpsMoveIntegersAndBools) {
  Tensor x = from_vector<i64>({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(x.transpose().contiguous().to_vector<i64>(), (std::vector<i64>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(reshape(x.transpose(), {6}).to_vector<i64>(), (std::vector<i64>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(slice(x, 1, 0, 3, 2).to_vector<i64>(), (std::vector<i64>{0, 2, 3, 5}));
  EXPECT_EQ(broadcast_to(from_vector<bool>({true, false}, {2, 1}), {2, 2}).to_vector<bool>(),
            (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(diagonal(x).to_vector<i64>(), (std::vector<i64>{0, 4}));
  EXPECT_EQ(tril(x).to_vector<i64>(), (std::vector<i64>{0, 0, 0, 3, 4, 0}));
  EXPECT_EQ(diag_embed(from_vector<i32>({7, 8}, {2})).to_vector<i32>(),
            (std::vector<i32>{7, 0, 0, 8}));
  EXPECT_EQ(copy(x).to_vector<i64>(), x.to_vector<i64>());
  // concatenate and stack promote to the common dtype.
  Tensor c = concatenate({from_vector<i32>({1, 2}, {2}), from_vector<bool>({true}, {1}),
                          from_vector<float>({0.5f}, {1})});
  EXPECT_EQ(c.dtype(), DType::f32);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1, 2, 1, 0.5f}));
  Tensor s = stack({from_vector<i32>({1, 2}, {2}), from_vector<i64>({3, 4}, {2})}, 1);
  EXPECT_EQ(s.dtype(), DType::i64);
  EXPECT_EQ(s.to_vector<i64>(), (std::vector<i64>{1, 3, 2, 4}));
  EXPECT_EQ(concatenate({from_vector<bool>({true}, {1}), from_vector<bool>({false}, {1})}).dtype(),
            DType::boolean);
}

TEST(IntegerDTypes, FactoriesAndPrinting) {
  EXPECT_EQ(zeros({2}, DType::i32).to_vector<i32>(), (std::vector<i32>{0, 0}));
  EXPECT_EQ(ones({2}, DType::boolean).to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(full({2}, 2.7, DType::i64).to_vector<i64>(), (std::vector<i64>{2, 2}));  // as cast()
  EXPECT_EQ(full({1}, -1e30, DType::i32).item<i32>(), kI32Min);
  EXPECT_EQ(arange(5, DType::i64).to_vector<i64>(), (std::vector<i64>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(10, 0, -3, DType::i32).to_vector<i32>(), (std::vector<i32>{10, 7, 4, 1}));
  EXPECT_EQ(scalar_tensor(3, DType::i32).item<i32>(), 3);
  expect_error([] { (void)rand({2}, 1, DType::i32); }, ErrorKind::DTypeMismatch, {"rand", "i32"});
  expect_error([] { (void)randn({2}, 1, DType::boolean); }, ErrorKind::DTypeMismatch, {"randn"});
  expect_error([] { (void)full({1}, Scalar(1, 1), DType::i64); }, ErrorKind::DTypeMismatch,
               {"imaginary"});
  EXPECT_EQ(from_vector<i64>({-3, 12}, {2}).to_string(), "Tensor(shape=[2], dtype=i64)\n[-3, 12]");
  EXPECT_EQ(from_vector<bool>({true, false}, {1, 2}).to_string(),
            "Tensor(shape=[1, 2], dtype=bool)\n[[true, false]]");
  EXPECT_EQ(from_vector<i32>({kI32Min}, {}).to_string(),
            "Tensor(shape=[], dtype=i32)\n-2147483648");
  // Typed access checks the dtype.
  Tensor i = from_vector<i32>({1}, {1});
  expect_error([&] { (void)i.item<i64>(); }, ErrorKind::DTypeMismatch, {"item"});
}

// ---- ops without integer kernels: typed errors ----

TEST(IntegerDTypes, FloatingOnlyOpsRefuseIntegersWithATypedError) {
  Tensor i = from_vector<i32>({1, 2, 3, 4}, {2, 2});
  for (auto f :
       {+[](const Tensor& x) { return matmul(x, x); },
        +[](const Tensor& x) { return einsum("ij,jk->ik", x, x); },
        +[](const Tensor& x) { return inv(x); }, +[](const Tensor& x) { return svd(x).S; }})
    expect_error([&] { (void)f(i); }, ErrorKind::DTypeMismatch, {"i32", "cast"});
  // After an error nothing is corrupted: the same tensor still works with the cast.
  EXPECT_EQ(matmul(cast(i, DType::f64), cast(i, DType::f64)).to_vector<double>(),
            (std::vector<double>{7, 10, 15, 22}));
}

// ---- autodiff boundary ----

TEST(IntegerDTypes, IntegerTensorsNeverCarryGradients) {
  Tensor i = from_vector<i32>({1, 2}, {2});
  expect_error([&] { i.requires_grad_(); }, ErrorKind::DTypeMismatch, {"requires_grad_", "i32"});
  EXPECT_FALSE(i.requires_grad());
  i.requires_grad_(false);  // turning it off is always fine
  expect_error([&] { (void)grad([](std::span<const Tensor> x) { return sum(x[0]); }, {i}); },
               ErrorKind::DTypeMismatch, {"grad", "input 0", "i32"});
  expect_error(
      [&] {
        (void)jvp(MultiFn([](std::span<const Tensor> x) { return std::vector<Tensor>{x[0] * 2}; }),
                  {i}, {i});
      },
      ErrorKind::DTypeMismatch, {"jvp", "tangent"});

  // Integer and bool results of differentiable inputs do not require grad; float paths through
  // masks and casts differentiate correctly.
  Tensor x = from_vector<double>({-1.5, 2.0, 3.5}, {3});
  x.requires_grad_();
  EXPECT_FALSE(gt(x, 0.0).requires_grad());
  EXPECT_FALSE(cast(x, DType::i64).requires_grad());
  EXPECT_FALSE(argmax(x).requires_grad());
  Tensor y = sum(where(gt(x, 0.0), x * x, 0.0 * x) + cast(cast(x, DType::i64), DType::f64));
  backward(y);
  // d/dx of x^2 on the positive entries; the integer round trip has no derivative.
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 4, 7}));

  // An integer input captured by the function is a constant; the float one gets its gradient.
  Tensor idx = from_vector<i64>({2, 0, 1}, {3});
  auto g = grad([&](std::span<const Tensor> in) { return sum(in[0] * cast(idx, DType::f64)); },
                {from_vector<double>({1, 1, 1}, {3})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{2, 0, 1}));

  // grad() of a function with an integer result is refused.
  expect_error(
      [] { (void)grad([](std::span<const Tensor> in) { return argmax(in[0]); }, {ones({3})}); },
      ErrorKind::InvalidArgument, {"grad", "i64"});
}

// ---- traces, prepared runs and the scope give the eager results bitwise ----

TEST(IntegerDTypes, EagerPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  auto f = [](std::span<const Tensor> in) {
    Tensor mask = gt(in[0], 0.0);
    Tensor counts = sum(cast(mask, DType::i32), {1});  // i64
    Tensor picked = where(mask, in[0], scalar_tensor(0.0));
    return std::vector<Tensor>{argmax(in[0], 1), counts, sum(picked * in[1]), in[1] * 3 + 1,
                               logical_xor(mask, gt(in[1], 2))};
  };
  const Tensor x = randn({8, 33}, 5);
  const Tensor k = cast(arange(33, DType::i64) - 16, DType::i32);
  const Tensor in[2] = {x, k};
  EXPECT_NE(trace(f, {ValueSpec{{8, 33}, DType::f64}, ValueSpec{{33}, DType::i32}})
                .to_string()
                .find("i32"),
            std::string::npos);
  expect_eager_prepared_scoped_bitwise(
      f, {ValueSpec{{8, 33}, DType::f64}, ValueSpec{{33}, DType::i32}}, in);
  // grad of a program differentiates its floating inputs only; naming an integer input throws.
  Program s = trace(
      [](std::span<const Tensor> in) {
        return std::vector<Tensor>{sum(in[0] * cast(in[1], DType::f64))};
      },
      {ValueSpec{{3}, DType::f64}, ValueSpec{{3}, DType::i64}});
  Program g = grad(s);
  std::vector<Tensor> gv = g({ones({3}), from_vector<i64>({4, 5, 6}, {3})});
  ASSERT_EQ(gv.size(), 1u);
  EXPECT_EQ(gv[0].to_vector<double>(), (std::vector<double>{4, 5, 6}));
  expect_error([&] { (void)grad(s, {1}); }, ErrorKind::DTypeMismatch, {"grad", "i64"});
}

}  // namespace
}  // namespace tenferro::testing
