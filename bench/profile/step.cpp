// Instruction-count profiling driver (scripts/profile-step): runs one call kind `iters` times
// inside one execution scope on a 1-thread backend. callgrind's instruction counts do not depend
// on machine load, so (count(iters) - count(0)) / iters is a stable per-call cost.
//
//   bmm   16x2x2 f64 batched matmul
//   grad  forward + backward of sum(bmm(a, b)) w.r.t. a and b (functional grad)
//   sumsq forward + backward of sum(x * x), x of shape [3]
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tenferro/tenferro.hpp"

using namespace tenferro;

int main(int argc, char** argv) {
  const std::string_view kind = argc > 1 ? argv[1] : "grad";
  const int iters = argc > 2 ? std::atoi(argv[2]) : 1000;
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  BackendGuard use(cpu);
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2), x = randn({3}, 3);
  auto loss_bmm = [](std::span<const Tensor> in) { return sum(bmm(in[0], in[1])); };
  auto loss_sq = [](std::span<const Tensor> in) { return sum(in[0] * in[0]); };
  std::size_t sink = 0;
  cpu.with_execution_scope([&] {
    for (int i = 0; i < iters; ++i) {
      if (kind == "bmm") {
        sink += static_cast<std::size_t>(bmm(a, b).numel());
      } else if (kind == "grad") {
        sink += grad(loss_bmm, {a, b}).size();
      } else if (kind == "sumsq") {
        sink += grad(loss_sq, {x}).size();
      } else {
        std::fprintf(stderr, "unknown kind %.*s (bmm|grad|sumsq)\n", int(kind.size()), kind.data());
        std::exit(2);
      }
    }
  });
  std::printf("%zu\n", sink);
}
