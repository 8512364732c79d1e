// Traced vs eager for every elementwise row of tests/common/elementwise_table.hpp.
#include "common/elementwise_table.hpp"
#include "common/trace_family.hpp"

using namespace tenferro;
using namespace tenferro::testing;

TEST(TraceFamily, ElementwiseUnary) {
  for (const UnaryRow& row : unary_table())
    for (DType d : row_dtypes(row.complex_ok)) {
      if (d == DType::f32 || d == DType::c64) continue;  // the double-precision pair suffices here
      Tensor x = make_input({3, 4}, d, row.domain, 1);
      trace_test::check_traced_row(
          std::string(row.name) + " " + std::string(dtype_name(d)),
          [&](std::span<const Tensor> in) { return std::vector<Tensor>{row.fn(in[0])}; }, {x},
          row.differentiable);
    }
}

TEST(TraceFamily, ElementwiseBinaryWithBroadcast) {
  for (const BinaryRow& row : binary_table())
    for (DType d : row_dtypes(row.complex_ok)) {
      if (d == DType::f32 || d == DType::c64) continue;
      Tensor a = make_input({3, 4}, d, row.domain_a, 2), b = make_input({4}, d, row.domain_b, 3);
      trace_test::check_traced_row(
          std::string(row.name) + " " + std::string(dtype_name(d)),
          [&](std::span<const Tensor> in) { return std::vector<Tensor>{row.fn(in[0], in[1])}; },
          {a, b}, row.differentiable);
    }
}

TEST(TraceFamily, ElementwiseSinglePrecisionAndMixedDtypes) {
  Tensor a = make_input({2, 3}, DType::f32, Domain::any, 4),
         b = make_input({2, 3}, DType::c128, Domain::any, 5);
  trace_test::check_traced_row(
      "mul f32 x c128",
      [](std::span<const Tensor> in) { return std::vector<Tensor>{mul(in[0], in[1])}; }, {a, b},
      true);
  trace_test::check_traced_row(
      "exp(sin) f32",
      [](std::span<const Tensor> in) { return std::vector<Tensor>{exp(sin(in[0]))}; }, {a}, true);
}
