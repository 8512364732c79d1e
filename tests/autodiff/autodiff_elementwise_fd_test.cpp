// Finite-difference VJP/JVP checks of every differentiable row of the elementwise op table, in
// f64 and (where defined) c128, on non-contiguous inputs and with broadcasting; plus casts.
#include <gtest/gtest.h>

#include <limits>

#include "common/autodiff_fd.hpp"
#include "common/elementwise_table.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using tenferro::adtest::check_jvp;
using tenferro::adtest::check_vjp;
using tenferro::adtest::FdFn;
namespace tt = tenferro::testing;

namespace {

// Ties make finite differences of maximum/minimum meaningless: use continuous values.
tt::Domain smooth(tt::Domain d) { return d == tt::Domain::small_ints ? tt::Domain::any : d; }

// A non-contiguous input of `shape`: the transpose of a contiguous [.., n, m] tensor.
Tensor strided_input(Dims shape, DType dtype, tt::Domain d, std::uint64_t seed) {
  if (shape.size() < 2) return tt::make_input(shape, dtype, d, seed);
  Dims t = shape;
  std::swap(t[t.size() - 1], t[t.size() - 2]);
  return transpose(tt::make_input(t, dtype, d, seed));
}

}  // namespace

TEST(AutodiffElementwiseFd, UnaryRows) {
  int checked = 0;
  for (const tt::UnaryRow& row : tt::unary_table()) {
    if (!row.differentiable) continue;
    for (DType d : {DType::f64, DType::c128}) {
      if (is_complex(d) && !row.complex_ok) continue;
      SCOPED_TRACE(std::string(row.name) + " " + std::string(dtype_name(d)));
      FdFn f = [&](std::span<const Tensor> in) { return std::vector<Tensor>{row.fn(in[0])}; };
      Tensor x = strided_input({3, 4}, d, smooth(row.domain), 40);
      ASSERT_FALSE(x.is_contiguous());
      EXPECT_TRUE(check_vjp(f, {x}));
      EXPECT_TRUE(check_jvp(f, {x}));
      ++checked;
    }
  }
  EXPECT_GE(checked, 20);
}

TEST(AutodiffElementwiseFd, BinaryRowsWithBroadcasting) {
  int checked = 0;
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{2, 3}, {2, 3}}, {{2, 1, 3}, {4, 1}}, {{3}, {2, 3}}, {{}, {2, 2}}};
  for (const tt::BinaryRow& row : tt::binary_table()) {
    if (!row.differentiable) continue;
    for (DType d : {DType::f64, DType::c128}) {
      if (is_complex(d) && !row.complex_ok) continue;
      FdFn f = [&](std::span<const Tensor> in) {
        return std::vector<Tensor>{row.fn(in[0], in[1])};
      };
      for (const auto& [sa, sb] : shapes) {
        SCOPED_TRACE(std::string(row.name) + " " + std::string(dtype_name(d)) + " " +
                     dims_to_string(sa) + " x " + dims_to_string(sb));
        Tensor a = strided_input(sa, d, smooth(row.domain_a), 50);
        Tensor b = strided_input(sb, d, smooth(row.domain_b), 51);
        EXPECT_TRUE(check_vjp(f, {a, b}));
        EXPECT_TRUE(check_jvp(f, {a, b}));
        ++checked;
      }
      if (row.fn_scalar) {
        SCOPED_TRACE(std::string(row.name) + " with a scalar");
        FdFn fs = [&](std::span<const Tensor> in) {
          return std::vector<Tensor>{row.fn_scalar(in[0], Scalar(0.7, 0))};
        };
        Tensor a = strided_input({2, 3}, d, smooth(row.domain_a), 52);
        EXPECT_TRUE(check_vjp(fs, {a}));
        EXPECT_TRUE(check_jvp(fs, {a}));
      }
    }
  }
  EXPECT_GE(checked, 30);
}

TEST(AutodiffElementwiseFd, MixedDtypesAndCasts) {
  // Real and complex operands together: the real input's cotangent is the real part.
  FdFn mixed = [](std::span<const Tensor> in) { return std::vector<Tensor>{mul(in[0], in[1])}; };
  Tensor r = randn({3}, 60), z = randn({3}, 61, DType::c128);
  EXPECT_TRUE(check_vjp(mixed, {r, z}));
  EXPECT_TRUE(check_jvp(mixed, {r, z}));
  FdFn casts = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{cast(in[1], DType::f64), convert(in[0], DType::c128)};
  };
  EXPECT_TRUE(check_vjp(casts, {r, z}));
  EXPECT_TRUE(check_jvp(casts, {r, z}));
  FdFn w = [](std::span<const Tensor> in) {
    return std::vector<Tensor>{where(gt(in[0], 0.0), in[0], sin(in[1]))};
  };
  Tensor y = randn({3}, 62);
  EXPECT_TRUE(check_vjp(w, {r, y}));
  EXPECT_TRUE(check_jvp(w, {r, y}));
}

