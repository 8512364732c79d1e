// Typed identity of a primitive's parameters: equality and hashing without formatting text.
//
// Note [Typed params]: two primitives are the same operation when they have the same dynamic type,
// the same name and equal parameters. Each primitive class lists its parameters once, in
// `auto key() const { return std::tie(a_, b_); }`; PrimitiveWith<Derived> turns that list into
// same_as() (CSE, program equality) and params_hash() (program fingerprints, the eager cache).
// Doubles compare and hash by bit pattern, so -0.0 and 0.0 are different parameters (they can
// give different results) and a NaN parameter equals itself. Derived data (masks computed from
// the parameters) is left out of key(): it follows from what is in it.
#pragma once

#include <bit>
#include <complex>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tenferro/small_vector.hpp"

namespace tenferro::detail {

/// A cheap 64-bit running hash (multiply-xorshift per word): the eager cache hashes parameters and
/// input layouts on every call, so each word costs a few instructions, not a full mix.
struct KeyHasher {
  std::uint64_t h = 0x243f6a8885a308d3ull;
  void add(std::uint64_t v) noexcept {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  /// Length, first and last (up to) 8 bytes: op names are short and differ there; equality
  /// still compares the whole name.
  void add(std::string_view s) noexcept {
    add(s.size());
    add(word(s.data(), s.size() < 8 ? s.size() : 8));
    if (s.size() > 8) add(word(s.data() + s.size() - 8, 8));
  }

 private:
  static std::uint64_t word(const char* p, std::size_t n) noexcept {
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < n; ++i) w = w << 8 | static_cast<unsigned char>(p[i]);
    return w;
  }
};

// ---- one overload pair (equal, hash) per parameter type ----
// The tuple pair is declared first: every other template may reach it, and ADL would not find it
// for tuples of types outside this namespace.
template <class... A, class... B>
bool key_equal(const std::tuple<A...>& a, const std::tuple<B...>& b) noexcept;
template <class... A>
void key_hash(KeyHasher& h, const std::tuple<A...>& t) noexcept;

template <class T>
requires(std::is_integral_v<T> || std::is_enum_v<T>) bool key_equal(T a, T b) noexcept {
  return a == b;
}
template <class T>
requires(std::is_integral_v<T> || std::is_enum_v<T>) void key_hash(KeyHasher& h, T v) noexcept {
  h.add(static_cast<std::uint64_t>(v));
}

inline bool key_equal(double a, double b) noexcept {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}
inline void key_hash(KeyHasher& h, double v) noexcept { h.add(std::bit_cast<std::uint64_t>(v)); }

inline bool key_equal(const std::complex<double>& a, const std::complex<double>& b) noexcept {
  return key_equal(a.real(), b.real()) && key_equal(a.imag(), b.imag());
}
inline void key_hash(KeyHasher& h, const std::complex<double>& v) noexcept {
  key_hash(h, v.real());
  key_hash(h, v.imag());
}

template <class T, std::size_t N>
bool key_equal(const SmallVector<T, N>& a, const SmallVector<T, N>& b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!key_equal(a[i], b[i])) return false;
  return true;
}
template <class T, std::size_t N>
void key_hash(KeyHasher& h, const SmallVector<T, N>& v) noexcept {
  h.add(v.size());
  for (const T& x : v) key_hash(h, x);
}

template <class T>
bool key_equal(const std::optional<T>& a, const std::optional<T>& b) noexcept {
  if (a.has_value() != b.has_value()) return false;
  return !a || key_equal(*a, *b);
}
template <class T>
void key_hash(KeyHasher& h, const std::optional<T>& v) noexcept {
  h.add(v.has_value());
  if (v) key_hash(h, *v);
}

/// Parameter structs opt in with their own key(): their fields are compared as a tuple.
template <class T>
requires requires(const T& t) { t.key(); }
bool key_equal(const T& a, const T& b) noexcept { return key_equal(a.key(), b.key()); }
template <class T>
requires requires(const T& t) { t.key(); }
void key_hash(KeyHasher& h, const T& v) noexcept { key_hash(h, v.key()); }

template <class... A, class... B>
bool key_equal(const std::tuple<A...>& a, const std::tuple<B...>& b) noexcept {
  static_assert(sizeof...(A) == sizeof...(B));
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return (key_equal(std::get<I>(a), std::get<I>(b)) && ...);
  }
  (std::index_sequence_for<A...>{});
}
template <class... A>
void key_hash(KeyHasher& h, const std::tuple<A...>& t) noexcept {
  std::apply([&](const auto&... x) { (key_hash(h, x), ...); }, t);
}

}  // namespace tenferro::detail
