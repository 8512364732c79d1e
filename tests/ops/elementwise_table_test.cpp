// Table-driven eager checks of every elementwise op against independent long-double references:
// all dtypes, contiguous / permuted / sliced / broadcast (stride 0) / rank 0 / empty / large
// operands, budgets 1 and 4 (results must be identical: elementwise ops do not reassociate).
#include "common/elementwise_table.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "tenferro/eager.hpp"

namespace tenferro::testing {
namespace {

using Maker = std::function<Tensor(DType, Domain, std::uint64_t)>;

struct Layout {
  const char* name;
  Maker make;
};

Maker contiguous(Dims shape) {
  return
      [shape](DType d, Domain dom, std::uint64_t seed) { return make_input(shape, d, dom, seed); };
}

// Operands of logical shape [3, 4, 5] (or as named) in every memory layout we support.
std::vector<Layout> unary_layouts() {
  return {
      {"contiguous", contiguous({3, 4, 5})},
      {"permuted",
       [](DType d, Domain m, std::uint64_t s) {
         return make_input({5, 3, 4}, d, m, s).permute({1, 2, 0});
       }},
      {"sliced",
       [](DType d, Domain m, std::uint64_t s) {
         return make_input({3, 8, 5}, d, m, s).slice(1, 1, 8, 2);
       }},
      {"broadcast",
       [](DType d, Domain m, std::uint64_t s) {
         return make_input({1, 4, 1}, d, m, s).broadcast_to({3, 4, 5});
       }},
      {"rank0", contiguous({})},
      {"empty", contiguous({3, 0, 5})},
      {"large", contiguous({400, 130})},
      {"large_transposed",
       [](DType d, Domain m, std::uint64_t s) {
         return make_input({130, 400}, d, m, s).transpose();
       }},
  };
}

struct BinaryCase {
  const char* name;
  Maker a, b;
};
std::vector<BinaryCase> binary_cases() {
  auto permuted = [](DType d, Domain m, std::uint64_t s) {
    return make_input({5, 3, 4}, d, m, s).permute({1, 2, 0});
  };
  auto sliced = [](DType d, Domain m, std::uint64_t s) {
    return make_input({3, 4, 10}, d, m, s).slice(2, 0, 10, 2);
  };
  auto bview = [](DType d, Domain m, std::uint64_t s) {
    return make_input({4, 1}, d, m, s).broadcast_to({3, 4, 5});
  };
  return {
      {"same_shape", contiguous({3, 4, 5}), contiguous({3, 4, 5})},
      {"tensor_rank0", contiguous({3, 4, 5}), contiguous({})},
      {"rank0_tensor", contiguous({}), contiguous({3, 4, 5})},
      {"broadcast_both", contiguous({3, 1, 5}), contiguous({4, 1})},
      {"permuted_sliced", permuted, sliced},
      {"stride0_view", bview, contiguous({3, 4, 5})},
      {"rank0_rank0", contiguous({}), contiguous({})},
      {"empty", contiguous({0, 3}), contiguous({3})},
      {"large", contiguous({400, 130}), contiguous({400, 130})},
      {"large_broadcast", contiguous({400, 1}), contiguous({130})},
      {"large_strided",
       [](DType d, Domain m, std::uint64_t s) {
         return make_input({130, 400}, d, m, s).transpose();
       },
       contiguous({400, 130})},
  };
}

// Checks got against expected values; tol relative as in the table.
void expect_values(const Tensor& got, const std::vector<cld>& want, double tol,
                   const std::string& what) {
  std::vector<cld> v = values_of(got);
  ASSERT_EQ(v.size(), want.size()) << what;
  for (std::size_t i = 0; i < v.size(); ++i)
    ASSERT_LE(std::abs(v[i] - want[i]), tol * (1 + std::abs(want[i])))
        << what << " at flat index " << i << ": got " << v[i] << ", want " << want[i];
}

// Runs f under budgets 1 and 4 and checks the two results are identical.
Tensor run_budgets(const std::function<Tensor()>& f, const std::string& what) {
  CpuBackend one(CpuBackendOptions{.threads = 1}), four(CpuBackendOptions{.threads = 4});
  Tensor r1, r4;
  {
    BackendGuard use(one);
    r1 = f();
  }
  {
    BackendGuard use(four);
    r4 = f();
  }
  EXPECT_EQ(r1.shape(), r4.shape()) << what;
  EXPECT_EQ(r1.dtype(), r4.dtype()) << what;
  std::vector<cld> v1 = values_of(r1), v4 = values_of(r4);
  EXPECT_EQ(v1, v4) << what << ": budget 1 and budget 4 differ";
  return r1;
}

TEST(ElementwiseTable, UnaryOpsMatchReference) {
  for (const UnaryRow& row : unary_table())
    for (DType d : row_dtypes(row.complex_ok))
      for (const Layout& lay : unary_layouts()) {
        const std::string what =
            std::string(row.name) + " " + std::string(dtype_name(d)) + " " + lay.name;
        Tensor x = lay.make(d, row.domain, 11);
        Tensor y = run_budgets([&] { return row.fn(x); }, what);
        EXPECT_EQ(y.shape(), x.shape()) << what;
        EXPECT_EQ(y.dtype(), row.to_real ? real_dtype(d) : d) << what;
        std::vector<cld> xv = values_of(x), want(xv.size());
        for (std::size_t i = 0; i < xv.size(); ++i) want[i] = row.ref(xv[i]);
        expect_values(y, want, tolerance(d, row.tol32, row.tol64), what);
      }
}

TEST(ElementwiseTable, BinaryOpsMatchReference) {
  for (const BinaryRow& row : binary_table())
    for (DType d : row_dtypes(row.complex_ok))
      for (const BinaryCase& c : binary_cases()) {
        const std::string what =
            std::string(row.name) + " " + std::string(dtype_name(d)) + " " + c.name;
        Tensor a = c.a(d, row.domain_a, 21), b = c.b(d, row.domain_b, 22);
        Tensor y = run_budgets([&] { return row.fn(a, b); }, what);
        Dims shape = y.shape();
        EXPECT_EQ(y.dtype(), row.to_real ? DType::boolean : d) << what;
        std::vector<cld> av = broadcast_values(values_of(a), a.shape(), shape);
        std::vector<cld> bv = broadcast_values(values_of(b), b.shape(), shape), want(av.size());
        for (std::size_t i = 0; i < av.size(); ++i) want[i] = row.ref(av[i], bv[i]);
        expect_values(y, want, tolerance(d, row.tol32, row.tol64), what);
      }
}

TEST(ElementwiseTable, BinaryOpsPromoteMixedDtypes) {
  const std::pair<DType, DType> pairs[] = {{DType::f32, DType::f64},
                                           {DType::f64, DType::f32},
                                           {DType::f64, DType::c64},
                                           {DType::c64, DType::f32},
                                           {DType::c64, DType::c128}};
  for (const BinaryRow& row : binary_table())
    for (auto [da, db] : pairs) {
      const DType common = promote(da, db);
      if (!row.complex_ok && is_complex(common)) continue;
      const std::string what = std::string(row.name) + " " + std::string(dtype_name(da)) + "," +
                               std::string(dtype_name(db));
      Tensor a = make_input({3, 1, 5}, da, row.domain_a, 31),
             b = make_input({4, 1}, db, row.domain_b, 32);
      Tensor y = row.fn(a, b);
      EXPECT_EQ(y.dtype(), row.to_real ? DType::boolean : common) << what;
      std::vector<cld> av = broadcast_values(values_of(a), a.shape(), y.shape());
      std::vector<cld> bv = broadcast_values(values_of(b), b.shape(), y.shape()), want(av.size());
      for (std::size_t i = 0; i < av.size(); ++i) want[i] = row.ref(av[i], bv[i]);
      expect_values(y, want, tolerance(common, row.tol32, row.tol64), what);
    }
}

TEST(ElementwiseTable, TensorScalarKeepsPrecision) {
  for (const BinaryRow& row : binary_table())
    for (DType d : row_dtypes(row.complex_ok)) {
      const bool ints = row.domain_b == Domain::small_ints;
      std::vector<Scalar> scalars = {Scalar(ints ? 0.0 : 0.7)};
      if (row.complex_ok) scalars.push_back(ints ? Scalar(0, 1) : Scalar(0.7, -0.3));
      for (Scalar s : scalars) {
        const std::string what = std::string(row.name) + " " + std::string(dtype_name(d)) +
                                 " scalar (" + std::to_string(s.real()) + "," +
                                 std::to_string(s.imag()) + ")";
        Tensor x = make_input({5, 3, 4}, d, row.domain_a, 41).permute({1, 2, 0});
        Tensor y = run_budgets([&] { return row.fn_scalar(x, s); }, what);
        const DType common = s.imag() != 0 ? complex_dtype(d) : d;
        EXPECT_EQ(y.dtype(), row.to_real ? DType::boolean : common) << what;
        std::vector<cld> xv = values_of(x), want(xv.size());
        // The scalar is rounded to the result precision first, as the kernel does.
        const cld sv = is_double_precision(common)
                           ? cld(s.real(), s.imag())
                           : cld(static_cast<float>(s.real()), static_cast<float>(s.imag()));
        for (std::size_t i = 0; i < xv.size(); ++i) want[i] = row.ref(xv[i], sv);
        expect_values(y, want, tolerance(common, row.tol32, row.tol64), what);
      }
    }
}

TEST(ElementwiseTable, IntoMatchesAllocatingOp) {
  for (const UnaryRow& row : unary_table()) {
    if (!row.into) continue;
    for (DType d : row_dtypes(row.complex_ok)) {
      const std::string what = std::string(row.name) + "_into " + std::string(dtype_name(d));
      Tensor x = make_input({3, 4, 5}, d, row.domain, 51);
      Tensor want = row.fn(x);
      // A strided destination: every other row of a larger zero buffer.
      Tensor buf = zeros({3, 8, 5}, want.dtype());
      Tensor out = buf.slice(1, 0, 8, 2);
      row.into(out, x);
      EXPECT_EQ(values_of(out), values_of(want)) << what;
      EXPECT_EQ(values_of(buf.slice(1, 1, 8, 2)), values_of(zeros({3, 4, 5}, want.dtype())))
          << what;
      if (want.dtype() == d) {  // in place: out is exactly the input's view
        Tensor xin = make_input({5, 3, 4}, d, row.domain, 51).permute({1, 2, 0});
        Tensor ref = row.fn(xin);
        row.into(xin, xin);
        EXPECT_EQ(values_of(xin), values_of(ref)) << what << " in place";
      }
    }
  }
  for (const BinaryRow& row : binary_table()) {
    if (!row.into) continue;
    for (DType d : row_dtypes(row.complex_ok)) {
      const std::string what = std::string(row.name) + "_into " + std::string(dtype_name(d));
      Tensor a = make_input({3, 4, 5}, d, row.domain_a, 61),
             b = make_input({4, 1}, d, row.domain_b, 62);
      Tensor want = row.fn(a, b);
      Tensor out = Tensor::empty({5, 4, 3}, want.dtype()).permute({2, 1, 0});
      row.into(out, a, b);
      EXPECT_EQ(values_of(out), values_of(want)) << what;
      row.into(a, a, b);  // in place
      EXPECT_EQ(values_of(a), values_of(want)) << what << " in place";
    }
  }
}

TEST(ElementwiseTable, DifferentiableFlagStopsGradients) {
  // Non-differentiable ops fall through to plain eager even when an input requires grad.
  for (const BinaryRow& row : binary_table()) {
    if (row.differentiable) continue;
    Tensor a = make_input({2, 3}, DType::f64, row.domain_a, 71);
    a.requires_grad_();
    Tensor y = row.fn(a, make_input({2, 3}, DType::f64, row.domain_b, 72));
    EXPECT_FALSE(y.requires_grad()) << row.name;
  }
  for (const UnaryRow& row : unary_table()) {
    if (row.differentiable) continue;
    Tensor a = make_input({2, 3}, DType::f64, row.domain, 73);
    a.requires_grad_();
    EXPECT_FALSE(row.fn(a).requires_grad()) << row.name;
  }
}

}  // namespace
}  // namespace tenferro::testing
