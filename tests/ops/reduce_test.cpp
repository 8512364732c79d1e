// Reductions against independent long-double references (table-driven), budgets 1 vs 4,
// errors, special values, sum_to_shape.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/complex_chain.hpp"
#include "common/expect_error.hpp"
#include "common/reduce_table.hpp"
#include "primitives/rules.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;
using namespace tenferro::testing;

namespace {

constexpr Layout kLayouts[] = {Layout::contiguous, Layout::permuted, Layout::sliced,
                               Layout::broadcast};

Tensor input_for(const Dims& shape, DType dt, Layout l, Domain d, std::uint64_t seed) {
  if (l == Layout::broadcast) return make_broadcast_input(shape, dt, d, seed);
  return with_layout(make_input(shape, dt, d, seed), l);
}

std::string describe_case(const ReduceRow& row, DType dt, const Dims& shape, const Dims& axes,
                          bool keep, Layout l) {
  return std::string(row.name) + " " + std::string(dtype_name(dt)) + " shape " +
         dims_to_string(shape) + " axes " + dims_to_string(axes) + " keepdims " +
         (keep ? "1" : "0") + " " + layout_name(l);
}

std::int64_t run_length(const Tensor& x, const Dims& axes) {
  if (axes.empty()) return x.numel();
  std::int64_t n = 1;
  for (auto a : axes) n *= x.shape()[static_cast<std::size_t>(a < 0 ? a + x.rank() : a)];
  return n;
}

void expect_matches(const ReduceRow& row, const Tensor& x, const Dims& axes, bool keep,
                    const std::string& what) {
  Tensor y = row.op(x, axes, keep);
  std::vector<long double> scales;
  RefTensor ref = ref_reduce(to_ref(x), axes, keep, row.ref, &scales);
  ASSERT_EQ(y.shape(), ref.shape) << what;
  ASSERT_EQ(y.dtype(), row.real_output ? real_dtype(x.dtype()) : x.dtype()) << what;
  RefTensor got = to_ref(y);
  const long double n = static_cast<long double>(run_length(x, axes));
  const long double tol = eps_of(x.dtype()) * (32 + 4 * std::log2(n + 1));
  for (std::size_t i = 0; i < ref.v.size(); ++i) {
    const cld r = ref.v[i], g = got.v[i];
    // Long products leave the dtype's range: over/underflow is the expected result there.
    const bool dbl = is_double_precision(x.dtype());
    const long double lo = dbl ? 2.3e-308L : 1.2e-38L, hi = dbl ? 1.7e308L : 3.4e38L;
    if (std::abs(r) != 0 && (std::abs(r) < lo / eps_of(x.dtype()) || std::abs(r) > hi / 4))
      continue;
    if (std::isnan(r.real())) {
      EXPECT_TRUE(std::isnan(g.real())) << what << " at " << i;
      continue;
    }
    EXPECT_LE(std::abs(g - r), tol * scales[i])
        << what << " at " << i << ": got " << g.real() << "+" << g.imag() << "i, want " << r.real()
        << "+" << r.imag() << "i";
  }
}

}  // namespace

