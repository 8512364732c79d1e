// where, cast/convert, operators, scalar-on-the-left forms and bad input for the elementwise ops.
#include <gtest/gtest.h>

#include "common/agreement.hpp"
#include "common/elementwise_table.hpp"
#include "common/expect_error.hpp"
#include "tenferro/eager.hpp"

namespace tenferro::testing {
namespace {

TEST(ElementwiseWhere, SelectsWithBroadcastAndPromotion) {
  for (DType d : all_dtypes)
    for (DType dc : {DType::f32, DType::f64}) {
      Tensor c = make_input({3, 1, 5}, dc, Domain::small_ints, 1);
      Tensor a = make_input({4, 1}, d, Domain::any, 2).broadcast_to({3, 4, 5});
      Tensor b = make_input({5, 3, 4}, DType::f32, Domain::any, 3).permute({1, 2, 0});
      Tensor y = where(c, a, b);
      ASSERT_EQ(y.shape(), (Dims{3, 4, 5}));
      EXPECT_EQ(y.dtype(), promote(d, DType::f32));
      auto cv = broadcast_values(values_of(c), c.shape(), y.shape());
      auto av = values_of(a), bv = values_of(b), yv = values_of(y);
      for (std::size_t i = 0; i < yv.size(); ++i)
        EXPECT_EQ(yv[i], cv[i] != cld(0) ? av[i] : bv[i]) << i;
      EXPECT_EQ(values_of(select(c, a, b)), yv);
    }
  Tensor r = where(scalar_tensor(1.0), scalar_tensor(2.0), scalar_tensor(3.0));
  EXPECT_EQ(r.rank(), 0);
  EXPECT_EQ(r.item<double>(), 2.0);
  EXPECT_EQ(where(zeros({0, 2}), ones({2}), ones({2})).numel(), 0);
}

TEST(ElementwiseCast, AllConversions) {
  for (DType from : float_dtypes)  // bool and integer casts: tests/ops/integer_dtypes_test.cpp
    for (DType to : float_dtypes) {
      Tensor x = make_input({5, 3, 4}, from, Domain::any, 4).permute({1, 2, 0});
      Tensor y = cast(x, to);
      EXPECT_EQ(y.dtype(), to);
      auto xv = values_of(x), yv = values_of(y);
      for (std::size_t i = 0; i < xv.size(); ++i) {
        cld want = is_complex(to) ? xv[i] : cld(xv[i].real(), 0);
        if (!is_double_precision(to))
          want = cld(static_cast<float>(want.real()), static_cast<float>(want.imag()));
        EXPECT_EQ(yv[i], want) << dtype_name(from) << "->" << dtype_name(to);
      }
      if (is_lossless_cast(from, to)) {
        EXPECT_EQ(values_of(convert(x, to)), yv);
      } else {
        expect_error([&] { convert(x, to); }, ErrorKind::DTypeMismatch,
                     {"convert", dtype_name(from).data(), "cast()"});
      }
    }
  Tensor x = ones({2});
  EXPECT_EQ(cast(x, DType::f64).storage().get(), x.storage().get());  // no-op cast is no copy
}

TEST(ElementwiseOps, OperatorsAndLeftScalars) {
  Tensor a = make_input({2, 3}, DType::f64, Domain::positive, 5);
  Tensor b = make_input({3}, DType::f64, Domain::positive, 6);
  auto av = values_of(a), bv = broadcast_values(values_of(b), b.shape(), a.shape());
  auto check = [&](const Tensor& got, auto ref) {
    auto gv = values_of(got);
    ASSERT_EQ(gv.size(), av.size());
    for (std::size_t i = 0; i < gv.size(); ++i) {
      cld want = ref(av[i], bv[i]);
      EXPECT_LE(std::abs(gv[i] - want), 1e-14L * (1 + std::abs(want)));
    }
  };
  check(a + b, [](cld x, cld y) { return x + y; });
  check(a - b, [](cld x, cld y) { return x - y; });
  check(a * b, [](cld x, cld y) { return x * y; });
  check(a / b, [](cld x, cld y) { return x / y; });
  check(-a, [](cld x, cld) { return -x; });
  check(2.0 - a, [](cld x, cld) { return 2.0L - x; });
  check(2.0 / a, [](cld x, cld) { return 2.0L / x; });
  check(3.0 * a + 1.0, [](cld x, cld) { return 3.0L * x + 1.0L; });
  check(a / 4, [](cld x, cld) { return x / 4.0L; });
  check(sub(2.0, a), [](cld x, cld) { return 2.0L - x; });
  check(pow(Scalar(2.0), a), [](cld x, cld) { return std::pow(2.0L, x); });
  // Scalars never raise precision; an imaginary part makes the result complex.
  Tensor f = ones({2}, DType::f32);
  EXPECT_EQ((f * 2.0).dtype(), DType::f32);
  EXPECT_EQ((2.0 + f).dtype(), DType::f32);
  EXPECT_EQ((f * Scalar(0, 1)).dtype(), DType::c64);
  EXPECT_EQ((f * Scalar(0, 1)).at<c64>({0}), c64(0, 1));
  EXPECT_EQ(conj(f).storage().get(), f.storage().get());  // conj of real: no copy
}

TEST(ElementwiseErrors, BroadcastFailureNamesBothShapes) {
  Tensor a = ones({2, 3}), b = ones({4});
  expect_error([&] { add(a, b); }, ErrorKind::ShapeMismatch, {"add", "[2, 3]", "[4]"});
  expect_error([&] { a* ones({3, 2}); }, ErrorKind::ShapeMismatch, {"mul", "[2, 3]", "[3, 2]"});
  expect_error([&] { lt(a, b); }, ErrorKind::ShapeMismatch, {"lt"});
  expect_error(
      [&] {
        where(ones({2, 1}), ones({3}), ones({5}));
      },
      ErrorKind::ShapeMismatch, {"where", "[2, 1]", "[3]", "[5]"});
  EXPECT_EQ(values_of(a), values_of(ones({2, 3})));  // inputs untouched
}

TEST(ElementwiseErrors, ComplexWhereUndefined) {
  Tensor z = ones({2}, DType::c64), r = ones({2}, DType::f32);
  expect_error([&] { maximum(z, r); }, ErrorKind::DTypeMismatch, {"maximum", "c64"});
  expect_error([&] { minimum(r, z); }, ErrorKind::DTypeMismatch, {"minimum"});
  expect_error([&] { maximum(r, Scalar(0, 1)); }, ErrorKind::DTypeMismatch, {"maximum"});
  using Cmp = Tensor (*)(const Tensor&, const Tensor&);
  for (Cmp f : {Cmp(lt), Cmp(le), Cmp(gt), Cmp(ge)})
    expect_error([&] { f(z, r); }, ErrorKind::DTypeMismatch,
                 {"comparisons are undefined on complex"});
  expect_error([&] { where(z, r, r); }, ErrorKind::DTypeMismatch, {"where", "condition"});
  EXPECT_EQ(eq(z, r).dtype(), DType::boolean);  // eq/ne are defined on complex
  EXPECT_EQ(ne(z, Scalar(1, 0)).at<bool>({0}), false);
}

TEST(ElementwiseErrors, IntoChecksLeaveEverythingUntouched) {
  Tensor a = make_input({2, 3}, DType::f64, Domain::any, 8),
         b = make_input({3}, DType::f64, Domain::any, 9);
  const auto a0 = values_of(a), b0 = values_of(b);
  Tensor wrong_shape = zeros({3, 2});
  expect_error([&] { add_into(wrong_shape, a, b); }, ErrorKind::ShapeMismatch,
               {"add_into", "[2, 3]", "[3, 2]"});
  EXPECT_EQ(values_of(wrong_shape), values_of(zeros({3, 2})));
  Tensor wrong_dtype = zeros({2, 3}, DType::f32);
  expect_error([&] { mul_into(wrong_dtype, a, b); }, ErrorKind::DTypeMismatch,
               {"mul_into", "f64", "f32"});
  EXPECT_EQ(values_of(wrong_dtype), values_of(zeros({2, 3}, DType::f32)));
  // A real out for a complex result is a dtype error too (no silent dropping).
  Tensor zc = ones({2, 3}, DType::c128);
  expect_error([&] { add_into(wrong_dtype, zc, a); }, ErrorKind::DTypeMismatch, {"add_into"});

  // Overlap that is not the same view: a shifted window of the input.
  Tensor base = arange(8);
  const auto base0 = values_of(base);
  Tensor in = base.slice(0, 0, 6), out = base.slice(0, 2, 8);
  expect_error([&] { exp_into(out, in); }, ErrorKind::InvalidArgument, {"exp_into", "overlaps"});
  expect_error([&] { add_into(out, in, 1.0); }, ErrorKind::InvalidArgument, {"add_into"});
  EXPECT_EQ(values_of(base), base0);
  // Transposed view of the input: same storage and range, different strides.
  Tensor m = make_input({3, 3}, DType::f64, Domain::any, 10);
  const auto m0 = values_of(m);
  Tensor mt = m.transpose();
  expect_error([&] { add_into(mt, m, m); }, ErrorKind::InvalidArgument, {"add_into"});
  EXPECT_EQ(values_of(m), m0);
  // A broadcast output maps several elements to one address.
  Tensor bo = zeros({3}).broadcast_to({2, 3});
  expect_error([&] { add_into(bo, a, b); }, ErrorKind::InvalidArgument, {"add_into", "strides"});
  // Undefined out; autodiff operands.
  Tensor undef;
  expect_error([&] { neg_into(undef, a); }, ErrorKind::InvalidArgument, {"neg_into", "undefined"});
  Tensor g = make_input({2, 3}, DType::f64, Domain::any, 11);
  g.requires_grad_();
  Tensor o = zeros({2, 3});
  expect_error([&] { add_into(o, g, b); }, ErrorKind::Unsupported, {"add_into", "grad"});
  expect_error([&] { neg_into(g, a); }, ErrorKind::Unsupported, {"neg_into"});
  EXPECT_EQ(values_of(o), values_of(zeros({2, 3})));
  EXPECT_EQ(values_of(a), a0);
  EXPECT_EQ(values_of(b), b0);
}

}  // namespace
}  // namespace tenferro::testing

