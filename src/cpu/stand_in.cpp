// TEMPORARY STAND-IN, replaced by the CPU runtime branch (issue 3) on merge.
#include "tenferro/cpu.hpp"
namespace tenferro {
const CpuBackend& default_backend() {
  static const CpuBackend b;
  return b;
}
}  // namespace tenferro
