// Traced vs eager for every reduction and structural row of tests/common/reduce_table.hpp.
#include "common/reduce_table.hpp"
#include "common/trace_family.hpp"

using namespace tenferro;
using namespace tenferro::testing;

TEST(TraceFamily, Reductions) {
  for (const ReduceRow& row : reduce_table())
    for (DType d : {DType::f64, DType::c128}) {
      if (row.real_only && is_complex(d)) continue;
      for (const ReduceCase& c : reduce_cases()) {
        if (dims_numel(c.shape) == 0 || dims_numel(c.shape) > 5000) continue;  // small cases here
        for (bool keep : {false, true}) {
          Tensor x = make_input(c.shape, d, row.domain, 7);
          trace_test::check_traced_row(
              std::string(row.name) + " " + std::string(dtype_name(d)) + " " +
                  dims_to_string(c.shape) + " axes " + dims_to_string(c.axes) +
                  (keep ? " keepdims" : ""),
              [&](std::span<const Tensor> in) {
                return std::vector<Tensor>{row.op(in[0], c.axes, keep)};
              },
              {x}, true);
        }
      }
    }
}

TEST(TraceFamily, StructuralTable) {
  for (const StructuralRow& row : structural_table())
    for (DType d : {DType::f64, DType::c128}) {
      std::vector<Tensor> in;
      for (std::size_t i = 0; i < row.shapes.size(); ++i)
        in.push_back(make_input(row.shapes[i], d, Domain::normal, 10 + i));
      trace_test::check_traced_row(
          std::string(row.name) + " " + std::string(dtype_name(d)),
          [&](std::span<const Tensor> xs) { return std::vector<Tensor>{row.op(xs)}; }, in, true);
    }
}