class ReduceRowTest : public ::testing::TestWithParam<ReduceRow> {};
INSTANTIATE_TEST_SUITE_P(Table, ReduceRowTest, ::testing::ValuesIn(reduce_table()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_P(ReduceRowTest, MatchesReferenceAllDtypesLayouts) {
  const ReduceRow& row = GetParam();
  std::uint64_t seed = 1;
  for (DType dt : float_dtypes) {
    if (row.real_only && is_complex(dt)) continue;
    for (const ReduceCase& c : reduce_cases()) {
      const bool big = dims_numel(c.shape) > 10000;
      for (Layout l : kLayouts)
        for (bool keep : {false, true}) {
          if (big && (keep || l == Layout::permuted || l == Layout::broadcast)) continue;
          Tensor x = input_for(c.shape, dt, l, row.domain, seed++);
          if (!x.defined()) continue;
          const std::string what = describe_case(row, dt, c.shape, c.axes, keep, l);
          if (row.empty_throws && run_length(x, c.axes) == 0) {
            expect_error(ErrorKind::InvalidArgument, [&] { row.op(x, c.axes, keep); }, {row.name});
            continue;
          }
          expect_matches(row, x, c.axes, keep, what);
        }
    }
  }
}

TEST(Reduce, BudgetsOneAndFourAreBitwiseEqual) {
  CpuBackend one(CpuBackendOptions{.threads = 1}), four(CpuBackendOptions{.threads = 4});
  const ReduceCase cases[] = {{{70000}, {}},          {{3, 40000}, {1}}, {{300, 70}, {0}},
                              {{200, 3, 50}, {0, 2}}, {{64, 64}, {1}},   {{2, 3}, {}}};
  for (const ReduceRow& row : reduce_table())
    for (DType dt : float_dtypes) {
      if (row.real_only && is_complex(dt)) continue;
      for (const ReduceCase& c : cases)
        for (Layout l : {Layout::contiguous, Layout::permuted}) {
          Tensor x = input_for(c.shape, dt, l, row.domain, 99);
          Tensor a, b;
          {
            BackendGuard use(one);
            a = row.op(x, c.axes, false);
          }
          {
            BackendGuard use(four);
            b = row.op(x, c.axes, false);
          }
          ASSERT_EQ(a.shape(), b.shape());
          EXPECT_EQ(std::memcmp(a.data_ptr(), b.data_ptr(),
                                static_cast<std::size_t>(a.numel()) * dtype_size(a.dtype())),
                    0)
              << describe_case(row, dt, c.shape, c.axes, false, l);
        }
    }
}

TEST(Reduce, ResultIsAccurateForLongRuns) {
  // Pairwise summation: 1e6 values of 0.1f sum to 1e5 within a few hundred ulps (naive
  // sequential f32 summation is off by ~1%).
  Tensor x = full({1000000}, 0.1, DType::f32);
  const float s = sum(x).item<float>();
  EXPECT_NEAR(s, 100000.0f, 1.0f);
}

TEST(Reduce, BadAxesAndDtypes) {
  Tensor x = make_input({2, 3}, DType::f64, Domain::normal, 5);
  const std::vector<double> before = x.to_vector<double>();
  for (const ReduceRow& row : reduce_table()) {
    expect_error(ErrorKind::InvalidArgument, [&] { row.op(x, {2}, false); },
                 {row.name, "axis 2", "rank 2"});
    expect_error(ErrorKind::InvalidArgument, [&] { row.op(x, {-3}, false); },
                 {row.name, "axis -3", "rank 2"});
    expect_error(ErrorKind::InvalidArgument,
                 [&] {
                   row.op(x, {1, -1}, false);
                 },
                 {row.name, "axis -1", "is repeated", "[1, -1]", "shape [2, 3]"});
    expect_error(ErrorKind::InvalidArgument, [&] { row.op(scalar_tensor(1.0), {0}, false); },
                 {row.name, "axis 0", "rank 0"});
    if (row.real_only)
      expect_error(ErrorKind::DTypeMismatch, [&] { row.op(ones({2}, DType::c64), {}, false); },
                   {row.name, "[2] c64", "real"});
    if (row.empty_throws)
      expect_error(ErrorKind::InvalidArgument,
                   [&] {
                     row.op(zeros({3, 0}), {1}, false);
                   },
                   {row.name, "[3, 0] f64", "zero elements"});
  }
  EXPECT_EQ(x.to_vector<double>(), before);
  expect_error(ErrorKind::InvalidArgument, [&] { sum(Tensor()); }, {"sum", "undefined"});
}

TEST(Reduce, SpecialValues) {
  EXPECT_EQ(sum(zeros({0, 4}), {0}).to_vector<double>(), std::vector<double>(4, 0.0));
  EXPECT_EQ(prod(zeros({0, 4}), {0}).to_vector<double>(), std::vector<double>(4, 1.0));
  EXPECT_EQ(norm(zeros({0}, DType::c64)).item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(mean(zeros({0})).item<double>()));
  const c64 m = mean(zeros({2, 0}, DType::c64), {1}).to_vector<c64>()[1];
  EXPECT_TRUE(std::isnan(m.real()));
  EXPECT_EQ(sum(zeros({0, 3}), {1}).numel(), 0);  // empty output
  // NaN propagates through max/min, wherever it sits in the run.
  for (int at = 0; at < 20; ++at) {
    std::vector<double> v(20, 1.0);
    v[static_cast<std::size_t>(at)] = NAN;
    EXPECT_TRUE(std::isnan(max(from_vector(v, {20})).item<double>()));
    EXPECT_TRUE(std::isnan(min(from_vector(v, {20})).item<double>()));
  }
  EXPECT_EQ(max(from_values({-INFINITY, -INFINITY}, {2})).item<double>(), -INFINITY);
  // Rank 0: every reduction is elementwise.
  EXPECT_EQ(sum_squares(scalar_tensor(c128(3, 4), DType::c128)).item<double>(), 25.0);
  EXPECT_EQ(norm(scalar_tensor(c128(3, 4), DType::c128)).item<double>(), 5.0);
  EXPECT_EQ(sum_squares(ones({2}, DType::c64)).dtype(), DType::f32);
  // Empty axis list means all axes.
  Tensor x = arange(6).reshape({2, 3});
  EXPECT_EQ(sum(x, {}).item<double>(), 15.0);
  EXPECT_EQ(sum(x, {}, true).shape(), (Dims{1, 1}));
  EXPECT_EQ(max(x, {0}).to_vector<double>(), (std::vector<double>{3, 4, 5}));
}

// Complex prod of finite factors whose running product leaves the range: the textbook product
// (libgcc's) gave NaN parts, (1e200 + 1e200j)^2 = 0 + inf j times (1 + 0j) multiplies inf * 0
// (Note [Complex products of many factors]); the true product here is back in range. Each layout
// of the kernel (a contiguous run, the rows path, a strided run, a run longer than one block, so
// partial products combine in a tree) against the chain in long double.
TEST(Reduce, ComplexProdNearOverflowHasNoNaNPart) {
  using tenferro::testing::cld;
  using i64 = std::int64_t;
  for (DType d : {DType::c128, DType::c64}) {
    const bool single = d == DType::c64;
    const double s = single ? 1e25 : 1e200, t = single ? 1e-37 : 1e-300;
    for (i64 n : {6, 40, 70000}) {
      std::vector<c128> f(static_cast<std::size_t>(n), c128(1, 0));
      const c128 special[] = {c128(s, s), c128(s, s), c128(0, 1), c128(t, 0), c128(s, 0)};
      for (std::size_t k = 0; k < 5; ++k) f[k * static_cast<std::size_t>(n) / 5] = special[k];
      const Tensor v = cast(from_vector<c128>(f, {n}), d);
      cld want(1, 0);
      c128 textbook(1, 0);
      for (const c128 z : cast(v, DType::c128).to_vector<c128>()) {  // the stored factors
        want = tenferro::testing::times(want, z);
        textbook = single ? c128(c64(textbook) * c64(z)) : textbook * z;
      }
      EXPECT_TRUE(std::isnan(textbook.real()) || std::isnan(textbook.imag()))
          << "the case should be one where the textbook product fails";
      // A contiguous run; the rows path (reduced axis outer, 4 equal columns); a strided run;
      // the general layout (two reduced axes that do not coalesce: 2 of 3 columns).
      const Tensor cols = contiguous(broadcast_to(reshape(v, {n, 1}), {n, 4}));
      const Tensor three = concatenate({reshape(v, {n / 2, 2}), zeros({n / 2, 1}, d)}, 1);
      const std::vector<Tensor> results = {prod(v), prod(cols, {0}),
                                           prod(slice(cols, 1, 0, 1), {0}),
                                           prod(slice(three, 1, 0, 2), {0, 1})};
      for (const Tensor& r : results) {
        for (const c128 got : cast(r, DType::c128).to_vector<c128>())
          tenferro::testing::expect_parts_near(
              got, want, single, std::string(dtype_name(d)) + " n " + std::to_string(n));
      }
    }
  }
}

TEST(Reduce, SumToShape) {
  Tensor x = make_input({2, 3, 4}, DType::f64, Domain::normal, 3);
  using detail::sum_to_shape;
  EXPECT_TRUE(allclose(sum_to_shape(x, Dims{3, 4}), sum(x, {0})));
  EXPECT_TRUE(allclose(sum_to_shape(x, Dims{1, 4}), sum(x, {0, 1}, true).reshape({1, 4})));
  EXPECT_TRUE(allclose(sum_to_shape(x, Dims{2, 1, 4}), sum(x, {1}, true)));
  EXPECT_TRUE(allclose(sum_to_shape(x, Dims{}), sum(x)));
  EXPECT_EQ(sum_to_shape(x, Dims{2, 3, 4}).storage().get(), x.storage().get());
  Tensor b = broadcast_to(make_input({3, 1}, DType::c64, Domain::normal, 4), {5, 3, 7});
  EXPECT_EQ(sum_to_shape(b, Dims{3, 1}).shape(), (Dims{3, 1}));
  EXPECT_TRUE(allclose(sum_to_shape(b, Dims{3, 1}), sum(b, {0, 2}).reshape({3, 1}), 1e-5, 1e-5));
  expect_error(ErrorKind::ShapeMismatch, [&] { sum_to_shape(x, Dims{5}); },
               {"sum_to_shape", "[2, 3, 4]", "[5]"});
  expect_error(ErrorKind::ShapeMismatch,
               [&] {
                 sum_to_shape(x, Dims{1, 2, 3, 4});
               },
               {"sum_to_shape"});
}
