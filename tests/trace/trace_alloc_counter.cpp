// Counts allocations per thread (for "run allocates only its outputs" tests) with the shared
// counting operator new of tests/common. Counting only: allocation itself is unchanged.
#include "common/counting_new.hpp"
#include "common/trace_helpers.hpp"

namespace trace_test {
std::uint64_t allocations_on_this_thread() {
  return static_cast<std::uint64_t>(counting_new::count_on_this_thread());
}
}  // namespace trace_test
