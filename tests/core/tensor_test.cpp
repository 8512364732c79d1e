#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>

#include "tenferro/ops.hpp"

using namespace tenferro;

TEST(Tensor, ConstructionAndAccess) {
  Tensor z = zeros({2, 3});
  EXPECT_EQ(z.dtype(), DType::f64);
  EXPECT_EQ(z.shape(), (Dims{2, 3}));
  EXPECT_EQ(z.strides(), (Dims{3, 1}));
  EXPECT_EQ(z.numel(), 6);
  EXPECT_TRUE(z.is_contiguous());
  for (double v : z.to_vector<double>()) EXPECT_EQ(v, 0.0);
  Tensor o = ones({4}, DType::c64);
  EXPECT_EQ(o.at<c64>({3}), c64(1, 0));
  Tensor f = full({2}, c128(1, 2), DType::c128);
  EXPECT_THROW(f.item<c128>(), Error);
  EXPECT_EQ(f.at<c128>({1}), c128(1, 2));
}

TEST(Tensor, ItemAndScalars) {
  Tensor s = scalar_tensor(3.5);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.item<double>(), 3.5);
  EXPECT_THROW(s.item<float>(), Error);
  try {
    s.item<float>();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::DTypeMismatch);
    EXPECT_NE(std::string(e.what()).find("f64"), std::string::npos);
  }
  Tensor e = zeros({0, 3});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_TRUE(e.to_vector<double>().empty());
  EXPECT_THROW(e.item<double>(), Error);
}

TEST(Tensor, FromVectorArangeRandom) {
  Tensor t = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.dtype(), DType::f32);
  EXPECT_EQ(t.at<float>({1, 2}), 6.0f);
  EXPECT_THROW(from_vector<double>({1, 2, 3}, {2, 2}), Error);
  Tensor a = arange(5);
  EXPECT_EQ(a.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(1.0, 0.0, -0.25).numel(), 4);
  EXPECT_THROW(arange(0.0, 1.0, 0.0), Error);
  // Seeded random values are a pure function of (seed, index): fixed reference values.
  Tensor r1 = rand({1000}, 42), r2 = rand({1000}, 42), r3 = rand({1000}, 43);
  EXPECT_EQ(r1.to_vector<double>(), r2.to_vector<double>());
  EXPECT_NE(r1.to_vector<double>(), r3.to_vector<double>());
  double mean = 0, m2 = 0;
  Tensor n = randn({20000}, 7);
  for (double v : n.to_vector<double>()) mean += v, m2 += v * v;
  mean /= 20000, m2 /= 20000;
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(m2, 1.0, 0.05);
  for (double v : r1.to_vector<double>()) EXPECT_TRUE(v >= 0.0 && v < 1.0);
}

// rand in f32 (and c64's parts) is below 1: the f64 value rounded to the nearest float was 1.0f
// within 2^-25 of 1, about once in 3.4e7 elements (these seeds hit it at the given index);
// now it is the f64 value rounded down (Note [Uniform values below one]).
TEST(Tensor, RandInSinglePrecisionIsBelowOne) {
  const std::pair<std::uint64_t, std::int64_t> hits[] = {
      {6169695, 3}, {10536044, 3}, {14790804, 0}, {20163678, 2}, {20879080, 2}, {21982561, 1}};
  for (const auto& [seed, index] : hits) {
    const std::vector<double> d = rand({4}, seed, DType::f64).to_vector<double>();
    const std::vector<float> f = rand({4}, seed, DType::f32).to_vector<float>();
    EXPECT_EQ(static_cast<float>(d[index]), 1.0f) << seed;  // the nearest float is 1
    EXPECT_LT(f[index], 1.0f) << "seed " << seed << " index " << index;
    EXPECT_EQ(f[index], std::nextafter(1.0f, 0.0f)) << seed;
    // c64 takes parts 2i and 2i + 1 of the same stream.
    const std::vector<c64> c = rand({2}, seed, DType::c64).to_vector<c64>();
    const float part = index % 2 == 0 ? c[index / 2].real() : c[index / 2].imag();
    EXPECT_LT(part, 1.0f) << "c64 seed " << seed << " index " << index;
  }
  // Every f32 value is the f64 value rounded down.
  const std::vector<double> d = rand({4096}, 5, DType::f64).to_vector<double>();
  const std::vector<float> f = rand({4096}, 5, DType::f32).to_vector<float>();
  for (std::size_t i = 0; i < d.size(); ++i) {
    EXPECT_LE(static_cast<double>(f[i]), d[i]) << i;
    EXPECT_GT(static_cast<double>(std::nextafter(f[i], 2.0f)), d[i]) << i;
  }
}

