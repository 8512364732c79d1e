// The generic "traced vs eager" suite for one op-table row (STYLE.md point 7): the row's function
// traced into a program must agree with eager evaluation, and its traced grad/vjp/jvp programs
// with eager autodiff, both interpreted and prepared/replayed on runtimes with 1 and 4 threads.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/trace_helpers.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace trace_test {

using RowFn = std::function<std::vector<tenferro::Tensor>(std::span<const tenferro::Tensor>)>;

inline double row_rtol(tenferro::DType d) {
  return tenferro::is_double_precision(d) ? 1e-10 : 2e-4;
}

inline std::vector<tenferro::Tensor> concat(std::vector<tenferro::Tensor> a,
                                            const std::vector<tenferro::Tensor>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Interprets p on `args` and replays it prepared on 1- and 4-thread runtimes; every result must
/// be near `want`.
inline void expect_program(const tenferro::Program& p, const std::vector<tenferro::Tensor>& args,
                           const std::vector<tenferro::Tensor>& want, const std::string& what) {
  using namespace tenferro;
  std::vector<Tensor> got = p(args);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (int threads : {1, 4}) {
    Runtime rt(CpuBackend(CpuBackendOptions{.threads = threads}));
    PreparedProgram plan = rt.prepare(p);
    std::vector<Tensor> ran = rt.run(plan, args);
    for (std::size_t k = 0; k < want.size(); ++k) {
      double tol = row_rtol(want[k].dtype());
      EXPECT_TRUE(near(got[k], want[k], tol, tol)) << what << " interpreted, output " << k;
      EXPECT_TRUE(near(ran[k], want[k], tol, tol))
          << what << " prepared (" << threads << " threads), output " << k;
    }
  }
}

/// Checks primal, vjp, jvp and (for real outputs) grad programs of f at `inputs`.
inline void check_traced_row(const std::string& name, const RowFn& f,
                             const std::vector<tenferro::Tensor>& inputs, bool differentiable) {
  using namespace tenferro;
  SCOPED_TRACE(name);
  std::vector<ValueSpec> specs;
  for (const Tensor& x : inputs) specs.push_back({x.shape(), x.dtype()});
  Program p = trace(f, specs);
  std::vector<Tensor> eager = f(inputs);
  expect_program(p, inputs, eager, name + " primal");
  if (!differentiable) return;

  std::vector<Tensor> cts, tangents;
  for (std::size_t k = 0; k < eager.size(); ++k)
    cts.push_back(randn(eager[k].shape(), 100 + k, eager[k].dtype()));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    tangents.push_back(randn(inputs[i].shape(), 200 + i, inputs[i].dtype()));

  VjpResult r = tenferro::vjp(MultiFn(f), inputs);
  expect_program(vjp(p), concat(inputs, cts), r.pullback(cts), name + " vjp");

  JvpResult j = tenferro::jvp(MultiFn(f), inputs, tangents);
  expect_program(jvp(p), concat(inputs, tangents), concat(j.outputs, j.tangents), name + " jvp");

  bool real = true;
  for (const Tensor& e : eager) real = real && !is_complex(e.dtype());
  if (!real) return;
  // A scalar loss with closed-over weights (they become program constants).
  std::vector<Tensor> weights;
  for (std::size_t k = 0; k < eager.size(); ++k)
    weights.push_back(randn(eager[k].shape(), 300 + k, eager[k].dtype()));
  auto loss = [&](std::span<const Tensor> xs) {
    std::vector<Tensor> out = f(xs);
    Tensor l = sum(mul(out[0], weights[0]));
    for (std::size_t k = 1; k < out.size(); ++k) l = add(l, sum(mul(out[k], weights[k])));
    return l;
  };
  std::vector<Tensor> want = tenferro::grad(loss, inputs);
  expect_program(grad(trace(loss, specs)), inputs, want, name + " grad");
}

}  // namespace trace_test
