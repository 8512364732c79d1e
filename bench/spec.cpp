#include "spec.hpp"

namespace bench {

const std::vector<CaseSpec>& all_cases() {
  static const std::vector<CaseSpec> cases = [] {
    std::vector<CaseSpec> v;
    auto add = [&](std::string name, Op op, Dt dt, std::vector<Shape> in, bool grad = false,
                   std::string unit = "call") {
      v.push_back(CaseSpec{std::move(name), op, dt, std::move(in), grad, std::move(unit)});
    };
    auto add_einsum = [&](std::string name, std::string subscripts, std::vector<Shape> in) {
      v.push_back(CaseSpec{std::move(name), Op::einsum, Dt::f64, std::move(in), false, "call",
                           std::move(subscripts)});
    };
    // Tiny ops: dominated by entry cost (dispatch, admission, output allocation).
    add("bmm_2x2_b16", Op::matmul, Dt::f64, {{16, 2, 2}, {16, 2, 2}});
    for (std::int64_t n : {2, 8, 32}) {
      add("matmul_" + std::to_string(n), Op::matmul, Dt::f64, {{n, n}, {n, n}});
    }
    add("chain10_matmul_2x2", Op::chain10_matmul, Dt::f64, {{2, 2}, {2, 2}}, false, "chain of 10");
    // Tiny ops with a gradient: forward + backward per call.
    add("grad_sum_bmm_2x2_b16", Op::sum_matmul, Dt::f64, {{16, 2, 2}, {16, 2, 2}}, true, "fwd+bwd");
    for (std::int64_t n : {3, 64, 1024}) {
      add("grad_sum_sq_" + std::to_string(n), Op::sum_sq, Dt::f64, {{n}}, true, "fwd+bwd");
    }
    // Large ops: dominated by arithmetic or memory bandwidth.
    add("matmul_256", Op::matmul, Dt::f64, {{256, 256}, {256, 256}});
    add("matmul_1024", Op::matmul, Dt::f64, {{1024, 1024}, {1024, 1024}});
    add("add_4m_f32", Op::add, Dt::f32, {{2048, 2048}, {2048, 2048}});
    add("sum_4m_f32", Op::sum, Dt::f32, {{2048, 2048}});
    add("bmm_16x16_b1024", Op::matmul, Dt::f64, {{1024, 16, 16}, {1024, 16, 16}});
    // A tensor-network step: E'[d,e] = sum_{a,b,c} E[a,b] A[a,c,d] B[b,c,e], bond 16, phys 2.
    add_einsum("einsum_tn", "ab,acd,bce->de", {{16, 16}, {16, 2, 16}, {16, 2, 16}});
    // A chain of 10 matrices whose sizes make the contraction order matter: left to right
    // (torch::einsum's default order) carries 48-wide intermediates, the best order 2-wide ones.
    add_einsum("einsum_chain10", "ab,bc,cd,de,ef,fg,gh,hi,ij,jk->ak",
               {{48, 48},
                {48, 2},
                {2, 48},
                {48, 2},
                {2, 48},
                {48, 2},
                {2, 48},
                {48, 2},
                {2, 48},
                {48, 48}});
    // An MPS-style contraction with every bond 64.
    add_einsum("einsum_mps_64", "abc,bd,cde->ade", {{64, 64, 64}, {64, 64}, {64, 64, 64}});
    return v;
  }();
  return cases;
}

std::vector<double> input_values(std::int64_t numel, std::uint64_t seed) {
  std::vector<double> out(static_cast<std::size_t>(numel));
  for (std::int64_t i = 0; i < numel; ++i) {
    const std::uint64_t x =
        static_cast<std::uint64_t>(i) * 6364136223846793005ull + seed * 1442695040888963407ull;
    out[static_cast<std::size_t>(i)] = (static_cast<double>(x % 1024) - 512.0) / 512.0;
  }
  return out;
}

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::string_view dtype_name(Dt d) { return d == Dt::f32 ? "f32" : "f64"; }

std::string describe_inputs(const CaseSpec& c) {
  std::string out;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (i) out += ", ";
    for (std::size_t j = 0; j < c.inputs[i].size(); ++j) {
      if (j) out += "x";
      out += std::to_string(c.inputs[i][j]);
    }
  }
  return out;
}

}  // namespace bench
