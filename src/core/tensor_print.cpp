// Printing: a header line, then nested brackets; dimensions longer than 6 show their first and
// last 3 entries around "...", once the tensor has more than 1000 elements.
#include <cstdio>
#include <ostream>

#include "core/strided.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro {

namespace {
constexpr std::int64_t kElideAbove = 1000, kEdge = 3;

template <class T>
std::string format_value(T v) {
  char buf[64];
  if constexpr (is_complex_v<T>) {
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
  if (!defined_) return "Tensor(undefined)";
  std::string out =
      "Tensor(shape=" + dims_to_string(shape_) + ", dtype=" + std::string(dtype_name(dtype_));
  if (requires_grad()) out += ", requires_grad";
  if (!storage_) return out + ", symbolic)";
  out += ")\n";
  visit_dtype(dtype_, [&](auto z) {
    using T = decltype(z);
    print_dim(out, static_cast<const T*>(data_ptr()), *this, 0, 0, numel_ > kElideAbove);
  });
  return out;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

}  // namespace tenferro
