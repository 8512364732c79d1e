// Bad input that used to crash the process, part 2: views (the public Tensor constructor,
// wrap_contiguous, slice, reshape, permute, broadcast_to, diagonals) with extreme sizes, strides,
// offsets and axes. Each test says what the old code did.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/expect_error.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t k2p62 = std::int64_t{1} << 62;

std::vector<double> values(const Tensor& t) { return contiguous(t).to_vector<double>(); }

// Before: the bounds check computed (size - 1) * stride and the sums in wrapping arithmetic, so
// these views of a 4-element storage were accepted and a later write landed far outside it.
TEST(BadInput, ViewConstructorRejectsOverflowingStridesAndOffsets) {
  Tensor base = zeros({4});
  const StoragePtr& s = base.storage();
  expect_error(ErrorKind::InvalidArgument, [&] { Tensor(s, {5}, {k2p62}, 0, DType::f64); },
               {"Tensor", "outside a storage of 4 elements"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 Tensor(s, {2, 2}, {k2p62, k2p62}, 0, DType::f64);
               },
               {"Tensor"});
  expect_error(ErrorKind::InvalidArgument, [&] { Tensor(s, {3}, {kMax}, 0, DType::f64); },
               {"Tensor"});
  expect_error(ErrorKind::InvalidArgument, [&] { Tensor(s, {2}, {kMin}, kMax, DType::f64); },
               {"Tensor"});
  expect_error(ErrorKind::InvalidArgument, [&] { Tensor(s, {2}, {1}, kMax, DType::f64); },
               {"Tensor"});
  expect_error(ErrorKind::InvalidArgument, [&] { Tensor(s, {1}, {1}, 4, DType::f64); }, {"Tensor"});
  expect_error(ErrorKind::InvalidArgument, [&] { Tensor(s, {3}, {1}, 0, DType::c128); },
               {"Tensor", "outside a storage of 2 elements"});
  // Legal extremes stay legal: a size-1 dimension never steps, a reversed view, an empty view
  // at the end of the storage.
  Tensor one(s, {1, 1}, {kMax, kMin}, 3, DType::f64);
  EXPECT_EQ(one.numel(), 1);
  Tensor rev(s, {4}, {-1}, 3, DType::f64);
  EXPECT_EQ(rev.numel(), 4);
  Tensor end(s, {0}, {kMax}, 4, DType::f64);
  EXPECT_EQ(end.numel(), 0);
  EXPECT_EQ(diagonal(one).numel(), 1);  // before: strides kMax + kMin computed for the diagonal
}

// Strides that address nothing may be anything, but they used to reach offset arithmetic:
// walking [2, 1, 2] with stride INT64_MAX on the size-1 dimension added INT64_MAX to a
// non-zero offset (signed overflow), and slicing an empty [0, 5] view with stride INT64_MAX
// on its second dimension computed 3 * INT64_MAX. Such strides are normalised (tensor.hpp).
TEST(BadInput, StridesThatAddressNothingAreNormalised) {
  Tensor base = arange(8);
  const StoragePtr& s = base.storage();
  Tensor v(s, {2, 1, 2}, {4, kMax, 1}, 1, DType::f64);
  EXPECT_EQ(v.strides(), (Dims{4, 2, 1}));
  EXPECT_EQ(values(v), (std::vector<double>{1, 2, 5, 6}));
  EXPECT_EQ(values(add(v, 1.0)), (std::vector<double>{2, 3, 6, 7}));
  EXPECT_EQ(values(sum(v, {0})), (std::vector<double>{6, 8}));
  Tensor kept(s, {2, 1, 2}, {4, -3, 1}, 1, DType::f64);  // small enough: kept as given
  EXPECT_EQ(kept.strides(), (Dims{4, -3, 1}));
  Tensor e(s, {0, 5}, {1, kMax}, 0, DType::f64);
  EXPECT_EQ(e.strides(), (Dims{5, 1}));
  EXPECT_EQ(slice(e, 1, 3, 5).shape(), (Dims{0, 2}));
  EXPECT_EQ(diagonal(Tensor(s, {0, 3, 3}, {kMax, kMin, kMax}, 0, DType::f64), -2).shape(),
            (Dims{0, 1}));
}

// Before: a null storage was accepted; the tensor then printed as "symbolic" and every access
// said it was traced.
TEST(BadInput, ViewConstructorRejectsNullStorage) {
  expect_error(ErrorKind::InvalidArgument, [] { Tensor(StoragePtr(), {2}, {1}, 0, DType::f64); },
               {"Tensor", "null"});
  expect_error(ErrorKind::InvalidArgument, [] { Tensor(StoragePtr(), {}, {}, 0, DType::f32); },
               {"Tensor", "null"});
}

