// The benchmark cases, written once as data.
//
// A case names an operation (`Op`), its inputs (shapes, dtype) and whether the measured thing is
// the op itself or the gradient of its scalar result with respect to every input. Both sides --
// tenferro (ours.cpp) and the libtorch twin (torch_twin.cpp) -- interpret the same table, each
// with one switch over Op, so the two can never measure different problems. This header includes
// neither tenferro nor torch on purpose: it is the whole contract between the two translation
// units.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

/// What one call of a case computes (a = inputs[0], b = inputs[1], c = inputs[2]).
enum class Op : std::uint8_t {
  matmul,          // a @ b (2-D, or batched 3-D with the batch first: [B,m,k] @ [B,k,n])
  chain10_matmul,  // x = a; ten times x = x @ b
  sum_matmul,      // sum(a @ b)             (a scalar; used by the gradient cases)
  sum_sq,          // sum(a * a)             (a scalar)
  add,             // a + b
  mul,             // a * b
  exp,             // exp(a)
  log,             // log(a)   (a from InputKind::positive)
  sin,             // sin(a)
  tanh,            // tanh(a)
  sum,             // sum(a) over all elements
  mean,            // mean(a) over all elements
  einsum,          // einsum(CaseSpec::subscripts, inputs...) (any number of operands)
  // Linear algebra (a [..., n, n], leading dims a batch). svd, qr and eigh return several
  // tensors: a call keeps all of them (multi_output), so that no side can skip one.
  svd,           // thin svd(a): U, S, Vh
  qr,            // reduced qr(a): Q, R
  eigh,          // eigh(a) reading the lower triangle: eigenvalues, eigenvectors
  cholesky,      // lower Cholesky factor of a
  solve,         // x with a x = b (b [..., n, r])
  sum_svdvals,   // sum(svdvals(a))          (a scalar; used by the gradient cases)
  sum_solve,     // sum(solve(a, b))         (a scalar)
  sum_eigvalsh,  // sum(eigvalsh(a))         (a scalar; lower triangle)
  eig,           // eig(a) of a general matrix: eigenvalues, eigenvectors (complex)
  lu_factor,     // lu_factor(a): packed LU, pivots (integers; compared 0-based)
  pinv,          // pinv(a) with the default cutoff (max(m, n) eps)
  matrix_exp,    // matrix_exp(a)
  // FFT (issue 34) along the last axis, norm "backward" on both sides.
  rfft,  // rfft(a) of a real a: the n / 2 + 1 non-negative frequencies
  fft,   // fft(a) of a real a: the full complex spectrum (each side promotes a as it does)
};

/// True for the ops whose call returns several tensors (each side's forward_all, not forward).
inline bool multi_output(Op op) {
  return op == Op::svd || op == Op::qr || op == Op::eigh || op == Op::eig || op == Op::lu_factor;
}

/// How the values of a case's FIRST input (the matrix `a`) are made, per [..., n, n] matrix, on
/// the host in double before either side makes a tensor (case_input_values; docs/benchmarks.md,
/// "Linear-algebra cases"). Every other input is `raw`.
enum class InputKind : std::uint8_t {
  raw,               // input_values as they are (every non-linear-algebra case but log)
  positive,          // |input_values| + 0.5, in [0.5, 1.5] (log's domain)
  general,           // G: the LCG state through a mixer (full rank, distinct singular values)
  symmetric,         // (G + G^T) / 2
  spd,               // G G^T / n + I (eigenvalues >= 1)
  well_conditioned,  // G + (n + 1) I (strictly diagonally dominant)
};

enum class Dt : std::uint8_t { f32, f64 };

/// What one call of a case measures.
enum class Mode : std::uint8_t {
  call,            // the op itself
  grad,            // the gradients of the op's scalar result with respect to every input
  value_and_grad,  // the scalar result AND those gradients (the forward pass cannot be dropped)
};

/// The table's "per" label of a mode ("call", "grad", "value_and_grad"). A traced grad program
/// drops the forward values no gradient needs (dead code), while libtorch's grad always runs the
/// forward: compare value_and_grad rows for forward + backward on both sides.
std::string_view mode_name(Mode m);

using Shape = std::vector<std::int64_t>;

struct CaseSpec {
  std::string name;
  Op op;
  Dt dtype;
  std::vector<Shape> inputs;
  /// grad / value_and_grad: the gradients of the scalar op result with respect to every input
  /// (all returned, none accumulated into leaves), with the result itself for value_and_grad.
  Mode mode = Mode::call;
  /// What "one op" is, for the reader of the table ("call", "chain of 10", "grad", ...).
  std::string unit = "call";
  /// The einsum subscripts (Op::einsum only); both sides pass the same string.
  std::string subscripts = {};
  /// How the values of inputs[0] are made (raw for every case but the linear-algebra ones).
  InputKind a_kind = InputKind::raw;
  /// Size sweeps only (sweep_cases): the series this point belongs to ("add_f32") and its size
  /// (the x axis of the plot: elements, matrix order, batch or bond dimension).
  std::string series = {};
  std::int64_t size = 0;

  bool differentiated() const { return mode != Mode::call; }
};

/// Every case of the table, in the order they are run and printed. Each grad case is followed by
/// its value_and_grad twin ("grad_X" then "value_and_grad_X").
const std::vector<CaseSpec>& all_cases();

/// The points of the size sweeps (`tenferro-bench --sweep`, sweep.cpp), series by series, sizes
/// ascending.
const std::vector<CaseSpec>& sweep_cases();

/// Deterministic input data (the LCG of the tenferro-benchmark suite: values in [-1, 1)),
/// `numel` values for input number `index` of a case. The same on every machine and both sides.
std::vector<double> input_values(std::int64_t numel, std::uint64_t seed);

/// The values (row-major) of input number `index` of `c`, from which BOTH sides make that input:
/// input_values(numel, index + 1), except that inputs[0] of a case with a_kind != raw is the
/// matrix of that kind made from the same LCG state (see InputKind).
std::vector<double> case_input_values(const CaseSpec& c, std::size_t index);

/// The result of a call as the two sides compare it: `flat` holds every output of the call,
/// flattened and concatenated in the op's output order (a complex tensor as interleaved real and
/// imaginary parts; lu_factor's pivots 0-based on both sides). svd / eigh vectors and the rows of
/// qr's R are defined up to a sign that correct implementations may choose differently; this fixes
/// it (svd: each column of U, and the matching row of Vh, has a non-negative sum; eigh: each
/// eigenvector has a non-negative sum; qr: R's diagonal is non-negative, flipping the matching
/// column of Q). Other ops are left as they are, as is a `flat` of an unexpected size.
void canonicalize_result(const CaseSpec& c, std::vector<double>& flat);

std::int64_t numel(const Shape& s);
std::string_view dtype_name(Dt d);
/// "16x2x2 @ 16x2x2" style summary of a case's inputs.
std::string describe_inputs(const CaseSpec& c);

/// The variants, in column order. Not every variant applies to every case: libtorch_path (the
/// einsum twin given tenferro's contraction path) exists for einsum cases only; "libtorch" there
/// is torch::einsum's default order.
inline constexpr std::string_view kVariants[] = {
    "eager",    "eager_scope",  "session", "trace_prepared", "trace_prepared_scope",
    "libtorch", "libtorch_path"};

}  // namespace bench
