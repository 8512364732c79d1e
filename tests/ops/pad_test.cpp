// pad: constant/reflect/edge against NumPy's rules written here as loops (reflect as the
// repeated mirror NumPy applies, widths 0..3n), every dtype and value conversion, strided inputs,
// empty axes and 0-d inputs, typed errors with nothing changed, derivatives (first and second
// order, and the adjoint's own reverse rule through programs), and eager = traced + prepared =
// in-scope, bitwise.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/ops/scans.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;
using Widths = std::vector<std::pair<i64, i64>>;

// NumPy's rule for output index i of an axis of size n with `before` added: the input index, or
// -1 for the constant. reflect mirrors about the edges again and again until the index lands
// inside (size 1: NumPy repeats the element).
i64 numpy_source(PadMode mode, i64 i, i64 before, i64 n) {
  i64 j = i - before;
  if (j >= 0 && j < n) return j;
  if (mode == PadMode::constant) return -1;
  if (mode == PadMode::edge || n == 1) return j < 0 ? 0 : n - 1;
  while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;
  return j;
}

// The padded values of row-major `v` of `shape` (contiguous), by the rule above.
std::vector<c128> ref_pad(const std::vector<c128>& v, const Dims& shape, const Widths& w,
                          PadMode mode, c128 value) {
  const std::size_t r = shape.size();
  Dims out;
  for (std::size_t d = 0; d < r; ++d) out.push_back(shape[d] + w[d].first + w[d].second);
  std::vector<c128> res(static_cast<std::size_t>(dims_numel(out)));
  for (std::size_t k = 0; k < res.size(); ++k) {
    i64 rest = static_cast<i64>(k), src = 0, mult = 1;
    bool fill = false;
    for (std::size_t d = r; d-- > 0;) {
      const i64 i = rest % out[d];
      rest /= out[d];
      const i64 j = numpy_source(mode, i, w[d].first, shape[d]);
      if (j < 0) fill = true;
      src += j * mult;
      mult *= shape[d];
    }
    res[k] = fill ? value : v[static_cast<std::size_t>(src)];
  }
  return res;
}

Dims padded_shape(const Dims& s, const Widths& w) {
  Dims o;
  for (std::size_t d = 0; d < s.size(); ++d) o.push_back(s[d] + w[d].first + w[d].second);
  return o;
}

constexpr PadMode kModes[] = {PadMode::constant, PadMode::reflect, PadMode::edge};

