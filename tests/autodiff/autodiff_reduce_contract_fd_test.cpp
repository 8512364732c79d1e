// Finite-difference VJP/JVP checks of the reduction and structural op tables and of every
// contraction, in f64 and c128.
#include <gtest/gtest.h>

#include "common/autodiff_fd.hpp"
#include "common/reduce_table.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using tenferro::adtest::check_jvp;
using tenferro::adtest::check_vjp;
using tenferro::adtest::FdFn;
namespace tt = tenferro::testing;

namespace {

Tensor input(Dims shape, DType d, tt::Domain dom, std::uint64_t seed) {
  Tensor x = randn(shape, seed, d);
  if (dom != tt::Domain::near_one) return x;
  // 1 + 0.25 x, elementwise without autodiff
  std::vector<c128> v(static_cast<std::size_t>(x.numel()));
  detail::copy_to_contiguous(x, v.data(), DType::c128);
  for (auto& e : v) e = 1.0 + 0.25 * e;
  if (d == DType::c128) return from_vector<c128>(v, shape);
  std::vector<double> r;
  for (auto& e : v) r.push_back(e.real());
  return from_vector<double>(r, shape);
}

}  // namespace

TEST(AutodiffReduceFd, ReductionRowsAllAxesAndKeepdims) {
  int checked = 0;
  for (const tt::ReduceRow& row : tt::reduce_table())
    for (const tt::ReduceCase& c : tt::reduce_cases()) {
      const std::int64_t n = dims_numel(c.shape);
      if (n == 0 || n > 60) continue;
      for (DType d : {DType::f64, DType::c128}) {
        if (is_complex(d) && row.real_only) continue;
        for (bool keep : {false, true}) {
          SCOPED_TRACE(std::string(row.name) + " " + std::string(dtype_name(d)) + " " +
                       dims_to_string(c.shape) + " axes " + dims_to_string(c.axes) +
                       (keep ? " keepdims" : ""));
          FdFn f = [&](std::span<const Tensor> in) {
            return std::vector<Tensor>{row.op(in[0], c.axes, keep)};
          };
          Tensor x = input(c.shape, d, row.domain, 70 + static_cast<std::uint64_t>(checked));
          EXPECT_TRUE(check_vjp(f, {x}));
          EXPECT_TRUE(check_jvp(f, {x}));
          ++checked;
        }
      }
    }
  EXPECT_GE(checked, 50);
}

TEST(AutodiffReduceFd, StructuralRows) {
  for (const tt::StructuralRow& row : tt::structural_table())
    for (DType d : {DType::f64, DType::c128}) {
      SCOPED_TRACE(std::string(row.name) + " " + std::string(dtype_name(d)));
      std::vector<Tensor> xs;
      std::uint64_t seed = 80;
      for (const Dims& s : row.shapes) xs.push_back(randn(s, seed++, d));
      FdFn f = [&](std::span<const Tensor> in) { return std::vector<Tensor>{row.op(in)}; };
      EXPECT_TRUE(check_vjp(f, xs));
      EXPECT_TRUE(check_jvp(f, xs));
    }
}

TEST(AutodiffContractFd, EveryContraction) {
  struct C {
    const char* name;
    Tensor (*op)(const Tensor&, const Tensor&);
    Dims sa, sb;
  };
  const std::vector<C> cases = {
      {"matmul_2d", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, {2, 3}, {3, 4}},
      {"matmul_batch_broadcast",
       [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
       {2, 1, 2, 3},
       {3, 3, 2}},
      {"matmul_vec_mat",
       [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
       {3},
       {3, 2}},
      {"matmul_mat_vec",
       [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
       {2, 3},
       {3}},
      {"matmul_dot", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, {4}, {4}},
      {"matmul_transposed",
       [](const Tensor& a, const Tensor& b) { return matmul(transpose(a), b); },
       {3, 2},
       {3, 2}},
      {"bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, {3, 2, 2}, {3, 2, 3}},
      {"dot_general",
       [](const Tensor& a, const Tensor& b) {
         return dot_general(a, b, DotDims{{1}, {0}, {2}, {1}});
       },
       {2, 3, 4},
       {3, 4, 2}},
      {"tensordot",
       [](const Tensor& a, const Tensor& b) {
         return tensordot(a, b, {0, 2}, {2, 0});
       },
       {2, 3, 4},
       {4, 5, 2}},
      {"tensordot_n",
       [](const Tensor& a, const Tensor& b) { return tensordot(a, b, 1); },
       {2, 3},
       {3, 2}},
      {"outer", [](const Tensor& a, const Tensor& b) { return outer(a, b); }, {3}, {2, 2}},
      {"inner", [](const Tensor& a, const Tensor& b) { return inner(a, b); }, {2, 3}, {4, 3}},
      {"vdot", [](const Tensor& a, const Tensor& b) { return vdot(a, b); }, {2, 3}, {6}},
  };
  for (const C& c : cases)
    for (DType d : {DType::f64, DType::c128}) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(d)));
      FdFn f = [&](std::span<const Tensor> in) { return std::vector<Tensor>{c.op(in[0], in[1])}; };
      Tensor a = randn(c.sa, 90, d), b = randn(c.sb, 91, d);
      EXPECT_TRUE(check_vjp(f, {a, b}));
      EXPECT_TRUE(check_jvp(f, {a, b}));
    }
}
