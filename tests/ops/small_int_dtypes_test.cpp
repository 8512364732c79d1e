// i8, i16, u8, u16, u32, u64: the Array API's promotion table over every pair of dtypes,
// wrapping arithmetic, division by zero, comparisons across signedness, where, reductions (sum's
// accumulation dtype), scans, sort/argsort/argmax, casts (round trips and saturation), printing
// and the errors of float-only ops. The i32/i64 behaviour: integer_dtypes_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/expect_error.hpp"
#include "tenferro/finfo.hpp"
#include "tenferro/ops.hpp"

namespace tenferro::testing {
namespace {

using D = DType;
using i8 = std::int8_t;
using i16 = std::int16_t;
using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr D kNew[] = {D::i8, D::i16, D::u8, D::u16, D::u32, D::u64};

// ---- promotion ----

TEST(SmallIntDTypes, PromotionTableOverEveryPair) {
  // Rows/columns in all_dtypes order: bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, c64,
  // c128. The integer block is the Array API 2023.12 table; u64 with a signed integer is f64
  // (NumPy 2; the standard leaves it undefined).
  const D b = D::boolean, I8 = D::i8, I16 = D::i16, I32 = D::i32, I64 = D::i64, U8 = D::u8,
          U16 = D::u16, U32 = D::u32, U64 = D::u64, f = D::f32, d = D::f64, c = D::c64, z = D::c128;
  const D table[13][13] = {
      //  b    i8   i16  i32  i64  u8   u16  u32  u64  f32 f64 c64 c128
      {b, I8, I16, I32, I64, U8, U16, U32, U64, f, d, c, z},      // bool
      {I8, I8, I16, I32, I64, I16, I32, I64, d, f, d, c, z},      // i8
      {I16, I16, I16, I32, I64, I16, I32, I64, d, f, d, c, z},    // i16
      {I32, I32, I32, I32, I64, I32, I32, I64, d, f, d, c, z},    // i32
      {I64, I64, I64, I64, I64, I64, I64, I64, d, f, d, c, z},    // i64
      {U8, I16, I16, I32, I64, U8, U16, U32, U64, f, d, c, z},    // u8
      {U16, I32, I32, I32, I64, U16, U16, U32, U64, f, d, c, z},  // u16
      {U32, I64, I64, I64, I64, U32, U32, U32, U64, f, d, c, z},  // u32
      {U64, d, d, d, d, U64, U64, U64, U64, f, d, c, z},          // u64
      {f, f, f, f, f, f, f, f, f, f, d, c, z},                    // f32
      {d, d, d, d, d, d, d, d, d, d, d, z, z},                    // f64
      {c, c, c, c, c, c, c, c, c, c, z, c, z},                    // c64
      {z, z, z, z, z, z, z, z, z, z, z, z, z},                    // c128
  };
  static_assert(std::size(all_dtypes) == 13);
  for (std::size_t r = 0; r < 13; ++r)
    for (std::size_t k = 0; k < 13; ++k) {
      EXPECT_EQ(promote(all_dtypes[r], all_dtypes[k]), table[r][k])
          << dtype_name(all_dtypes[r]) << " + " << dtype_name(all_dtypes[k]);
      EXPECT_EQ(promote(all_dtypes[r], all_dtypes[k]), promote(all_dtypes[k], all_dtypes[r]));
    }
  // Associative except through u64 + a signed integer (f64): there the order matters, e.g.
  // (u64 + i8) + f32 = f64 but u64 + (i8 + f32) = f32 (NumPy 2 has the same exception).
  auto mixes_u64_and_signed = [](D x, D y, D w) {
    const D t[3] = {x, y, w};
    bool u = false, s = false;
    for (D v : t) u = u || v == D::u64, s = s || is_signed_integer(v);
    return u && s;
  };
  for (D x : all_dtypes)
    for (D y : all_dtypes)
      for (D w : all_dtypes)
        if (!mixes_u64_and_signed(x, y, w))
          EXPECT_EQ(promote(promote(x, y), w), promote(x, promote(y, w)))
              << dtype_name(x) << " " << dtype_name(y) << " " << dtype_name(w);
  EXPECT_EQ(promote(promote(D::u64, D::i8), D::f32), D::f64);
  EXPECT_EQ(promote(D::u64, promote(D::i8, D::f32)), D::f32);
}

TEST(SmallIntDTypes, NamesSizesKindsAndLimits) {
  const char* names[] = {"i8", "i16", "u8", "u16", "u32", "u64"};
  const std::size_t sizes[] = {1, 2, 1, 2, 4, 8};
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(dtype_name(kNew[k]), names[k]);
    EXPECT_EQ(dtype_size(kNew[k]), sizes[k]);
    EXPECT_TRUE(is_integral(kNew[k]) && is_integer(kNew[k]) && !is_floating(kNew[k]));
    EXPECT_EQ(is_unsigned(kNew[k]), k >= 2);
    EXPECT_EQ(is_signed_integer(kNew[k]), k < 2);
    EXPECT_EQ(iinfo(kNew[k]).bits, static_cast<int>(8 * sizes[k]));
  }
  EXPECT_FALSE(is_unsigned(D::boolean) || is_signed_integer(D::boolean) || is_integer(D::boolean));
  EXPECT_EQ(iinfo(D::u64).max, std::numeric_limits<u64>::max());
  EXPECT_EQ(iinfo(D::i16).min, -32768);
  EXPECT_EQ(dtype_v<u16>, D::u16);
  EXPECT_EQ(dtype_v<i8>, D::i8);
  EXPECT_EQ(sum_dtype(D::u8), D::u64);
  EXPECT_EQ(sum_dtype(D::i8), D::i64);
  EXPECT_EQ(sum_dtype(D::boolean), D::i64);
  EXPECT_EQ(sum_dtype(D::f32), D::f32);
  EXPECT_EQ(float_dtype_of(D::u16), D::f64);
}

// ---- arithmetic wraps modulo 2^bits ----

TEST(SmallIntDTypes, ArithmeticWraps) {
  const Tensor a8 = from_vector<u8>({250, 0, 16}, {3});
  EXPECT_EQ((a8 + from_vector<u8>({10, 1, 16}, {3})).to_vector<u8>(), (std::vector<u8>{4, 1, 32}));
  EXPECT_EQ((from_vector<u8>({0}, {1}) - from_vector<u8>({1}, {1})).to_vector<u8>(),
            (std::vector<u8>{255}));
  EXPECT_EQ((a8 * from_vector<u8>({2, 7, 16}, {3})).to_vector<u8>(), (std::vector<u8>{244, 0, 0}));
  const Tensor s8 = from_vector<i8>({127, -128, -7}, {3});
  EXPECT_EQ((s8 + from_vector<i8>({1, -1, 2}, {3})).to_vector<i8>(),
            (std::vector<i8>{-128, 127, -5}));
  EXPECT_EQ(neg(s8).to_vector<i8>(), (std::vector<i8>{-127, -128, 7}));
  EXPECT_EQ(abs(s8).to_vector<i8>(), (std::vector<i8>{127, -128, 7}));  // |-128| wraps
  // 65535 * 65535 overflows int if u16 is multiplied after the usual promotion; it must wrap.
  const Tensor w = from_vector<u16>({65535, 300}, {2});
  EXPECT_EQ((w * w).to_vector<u16>(), (std::vector<u16>{1, 24464}));
  EXPECT_EQ(square(from_vector<i16>({300, -32768}, {2})).to_vector<i16>(),
            (std::vector<i16>{24464, 0}));
  // Unsigned: neg wraps, abs is the identity, sign is 0 or 1, signbit is false.
  const Tensor u = from_vector<u32>({0, 1, 4000000000u}, {3});
  EXPECT_EQ(neg(u).to_vector<u32>(), (std::vector<u32>{0, 4294967295u, 294967296u}));
  EXPECT_EQ(abs(u).to_vector<u32>(), u.to_vector<u32>());
  EXPECT_EQ(sign(u).to_vector<u32>(), (std::vector<u32>{0, 1, 1}));
  EXPECT_EQ(signbit(u).to_vector<bool>(), (std::vector<bool>{false, false, false}));
  const Tensor big = from_vector<u64>({~u64{0}, 5}, {2});
  EXPECT_EQ((big + from_vector<u64>({2, 1}, {2})).to_vector<u64>(), (std::vector<u64>{1, 6}));
  EXPECT_EQ(maximum(big, from_vector<u64>({1, 9}, {2})).to_vector<u64>(),
            (std::vector<u64>{~u64{0}, 9}));
  // A whole scalar inside the dtype's range keeps it; outside it (or negative for unsigned) f64.
  EXPECT_EQ((a8 + 5).dtype(), D::u8);
  EXPECT_EQ((a8 + 255).dtype(), D::u8);
  EXPECT_EQ((a8 + 256).dtype(), D::f64);
  EXPECT_EQ((a8 - 1).to_vector<u8>(), (std::vector<u8>{249, 255, 15}));
  EXPECT_EQ((a8 + -1).dtype(), D::f64);
  EXPECT_EQ((s8 + -128).dtype(), D::i8);
  EXPECT_EQ((s8 + 128).dtype(), D::f64);
  // Mixed signedness computes in the promoted dtype: u8 + i8 is i16, no wrap.
  const Tensor mixed = a8 + from_vector<i8>({10, -1, -100}, {3});
  EXPECT_EQ(mixed.dtype(), D::i16);
  EXPECT_EQ(mixed.to_vector<i16>(), (std::vector<i16>{260, -1, -84}));
  // u64 with a signed integer goes to f64 (NumPy 2).
  EXPECT_EQ((big + from_vector<i8>({1, 1}, {2})).dtype(), D::f64);
}

// The sign-agnostic ops run the iN kernel on uN data (Note [Sign-agnostic kernels]): values with
// the top bit set must come out as the unsigned values, through execute() and through the
// prepared kernel a repeated eager call uses, with a Scalar on either side.
TEST(SmallIntDTypes, SignAgnosticKernelsGiveTheUnsignedValues) {
  for (D d : {D::u8, D::u16, D::u32, D::u64}) {
    SCOPED_TRACE(std::string(dtype_name(d)));
    // Built in u64 (wrapping is defined there) and cast down, which keeps the low bits exactly.
    const u64 top = u64{1} << (dtype_size(d) * 8 - 1);  // 2^(N-1): the top bit set
    auto of = [&](std::vector<u64> v) { return cast(from_vector<u64>(v, {4}), d); };
    const Tensor x = of({0, top, top + 3, 7});
    for (int call = 0; call < 2; ++call) {  // the second call runs the prepared kernel
      EXPECT_EQ(eq(x, x).to_vector<bool>(), (std::vector<bool>{true, true, true, true}));
      EXPECT_EQ(eq(x, static_cast<double>(top)).to_vector<bool>(),
                (std::vector<bool>{false, true, false, false}));
      EXPECT_EQ(ne(x, Scalar(7)).to_vector<bool>(), (std::vector<bool>{true, true, true, false}));
      EXPECT_EQ(logical_not(x).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
      EXPECT_TRUE(all(eq(floor(x), x)).item<bool>());
      const Tensor y = x + 1;  // 2^(N-1) + 1: above the signed range, no wrap
      EXPECT_EQ(y.dtype(), d);
      EXPECT_TRUE(all(eq(y, of({1, top + 1, top + 4, 8}))).item<bool>());
      // top - (top + 3) wraps to 2^N - 3 (u64 arithmetic wraps the same way before the cast).
      EXPECT_TRUE(all(eq(sub(static_cast<double>(top), x), of({top, 0, top - (top + 3), top - 7})))
                      .item<bool>());
      EXPECT_TRUE(all(eq(x * x, of({0, top * top, (top + 3) * (top + 3), 49}))).item<bool>());
    }
  }
}

TEST(SmallIntDTypes, FloorDivideAndRemainderIncludingZeroDivisors) {
  const Tensor a = from_vector<u8>({7, 200, 5, 0}, {4}), b = from_vector<u8>({2, 3, 0, 0}, {4});
  EXPECT_EQ(floor_divide(a, b).to_vector<u8>(), (std::vector<u8>{3, 66, 0, 0}));
  EXPECT_EQ(remainder(a, b).to_vector<u8>(), (std::vector<u8>{1, 2, 0, 0}));
  // A u32 divisor of 2^32 - 1 is not -1: no special case may fire for it.
  const Tensor x = from_vector<u32>({4294967295u, 10}, {2});
  const Tensor y = from_vector<u32>({4294967295u, 4294967295u}, {2});
  EXPECT_EQ(floor_divide(x, y).to_vector<u32>(), (std::vector<u32>{1, 0}));
  EXPECT_EQ(remainder(x, y).to_vector<u32>(), (std::vector<u32>{0, 10}));
  const Tensor s = from_vector<i8>({-7, 7, -128, 3}, {4}), t = from_vector<i8>({2, -2, -1, 0}, {4});
  EXPECT_EQ(floor_divide(s, t).to_vector<i8>(), (std::vector<i8>{-4, -4, -128, 0}));
  EXPECT_EQ(remainder(s, t).to_vector<i8>(), (std::vector<i8>{1, -1, 0, 0}));
  // True division converts to f64.
  const Tensor q = div(a, b);
  EXPECT_EQ(q.dtype(), D::f64);
  EXPECT_EQ(q.to_vector<double>()[0], 3.5);
}

// ---- comparisons, where ----

TEST(SmallIntDTypes, ComparisonsAreExactAcrossSignedness) {
  // -1 (i8) vs 255 (u8): compared in i16, so -1 < 255 (not the wrapped 255 == 255).
  const Tensor s = from_vector<i8>({-1, 5}, {2}), u = from_vector<u8>({255, 5}, {2});
  EXPECT_EQ(lt(s, u).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(eq(s, u).to_vector<bool>(), (std::vector<bool>{false, true}));
  const Tensor big = from_vector<u64>({~u64{0}, 0}, {2});
  EXPECT_EQ(gt(big, from_vector<u64>({~u64{0} - 1, 0}, {2})).to_vector<bool>(),
            (std::vector<bool>{true, false}));
  const Tensor w =
      where(from_vector<bool>({true, false}, {2}), u, from_vector<u16>({7, 1000}, {2}));
  EXPECT_EQ(w.dtype(), D::u16);
  EXPECT_EQ(w.to_vector<u16>(), (std::vector<u16>{255, 1000}));
}

// u64 with a signed integer promotes to f64, but comparisons are exact (Note [Exact
// u64-with-signed comparisons]): compared in f64, u64 2^63 == i64 2^63 - 1 and u64 2^53 + 1 ==
// i64 2^53 were true. Every op, both orders, i64 / i32 / i8 operands and a broadcast one,
// against __int128.
TEST(SmallIntDTypes, ComparisonsOfU64WithSignedIntegersAreExact) {
  using i64 = std::int64_t;
  using i128 = __int128;
  const i64 lo = std::numeric_limits<i64>::min(), hi = std::numeric_limits<i64>::max();
  const std::vector<u64> uv = {u64{1} << 63, (u64{1} << 53) + 1, 0, ~u64{0}, 5, u64{1} << 63, 7, 0};
  const std::vector<i64> sv = {hi, i64{1} << 53, -1, -1, 5, lo, 8, 0};
  const Tensor u = from_vector<u64>(uv, {8});
  struct Op {
    const char* name;
    Tensor (*f)(const Tensor&, const Tensor&);
    bool (*want)(i128, i128);
  };
  const Op ops[] = {{"eq", &eq, [](i128 x, i128 y) { return x == y; }},
                    {"ne", &ne, [](i128 x, i128 y) { return x != y; }},
                    {"lt", &lt, [](i128 x, i128 y) { return x < y; }},
                    {"le", &le, [](i128 x, i128 y) { return x <= y; }},
                    {"gt", &gt, [](i128 x, i128 y) { return x > y; }},
                    {"ge", &ge, [](i128 x, i128 y) { return x >= y; }}};
  for (D sd : {D::i64, D::i32, D::i8}) {
    const Tensor s = cast(from_vector<i64>(sv, {8}), sd);  // wraps into i32 / i8
    const std::vector<i64> sw = cast(s, D::i64).to_vector<i64>();
    for (const Op& op : ops) {
      const std::vector<bool> us = op.f(u, s).to_vector<bool>();
      const std::vector<bool> su = op.f(s, u).to_vector<bool>();
      for (std::size_t i = 0; i < uv.size(); ++i) {
        EXPECT_EQ(us[i], op.want(static_cast<i128>(uv[i]), static_cast<i128>(sw[i])))
            << op.name << "(u64 " << uv[i] << ", " << dtype_name(sd) << " " << sw[i] << ")";
        EXPECT_EQ(su[i], op.want(static_cast<i128>(sw[i]), static_cast<i128>(uv[i])))
            << op.name << "(" << dtype_name(sd) << " " << sw[i] << ", u64 " << uv[i] << ")";
      }
      // Broadcast: one signed value against every u64 value, and the result's shape.
      const Tensor b = op.f(reshape(u, {8, 1}), reshape(s, {1, 8}));
      EXPECT_EQ(b.shape(), (Dims{8, 8}));
      const std::vector<bool> bv = b.to_vector<bool>();
      for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t j = 0; j < 8; ++j)
          EXPECT_EQ(bv[i * 8 + j], op.want(static_cast<i128>(uv[i]), static_cast<i128>(sw[j])))
              << op.name << " broadcast " << i << " " << j;
    }
  }
}

// searchsorted of u64 against a signed integer (either way round) compares exactly, as the
// comparisons above: in f64 (their promotion) 2^53 and 2^53 + 1 were one value and 2^63 - 1
// was 2^63, so searchsorted(u64 [2^53, 2^53 + 1, 2^63], i64 [2^53, 2^63 - 1], right) gave [2, 3].
TEST(SmallIntDTypes, SearchsortedOfU64WithSignedIntegersIsExact) {
  using i64 = std::int64_t;
  using i128 = __int128;
  const i64 lo = std::numeric_limits<i64>::min(), hi = std::numeric_limits<i64>::max();
  const std::vector<u64> uv = {
      0, 5, u64{1} << 53, (u64{1} << 53) + 1, (u64{1} << 63) - 1, u64{1} << 63, ~u64{0}};
  const std::vector<i64> sv = {lo, -1, 0, 5, 6, i64{1} << 53, (i64{1} << 53) + 1, hi - 1, hi};
  EXPECT_EQ(searchsorted(from_vector<u64>({u64{1} << 53, (u64{1} << 53) + 1, u64{1} << 63}, {3}),
                         from_vector<i64>({i64{1} << 53, hi}, {2}), SearchSide::right)
                .to_vector<i64>(),
            (std::vector<i64>{1, 2}));
  // The insertion index of q into sorted x by exact comparison.
  auto want = [](const std::vector<i128>& x, i128 q, bool right) {
    i64 k = 0;
    for (i128 e : x) k += right ? (e <= q) : (e < q);
    return k;
  };
  auto wide = [](const auto& v) { return std::vector<i128>(v.begin(), v.end()); };
  for (D sd : {D::i64, D::i32, D::i8}) {
    const Tensor u = from_vector<u64>(uv, {7});
    const Tensor s = sort(cast(from_vector<i64>(sv, {9}), sd)).values;  // wraps into i32 / i8
    const std::vector<i64> sw = cast(s, D::i64).to_vector<i64>();
    for (bool right : {false, true}) {
      const SearchSide side = right ? SearchSide::right : SearchSide::left;
      const std::vector<i64> us = searchsorted(u, s, side).to_vector<i64>();
      const std::vector<i64> su = searchsorted(s, u, side).to_vector<i64>();
      for (std::size_t i = 0; i < sw.size(); ++i)
        EXPECT_EQ(us[i], want(wide(uv), sw[i], right))
            << "searchsorted(u64 x1, " << dtype_name(sd) << " " << sw[i] << ", right=" << right
            << ")";
      for (std::size_t i = 0; i < uv.size(); ++i)
        EXPECT_EQ(su[i], want(wide(sw), static_cast<i128>(uv[i]), right))
            << "searchsorted(" << dtype_name(sd) << " x1, u64 " << uv[i] << ", right=" << right
            << ")";
      // Through a sorter (x1 reversed) and a strided x2.
      const Tensor rev = flip(u, {0});
      const Tensor order = argsort(rev);
      EXPECT_EQ(searchsorted(rev, s, side, order).to_vector<i64>(), us);
      EXPECT_EQ(searchsorted(u, flip(s, {0}), side).to_vector<i64>(),
                std::vector<i64>(us.rbegin(), us.rend()));
    }
  }
}

// ---- reductions and scans ----

TEST(SmallIntDTypes, SumAccumulatesInI64ForSignedAndU64ForUnsigned) {
  const Tensor u = from_vector<u8>({200, 200, 200}, {3});
  const Tensor su = sum(u);
  EXPECT_EQ(su.dtype(), D::u64);
  EXPECT_EQ(su.item<u64>(), 600u);
  const Tensor s = from_vector<i8>({-100, -100, -100}, {3});
  EXPECT_EQ(sum(s).dtype(), D::i64);
  EXPECT_EQ(sum(s).item<std::int64_t>(), -300);
  EXPECT_EQ(prod(from_vector<u16>({300, 300}, {2})).item<u64>(), 90000u);
  EXPECT_EQ(max(s).dtype(), D::i8);
  EXPECT_EQ(max(u).item<u8>(), 200);
  EXPECT_EQ(min(from_vector<u32>({7, 3, 9}, {3})).item<u32>(), 3u);
  const Tensor m = mean(u);
  EXPECT_EQ(m.dtype(), D::f64);
  EXPECT_EQ(m.item<double>(), 200.0);
  EXPECT_EQ(argmax(from_vector<u64>({1, ~u64{0}, 3}, {3}), 0).item<std::int64_t>(), 1);
  EXPECT_EQ(argmin(s + from_vector<i8>({0, -1, 0}, {3}), 0).item<std::int64_t>(), 1);
  EXPECT_EQ(count_nonzero(from_vector<u16>({0, 4, 0}, {3})).item<std::int64_t>(), 1);
  EXPECT_TRUE(any(u).item<bool>());
  // Unsigned sums wrap modulo 2^64.
  EXPECT_EQ(sum(from_vector<u64>({~u64{0}, 2}, {2})).item<u64>(), 1u);
}

TEST(SmallIntDTypes, CumulativeSumFollowsSumsDtype) {
  const Tensor c = cumulative_sum(from_vector<u8>({255, 1, 2}, {3}));
  EXPECT_EQ(c.dtype(), D::u64);
  EXPECT_EQ(c.to_vector<u64>(), (std::vector<u64>{255, 256, 258}));
  const Tensor p = cumprod(from_vector<i16>({-300, 300}, {2}), 0);
  EXPECT_EQ(p.dtype(), D::i64);
  EXPECT_EQ(p.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-300, -90000}));
  const Tensor k = cumulative_sum(from_vector<u8>({200, 100}, {2}), std::nullopt, D::u8, true);
  EXPECT_EQ(k.dtype(), D::u8);
  EXPECT_EQ(k.to_vector<u8>(), (std::vector<u8>{0, 200, 44}));  // 300 wraps in the asked dtype
}

