// Traced vs eager for the contraction family and the structural view ops.
#include "common/trace_family.hpp"

using namespace tenferro;
using trace_test::check_traced_row;
using trace_test::RowFn;

namespace {
struct Row {
  const char* name;
  std::vector<Dims> shapes;
  RowFn fn;
};

const std::vector<Row>& rows() {
  using S = std::span<const Tensor>;
  using V = std::vector<Tensor>;
  static const std::vector<Row> r = {
      {"dot_general",
       {{2, 3, 4}, {2, 4, 5}},
       [](S x) {
         return V{dot_general(x[0], x[1], {{0}, {0}, {2}, {1}})};
       }},
      {"dot_general_multi",
       {{3, 2, 4}, {4, 3, 5}},
       [](S x) {
         return V{dot_general(x[0], x[1], {{}, {}, {0, 2}, {1, 0}})};
       }},
      {"matmul", {{3, 4}, {4, 2}}, [](S x) { return V{matmul(x[0], x[1])}; }},
      {"matmul_broadcast", {{2, 1, 3, 4}, {3, 4, 2}}, [](S x) { return V{matmul(x[0], x[1])}; }},
      {"matmul_vec", {{4}, {4, 3}}, [](S x) { return V{matmul(x[0], x[1])}; }},
      {"bmm", {{16, 2, 2}, {16, 2, 2}}, [](S x) { return V{bmm(x[0], x[1])}; }},
      {"tensordot", {{2, 3, 4}, {3, 4, 5}}, [](S x) { return V{tensordot(x[0], x[1], 2)}; }},
      {"outer", {{3}, {4}}, [](S x) { return V{outer(x[0], x[1])}; }},
      {"inner", {{2, 4}, {3, 4}}, [](S x) { return V{inner(x[0], x[1])}; }},
      {"vdot", {{5}, {5}}, [](S x) { return V{vdot(x[0], x[1])}; }},
      {"transposed_operand",
       {{4, 3}, {4, 2}},
       [](S x) { return V{matmul(transpose(x[0]), x[1])}; }},
      {"reshape_permute_slice",
       {{2, 3, 4}},
       [](S x) {
         return V{slice(permute(reshape(x[0], {6, 4}), {1, 0}), 1, 1, 6, 2)};
       }},
      {"broadcast_copy_squeeze",
       {{3, 1}},
       [](S x) {
         return V{copy(broadcast_to(x[0], {2, 3, 4})), squeeze(x[0], 1), unsqueeze(x[0], 0)};
       }},
      {"multi_use", {{3, 3}}, [](S x) { return V{add(matmul(x[0], x[0]), transpose(x[0]))}; }},
  };
  return r;
}
}  // namespace

TEST(TraceFamily, ContractionsAndViews) {
  for (const Row& row : rows())
    for (DType d : {DType::f64, DType::c128}) {
      std::vector<Tensor> in;
      for (std::size_t i = 0; i < row.shapes.size(); ++i)
        in.push_back(randn(row.shapes[i], 20 + i, d));
      check_traced_row(std::string(row.name) + " " + std::string(dtype_name(d)), row.fn, in, true);
    }
}
