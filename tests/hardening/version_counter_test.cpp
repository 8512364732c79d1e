// Version counters (Note [Version counter] in tenferro/storage.hpp, Notes [Saved versions] and
// [Tangent versions] in src/autodiff): a tensor that autodiff saved or attached as a tangent and
// that is then written in place must give Error{RuntimeState} naming both ops, never a silently
// wrong derivative; an error changes nothing; unrelated in-place writes raise no false error.
#include <gtest/gtest.h>

#include <vector>

#include "common/expect_error.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;

namespace {

std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

std::uint32_t version(const Tensor& t) { return t.storage()->current_version(); }

}  // namespace

// Issue 12, "Silent wrong gradient": y = sum(mul(w, x)); add_into(x, x, x); backward(y) gave a
// gradient of w twice the right one, with no error.
TEST(VersionCounter, SavedInputWrittenByAddIntoIsAnErrorNotATwiceTooLargeGradient) {
  Tensor w = randn({3}, 1).requires_grad_();
  Tensor x = randn({3}, 2);
  Tensor y = sum(mul(w, x));
  add_into(x, x, x);
  expect_error([&] { backward(y); }, ErrorKind::RuntimeState,
               {"backward: ", "input 1 ([3] f64) of 'mul'", "saved for the gradient",
                "modified in place by 'add_into'", "after 'mul' saved it", "version 0, now 1"});
  EXPECT_FALSE(w.grad().defined()) << "the failed backward must not touch the leaf";
}

TEST(VersionCounter, InPlaceWritesBumpTheStorageOnlyWhenTheyHappen) {
  Tensor x = zeros({4});
  EXPECT_EQ(version(x), 0u);
  add_into(x, x, 1.0);
  EXPECT_EQ(version(x), 1u);
  x.set<double>({0}, 2.0);
  EXPECT_EQ(version(x), 2u);
  Tensor view = x.slice(0, 1, 3);
  EXPECT_EQ(version(view), 2u) << "views share their storage's counter";
  neg_into(view, view);
  EXPECT_EQ(version(x), 3u);
  Tensor wrong = zeros({5});
  expect_error([&] { add_into(wrong, x, x); }, ErrorKind::ShapeMismatch);
  EXPECT_EQ(version(wrong), 0u) << "a rejected write does not count";
  Tensor none = zeros({0});
  add_into(none, none, none);
  EXPECT_EQ(version(none), 0u) << "a write of no element does not count";
  Tensor fresh = add(x, x);
  EXPECT_EQ(version(x), 3u) << "reading a tensor does not count";
  EXPECT_EQ(version(fresh), 0u);
}

TEST(VersionCounter, SliceOfASavedTensorWrittenByAnIntoOp) {
  Tensor w = randn({4}, 3).requires_grad_();
  Tensor x = randn({4}, 4);
  Tensor y = sum(mul(w, x));
  Tensor head = x.slice(0, 0, 2);
  mul_into(head, head, 2.0);
  expect_error([&] { backward(y); }, ErrorKind::RuntimeState,
               {"of 'mul'", "modified in place by 'mul_into'"});
  EXPECT_FALSE(w.grad().defined());
}

TEST(VersionCounter, ViewOfASavedTensorWrittenByTensorSet) {
  Tensor w = randn({2, 2}, 5).requires_grad_();
  Tensor x = randn({2, 2}, 6);
  Tensor y = sum(mul(w, x));
  Tensor flat = x.reshape({4});
  flat.set<double>({3}, 7.0);
  expect_error([&] { backward(y); }, ErrorKind::RuntimeState,
               {"input 1 ([2, 2] f64) of 'mul'", "modified in place by 'Tensor::set'"});
}

TEST(VersionCounter, SavedOutputWrittenThroughDetach) {
  // exp's rule reads its output: writing it through a detached alias would corrupt the gradient.
  Tensor w = randn({3}, 7).requires_grad_();
  Tensor e = exp(w);
  Tensor alias = detach(e);
  add_into(alias, alias, 1.0);
  expect_error(
      [&] { backward(e, ones({3})); }, ErrorKind::RuntimeState,
      {"output 0 ([3] f64) of 'exp', saved for the gradient,", "modified in place by 'add_into'"});
  Tensor y = sum(mul(e, 2.0));  // recorded after the write: sees the new version
  expect_error([&] { backward(y); }, ErrorKind::RuntimeState, {"of 'exp'", "'add_into'"});
  EXPECT_FALSE(w.grad().defined());
}

TEST(VersionCounter, SavedLeafWrittenBySet) {
  Tensor w = randn({3}, 8).requires_grad_();
  Tensor y = sum(mul(w, w));
  w.set<double>({1}, 0.5);
  expect_error([&] { backward(y); }, ErrorKind::RuntimeState,
               {"input 0 ([3] f64) of 'mul'", "'Tensor::set'"});
}

