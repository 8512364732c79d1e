// The tenferro side of the cases: every variant (eager, eager_scope, session, trace_prepared,
// trace_prepared_scope) of a case, derived from ONE forward function per Op (ours.cpp).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harness.hpp"
#include "report.hpp"
#include "spec.hpp"

namespace bench::ours {

/// Measures every tenferro variant of `c` that `want` accepts, on a fresh backend with `threads`
/// threads, and calls `emit` with one row per variant. Each variant's result (one untimed call)
/// is compared with `reference` (libtorch's, flattened; empty = no check) into Row::check (status
/// "unsupported" with the reason when the API a variant needs has not landed, "error" with the
/// message when it threw).
void run_case(const CaseSpec& c, int threads, const TimingPolicy& policy,
              const std::vector<double>& reference,
              const std::function<bool(std::string_view)>& want,
              const std::function<void(const Row&)>& emit);

/// A line for the run header: what the tenferro side supports in this build.
std::string describe_build();

}  // namespace bench::ours
