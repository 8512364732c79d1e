// The elementwise primitives' JVP and VJP rules, called directly (the autodiff interpreters are
// tested elsewhere): JVP against central finite differences, VJP as the adjoint of the JVP under
// the real inner product Re(sum conj(u) v) -- which is exactly PyTorch's conjugate-Wirtinger
// convention (dL = Re<grad, dz>).
#include <gtest/gtest.h>

#include "common/elementwise_table.hpp"
#include "primitives/elementwise_common.hpp"

namespace tenferro::testing {
namespace {

long double real_dot(const Tensor& u, const Tensor& v) {
  auto uv = values_of(u), vv = values_of(v);
  EXPECT_EQ(uv.size(), vv.size());
  long double s = 0;
  for (std::size_t i = 0; i < uv.size() && i < vv.size(); ++i)
    s += (std::conj(uv[i]) * vv[i]).real();
  return s;
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  EXPECT_EQ(got.shape(), want.shape()) << what;
  auto g = values_of(got), w = values_of(want);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_LE(std::abs(g[i] - w[i]), tol * (1 + std::abs(w[i]))) << what << " at " << i;
}

Domain smooth(Domain d) { return d == Domain::small_ints ? Domain::any : d; }
constexpr double kStep = 1e-6, kFdTol = 1e-6;

TEST(ElementwiseRules, Unary) {
  for (const UnaryRow& row : unary_table()) {
    if (!row.differentiable) continue;
    auto p = detail::elementwise_primitive(row.name);
    ASSERT_TRUE(p) << row.name;
    for (DType d : {DType::f64, DType::c128}) {
      if (is_complex(d) && !row.complex_ok) continue;
      const std::string what = std::string(row.name) + " " + std::string(dtype_name(d));
      Tensor x = make_input({2, 3}, d, smooth(row.domain), 81);
      Tensor t = make_input({2, 3}, d, Domain::any, 82) * 0.1;
      Tensor y = row.fn(x);
      Tensor xs[1] = {x}, ys[1] = {y}, ts[1] = {t}, jt[1];
      p->jvp(xs, ys, ts, jt);
      Tensor fd = (row.fn(x + kStep * t) - row.fn(x - kStep * t)) / (2 * kStep);
      expect_close(jt[0], fd, kFdTol, what + " jvp");
      EXPECT_EQ(jt[0].dtype(), y.dtype()) << what;

      Tensor ct = make_input(y.shape(), y.dtype(), Domain::any, 83);
      Tensor cts[1] = {ct}, g[1];
      bool needs[1] = {true};
      p->vjp(xs, ys, cts, std::span<const bool>(needs, 1), g);
      ASSERT_TRUE(g[0].defined()) << what;
      EXPECT_EQ(g[0].dtype(), x.dtype()) << what;
      const long double lhs = real_dot(ct, jt[0]), rhs = real_dot(g[0], t);
      EXPECT_NEAR(static_cast<double>(lhs), static_cast<double>(rhs),
                  1e-10 * (1 + std::abs(static_cast<double>(lhs))))
          << what << " vjp is not the adjoint of jvp";
    }
  }
}

TEST(ElementwiseRules, Binary) {
  const std::pair<DType, DType> pairs[] = {{DType::f64, DType::f64},
                                           {DType::c128, DType::c128},
                                           {DType::f64, DType::c128},
                                           {DType::c128, DType::f64}};
  // Broadcast operands: the VJP sums the cotangent back to each operand's shape.
  const std::pair<Dims, Dims> shapes[] = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{2, 1}, {1, 3}}, {{}, {2, 3}}};
  for (const BinaryRow& row : binary_table()) {
    if (!row.differentiable) continue;
    auto p = detail::elementwise_primitive(row.name);
    ASSERT_TRUE(p) << row.name;
    for (auto [da, db] : pairs)
      for (auto [sa, sb] : shapes) {
        if (!row.complex_ok && (is_complex(da) || is_complex(db))) continue;
        const std::string what = std::string(row.name) + " " + std::string(dtype_name(da)) + "," +
                                 std::string(dtype_name(db)) + " " + dims_to_string(sa) + "," +
                                 dims_to_string(sb);
        Tensor a = make_input(sa, da, smooth(row.domain_a), 91);
        Tensor b = make_input(sb, db, smooth(row.domain_b), 92);
        Tensor ta = make_input(sa, da, Domain::any, 93) * 0.1;
        Tensor tb = make_input(sb, db, Domain::any, 94) * 0.1;
        Tensor y = row.fn(a, b);
        Tensor xs[2] = {a, b}, ys[1] = {y}, ts[2] = {ta, tb}, jt[1];
        p->jvp(xs, ys, ts, jt);
        Tensor fd =
            (row.fn(a + kStep * ta, b + kStep * tb) - row.fn(a - kStep * ta, b - kStep * tb)) /
            (2 * kStep);
        expect_close(jt[0], fd, kFdTol, what + " jvp");
        EXPECT_EQ(jt[0].dtype(), y.dtype()) << what;
        // Only one tangent: the other counts as zero.
        Tensor t1[2] = {ta, Tensor()}, j1[1];
        p->jvp(xs, ys, t1, j1);
        expect_close(j1[0], (row.fn(a + kStep * ta, b) - row.fn(a - kStep * ta, b)) / (2 * kStep),
                     kFdTol, what + " jvp (a only)");

        Tensor ct = make_input(y.shape(), y.dtype(), Domain::any, 95);
        Tensor cts[1] = {ct}, g[2];
        bool needs[2] = {true, true};
        p->vjp(xs, ys, cts, std::span<const bool>(needs, 2), g);
        ASSERT_TRUE(g[0].defined() && g[1].defined()) << what;
        EXPECT_EQ(g[0].dtype(), da) << what;
        EXPECT_EQ(g[1].dtype(), db) << what;
        const long double lhs = real_dot(ct, jt[0]), rhs = real_dot(g[0], ta) + real_dot(g[1], tb);
        EXPECT_NEAR(static_cast<double>(lhs), static_cast<double>(rhs),
                    1e-10 * (1 + std::abs(static_cast<double>(lhs))))
            << what << " vjp is not the adjoint of jvp";
      }
  }
}