TEST(SmallIntDTypes, SortArgsortTopk) {
  const Tensor u = from_vector<u64>({5, ~u64{0}, 0, 7}, {4});
  EXPECT_EQ(sort(u).values.to_vector<u64>(), (std::vector<u64>{0, 5, 7, ~u64{0}}));
  EXPECT_EQ(argsort(u, 0, true).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 0, 2}));
  const Tensor s = from_vector<i8>({3, -128, 127, -1}, {4});
  EXPECT_EQ(sort(s).values.to_vector<i8>(), (std::vector<i8>{-128, -1, 3, 127}));
  EXPECT_EQ(topk(from_vector<u16>({9, 65535, 1}, {3}), 2).values.to_vector<u16>(),
            (std::vector<u16>{65535, 9}));
}

// ---- casts, factories, structural ops, printing ----

TEST(SmallIntDTypes, CastsWrapBetweenIntegersAndSaturateFromFloats) {
  const Tensor s = from_vector<i16>({-1, 256, 300, -32768}, {4});
  EXPECT_EQ(cast(s, D::u8).to_vector<u8>(), (std::vector<u8>{255, 0, 44, 0}));
  EXPECT_EQ(cast(s, D::i8).to_vector<i8>(), (std::vector<i8>{-1, 0, 44, 0}));
  EXPECT_EQ(cast(s, D::u64).to_vector<u64>()[0], ~u64{0});
  const Tensor f = from_vector<double>({-3.7, 2.9, 300.0, 1e30, std::nan(""), -0.5}, {6});
  EXPECT_EQ(cast(f, D::u8).to_vector<u8>(), (std::vector<u8>{0, 2, 255, 255, 0, 0}));
  EXPECT_EQ(cast(f, D::i8).to_vector<i8>(), (std::vector<i8>{-3, 2, 127, 127, 0, 0}));
  EXPECT_EQ(cast(f, D::u64).to_vector<u64>()[3], ~u64{0});
  // Round trips through i64 keep every value (modular both ways); through f64 every value of
  // the dtypes up to 32 bits. u64's 2^64 - 5 (-5 wrapped) rounds to 2^64 in f64 and saturates.
  for (D d : kNew) {
    const Tensor x = cast(from_vector<std::int64_t>({-5, 0, 3, 100}, {4}), d);
    EXPECT_TRUE(all(eq(cast(cast(x, D::i64), d), x)).item<bool>()) << dtype_name(d);
    EXPECT_EQ(all(eq(cast(cast(x, D::f64), d), x)).item<bool>(), is_lossless_cast(d, D::f64))
        << dtype_name(d);
    if (is_lossless_cast(d, D::f64)) EXPECT_EQ(convert(x, D::f64).dtype(), D::f64);
  }
  EXPECT_EQ(cast(cast(from_vector<std::int64_t>({-5}, {1}), D::u64), D::f64).item<double>(),
            0x1p64);
  EXPECT_TRUE(is_lossless_cast(D::u8, D::i16));
  EXPECT_TRUE(is_lossless_cast(D::u32, D::i64));
  EXPECT_FALSE(is_lossless_cast(D::u64, D::i64));
  EXPECT_TRUE(is_lossless_cast(D::i8, D::f32));
  EXPECT_FALSE(is_lossless_cast(D::u32, D::f32));
  EXPECT_TRUE(is_lossless_cast(D::u32, D::f64));
  EXPECT_FALSE(is_lossless_cast(D::i8, D::u64));
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)convert(s, D::u16); }, {"convert", "i16"});
}

