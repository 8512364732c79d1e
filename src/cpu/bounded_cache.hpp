// A small bounded LRU cache and the engine's per-type cache slots.
//
// Engine caches (GEMM analysis, plans, ...) are owned by the engine and reached only through an
// admitted operation's ExecContext, i.e. while the engine is borrowed exclusively: they need no
// locking of their own. Op families define their cache types where they live and ask for them with
// `ctx.cache<T>()`; the engine keeps one lazily built instance per type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace tenferro::detail {

struct CacheStats {
  std::uint64_t hits = 0, misses = 0, evictions = 0;
  std::size_t size = 0, capacity = 0;
};

/// LRU map of at most `capacity` entries; capacity 0 keeps nothing (every find misses). The one
/// bounded cache of the code base: engine caches (eager entries, LAPACK workspace sizes) and the
/// runtime's prepared plans. `find` also takes a probe of another type Q when Hash accepts Q and
/// Eq compares Q with K (both orders), so a lookup need not build an owning key.
/// Not thread-safe: the engine borrow (or the runtime's mutex) serialises it.
template <class K, class V, class Hash = std::hash<K>, class Eq = std::equal_to<K>>
class BoundedCache {
  using Order = std::list<std::pair<K, V>>;
  // The index refers to the key inside its list node (nodes never move), so a key is stored once.
  template <class Q>
  static const auto& deref(const Q& q) noexcept {
    if constexpr (std::is_same_v<Q, const K*>)
      return *q;
    else
      return q;
  }
  struct RefHash {
    using is_transparent = void;
    template <class Q>
    std::size_t operator()(const Q& q) const {
      return Hash{}(deref(q));
    }
  };
  struct RefEq {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return Eq{}(deref(a), deref(b));
    }
  };

 public:
  explicit BoundedCache(std::size_t capacity = 64) : capacity_(capacity) {}

  /// The cached value (now most recently used), or null. Counts a hit or a miss.
  template <class Q = K>
  V* find(const Q& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    if (it->second != order_.begin()) order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  /// The first of the `n` most recently used entries (newest first) whose key `matches`, made the
  /// most recently used; null when none matches (no miss is counted: the caller goes on to
  /// find()). For lookups that usually repeat one of the last few (an op in a loop,
  /// the few ops of an autodiff step that alternate): no hash, no probe of the index.
  template <class Pred>
  V* find_recent(Pred&& matches, std::size_t n) {
    auto it = order_.begin();
    for (std::size_t i = 0; i < n && it != order_.end(); ++i, ++it) {
      if (!matches(it->first)) continue;
      ++stats_.hits;
      if (i != 0) order_.splice(order_.begin(), order_, it);
      return &it->second;
    }
    return nullptr;
  }
  /// find, also giving the key (now most recently used), or {null, null}. The caller may change
  /// the key only in ways that keep its hash and its equality with every probe (eager_cache.cpp
  /// swaps a layout record for an equal one).
  template <class Q = K>
  std::pair<K*, V*> find_entry(const Q& key) {
    V* v = find(key);
    if (v == nullptr) return {nullptr, nullptr};
    return {&order_.front().first, v};
  }
  /// Inserts or replaces; evicts the least recently used entry beyond capacity. Null (nothing
  /// kept) when the capacity is 0.
  V* insert(K key, V value) {
    if (capacity_ == 0) return nullptr;
    if (auto it = index_.find(key); it != index_.end()) {
      it->second->second = std::move(value);
      order_.splice(order_.begin(), order_, it->second);
      return &it->second->second;
    }
    order_.emplace_front(std::move(key), std::move(value));
    index_.emplace(&order_.front().first, order_.begin());
    while (order_.size() > capacity_) evict_last();
    return &order_.front().second;
  }
  /// find, else insert make() (make runs only on a miss). Requires capacity > 0.
  template <class Make>
  V& get_or_insert(const K& key, Make&& make) {
    if (V* v = find(key)) return *v;
    return *insert(key, std::forward<Make>(make)());
  }
  void clear() noexcept {
    index_.clear();
    order_.clear();
  }
  void set_capacity(std::size_t c) {
    capacity_ = c;
    while (order_.size() > capacity_) evict_last();
  }
  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t size() const noexcept { return order_.size(); }
  CacheStats stats() const noexcept {
    CacheStats s = stats_;
    s.size = order_.size();
    s.capacity = capacity_;
    return s;
  }

 private:
  void evict_last() {
    index_.erase(&order_.back().first);
    order_.pop_back();
    ++stats_.evictions;
  }

  std::size_t capacity_;
  Order order_;  // front = most recently used
  std::unordered_map<const K*, typename Order::iterator, RefHash, RefEq> index_;
  CacheStats stats_;
};

/// One lazily built instance per cache type T (T must be default-constructible and have
/// `void clear()`). Not thread-safe (the engine borrow serialises it).
class CacheSlots {
 public:
  static constexpr int kMaxSlots = 32;

  template <class T>
  T& get() {
    const int id = slot_id<T>();
    Slot& s = slots_[id];
    if (!s.ptr) {
      s.ptr = std::shared_ptr<void>(new T(), [](void* p) { delete static_cast<T*>(p); });
      s.clear = [](void* p) { static_cast<T*>(p)->clear(); };
    }
    return *static_cast<T*>(s.ptr.get());
  }
  void clear_all() {
    for (Slot& s : slots_)
      if (s.ptr) s.clear(s.ptr.get());
  }

 private:
  struct Slot {
    std::shared_ptr<void> ptr;
    void (*clear)(void*) = nullptr;
  };
  static int next_slot_id();  // engine.cpp; aborts beyond kMaxSlots types
  template <class T>
  static int slot_id() {
    static const int id = next_slot_id();
    return id;
  }
  Slot slots_[kMaxSlots];
};

}  // namespace tenferro::detail
