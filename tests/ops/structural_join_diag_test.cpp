// concatenate, stack, diag, diag_embed, tril, triu against long-double references (table rows
// x dtypes x layouts), budgets 1 vs 4, views, and bad input.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "common/expect_error.hpp"
#include "common/reduce_table.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;
using namespace tenferro::testing;

namespace {

std::vector<Tensor> inputs_for(const StructuralRow& row, DType dt, Layout l, std::uint64_t seed) {
  std::vector<Tensor> xs;
  for (const Dims& s : row.shapes)
    xs.push_back(with_layout(make_input(s, dt, Domain::normal, seed++), l));
  return xs;
}

}  // namespace

TEST(Structural, MatchesReferenceAllDtypesLayouts) {
  std::uint64_t seed = 11;
  for (const StructuralRow& row : structural_table())
    for (DType dt : float_dtypes)
      for (Layout l : {Layout::contiguous, Layout::permuted, Layout::sliced}) {
        std::vector<Tensor> xs = inputs_for(row, dt, l, seed);
        seed += 10;
        std::vector<RefTensor> refs;
        std::vector<std::vector<cld>> before;
        for (const Tensor& x : xs) refs.push_back(to_ref(x));
        const std::string what =
            std::string(row.name) + " " + std::string(dtype_name(dt)) + " " + layout_name(l);
        Tensor y = row.op(xs);
        RefTensor want = row.ref(refs);
        ASSERT_EQ(y.dtype(), dt) << what;
        ASSERT_EQ(y.shape(), want.shape) << what;
        RefTensor got = to_ref(y);
        for (std::size_t i = 0; i < want.v.size(); ++i)  // pure data movement: exact
          EXPECT_EQ(got.v[i], want.v[i]) << what << " at " << i;
        for (std::size_t i = 0; i < xs.size(); ++i)
          EXPECT_EQ(to_ref(xs[i]).v, refs[i].v) << what << ": input " << i << " modified";
      }
}

TEST(Structural, BudgetsOneAndFourAreBitwiseEqual) {
  CpuBackend one(CpuBackendOptions{.threads = 1}), four(CpuBackendOptions{.threads = 4});
  for (const StructuralRow& row : structural_table())
    for (DType dt : float_dtypes) {
      std::vector<Tensor> xs = inputs_for(row, dt, Layout::permuted, 5);
      Tensor a, b;
      {
        BackendGuard use(one);
        a = contiguous(row.op(xs));
      }
      {
        BackendGuard use(four);
        b = contiguous(row.op(xs));
      }
      ASSERT_EQ(a.shape(), b.shape());
      EXPECT_EQ(std::memcmp(a.data_ptr(), b.data_ptr(),
                            static_cast<std::size_t>(a.numel()) * dtype_size(a.dtype())),
                0)
          << row.name;
    }
}

TEST(Structural, EdgeShapes) {
  // Stack of scalars, concatenate of one tensor (a copy), large rows.
  Tensor s = stack({scalar_tensor(1.0), scalar_tensor(2.0), scalar_tensor(3.0)});
  EXPECT_EQ(s.shape(), (Dims{3}));
  EXPECT_EQ(s.to_vector<double>(), (std::vector<double>{1, 2, 3}));
  Tensor a = arange(6).reshape({2, 3});
  Tensor c = concatenate({a});
  EXPECT_NE(c.storage().get(), a.storage().get());
  EXPECT_EQ(c.to_vector<double>(), a.to_vector<double>());
  EXPECT_EQ(concatenate({zeros({0, 2}), zeros({0, 2})}).shape(), (Dims{0, 2}));
  // Empty inputs whose concatenated axis is near INT64_MAX: nothing to copy, and no byte count
  // of a row (axis * inner * 16 bytes) may be computed (signed overflow, found by api_fuzz).
  const std::int64_t huge = std::int64_t{1} << 61;
  const Tensor e =
      concatenate({zeros({0, huge}, DType::c128), zeros({0, huge - 2}, DType::c128)}, 1);
  EXPECT_EQ(e.shape(), (Dims{0, 2 * huge - 2}));
  // diag is a view; an offset past the matrix gives an empty diagonal.
  Tensor m = arange(12).reshape({3, 4});
  Tensor d = diagonal(m, 1);
  EXPECT_EQ(d.storage().get(), m.storage().get());
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{1, 6, 11}));
  EXPECT_EQ(diagonal(m, 4).shape(), (Dims{0}));
  EXPECT_EQ(diagonal(m, -3).shape(), (Dims{0}));
  EXPECT_EQ(diagonal(m, -2).to_vector<double>(), (std::vector<double>{8}));
  EXPECT_EQ(diag_embed(zeros({2, 0}), 1).shape(), (Dims{2, 1, 1}));
  EXPECT_EQ(tril(zeros({2, 0, 3})).shape(), (Dims{2, 0, 3}));
  // tril + triu(k + 1) partitions the matrix.
  for (std::int64_t k = -4; k <= 4; ++k) {
    Tensor t = tril(m, k), u = triu(m, k + 1);
    std::vector<double> tv = t.to_vector<double>(), uv = u.to_vector<double>();
    for (std::size_t i = 0; i < tv.size(); ++i)
      EXPECT_EQ(tv[i] + uv[i], static_cast<double>(i)) << k;
  }
}

