// The libtorch twin of every case: the same problem (spec.hpp) run through libtorch in the same
// process run, so that our/libtorch ratios compare like with like on one machine state.
//
// All libtorch code lives in torch_twin.cpp (slow to compile); without libtorch the build uses
// torch_twin_none.cpp instead and every twin row is reported as unavailable.
#pragma once

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

/// A set-up, ready-to-time twin of `c`, or nullptr with `why_not` filled in.
std::unique_ptr<Workload> make(const CaseSpec& c, std::string* why_not);

/// The twin's result for `c`, flattened to doubles (all gradients concatenated, in input order),
/// to cross-check tenferro's; empty when there is no twin.
std::vector<double> reference(const CaseSpec& c);

}  // namespace bench::torch_twin
