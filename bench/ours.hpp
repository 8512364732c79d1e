// The tenferro side of the cases: every variant (eager, eager_scope, session, trace_prepared,
// trace_prepared_scope) of a case, derived from ONE forward function per Op (ours.cpp).
#pragma once

#include <cstdint>
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
/// "unsupported" with the reason when tenferro threw Unsupported, "error" with the message when
/// it threw anything else).
void run_case(const CaseSpec& c, int threads, const TimingPolicy& policy,
              const std::vector<double>& reference,
              const std::function<bool(std::string_view)>& want,
              const std::function<void(const Row&)>& emit);

/// The contraction path tenferro's einsum takes for einsum case `c`, in torch::einsum's format
/// (torch_twin.hpp), so that the libtorch_path twin executes the same pairwise contractions.
std::vector<std::int64_t> torch_einsum_path(const CaseSpec& c);

}  // namespace bench::ours
