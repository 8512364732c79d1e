// The Array API's bitwise ops (bitwise_and/or/xor/invert/left_shift/right_shift), searchsorted
// and unique_all/counts/inverse/values (tenferro/ops/bitwise.hpp, tenferro/ops/sets.hpp):
// hand-computed values, the shift-count semantics (Note [Shift counts]), the NaN / -0.0 cases of
// the standard, broadcasting and promotion, typed errors (inputs unchanged), no gradients, and
// eager = traced + prepared = in-scope results at thread budgets 1 and 4.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/agreement.hpp"
#include "common/expect_error.hpp"
#include "primitives/elementwise_common.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor i32s(std::vector<i32> v) {
  const i64 n = static_cast<i64>(v.size());
  return from_vector<i32>(v, {n});
}
Tensor i64s(std::vector<i64> v) {
  const i64 n = static_cast<i64>(v.size());
  return from_vector<i64>(v, {n});
}
Tensor f64s(std::vector<double> v) {
  const i64 n = static_cast<i64>(v.size());
  return from_vector<double>(v, {n});
}
Tensor bools(std::vector<bool> v) {
  const i64 n = static_cast<i64>(v.size());
  return from_vector<bool>(v, {n});
}

// ---- bitwise ----

TEST(Bitwise, AndOrXorInvertOnIntegersAndBool) {
  const Tensor a = i32s({12, -1, 0, 5, -8});
  const Tensor b = i32s({10, 7, 3, 5, 3});
  EXPECT_EQ(bitwise_and(a, b).to_vector<i32>(), (std::vector<i32>{8, 7, 0, 5, 0}));
  EXPECT_EQ(bitwise_or(a, b).to_vector<i32>(), (std::vector<i32>{14, -1, 3, 5, -5}));
  EXPECT_EQ(bitwise_xor(a, b).to_vector<i32>(), (std::vector<i32>{6, -8, 3, 0, -5}));
  EXPECT_EQ(bitwise_invert(a).to_vector<i32>(), (std::vector<i32>{-13, 0, -1, -6, 7}));
  EXPECT_EQ(bitwise_and(a, b).dtype(), DType::i32);

  const Tensor p = bools({true, true, false, false}), q = bools({true, false, true, false});
  EXPECT_EQ(bitwise_and(p, q).dtype(), DType::boolean);
  EXPECT_EQ(bitwise_and(p, q).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(bitwise_or(p, q).to_vector<bool>(), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(bitwise_xor(p, q).to_vector<bool>(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(bitwise_invert(p).to_vector<bool>(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(bitwise_invert(p).dtype(), DType::boolean);

  // i64 beyond 2^53: exact.
  const i64 big = (i64{1} << 62) + 12345;
  EXPECT_EQ(bitwise_xor(i64s({big}), i64s({big - 1})).to_vector<i64>(), (std::vector<i64>{1}));
  EXPECT_EQ(bitwise_invert(i64s({std::numeric_limits<i64>::max()})).to_vector<i64>(),
            (std::vector<i64>{std::numeric_limits<i64>::min()}));
}

TEST(Bitwise, BroadcastPromotionAndScalars) {
  const Tensor a = from_vector<i32>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = i64s({1, 3, 7});
  const Tensor r = bitwise_and(a, b);
  EXPECT_EQ(r.dtype(), DType::i64);  // promote(i32, i64)
  EXPECT_EQ(r.shape(), (Dims{2, 3}));
  EXPECT_EQ(r.to_vector<i64>(), (std::vector<i64>{1, 2, 3, 0, 1, 6}));
  // bool with i32 promotes to i32.
  EXPECT_EQ(bitwise_or(bools({true, false}), i32s({4, 4})).to_vector<i32>(),
            (std::vector<i32>{5, 4}));
  // Scalars keep the integer dtype; both sides.
  EXPECT_EQ(bitwise_and(a, 6).dtype(), DType::i32);
  EXPECT_EQ(bitwise_and(a, 6).to_vector<i32>(), (std::vector<i32>{0, 2, 2, 4, 4, 6}));
  EXPECT_EQ(bitwise_left_shift(1, i32s({0, 1, 4})).to_vector<i32>(), (std::vector<i32>{1, 2, 16}));
  EXPECT_EQ(bitwise_right_shift(i32s({-16, 16}), 2).to_vector<i32>(), (std::vector<i32>{-4, 4}));
  // Strided (transposed) operands.
  const Tensor t = a.transpose();  // [[1, 4], [2, 5], [3, 6]]
  EXPECT_EQ(bitwise_xor(t, i32s({1, 1})).to_vector<i32>(), (std::vector<i32>{0, 5, 3, 4, 2, 7}));
}

TEST(Bitwise, ShiftCountsAreDefinedForEveryValue) {
  // Note [Shift counts]: in [0, bits) the usual shift; outside, every bit is shifted out.
  const Tensor x = i32s({1, -1, 5, -5, 1, -8, 7, -7});
  const Tensor c = i32s({31, 31, 32, 33, -1, -1, 100, 100});
  EXPECT_EQ(bitwise_left_shift(x, c).to_vector<i32>(),
            (std::vector<i32>{std::numeric_limits<i32>::min(), std::numeric_limits<i32>::min(), 0,
                              0, 0, 0, 0, 0}));
  EXPECT_EQ(bitwise_right_shift(x, c).to_vector<i32>(),
            (std::vector<i32>{0, -1, 0, -1, 0, -1, 0, -1}));
  // Wrapping left shift and arithmetic right shift inside the range.
  EXPECT_EQ(bitwise_left_shift(i32s({0x40000000, 3, -3}), i32s({1, 2, 1})).to_vector<i32>(),
            (std::vector<i32>{std::numeric_limits<i32>::min(), 12, -6}));
  EXPECT_EQ(bitwise_right_shift(i32s({-7, 7, -1}), i32s({1, 1, 30})).to_vector<i32>(),
            (std::vector<i32>{-4, 3, -1}));  // floor(-7 / 2) = -4
  // i64: 64 bits.
  EXPECT_EQ(bitwise_left_shift(i64s({1, 1, 1}), i64s({40, 63, 64})).to_vector<i64>(),
            (std::vector<i64>{i64{1} << 40, std::numeric_limits<i64>::min(), 0}));
  EXPECT_EQ(bitwise_right_shift(i64s({std::numeric_limits<i64>::min(), -1}), i64s({63, -5}))
                .to_vector<i64>(),
            (std::vector<i64>{-1, -1}));
  // i32 counts promote with an i64 value: 32 is inside i64's range.
  EXPECT_EQ(bitwise_left_shift(i64s({1}), i32s({32})).to_vector<i64>(),
            (std::vector<i64>{i64{1} << 32}));
}

TEST(Bitwise, TypedErrorsLeaveInputsUnchanged) {
  const Tensor f = f64s({1.0, 2.0});
  const Tensor n = i32s({1, 2});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_and(f, n); },
               {"bitwise_and", "f64", "i32", "integer"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_invert(f); },
               {"bitwise_invert", "f64"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_left_shift(f, n); },
               {"bitwise_left_shift", "f64", "integer dtypes"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_right_shift(n, 1.5); },
               {"bitwise_right_shift"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)bitwise_left_shift(bools({true}), bools({true})); },
               {"bitwise_left_shift", "bool"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)bitwise_xor(from_vector<c128>({c128(1, 1)}, {1}), n); },
               {"bitwise_xor"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)bitwise_or(n, i32s({1, 2, 3}));
               },
               {"bitwise_or", "[2]", "[3]"});
  EXPECT_EQ(n.to_vector<i32>(), (std::vector<i32>{1, 2}));
  EXPECT_EQ(f.to_vector<double>(), (std::vector<double>{1.0, 2.0}));
  // Still usable afterwards.
  EXPECT_EQ(bitwise_or(n, n).to_vector<i32>(), (std::vector<i32>{1, 2}));
}

TEST(Bitwise, WholeScalarsBeyondTheTensorDtypeComputeInI64) {
  // A whole-number Scalar that does not fit an i32 tensor's dtype computes in i64 (NumPy, and the
  // Python operators' ints); it used to be DTypeMismatch "defined on ... integer dtypes only; got
  // [3] i32", blaming the i32 tensor.
  const Tensor x = i32s({1, -2, 3});
  const double big = 0x1p40 + 3;  // exact in a double
  const Tensor a = bitwise_and(x, big);
  EXPECT_EQ(a.dtype(), DType::i64);
  EXPECT_EQ(a.to_vector<i64>(), (std::vector<i64>{1, (i64{1} << 40) + 2, 3}));
  EXPECT_EQ(bitwise_xor(-0x1p40, x).to_vector<i64>(),
            (std::vector<i64>{-(i64{1} << 40) ^ 1, -(i64{1} << 40) ^ -2, -(i64{1} << 40) ^ 3}));
  EXPECT_EQ(bitwise_or(bools({true, false}), big).to_vector<i64>(),
            (std::vector<i64>{(i64{1} << 40) + 3, (i64{1} << 40) + 3}));
  // A count beyond every width shifts every bit out.
  EXPECT_EQ(bitwise_left_shift(x, 0x1p40).to_vector<i64>(), (std::vector<i64>{0, 0, 0}));
  EXPECT_EQ(bitwise_right_shift(x, 3e10).to_vector<i64>(), (std::vector<i64>{0, -1, 0}));
  EXPECT_EQ(bitwise_left_shift(3e10, i32s({1})).to_vector<i64>(), (std::vector<i64>{60000000000}));
  // Fitting whole numbers keep the tensor's dtype; -2^63 fits i64.
  EXPECT_EQ(bitwise_and(x, 6).dtype(), DType::i32);
  EXPECT_EQ(bitwise_and(i64s({-1}), -0x1p63).to_vector<i64>(),
            (std::vector<i64>{std::numeric_limits<i64>::min()}));
  // Traced and prepared runs agree (the shape rule decides the dtype).
  auto f = [big](std::span<const Tensor> in) {
    return std::vector<Tensor>{bitwise_and(in[0], big), bitwise_left_shift(in[0], 0x1p40)};
  };
  const Tensor in[1] = {x};
  const std::vector<Tensor> ref =
      expect_eager_prepared_scoped_bitwise(f, {ValueSpec{{3}, DType::i32}}, in);
  EXPECT_EQ(ref[0].dtype(), DType::i64);
  // Other Scalars are DTypeMismatch naming the op, the Scalar and the tensor.
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_and(x, 0.5); },
               {"bitwise_and", "Scalar", "0.5", "[3] i32"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_or(i64s({1}), 0x1p63); },
               {"bitwise_or", "Scalar", "i64's range", "[1] i64"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_left_shift(x, Scalar(1.0, 2.0)); },
               {"bitwise_left_shift", "Scalar", "imaginary"});
  // Floating tensors keep the tensor message.
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)bitwise_and(f64s({1.0}), 1); },
               {"bitwise_and", "f64", "integer"});
}

