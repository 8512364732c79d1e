// The issue-level promise for every op: eager, traced + prepared, and inside an execution scope
// give the same bits, at thread budgets 1 and 4.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <span>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {

/// Every value of t in row-major order, converted to complex double (any dtype, any view): the one
/// form the reference loops of the op suites compare against.
inline std::vector<std::complex<double>> c128_values(const Tensor& t) {
  return cast(t, DType::c128).contiguous().to_vector<std::complex<double>>();
}

/// Same dtype, same shape and the same bytes (views compared through contiguous copies).
inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  return std::memcmp(ac.data_ptr(), bc.data_ptr(),
                     static_cast<std::size_t>(a.numel()) * dtype_size(a.dtype())) == 0;
}

/// Traces f at `specs`, then for budgets 1 and 4 compares, bitwise (dtype, shape, bytes), f run
/// eagerly on that backend, the prepared program run on a Runtime over it, and f inside
/// with_execution_scope (called three times: the later calls hit the eager cache) against f run
/// eagerly on the default backend. `after_eager(backend, threads)` runs right after the eager call
/// (e.g. to check the backend's diagnostics). Returns the reference outputs.
template <class F, class AfterEager = void (*)(const CpuBackend&, int)>
std::vector<Tensor> expect_eager_prepared_scoped_bitwise(
    F f, std::vector<ValueSpec> specs, std::span<const Tensor> in,
    AfterEager after_eager = [](const CpuBackend&, int) {}) {
  Program p = trace(f, specs);
  const std::vector<Tensor> ref = f(in);
  for (int threads : {1, 4}) {
    CpuBackend b(CpuBackendOptions{.threads = threads});
    Runtime rt(b);
    PreparedProgram plan = rt.prepare(p);
    std::vector<Tensor> eager, prepared, scoped;
    {
      BackendGuard use(b);
      eager = f(in);
    }
    after_eager(static_cast<const CpuBackend&>(b), threads);
    prepared = rt.run(plan, in);
    b.with_execution_scope([&] {
      BackendGuard use(b);
      scoped = f(in);
      (void)f(in);
      scoped = f(in);
    });
    EXPECT_EQ(eager.size(), ref.size());
    EXPECT_EQ(prepared.size(), ref.size());
    EXPECT_EQ(scoped.size(), ref.size());
    for (std::size_t o = 0; o < ref.size(); ++o)
      for (const std::vector<Tensor>* got : {&eager, &prepared, &scoped}) {
        if (o >= got->size()) continue;
        const Tensor& g = (*got)[o];
        const char* which = got == &eager ? "eager" : got == &prepared ? "prepared" : "scoped";
        if (g.dtype() != ref[o].dtype() || g.shape() != ref[o].shape()) {
          ADD_FAILURE() << which << " output " << o << " threads " << threads << ": "
                        << dtype_name(g.dtype()) << " " << dims_to_string(g.shape()) << ", want "
                        << dtype_name(ref[o].dtype()) << " " << dims_to_string(ref[o].shape());
          continue;
        }
        EXPECT_TRUE(same_bits(g, ref[o])) << which << " output " << o << " threads " << threads;
      }
  }
  return ref;
}

}  // namespace tenferro::testing
