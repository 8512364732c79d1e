// Autodiff levels across threads (Note [Autodiff levels] in src/core/tensor_aux.hpp): each
// thread nests its own transforms (the depth counter is per thread, the level identities are
// shared objects), and an op that mixes two threads' transforms at the same depth is refused
// instead of confusing their derivatives. Run under ThreadSanitizer by `make test`.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;

namespace {

double scalar(const Tensor& t) { return contiguous(t).data<double>()[0]; }
Tensor num(double v) { return full({1}, v, DType::f64); }

Tensor cube_sum(std::span<const Tensor> x) { return sum(x[0] * x[0] * x[0]); }

}  // namespace

TEST(AutodiffLevelsThreads, EachThreadNestsItsOwnTransforms) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &wrong] {
      const double x = 0.5 + t;
      for (int i = 0; i < 20; ++i) {
        auto d1 = [](std::span<const Tensor> v) { return sum(grad(&cube_sum, v)[0]); };
        auto d2 = [&](std::span<const Tensor> v) { return sum(grad(d1, v)[0]); };
        const double third = scalar(grad(d2, {num(x)})[0]);  // 6
        auto df = [](std::span<const Tensor> v) {
          return jvp([](std::span<const Tensor> y) { return sin(y[0]); }, {v[0]}, {num(1)})
              .tangents[0];
        };
        const double fwd2 = scalar(jvp(df, {num(x)}, {num(1)}).tangents[0]);  // -sin x
        if (third != 6.0 || std::abs(fwd2 + std::sin(x)) > 1e-15) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(AutodiffLevelsThreads, TwoThreadsTransformsAtOneDepthAreNotConfused) {
  // Thread A runs jvp (depth 1 on A) and hands its dual out while the jvp is live; the main
  // thread, inside its own jvp (depth 1 on main), adds it to its dual: refused.
  std::mutex mu;
  std::condition_variable cv;
  Tensor shared;
  bool published = false, done = false;
  std::thread a([&] {
    jvp(
        [&](std::span<const Tensor> v) {
          std::unique_lock lock(mu);
          shared = v[0];
          published = true;
          cv.notify_all();
          cv.wait(lock, [&] { return done; });
          return v[0] * 2.0;
        },
        {num(1)}, {num(1)});
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return published; });
  }
  try {
    jvp([&](std::span<const Tensor> v) { return v[0] + shared; }, {num(2)}, {num(1)});
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("two different transforms"), std::string::npos)
        << e.what();
  }
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_all();
  a.join();
  // After A's jvp returned its layer is inert: the dual is a plain value again.
  const JvpResult r =
      jvp([&](std::span<const Tensor> v) { return v[0] + shared; }, {num(2)}, {num(1)});
  EXPECT_DOUBLE_EQ(scalar(r.outputs[0]), 3.0);
  EXPECT_DOUBLE_EQ(scalar(r.tangents[0]), 1.0);
}