TEST(SmallIntDTypes, FactoriesStructuralOpsIndexingAndPrinting) {
  for (D d : kNew) {
    SCOPED_TRACE(std::string(dtype_name(d)));
    const Tensor a = arange(6, d).reshape({2, 3});
    EXPECT_EQ(a.dtype(), d);
    EXPECT_TRUE(all(eq(a, arange(6, D::i64).reshape({2, 3}))).item<bool>());
    EXPECT_TRUE(all(eq(full({2}, 3.0, d), from_vector<std::int64_t>({3, 3}, {2}))).item<bool>());
    EXPECT_TRUE(all(eq(ones({2}, d) + zeros({2}, d), ones({2}, D::i64))).item<bool>());
    const Tensor t = transpose(a, 0, 1).contiguous();
    EXPECT_EQ(t.dtype(), d);
    EXPECT_EQ(cast(t, D::i64).to_vector<std::int64_t>(),
              (std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}));
    const Tensor parts[2] = {a, a};
    EXPECT_EQ(concatenate(std::span<const Tensor>(parts), 0).shape(), (Dims{4, 3}));
    const Tensor g = take_along_axis(a, from_vector<std::int64_t>({2, 0, 1, 1, 0, 2}, {2, 3}), 1);
    EXPECT_EQ(cast(g, D::i64).to_vector<std::int64_t>(),
              (std::vector<std::int64_t>{2, 0, 1, 4, 3, 5}));
    const Tensor sa =
        scatter_add(zeros({3}, d), 0, from_vector<std::int64_t>({0, 2, 0}, {3}), ones({3}, d));
    EXPECT_EQ(cast(sa, D::i64).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 0, 1}));
    EXPECT_EQ(flip(a, {1}).dtype(), d);
  }
  EXPECT_NE(from_vector<u64>({~u64{0}}, {1}).to_string().find("18446744073709551615"),
            std::string::npos);
  EXPECT_NE(from_vector<i8>({-128}, {1}).to_string().find("-128"), std::string::npos);
  EXPECT_NE(from_vector<u8>({200}, {1}).to_string().find("dtype=u8"), std::string::npos);
}

