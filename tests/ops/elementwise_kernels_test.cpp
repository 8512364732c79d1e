// Whitebox: the general loop path covers any flat sub-range exactly once, so any chunking a
// parallel_for picks gives the same result (Note [Elementwise loop paths]).
#include <gtest/gtest.h>

#include <vector>

#include "cpu/kernels/elementwise.hpp"

namespace tenferro::detail::kernels {
namespace {

// Offsets (per operand) of every flat output position of [begin, end), in order.
template <std::size_t N>
std::vector<std::array<std::int64_t, N>> visit(const StridedLoop<N>& loop, std::int64_t begin,
                                               std::int64_t end) {
  std::vector<std::array<std::int64_t, N>> out;
  loop.for_each_run(begin, end, [&](const std::array<std::int64_t, N>& off, std::int64_t cnt) {
    for (std::int64_t i = 0; i < cnt; ++i) {
      std::array<std::int64_t, N> o = off;
      for (std::size_t k = 0; k < N; ++k) o[k] += i * loop.inner_stride(k);
      out.push_back(o);
    }
  });
  return out;
}

TEST(ElementwiseKernels, RunsMatchIndexArithmeticForEveryChunking) {
  // out [3, 4, 5] row-major; a [4, 1] broadcast (stride 0 on dims 0 and 2); b transposed.
  const Dims shape{3, 4, 5}, out_strides{20, 5, 1};
  const Dims a_shape{4, 1}, a_strides{1, 1};
  const Dims b_shape{3, 4, 5}, b_strides{1, 3, 12};
  StridedLoop<3> loop(shape, {shape, a_shape, b_shape}, {out_strides, a_strides, b_strides});
  std::vector<std::array<std::int64_t, 3>> want;
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j)
      for (std::int64_t k = 0; k < 5; ++k)
        want.push_back({i * 20 + j * 5 + k, j, i + 3 * j + 12 * k});
  EXPECT_EQ(visit(loop, 0, 60), want);
  for (std::int64_t cut1 = 0; cut1 <= 60; cut1 += 7)
    for (std::int64_t cut2 = cut1; cut2 <= 60; cut2 += 11) {
      auto got = visit(loop, 0, cut1), mid = visit(loop, cut1, cut2), tail = visit(loop, cut2, 60);
      got.insert(got.end(), mid.begin(), mid.end());
      got.insert(got.end(), tail.begin(), tail.end());
      EXPECT_EQ(got, want) << "cuts " << cut1 << ", " << cut2;
    }
}

TEST(ElementwiseKernels, CollapsesContiguousAndDropsUnitDims) {
  const Dims shape{2, 1, 3, 4}, strides{12, 12, 4, 1};
  StridedLoop<2> loop(shape, {shape, shape}, {strides, strides});
  EXPECT_EQ(loop.shape, (Dims{24}));
  const Dims rank0{};
  StridedLoop<2> scalar(rank0, {rank0, rank0}, {rank0, rank0});
  EXPECT_EQ(scalar.shape, (Dims{1}));
}

}  // namespace
}  // namespace tenferro::detail::kernels
