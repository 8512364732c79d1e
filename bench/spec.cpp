#include "spec.hpp"

#include <cmath>
#include <stdexcept>

namespace bench {
namespace {

// The LCG state behind element `i` of input `seed` (input_values keeps its low 10 bits).
std::uint64_t lcg_state(std::int64_t i, std::uint64_t seed) {
  return static_cast<std::uint64_t>(i) * 6364136223846793005ull + seed * 1442695040888963407ull;
}

// splitmix64's finalizer: a bijection of 64-bit words in which every output bit depends on every
// input bit, so that consecutive LCG states give unrelated values.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Each grad case ("grad_X") followed by its value_and_grad twin ("value_and_grad_X"): a traced
// grad program may drop the forward pass, a value_and_grad one cannot (the value is an output).
std::vector<CaseSpec> with_value_and_grad_twins(std::vector<CaseSpec> cases) {
  std::vector<CaseSpec> out;
  for (CaseSpec& c : cases) {
    const bool twin = c.mode == Mode::grad;
    out.push_back(std::move(c));
    if (!twin) continue;
    CaseSpec v = out.back();
    const std::string_view prefix = "grad_";
    const std::string rest =
        v.name.starts_with(prefix) ? v.name.substr(prefix.size()) : std::string(v.name);
    v.name = "value_and_grad_" + rest;
    v.mode = Mode::value_and_grad;
    v.unit = std::string(mode_name(v.mode));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

const std::vector<CaseSpec>& all_cases() {
  static const std::vector<CaseSpec> cases = [] {
    std::vector<CaseSpec> v;
    auto add = [&](std::string name, Op op, Dt dt, std::vector<Shape> in, Mode mode = Mode::call,
                   std::string unit = "call") {
      v.push_back(CaseSpec{std::move(name), op, dt, std::move(in), mode, std::move(unit)});
    };
    auto add_einsum = [&](std::string name, std::string subscripts, std::vector<Shape> in) {
      v.push_back(CaseSpec{std::move(name), Op::einsum, Dt::f64, std::move(in), Mode::call, "call",
                           std::move(subscripts)});
    };
    // Tiny ops: dominated by entry cost (dispatch, admission, output allocation).
    add("bmm_2x2_b16", Op::matmul, Dt::f64, {{16, 2, 2}, {16, 2, 2}});
    for (std::int64_t n : {2, 8, 32}) {
      add("matmul_" + std::to_string(n), Op::matmul, Dt::f64, {{n, n}, {n, n}});
    }
    add("chain10_matmul_2x2", Op::chain10_matmul, Dt::f64, {{2, 2}, {2, 2}}, Mode::call,
        "chain of 10");
    // Tiny ops with a gradient (each gets a value_and_grad twin at the end).
    add("grad_sum_bmm_2x2_b16", Op::sum_matmul, Dt::f64, {{16, 2, 2}, {16, 2, 2}}, Mode::grad,
        "grad");
    for (std::int64_t n : {3, 64, 1024}) {
      add("grad_sum_sq_" + std::to_string(n), Op::sum_sq, Dt::f64, {{n}}, Mode::grad, "grad");
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

    // Linear algebra (f64): batches of tiny matrices (entry cost, per-matrix overhead) and single
    // 64 / 256 matrices (the LAPACK routines). The matrix a is made valid for its op on the host,
    // untimed and the same for both sides (InputKind, case_input_values).
    auto add_linalg = [&](std::string name, Op op, InputKind kind, std::vector<Shape> in,
                          Mode mode = Mode::call) {
      v.push_back(CaseSpec{std::move(name),
                           op,
                           Dt::f64,
                           std::move(in),
                           mode,
                           std::string(mode_name(mode)),
                           {},
                           kind});
    };
    struct Size {
      std::string suffix;  // "_4x4_b16" (batch 16 of 4x4) or "_64" (one 64x64 matrix)
      Shape batch;
      std::int64_t n;
    };
    std::vector<Size> sizes;
    for (std::int64_t n : {2, 4, 8}) {
      for (std::int64_t b : {16, 64}) {
        const std::string nn = std::to_string(n);
        sizes.push_back({"_" + nn + "x" + nn + "_b" + std::to_string(b), {b}, n});
      }
    }
    for (std::int64_t n : {64, 256}) sizes.push_back({"_" + std::to_string(n), {}, n});
    // [batch..., rows, cols]
    auto shape = [](const Size& s, std::int64_t rows, std::int64_t cols) {
      Shape out = s.batch;
      out.push_back(rows);
      out.push_back(cols);
      return out;
    };
    struct Factorization {
      std::string name;
      Op op;
      InputKind kind;
    };
    for (const Factorization& f : {Factorization{"svd", Op::svd, InputKind::general},
                                   Factorization{"qr", Op::qr, InputKind::general},
                                   Factorization{"eigh", Op::eigh, InputKind::symmetric},
                                   Factorization{"cholesky", Op::cholesky, InputKind::spd}}) {
      for (const Size& s : sizes) add_linalg(f.name + s.suffix, f.op, f.kind, {shape(s, s.n, s.n)});
    }
    for (std::int64_t r : {1, 4}) {
      for (const Size& s : sizes) {
        add_linalg("solve_r" + std::to_string(r) + s.suffix, Op::solve, InputKind::well_conditioned,
                   {shape(s, s.n, s.n), shape(s, s.n, r)});
      }
    }
    // eig, lu_factor, pinv, matrix_exp (issue 30) on one n x n matrix: n = 4, 16, 256.
    for (const Factorization& f :
         {Factorization{"eig", Op::eig, InputKind::general},
          Factorization{"lu_factor", Op::lu_factor, InputKind::general},
          Factorization{"pinv", Op::pinv, InputKind::general},
          Factorization{"matrix_exp", Op::matrix_exp, InputKind::general}}) {
      for (std::int64_t n : {4, 16, 256})
        add_linalg(f.name + "_" + std::to_string(n), f.op, f.kind, {{n, n}});
    }
    // FFT (issue 34): 2^10 points (entry cost and plan lookup), 2^20 points (the transform).
    for (std::int64_t n : {1024, 1 << 20}) {
      const std::string size = n == 1024 ? "1k" : "1m";
      add("rfft_" + size + "_f64", Op::rfft, Dt::f64, {{n}});
      add("rfft_" + size + "_f32", Op::rfft, Dt::f32, {{n}});
      add("fft_" + size + "_f64", Op::fft, Dt::f64, {{n}});
    }
    // The gradient of the sum of the op's output, with respect to every input.
    const Size grad_sizes[] = {{"_4x4_b16", {16}, 4}, {"_64", {}, 64}};
    for (const Size& s : grad_sizes) {
      add_linalg("grad_sum_svdvals" + s.suffix, Op::sum_svdvals, InputKind::general,
                 {shape(s, s.n, s.n)}, Mode::grad);
    }
    for (const Size& s : grad_sizes) {
      add_linalg("grad_sum_solve" + s.suffix, Op::sum_solve, InputKind::well_conditioned,
                 {shape(s, s.n, s.n), shape(s, s.n, 1)}, Mode::grad);
    }
    for (const Size& s : grad_sizes) {
      add_linalg("grad_sum_eigvalsh" + s.suffix, Op::sum_eigvalsh, InputKind::symmetric,
                 {shape(s, s.n, s.n)}, Mode::grad);
    }
    return with_value_and_grad_twins(std::move(v));
  }();
  return cases;
}

std::string_view mode_name(Mode m) {
  switch (m) {
    case Mode::call:
      return "call";
    case Mode::grad:
      return "grad";
    case Mode::value_and_grad:
      return "value_and_grad";
  }
  return "?";
}

std::vector<double> input_values(std::int64_t numel, std::uint64_t seed) {
  std::vector<double> out(static_cast<std::size_t>(numel));
  for (std::int64_t i = 0; i < numel; ++i) {
    const std::uint64_t x = lcg_state(i, seed);
    out[static_cast<std::size_t>(i)] = (static_cast<double>(x % 1024) - 512.0) / 512.0;
  }
  return out;
}

std::vector<double> case_input_values(const CaseSpec& c, std::size_t index) {
  const Shape& shape = c.inputs.at(index);
  const std::int64_t total = numel(shape);
  const std::uint64_t seed = index + 1;
  if (index != 0 || c.a_kind == InputKind::raw) return input_values(total, seed);
  if (c.a_kind == InputKind::positive) {
    std::vector<double> v = input_values(total, seed);
    for (double& x : v) x = std::abs(x) + 0.5;
    return v;
  }
  // G. input_values keeps the low 10 bits of the LCG state, and those repeat every 1024
  // elements: a 64x64 matrix of them has rank <= 16 and a 256x256 one rank <= 4 (singular, with
  // repeated singular values and eigenvalues whose vectors are not unique and which LAPACK
  // deflates, i.e. computes faster than a generic matrix). So G takes the same states through
  // mix() and keeps the top 53 bits: uniform in [-1, 1), no repetition within a case.
  std::vector<double> g(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) {
    g[static_cast<std::size_t>(i)] =
        static_cast<double>(mix(lcg_state(i, seed)) >> 11) * 0x1p-52 - 1.0;
  }
  if (c.a_kind == InputKind::general) return g;
  const std::int64_t n = shape.empty() ? 0 : shape.back();
  if (shape.size() < 2 || shape[shape.size() - 2] != n || n == 0) {
    throw std::invalid_argument(c.name + ": its input kind needs square matrices");
  }
  const auto un = static_cast<std::size_t>(n);
  std::vector<double> out(g.size());
  for (std::size_t m = 0; m < out.size(); m += un * un) {  // each matrix of the batch
    const double* G = g.data() + m;
    double* A = out.data() + m;
    for (std::size_t i = 0; i < un; ++i) {
      for (std::size_t j = 0; j < un; ++j) {
        switch (c.a_kind) {
          case InputKind::symmetric:  // bitwise symmetric: the sum is the same both ways
            A[i * un + j] = (G[i * un + j] + G[j * un + i]) / 2;
            break;
          case InputKind::spd: {  // the lower triangle, mirrored: bitwise symmetric
            if (j > i) break;
            double dot = 0;
            for (std::size_t k = 0; k < un; ++k) dot += G[i * un + k] * G[j * un + k];
            A[i * un + j] = A[j * un + i] = dot / static_cast<double>(n) + (i == j ? 1.0 : 0.0);
            break;
          }
          case InputKind::well_conditioned:  // |diagonal| >= n > n - 1 >= off-diagonal row sum
            A[i * un + j] = G[i * un + j] + (i == j ? static_cast<double>(n + 1) : 0.0);
            break;
          case InputKind::raw:
          case InputKind::positive:
          case InputKind::general:
            break;
        }
      }
    }
  }
  return out;
}

void canonicalize_result(const CaseSpec& c, std::vector<double>& flat) {
  if (!multi_output(c.op)) return;
  const Shape& a = c.inputs.at(0);
  if (a.size() < 2 || a[a.size() - 2] != a.back() || a.back() == 0) return;  // square only
  const auto n = static_cast<std::size_t>(a.back());
  const std::size_t nn = n * n;
  const std::size_t batch = static_cast<std::size_t>(numel(a)) / nn;
  auto col_sum = [&](const double* m, std::size_t j) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += m[i * n + j];
    return s;
  };
  auto negate_col = [&](double* m, std::size_t j) {
    for (std::size_t i = 0; i < n; ++i) m[i * n + j] = -m[i * n + j];
  };
  auto negate_row = [&](double* m, std::size_t i) {
    for (std::size_t j = 0; j < n; ++j) m[i * n + j] = -m[i * n + j];
  };
  double* p = flat.data();
  switch (c.op) {
    case Op::svd:  // U [batch, n, n], S [batch, n], Vh [batch, n, n]
      if (flat.size() != batch * (2 * nn + n)) return;
      for (std::size_t b = 0; b < batch; ++b) {
        double* U = p + b * nn;
        double* Vh = p + batch * (nn + n) + b * nn;
        for (std::size_t j = 0; j < n; ++j) {
          if (col_sum(U, j) < 0) {
            negate_col(U, j);
            negate_row(Vh, j);
          }
        }
      }
      break;
    case Op::eigh:  // eigenvalues [batch, n], eigenvectors [batch, n, n]
      if (flat.size() != batch * (n + nn)) return;
      for (std::size_t b = 0; b < batch; ++b) {
        double* V = p + batch * n + b * nn;
        for (std::size_t j = 0; j < n; ++j) {
          if (col_sum(V, j) < 0) negate_col(V, j);
        }
      }
      break;
    case Op::qr:  // Q [batch, n, n], R [batch, n, n]
      if (flat.size() != batch * 2 * nn) return;
      for (std::size_t b = 0; b < batch; ++b) {
        double* Q = p + b * nn;
        double* R = p + batch * nn + b * nn;
        for (std::size_t j = 0; j < n; ++j) {
          if (R[j * n + j] < 0) {
            negate_col(Q, j);
            negate_row(R, j);
          }
        }
      }
      break;
    default:
      break;
  }
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
