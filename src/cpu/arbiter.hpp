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
// Public permits (CpuBackend::acquire_permit / try_acquire_permit) are requested with
// Reentry::counted: the owner's own permits conflict too, and they wait their FIFO turn. Their
// owner is the acquiring thread's permit owner, which that thread's admissions then reuse (Note
// [Thread-bound permits], owner_guard.hpp), so its own operations run under them.
//
// Timed waits: a request may carry a deadline (CpuBackendOptions::admission_timeout). A waiter
// that reaches it unlinks itself under the lock -- unless the releaser granted it first, which
// then wins -- and runs the grant pass again (its leaving may unblock younger waiters). The caller
// gets the holders of the conflicting permits (kind, backend, owner, thread) for its error
// message: every active permit records who asked for it (PermitHolder).
//
// Cost: the uncontended acquire and release each take the (spin) lock once and scan the active
// list; active entries live in a vector reserved at construction (kActiveReserve), waiters are
// nodes on the waiting thread's stack (intrusive FIFO list) that sleep on their own semaphore, so
// neither allocates. More than kActiveReserve simultaneously active permits grow the vector (one
// allocation, never on the common path). Request ids are 64-bit and never wrap in practice.
//
// Note [Fork] (fork.hpp): the prepare handler holds the global arbiter's lock across fork(), so
// the child's copy is consistent; the child then installs a fresh global arbiter (permits of the
// parent's threads are meaningless there) and leaves the old one to the permits that name it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
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
    return kind == Kind::provider_exclusive || o.kind == Kind::provider_exclusive ||
           cpus.overlaps(o.cpus);
  }
};

/// An execution owner: a process-unique, nonzero id of one admission (see owner_guard.hpp).
using ResourceOwner = std::uint64_t;

/// What asked for a permit: the admission kind and backend, and the thread. Diagnostics only.
struct PermitHolder {
  enum class Kind : std::uint8_t { operation, session, scope, permit };
  Kind kind = Kind::permit;
  std::uint64_t backend = 0;  // witness identity; 0 = none
  int tid = 0;                // Linux thread id of the acquiring thread
};
/// "a scope of backend #3 on thread 4711 (owner 0x...)"
std::string describe(const PermitHolder& h, ResourceOwner owner);

/// How a request treats permits of its own owner.
enum class Reentry : std::uint8_t {
  allowed,  // granted over the owner's own permits, and ahead of older waiters (admissions)
  counted,  // the owner's own permits conflict like anyone else's; FIFO (public permits)
};

/// The permit wait hooks (set_permit_wait_hooks) around one blocking wait: before_wait on
/// construction, after_wait with its token on destruction; nothing when none are installed.
class WaitHookCall {
 public:
  WaitHookCall() noexcept;
  ~WaitHookCall();
  WaitHookCall(const WaitHookCall&) = delete;
  WaitHookCall& operator=(const WaitHookCall&) = delete;

 private:
  void (*after_)(void*) = nullptr;
  void* token_ = nullptr;
};

/// FIFO-fair arbiter of CPU resources (Note [Permit ordering]). Thread-safe. Tests may create
/// private instances; the runtime uses Arbiter::global().
class Arbiter {
 public:
  static constexpr std::size_t kActiveReserve = 256;
  using Clock = std::chrono::steady_clock;

  Arbiter();
  Arbiter(const Arbiter&) = delete;
  Arbiter& operator=(const Arbiter&) = delete;
  ~Arbiter();

  /// The process-wide arbiter (created on first use, never destroyed; a fork child gets a new one).
  static Arbiter& global() noexcept {
    Arbiter* a = global_.load(std::memory_order_acquire);
    return a != nullptr ? *a : make_global();
  }

