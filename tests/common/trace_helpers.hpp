// Helpers for the trace tests: value comparison and a global allocation counter.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <complex>
#include <cstdint>
#include <vector>

#include "tenferro/tensor.hpp"

namespace trace_test {

/// Number of global operator new calls so far on this thread (operator new is replaced in
/// tests/trace/alloc_counter.cpp).
std::uint64_t allocations_on_this_thread();

/// Elements of any-dtype tensor as complex<long double> in row-major order.
inline std::vector<std::complex<long double>> values(const tenferro::Tensor& t) {
  std::vector<std::complex<long double>> out;
  tenferro::visit_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    for (T v : t.to_vector<T>()) out.emplace_back(std::complex<long double>(v));
  });
  return out;
}

/// Same shape and dtype, elements within atol + rtol*|b|.
inline ::testing::AssertionResult near(const tenferro::Tensor& a, const tenferro::Tensor& b,
                                       double rtol = 1e-12, double atol = 1e-12) {
  if (!a.defined() || !b.defined()) return ::testing::AssertionFailure() << "undefined tensor";
  if (!(a.shape() == b.shape()) || a.dtype() != b.dtype())
    return ::testing::AssertionFailure()
           << "spec " << tenferro::dims_to_string(a.shape()) << " "
           << tenferro::dtype_name(a.dtype()) << " vs " << tenferro::dims_to_string(b.shape())
           << " " << tenferro::dtype_name(b.dtype());
  auto x = values(a), y = values(b);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::abs(x[i] - y[i]) > atol + rtol * std::abs(y[i]))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << static_cast<double>(x[i].real()) << "+"
             << static_cast<double>(x[i].imag()) << "i vs " << static_cast<double>(y[i].real())
             << "+" << static_cast<double>(y[i].imag()) << "i";
  return ::testing::AssertionSuccess();
}

}  // namespace trace_test
