// Whitebox tests of the arbiter (Note [Permit ordering]) on private Arbiter instances.
#include "cpu/arbiter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tenferro/error.hpp"

using namespace tenferro;
using detail::Arbiter;
using detail::ResourceRequest;

namespace {
ResourceRequest cpus(std::initializer_list<int> c) { return ResourceRequest::cpu_set(CpuSet(c)); }
ResourceRequest exclusive() { return ResourceRequest::provider_exclusive(); }

void wait_for_waiters(const Arbiter& a, std::size_t n) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (a.waiting_count() != n) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "waiters never reached " << n;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Gives granted threads time to record themselves (a test of "not granted" needs a pause).
void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }
}  // namespace

TEST(CpuSet, BasicsAndFormatting) {
  CpuSet s{0, 1, 2, 3, 8, 10, 11};
  EXPECT_EQ(s.count(), 7);
  EXPECT_EQ(s.to_string(), "0-3,8,10-11");
  EXPECT_TRUE(s.contains(8));
  EXPECT_FALSE(s.contains(9));
  EXPECT_TRUE(s.contains(CpuSet{1, 2}));
  EXPECT_FALSE(s.contains(CpuSet{1, 9}));
  EXPECT_TRUE(s.overlaps(CpuSet{11, 500}));
  EXPECT_FALSE(s.overlaps(CpuSet{9, 500}));
  EXPECT_EQ(s.first(), 0);
  EXPECT_EQ(CpuSet().first(), -1);
  EXPECT_EQ(CpuSet().to_string(), "");
  EXPECT_EQ(s.intersect(CpuSet{3, 4, 8}), (CpuSet{3, 8}));
  EXPECT_THROW(CpuSet({CpuSet::max_cpus}), Error);
  const CpuSet allowed = CpuSet::process_allowed();
  EXPECT_GE(allowed.count(), 1);
}

TEST(Arbiter, OverlappingSetsConflictDisjointDoNot) {
  Arbiter a;
  auto p = a.acquire(cpus({0, 1}), 1);
  EXPECT_FALSE(a.try_acquire(cpus({1, 2}), 2).has_value());
  auto q = a.try_acquire(cpus({2, 3}), 2);
  ASSERT_TRUE(q.has_value());
  EXPECT_FALSE(q->reentrant());
  EXPECT_EQ(a.active_count(), 2u);
  p.release();
  EXPECT_FALSE(a.try_acquire(cpus({1, 2}), 3).has_value()) << "{2} is still held by owner 2";
  EXPECT_TRUE(a.try_acquire(cpus({0, 1}), 3).has_value());
}

TEST(Arbiter, ProviderExclusiveConflictsWithEverything) {
  Arbiter a;
  {
    auto x = a.acquire(exclusive(), 1);
    EXPECT_FALSE(a.try_acquire(cpus({7}), 2).has_value());
    EXPECT_FALSE(a.try_acquire(exclusive(), 2).has_value());
  }
  {
    auto c = a.acquire(cpus({7}), 1);
    EXPECT_FALSE(a.try_acquire(exclusive(), 2).has_value());
  }
  EXPECT_TRUE(a.try_acquire(exclusive(), 2).has_value());
}

TEST(Arbiter, ReentrantForTheSameOwner) {
  Arbiter a;
  auto p = a.acquire(cpus({0}), 1);
  auto again = a.try_acquire(cpus({0}), 1);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->reentrant());
  auto excl = a.try_acquire(exclusive(), 1);  // conflicts only with owner 1's own permits
  ASSERT_TRUE(excl.has_value());
  EXPECT_TRUE(excl->reentrant());
  excl.reset();
  again.reset();

  // A re-entrant request is not queued behind an older conflicting waiter.
  std::thread waiter([&] { auto w = a.acquire(cpus({0}), 2); });
  wait_for_waiters(a, 1);
  auto blocking_free = a.acquire(cpus({0}), 1);  // would deadlock if it queued behind owner 2
  EXPECT_TRUE(blocking_free.reentrant());
  EXPECT_FALSE(a.try_acquire(cpus({0}), 3).has_value());
  blocking_free.release();
  p.release();
  waiter.join();
  EXPECT_EQ(a.active_count(), 0u);
}

