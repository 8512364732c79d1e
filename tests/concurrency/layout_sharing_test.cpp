// Layout records and the per-thread free lists across threads (label: concurrency; runs under
// TSan and ASan+LSan in the gate). A record is shared by reference count like a storage (Note
// [Layout record]) and freed records go to the freeing thread's list (Note [Tape pool]): a thread
// that only ever drops tensors others made must still free its list at exit (LSan would report
// the blocks), and records copied and dropped from several threads at once must stay valid.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;

TEST(LayoutSharing, AThreadThatOnlyDropsTensorsFreesItsListAtExit) {
  std::vector<Tensor> made;
  for (int i = 0; i < 200; ++i) made.push_back(randn({2, 3}, static_cast<std::uint64_t>(i)));
  std::vector<Tensor> views;
  for (const Tensor& t : made) views.push_back(t.transpose());  // records of their own
  std::thread consumer([moved = std::move(views)]() mutable { moved.clear(); });
  consumer.join();
  // The records the consumer freed were its own to keep; the originals are intact.
  for (std::size_t i = 0; i < made.size(); ++i) EXPECT_EQ(made[i].shape(), (Dims{2, 3})) << i;
}

TEST(LayoutSharing, RecordsMadeOnOneThreadOutliveIt) {
  std::vector<Tensor> back;
  std::thread producer([&] {
    CpuBackend cpu(CpuBackendOptions{.threads = 1});
    BackendGuard use(cpu);
    Tensor a = randn({3, 4}, 7);
    for (int i = 0; i < 50; ++i) back.push_back(a * static_cast<double>(i));
  });
  producer.join();
  // The backend and its eager cache are gone; the records its results carry are not.
  for (const Tensor& t : back) EXPECT_EQ(t.shape(), (Dims{3, 4}));
  EXPECT_TRUE(allclose(back[3], back[1] * 3.0));
}

TEST(LayoutSharing, FourThreadsCopyAndDropOneRecord) {
  const Tensor shared = randn({4, 4}, 11).transpose();
  std::vector<std::thread> threads;
  std::vector<double> sums(4, 0.0);
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      CpuBackend cpu(CpuBackendOptions{.threads = 1});
      BackendGuard use(cpu);
      for (int i = 0; i < 200; ++i) {
        Tensor copy = shared;  // bumps the record's and the storage's counts
        Tensor g = grad([](std::span<const Tensor> x) { return sum(x[0] * x[0]); }, {copy})[0];
        if (i == 199) sums[static_cast<std::size_t>(k)] = sum(g).item<double>();
      }
    });
  for (auto& t : threads) t.join();
  const double expected = (2.0 * sum(shared)).item<double>();
  for (double s : sums) EXPECT_NEAR(s, expected, 1e-12 * (1 + std::abs(expected)));
  EXPECT_EQ(shared.shape(), (Dims{4, 4}));
  EXPECT_EQ(shared.strides(), (Dims{1, 4}));
}