namespace tenferro::testing {
namespace {

// An operand that reads one element everywhere (a broadcast with every stride 0, as sum()'s
// cotangent in backward) takes the scalar loop: the same values, bit for bit, as the
// materialised operand, on either side, small and threaded.
TEST(ElementwiseOps, ZeroStridedOperandMatchesItsMaterialisedCopy) {
  for (DType dt : {DType::f32, DType::f64, DType::c128})
    for (std::int64_t n : {3, 1000, 200000}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " n " + std::to_string(n));
      const Tensor a = cast(randn({n}, 31), dt);
      const Tensor one = cast(from_values({-1.75}, {1, 1}), dt);
      const Tensor bc = reshape(broadcast_to(one, {n, 1}), {n});  // shape [n], stride 0
      ASSERT_EQ(bc.strides()[0], 0);
      const Tensor dense = contiguous(bc);
      for (auto op : {+[](const Tensor&x, const Tensor&y) { return x * y; },
                      +[](const Tensor&x, const Tensor&y) { return x + y; },
                      +[](const Tensor&x, const Tensor&y) { return x - y; },
                      +[](const Tensor&x, const Tensor&y) { return x / y; }}) {
        EXPECT_TRUE(same_bits(op(a, bc), op(a, dense)));
        EXPECT_TRUE(same_bits(op(bc, a), op(dense, a)));
      }
    }
}

}  // namespace
}  // namespace tenferro::testing
