// The Tensor handle and its shared layout record (Note [Layout record] in
// tenferro/detail/layout.hpp): what copies, views and op results share, the undefined handle, and
// the precomputed row-major flag against a direct check of the strides.
#include <gtest/gtest.h>

#include "tenferro/ops.hpp"

using namespace tenferro;

namespace {

// Row-major for the shape, size-1 dimensions ignoring their stride; empty shapes count as
// row-major (what is_contiguous() has always meant).
bool row_major_by_hand(const Tensor& t) {
  std::int64_t expected = 1;
  for (std::size_t i = t.shape().size(); i-- > 0;) {
    if (t.shape()[i] == 0) return true;
    if (t.shape()[i] == 1) continue;
    if (t.strides()[i] != expected) return false;
    expected *= t.shape()[i];
  }
  return true;
}

}  // namespace

TEST(LayoutRecord, TheHandleIsSmall) {
  // storage + layout + offset + aux (two words): no inline shape or strides any more.
  EXPECT_LE(sizeof(Tensor), 48u);
}

TEST(LayoutRecord, CopiesShareTheRecordAndViewsGetTheirOwn) {
  Tensor a = randn({2, 3}, 1);
  Tensor b = a;
  EXPECT_EQ(a.layout(), b.layout());
  Tensor t = a.transpose();
  EXPECT_NE(t.layout(), a.layout());
  EXPECT_EQ(t.shape(), (Dims{3, 2}));
  EXPECT_EQ(t.strides(), (Dims{1, 3}));
  // The original is untouched by the view's record.
  EXPECT_EQ(a.shape(), (Dims{2, 3}));
  EXPECT_EQ(a.strides(), (Dims{3, 1}));
  // Moving hands the record over and leaves the source undefined.
  const detail::Layout* rec = b.layout();
  Tensor c = std::move(b);
  EXPECT_EQ(c.layout(), rec);
  EXPECT_FALSE(b.defined());  // NOLINT(bugprone-use-after-move): moved-from is documented empty
}

TEST(LayoutRecord, RepeatedEagerCallsReuseTheCachedOutputRecord) {
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  BackendGuard use(cpu);
  Tensor a = randn({4, 5}, 2), b = randn({4, 5}, 3);
  Tensor r1 = a + b, r2 = a + b;
  // Two results of one cached op: their own storage, one record (Note [Eager cache]).
  EXPECT_EQ(r1.layout(), r2.layout());
  EXPECT_NE(r1.data_ptr(), r2.data_ptr());
  // Results of results hit the cache by record: the same values as a fresh tensor gives.
  Tensor fresh = r1.contiguous();
  EXPECT_TRUE(allclose(r1 * r2, fresh * r2, 0.0, 0.0));
}

// Note [Interned contiguous records] (src/core/layout.cpp): contiguous tensors of one shape and
// dtype made one after the other on one thread carry one record (a direct-mapped table: a record
// of another shape made in between may take the slot, so nothing may depend on sharing); another
// dtype or shape gets a record of its own, and every record still describes its own tensor
// exactly (zero-size and huge dimensions included).
TEST(LayoutRecord, ContiguousTensorsOfOneShapeAndDtypeShareARecordOnOneThread) {
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
  EXPECT_EQ(a.layout(), b.layout());
  EXPECT_NE(randn({16, 2, 2}, 3, DType::f32).layout(), a.layout());
  EXPECT_NE(zeros({16, 4, 1}).layout(), a.layout());
  EXPECT_NE(zeros({2, 2, 16}).layout(), a.layout());
  for (const Dims& shape : {Dims{0, 3}, Dims{3, 0}, Dims{}, Dims{1}, Dims{5, 1, 7}}) {
    const Tensor z = Tensor::empty(shape, DType::f64), w = Tensor::empty(shape, DType::f64);
    EXPECT_EQ(z.layout(), w.layout()) << dims_to_string(shape);
    EXPECT_EQ(z.shape(), shape);
    EXPECT_EQ(z.strides(), contiguous_strides(shape)) << dims_to_string(shape);
    EXPECT_TRUE(row_major_by_hand(z));
  }
  // Symbolic tensors (no storage) of huge shapes: each its own exact record.
  const Tensor big = Tensor::symbolic({std::int64_t{1} << 31, std::int64_t{1} << 31}, DType::f64);
  const Tensor small = Tensor::symbolic({std::int64_t{1} << 31, 2}, DType::f64);
  EXPECT_NE(big.layout(), small.layout());
  EXPECT_EQ(big.numel(), std::int64_t{1} << 62);
  EXPECT_EQ(small.numel(), std::int64_t{1} << 32);
  EXPECT_EQ(Tensor::symbolic({std::int64_t{1} << 31, 2}, DType::f64).layout(), small.layout());
}

TEST(LayoutRecord, SlicesAtDifferentOffsetsKeepTheirOffsets) {
  Tensor a = arange(12).reshape({3, 4});
  Tensor r0 = a.slice(0, 0, 1), r2 = a.slice(0, 2, 3);
  EXPECT_EQ(r0.shape(), r2.shape());
  EXPECT_EQ(r0.strides(), r2.strides());
  EXPECT_EQ(r0.offset(), 0);
  EXPECT_EQ(r2.offset(), 8);
  EXPECT_EQ(r2.to_vector<double>(), (std::vector<double>{8, 9, 10, 11}));
  // The eager cache ignores offsets: the same op on both rows gives each row's values.
  EXPECT_EQ((r0 * 2.0).to_vector<double>(), (std::vector<double>{0, 2, 4, 6}));
  EXPECT_EQ((r2 * 2.0).to_vector<double>(), (std::vector<double>{16, 18, 20, 22}));
}

TEST(LayoutRecord, UndefinedHandle) {
  Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_EQ(u.layout(), nullptr);
  EXPECT_TRUE(u.shape().empty());
  EXPECT_TRUE(u.strides().empty());
  EXPECT_EQ(u.rank(), 0);
  EXPECT_EQ(u.numel(), 0);
  EXPECT_EQ(u.dtype(), DType::f64);
  EXPECT_TRUE(u.is_contiguous());
  try {
    (void)u.data_ptr();
    FAIL() << "data_ptr of an undefined tensor must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::RuntimeState);
    EXPECT_NE(std::string(e.what()).find("undefined"), std::string::npos);
  }
}

TEST(LayoutRecord, ContiguityFlagMatchesTheStrides) {
  Tensor a = randn({2, 1, 3, 4}, 4);
  const Tensor cases[] = {
      a,
      a.permute({0, 1, 3, 2}),
      a.permute({1, 0, 2, 3}),  // moves a size-1 dimension only: still row-major
      a.slice(2, 0, 3, 2),
      a.slice(3, 1, 3),
      a.slice(0, 0, 1),
      a.slice(2, 0, 0),  // empty
      scalar_tensor(2.0).broadcast_to({3, 2}),
      randn({5}, 5).unsqueeze(0).broadcast_to({1, 5}),
      Tensor(a.storage(), {2, 2}, {1, 2}, 0, DType::f64),
      Tensor(a.storage(), {1, 3}, {1000, 1}, 0, DType::f64),  // size-1 stride normalised
  };
  for (const Tensor& t : cases)
    EXPECT_EQ(t.is_contiguous(), row_major_by_hand(t))
        << dims_to_string(t.shape()) << " strides " << dims_to_string(t.strides());
}
