// ScalarFn / MultiFn own their callable (issue 12, "Ergonomics that currently fail"): a TensorFn
// made from a lambda stays valid after the lambda expression ended. Before, TensorFn referred to
// the callable, so `ScalarFn f = [..](..){..};` dangled (AddressSanitizer: stack-use-after-scope).
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "common/expect_error.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;

namespace {

std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

// The lambda and its captured `scale` are gone when this returns; the ScalarFn must own a copy.
ScalarFn scaled_square_sum(double scale) {
  return [scale](std::span<const Tensor> x) { return mul(sum(mul(x[0], x[0])), scale); };
}

Tensor square_sum(std::span<const Tensor> x) { return sum(mul(x[0], x[0])); }

void expect_values(const Tensor& t, const std::vector<double>& want) {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

std::vector<double> times(const Tensor& t, double k) {
  std::vector<double> v = values(t);
  for (double& e : v) e *= k;
  return v;
}

}  // namespace

TEST(TensorFn, StoredLambdaIsUsableAfterItsExpressionEnded) {
  Tensor x = randn({3}, 1);
  ScalarFn f = [](std::span<const Tensor> in) { return sum(mul(in[0], in[0])); };
  expect_values(grad(f, {x})[0], times(x, 2));
  ScalarFn g = scaled_square_sum(3.0);  // returned out of the scope that made the lambda
  expect_values(grad(g, {x})[0], times(x, 6));
  expect_values(value_and_grad(g, {x}).value, {3 * values(sum(mul(x, x)))[0]});
}

TEST(TensorFn, CapturesStateByValue) {
  Tensor x = randn({3}, 2);
  ScalarFn f;
  {
    std::vector<Tensor> weights = {randn({3}, 3)};
    f = [weights](std::span<const Tensor> in) { return sum(mul(in[0], weights[0])); };
    weights[0] = zeros({3});  // the TensorFn has its own copy of the vector
  }
  std::vector<Tensor> g = grad(f, {x});
  expect_values(g[0], values(randn({3}, 3)));
}

TEST(TensorFn, AcceptsMoveOnlyCallables) {
  Tensor x = randn({3}, 4);
  auto k = std::make_unique<double>(5.0);
  ScalarFn f = [k = std::move(k)](std::span<const Tensor> in) {
    return mul(sum(mul(in[0], in[0])), *k);
  };
  expect_values(grad(f, {x})[0], times(x, 10));
  ScalarFn moved = std::move(f);
  EXPECT_FALSE(static_cast<bool>(f));  // NOLINT(bugprone-use-after-move): checked on purpose
  expect_values(grad(moved, {x})[0], times(x, 10));
}

TEST(TensorFn, LargeCallableGoesToTheHeapAndStaysValid) {
  Tensor x = randn({4}, 5);
  MultiFn f;
  {
    std::array<double, 32> big{};  // 256 bytes: beyond the inline buffer
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i);
    f = [big](std::span<const Tensor> in) { return std::vector<Tensor>{mul(in[0], big[3])}; };
  }
  VjpResult r = vjp(f, {x});
  expect_values(r.outputs[0], times(x, 3));
  expect_values(r.pullback({ones({4})})[0], {3, 3, 3, 3});
  MultiFn g = std::move(f);  // moves the heap pointer
  expect_values(jvp(g, {x}, {ones({4})}).tangents[0], {3, 3, 3, 3});
}

TEST(TensorFn, FunctionsAndFunctionPointers) {
  Tensor x = randn({3}, 6);
  ScalarFn by_name = square_sum;
  ScalarFn by_pointer = &square_sum;
  Tensor (*raw)(std::span<const Tensor>) = square_sum;
  expect_values(grad(by_name, {x})[0], times(x, 2));
  expect_values(grad(by_pointer, {x})[0], times(x, 2));
  expect_values(grad(raw, {x})[0], times(x, 2));
  expect_values(grad(square_sum, {x})[0], times(x, 2));
  Tensor (*null)(std::span<const Tensor>) = nullptr;
  ScalarFn empty = null;
  EXPECT_FALSE(static_cast<bool>(empty));
  expect_error([&] { grad(empty, {x}); }, ErrorKind::InvalidArgument, {"empty"});
  expect_error([&] { ScalarFn()(std::span<const Tensor>()); }, ErrorKind::InvalidArgument,
               {"empty"});
}

TEST(TensorFn, CallablesTakingAVectorStillWork) {
  Tensor x = randn({3}, 7), y = randn({3}, 8);
  ScalarFn f = [](const std::vector<Tensor>& in) { return sum(mul(in[0], in[1])); };
  std::vector<Tensor> g = grad(f, {x, y});
  expect_values(g[0], values(y));
  expect_values(g[1], values(x));
}

TEST(TensorFn, MutableLambdaKeepsItsStateAcrossCalls) {
  Tensor x = randn({3}, 9);
  int calls = 0;
  ScalarFn f = [n = 0, &calls](std::span<const Tensor> in) mutable {
    calls = ++n;
    return sum(in[0]);
  };
  (void)grad(f, {x});
  (void)grad(f, {x});
  EXPECT_EQ(calls, 2);
}

TEST(TensorFn, DestroysItsCallableExactlyOnce) {
  auto token = std::make_shared<int>(0);
  {
    ScalarFn small = [token](std::span<const Tensor> in) { return sum(in[0]); };
    std::array<double, 16> pad{};
    ScalarFn big = [token, pad](std::span<const Tensor> in) { return mul(sum(in[0]), pad[0]); };
    EXPECT_EQ(token.use_count(), 3);
    ScalarFn a = std::move(small), b = std::move(big);
    EXPECT_EQ(token.use_count(), 3) << "moving neither copies nor drops the callable";
    a = std::move(b);  // a's callable is destroyed, b's moves in
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_EQ(token.use_count(), 1);
}

TEST(TensorFn, StdRefRefersInsteadOfCopying) {
  Tensor x = randn({3}, 10);
  int copies = 0;
  struct Counted {
    int* copies;
    Counted(int* c) : copies(c) {}  // NOLINT
    Counted(const Counted& o) : copies(o.copies) { ++*copies; }
    Tensor operator()(std::span<const Tensor> in) const { return sum(mul(in[0], in[0])); }
  } fn(&copies);
  (void)grad(std::ref(fn), {x});
  EXPECT_EQ(copies, 0);
  (void)grad(fn, {x});
  EXPECT_EQ(copies, 1) << "an lvalue callable is copied into the temporary TensorFn";
}
