// Finite-difference checks of reverse (VJP) and forward (JVP) derivatives, usable for any op.
//
//   EXPECT_TRUE(adtest::check_vjp(f, {x, y}));   // f: std::vector<Tensor>(std::span<const Tensor>)
//   EXPECT_TRUE(adtest::check_jvp(f, {x, y}));
//
// Inputs must be f64 or c128 (any strides, e.g. non-contiguous views); outputs any dtype.
// Central differences with step eps (default 1e-6) in double precision; an analytic value a
// passes against the difference quotient d when |a - d| <= atol + rtol * max(|a|, |d|)
// (defaults atol = 1e-6, rtol = 1e-5: the truncation error eps^2 f''' and the rounding error
// 1e-16 |f| / eps of well-scaled test functions are far below that).
//
// Complex inputs are treated as pairs of reals (conjugate-Wirtinger convention, see
// docs/autodiff.md): for a random output cotangent u, the VJP g = pullback(u) must satisfy, for
// every direction v, Re<g, v> = Re<u, J v> with <a, b> = sum conj(a) b. check_vjp tests this for
// each real coordinate direction of each input element (both parts for complex) when the inputs
// have at most `max_exhaustive` elements in total, and along 8 random directions otherwise.
// check_jvp compares jvp(f, x, v) elementwise with (f(x + eps v) - f(x - eps v)) / (2 eps).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <sstream>
#include <vector>

#include "core/strided.hpp"
#include "tenferro/autodiff.hpp"

namespace tenferro::adtest {

struct FdOptions {
  double eps = 1e-6;
  double rtol = 1e-5;
  double atol = 1e-6;
  std::int64_t max_exhaustive = 200;
  std::uint64_t seed = 17;
};

using FdFn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

namespace fd {

inline std::vector<c128> values(const Tensor& t) {
  std::vector<c128> v(static_cast<std::size_t>(t.numel()));
  if (t.numel()) detail::copy_to_contiguous(t, v.data(), DType::c128);
  return v;
}

inline Tensor make(const std::vector<c128>& v, const Tensor& like) {
  if (like.dtype() == DType::c128) return from_vector<c128>(v, like.shape());
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) r[i] = v[i].real();
  return from_vector<double>(r, like.shape());
}

// f(x + s * dir) for all inputs, evaluated without any autodiff state.
inline std::vector<std::vector<c128>> eval_shifted(const FdFn& f, std::span<const Tensor> x,
                                                   const std::vector<std::vector<c128>>& dir,
                                                   double s) {
  std::vector<Tensor> shifted;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<c128> v = values(x[i]);
    for (std::size_t j = 0; j < v.size(); ++j) v[j] += s * dir[i][j];
    shifted.push_back(make(v, x[i]));
  }
  std::vector<std::vector<c128>> out;
  for (const Tensor& y : f(shifted)) out.push_back(values(y));
  return out;
}

inline std::vector<std::vector<c128>> central(const FdFn& f, std::span<const Tensor> x,
                                              const std::vector<std::vector<c128>>& dir,
                                              double eps) {
  auto p = eval_shifted(f, x, dir, eps), m = eval_shifted(f, x, dir, -eps);
  for (std::size_t k = 0; k < p.size(); ++k)
    for (std::size_t j = 0; j < p[k].size(); ++j) p[k][j] = (p[k][j] - m[k][j]) / (2 * eps);
  return p;
}

// Re sum conj(a) b
inline double rdot(const std::vector<c128>& a, const std::vector<c128>& b) {
  double s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) s += (std::conj(a[j]) * b[j]).real();
  return s;
}

inline bool close(double a, double d, const FdOptions& o) {
  return std::abs(a - d) <= o.atol + o.rtol * std::max(std::abs(a), std::abs(d));
}

inline std::vector<std::vector<c128>> zeros_like(std::span<const Tensor> x) {
  std::vector<std::vector<c128>> d;
  for (const Tensor& t : x) d.emplace_back(static_cast<std::size_t>(t.numel()));
  return d;
}

inline ::testing::AssertionResult check_inputs(std::span<const Tensor> x) {
  for (const Tensor& t : x)
    if (t.dtype() != DType::f64 && t.dtype() != DType::c128)
      return ::testing::AssertionFailure()
             << "finite differences need f64/c128 inputs, got " << dtype_name(t.dtype());
  return ::testing::AssertionSuccess();
}

}  // namespace fd