TEST(Arbiter, FifoALaterRequestNeverOvertakesAnOlderConflictingWaiter) {
  Arbiter a;
  std::mutex mu;
  std::vector<int> order;
  auto holder = a.acquire(cpus({0}), 100);

  auto run = [&](int tag, ResourceRequest req, std::chrono::milliseconds hold) {
    return std::thread([&, tag, req, hold] {
      auto p = a.acquire(req, static_cast<std::uint64_t>(tag));
      {
        std::lock_guard lock(mu);
        order.push_back(tag);
      }
      std::this_thread::sleep_for(hold);
    });
  };
  // W1 wants {0,1} (blocked by the holder). W2 wants {1} -- free, but W1 is older and conflicts.
  // W3 wants {0} (blocked by holder and W1).
  std::thread w1 = run(1, cpus({0, 1}), std::chrono::milliseconds(60));
  wait_for_waiters(a, 1);
  std::thread w2 = run(2, cpus({1}), std::chrono::milliseconds(0));
  wait_for_waiters(a, 2);
  std::thread w3 = run(3, cpus({0}), std::chrono::milliseconds(0));
  wait_for_waiters(a, 3);
  // Neither a blocking nor a try request may overtake an older conflicting waiter...
  EXPECT_FALSE(a.try_acquire(cpus({1}), 4).has_value());
  // ...but a request that conflicts with nobody is granted at once.
  EXPECT_TRUE(a.try_acquire(cpus({5}), 4).has_value());
  settle();
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(order.empty());
  }
  holder.release();  // hands over to W1 only
  w1.join();
  w2.join();
  w3.join();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(a.active_count(), 0u);
  EXPECT_EQ(a.waiting_count(), 0u);
}

TEST(Arbiter, ThreeWaitersAreGrantedInArrivalOrder) {
  Arbiter a;
  std::mutex mu;
  std::vector<int> order;
  auto holder = a.acquire(exclusive(), 100);
  std::vector<std::thread> ts;
  for (int i = 1; i <= 3; ++i) {
    ts.emplace_back([&, i] {
      auto p = a.acquire(cpus({0}), static_cast<std::uint64_t>(i));
      std::lock_guard lock(mu);
      order.push_back(i);
    });
    wait_for_waiters(a, static_cast<std::size_t>(i));
  }
  holder.release();
  for (auto& t : ts) t.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(Arbiter, PermitIsReleasedWhenAnExceptionUnwinds) {
  Arbiter a;
  try {
    auto p = a.acquire(exclusive(), 1);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(a.active_count(), 0u);
  EXPECT_TRUE(a.try_acquire(exclusive(), 2).has_value());
}

TEST(Arbiter, PermitMoveTransfersOwnershipOnce) {
  Arbiter a;
  ResourcePermit p = a.acquire(cpus({0}), 1);
  ResourcePermit q = std::move(p);
  EXPECT_FALSE(p.valid());
  EXPECT_TRUE(q.valid());
  EXPECT_EQ(a.active_count(), 1u);
  ResourcePermit r;
  r = std::move(q);
  EXPECT_EQ(a.active_count(), 1u);
  r = ResourcePermit();
  EXPECT_EQ(a.active_count(), 0u);
}

// A timed request that reaches its deadline leaves the queue as if it had never asked: a younger
// waiter that was queued only behind it is granted at once, and the caller learns who held it up.
TEST(Arbiter, ATimedOutWaiterLeavesAndUnblocksTheWaitersBehindIt) {
  Arbiter a;
  const detail::PermitHolder scope_holder{detail::PermitHolder::Kind::scope, 7, 4242};
  auto holder = a.acquire(cpus({0}), 100, scope_holder);
  std::string holders;
  std::optional<ResourcePermit> younger;
  std::thread timed([&] {
    // Wants {0, 1}: blocked by the holder for its whole deadline.
    auto p = a.acquire_until(cpus({0, 1}), 1, {}, detail::Reentry::allowed,
                             Arbiter::Clock::now() + std::chrono::milliseconds(150), &holders);
    EXPECT_FALSE(p.has_value());
  });
  wait_for_waiters(a, 1);
  std::thread behind([&] { younger = a.acquire(cpus({1}), 2); });  // free, but queued behind W1
  wait_for_waiters(a, 2);
  timed.join();
  behind.join();  // granted when the timed waiter left
  ASSERT_TRUE(younger.has_value());
  EXPECT_NE(holders.find("an execution scope of backend #7 on thread 4242"), std::string::npos)
      << holders;
  EXPECT_EQ(a.waiting_count(), 0u);
  EXPECT_EQ(a.active_count(), 2u);
}

// Reentry::counted (public permits): the owner's own permits conflict too, and a counted request
// waits its FIFO turn; held_conflict finds the owner's conflicting permit.
TEST(Arbiter, CountedRequestsAreNeverReentrant) {
  Arbiter a;
  auto mine = a.acquire(cpus({0}), 5);
  EXPECT_TRUE(a.try_acquire(cpus({0}), 5).has_value()) << "admissions are re-entrant";
  EXPECT_FALSE(a.try_acquire(cpus({0}), 5, {}, detail::Reentry::counted).has_value());
  EXPECT_TRUE(a.held_conflict(cpus({0, 3}), 5).has_value());
  EXPECT_FALSE(a.held_conflict(cpus({3}), 5).has_value());
  EXPECT_FALSE(a.held_conflict(cpus({0}), 6).has_value());
  auto timed = a.acquire_until(cpus({0}), 5, {}, detail::Reentry::counted,
                               Arbiter::Clock::now() + std::chrono::milliseconds(20), nullptr);
  EXPECT_FALSE(timed.has_value());
  EXPECT_EQ(a.waiting_count(), 0u);
}