TEST(Pad, OneAxisMatchesNumPyRulesForWidthsUpToThreeTimesTheAxis) {
  for (i64 n = 1; n <= 5; ++n) {
    const Tensor x = arange(n) * 1.5 - 2.0;
    const std::vector<c128> xv = c128_values(x);
    for (PadMode mode : kModes)
      for (i64 b = 0; b <= 3 * n; ++b)
        for (i64 a = 0; a <= 3 * n; ++a) {
          const Widths w{{b, a}};
          const Tensor y = pad(x, w, mode, 7.0);
          ASSERT_EQ(y.shape(), (Dims{n + a + b}));
          const Tensor want = from_vector<c128>(ref_pad(xv, {n}, w, mode, 7.0), {n + a + b});
          ASSERT_TRUE(all(eq(y, real(want))).item<bool>())
              << "n " << n << " mode " << static_cast<int>(mode) << " widths " << b << "," << a;
        }
  }
  // The documented examples.
  const Tensor t = from_vector<double>({1, 2, 3}, {3});
  EXPECT_EQ(pad(t, {{2, 2}}, PadMode::reflect).to_vector<double>(),
            (std::vector<double>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(pad(t, {{2, 2}}, PadMode::edge).to_vector<double>(),
            (std::vector<double>{1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(pad(t, {{1, 0}}).to_vector<double>(), (std::vector<double>{0, 1, 2, 3}));
}

TEST(Pad, SeveralAxesStridedInputsAndOnePairForEveryAxis) {
  const Tensor base = randn({4, 3}, 1);
  const Tensor views[] = {transpose(base), flip(base, {0}), slice(base, 0, 3, -5, -2),
                          broadcast_to(slice(base, 0, 0, 1), {2, 3})};
  for (const Tensor& v : views)
    for (PadMode mode : kModes)
      for (const Widths& w : {Widths{{1, 4}, {0, 2}}, Widths{{5, 0}, {3, 3}}, Widths{{2, 2}}}) {
        const Widths full = w.size() == 1 ? Widths(2, w[0]) : w;
        const Tensor y = pad(v, w, mode, -3.0);
        const Dims os = padded_shape(v.shape(), full);
        ASSERT_EQ(y.shape(), os);
        EXPECT_TRUE(all(eq(y, real(from_vector<c128>(
                                  ref_pad(c128_values(v), v.shape(), full, mode, -3.0), os))))
                        .item<bool>());
        EXPECT_TRUE(same_bits(y, pad(contiguous(v), w, mode, -3.0)));
      }
  // Rank 3 with one pair.
  const Tensor x3 = randn({2, 3, 2}, 2);
  const Tensor y3 = pad(x3, {{1, 2}}, PadMode::reflect);
  const Widths w3(3, {1, 2});
  EXPECT_EQ(y3.shape(), (Dims{5, 6, 5}));
  EXPECT_TRUE(
      all(eq(y3, real(from_vector<c128>(
                     ref_pad(c128_values(x3), {2, 3, 2}, w3, PadMode::reflect, 0.0), {5, 6, 5}))))
          .item<bool>());
}

TEST(Pad, EveryDtypeAndTheConstantConvertedAsCast) {
  const Widths w{{2, 3}, {4, 1}};
  for (DType d : all_dtypes) {
    const Tensor x = d == DType::boolean ? gt(randn({2, 3}, 3), 0.0)
                     : is_integral(d)    ? cast(randn({2, 3}, 3) * 4.0, d)
                                         : randn({2, 3}, 3, d);
    for (PadMode mode : kModes) {
      const Tensor y = pad(x, w, mode, 2.7);
      ASSERT_EQ(y.dtype(), d);
      // The constant is converted as cast() converts it: 2 for integers, true for bool.
      const c128 value = c128_values(cast(scalar_tensor(2.7), d))[0];
      const Tensor want =
          cast(from_vector<c128>(ref_pad(c128_values(x), {2, 3}, w, mode, value), {7, 8}), d);
      EXPECT_TRUE(same_bits(y, want)) << dtype_name(d) << " mode " << static_cast<int>(mode);
    }
  }
  // A complex value: kept by complex tensors, the real part for real ones.
  const c128 v(1.5, -2.0);
  EXPECT_EQ(pad(zeros({1}, DType::c128), {{1, 0}}, PadMode::constant, v).to_vector<c128>()[0], v);
  EXPECT_EQ(pad(zeros({1}), {{1, 0}}, PadMode::constant, v).to_vector<double>()[0], 1.5);
  // Modes other than constant ignore the value.
  const Tensor t = from_vector<double>({1, 2}, {2});
  EXPECT_TRUE(same_bits(pad(t, {{3, 3}}, PadMode::edge, 9.0), pad(t, {{3, 3}}, PadMode::edge)));
}

TEST(Pad, EmptyAxesAndRankZero) {
  // constant extends an empty axis; edge/reflect may pad the other axes of an empty tensor.
  const Tensor e = zeros({0, 2}, DType::i32);
  const Tensor c = pad(e, {{1, 1}, {0, 1}}, PadMode::constant, 5.0);
  EXPECT_EQ(c.shape(), (Dims{2, 3}));
  EXPECT_EQ(c.to_vector<std::int32_t>(), (std::vector<std::int32_t>(6, 5)));
  for (PadMode mode : {PadMode::reflect, PadMode::edge}) {
    EXPECT_EQ(pad(e, {{0, 0}, {2, 3}}, mode).shape(), (Dims{0, 7}));
    expect_error(ErrorKind::InvalidArgument,
                 [&] {
                   (void)pad(e, {{1, 0}, {0, 0}}, mode);
                 },
                 {"pad", "empty axis 0"});
  }
  // 0-d: no axes to pad; zero or one pair, returned as a copy.
  const Tensor s = scalar_tensor(4.0);
  EXPECT_EQ(pad(s, {{2, 3}}).shape(), Dims{});
  EXPECT_EQ(pad(s, {{2, 3}}, PadMode::reflect).item<double>(), 4.0);
  EXPECT_EQ(pad(s, Widths{}).item<double>(), 4.0);
  expect_error(ErrorKind::InvalidArgument, [&] { (void)pad(s, {{1, 1}, {1, 1}}); }, {"pad"});
}

TEST(Pad, BadInputsAreTypedErrorsAndChangeNothing) {
  Tensor x = arange(6).reshape({2, 3});
  const Tensor before = copy(x);
  constexpr i64 M = std::numeric_limits<i64>::max();
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)pad(x, {{1, 1}, {1, 1}, {1, 1}});
               },
               {"pad", "3", "[2, 3]", "expected 1"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)pad(x, Widths{}); }, {"pad"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)pad(x, {{1, -1}});
               },
               {"pad", "negative", "-1"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)pad(x, {{0, 0}, {-2, 0}}); }, {"negative"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)pad(x, {{0, 0}, {M, 1}}); }, {"INT64_MAX"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)pad(x, {{M / 4, M / 4}}); }, {"INT64_MAX"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)pad(x, {{1, 1}}, static_cast<PadMode>(7));
               },
               {"mode"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)pad(Tensor(), {{1, 1}}); }, {"undefined"});
  EXPECT_TRUE(same_bits(x, before));
}

