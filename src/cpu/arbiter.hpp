// The process-wide resource arbiter.
//
// Note [Permit ordering]
// ~~~~~~~~~~~~~~~~~~~~~~
// A request is either a CPU set (conflicts with a request whose set overlaps) or provider-exclusive
// (conflicts with every request). A request from owner O is granted when
//   (1) no *active* permit that conflicts with it belongs to an owner other than O, and
//   (2) it is re-entrant (O already holds an active permit), or no *older waiter* conflicts.
// (2) makes the arbiter FIFO-fair: a later request never overtakes an older conflicting waiter,
// so a stream of small requests cannot starve a large one. Re-entrant requests skip (2): an owner
// that already holds CPUs must not queue behind a waiter that is itself waiting for that owner.
// Waiters are granted *by the releaser* (hand-off): each release walks the queue oldest first and
// grants every waiter that passes (1) and (2) against the remaining queue, so the FIFO order is
// decided under the lock, never by which thread wakes first. try_acquire applies the same rule
// with every current waiter counted as older.
//
// Cost: the uncontended acquire and release each take the (spin) lock once and scan the active list;
// active entries live in a vector reserved at construction (kActiveReserve), waiters are nodes on
// the waiting thread's stack (intrusive FIFO list), so neither allocates. More than kActiveReserve
// simultaneously active permits grow the vector (one allocation, never on the common path).
// Request ids are 64-bit and never wrap in practice (2^64 acquisitions).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "cpu/spin_lock.hpp"
#include "tenferro/cpu.hpp"

namespace tenferro::detail {

/// What a permit claims.
struct ResourceRequest {
  enum class Kind : std::uint8_t { cpu_set, provider_exclusive };
  Kind kind = Kind::cpu_set;
  CpuSet cpus;

  static ResourceRequest cpu_set(const CpuSet& s) { return {Kind::cpu_set, s}; }
  static ResourceRequest provider_exclusive() { return {Kind::provider_exclusive, {}}; }
  bool conflicts_with(const ResourceRequest& o) const noexcept {
    return kind == Kind::provider_exclusive || o.kind == Kind::provider_exclusive || cpus.overlaps(o.cpus);
  }
};

/// An execution owner: a process-unique, nonzero id of one admission (see owner_guard.hpp).
using ResourceOwner = std::uint64_t;

/// FIFO-fair arbiter of CPU resources (Note [Permit ordering]). Thread-safe. Tests may create
/// private instances; the runtime uses Arbiter::global().
class Arbiter {
 public:
  static constexpr std::size_t kActiveReserve = 256;

  Arbiter();
  Arbiter(const Arbiter&) = delete;
  Arbiter& operator=(const Arbiter&) = delete;
  ~Arbiter();

  /// The process-wide arbiter (created on first use, never destroyed).
  static Arbiter& global();

  /// Blocks until the request is granted to `owner` (nonzero). Never throws except bad_alloc when
  /// more than kActiveReserve permits are active at once.
  ResourcePermit acquire(const ResourceRequest& request, ResourceOwner owner);
  /// Grants now if the rule allows it, else returns an empty optional. Never blocks.
  std::optional<ResourcePermit> try_acquire(const ResourceRequest& request, ResourceOwner owner);

  /// Number of active permits / blocked requests (for tests and diagnostics).
  std::size_t active_count() const;
  std::size_t waiting_count() const;

 private:
  friend class tenferro::ResourcePermit;
  struct Active {
    std::uint64_t id;
    ResourceOwner owner;
    ResourceRequest request;
  };
  struct Waiter {
    std::uint64_t id = 0;
    ResourceOwner owner = 0;
    const ResourceRequest* request = nullptr;
    Waiter* prev = nullptr;
    Waiter* next = nullptr;
    bool reentrant = false;
    // 0 while waiting; set to 1 by the granting releaser under lock_ (which also notifies under
    // lock_, so the waiter re-takes lock_ once before its node may die).
    std::atomic<std::uint32_t> granted{0};
  };

  void release(std::uint64_t id) noexcept;
  // All below: called with mu_ held.
  bool active_conflict(const ResourceRequest& r, ResourceOwner owner) const noexcept;
  bool holds_active(ResourceOwner owner) const noexcept;
  bool older_waiter_conflicts(const ResourceRequest& r, const Waiter* before) const noexcept {
    for (const Waiter* w = head_; w != before; w = w->next)
      if (w->request->conflicts_with(r)) return true;
    return false;
  }
  void grant_waiters() noexcept;
  void reserve_for_one_more() {
    // Room for every active permit plus every waiter, so grant_waiters (noexcept) never allocates.
    if (active_.size() + waiting_ + 1 > active_.capacity()) grow();
  }
  void grow();
  void unlink(Waiter* w) noexcept;

  mutable SpinLock mu_;
  std::vector<Active> active_;
  Waiter* head_ = nullptr;  // oldest
  Waiter* tail_ = nullptr;
  std::size_t waiting_ = 0;
  std::uint64_t next_id_ = 1;
};

}  // namespace tenferro::detail
