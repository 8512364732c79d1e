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
#include <unordered_map>
#include <utility>

namespace tenferro::detail {

struct CacheStats {
  std::uint64_t hits = 0, misses = 0, evictions = 0;
  std::size_t size = 0, capacity = 0;
};

/// LRU map of at most `capacity` entries. Not thread-safe (the engine borrow serialises it).
template <class K, class V, class Hash = std::hash<K>>
class BoundedCache {
 public:
  explicit BoundedCache(std::size_t capacity = 64) : capacity_(capacity == 0 ? 1 : capacity) {}

  /// The cached value (now most recently used), or null. Counts a hit or a miss.
  V* find(const K& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  /// Inserts or replaces; evicts the least recently used entry beyond capacity.
  V& insert(const K& key, V value) {
    if (auto it = index_.find(key); it != index_.end()) {
      it->second->second = std::move(value);
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
      ++stats_.evictions;
    }
    return order_.front().second;
  }
  /// find, else insert make() (make runs only on a miss).
  template <class Make>
  V& get_or_insert(const K& key, Make&& make) {
    if (V* v = find(key)) return *v;
    return insert(key, std::forward<Make>(make)());
  }
  void clear() noexcept {
    index_.clear();
    order_.clear();
  }
  void set_capacity(std::size_t c) {
    capacity_ = c == 0 ? 1 : c;
    while (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
      ++stats_.evictions;
    }
  }
  std::size_t size() const noexcept { return order_.size(); }
  CacheStats stats() const noexcept {
    CacheStats s = stats_;
    s.size = order_.size();
    s.capacity = capacity_;
    return s;
  }

 private:
  std::size_t capacity_;
  std::list<std::pair<K, V>> order_;  // front = most recently used
  std::unordered_map<K, typename std::list<std::pair<K, V>>::iterator, Hash> index_;
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