TEST(Structural, BadInput) {
  Tensor a = zeros({2, 3}), b = zeros({2, 4}), c = zeros({2, 3}, DType::f32), v = zeros({3});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 concatenate({a, b}, 0);
               },
               {"concatenate", "[2, 3] f64, [2, 4] f64"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 concatenate({a, v}, 0);
               },
               {"concatenate", "[3] f64"});
  // Mixed dtypes promote (no error): f64 with f32 is f64.
  EXPECT_EQ(concatenate({a, c}, 1).dtype(), DType::f64);
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 concatenate({a, a}, 2);
               },
               {"concatenate", "axis 2", "[2, 3] f64"});
  expect_error(ErrorKind::InvalidArgument, [&] { concatenate({scalar_tensor(1.0)}, 0); },
               {"concatenate", "[] f64"});
  expect_error(ErrorKind::InvalidArgument, [&] { concatenate(std::span<const Tensor>{}, 0); },
               {"concatenate", "at least one"});
  expect_error(ErrorKind::InvalidArgument, [&] { stack(std::span<const Tensor>{}, 0); },
               {"stack", "at least one"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 stack({a, b});
               },
               {"stack", "[2, 3] f64, [2, 4] f64"});
  EXPECT_EQ(stack({a, c}).dtype(), DType::f64);
  expect_error(ErrorKind::InvalidArgument, [&] { stack({a, a}, 3); }, {"stack", "axis 3"});
  expect_error(ErrorKind::InvalidArgument, [&] { tril(v); }, {"tril", "[3] f64", "rank >= 2"});
  expect_error(ErrorKind::InvalidArgument, [&] { triu(scalar_tensor(1.0)); }, {"triu", "[] f64"});
  expect_error(ErrorKind::InvalidArgument, [&] { diagonal(v); }, {"diag", "[3] f64"});
  expect_error(ErrorKind::InvalidArgument, [&] { diag_embed(scalar_tensor(1.0)); },
               {"diag_embed", "[] f64"});
  expect_error(ErrorKind::InvalidArgument, [&] { concatenate({a, Tensor()}); }, {"undefined"});
}