TEST(ElementwiseRules, BinaryWithScalarOperand) {
  for (const BinaryRow& row : binary_table()) {
    if (!row.differentiable) continue;
    for (DType d : {DType::f64, DType::c128})
      for (Scalar s : {Scalar(0.7), Scalar(0.7, -0.3)})
        for (auto side : {detail::ScalarSide::left, detail::ScalarSide::right}) {
          if (!row.complex_ok && (is_complex(d) || s.imag() != 0)) continue;
          const bool left = side == detail::ScalarSide::left;
          const std::string what = std::string(row.name) + " " + std::string(dtype_name(d)) +
                                   (left ? " scalar-left " : " scalar-right ") +
                                   std::to_string(s.imag());
          auto p = detail::elementwise_primitive(row.name, side, s);
          ASSERT_TRUE(p) << what;
          auto f = [&](const Tensor& x) { return detail::bind1(*p, {x}); };
          Tensor x = make_input({2, 3}, d, smooth(left ? row.domain_b : row.domain_a), 101);
          Tensor t = make_input({2, 3}, d, Domain::any, 102) * 0.1;
          Tensor y = f(x);
          Tensor xs[1] = {x}, ys[1] = {y}, ts[1] = {t}, jt[1];
          p->jvp(xs, ys, ts, jt);
          expect_close(jt[0], (f(x + kStep * t) - f(x - kStep * t)) / (2 * kStep), kFdTol,
                       what + " jvp");
          Tensor ct = make_input(y.shape(), y.dtype(), Domain::any, 103), cts[1] = {ct}, g[1];
          bool needs[1] = {true};
          p->vjp(xs, ys, cts, std::span<const bool>(needs, 1), g);
          ASSERT_TRUE(g[0].defined()) << what;
          EXPECT_EQ(g[0].dtype(), d) << what;
          const double lhs = static_cast<double>(real_dot(ct, jt[0]));
          EXPECT_NEAR(lhs, static_cast<double>(real_dot(g[0], t)), 1e-10 * (1 + std::abs(lhs)))
              << what;
        }
  }
}

TEST(ElementwiseRules, Where) {
  auto p = detail::elementwise_primitive("where");
  ASSERT_TRUE(p);
  Tensor c = make_input({2, 3}, DType::f64, Domain::small_ints, 1);
  Tensor a = make_input({2, 3}, DType::c128, Domain::any, 2),
         b = make_input({2, 3}, DType::f64, Domain::any, 3);
  Tensor ta = make_input({2, 3}, DType::c128, Domain::any, 4),
         tb = make_input({2, 3}, DType::f64, Domain::any, 5);
  Tensor y = where(c, a, b);
  Tensor xs[3] = {c, a, b}, ys[1] = {y}, ts[3] = {Tensor(), ta, tb}, jt[1];
  p->jvp(xs, ys, ts, jt);
  expect_close(jt[0], where(c, ta, tb), 0, "where jvp");
  Tensor ct = make_input({2, 3}, DType::c128, Domain::any, 6), cts[1] = {ct}, g[3];
  bool needs[3] = {false, true, true};
  p->vjp(xs, ys, cts, std::span<const bool>(needs, 3), g);
  EXPECT_FALSE(g[0].defined());
  EXPECT_EQ(g[2].dtype(), DType::f64);
  const long double lhs = real_dot(ct, jt[0]), rhs = real_dot(g[1], ta) + real_dot(g[2], tb);
  EXPECT_NEAR(static_cast<double>(lhs), static_cast<double>(rhs), 1e-12);
}

}  // namespace
}  // namespace tenferro::testing