TEST(Tensor, ViewsShareStorage) {
  Tensor x = arange(24).reshape({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Dims{4, 2, 3}));
  EXPECT_EQ(p.storage().get(), x.storage().get());
  EXPECT_FALSE(p.is_contiguous());
  EXPECT_EQ(p.at<double>({3, 1, 2}), x.at<double>({1, 2, 3}));
  Tensor s = x.slice(2, 1, 4, 2);  // columns 1, 3
  EXPECT_EQ(s.shape(), (Dims{2, 3, 2}));
  EXPECT_EQ(s.at<double>({1, 2, 1}), 23.0);
  EXPECT_EQ(s.storage().get(), x.storage().get());
  Tensor b = from_values({1, 2, 3}, {3}).broadcast_to({2, 3});
  EXPECT_EQ(b.strides(), (Dims{0, 1}));
  EXPECT_EQ(b.to_vector<double>(), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  Tensor u = x.unsqueeze(0);
  EXPECT_EQ(u.shape(), (Dims{1, 2, 3, 4}));
  EXPECT_EQ(u.squeeze(0).shape(), (Dims{2, 3, 4}));
  // Writes through a view are visible in the base.
  s.set<double>({0, 0, 0}, -1.0);
  EXPECT_EQ(x.at<double>({0, 0, 1}), -1.0);
}

TEST(Tensor, ReshapeViewOrCopy) {
  Tensor x = arange(12).reshape({3, 4});
  Tensor v = x.reshape({2, -1});
  EXPECT_EQ(v.shape(), (Dims{2, 6}));
  EXPECT_EQ(v.storage().get(), x.storage().get());
  Tensor t = x.transpose();    // 4x3, not contiguous
  Tensor c = t.reshape({12});  // needs a copy
  EXPECT_NE(c.storage().get(), x.storage().get());
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  Tensor sliced = arange(24).reshape({4, 6}).slice(0, 0, 4, 2);  // rows 0, 2: strides {12, 1}
  Tensor merged = sliced.reshape({2, 3, 2});                     // splits the inner dim: a view
  EXPECT_EQ(merged.storage().get(), sliced.storage().get());
  EXPECT_EQ(merged.to_vector<double>(), sliced.contiguous().to_vector<double>());
  EXPECT_TRUE(t.contiguous().is_contiguous());
  EXPECT_EQ(x.contiguous().storage().get(), x.storage().get());
}

TEST(Tensor, StridedViewConstructorChecksBounds) {
  Tensor base = arange(6);
  Tensor v(base.storage(), {3}, {-1}, 5, DType::f64);  // reversed
  EXPECT_EQ(v.to_vector<double>(), (std::vector<double>{5, 4, 3}));
  EXPECT_THROW(Tensor(base.storage(), {4}, {2}, 0, DType::f64), Error);
  EXPECT_THROW(Tensor(base.storage(), {2}, {1, 1}, 0, DType::f64), Error);
}

// Bad input throws the documented kind and leaves the tensor unchanged.
TEST(Tensor, BadInputIsTypedAndHarmless) {
  Tensor x = arange(6).reshape({2, 3});
  auto before = x.to_vector<double>();
  auto expect_kind = [](auto&& f, ErrorKind k) {
    try {
      f();
      ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), k) << e.what();
    }
  };
  expect_kind([] { zeros({2, -1}); }, ErrorKind::InvalidArgument);
  expect_kind([&] { x.reshape({4, 2}); }, ErrorKind::ShapeMismatch);
  expect_kind([&] { x.at<double>({2, 0}); }, ErrorKind::InvalidArgument);
  expect_kind([&] { x.at<double>({0}); }, ErrorKind::InvalidArgument);
  expect_kind([&] { x.permute({0, 0}); }, ErrorKind::InvalidArgument);
  expect_kind([&] { x.slice(1, 0, 3, 0); }, ErrorKind::InvalidArgument);
  expect_kind([&] { x.slice(5, 0, 1); }, ErrorKind::InvalidArgument);
  expect_kind([&] { x.broadcast_to({3, 3}); }, ErrorKind::ShapeMismatch);
  expect_kind([&] { x.squeeze(0); }, ErrorKind::InvalidArgument);
  expect_kind([&] { x.item<c64>(); }, ErrorKind::DTypeMismatch);
  expect_kind([&] { x.size(2); }, ErrorKind::InvalidArgument);
  EXPECT_EQ(x.to_vector<double>(), before);
  EXPECT_EQ(x.shape(), (Dims{2, 3}));
}

