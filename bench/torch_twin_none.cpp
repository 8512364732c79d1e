// Built instead of torch_twin.cpp when CMake finds no libtorch: every twin row is "n/a".
#include "torch_twin.hpp"

namespace bench::torch_twin {

std::string version() { return ""; }

std::string configure_threads(int) { return "libtorch not built in"; }

std::unique_ptr<Workload> make(const CaseSpec&, bool, const std::vector<std::int64_t>&,
                               std::string* why_not) {
  if (why_not) *why_not = "built without libtorch (find_package(Torch) failed)";
  return nullptr;
}

std::vector<double> reference(const CaseSpec&) { return {}; }

}  // namespace bench::torch_twin
