// TEMPORARY STAND-IN, replaced by the CPU runtime branch (issue 3) on merge.
#pragma once
#include <cstdint>

#include "tenferro/cpu.hpp"
#include "tenferro/storage.hpp"

namespace tenferro::detail {
class ExecContext {
 public:
  explicit ExecContext(const CpuBackend& b) : b_(b) {}
  int threads() const { return b_.threads(); }
  BackendKind kind() const { return b_.kind(); }
  Storage* allocate(std::size_t bytes) { return heap_storage(bytes); }
  bool may_parallelize(std::int64_t) const { return false; }
  template <class F>
  void parallel_for(std::int64_t n, std::int64_t, F&& body) {
    if (n > 0) body(std::int64_t{0}, n);
  }

 private:
  const CpuBackend& b_;
};
template <class F>
decltype(auto) run_operation(const CpuBackend& backend, F&& body) {
  ExecContext ctx(backend);
  return body(ctx);
}
}  // namespace tenferro::detail
