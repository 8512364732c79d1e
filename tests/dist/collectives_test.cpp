// dist::Environment, dist::Comm and the collectives, on 1, 2 and 3 ranks (CTest dist.ranksN).
#include <cmath>
#include <optional>
#include <thread>

#include "dist/dist_test.hpp"

namespace tenferro {
namespace {

using testing::expect_error;
using testing::expect_same_error_everywhere;
using testing::world;

// Rank r's tensor: whole numbers (exact sums in every dtype), different on every rank.
Tensor rank_values(int r, DType dtype, Dims shape = {2, 3}) {
  const Tensor base = add(remainder(add(arange(6), double(3 * r)), 5.0), double(-r));
  const Tensor values = dtype == DType::boolean ? gt(base, 0.0) : cast(base, dtype);
  return values.reshape(shape);
}

Tensor reference(dist::ReduceOp op, DType dtype) {
  Tensor acc = rank_values(0, dtype);
  for (int r = 1; r < world().size(); ++r) {
    const Tensor x = rank_values(r, dtype);
    acc = op == dist::ReduceOp::sum   ? add(acc, x)
          : op == dist::ReduceOp::max ? maximum(acc, x)
                                      : minimum(acc, x);
  }
  return acc;
}

bool equal(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && all(eq(a, b)).item<bool>();
}

TEST(Environment, ANestedEnvironmentNeitherStartsNorStopsMpi) {
  dist::Environment again;
  EXPECT_FALSE(again.owns_mpi());
  EXPECT_GE(static_cast<int>(again.provided()), static_cast<int>(dist::ThreadLevel::funneled));
  EXPECT_TRUE(dist::Environment::active());
  EXPECT_EQ(dist::to_string(dist::ThreadLevel::serialized), "serialized");
}

TEST(Environment, ThreadLevelSingleIsRefusedBeforeMpiIsTouched) {
  expect_error(ErrorKind::InvalidArgument, [] { dist::Environment e(dist::ThreadLevel::single); },
               {"funneled"});
  EXPECT_TRUE(dist::Environment::active());
}

TEST(Comm, RankSizeAndDuplicate) {
  int r = -1, s = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  EXPECT_EQ(world().rank(), r);
  EXPECT_EQ(world().size(), s);
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(world().native(), MPI_COMM_WORLD, &cmp);
  EXPECT_EQ(cmp, MPI_CONGRUENT);  // a duplicate, not the world itself
  world().barrier();
}

TEST(Comm, MovedFromIsARuntimeStateError) {
  dist::Comm a;
  dist::Comm b = std::move(a);
  EXPECT_EQ(b.size(), world().size());
  expect_error(ErrorKind::RuntimeState, [&] { a.allreduce(ones({2})); }, {"moved from"});
  expect_error(ErrorKind::RuntimeState, [&] { a.barrier(); }, {"moved from"});
  EXPECT_TRUE(equal(b.allreduce(ones({2})), full({2}, double(world().size()))));
}

TEST(Comm, SplitGroupsRanksByColor) {
  const dist::Comm half = world().split(world().rank() % 2, world().rank());
  const int expected = (world().size() + (world().rank() % 2 == 0 ? 1 : 0)) / 2;
  EXPECT_EQ(half.size(), expected);
  EXPECT_EQ(half.rank(), world().rank() / 2);
  EXPECT_TRUE(equal(half.allreduce(ones({1})), full({1}, double(expected))));
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] { (void)world().split(world().rank() == world().size() - 1 ? -1 : 0); },
      {"dist::Comm::split: color is -1"}, "negative color on the last rank");
}

