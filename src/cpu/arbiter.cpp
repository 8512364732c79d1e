// The resource arbiter: see Note [Permit ordering] in arbiter.hpp.
#include "cpu/arbiter.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <utility>

namespace tenferro {

ResourcePermit& ResourcePermit::operator=(ResourcePermit&& o) noexcept {
  if (this != &o) {
    release();
    arbiter_ = std::exchange(o.arbiter_, nullptr);
    id_ = o.id_;
    owner_ = o.owner_;
    reentrant_ = o.reentrant_;
  }
  return *this;
}

void ResourcePermit::release() noexcept {
  if (auto* a = std::exchange(arbiter_, nullptr)) a->release(id_);
}

namespace {
// set_permit_wait_hooks (cpu.hpp): read on every blocking wait, written once by a binding.
std::atomic<void* (*)()> g_before_wait{nullptr};
std::atomic<void (*)(void*)> g_after_wait{nullptr};
}  // namespace

void set_permit_wait_hooks(PermitWaitHooks hooks) noexcept {
  g_after_wait.store(hooks.after_wait, std::memory_order_release);
  g_before_wait.store(hooks.before_wait, std::memory_order_release);
}

namespace detail {

WaitHookCall::WaitHookCall() noexcept {
  if (auto* before = g_before_wait.load(std::memory_order_acquire)) {
    after_ = g_after_wait.load(std::memory_order_acquire);
    token_ = before();
  }
}

WaitHookCall::~WaitHookCall() {
  if (after_ != nullptr) after_(token_);
}

std::string describe(const PermitHolder& h, ResourceOwner owner) {
  const char* kind = "a permit (acquire_permit)";
  switch (h.kind) {
    case PermitHolder::Kind::operation:
      kind = "an operation";
      break;
    case PermitHolder::Kind::session:
      kind = "a session";
      break;
    case PermitHolder::Kind::scope:
      kind = "an execution scope";
      break;
    case PermitHolder::Kind::permit:
      break;
  }
  char owner_hex[24];
  std::snprintf(owner_hex, sizeof owner_hex, "%#llx", static_cast<unsigned long long>(owner));
  std::string s = kind;
  if (h.backend != 0) s += " of backend #" + std::to_string(h.backend);
  if (h.tid != 0) s += " on thread " + std::to_string(h.tid);
  return s + " (owner " + owner_hex + ")";
}

std::atomic<Arbiter*> Arbiter::global_{nullptr};

Arbiter::Arbiter() { active_.reserve(kActiveReserve); }
Arbiter::~Arbiter() = default;

Arbiter& Arbiter::make_global() noexcept {
  // The winner is leaked on purpose: permits may be released during static destruction. The
  // loser of a race between two first callers was never published, so nothing can name it; it
  // is freed (a leak-checked run saw it as a direct leak).
  auto* fresh = new Arbiter;
  Arbiter* expected = nullptr;
  if (global_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *expected;
}

void Arbiter::fork_prepare() noexcept { global().mu_.lock(); }
void Arbiter::fork_parent() noexcept { global().mu_.unlock(); }
void Arbiter::fork_child() noexcept {
  Arbiter& inherited = global();
  inherited.mu_.unlock();  // consistent: the prepare handler held it across fork()
  // The parent's permits belong to threads that do not exist here. The old instance stays for the
  // permits (and waiters) that still name it; new admissions use a fresh one.
  global_.store(new Arbiter, std::memory_order_release);
}

std::string Arbiter::describe_conflicts(const ResourceRequest& r, ResourceOwner exclude) const {
  std::string s;
  for (const Active& a : active_) {
    if ((exclude != 0 && a.owner == exclude) || !a.request.conflicts_with(r)) continue;
    if (!s.empty()) s += "; ";
    s += describe(a.holder, a.owner);
  }
  for (const Waiter* w = head_; w != nullptr; w = w->next) {
    if (!w->request->conflicts_with(r)) continue;
    if (!s.empty()) s += "; ";
    s += "queued before it: " + describe(w->holder, w->owner);
  }
  return s.empty() ? "no conflicting holder is left" : s;
}

void Arbiter::unlink(Waiter* w) noexcept {
  (w->prev ? w->prev->next : head_) = w->next;
  (w->next ? w->next->prev : tail_) = w->prev;
  w->prev = w->next = nullptr;
  --waiting_;
}

void Arbiter::grow() {
  const std::size_t need = active_.size() + waiting_ + 1;
  active_.reserve(std::max(need, 2 * active_.capacity()));
}

void Arbiter::grant_waiters() noexcept {
  // Oldest first; the older-waiter rule sees only waiters still queued before `w`, i.e. those
  // that stay blocked in this pass (granted ones have moved to active_).
  Waiter* w = head_;
  while (w != nullptr) {
    Waiter* next = w->next;
    bool reentrant = false;
    if (grantable(*w->request, w->owner, w->reentry, w, reentrant)) {
      unlink(w);
      active_.push_back(Active{w->id, w->owner, *w->request, w->holder});
      w->reentrant = reentrant;
      w->granted = true;
      w->wake.release();  // under the lock: the node lives until its thread re-takes it
    }
    w = next;
  }
}

bool Arbiter::grantable(const ResourceRequest& r, ResourceOwner owner, Reentry reentry,
                        const Waiter* before, bool& reentrant) const noexcept {
  // One pass over the active permits: a conflict with another owner, and whether `owner` holds one.
  const bool allowed = reentry == Reentry::allowed;
  bool holds = false;
  for (const Active& a : active_) {
    if (a.owner == owner) {
      holds = true;
      if (allowed) continue;
    }
    if (a.request.conflicts_with(r)) return false;
  }
  reentrant = allowed && holds;
  if (reentrant) return true;
  for (const Waiter* w = head_; w != before; w = w->next)
    if (w->request->conflicts_with(r)) return false;
  return true;
}

ResourcePermit Arbiter::activate(const ResourceRequest& r, ResourceOwner owner,
                                 const PermitHolder& holder, bool reentrant) {
  active_.push_back(Active{next_id_, owner, r, holder});
  return ResourcePermit(this, next_id_++, owner, reentrant);
}

void Arbiter::enqueue(Waiter& node, const ResourceRequest& r, ResourceOwner owner,
                      const PermitHolder& holder, Reentry reentry) {
  node.id = next_id_++;
  node.owner = owner;
  node.request = &r;
  node.holder = holder;
  node.reentry = reentry;
  node.prev = tail_;
  (tail_ ? tail_->next : head_) = &node;
  tail_ = &node;
  ++waiting_;
}

std::optional<ResourcePermit> Arbiter::wait_for_grant(std::unique_lock<SpinLock>& lock,
                                                      const ResourceRequest& request,
                                                      ResourceOwner owner,
                                                      const PermitHolder& holder, Reentry reentry,
                                                      const Clock::time_point* deadline,
                                                      std::string* holders) {
  Waiter node;
  enqueue(node, request, owner, holder, reentry);
  lock.unlock();
  bool woken = true;
  {
    const WaitHookCall hooks;  // e.g. Python's GIL is released while this thread sleeps
    if (deadline == nullptr)
      node.wake.acquire();
    else
      woken = node.wake.try_acquire_until(*deadline);
  }
  lock.lock();  // the releaser woke us under the lock: once we hold it, it no longer touches node
  if (woken || node.granted)  // granted between the timeout and the lock: the grant wins
    return ResourcePermit(this, node.id, owner, node.reentrant);
  if (holders != nullptr)
    *holders = describe_conflicts(request, reentry == Reentry::allowed ? owner : 0);
  unlink(&node);
  if (head_ != nullptr) grant_waiters();  // younger waiters may have queued only behind this one
  return std::nullopt;
}

std::optional<ResourcePermit> Arbiter::acquire_impl(const ResourceRequest& request,
                                                    ResourceOwner owner, const PermitHolder& holder,
                                                    Reentry reentry,
                                                    const Clock::time_point* deadline,
                                                    std::string* holders) {
  std::unique_lock lock(mu_);
  reserve_for_one_more();
  bool reentrant = false;
  if (grantable(request, owner, reentry, nullptr, reentrant))
    return activate(request, owner, holder, reentrant);
  return wait_for_grant(lock, request, owner, holder, reentry, deadline, holders);
}

ResourcePermit Arbiter::acquire(const ResourceRequest& request, ResourceOwner owner,
                                const PermitHolder& holder, Reentry reentry) {
  return std::move(*acquire_impl(request, owner, holder, reentry, nullptr, nullptr));
}

std::optional<ResourcePermit> Arbiter::acquire_until(const ResourceRequest& request,
                                                     ResourceOwner owner,
                                                     const PermitHolder& holder, Reentry reentry,
                                                     Clock::time_point deadline,
                                                     std::string* holders) {
  return acquire_impl(request, owner, holder, reentry, &deadline, holders);
}

std::optional<ResourcePermit> Arbiter::try_acquire(const ResourceRequest& request,
                                                   ResourceOwner owner, const PermitHolder& holder,
                                                   Reentry reentry) {
  std::lock_guard lock(mu_);
  bool reentrant = false;
  if (!grantable(request, owner, reentry, nullptr, reentrant)) return std::nullopt;
  reserve_for_one_more();
  return activate(request, owner, holder, reentrant);
}

std::optional<PermitHolder> Arbiter::held_conflict(const ResourceRequest& request,
                                                   ResourceOwner owner) const {
  std::lock_guard lock(mu_);
  for (const Active& a : active_)
    if (a.owner == owner && a.request.conflicts_with(request)) return a.holder;
  return std::nullopt;
}

void Arbiter::release(std::uint64_t id) noexcept {
  std::lock_guard lock(mu_);
  auto it =
      std::find_if(active_.begin(), active_.end(), [&](const Active& a) { return a.id == id; });
  if (it == active_.end()) return;  // unreachable: a permit is released once
  *it = active_.back();
  active_.pop_back();
  if (head_ != nullptr) grant_waiters();
}

std::size_t Arbiter::active_count() const {
  std::lock_guard lock(mu_);
  return active_.size();
}
std::size_t Arbiter::waiting_count() const {
  std::lock_guard lock(mu_);
  return waiting_;
}

}  // namespace detail
}  // namespace tenferro
