// The backend matrix the execution-scope contract runs on: thread budgets 1 and 4, native and
// blas kinds (test names "1T_native", "4T_blas", ...).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "tenferro/cpu.hpp"

namespace tenferro::testing {

class BudgetKindTest : public ::testing::TestWithParam<std::tuple<int, BackendKind>> {
 protected:
  int threads() const { return std::get<0>(GetParam()); }
  BackendKind kind() const { return std::get<1>(GetParam()); }
  /// A new backend (a new witness) with this parameter's budget and kind.
  CpuBackend make() const {
    CpuBackendOptions o;
    o.threads = threads();
    o.kind = kind();
    return CpuBackend(o);
  }
};

inline auto budgets_and_kinds() {
  return ::testing::Combine(::testing::Values(1, 4),
                            ::testing::Values(BackendKind::native, BackendKind::blas));
}

inline std::string budget_kind_name(
    const ::testing::TestParamInfo<std::tuple<int, BackendKind>>& info) {
  return std::to_string(std::get<0>(info.param)) + "T_" +
         std::string(to_string(std::get<1>(info.param)));
}

}  // namespace tenferro::testing
