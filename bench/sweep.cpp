// The size sweeps of `tenferro-bench --sweep`: how the cost of an op grows with its size, each
// point with its libtorch twin (docs/benchmarks.md, "Size sweeps"; scripts/plot-sweeps draws them).
//
// Points per decade: elementwise ops and reductions 3 (1, 2, 5 x 10^k), the matrix and batch
// sweeps one per factor of 2 or 4. That resolves the knees (cache sizes, the switch from the
// small-matrix kernels to BLAS, the fan-out threshold) while the whole sweep stays a few minutes.
#include <string>

#include "spec.hpp"

namespace bench {
namespace {

std::vector<std::int64_t> one_two_five(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out;
  for (std::int64_t decade = from; decade <= to; decade *= 10) {
    for (std::int64_t m : {1, 2, 5}) {
      if (decade * m <= to) out.push_back(decade * m);
    }
  }
  return out;
}

std::vector<std::int64_t> geometric(std::int64_t from, std::int64_t to, std::int64_t factor) {
  std::vector<std::int64_t> out;
  for (std::int64_t n = from; n <= to; n *= factor) out.push_back(n);
  return out;
}

}  // namespace

const std::vector<CaseSpec>& sweep_cases() {
  static const std::vector<CaseSpec> cases = [] {
    std::vector<CaseSpec> v;
    auto point = [&](const std::string& series, std::int64_t size, Op op, Dt dt,
                     std::vector<Shape> in, Mode mode = Mode::call, std::string subscripts = {}) {
      CaseSpec c{"sweep_" + series + "_" + std::to_string(size),
                 op,
                 dt,
                 std::move(in),
                 mode,
                 std::string(mode_name(mode)),
                 std::move(subscripts)};
      c.series = series;
      c.size = size;
      v.push_back(std::move(c));
    };
    struct Named {
      const char* name;
      Op op;
      int arity;
      InputKind kind = InputKind::raw;
    };
    // Memory-bound ops on n elements (1-D): 10^2 (entry cost) to 10^7 (far beyond L3), and the
    // transcendental functions (SLEEF on our side and on libtorch's).
    for (const Named& f :
         {Named{"add", Op::add, 2}, Named{"mul", Op::mul, 2}, Named{"exp", Op::exp, 1},
          Named{"log", Op::log, 1, InputKind::positive}, Named{"sin", Op::sin, 1},
          Named{"tanh", Op::tanh, 1}, Named{"sum", Op::sum, 1}, Named{"mean", Op::mean, 1}}) {
      for (Dt dt : {Dt::f32, Dt::f64}) {
        const std::string series = std::string(f.name) + "_" + std::string(dtype_name(dt));
        for (std::int64_t n : one_two_five(100, 10'000'000)) {
          point(series, n, f.op, dt, std::vector<Shape>(static_cast<std::size_t>(f.arity), {n}));
          v.back().a_kind = f.kind;
        }
      }
    }
    // Square matmul n x n @ n x n: the small fixed-size kernels, then BLAS.
    for (std::int64_t n : geometric(2, 1024, 2)) {
      point("matmul_f64", n, Op::matmul, Dt::f64, {{n, n}, {n, n}});
    }
    // Batches of 2x2 matmuls, 16 to ~10^6 (4^10): per-op overhead, then per-matrix cost.
    for (std::int64_t b : geometric(16, 1 << 20, 4)) {
      point("bmm_2x2_f64", b, Op::matmul, Dt::f64, {{b, 2, 2}, {b, 2, 2}});
    }
    // The MPS-style contraction of the table at bond dimension D.
    for (std::int64_t d : {8, 12, 16, 24, 32, 48, 64}) {
      point("einsum_mps_f64", d, Op::einsum, Dt::f64, {{d, d, d}, {d, d}, {d, d, d}}, Mode::call,
            "abc,bd,cde->ade");
    }
    // The gradient of sum(bmm(a, b)), 2x2 matrices, batch 16 to 65,536.
    for (std::int64_t b : geometric(16, 65536, 4)) {
      point("grad_sum_bmm_2x2_f64", b, Op::sum_matmul, Dt::f64, {{b, 2, 2}, {b, 2, 2}}, Mode::grad);
    }
    return v;
  }();
  return cases;
}

}  // namespace bench