// pow's partials at a zero base: b a^(b-1) and a^b log(a) would be 0 * inf = NaN where a^b is
// locally constant. d(a^0)/da is 0, d(0^b)/db is 0 for real b >= 0 (PyTorch's masks), in every
// mode and for the Scalar forms; a^b log(a) stays -inf for b < 0 and the usual values elsewhere.
TEST(AutodiffElementwiseFd, PowAtZeroBase) {
  const Tensor zero3 = from_vector<double>({0.0, 0.0, 0.0}, {3});
  auto gb = [&](const Tensor& b) {
    return grad([&](std::span<const Tensor> in) { return sum(pow(zero3, in[0])); }, {b})[0];
  };
  EXPECT_EQ(gb(from_vector<double>({0.0, 2.0, 0.5}, {3})).to_vector<double>(),
            (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(gb(from_vector<double>({-1.0, -1.0, -1.0}, {3})).to_vector<double>()[0],
            -std::numeric_limits<double>::infinity());
  const Tensor b2 = from_vector<double>({0.0, 2.0, 3.0}, {3});
  EXPECT_EQ(grad([&](std::span<const Tensor> in) { return sum(pow(Scalar(0.0), in[0])); }, {b2})[0]
                .to_vector<double>(),
            (std::vector<double>{0.0, 0.0, 0.0}));
  const Tensor t =
      jvp([&](std::span<const Tensor> in) { return pow(zero3, in[0]); }, {b2}, {ones({3})})
          .tangents[0];
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{0.0, 0.0, 0.0}));
  // Complex exponents: real and >= 0 give 0; the base is complex zero.
  const Tensor zc = zeros({2}, DType::c128);
  const Tensor bc = from_vector<c128>({c128(2.0, 0.0), c128(0.0, 0.0)}, {2});
  for (const c128 v :
       grad([&](std::span<const Tensor> in) { return sum(real(pow(zc, in[0]))); }, {bc})[0]
           .to_vector<c128>())
    EXPECT_EQ(v, c128(0.0, 0.0));
  // d(a^0)/da at a = 0 is 0 (the Scalar and the tensor exponent), and b a^(b-1) elsewhere.
  const Tensor a = from_vector<double>({0.0, 2.0}, {2});
  EXPECT_EQ(grad([](std::span<const Tensor> in) { return sum(pow(in[0], 0.0)); }, {a})[0]
                .to_vector<double>(),
            (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(grad([](std::span<const Tensor> in) { return sum(pow(in[0], zeros({2}))); }, {a})[0]
                .to_vector<double>(),
            (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(grad([](std::span<const Tensor> in) { return sum(pow(in[0], 3.0)); }, {a})[0]
                .to_vector<double>(),
            (std::vector<double>{0.0, 12.0}));
  // Second order: d2(0^b)/db2 is 0 too (the masked rule computes on a = 1, no 0 * inf), and the
  // mixed d2(a^b)/da db at b = 0 stays 1/a (the mask is a = 0 and b = 0, not b = 0 alone).
  const Tensor h =
      hessian([&](std::span<const Tensor> in) { return sum(pow(zero3, in[0])); }, {b2})[0][0];
  for (double v : h.to_vector<double>()) EXPECT_EQ(v, 0.0);
  const Tensor a2 = from_vector<double>({2.0, 4.0}, {2}), bz = zeros({2});
  const Tensor mixed = grad(
      [&](std::span<const Tensor> in) {
        return sum(grad([&](std::span<const Tensor> v) { return sum(pow(v[0], in[0])); }, {a2})[0]);
      },
      {bz})[0];
  EXPECT_EQ(mixed.to_vector<double>(), (std::vector<double>{0.5, 0.25}));
  // Away from zero the finite-difference checks hold.
  FdFn f = [](std::span<const Tensor> in) { return std::vector<Tensor>{pow(in[0], in[1])}; };
  const Tensor pa = from_vector<double>({0.5, 1.5, 2.0}, {3});
  const Tensor pb = from_vector<double>({0.0, 2.0, -1.5}, {3});
  EXPECT_TRUE(check_vjp(f, {pa, pb}));
  EXPECT_TRUE(check_jvp(f, {pa, pb}));
}