TEST(VersionCounter, RetainedGraphSecondBackwardAfterAWrite) {
  Tensor w = randn({3}, 9).requires_grad_();
  Tensor x = randn({3}, 10);
  Tensor y = sum(mul(w, x));
  backward(y, BackwardOptions{.retain_graph = true});
  const std::vector<double> first = values(w.grad());
  EXPECT_EQ(first, values(x));
  sub_into(x, x, 1.0);
  expect_error([&] { backward(y); }, ErrorKind::RuntimeState, {"'sub_into'"});
  EXPECT_EQ(values(w.grad()), first) << "the failed backward must not accumulate";
}

// What an error promises: nothing changed (leaves' grads, the graph, which is not freed), the
// graph stays unusable even when the values are restored (the counter never goes back), and a
// recomputed forward pass, or another graph, works.
TEST(VersionCounter, AnErrorChangesNothingAndTheGraphStaysRefused) {
  Tensor w = randn({3}, 11).requires_grad_();
  Tensor v = randn({3}, 12).requires_grad_();
  Tensor x = randn({3}, 13);
  const std::vector<double> x0 = values(x);
  backward(sum(mul(w, v)));  // both leaves hold a gradient now
  const std::vector<double> gw = values(w.grad()), gv = values(v.grad());
  Tensor y = add(sum(mul(w, x)), sum(mul(v, v)));
  Tensor other = sum(mul(v, w));
  add_into(x, x, 1.0);
  for (int attempt = 0; attempt < 2; ++attempt)  // the graph was not freed: same error again
    expect_error([&] { backward(y, BackwardOptions{.retain_graph = attempt == 0}); },
                 ErrorKind::RuntimeState, {"modified in place by 'add_into'"});
  EXPECT_EQ(values(w.grad()), gw);
  EXPECT_EQ(values(v.grad()), gv);
  sub_into(x, x, 1.0);  // restores the values, not the version
  expect_error([&] { backward(y); }, ErrorKind::RuntimeState, {"'sub_into'"});
  EXPECT_EQ(values(w.grad()), gw);

  backward(other);  // an unrelated graph on the same leaves still works
  for (std::size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(values(w.grad())[i], 2 * gw[i]);
  w.zero_grad_();
  backward(sum(mul(w, x)));  // a recomputed forward pass works
  const std::vector<double> g = values(w.grad());
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(g[i], x0[i], 1e-12);
}

TEST(VersionCounter, UnrelatedIntoWritesRaiseNoError) {
  Tensor w = randn({3}, 14).requires_grad_();
  Tensor x = randn({3}, 15);
  Tensor y = sum(mul(w, x));
  Tensor out = zeros({3});
  add_into(out, x, x);  // reads the saved x, writes another storage
  Tensor copy = add(x, 0.0);
  mul_into(copy, copy, 3.0);  // a copy of x, not x
  backward(y);
  EXPECT_EQ(values(w.grad()), values(x));
}

TEST(VersionCounter, BackwardAccumulatingInPlaceRaisesNoError) {
  // The in-place gradient accumulation counts as a write to the grad's storage; the grad is
  // never saved, so repeated backward passes are fine.
  Tensor w = randn({3}, 16).requires_grad_();
  for (int i = 0; i < 3; ++i) backward(sum(mul(w, w)));
  const std::vector<double> g = values(w.grad()), wv = values(w);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(g[i], 6 * wv[i], 1e-12);
  EXPECT_GT(version(w.grad()), 0u);
}

TEST(VersionCounter, ARecycledBufferStartsAtVersionZero) {
  // The buffer pool hands out blocks that an earlier owner wrote in place: the new tensor is
  // fresh, so its version is 0 whatever happened to the block before.
  Tensor a = randn({4}, 19);
  for (int i = 0; i < 3; ++i) {
    Tensor t = add(a, a);
    add_into(t, t, 1.0);
    EXPECT_GT(version(t), 0u);
  }  // back to the pool
  EXPECT_EQ(version(add(a, a)), 0u);
}

TEST(VersionCounter, CotangentsAccumulatedInPlaceLeaveTheCallersTensorsAlone) {
  // Backward adds a second contribution into a cotangent slot in place only when the slot owns
  // its storage alone (Note [Accumulating in place] in src/autodiff/tape.hpp): the caller's
  // cotangent and the saved tensors, which add's and mul's rules alias, keep their values.
  Tensor x = randn({3}, 20), c = randn({3}, 21);
  const std::vector<double> xv = values(x), cv = values(c);
  auto r = vjp([](std::span<const Tensor> in) { return add(in[0], in[0]); }, {x});
  const std::vector<Tensor> g = r.pullback({c});
  EXPECT_EQ(values(c), cv);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(values(g[0])[i], cv[i] + cv[i]);
  const std::vector<Tensor> h =
      grad([](std::span<const Tensor> in) { return sum(mul(in[0], in[0]) + in[0]); }, {x});
  EXPECT_EQ(values(x), xv);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(values(h[0])[i], 2 * xv[i] + 1, 1e-12);
}

TEST(VersionCounter, GradOfAFunctionThatWritesWhatItSaved) {
  Tensor x = randn({3}, 17), c = randn({3}, 18);
  auto f = [&](std::span<const Tensor> in) {
    Tensor r = sum(mul(in[0], c));
    mul_into(c, c, 3.0);  // after mul saved c
    return r;
  };
  expect_error([&] { grad(f, {x}); }, ErrorKind::RuntimeState,
               {"grad: ", "input 1 ([3] f64) of 'mul'", "'mul_into'"});
  auto g = [&](std::span<const Tensor> in) {
    Tensor r = sum(exp(in[0]));
    add_into(x, x, 1.0);  // the caller's x shares storage with the leaf
    return r;
  };
  expect_error([&] { value_and_grad(g, {x}); }, ErrorKind::RuntimeState,
               {"grad: ", "of 'exp'", "'add_into'"});
}

TEST(VersionCounter, PullbackAfterAWriteToAPrimal) {
  Tensor x = randn({3}, 19);
  VjpResult r = vjp([](std::span<const Tensor> in) { return sum(mul(in[0], in[0])); }, {x});
  Tensor one = scalar_tensor(1.0);
  const std::vector<double> g = values(r.pullback({one})[0]);
  mul_into(x, x, 2.0);
  expect_error([&] { r.pullback({one}); }, ErrorKind::RuntimeState,
               {"pullback: ", "of 'mul'", "'mul_into'"});
  expect_error([&] { r.pullback({one}); }, ErrorKind::RuntimeState, {"pullback: "});
}

// ---- Forward mode (Note [Tangent versions]) ----

TEST(VersionCounter, JvpTangentWrittenWhileInUse) {
  Tensor x = randn({3}, 20), t = randn({3}, 21);
  auto f = [&](std::span<const Tensor> in) {
    Tensor y = exp(in[0]);  // reads in[0]'s tangent (t's storage)
    mul_into(t, t, 2.0);    // the direction changes half-way
    return sum(mul(y, in[0]));
  };
  expect_error([&] { jvp(f, {x}, {t}); }, ErrorKind::RuntimeState,
               {"jvp: ", "the tangent of input 1 ([3] f64) of 'mul'", "from 'jvp'",
                "modified in place by 'mul_into'"});
}

TEST(VersionCounter, JvpPrimalWrittenAfterItsTangentWasComputed) {
  Tensor x = randn({3}, 22), t = randn({3}, 23);
  auto f = [&](std::span<const Tensor> in) {
    Tensor y = exp(in[0]);
    Tensor alias = detach(y);
    mul_into(alias, alias, 2.0);  // y's tangent (from exp's rule) no longer describes y
    return sum(y);
  };
  expect_error(
      [&] { jvp(f, {x}, {t}); }, ErrorKind::RuntimeState,
      {"jvp: ", "input 0 ([3] f64) of 'sum'", "carries a tangent from 'exp'", "'mul_into'"});
}

TEST(VersionCounter, JvpOutputTangentWrittenBeforeReturning) {
  Tensor x = randn({3}, 24), t = randn({3}, 25);
  auto f = [&](std::span<const Tensor> in) {
    Tensor y = in[0].reshape({3});  // a view: y's tangent is a view of t
    add_into(t, t, 1.0);
    return y;
  };
  expect_error([&] { jvp(f, {x}, {t}); }, ErrorKind::RuntimeState,
               {"jvp: ", "the tangent of output 0", "'add_into'"});
}

TEST(VersionCounter, ForwardOverReverseTangentOfASavedTensor) {
  // hvp-like: the tape saves in[0] with the tangent jvp attached; writing that tangent before
  // the inner backward would give a wrong H v.
  Tensor x = randn({3}, 26), v = randn({3}, 27);
  auto inner = [](std::span<const Tensor> in) { return sum(mul(in[0], in[0])); };
  auto g = [&](std::span<const Tensor> in) {
    auto loss = [&](std::span<const Tensor> z) {
      Tensor r = inner(z);
      neg_into(v, v);
      return r;
    };
    return grad(loss, in);
  };
  expect_error([&] { jvp(g, {x}, {v}); }, ErrorKind::RuntimeState,
               {"grad: ", "the tangent of input 0 ([3] f64) of 'mul'", "from 'jvp'", "'neg_into'"});
}

TEST(VersionCounter, ForwardModeWithoutWritesStillWorks) {
  Tensor x = randn({3}, 28), v = randn({3}, 29), other = zeros({3});
  auto f = [&](std::span<const Tensor> in) {
    add_into(other, x, v);  // reads the primal and the tangent, writes elsewhere
    return sum(mul(in[0], in[0]));
  };
  JvpResult r = jvp(f, {x}, {v});
  const std::vector<double> xv = values(x), vv = values(v);
  double want = 0;
  for (std::size_t i = 0; i < 3; ++i) want += 2 * xv[i] * vv[i];
  EXPECT_NEAR(r.tangents[0].item<double>(), want, 1e-12);
  std::vector<Tensor> h =
      hvp([](std::span<const Tensor> in) { return sum(mul(in[0], mul(in[0], in[0]))); }, {x}, {v});
  const std::vector<double> hv = values(h[0]);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(hv[i], 6 * xv[i] * vv[i], 1e-12);
}
