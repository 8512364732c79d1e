// Finite-difference check of one primitive's JVP and VJP rules, called directly (no autodiff
// engine needed). Conjugate-Wirtinger convention: for the real inner product
// <a, b> = Re sum(conj(a) * b), the rules must satisfy
//   jvp(v) ~= (f(x + h v) - f(x - h v)) / 2h   and   <vjp(ct), v> == <ct, jvp(v)>.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/reduce_ref.hpp"
#include "primitives/primitive.hpp"

namespace tenferro::testing {

inline long double re_inner(const RefTensor& a, const RefTensor& b) {
  long double s = 0;
  for (std::size_t i = 0; i < a.v.size(); ++i) s += (std::conj(a.v[i]) * b.v[i]).real();
  return s;
}

inline Tensor axpy(const Tensor& x, long double h, const Tensor& v) {
  RefTensor r = to_ref(x), d = to_ref(v);
  for (std::size_t i = 0; i < r.v.size(); ++i) r.v[i] += h * d.v[i];
  return from_ref(r, x.dtype());
}

/// Checks p's rules at `xs` (f64/c128 inputs) along seeded random directions.
inline void check_rules_fd(const detail::Primitive& p, const std::vector<Tensor>& xs,
                           std::uint64_t seed, const std::string& what, double tol = 1e-6) {
  const std::span<const Tensor> in(xs.data(), xs.size());
  const Tensor y = detail::bind1(p, in);
  std::vector<Tensor> vs, plus, minus;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    vs.push_back(make_input(xs[i].shape(), xs[i].dtype(), Domain::normal, seed + i));
    plus.push_back(axpy(xs[i], 1e-6L, vs[i]));
    minus.push_back(axpy(xs[i], -1e-6L, vs[i]));
  }
  RefTensor fd = to_ref(detail::bind1(p, std::span<const Tensor>(plus.data(), plus.size())));
  const RefTensor fm =
      to_ref(detail::bind1(p, std::span<const Tensor>(minus.data(), minus.size())));
  for (std::size_t i = 0; i < fd.v.size(); ++i) fd.v[i] = (fd.v[i] - fm.v[i]) / 2e-6L;

  Tensor outs[1] = {y}, tangent[1];
  p.jvp(in, outs, std::span<const Tensor>(vs.data(), vs.size()), tangent);
  ASSERT_TRUE(tangent[0].defined()) << what;
  ASSERT_EQ(tangent[0].shape(), y.shape()) << what;
  ASSERT_EQ(tangent[0].dtype(), y.dtype()) << what;
  const RefTensor jv = to_ref(tangent[0]);
  for (std::size_t i = 0; i < fd.v.size(); ++i)
    EXPECT_LE(std::abs(jv.v[i] - fd.v[i]), tol * (1 + std::abs(fd.v[i])))
        << what << " jvp at " << i;

  const Tensor ct[1] = {make_input(y.shape(), y.dtype(), Domain::normal, seed + 100)};
  std::vector<char> needs(xs.size(), 1);
  std::vector<Tensor> in_ct(xs.size());
  bool needs_b[8] = {true, true, true, true, true, true, true, true};
  p.vjp(in, outs, ct, std::span<const bool>(needs_b, xs.size()), in_ct);
  long double lhs = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    ASSERT_TRUE(in_ct[i].defined()) << what << " input " << i;
    ASSERT_EQ(in_ct[i].shape(), xs[i].shape()) << what << " input " << i;
    ASSERT_EQ(in_ct[i].dtype(), xs[i].dtype()) << what << " input " << i;
    lhs += re_inner(to_ref(in_ct[i]), to_ref(vs[i]));
  }
  const long double rhs = re_inner(to_ref(ct[0]), fd);
  EXPECT_LE(std::abs(lhs - rhs), tol * (1 + std::abs(rhs)))
      << what << " vjp: " << lhs << " vs " << rhs;
}

}  // namespace tenferro::testing
