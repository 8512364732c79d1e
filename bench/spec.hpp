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
  sum,             // sum(a) over all elements
  einsum,          // einsum(CaseSpec::subscripts, inputs...) (any number of operands)
};

enum class Dt : std::uint8_t { f32, f64 };

using Shape = std::vector<std::int64_t>;

struct CaseSpec {
  std::string name;
  Op op;
  Dt dtype;
  std::vector<Shape> inputs;
  /// When true, one call = forward + reverse pass: the gradients of the scalar op result with
  /// respect to every input (all returned, none accumulated into leaves).
  bool grad = false;
  /// What "one op" is, for the reader of the table.
  std::string unit = "call";
  /// The einsum subscripts (Op::einsum only); both sides pass the same string.
  std::string subscripts = {};
};

/// Every case, in the order they are run and printed.
const std::vector<CaseSpec>& all_cases();

/// Deterministic input data (the LCG of the tenferro-benchmark suite: values in [-1, 1)),
/// `numel` values for input number `index` of a case. The same on every machine and both sides.
std::vector<double> input_values(std::int64_t numel, std::uint64_t seed);

std::int64_t numel(const Shape& s);
std::string_view dtype_name(Dt d);
/// "16x2x2 @ 16x2x2" style summary of a case's inputs.
std::string describe_inputs(const CaseSpec& c);

/// The variants, in column order. Not every variant applies to every case.
inline constexpr std::string_view kVariants[] = {
    "eager", "eager_scope", "session", "trace_prepared", "trace_prepared_scope", "libtorch"};

}  // namespace bench
