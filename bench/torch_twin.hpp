// The libtorch twin of every case: the same problem (spec.hpp) run through libtorch in the same
// process run, so that our/libtorch ratios compare like with like on one machine state.
//
// All libtorch code lives in torch_twin.cpp (slow to compile); without libtorch the build uses
// torch_twin_none.cpp instead and every twin row is reported as unavailable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "spec.hpp"

namespace bench::torch_twin {

/// libtorch's version ("1.13.1"), or "" when built without libtorch.
std::string version();

/// Sets libtorch's intra-op threads (at::set_num_threads) and inter-op threads (1). Call once per
/// process, before make(). Returns a description of what was set (for the run header).
std::string configure_threads(int threads);

/// A set-up, ready-to-time twin of `c` (keeping a batch's outputs or dropping each, see
/// harness.hpp), or nullptr with `why_not` filled in. `einsum_path` (einsum cases only; empty:
/// torch's default order) is torch::einsum's path argument: pairs of positions in the operand
/// list, each pair's result appended at its end (opt_einsum's convention).
std::unique_ptr<Workload> make(const CaseSpec& c, bool retain_outputs,
                               const std::vector<std::int64_t>& einsum_path, std::string* why_not);

/// The twin's result for `c`, flattened to doubles (value_and_grad: the value, then all gradients
/// in input order), to cross-check tenferro's; empty when there is no twin.
std::vector<double> reference(const CaseSpec& c);

}  // namespace bench::torch_twin