TEST(Tensor, PrintingIsReadable) {
  Tensor x = from_values({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(x.to_string(), "Tensor(shape=[2, 3], dtype=f64)\n[[1, 2, 3],\n [4, 5, 6]]");
  std::ostringstream os;
  os << zeros({2000}, DType::f32);
  EXPECT_NE(os.str().find("0, 0, 0, ..., 0, 0, 0]"), std::string::npos) << os.str();
  EXPECT_EQ(full({1}, c128(1, -2), DType::c128).to_string(),
            "Tensor(shape=[1], dtype=c128)\n[1-2i]");
  EXPECT_EQ(Tensor().to_string(), "Tensor(undefined)");
}

TEST(Tensor, Allclose) {
  Tensor a = from_values({1, 2}, {2});
  EXPECT_TRUE(allclose(a, from_values({1, 2 + 1e-9}, {2}, DType::f32)));
  EXPECT_FALSE(allclose(a, from_values({1, 2.1}, {2})));
  EXPECT_FALSE(allclose(a, from_values({1, 2}, {1, 2})));
}

// Non-finite values are close only when equal (NumPy's isclose): the tolerance alone made inf
// close to -inf and 1 close to inf, since |1 - inf| = inf is not above atol + rtol * inf = inf.
TEST(Tensor, AllcloseComparesInfinitiesExactly) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  auto close = [](c128 x, c128 y) {
    return allclose(from_vector<c128>({x}, {1}), from_vector<c128>({y}, {1}));
  };
  EXPECT_FALSE(allclose(from_values({inf}, {1}), from_values({-inf}, {1})));
  EXPECT_FALSE(allclose(from_values({-inf}, {1}), from_values({inf}, {1})));
  EXPECT_FALSE(allclose(from_values({1.0}, {1}), from_values({inf}, {1})));
  EXPECT_FALSE(allclose(from_values({1e308}, {1}), from_values({inf}, {1})));
  EXPECT_FALSE(allclose(from_values({inf}, {1}), from_values({1.0}, {1})));
  EXPECT_TRUE(allclose(from_values({inf, -inf, 1.0}, {3}), from_values({inf, -inf, 1.0}, {3})));
  EXPECT_TRUE(allclose(from_values({inf}, {1}, DType::f32), from_values({inf}, {1})));
  EXPECT_FALSE(allclose(from_values({nan}, {1}), from_values({nan}, {1})));
  EXPECT_FALSE(close(c128(inf, 0), c128(inf, 1)));
  EXPECT_FALSE(close(c128(1, inf), c128(1, -inf)));
  EXPECT_FALSE(close(c128(2, 0), c128(inf, inf)));
  EXPECT_TRUE(close(c128(inf, 5), c128(inf, 5)));
  EXPECT_TRUE(close(c128(1, 1), c128(1, 1 + 1e-9)));
}

// heap_storage puts the header and the data in one block: the data is still 64-byte aligned,
// holds what was asked for, and a zero-byte storage is valid.
TEST(Tensor, HeapStorageDataIsAlignedAndWritableForEverySize) {
  for (std::size_t bytes : {0, 1, 7, 8, 63, 64, 65, 1000, 4096, 1 << 20}) {
    tenferro::StoragePtr s(tenferro::heap_storage(bytes));
    ASSERT_NE(s->data, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(s->data) % 64, 0u) << bytes << " bytes";
    EXPECT_EQ(s->bytes, bytes);
    if (bytes) {
      std::memset(s->data, 0xab, bytes);
      EXPECT_EQ(static_cast<unsigned char*>(s->data)[bytes - 1], 0xab);
    }
  }
  for (std::int64_t n : {1, 3, 17, 1000}) {
    const tenferro::Tensor t = tenferro::ones({n}, tenferro::DType::f32);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64, 0u);
    EXPECT_EQ(t.to_vector<float>().back(), 1.0f);
  }
}
