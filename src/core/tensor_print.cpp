// Printing: a header line, then nested brackets; dimensions longer than 6 show their first and
// last 3 entries around "...", once the tensor has more than 1000 elements. When even the elided
// form would show more than kShowAtMost values (many short dimensions, e.g. a broadcast view of
// shape [2, 2, ..., 2]), only the header and a count are printed.
#include <algorithm>
#include <cstdio>
#include <ostream>
#include <type_traits>

#include "core/strided.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

namespace {
constexpr std::int64_t kElideAbove = 1000, kEdge = 3, kShowAtMost = 10000;

// Values the (possibly elided) form shows, saturating at kShowAtMost + 1.
std::int64_t shown(const Tensor& t, bool elide) {
  std::int64_t n = 1;
  for (std::int64_t d : t.shape()) {
    n *= elide ? std::min(d, 2 * kEdge) : d;
    if (n > kShowAtMost) return kShowAtMost + 1;
  }
  return n;
}

template <class T>
std::string format_value(T v) {
  char buf[64];
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_unsigned_v<T>) {  // u64 above INT64_MAX prints in full too
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  } else if constexpr (std::is_integral_v<T>) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else if constexpr (is_complex_v<T>) {
    std::snprintf(buf, sizeof buf, "%.6g%+.6gi", static_cast<double>(v.real()),
                  static_cast<double>(v.imag()));
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  }
  return buf;
}

template <class T>
void print_dim(std::string& out, const T* base, const Tensor& t, std::size_t dim, std::int64_t off,
               bool elide) {
  if (dim == t.shape().size()) {
    out += format_value(base[off]);
    return;
  }
  std::int64_t n = t.shape()[dim];
  bool cut = elide && n > 2 * kEdge;
  out += '[';
  for (std::int64_t i = 0; i < n; ++i) {
    if (i > 0) out += dim + 1 == t.shape().size() ? ", " : ",\n" + std::string(dim + 1, ' ');
    if (cut && i == kEdge) {
      out += "...";
      i = n - kEdge - 1;
      continue;
    }
    print_dim(out, base, t, dim + 1, off + i * t.strides()[dim], elide);
  }
  out += ']';
}
}  // namespace

std::string Tensor::to_string() const {
  if (!defined()) return "Tensor(undefined)";
  std::string out =
      "Tensor(shape=" + dims_to_string(shape()) + ", dtype=" + std::string(dtype_name(dtype()));
  if (requires_grad()) out += ", requires_grad";
  if (!storage_) return out + ", symbolic)";
  out += ")\n";
  if (shown(*this, numel() > kElideAbove) > kShowAtMost)
    return out + "[... " + std::to_string(numel()) + " elements not shown ...]";
  visit_dtype(dtype(), [&](auto z) {
    using T = decltype(z);
    print_dim(out, static_cast<const T*>(data_ptr()), *this, 0, 0, numel() > kElideAbove);
  });
  return out;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

}  // namespace tenferro
