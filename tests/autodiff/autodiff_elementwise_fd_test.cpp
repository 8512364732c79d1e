// Finite-difference VJP/JVP checks of every differentiable row of the elementwise op table, in
// f64 and (where defined) c128, on non-contiguous inputs and with broadcasting; plus casts.
#include <gtest/gtest.h>

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