TEST(Bitwise, ShiftsOfABoolNextToAnIntegerPromote) {
  // Only bool with bool is refused by the shifts; a bool operand next to an integer promotes
  // (as NumPy), as docs/ops.md and docs/dtypes.md say.
  const Tensor l = bitwise_left_shift(bools({true, false}), i32s({1, 2}));
  EXPECT_EQ(l.dtype(), DType::i32);
  EXPECT_EQ(l.to_vector<i32>(), (std::vector<i32>{2, 0}));
  EXPECT_EQ(bitwise_right_shift(i32s({4, 4}), bools({true, false})).to_vector<i32>(),
            (std::vector<i32>{2, 4}));
  EXPECT_EQ(bitwise_left_shift(bools({true}), 3).to_vector<i64>(), (std::vector<i64>{8}));
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)bitwise_right_shift(bools({true}), bools({false})); },
               {"bitwise_right_shift", "bool", "integer dtypes"});
}

TEST(Bitwise, CatalogEntriesAreNotDifferentiable) {
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert",
                           "bitwise_left_shift", "bitwise_right_shift"}) {
    const auto p = detail::elementwise_primitive(name);
    ASSERT_TRUE(p) << name;
    EXPECT_EQ(p->name(), name);
    EXPECT_FALSE(p->differentiable()) << name;
  }
}

