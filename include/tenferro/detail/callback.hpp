// Machinery behind CpuBackend::with_session / with_execution_scope: a user never names these.
//
// The runtime's entry points are non-template functions (src/cpu/) that take the user's callback
// as a FunctionRef<void(...)>; the public templates adapt any callable and carry its result back
// across that boundary unchanged (call_through + ResultSlot), for every value category: void,
// prvalues, T&, const T& and T&&.
#pragma once

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace tenferro::detail {

/// A non-owning, non-allocating reference to a callable. It lives only for the call it is passed
/// to: never store one.
template <class Sig>
class FunctionRef;
template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef>) FunctionRef(F&& f)
  noexcept  // NOLINT(google-explicit-constructor)
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, A... a) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...);
        }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

/// Holds a callback's result between the callback's return and the entry point's return.
/// Values are moved out; references (lvalue or rvalue) are carried as addresses, so the referred
/// object is neither copied nor moved.
template <class R>
class ResultSlot {
 public:
  template <class F>
  void fill(F&& f) {
    value_.emplace(std::forward<F>(f)());
  }
  R take() { return std::move(*value_); }

 private:
  std::optional<R> value_;
};
template <class R>
class ResultSlot<R&> {
 public:
  template <class F>
  void fill(F&& f) {
    R& r = std::forward<F>(f)();
    ptr_ = std::addressof(r);
  }
  R& take() { return *ptr_; }

 private:
  R* ptr_ = nullptr;
};
template <class R>
class ResultSlot<R&&> {
 public:
  template <class F>
  void fill(F&& f) {
    R&& r = std::forward<F>(f)();  // a named rvalue reference is an lvalue: its address is taken
    ptr_ = std::addressof(r);
  }
  R&& take() { return static_cast<R&&>(*ptr_); }

 private:
  R* ptr_ = nullptr;
};

/// Calls enter(cb), where cb runs `call` once with the arguments the entry point passes, and
/// returns call's result unchanged (void stays void). Exceptions from call propagate.
template <class R, class Enter, class Call>
R call_through(Enter&& enter, Call&& call) {
  if constexpr (std::is_void_v<R>) {
    enter(call);
  } else {
    ResultSlot<R> slot;
    auto fill = [&](auto&&... args) {
      slot.fill([&]() -> R { return call(std::forward<decltype(args)>(args)...); });
    };
    enter(fill);
    return slot.take();
  }
}

}  // namespace tenferro::detail