TEST(Allreduce, SumMaxMinOfEveryDtype) {
  for (DType dtype : all_dtypes)
    for (dist::ReduceOp op : {dist::ReduceOp::sum, dist::ReduceOp::max, dist::ReduceOp::min}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + std::string(dist::to_string(op)));
      const Tensor x = rank_values(world().rank(), dtype);
      const bool undefined = (op == dist::ReduceOp::sum && dtype == DType::boolean) ||
                             (op != dist::ReduceOp::sum && is_complex(dtype));
      if (undefined) {
        expect_same_error_everywhere(
            ErrorKind::DTypeMismatch, [&] { world().allreduce(x, op); }, {"dist::Comm::allreduce"},
            "undefined reduction");
        continue;
      }
      const Tensor r = world().allreduce(x, op);
      EXPECT_TRUE(r.is_contiguous());
      EXPECT_TRUE(equal(r, reference(op, dtype)));
      EXPECT_TRUE(testing::bitwise_same_on_every_rank(r));
    }
}

TEST(Allreduce, StridedInputsAndInPlace) {
  const Tensor x = rank_values(world().rank(), DType::f64, {3, 2}).transpose();  // strided
  ASSERT_FALSE(x.is_contiguous());
  const Tensor want = world().allreduce(x.contiguous());
  EXPECT_TRUE(equal(world().allreduce(x), want));
  Tensor y = x.contiguous();
  const auto version = y.storage()->current_version();
  world().allreduce_into(y);
  EXPECT_TRUE(equal(y, want));
  EXPECT_GT(y.storage()->current_version(), version);  // autodiff sees the write
  Tensor s = x;
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument, [&] { world().allreduce_into(s); }, {"not contiguous"},
      "allreduce_into of a strided view");
}

TEST(Allreduce, MaxAndMinPropagateNaN) {
  Tensor x = rank_values(world().rank(), DType::f32).contiguous();
  if (world().rank() == world().size() - 1) x.set<float>({0, 1}, std::nanf(""));
  const Tensor mx = world().allreduce(x, dist::ReduceOp::max);
  const Tensor mn = world().allreduce(x, dist::ReduceOp::min);
  EXPECT_TRUE(std::isnan(mx.at<float>({0, 1})));
  EXPECT_TRUE(std::isnan(mn.at<float>({0, 1})));
  EXPECT_FALSE(std::isnan(mx.at<float>({0, 0})));
}

TEST(Broadcast, FromEveryRootWithNothingOnTheOthers) {
  for (int root = 0; root < world().size(); ++root) {
    const Tensor mine = world().rank() == root
                            ? rank_values(root, DType::c128, {3, 2}).transpose()  // strided
                            : Tensor();
    const Tensor got = world().broadcast(mine, root);
    EXPECT_TRUE(equal(got, rank_values(root, DType::c128, {3, 2}).transpose().contiguous()));
    if (world().rank() == root) EXPECT_NE(got.data_ptr(), mine.data_ptr());  // a fresh tensor
  }
  const Tensor scalar =
      world().broadcast(world().rank() == 0 ? scalar_tensor(7, DType::i64) : Tensor(), 0);
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.item<std::int64_t>(), 7);
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument, [&] { world().broadcast(ones({2}), world().size()); },
      {"root is"}, "root out of range");
  if (world().size() > 1)
    expect_same_error_everywhere(
        ErrorKind::InvalidArgument,
        [&] { world().broadcast(ones({2}), world().rank() == 0 ? 0 : 1); },
        {"disagree on the root"}, "roots differ");
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument, [&] { world().broadcast(Tensor(), 0); },
      {"undefined", "[raised on rank 0"}, "undefined tensor at the root");
}

TEST(Allgather, StacksEveryRanksTensor) {
  for (DType dtype : {DType::boolean, DType::i32, DType::f32, DType::c64}) {
    const Tensor got = world().allgather(rank_values(world().rank(), dtype));
    ASSERT_EQ(got.shape(), (Dims{world().size(), 2, 3}));
    for (int r = 0; r < world().size(); ++r)
      EXPECT_TRUE(equal(slice(got, 0, r, r + 1).squeeze(0).contiguous(), rank_values(r, dtype)));
  }
}