// ---- searchsorted ----

TEST(SearchSorted, LeftAndRightOnHandComputedCases) {
  const Tensor x1 = f64s({1.0, 2.0, 2.0, 3.0, 5.0});
  const Tensor v = from_vector<double>({0.0, 1.0, 2.0, 2.5, 3.0, 5.0, 6.0, -kInf}, {2, 4});
  const Tensor l = searchsorted(x1, v);
  EXPECT_EQ(l.dtype(), DType::i64);
  EXPECT_EQ(l.shape(), (Dims{2, 4}));
  EXPECT_EQ(l.to_vector<i64>(), (std::vector<i64>{0, 0, 1, 3, 3, 4, 5, 0}));
  EXPECT_EQ(searchsorted(x1, v, SearchSide::right).to_vector<i64>(),
            (std::vector<i64>{0, 1, 3, 3, 4, 5, 5, 0}));
  // 0-d x2 gives a 0-d result; empty x1 gives 0; empty x2 gives an empty result.
  const Tensor s = searchsorted(x1, scalar_tensor(2.0));
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.item<i64>(), 1);
  EXPECT_EQ(searchsorted(f64s({}), f64s({1.0, 2.0})).to_vector<i64>(), (std::vector<i64>{0, 0}));
  EXPECT_EQ(searchsorted(x1, from_vector<double>({}, {0, 3})).shape(), (Dims{0, 3}));
}

