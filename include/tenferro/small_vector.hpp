// A vector with inline capacity N that spills to the heap beyond it.
//
// Shapes, strides and operand lists of tiny ops live here so that the hot path of an op
// allocates nothing but its output buffer.
//
// Note [SmallVector fast copy]: a tiny op copies and moves shapes and strides many times (tensor
// copies into operand lists, results moved out of admission callbacks). For trivially copyable
// elements with a small inline buffer, copying or moving an inline vector copies the WHOLE inline
// buffer with one fixed-size memcpy (a few vector moves, no call, no loop) instead of size()
// elements. Bytes past size() are unspecified either way and never read as elements. A heap buffer
// always has capacity > N, so reading N elements from one stays inside it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace tenferro {

template <class T, std::size_t N>
class SmallVector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() noexcept = default;
  explicit SmallVector(std::size_t n, const T& v = T()) { assign(n, v); }
  SmallVector(std::initializer_list<T> il) { append(il.begin(), il.end()); }
  template <class It, class = decltype(*std::declval<It>())>
  SmallVector(It first, It last) {
    append(first, last);
  }
  SmallVector(std::span<const T> s) { append(s.begin(), s.end()); }  // NOLINT: implicit on purpose
  SmallVector(const SmallVector& o) {
    if constexpr (kFastCopy) {
      if (o.size_ <= N) {
        std::memcpy(inline_, o.ptr_, sizeof(inline_));
        size_ = o.size_;
        return;
      }
    }
    append(o.begin(), o.end());
  }
  SmallVector(SmallVector&& o) noexcept(std::is_nothrow_move_constructible_v<T>) { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      clear();
      if constexpr (kFastCopy) {
        if (o.size_ <= N && is_inline()) {
          std::memcpy(inline_, o.ptr_, sizeof(inline_));
          size_ = o.size_;
          return *this;
        }
      }
      append(o.begin(), o.end());
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &o) {
      clear();
      free_heap();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() {
    clear();
    free_heap();
  }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return cap_; }
  T& operator[](std::size_t i) noexcept { return ptr_[i]; }
  const T& operator[](std::size_t i) const noexcept { return ptr_[i]; }
  T& back() noexcept { return ptr_[size_ - 1]; }
  const T& back() const noexcept { return ptr_[size_ - 1]; }
  T* begin() noexcept { return ptr_; }
  T* end() noexcept { return ptr_ + size_; }
  const T* begin() const noexcept { return ptr_; }
  const T* end() const noexcept { return ptr_ + size_; }
  operator std::span<const T>() const noexcept { return {ptr_, size_}; }  // NOLINT
  operator std::span<T>() noexcept { return {ptr_, size_}; }              // NOLINT

  void reserve(std::size_t n) {
    if (n <= cap_) return;
    T* fresh = static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{alignof(T)}));
    std::uninitialized_move(ptr_, ptr_ + size_, fresh);
    std::destroy(ptr_, ptr_ + size_);
    free_heap();
    ptr_ = fresh;
    cap_ = n;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ == cap_) reserve(cap_ * 2);
    T* p = new (ptr_ + size_) T(std::forward<A>(a)...);
    ++size_;
    return *p;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() noexcept { std::destroy_at(ptr_ + --size_); }
  void clear() noexcept {
    std::destroy(ptr_, ptr_ + size_);
    size_ = 0;
  }
  /// New elements value-initialised in place (no temporary to copy from).
  void resize(std::size_t n) {
    if (n < size_) {
      std::destroy(ptr_ + n, ptr_ + size_);
      size_ = n;
      return;
    }
    reserve(n);
    std::uninitialized_value_construct(ptr_ + size_, ptr_ + n);
    size_ = n;
  }
  void resize(std::size_t n, const T& v) {
    if (n < size_) {
      std::destroy(ptr_ + n, ptr_ + size_);
      size_ = n;
      return;
    }
    reserve(n);
    std::uninitialized_fill(ptr_ + size_, ptr_ + n, v);
    size_ = n;
  }
  void assign(std::size_t n, const T& v) {
    clear();
    resize(n, v);
  }
  template <class It>
  void append(It first, It last) {
    reserve(size_ + static_cast<std::size_t>(std::distance(first, last)));
    for (; first != last; ++first) new (ptr_ + size_++) T(*first);
  }
  void insert(std::size_t pos, const T& v) {
    emplace_back(v);
    std::rotate(ptr_ + pos, ptr_ + size_ - 1, ptr_ + size_);
  }
  void erase(std::size_t pos) {
    std::move(ptr_ + pos + 1, ptr_ + size_, ptr_ + pos);
    pop_back();
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool is_inline() const noexcept { return ptr_ == reinterpret_cast<const T*>(inline_); }
  void free_heap() noexcept {
    if (!is_inline()) ::operator delete (ptr_, std::align_val_t{alignof(T)});
    ptr_ = reinterpret_cast<T*>(inline_);
    cap_ = N;
  }
  void steal(SmallVector& o) {
    if (o.is_inline()) {
      if constexpr (kFastCopy) {
        std::memcpy(inline_, o.inline_, sizeof(inline_));
        size_ = o.size_;
        o.size_ = 0;
        return;
      }
      std::uninitialized_move(o.ptr_, o.ptr_ + o.size_, ptr_);
      size_ = o.size_;
      o.clear();
    } else {
      ptr_ = std::exchange(o.ptr_, reinterpret_cast<T*>(o.inline_));
      cap_ = std::exchange(o.cap_, N);
      size_ = std::exchange(o.size_, 0);
    }
  }

  // Note [SmallVector fast copy].
  static constexpr bool kFastCopy = std::is_trivially_copyable_v<T> && N * sizeof(T) <= 64;

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* ptr_ = reinterpret_cast<T*>(inline_);
  std::size_t size_ = 0;
  std::size_t cap_ = N;
};

}  // namespace tenferro