adtest::FdFn pad_fn(Widths w, PadMode mode) {
  return [=](std::span<const Tensor> in) { return std::vector<Tensor>{pad(in[0], w, mode, 1.25)}; };
}

TEST(Pad, DerivativesMatchFiniteDifferences) {
  const Widths widths[] = {Widths{{1, 2}, {0, 3}}, Widths{{7, 5}, {4, 6}}};  // beyond the axes
  const Tensor inputs[] = {randn({2, 3}, 4), randn({2, 3}, 5, DType::c128),
                           transpose(randn({3, 2}, 6)), randn({1, 3}, 7)};
  for (PadMode mode : kModes)
    for (const Widths& w : widths)
      for (const Tensor& x : inputs) {
        EXPECT_TRUE(adtest::check_vjp(pad_fn(w, mode), {x})) << static_cast<int>(mode);
        EXPECT_TRUE(adtest::check_jvp(pad_fn(w, mode), {x})) << static_cast<int>(mode);
      }
  // Second order, forward over reverse: grad of sum(w * pad(x)^3).
  for (PadMode mode : kModes) {
    const Tensor wt = randn({14, 13}, 8);
    auto second = [&](std::span<const Tensor> in) {
      return std::vector<Tensor>{grad(
          [&](std::span<const Tensor> v) {
            const Tensor p = pad(v[0], widths[1], mode);
            return sum(real(p * p * p * wt));
          },
          {in[0]})[0]};
    };
    EXPECT_TRUE(adtest::check_jvp(second, {inputs[0]}));
    EXPECT_TRUE(adtest::check_jvp(second, {inputs[1]}));
  }
}

TEST(Pad, TheAdjointsReverseRuleIsPadThroughPrograms) {
  // vjp(vjp(pad)): the second cotangent of pad's pullback is pad of the new cotangent.
  for (PadMode mode : kModes) {
    const Widths w{{4, 1}, {2, 5}};
    Program p = trace(
        [&](std::span<const Tensor> in) { return std::vector<Tensor>{pad(in[0], w, mode, 3.0)}; },
        {ValueSpec{{2, 3}, DType::f64}});
    Program v = vjp(p);   // (x, g) -> pad_adjoint(g)
    Program vv = vjp(v);  // (x, g, u) -> (0, pad(u))
    const Tensor x = randn({2, 3}, 9), g = randn({7, 10}, 10), u = randn({2, 3}, 11);
    const Tensor back = v({x, g})[0];
    const std::vector<Tensor> out = vv({x, g, u});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(allclose(out[1], pad(u, w, mode), 1e-14, 1e-14)) << static_cast<int>(mode);
    // <pad(u), g> == <u, pad_adjoint(g)>.
    EXPECT_NEAR(sum(pad(u, w, mode) * g).item<double>(), sum(u * back).item<double>(), 1e-12);
  }
}

TEST(Pad, ProgramsPrintTheConstantSoItReadsBackExactly) {
  const std::string printed =
      trace(
          [](std::span<const Tensor> in) {
            return std::vector<Tensor>{pad(in[0], {{1, 0}}, PadMode::constant, 1e-9),
                                       pad(in[0], {{0, 2}}, PadMode::constant, Scalar(0.1, -2.5))};
          },
          {ValueSpec{{3}, DType::c128}})
          .to_string();
  EXPECT_NE(printed.find("value=1e-09"), std::string::npos) << printed;
  EXPECT_NE(printed.find("value=(0.1,-2.5)"), std::string::npos) << printed;
}

TEST(Pad, EagerPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  const Tensor wt = randn({70, 70}, 12);
  auto f = [&](std::span<const Tensor> in) {
    const Tensor g = grad(
        [&](std::span<const Tensor> v) {
          return sum(pad(v[0], {{3, 3}, {1, 5}}, PadMode::reflect) * wt);
        },
        {in[0]})[0];
    return std::vector<Tensor>{pad(in[0], {{2, 1}}, PadMode::edge),
                               pad(in[1], {{0, 2}, {5, 0}}, PadMode::constant, -1.0),
                               pad(in[1], {{9, 9}}, PadMode::reflect), g};
  };
  const Tensor x = randn({64, 64}, 13);
  const Tensor k = cast(randn({64, 64}, 14) * 5.0, DType::i32);
  const Tensor in[2] = {x, k};
  expect_eager_prepared_scoped_bitwise(
      f, {ValueSpec{{64, 64}, DType::f64}, ValueSpec{{64, 64}, DType::i32}}, in);
}

}  // namespace
}  // namespace tenferro::testing