TEST(SearchSorted, NaNsSortLastAndSignedZerosAreEqual) {
  // The standard's sort order: NaNs last.
  const Tensor x1 = f64s({-kInf, -0.0, 1.0, kInf, kNaN, kNaN});
  const Tensor v = f64s({kNaN, kInf, 0.0, -0.0, -kInf, 7.0});
  EXPECT_EQ(searchsorted(x1, v).to_vector<i64>(), (std::vector<i64>{4, 3, 1, 1, 0, 3}));
  EXPECT_EQ(searchsorted(x1, v, SearchSide::right).to_vector<i64>(),
            (std::vector<i64>{6, 4, 2, 2, 1, 3}));
}

TEST(SearchSorted, IntegersPromotionSorterAndStrides) {
  const Tensor x1 = i64s({1, 3, 5, 7});
  EXPECT_EQ(searchsorted(x1, i32s({0, 3, 4, 8})).to_vector<i64>(), (std::vector<i64>{0, 1, 2, 4}));
  // i64 x1 against f64 values: compared in f64.
  EXPECT_EQ(searchsorted(x1, f64s({2.5, 5.0, 5.5})).to_vector<i64>(), (std::vector<i64>{1, 2, 3}));
  EXPECT_EQ(searchsorted(bools({false, true}), bools({true})).to_vector<i64>(),
            (std::vector<i64>{1}));
  // sorter: x1 unsorted, argsort(x1) sorts it; results index the sorted order.
  const Tensor u = f64s({5.0, 1.0, 3.0, kNaN, 2.0});
  const Tensor order = argsort(u);
  EXPECT_EQ(searchsorted(u, f64s({2.0, 4.0, kNaN}), SearchSide::left, order).to_vector<i64>(),
            (std::vector<i64>{1, 3, 4}));
  EXPECT_EQ(
      searchsorted(u, f64s({2.0}), SearchSide::right, cast(order, DType::i32)).to_vector<i64>(),
      (std::vector<i64>{2}));
  // A strided x1 (every other element of a sorted row) and a transposed x2.
  const Tensor row = f64s({0.0, 100.0, 1.0, 100.0, 2.0, 100.0});
  const Tensor every_other = slice(row, 0, 0, 6, 2);
  const Tensor x2 = from_vector<double>({0.5, 1.5, 2.5, -1.0}, {2, 2}).transpose();
  EXPECT_EQ(searchsorted(every_other, x2).to_vector<i64>(), (std::vector<i64>{1, 3, 2, 0}));
}

