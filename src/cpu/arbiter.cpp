// The resource arbiter: see Note [Permit ordering] in arbiter.hpp.
#include "cpu/arbiter.hpp"

#include <algorithm>
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

namespace detail {

Arbiter::Arbiter() { active_.reserve(kActiveReserve); }
Arbiter::~Arbiter() = default;

Arbiter& Arbiter::global() {
  // Leaked on purpose: permits may be released during static destruction.
  static Arbiter* const instance = new Arbiter;
  return *instance;
}

bool Arbiter::active_conflict(const ResourceRequest& r, ResourceOwner owner) const noexcept {
  for (const Active& a : active_)
    if (a.owner != owner && a.request.conflicts_with(r)) return true;
  return false;
}

bool Arbiter::holds_active(ResourceOwner owner) const noexcept {
  for (const Active& a : active_)
    if (a.owner == owner) return true;
  return false;
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
  // Oldest first; `older_waiter_conflicts` sees only waiters still queued before `w`, i.e. those
  // that stay blocked in this pass (granted ones have moved to active_).
  Waiter* w = head_;
  while (w != nullptr) {
    Waiter* next = w->next;
    const bool reentrant = holds_active(w->owner);
    if (!active_conflict(*w->request, w->owner) && (reentrant || !older_waiter_conflicts(*w->request, w))) {
      unlink(w);
      active_.push_back(Active{w->id, w->owner, *w->request});
      w->reentrant = reentrant;
      w->granted.store(1, std::memory_order_release);
      w->granted.notify_one();  // under the lock: the node lives until its thread re-takes it
    }
    w = next;
  }
}

ResourcePermit Arbiter::acquire(const ResourceRequest& request, ResourceOwner owner) {
  std::unique_lock lock(mu_);
  reserve_for_one_more();
  const std::uint64_t id = next_id_++;
  const bool reentrant = holds_active(owner);
  if (!active_conflict(request, owner) && (reentrant || !older_waiter_conflicts(request, nullptr))) {
    active_.push_back(Active{id, owner, request});
    return ResourcePermit(this, id, owner, reentrant);
  }
  Waiter node;
  node.id = id;
  node.owner = owner;
  node.request = &request;
  node.prev = tail_;
  (tail_ ? tail_->next : head_) = &node;
  tail_ = &node;
  ++waiting_;
  lock.unlock();
  while (node.granted.load(std::memory_order_acquire) == 0) node.granted.wait(0, std::memory_order_acquire);
  lock.lock();  // the releaser notified under the lock: once we hold it, it no longer touches `node`
  return ResourcePermit(this, id, owner, node.reentrant);
}

std::optional<ResourcePermit> Arbiter::try_acquire(const ResourceRequest& request, ResourceOwner owner) {
  std::lock_guard lock(mu_);
  const bool reentrant = holds_active(owner);
  if (active_conflict(request, owner) || (!reentrant && older_waiter_conflicts(request, nullptr)))
    return std::nullopt;
  reserve_for_one_more();
  const std::uint64_t id = next_id_++;
  active_.push_back(Active{id, owner, request});
  return ResourcePermit(this, id, owner, reentrant);
}

void Arbiter::release(std::uint64_t id) noexcept {
  std::lock_guard lock(mu_);
  auto it = std::find_if(active_.begin(), active_.end(), [&](const Active& a) { return a.id == id; });
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