TEST(Structural, NegativeStepSlicesFlipAndRoll) {
  Tensor x = arange(12).reshape({3, 4});
  EXPECT_EQ(slice(x, 1, -1, std::numeric_limits<std::int64_t>::min(), -2).to_vector<double>(),
            (std::vector<double>{3, 1, 7, 5, 11, 9}));
  EXPECT_EQ(slice(x, 0, 1, -4, -1).to_vector<double>(),
            (std::vector<double>{4, 5, 6, 7, 0, 1, 2, 3}));
  Tensor s = slice(x, 1, 2, 0, -1);  // a view with a negative stride
  EXPECT_EQ(s.storage().get(), x.storage().get());
  EXPECT_EQ(s.strides()[1], -1);
  EXPECT_EQ(s.to_vector<double>(), (std::vector<double>{2, 1, 6, 5, 10, 9}));
  EXPECT_EQ((s + 0.0).to_vector<double>(), s.to_vector<double>());  // kernels read it too
  EXPECT_EQ(flip(x).to_vector<double>(),
            (std::vector<double>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(flip(x, {0}).to_vector<double>(),
            (std::vector<double>{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
  EXPECT_EQ(flip(from_vector<bool>({true, false}, {2})).to_vector<bool>(),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(roll(x, 1, 1).to_vector<double>(),
            (std::vector<double>{3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10}));
  EXPECT_EQ(roll(x, -1, 0).to_vector<double>(), roll(x, 2, 0).to_vector<double>());
  EXPECT_EQ(roll(x, std::numeric_limits<std::int64_t>::min(), 1).to_vector<double>(),
            x.to_vector<double>());  // 2^63 is a multiple of 4
  EXPECT_EQ(roll(zeros({0, 2}), 3, 0).shape(), (Dims{0, 2}));
  // Gradients: reversal and rotation are permutations of the cotangent.
  Tensor w = arange(4).reshape({2, 2});
  auto g =
      grad([&](std::span<const Tensor> in) { return sum(flip(in[0], {1}) * w); }, {ones({2, 2})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{1, 0, 3, 2}));
  auto gr =
      grad([&](std::span<const Tensor> in) { return sum(roll(in[0], 1, 1) * w); }, {ones({2, 2})});
  EXPECT_EQ(gr[0].to_vector<double>(), (std::vector<double>{1, 0, 3, 2}));
  expect_error(ErrorKind::InvalidArgument, [&] { flip(x, {0, -2}); }, {"flip", "more than once"});
  expect_error(ErrorKind::InvalidArgument, [&] { roll(x, 1, 2); }, {"roll", "axis"});
}

// diagonal on any axis pair with offsets (loop reference here), NumPy's diag, and their errors.
TEST(Structural, DiagonalOfAnyAxisPairAndNumpyDiag) {
  Tensor x = arange(24).reshape({2, 3, 4});
  for (std::int64_t a : {0, 1, 2})
    for (std::int64_t b : {0, 1, 2}) {
      if (a == b) continue;
      for (std::int64_t k = -3; k <= 4; ++k) {
        Tensor d = diagonal(x, k, a, b);
        const std::int64_t c = 3 - a - b, m = x.shape()[a], n = x.shape()[b];
        std::vector<double> want;
        std::int64_t len = 0;
        for (std::int64_t i = 0; i < m; ++i)
          if (i + k >= 0 && i + k < n) ++len;
        for (std::int64_t r = 0; r < x.shape()[c]; ++r)
          for (std::int64_t i = 0; i < m; ++i) {
            if (i + k < 0 || i + k >= n) continue;
            std::int64_t idx[3];
            idx[a] = i;
            idx[b] = i + k;
            idx[c] = r;
            want.push_back(static_cast<double>((idx[0] * 3 + idx[1]) * 4 + idx[2]));
          }
        const std::string what =
            std::to_string(a) + "," + std::to_string(b) + " k " + std::to_string(k);
        ASSERT_EQ(d.shape(), (Dims{x.shape()[c], len})) << what;
        EXPECT_EQ(d.to_vector<double>(), want) << what;
        EXPECT_EQ(d.storage().get(), x.storage().get()) << what;  // a view
      }
    }
  // NumPy's diag: vector -> matrix, matrix -> diagonal.
  Tensor v = from_vector<std::int32_t>({1, 2}, {2});
  EXPECT_EQ(diag(v).to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 0, 2}));
  EXPECT_EQ(diag(v, 1).shape(), (Dims{3, 3}));
  EXPECT_EQ(diag(diag(v, -1), -1).to_vector<std::int32_t>(), v.to_vector<std::int32_t>());
  auto g = grad([](std::span<const Tensor> in) { return sum(diag(in[0]) * 2.0); }, {ones({3, 3})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{2, 0, 0, 0, 2, 0, 0, 0, 2}));
  auto gv = grad([](std::span<const Tensor> in) { return sum(diag(in[0], 1) * 3.0); }, {ones({2})});
  EXPECT_EQ(gv[0].to_vector<double>(), (std::vector<double>{3, 3}));
  expect_error(ErrorKind::InvalidArgument, [&] { diag(x); }, {"diag", "[2, 3, 4]", "diagonal()"});
  expect_error(ErrorKind::InvalidArgument, [] { diag(scalar_tensor(1.0)); }, {"diag", "rank 1"});
  expect_error(ErrorKind::InvalidArgument, [&] { diagonal(x, 0, 1, -2); },
               {"diagonal", "same axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { diagonal(x, 0, 0, 3); }, {"diagonal", "axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { diagonal(v); }, {"diagonal", "[2] i32"});
}

// Reversed views have negative strides: every kernel family must read them as their contiguous
// copies (GEMM providers pack them, reductions and elementwise loops walk them).
TEST(Structural, KernelsReadNegativeStrideViewsAsTheirCopies) {
  using Fn = Tensor (*)(const Tensor&);
  const std::pair<const char*, Fn> ops[] = {
      {"exp", [](const Tensor& t) { return exp(t); }},
      {"add_broadcast", [](const Tensor& t) { return t + slice(t, 0, 0, 1); }},
      {"sum_axis0", [](const Tensor& t) { return sum(t, {0}); }},
      {"sum_all", [](const Tensor& t) { return sum(t); }},
      {"max_axis1", [](const Tensor& t) { return max(t, {1}); }},
      {"argmax", [](const Tensor& t) { return argmax(t, 1); }},
      {"matmul_small",
       [](const Tensor& t) {
         const Tensor s = slice(slice(t, 0, 0, 4), 1, 0, 4);
         return matmul(s, s);
       }},
      {"matmul_blas", [](const Tensor& t) { return matmul(t, transpose(t)); }},
      {"einsum",
       [](const Tensor& t) {
         return einsum("ij,kj->ik", {t, t});
       }},
      {"concatenate",
       [](const Tensor& t) {
         return concatenate({t, t}, 1);
       }},
      {"svdvals", [](const Tensor& t) { return svdvals(slice(t, 1, 0, 6)); }},
      {"copy", [](const Tensor& t) { return copy(t); }},
  };
  const Tensor x = randn({24, 20}, 77);
  for (auto axes : {Dims{0}, Dims{1}, Dims{}}) {
    const Tensor v = flip(x, axes);  // a view
    ASSERT_EQ(v.storage().get(), x.storage().get());
    const Tensor c = contiguous(v);
    for (const auto& [name, f] : ops) {
      const Tensor a = f(v), b = f(c);
      ASSERT_EQ(a.shape(), b.shape()) << name;
      EXPECT_TRUE(allclose(a, b, 1e-12, 1e-12)) << name << " axes " << dims_to_string(axes);
    }
  }
}