TEST(SearchSorted, TypedErrorsLeaveInputsUnchanged) {
  const Tensor x1 = f64s({1.0, 2.0});
  const Tensor m = from_vector<double>({1, 2, 3, 4}, {2, 2});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)searchsorted(m, x1); },
               {"searchsorted", "one-dimensional", "[2, 2]"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)searchsorted(scalar_tensor(1.0), x1); },
               {"searchsorted", "one-dimensional"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] { (void)searchsorted(x1, from_vector<c128>({c128(1, 0)}, {1})); },
               {"searchsorted", "complex"});
  expect_error(ErrorKind::DTypeMismatch,
               [&] {
                 (void)searchsorted(x1, x1, SearchSide::left, f64s({0.0, 1.0}));
               },
               {"searchsorted", "sorter", "integer dtype"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 (void)searchsorted(x1, x1, SearchSide::left, i64s({0, 1, 2}));
               },
               {"searchsorted", "sorter", "length 2", "[3] i64"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)searchsorted(x1, x1, SearchSide::left, i64s({0, 5}));
               },
               {"5"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { (void)searchsorted(x1, x1, static_cast<SearchSide>(7)); },
               {"searchsorted", "side"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)searchsorted(Tensor{}, x1); },
               {"searchsorted", "x1", "undefined"});
  EXPECT_EQ(x1.to_vector<double>(), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(searchsorted(x1, x1).to_vector<i64>(), (std::vector<i64>{0, 1}));
}

TEST(SearchSorted, SorterOutOfRangeNamesSearchsorted) {
  // The range check is index_select's; the error used to name only take_along_axis.
  const Tensor x1 = f64s({2.0, 1.0});
  const Tensor v = f64s({1.5});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)searchsorted(x1, v, SearchSide::left, i64s({1, 5}));
               },
               {"searchsorted", "sorter", "[2] f64, [1] f64, [2] i64", "5"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)searchsorted(x1, v, SearchSide::right, i32s({-3, 0}));
               },
               {"searchsorted", "sorter", "-3"});
  // A negative index is out of range too, as NumPy's "Sorter index out of range": it used to
  // count from the end (index_select's rule), so {-1, 0} read x1 as [1, 2] and returned 1.
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)searchsorted(x1, v, SearchSide::left, i64s({-1, 0}));
               },
               {"searchsorted", "sorter", "-1", "position 0", "[0, 2)"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)searchsorted(x1, f64s({}), SearchSide::left, i32s({1, -2}));
               },
               {"searchsorted", "sorter", "-2", "position 1"});
  // u64 above INT64_MAX is out of range, not wrapped to a negative index.
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)searchsorted(x1, v, SearchSide::left,
                                    from_vector<std::uint64_t>({1, std::uint64_t{1} << 63}, {2}));
               },
               {"searchsorted", "sorter", "9223372036854775808"});
  EXPECT_EQ(searchsorted(x1, v, SearchSide::left, from_vector<std::uint8_t>({1, 0}, {2}))
                .to_vector<i64>(),
            (std::vector<i64>{1}));
}

TEST(SearchSorted, SorterIsCheckedInPreparedPrograms) {
  // The check runs with the op, so a prepared program refuses a negative sorter as well.
  const Tensor x1 = f64s({3.0, 1.0, 2.0});
  const Tensor v = f64s({1.5, 2.5});
  auto f = [](std::span<const Tensor> a) {
    return std::vector<Tensor>{searchsorted(a[0], a[1], SearchSide::left, a[2])};
  };
  const Program p = trace(
      f, {ValueSpec{{3}, DType::f64}, ValueSpec{{2}, DType::f64}, ValueSpec{{3}, DType::i64}});
  Runtime rt;
  const Tensor good[3] = {x1, v, i64s({1, 2, 0})};
  EXPECT_EQ(rt.run(rt.prepare(p), good)[0].to_vector<i64>(), (std::vector<i64>{1, 2}));
  const Tensor bad[3] = {x1, v, i64s({1, 2, -3})};
  expect_error(ErrorKind::InvalidArgument, [&] { (void)rt.run(rt.prepare(p), bad); },
               {"searchsorted", "sorter", "-3", "position 2"});
}

