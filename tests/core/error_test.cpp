#include "tenferro/error.hpp"

#include <gtest/gtest.h>

#include "tenferro/dtype.hpp"

using namespace tenferro;

TEST(Error, KindAndMessage) {
  Error e(ErrorKind::ShapeMismatch, "add: shapes [2,3] and [4] do not broadcast");
  EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
  EXPECT_EQ(std::string(e.what()), "ShapeMismatch: add: shapes [2,3] and [4] do not broadcast");
  EXPECT_EQ(e.message(), "add: shapes [2,3] and [4] do not broadcast");
  ContractViolation cv("nested session");
  EXPECT_NE(std::string(cv.what()).find("nested session"), std::string::npos);
}

TEST(DType, PromotionLattice) {
  for (DType a : float_dtypes) {
    EXPECT_EQ(promote(a, a), a);
    for (DType b : float_dtypes) {
      EXPECT_EQ(promote(a, b), promote(b, a));
      for (DType c : float_dtypes) EXPECT_EQ(promote(promote(a, b), c), promote(a, promote(b, c)));
    }
  }
  EXPECT_EQ(promote(DType::f32, DType::f64), DType::f64);
  EXPECT_EQ(promote(DType::f32, DType::c64), DType::c64);
  EXPECT_EQ(promote(DType::f64, DType::c64), DType::c128);
  EXPECT_EQ(promote(DType::c64, DType::c128), DType::c128);
  EXPECT_EQ(real_dtype(DType::c64), DType::f32);
  EXPECT_TRUE(is_lossless_cast(DType::f32, DType::c128));
  EXPECT_FALSE(is_lossless_cast(DType::c64, DType::f64));
  EXPECT_EQ(dtype_name(DType::c128), "c128");
}