// Before: an empty view with a negative (or past-the-end) offset was accepted, and data_ptr()
// pointed outside the storage.
TEST(BadInput, ViewConstructorRejectsNegativeOffset) {
  Tensor base = zeros({4});
  expect_error(ErrorKind::InvalidArgument,
               [&] { Tensor(base.storage(), {0}, {1}, -1, DType::f64); }, {"Tensor", "offset -1"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { Tensor(base.storage(), {2}, {1}, -1, DType::f64); }, {"Tensor", "offset -1"});
  expect_error(ErrorKind::InvalidArgument, [&] { Tensor(base.storage(), {0}, {1}, 5, DType::f64); },
               {"Tensor", "offset 5"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { Tensor(base.storage(), {-1}, {1}, 0, DType::f64); }, {"Tensor", "negative"});
}

// Before: wrap_contiguous checked nothing: a 1-element storage wrapped as 100 elements, and a
// shape [-2, 3] gave numel -6.
TEST(BadInput, WrapContiguousValidatesStorageAndShape) {
  Tensor one = zeros({1});
  expect_error(ErrorKind::InvalidArgument,
               [&] { Tensor::wrap_contiguous(one.storage(), {100}, DType::f64); },
               {"wrap_contiguous", "holds 8 bytes"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 Tensor::wrap_contiguous(one.storage(), {-2, 3}, DType::f64);
               },
               {"wrap_contiguous", "negative"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { Tensor::wrap_contiguous(one.storage(), {std::int64_t{1} << 61}, DType::f64); },
               {"wrap_contiguous"});
  expect_error(ErrorKind::InvalidArgument,
               [&] { Tensor::wrap_contiguous(StoragePtr(), {1}, DType::f64); },
               {"wrap_contiguous", "null"});
  Tensor w = Tensor::wrap_contiguous(StoragePtr(heap_storage(32)), {2, 2}, DType::f64);
  EXPECT_EQ(w.strides(), (Dims{2, 1}));
  Tensor f = Tensor::wrap_contiguous(one.storage(), {2}, DType::f32);  // 8 bytes hold 2 f32
  EXPECT_EQ(f.numel(), 2);
  Tensor e = Tensor::wrap_contiguous(StoragePtr(heap_storage(0)), {0, 5}, DType::c128);
  EXPECT_EQ(e.numel(), 0);
}

// Before: slice(x, 0, 0, 5, INT64_MAX) returned 0 elements (stop - start + step - 1 wrapped),
// and slice(x, 0, 1, 5, INT64_MAX - 1) failed with "Tensor: negative dimension".
TEST(BadInput, SliceHugeStepSelectsOneElement) {
  Tensor x = arange(5);
  Tensor a = slice(x, 0, 0, 5, kMax);
  EXPECT_EQ(a.shape(), (Dims{1}));
  EXPECT_EQ(values(a), (std::vector<double>{0}));
  Tensor b = slice(x, 0, 1, 5, kMax - 1);
  EXPECT_EQ(values(b), (std::vector<double>{1}));
  Tensor c = slice(x, 0, 3, kMax, kMax);
  EXPECT_EQ(values(c), (std::vector<double>{3}));
  // Its gradient (slice_embed) and a copy through the kernel path agree.
  Tensor xs = arange(5).requires_grad_();
  backward(sum(slice(xs, 0, 2, kMax, kMax)));
  EXPECT_EQ(xs.grad().to_vector<double>(), (std::vector<double>{0, 0, 1, 0, 0}));
  Tensor t = transpose(reshape(arange(6), {2, 3}));  // not contiguous: slice of a strided view
  EXPECT_EQ(values(slice(t, 0, 1, kMax, kMax)), (std::vector<double>{1, 4}));
}

// start/stop/step at the int64 extremes, both signs of step, follow the documented NumPy rule
// (reference computed here in 128-bit arithmetic); step 0 is InvalidArgument.
TEST(BadInput, SliceExtremeBoundsFollowTheNumpyRule) {
  const std::int64_t n = 5;
  Tensor x = arange(n);
  const std::int64_t bounds[] = {kMin, kMin + 1, -6, -5, -1, 0, 1, 4, 5, 6, kMax - 1, kMax};
  const std::int64_t steps[] = {1,  2,  3,  4,  5,  6,  kMax - 1, kMax,
                                -1, -2, -3, -4, -5, -6, kMin + 1, kMin};
  for (std::int64_t start : bounds)
    for (std::int64_t stop : bounds)
      for (std::int64_t step : steps) {
        // NumPy: negative values count from the end, then clamp to [0, n] (step > 0) or
        // [-1, n - 1] (step < 0, where -1 means "before the first element").
        auto clamp = [&](std::int64_t v) {
          __int128 w = v < 0 ? static_cast<__int128>(v) + n : v;
          return step > 0 ? std::clamp<__int128>(w, 0, n) : std::clamp<__int128>(w, -1, n - 1);
        };
        std::vector<double> want;
        if (step > 0)
          for (__int128 i = clamp(start); i < clamp(stop); i += step)
            want.push_back(static_cast<double>(i));
        else
          for (__int128 i = clamp(start); i > clamp(stop); i += step)
            want.push_back(static_cast<double>(i));
        Tensor s = slice(x, 0, start, stop, step);
        ASSERT_EQ(values(s), want) << "start " << start << " stop " << stop << " step " << step;
      }
  expect_error(ErrorKind::InvalidArgument, [&] { slice(x, 0, 0, 5, 0); }, {"slice", "step"});
  expect_error(ErrorKind::InvalidArgument, [&] { slice(x, kMin, 0, 5); }, {"slice", "axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { slice(x, kMax, 0, 5); }, {"slice", "axis"});
}

// Before: broadcast_to(x, {-2}) was ShapeMismatch (docs/errors.md: a negative dimension is
// InvalidArgument), and a shape of more than INT64_MAX elements failed inside "Tensor".
TEST(BadInput, BroadcastToNegativeDimensionIsInvalidArgument) {
  Tensor x = ones({1});
  expect_error(ErrorKind::InvalidArgument, [&] { broadcast_to(x, {-2}); },
               {"broadcast_to", "negative"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 broadcast_to(x, {2, -1});
               },
               {"broadcast_to", "negative"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 broadcast_to(x, {k2p62, 4});
               },
               {"broadcast_to", "int64"});
  expect_error(ErrorKind::ShapeMismatch, [&] { broadcast_to(ones({3}), {2}); }, {"broadcast_to"});
  EXPECT_EQ(broadcast_to(x, {k2p62, 1}).numel(), k2p62);
}

// permute accepts NumPy-style negative axes (documented in ops/structural.hpp); a duplicate,
// out-of-range axis or wrong length is InvalidArgument.
TEST(BadInput, PermuteNegativeAxesAreDocumentedAndDuplicatesRejected) {
  Tensor x = reshape(arange(6), {2, 3});
  Tensor t = permute(x, {-1, 0});
  EXPECT_EQ(t.shape(), (Dims{3, 2}));
  EXPECT_EQ(values(t), values(transpose(x)));
  EXPECT_EQ(values(permute(x, {-2, -1})), values(x));
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 permute(x, {0, -2});
               },
               {"permute", "not a permutation"});
  expect_error(ErrorKind::InvalidArgument, [&] { permute(x, {0, 2}); }, {"permute"});
  expect_error(ErrorKind::InvalidArgument, [&] { permute(x, {kMin, 0}); }, {"permute"});
  expect_error(ErrorKind::InvalidArgument, [&] { permute(x, {kMax, 0}); }, {"permute"});
  expect_error(ErrorKind::InvalidArgument, [&] { permute(x, {0}); }, {"permute"});
  expect_error(ErrorKind::InvalidArgument, [&] { permute(x, {0, 1, 2}); }, {"permute"});
}

// Before: reshape multiplied the target sizes in wrapping arithmetic: [2^62 + 1, 4] "matched" 4
// elements and then failed inside "Tensor"; [2^62, 4, 0] passed for an empty tensor.
TEST(BadInput, ReshapeHugeSizesAreTypedErrors) {
  Tensor x = zeros({4});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 reshape(x, {k2p62 + 1, 4});
               },
               {"reshape", "int64"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 reshape(zeros({0}), {k2p62, 4, 0});
               },
               {"reshape", "int64"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 reshape(x, {kMax, kMax, -1});
               },
               {"reshape", "int64"});
  expect_error(ErrorKind::InvalidArgument, [&] { reshape(x, {-1, -1}); }, {"reshape"});
  expect_error(ErrorKind::InvalidArgument, [&] { reshape(x, {kMin}); }, {"reshape"});
  expect_error(ErrorKind::ShapeMismatch, [&] { reshape(x, {kMax}); }, {"reshape"});
  expect_error(ErrorKind::ShapeMismatch, [&] { reshape(x, {-1, 3}); }, {"reshape"});
  expect_error(ErrorKind::ShapeMismatch, [&] { reshape(zeros({0}), {0, -1}); }, {"reshape"});
  EXPECT_EQ(reshape(x, {-1, 1, 2}).shape(), (Dims{2, 1, 2}));
  EXPECT_EQ(reshape(zeros({0, 3}), {3, 0, 7}).shape(), (Dims{3, 0, 7}));
}

TEST(BadInput, SqueezeUnsqueezeTransposeExtremeAxes) {
  Tensor x = zeros({1, 2});
  for (std::int64_t axis : {kMin, kMax, std::int64_t{-3}, std::int64_t{2}}) {
    expect_error(ErrorKind::InvalidArgument, [&] { squeeze(x, axis); }, {"squeeze", "axis"});
    expect_error(ErrorKind::InvalidArgument, [&] { transpose(x, axis, 0); }, {"transpose", "axis"});
    expect_error(ErrorKind::InvalidArgument, [&] { x.size(axis); }, {"size", "axis"});
  }
  for (std::int64_t axis : {kMin, kMax, std::int64_t{-4}, std::int64_t{3}})
    expect_error(ErrorKind::InvalidArgument, [&] { unsqueeze(x, axis); }, {"unsqueeze", "axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { squeeze(x, 1); }, {"squeeze", "size 2"});
  EXPECT_EQ(unsqueeze(x, -3).shape(), (Dims{1, 1, 2}));
  EXPECT_EQ(squeeze(x, -2).shape(), (Dims{2}));
  expect_error(ErrorKind::InvalidArgument, [] { squeeze(scalar_tensor(1.0), 0); }, {"squeeze"});
}

// Before: signed overflow (undefined behaviour; UBSan halts) in diag_embed's size
// (-INT64_MIN) and in tril/triu's column bound (i + INT64_MAX).
TEST(BadInput, DiagonalAndTriangleExtremeOffsets) {
  Tensor m = reshape(arange(6), {2, 3});
  EXPECT_EQ(diagonal(m, kMin).shape(), (Dims{0}));
  EXPECT_EQ(diagonal(m, kMax).shape(), (Dims{0}));
  EXPECT_EQ(values(tril(m, kMax)), values(m));
  EXPECT_EQ(values(triu(m, kMin)), values(m));
  EXPECT_EQ(values(tril(m, kMin)), std::vector<double>(6, 0.0));
  EXPECT_EQ(values(triu(m, kMax)), std::vector<double>(6, 0.0));
  expect_error(ErrorKind::InvalidArgument, [] { diag_embed(ones({2}), kMin); },
               {"diag_embed", "offset"});
  expect_error(ErrorKind::InvalidArgument, [] { diag_embed(ones({2}), kMax); },
               {"diag_embed", "offset"});
  expect_error(ErrorKind::OutOfMemory, [] { diag_embed(ones({2}), std::int64_t{1} << 28); },
               {"diag_embed"});
  EXPECT_EQ(diag_embed(ones({2}), -1).shape(), (Dims{3, 3}));
  // Found by fuzz/api_fuzz: an empty batch of vectors embedded at offset 2^62 - 1 gave a tensor
  // of shape [0, 2^62, 2^62] (never valid: the non-zero sizes overflow int64), and tril of it
  // overflowed computing m * n.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 diag_embed(zeros({0, 1}), (std::int64_t{1} << 62) - 1);
               },
               {"diag_embed", "int64"});
  EXPECT_EQ(diag_embed(zeros({0, 1}), 3).shape(), (Dims{0, 4, 4}));
}

// Before: the sizes along the axis were summed in wrapping arithmetic.
TEST(BadInput, ConcatenateSizeOverflowIsInvalidArgument) {
  Tensor b = broadcast_to(ones({1}), {k2p62});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 concatenate({b, b});
               },
               {"concatenate", "INT64_MAX"});
  Tensor b61 = broadcast_to(ones({1}), {k2p62 / 2});
  expect_error(ErrorKind::OutOfMemory, [&] { concatenate({b61, b61}); }, {"concatenate"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 concatenate({b, b}, kMin);
               },
               {"concatenate", "axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { stack({b, b}, kMax); }, {"stack", "axis"});
  expect_error(ErrorKind::InvalidArgument, [] { concatenate(std::span<const Tensor>()); },
               {"concatenate"});
}

// An _into op given a bad output (or inputs whose result cannot match it) writes nothing.
TEST(BadInput, IntoOpsLeaveOutUnchangedOnError) {
  Tensor out = from_values({1, 2, 3, 4}, {4});
  const std::vector<double> before = out.to_vector<double>();
  Tensor huge = broadcast_to(ones({1}), {std::int64_t{1} << 61});
  expect_error(ErrorKind::ShapeMismatch, [&] { add_into(out, huge, huge); }, {"add_into"});
  Tensor bout = broadcast_to(slice(out, 0, 0, 1), {4});  // four elements at one address
  expect_error(ErrorKind::InvalidArgument, [&] { add_into(bout, ones({4}), ones({4})); },
               {"add_into"});
  Tensor shifted = slice(out, 0, 1, 4);
  expect_error(ErrorKind::InvalidArgument,
               [&] { add_into(shifted, slice(out, 0, 0, 3), ones({3})); }, {"add_into"});
  expect_error(ErrorKind::DTypeMismatch, [&] { exp_into(out, ones({4}, DType::f32)); },
               {"exp_into"});
  EXPECT_EQ(out.to_vector<double>(), before);
  EXPECT_EQ(huge.numel(), std::int64_t{1} << 61);
}

}  // namespace