/// Checks the VJP of f at x against central differences (see the file comment).
inline ::testing::AssertionResult check_vjp(const FdFn& f, std::vector<Tensor> x,
                                            FdOptions o = {}) {
  if (auto r = fd::check_inputs(x); !r) return r;
  VjpResult res = vjp(MultiFn(f), x);
  std::vector<Tensor> us;
  std::vector<std::vector<c128>> u;
  for (std::size_t k = 0; k < res.outputs.size(); ++k) {
    us.push_back(randn(res.outputs[k].shape(), o.seed + k, res.outputs[k].dtype()));
    u.push_back(fd::values(us.back()));
  }
  std::vector<std::vector<c128>> g;
  for (const Tensor& t : res.pullback(us)) g.push_back(fd::values(t));
  auto rhs = [&](const std::vector<std::vector<c128>>& dir) {
    auto d = fd::central(f, x, dir, o.eps);
    double s = 0;
    for (std::size_t k = 0; k < d.size(); ++k) s += fd::rdot(u[k], d[k]);
    return s;
  };
  std::int64_t total = 0;
  for (const Tensor& t : x) total += t.numel();
  std::ostringstream fails;
  int nfail = 0;
  if (total <= o.max_exhaustive) {
    for (std::size_t i = 0; i < x.size(); ++i)
      for (std::size_t j = 0; j < g[i].size(); ++j)
        for (int part = 0; part < (x[i].dtype() == DType::c128 ? 2 : 1); ++part) {
          auto dir = fd::zeros_like(x);
          dir[i][j] = part ? c128(0, 1) : c128(1, 0);
          double a = part ? g[i][j].imag() : g[i][j].real(), d = rhs(dir);
          if (!fd::close(a, d, o) && nfail++ < 5)
            fails << "\n  input " << i << " element " << j << (part ? " (imag)" : " (real)")
                  << ": vjp " << a << " vs finite difference " << d;
        }
  } else {
    for (int r = 0; r < 8; ++r) {
      std::vector<std::vector<c128>> dir;
      for (std::size_t i = 0; i < x.size(); ++i)
        dir.push_back(fd::values(randn(x[i].shape(), o.seed * 131 + r * 7 + i, x[i].dtype())));
      double a = 0;
      for (std::size_t i = 0; i < x.size(); ++i) a += fd::rdot(g[i], dir[i]);
      double d = rhs(dir);
      if (!fd::close(a, d, o) && nfail++ < 5)
        fails << "\n  random direction " << r << ": <vjp, v> " << a << " vs finite difference "
              << d;
    }
  }
  if (nfail) return ::testing::AssertionFailure() << nfail << " VJP mismatches:" << fails.str();
  return ::testing::AssertionSuccess();
}

/// Checks the JVP of f at x along random tangents against central differences.
inline ::testing::AssertionResult check_jvp(const FdFn& f, std::vector<Tensor> x,
                                            FdOptions o = {}) {
  if (auto r = fd::check_inputs(x); !r) return r;
  std::vector<Tensor> ts;
  std::vector<std::vector<c128>> dir;
  for (std::size_t i = 0; i < x.size(); ++i) {
    ts.push_back(randn(x[i].shape(), o.seed * 31 + i, x[i].dtype()));
    dir.push_back(fd::values(ts.back()));
  }
  JvpResult res = jvp(MultiFn(f), x, ts);
  auto d = fd::central(f, x, dir, o.eps);
  std::ostringstream fails;
  int nfail = 0;
  for (std::size_t k = 0; k < d.size(); ++k) {
    std::vector<c128> a = fd::values(res.tangents[k]);
    for (std::size_t j = 0; j < a.size(); ++j)
      if ((!fd::close(a[j].real(), d[k][j].real(), o) ||
           !fd::close(a[j].imag(), d[k][j].imag(), o)) &&
          nfail++ < 5)
        fails << "\n  output " << k << " element " << j << ": jvp " << a[j]
              << " vs finite difference " << d[k][j];
  }
  if (nfail) return ::testing::AssertionFailure() << nfail << " JVP mismatches:" << fails.str();
  return ::testing::AssertionSuccess();
}

}  // namespace tenferro::adtest