TEST(SearchSorted, NoGradientFlowsThroughTheIndices) {
  Tensor x1 = f64s({1.0, 2.0, 3.0}).requires_grad_();
  Tensor v = f64s({1.5, 2.5}).requires_grad_();
  const Tensor idx = searchsorted(x1, v);
  EXPECT_FALSE(idx.requires_grad());
  // The index is a constant: d/dv sum(v * idx) = idx.
  auto loss = [](std::span<const Tensor> a) {
    return sum(a[1] * cast(searchsorted(a[0], a[1]), DType::f64));
  };
  const std::vector<Tensor> g = grad(loss, {f64s({1.0, 2.0, 3.0}), f64s({1.5, 2.5})});
  EXPECT_EQ(g[1].to_vector<double>(), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0.0, 0.0, 0.0}));
  // Traced gradient program agrees.
  auto f = [&](std::span<const Tensor> a) { return std::vector<Tensor>{loss(a)}; };
  Program gp = grad(trace(f, {ValueSpec{{3}, DType::f64}, ValueSpec{{2}, DType::f64}}), {1});
  const std::vector<Tensor> gv = gp({f64s({1.0, 2.0, 3.0}), f64s({1.5, 2.5})});
  EXPECT_EQ(gv.back().to_vector<double>(), (std::vector<double>{1.0, 2.0}));
}

TEST(SearchSorted, ForwardModeTreatsIndicesAsConstants) {
  // jvp of v * searchsorted(x1, v) + bitwise ops on the indices: the tangent is t * idx.
  auto f = [](std::span<const Tensor> a) {
    const Tensor idx = searchsorted(a[0], a[1], SearchSide::right);
    const Tensor odd = bitwise_and(idx, 1);  // i64, no tangent
    return sum(a[1] * cast(idx, DType::f64) + cast(odd, DType::f64));
  };
  const Tensor x1 = f64s({1.0, 2.0, 3.0}), v = f64s({1.0, 2.5}), t = f64s({1.0, 10.0});
  const JvpResult r = jvp(f, {x1, v}, {f64s({1.0, 1.0, 1.0}), t});
  EXPECT_EQ(r.outputs[0].item<double>(), 1.0 * 1 + 2.5 * 2 + 1.0);
  EXPECT_EQ(r.tangents[0].item<double>(), 1.0 * 1 + 10.0 * 2);
  // The traced jvp program agrees.
  auto g = [&](std::span<const Tensor> a) { return std::vector<Tensor>{f(a)}; };
  Program jp = jvp(trace(g, {ValueSpec{{3}, DType::f64}, ValueSpec{{2}, DType::f64}}));
  const std::vector<Tensor> out = jp({x1, v, f64s({1.0, 1.0, 1.0}), t});
  EXPECT_EQ(out.back().item<double>(), 21.0);
}

// ---- traced, prepared and scoped runs agree with eager ----

