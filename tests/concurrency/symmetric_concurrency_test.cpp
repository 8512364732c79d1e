// Symmetric tensors from several threads (label: concurrency, so it runs under TSan): one
// BlockProgram whose kept plan (BlockProgram::run) is shared and replaced by threads alternating
// two runtimes, and eager block contractions that each fill their thread's fused-leg cache
// (Note [Fused leg cache]).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tenferro/ops.hpp"
#include "tenferro/symmetric.hpp"

using namespace tenferro;
using namespace tenferro::symmetric;

namespace {

double max_diff(const BlockTensor& a, const Tensor& want) {
  return cast(max(abs(sub(a.to_dense(), want))), DType::f64).item<double>();
}

}  // namespace

TEST(SymmetricConcurrency, OneBlockProgramAndEagerContractionsFromFourThreads) {
  const Group u1 = Group::u1();
  const Leg a(u1, {{{0}, 2}, {{1}, 3}, {{-1}, 2}});
  const Leg p(u1, {{{1}, 1}, {{-1}, 1}});
  const BlockFn f = [](std::span<const BlockTensor> in) -> std::vector<BlockTensor> {
    return {tensordot(in[0], in[1], {1, 2}, {0, 1})};
  };
  std::vector<std::vector<BlockTensor>> inputs;
  std::vector<Tensor> want;
  for (int i = 0; i < 8; ++i) {
    inputs.push_back(
        {BlockTensor::randn({a, p, a.dual()}, static_cast<std::uint64_t>(2 * i)),
         BlockTensor::randn({p.dual(), a, a.dual()}, static_cast<std::uint64_t>(2 * i + 1))});
    want.push_back(f(inputs.back())[0].to_dense());
  }
  const BlockProgram prog = trace_blocks(f, inputs[0]);
  Runtime r1, r2;
  constexpr int kThreads = 4, kRuns = 16;
  std::atomic<int> wrong{0}, errors{0}, ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      try {
        for (int r = 0; r < kRuns; ++r) {
          const std::size_t k = static_cast<std::size_t>((t + r) % 8);
          Runtime& rt = (t + r) % 2 ? r1 : r2;
          if (max_diff(prog.run(rt, inputs[k])[0], want[k]) > 1e-12) wrong.fetch_add(1);
          if (max_diff(f(inputs[k])[0], want[k]) > 1e-12) wrong.fetch_add(1);
        }
      } catch (...) {
        errors.fetch_add(1);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}
