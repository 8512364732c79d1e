// Note [Cheap tape]: recording a node allocates nothing beyond what the plain op allocates (after
// the per-thread pools are warm). Counts heap allocations with a replaced global operator new
// (this executable only; tests read the calling thread's count).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <vector>

#include "common/counting_new.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;

namespace {
template <class F>
long allocations_of(F&& f) {
  const long before = counting_new::count_on_this_thread();
  f();
  return counting_new::count_on_this_thread() - before;
}
}  // namespace

TEST(AutodiffAlloc, RecordingAddsNoAllocationToTheOps) {
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  BackendGuard use(cpu);
  Tensor a = randn({16, 2, 2}, 1), b = randn({16, 2, 2}, 2);
  Tensor ga = detach(a), gb = detach(b);
  ga.requires_grad_();
  gb.requires_grad_();
  auto plain = [&] { Tensor l = sum(bmm(a, b)); };
  auto recorded = [&] { Tensor l = sum(bmm(ga, gb)); };
  for (int i = 0; i < 10; ++i) recorded(), plain();  // warm the pools
  // The counter works (the plain ops themselves may allocate nothing once the engine's buffer
  // pool and eager cache are warm).
  EXPECT_EQ(allocations_of([] {
              int* volatile q = new int(1);
              delete q;
            }),
            1);
  const long p = allocations_of(plain), r = allocations_of(recorded);
  EXPECT_EQ(r, p) << "recording two nodes allocated " << (r - p) << " extra blocks";
}

// sum(x * y) backward, twice without zero_grad: the second pass adds into the leaves' gradients
// in place (their storage is uniquely owned), so it allocates exactly what the first pass does.
// The warm-up runs the same two-pass sequence, so the buffer pool has seen the peak number of
// live buffers (two grads, two losses, the saved product, two new cotangents) before counting.
TEST(AutodiffAlloc, BackwardAllocatesOnlyOpOutputs) {
  Tensor x = randn({8}, 3), y = randn({8}, 4);
  x.requires_grad_();
  y.requires_grad_();
  long n = 0, m = 0;
  const void* x_grad_data = nullptr;
  for (int i = 0; i < 10; ++i) {
    zero_grad(x);
    zero_grad(y);
    Tensor loss = sum(x * y);
    n = allocations_of([&] { backward(loss); });
    x_grad_data = x.grad().data_ptr();
    Tensor loss2 = sum(x * y);
    m = allocations_of([&] { backward(loss2); });
  }
  std::printf("backward allocations: first %ld, accumulating %ld\n", n, m);
  // Seed (ones: header + data); the products and the broadcast view come from the warm pool.
  EXPECT_LE(n, 6) << "three op outputs (seed, two products), two blocks each (header, data)";
  EXPECT_EQ(m, n) << "in-place accumulation into uniquely owned grads allocates nothing more";
  EXPECT_EQ(x.grad().data_ptr(), x_grad_data) << "the second pass did not accumulate in place";
  std::vector<double> g = x.grad().to_vector<double>(), yv = y.to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_DOUBLE_EQ(g[i], 2 * yv[i]) << i;
}

TEST(AutodiffAlloc, AGradientTheCallerHoldsIsNeverModified) {
  // The caller keeps a reference to x.grad(): accumulation must not write into it.
  Tensor x = randn({8}, 5), y = randn({8}, 6);
  x.requires_grad_();
  backward(sum(x * y));
  const Tensor held = x.grad();
  const std::vector<double> before = held.to_vector<double>();
  backward(sum(x * y));
  EXPECT_EQ(held.to_vector<double>(), before);
  EXPECT_NE(x.grad().data_ptr(), held.data_ptr());
  std::vector<double> g = x.grad().to_vector<double>(), yv = y.to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_DOUBLE_EQ(g[i], 2 * yv[i]) << i;
}

// ScalarFn owns its callable (include/tenferro/autodiff.hpp): up to four pointers of captures
// live inside it, larger callables take one heap block, moving never allocates.
TEST(AutodiffAlloc, ScalarFnKeepsSmallCallablesInline) {
  Tensor a = randn({3}, 7), b = randn({3}, 8);
  double s = 2.0;
  int calls = 0;
  const long small = allocations_of([&] {
    ScalarFn f = [&a, &b, &s, &calls](std::span<const Tensor>) {
      ++calls;
      return mul(sum(mul(a, b)), s);
    };
    ScalarFn g = std::move(f);
    (void)g;
  });
  EXPECT_EQ(small, 0) << "a lambda capturing four references must not allocate";
  const long large = allocations_of([&] {
    std::array<double, 8> big{};
    ScalarFn f = [big, &a](std::span<const Tensor>) { return mul(sum(a), big[0]); };
    ScalarFn g = std::move(f);
    (void)g;
  });
  EXPECT_EQ(large, 1) << "a 72-byte lambda takes exactly one heap block";
}