TEST(SetsBitwise, EagerTracedPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  auto f = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{bitwise_and(in[0], in[1]),
                               bitwise_or(in[0], 12),
                               bitwise_xor(in[1], in[0]),
                               bitwise_invert(in[0]),
                               bitwise_left_shift(in[0], in[2]),
                               bitwise_right_shift(in[0], in[2]),
                               searchsorted(in[3], in[4]),
                               searchsorted(in[3], in[4], SearchSide::right),
                               searchsorted(in[3], in[4], SearchSide::left, in[5])};
  };
  std::vector<i32> av(300 * 40), cv(40);
  std::vector<i64> bv(40);
  for (std::size_t k = 0; k < av.size(); ++k) av[k] = static_cast<i32>(k * 2654435761u);
  for (std::size_t k = 0; k < 40; ++k) {
    bv[k] = static_cast<i64>(k * 977) - 9000;
    cv[k] = static_cast<i32>(k) - 4;  // negative and too-large counts too
  }
  std::vector<double> sorted(1000), vals(5000);
  for (std::size_t k = 0; k < sorted.size(); ++k)
    sorted[k] = std::floor(static_cast<double>(k) / 3);
  sorted[998] = sorted[999] = kNaN;
  for (std::size_t k = 0; k < vals.size(); ++k)
    vals[k] = k % 97 == 0 ? kNaN : static_cast<double>((k * 7919) % 3400) / 10.0 - 5.0;
  std::vector<i64> ident(1000);
  for (std::size_t k = 0; k < ident.size(); ++k) ident[k] = static_cast<i64>(k);
  const Tensor in[6] = {from_vector<i32>(av, {300, 40}),      from_vector<i64>(bv, {40}),
                        from_vector<i32>(cv, {40}),           from_vector<double>(sorted, {1000}),
                        from_vector<double>(vals, {50, 100}), from_vector<i64>(ident, {1000})};
  const std::vector<ValueSpec> specs{
      ValueSpec{{300, 40}, DType::i32}, ValueSpec{{40}, DType::i64},
      ValueSpec{{40}, DType::i32},      ValueSpec{{1000}, DType::f64},
      ValueSpec{{50, 100}, DType::f64}, ValueSpec{{1000}, DType::i64}};
  const std::string printed = trace(f, specs).to_string();
  for (const char* name : {"bitwise_and", "bitwise_invert", "bitwise_left_shift", "searchsorted"})
    EXPECT_NE(printed.find(name), std::string::npos) << name;
  const std::vector<Tensor> ref = expect_eager_prepared_scoped_bitwise(f, specs, in);
  EXPECT_EQ(ref[6].dtype(), DType::i64);
  EXPECT_EQ(ref[6].shape(), (Dims{50, 100}));
  EXPECT_TRUE(same_bits(ref[6], ref[8]));
}

// ---- unique ----