// ---- bitwise ops, searchsorted, unique ----

TEST(SmallIntDTypes, BitwiseOpsSearchsortedAndUnique) {
  const Tensor a = from_vector<u8>({0xF0, 0x0F, 0xFF}, {3}),
               b = from_vector<u8>({0x3C, 0x3C, 1}, {3});
  EXPECT_EQ(bitwise_and(a, b).to_vector<u8>(), (std::vector<u8>{0x30, 0x0C, 1}));
  EXPECT_EQ(bitwise_or(a, b).to_vector<u8>(), (std::vector<u8>{0xFC, 0x3F, 0xFF}));
  EXPECT_EQ(bitwise_xor(a, b).to_vector<u8>(), (std::vector<u8>{0xCC, 0x33, 0xFE}));
  EXPECT_EQ(bitwise_invert(a).to_vector<u8>(), (std::vector<u8>{0x0F, 0xF0, 0x00}));
  EXPECT_EQ(bitwise_left_shift(a, from_vector<u8>({1, 4, 8}, {3})).to_vector<u8>(),
            (std::vector<u8>{0xE0, 0xF0, 0}));  // a count of 8 shifts every bit out
  const Tensor s = from_vector<i8>({-128, 64, -1}, {3});
  EXPECT_EQ(bitwise_right_shift(s, from_vector<i8>({7, 6, 9}, {3})).to_vector<i8>(),
            (std::vector<i8>{-1, 1, -1}));  // arithmetic: the sign fills
  EXPECT_EQ(bitwise_invert(from_vector<u64>({0}, {1})).item<u64>(), ~u64{0});
  const Tensor w = bitwise_and(from_vector<u16>({0xFFFF}, {1}), from_vector<i8>({-1}, {1}));
  EXPECT_EQ(w.dtype(), D::i32);  // promoted first: u16 + i8 is i32
  EXPECT_EQ(w.item<std::int32_t>(), 0xFFFF);
  // u64 with a signed integer promotes to f64, which bitwise ops refuse (NumPy refuses it too).
  expect_error(
      ErrorKind::DTypeMismatch,
      [] { (void)bitwise_or(from_vector<u64>({1}, {1}), from_vector<std::int64_t>({1}, {1})); },
      {"bitwise_or"});
  const Tensor sorted = from_vector<u32>({1, 5, 4000000000u}, {3});
  EXPECT_EQ(
      searchsorted(sorted, from_vector<u32>({0, 5, 4000000001u}, {3})).to_vector<std::int64_t>(),
      (std::vector<std::int64_t>{0, 1, 3}));
  const Tensor u = unique_values(from_vector<i16>({3, -300, 3, 7, -300}, {5}));
  EXPECT_EQ(u.dtype(), D::i16);
  EXPECT_EQ(u.to_vector<i16>(), (std::vector<i16>{-300, 3, 7}));
  EXPECT_EQ(unique_counts(from_vector<u8>({255, 0, 255}, {3})).counts.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 2}));
}

// ---- float-only ops name the op and the dtype ----

TEST(SmallIntDTypes, FloatOnlyOpsRejectThemNamingOpAndDtype) {
  const Tensor m = ones({2, 2}, D::u8);
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)matmul(m, m); }, {"u8"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)rand({2}, 1, D::u16); }, {"rand", "u16"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)ones({2}, D::u8).requires_grad_(); },
               {"requires_grad_", "u8"});
  // Ops defined on floating values compute integers in f64 instead of rejecting them.
  EXPECT_EQ(exp(m).dtype(), D::f64);
  EXPECT_EQ(sqrt(from_vector<u64>({4}, {1})).item<double>(), 2.0);
}

}  // namespace
}  // namespace tenferro::testing