TEST(ReduceScatter, SplitsAxisZeroLikeArraySplit) {
  const std::int64_t rows = 5;
  const Tensor x = add(arange(double(rows * 2)).reshape({rows, 2}), double(world().rank()));
  const Tensor got = world().reduce_scatter(x);
  const auto [first, last] =
      dist::owned_slices(SlicePlan{.slices = rows}, world().rank(), world().size());
  ASSERT_EQ(got.shape(), (Dims{last - first, 2}));
  const Tensor total = world().allreduce(x);
  EXPECT_TRUE(equal(got, slice(total, 0, first, last).contiguous()));
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument, [&] { world().reduce_scatter(scalar_tensor(1.0)); }, {"rank 0"},
      "reduce_scatter of a scalar");
}

TEST(Agreement, MismatchedCallsAreTheSameErrorOnEveryRank) {
  if (world().size() < 2) GTEST_SKIP() << "needs two ranks";
  const int r = world().rank();
  expect_same_error_everywhere(
      ErrorKind::ShapeMismatch, [&] { world().allreduce(ones({r == 1 ? 3 : 2})); },
      {"disagree on the tensor's shape", "rank 1 has shape [3]", "rank 0 has shape [2]"},
      "shapes differ");
  expect_same_error_everywhere(
      ErrorKind::DTypeMismatch,
      [&] { world().allgather(ones({2}, r == 1 ? DType::f32 : DType::f64)); },
      {"rank 1 has dtype f32", "rank 0 has dtype f64"}, "dtypes differ");
  expect_same_error_everywhere(
      ErrorKind::InvalidArgument,
      [&] { world().allreduce(ones({2}), r == 1 ? dist::ReduceOp::max : dist::ReduceOp::sum); },
      {"disagree on the reduction"}, "ops differ");
  expect_same_error_everywhere(
      ErrorKind::ShapeMismatch, [&] { world().allreduce(r == 1 ? Tensor() : ones({2})); },
      {"rank 1 has an undefined tensor"}, "undefined on one rank");
  Tensor w = ones({2});
  if (r == 1) w.requires_grad_();
  expect_same_error_everywhere(
      ErrorKind::Unsupported, [&] { world().allreduce(w); },
      {"requires grad", "[raised on rank 1 of"}, "requires grad");
  // The communicator is still usable afterwards.
  EXPECT_TRUE(equal(world().allreduce(ones({2})), full({2}, double(world().size()))));
}

TEST(Agreement, CanBeTurnedOffForMatchingCalls) {
  const dist::Comm fast(dist::CommOptions{.check_agreement = false});
  EXPECT_FALSE(fast.options().check_agreement);
  EXPECT_TRUE(equal(fast.allreduce(rank_values(fast.rank(), DType::i64)),
                    reference(dist::ReduceOp::sum, DType::i64)));
  // Local errors still throw (on every rank here, since every rank makes the same mistake).
  expect_error(ErrorKind::DTypeMismatch, [&] { fast.allreduce(ones({2}, DType::boolean)); });
}

TEST(Threads, AnotherThreadUnderFunneledIsRefused) {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level >= MPI_THREAD_SERIALIZED) GTEST_SKIP() << "MPI provides serialized or more";
  std::optional<ErrorKind> kind;
  std::thread t([&] {
    try {
      world().allreduce(ones({1}));
    } catch (const Error& e) {
      kind = e.kind();
    }
  });
  t.join();
  ASSERT_TRUE(kind.has_value());
  EXPECT_EQ(*kind, ErrorKind::RuntimeState);
  // Making (and so also freeing) a communicator there is refused as well.
  std::optional<ErrorKind> made;
  std::thread u([&] {
    try {
      dist::Comm c;
    } catch (const Error& e) {
      made = e.kind();
    }
  });
  u.join();
  ASSERT_TRUE(made.has_value());
  EXPECT_EQ(*made, ErrorKind::RuntimeState);
}

}  // namespace
}  // namespace tenferro