  /// Blocks until the request is granted to `owner` (nonzero). Never throws except bad_alloc when
  /// more than kActiveReserve permits are active at once.
  ResourcePermit acquire(const ResourceRequest& request, ResourceOwner owner,
                         const PermitHolder& holder = {}, Reentry reentry = Reentry::allowed);
  /// As acquire, but gives up at `deadline`: returns empty (nothing held, the queue as if the
  /// request had never been made) and, when `holders` is given, describes the permits it waited
  /// for there.
  std::optional<ResourcePermit> acquire_until(const ResourceRequest& request, ResourceOwner owner,
                                              const PermitHolder& holder, Reentry reentry,
                                              Clock::time_point deadline, std::string* holders);
  /// Grants now if the rule allows it, else returns an empty optional. Never blocks.
  std::optional<ResourcePermit> try_acquire(const ResourceRequest& request, ResourceOwner owner,
                                            const PermitHolder& holder = {},
                                            Reentry reentry = Reentry::allowed);

  /// The holder of an active permit of `owner` that conflicts with `request`, if any.
  std::optional<PermitHolder> held_conflict(const ResourceRequest& request,
                                            ResourceOwner owner) const;

  /// Number of active permits / blocked requests (for tests and diagnostics).
  std::size_t active_count() const;
  std::size_t waiting_count() const;

  // Note [Fork]: called by the fork handlers only.
  static void fork_prepare() noexcept;
  static void fork_parent() noexcept;
  static void fork_child() noexcept;

 private:
  friend class tenferro::ResourcePermit;
  struct Active {
    std::uint64_t id;
    ResourceOwner owner;
    ResourceRequest request;
    PermitHolder holder;
  };
  struct Waiter {
    std::uint64_t id = 0;
    ResourceOwner owner = 0;
    const ResourceRequest* request = nullptr;
    PermitHolder holder;
    Waiter* prev = nullptr;
    Waiter* next = nullptr;
    Reentry reentry = Reentry::allowed;
    bool reentrant = false;
    // Set by the granting releaser under mu_, which also releases `wake` under mu_, so the
    // waiter re-takes mu_ once before its node may die.
    bool granted = false;
    std::binary_semaphore wake{0};
  };

  static Arbiter& make_global() noexcept;
  // acquire (no deadline: never empty) and acquire_until.
  std::optional<ResourcePermit> acquire_impl(const ResourceRequest& request, ResourceOwner owner,
                                             const PermitHolder& holder, Reentry reentry,
                                             const Clock::time_point* deadline,
                                             std::string* holders);
  // The blocking part of acquire_impl, with mu_ held.
  std::optional<ResourcePermit> wait_for_grant(std::unique_lock<SpinLock>& lock,
                                               const ResourceRequest& request, ResourceOwner owner,
                                               const PermitHolder& holder, Reentry reentry,
                                               const Clock::time_point* deadline,
                                               std::string* holders);
  void release(std::uint64_t id) noexcept;
  // All below: called with mu_ held.
  // Whether the request is granted now (Note [Permit ordering]): the waiters queued before
  // `before` count as older (nullptr: all of them). Sets `reentrant`.
  bool grantable(const ResourceRequest& r, ResourceOwner owner, Reentry reentry,
                 const Waiter* before, bool& reentrant) const noexcept;
  ResourcePermit activate(const ResourceRequest& r, ResourceOwner owner, const PermitHolder& holder,
                          bool reentrant);
  void enqueue(Waiter& node, const ResourceRequest& r, ResourceOwner owner,
               const PermitHolder& holder, Reentry reentry);
  std::string describe_conflicts(const ResourceRequest& r, ResourceOwner exclude) const;
  void grant_waiters() noexcept;
  void reserve_for_one_more() {
    // Room for every active permit plus every waiter, so grant_waiters (noexcept) never allocates.
    if (active_.size() + waiting_ + 1 > active_.capacity()) grow();
  }
  void grow();
  void unlink(Waiter* w) noexcept;

  static std::atomic<Arbiter*> global_;
  mutable SpinLock mu_;
  std::vector<Active> active_;
  Waiter* head_ = nullptr;  // oldest
  Waiter* tail_ = nullptr;
  std::size_t waiting_ = 0;
  std::uint64_t next_id_ = 1;
};

}  // namespace tenferro::detail