TEST(Unique, AllOnHandComputedCase) {
  const Tensor x = from_vector<double>({3.0, 1.0, 3.0, 2.0, 1.0, 3.0}, {2, 3});
  const UniqueAllResult r = unique_all(x);
  EXPECT_EQ(r.values.to_vector<double>(), (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_EQ(r.values.dtype(), DType::f64);
  EXPECT_EQ(r.indices.to_vector<i64>(), (std::vector<i64>{1, 3, 0}));
  EXPECT_EQ(r.inverse_indices.shape(), (Dims{2, 3}));
  EXPECT_EQ(r.inverse_indices.to_vector<i64>(), (std::vector<i64>{2, 0, 2, 1, 0, 2}));
  EXPECT_EQ(r.counts.to_vector<i64>(), (std::vector<i64>{2, 1, 3}));
  // The other three agree with unique_all.
  const UniqueCountsResult c = unique_counts(x);
  EXPECT_EQ(c.values.to_vector<double>(), r.values.to_vector<double>());
  EXPECT_EQ(c.counts.to_vector<i64>(), r.counts.to_vector<i64>());
  const UniqueInverseResult i = unique_inverse(x);
  EXPECT_EQ(i.inverse_indices.to_vector<i64>(), r.inverse_indices.to_vector<i64>());
  EXPECT_EQ(unique_values(x).to_vector<double>(), r.values.to_vector<double>());
}

TEST(Unique, EachNaNIsDistinctAndSignedZerosAreOne) {
  const Tensor x = f64s({kNaN, 0.0, -0.0, kNaN, 1.0, -kInf, -0.0});
  const UniqueAllResult r = unique_all(x);
  const std::vector<double> v = r.values.to_vector<double>();
  ASSERT_EQ(v.size(), 5u);  // -inf, 0, 1, NaN, NaN
  EXPECT_EQ(v[0], -kInf);
  EXPECT_EQ(v[1], 0.0);
  EXPECT_FALSE(std::signbit(v[1]));  // the first occurrence is +0.0
  EXPECT_EQ(v[2], 1.0);
  EXPECT_TRUE(std::isnan(v[3]) && std::isnan(v[4]));
  EXPECT_EQ(r.indices.to_vector<i64>(), (std::vector<i64>{5, 1, 4, 0, 3}));
  EXPECT_EQ(r.counts.to_vector<i64>(), (std::vector<i64>{1, 3, 1, 1, 1}));
  EXPECT_EQ(r.inverse_indices.to_vector<i64>(), (std::vector<i64>{3, 1, 1, 4, 2, 0, 1}));
  // -0.0 first: its sign is kept.
  EXPECT_TRUE(std::signbit(unique_values(f64s({-0.0, 0.0})).to_vector<double>()[0]));
}

TEST(Unique, IntegersBoolComplexZeroDAndEmpty) {
  EXPECT_EQ(
      unique_values(i64s({(i64{1} << 60) + 1, i64{1} << 60, (i64{1} << 60) + 1})).to_vector<i64>(),
      (std::vector<i64>{i64{1} << 60, (i64{1} << 60) + 1}));
  const UniqueCountsResult b = unique_counts(bools({true, false, true, true}));
  EXPECT_EQ(b.values.to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(b.counts.to_vector<i64>(), (std::vector<i64>{1, 3}));
  // Complex: lexicographic.
  const Tensor z = from_vector<c128>({c128(1, 2), c128(1, -1), c128(0, 5), c128(1, 2)}, {4});
  EXPECT_EQ(unique_values(z).to_vector<c128>(),
            (std::vector<c128>{c128(0, 5), c128(1, -1), c128(1, 2)}));
  // 0-d: one element; inverse_indices 0-d.
  const UniqueAllResult s = unique_all(scalar_tensor(4.0));
  EXPECT_EQ(s.values.shape(), (Dims{1}));
  EXPECT_EQ(s.inverse_indices.rank(), 0);
  EXPECT_EQ(s.inverse_indices.item<i64>(), 0);
  // Empty.
  const UniqueAllResult e = unique_all(from_vector<float>({}, {0, 2}));
  EXPECT_EQ(e.values.shape(), (Dims{0}));
  EXPECT_EQ(e.values.dtype(), DType::f32);
  EXPECT_EQ(e.inverse_indices.shape(), (Dims{0, 2}));
  EXPECT_EQ(e.counts.shape(), (Dims{0}));
  // Strided input.
  const Tensor t = from_vector<i32>({5, 1, 5, 2}, {2, 2}).transpose();  // [5, 5, 1, 2]
  EXPECT_EQ(unique_inverse(t).inverse_indices.to_vector<i64>(), (std::vector<i64>{2, 2, 0, 1}));
}

TEST(Unique, TracingIsUnsupportedAndNamesWhy) {
  auto f = [](std::span<const Tensor> in) { return std::vector<Tensor>{unique_values(in[0])}; };
  expect_error(ErrorKind::Unsupported,
               [&] {
                 (void)trace(f, {ValueSpec{{4}, DType::f64}});
               },
               {"unique_values", "depends on the values", "traced"});
  auto g = [](std::span<const Tensor> in) { return std::vector<Tensor>{unique_all(in[0]).counts}; };
  expect_error(ErrorKind::Unsupported,
               [&] {
                 (void)trace(g, {ValueSpec{{4}, DType::i32}});
               },
               {"unique_all"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)unique_counts(Tensor{}); },
               {"unique_counts", "undefined"});
  // Eager still works afterwards.
  EXPECT_EQ(unique_values(i32s({2, 2})).to_vector<i32>(), (std::vector<i32>{2}));
}

TEST(Unique, ValuesGatherFirstOccurrencesUnderAutodiff) {
  const std::vector<Tensor> g = grad(
      [](std::span<const Tensor> a) {
        return sum(unique_values(a[0]) * f64s({1.0, 10.0}));
      },
      {f64s({2.0, 1.0, 2.0})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{10.0, 1.0, 0.0}));
  Tensor x = f64s({1.0, 1.0}).requires_grad_();
  const UniqueAllResult r = unique_all(x);
  EXPECT_TRUE(r.values.requires_grad());
  EXPECT_FALSE(r.counts.requires_grad());
  EXPECT_FALSE(r.inverse_indices.requires_grad());
}

}  // namespace
}  // namespace tenferro::testing
