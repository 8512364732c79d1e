// Eager reverse mode: recording, backward, accumulation, graph lifetime, bad use.
#include <gtest/gtest.h>

#include "autodiff/tape.hpp"
#include "common/autodiff_test_ops.hpp"
#include "common/expect_error.hpp"
#include "core/tensor_aux.hpp"
#include "primitives/contract.hpp"
#include "primitives/reduce.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;
using namespace tenferro::adtest;

namespace {

Tensor vec(std::initializer_list<double> v) {
  return from_values(v, {static_cast<std::int64_t>(v.size())});
}

void expect_values(const Tensor& t, std::vector<double> want, double tol = 1e-12) {
  ASSERT_TRUE(t.defined());
  std::vector<double> got = t.to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

}  // namespace

TEST(AutodiffTape, NoRecordingWithoutRequiresGradOrUnderNoGrad) {
  Tensor x = vec({1, 2, 3});
  Tensor y = tmul(x, x);
  EXPECT_FALSE(y.aux());  // plain path: no aux block at all
  Tensor w = vec({1, 2, 3}).requires_grad_();
  {
    NoGradGuard ng;
    EXPECT_FALSE(is_grad_enabled());
    Tensor z = tmul(w, w);
    EXPECT_FALSE(z.requires_grad());
  }
  EXPECT_TRUE(is_grad_enabled());
  Tensor z = tmul(w, w);
  EXPECT_TRUE(z.requires_grad());
  EXPECT_FALSE(is_leaf(z));
  EXPECT_TRUE(is_leaf(w));
}

TEST(AutodiffTape, BackwardScalarLossAndAccumulation) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  Tensor loss = tsum(tadd(tmul(x, x), tsin(x)));  // d/dx = 2x + cos x
  backward(loss);
  expect_values(x.grad(), {2 + std::cos(1.0), 4 + std::cos(2.0), 6 + std::cos(3.0)});
  // A second, fresh graph accumulates into the leaf.
  backward(tsum(tmul(x, x)));
  expect_values(x.grad(), {4 + std::cos(1.0), 8 + std::cos(2.0), 12 + std::cos(3.0)});
  x.zero_grad_();
  EXPECT_FALSE(x.grad().defined());
  backward(tsum(x));
  expect_values(x.grad(), {1, 1, 1});
  zero_grad(x);
  EXPECT_FALSE(x.grad().defined());
}

TEST(AutodiffTape, SeveralUsesAccumulateAndUnusedLeafStaysUndefined) {
  Tensor x = vec({1, -2}).requires_grad_();
  Tensor unused = vec({5, 5}).requires_grad_();
  Tensor a = tmul(x, x);
  Tensor loss = tsum(tadd(tadd(a, a), x));  // 2x^2 + x -> 4x + 1
  backward(loss);
  expect_values(x.grad(), {5, -7});
  EXPECT_FALSE(unused.grad().defined());
}

TEST(AutodiffTape, BackwardWithCotangentOfAnyShapeAndViews) {
  Tensor x = from_values({1, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  Tensor y = transpose(tmul(x, x));  // [3, 2]
  Tensor ct = from_values({1, 0, 0, 1, 2, 0}, {3, 2});
  backward(y, ct);
  // y[j, i] = x[i, j]^2 -> grad x[i, j] = 2 x[i, j] ct[j, i]
  expect_values(x.grad(), {2, 0, 12, 0, 10, 0});
  EXPECT_TRUE(slice(reshape(x, {6}), 0, 1, 6, 2).requires_grad());
}

TEST(AutodiffTape, MultipleRootsShareSubgraph) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor s = tmul(x, x);
  Tensor a = tsum(s), b = tsum(tmul(s, x));  // x^2 and x^3
  Tensor outs[2] = {a, b};
  Tensor cts[2] = {scalar_tensor(1.0), scalar_tensor(2.0)};
  backward(std::span<const Tensor>(outs), std::span<const Tensor>(cts));
  expect_values(x.grad(), {2 + 6, 4 + 24});
}

TEST(AutodiffTape, RetainGraphAndFreedGraphError) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor loss = tsum(tmul(x, x));
  backward(loss, {.retain_graph = true});
  backward(loss);  // frees
  expect_values(x.grad(), {4, 8});
  expect_error([&] { backward(loss); }, ErrorKind::RuntimeState);
  expect_values(x.grad(), {4, 8});  // unchanged by the failed call
  // A graph that reaches a freed node deeper down fails before touching anything.
  Tensor y = tmul(x, x);
  backward(tsum(y));
  Tensor leaf2 = vec({1, 1}).requires_grad_();
  Tensor z = tsum(tmul(y, leaf2));
  expect_error([&] { backward(z); }, ErrorKind::RuntimeState);
  EXPECT_FALSE(leaf2.grad().defined());
  expect_values(x.grad(), {6, 12});
}

TEST(AutodiffTape, BadUseIsTypedAndChangesNothing) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  backward(tsum(x));
  Tensor before = x.grad();
  Tensor y = tmul(x, x);
  expect_error([&] { backward(y); }, ErrorKind::InvalidArgument);             // non-scalar
  expect_error([&] { backward(y, vec({1, 1})); }, ErrorKind::ShapeMismatch);  // wrong shape
  expect_error([&] { backward(y, ones({3}, DType::f32)); }, ErrorKind::DTypeMismatch);
  expect_error([&] { backward(y, Tensor()); }, ErrorKind::InvalidArgument);
  expect_error([&] { backward(vec({1.0})); }, ErrorKind::InvalidArgument);  // no grad
  expect_error([&] { backward(Tensor()); }, ErrorKind::InvalidArgument);
  Tensor c = tsum(tconj(from_values({1, 2}, {2}, DType::c128).requires_grad_()));
  expect_error([&] { backward(c); }, ErrorKind::InvalidArgument);  // complex loss
  EXPECT_EQ(x.grad().storage().get(), before.storage().get());
  // The graph of y is intact: a valid backward still works after the failures.
  backward(y, vec({1, 1, 1}));
  expect_values(x.grad(), {3, 5, 7});
  // requires_grad_ on a non-leaf is rejected
  expect_error([&] { y.requires_grad_(); }, ErrorKind::InvalidArgument);
}

namespace {
// A primitive whose VJP throws: backward must leave every leaf unchanged.
class NoVjpPrim final : public detail::PrimitiveWith<NoVjpPrim> {
 public:
  std::string_view name() const override { return "t_novjp"; }
  void infer(std::span<const Tensor> in, detail::SpecList& out) const override {
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(detail::ExecContext&, std::span<const Tensor> in,
               std::span<Tensor> out) const override {
    detail::copy_to_contiguous(in[0], out[0].data_ptr(), out[0].dtype());
  }
};
}  // namespace

TEST(AutodiffTape, RuleFailureMidwayLeavesLeavesAndGraphUnchanged) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor w = vec({3, 4}).requires_grad_();
  // loss = sum(x * w) + sum(novjp(x)): the mul node runs first and stages grads for x and w.
  // Recorded first, so processed last (Note [Topological order by sequence]).
  Tensor n = tsum(detail::bind1(NoVjpPrim(), {x}));
  Tensor loss = tadd(tsum(tmul(x, w)), n);
  expect_error([&] { backward(loss); }, ErrorKind::Unsupported);
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
  expect_error([&] { backward(loss); }, ErrorKind::Unsupported);  // not freed: same error again
}

TEST(AutodiffTape, DetachStopsGradient) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor d = detach(tmul(x, x));
  EXPECT_FALSE(d.requires_grad());
  Tensor loss = tsum(tmul(d, x));  // d is constant: grad = d
  backward(loss);
  expect_values(x.grad(), {1, 4});
}

TEST(AutodiffTape, LeafIsRoot) {
  Tensor x = scalar_tensor(2.0).requires_grad_();
  backward(x);
  expect_values(x.grad(), {1});
}

TEST(AutodiffTape, DeepChainDestroysWithoutRecursion) {
  Tensor x = vec({1.0}).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = tadd(y, x);
  y = Tensor();  // would overflow the stack with recursive node destruction
  SUCCEED();
}

TEST(AutodiffTape, LongChainBackward) {
  Tensor x = vec({1.0, 2.0}).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < 1000; ++i) y = tadd(y, x);
  backward(tsum(y));
  expect_values(x.grad(), {1001, 1001});
}

TEST(AutodiffTape, AccumulationNeverChangesAGradTheUserHolds) {
  Tensor x = vec({1, 2}).requires_grad_();
  backward(tsum(tmul(x, x)));
  Tensor held = x.grad();  // shares the grad's storage: accumulation must go out of place
  backward(tsum(tmul(x, x)));
  expect_values(held, {2, 4});
  expect_values(x.grad(), {4, 8});
  held = Tensor();
  backward(tsum(tmul(x, x)));  // now in place (sole owner)
  expect_values(x.grad(), {6, 12});
  // A leaf whose grad is the user's own cotangent tensor: the cotangent is never modified.
  Tensor y = vec({3, 4}).requires_grad_();
  Tensor ct = vec({1, 1});
  backward(y, ct);
  backward(y, ct);
  expect_values(ct, {1, 1});
  expect_values(y.grad(), {2, 2});
}

TEST(AutodiffTape, CatalogPrimitivesFitInlineInANode) {
  // Note [Cheap tape]: no allocation for the primitive when recording these.
  EXPECT_LE(sizeof(detail::DotGeneralPrim), detail::kInlinePrimitive);
  EXPECT_LE(sizeof(detail::ReducePrim), detail::kInlinePrimitive);
}

// Note [Zero-strided twin]: the cotangent of a full sum()/mean() reaches its input as a
// stride-0 view whose record is the input record's twin: the same record on every step (so the
// eager cache finds the next op by pointer), shape and dtype of the input, every stride 0.
TEST(AutodiffTape, FullSumBackwardBroadcastsThroughTheInputsTwinRecord) {
  for (DType dt : {DType::f64, DType::f32}) {
    const Tensor x = cast(randn({3, 4}, 5), dt);
    const detail::Layout* twin = nullptr;
    for (int step = 0; step < 3; ++step) {
      const Tensor g = grad([](std::span<const Tensor> in) { return sum(in[0]); }, {x})[0];
      EXPECT_EQ(g.shape(), x.shape());
      EXPECT_EQ(g.dtype(), dt);
      EXPECT_EQ(g.strides(), (Dims{0, 0}));
      for (double v : cast(g, DType::f64).to_vector<double>()) EXPECT_EQ(v, 1.0);
      if (step == 0) twin = g.layout();
      EXPECT_EQ(g.layout(), twin) << "step " << step;
      const Tensor m = grad([](std::span<const Tensor> in) { return mean(in[0]); }, {x})[0];
      for (double v : cast(m, DType::f64).to_vector<double>()) EXPECT_NEAR(v, 1.0 / 12, 1e-7);
    }
    // The twin of a record whose strides are all 0 is the record itself; a twin is made once.
    const detail::LayoutRef a = detail::zero_strided_layout(*x.layout());
    const detail::LayoutRef b = detail::zero_strided_layout(*x.layout());
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(a.get(), twin);
    EXPECT_EQ(detail::zero_strided_layout(*a.get()).get(), a.get());
    EXPECT_TRUE(a->strides == (Dims{0, 0}));
    EXPECT_EQ(a->numel, 12);
  }
  // Under create_graph the cotangent carries the tape, so the view is bound (and recorded): the
  // second derivative of sum(x * x) is still 2 per element.
  Tensor x = randn({3}, 6);
  x.requires_grad_();
  Tensor loss = sum(x * x);
  backward(loss, {.create_graph = true});
  Tensor gx = x.grad();
  x.zero_grad_();
  backward(sum(gx));
  for (double v : x.grad().to_vector<double>()) EXPECT_DOUBLE_EQ(v, 2.0);
}

TEST(AutodiffTape, CotangentThatRequiresGradIsUsedAsAValue) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor u = vec({3, 4}).requires_grad_();
  backward(tmul(x, x), u);
  expect_values(x.grad(), {6, 16});
  EXPECT_FALSE(x.grad().requires_grad());
  EXPECT_FALSE(u.grad().defined());
}

TEST(AutodiffTape, VjpResultCheckComparesShapeAndDtype) {
  // check_vjp_result (inline, layout records first): a rule's cotangent must have its input's
  // shape and dtype; anything else is a rule bug, Error{RuntimeState} naming the op.
  const detail::ReducePrim p(detail::ReduceKind::sum, {}, false);
  const Tensor x = zeros({2, 3});
  detail::check_vjp_result(p, x, x);
  detail::check_vjp_result(p, ones({2, 3}), x);  // another record, same shape and dtype
  expect_error(
      [&] {
        detail::check_vjp_result(p, zeros({3, 2}), x);
      },
      ErrorKind::RuntimeState,
      {"sum: the vjp rule returned a tensor that does not match its value",
       "[3, 2] f64, [2, 3] f64", "rule bug"});
  expect_error(
      [&] {
        detail::check_vjp_result(p, zeros({2, 3}, DType::f32), x);
      },
      ErrorKind::RuntimeState, {"[2, 3] f32, [2, 3] f64"});
  expect_error([&] { detail::check_vjp_result(p, zeros({2}), x); }, ErrorKind::RuntimeState,
               {"[2] f64, [2, 3] f64"});
}

// Note [Twin cotangents]: x * x and x + x give their one operand a single cotangent, doubled in
// place when nobody else holds it, and never when somebody could see the write.
TEST(AutodiffTape, OneOperandPassedTwiceGetsBothCotangents) {
  Tensor x = vec({1.5, -2, 3}).requires_grad_();
  backward(tsum(tmul(x, x)));
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{3, -4, 6}));  // exact: 2x
  x.zero_grad_();
  Tensor ct = vec({1, 2, -1});
  backward(tmul(x, x), ct);
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{3, -8, -6}));  // 2 ct x
  x.zero_grad_();
  // x + x hands the caller's cotangent to both inputs: ct must not be doubled in place.
  backward(tadd(x, x), ct);
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{2, 4, -2}));
  EXPECT_EQ(ct.to_vector<double>(), (std::vector<double>{1, 2, -1}));
  // A detached operand is another value (no tangent, no edge): one path only.
  EXPECT_EQ(grad([](std::span<const Tensor> in) { return tsum(tmul(in[0], detach(in[0]))); },
                 {vec({1.5, -2, 3})})[0]
                .to_vector<double>(),
            (std::vector<double>{1.5, -2, 3}));
  // Overlapping views of one storage are different operands: d/dx sum(x[0:2] * x[1:3]).
  auto shifted = [](std::span<const Tensor> in) {
    return tsum(tmul(slice(in[0], 0, 0, 2), slice(in[0], 0, 1, 3)));
  };
  EXPECT_EQ(grad(shifted, {vec({1, 2, 3})})[0].to_vector<double>(), (std::vector<double>{2, 4, 2}));
  // Second order through the twin: the Hessian of sum(x * x * x) is diag(6x); of sum(x * x), 2I.
  auto cube = [](std::span<const Tensor> in) { return tsum(tmul(tmul(in[0], in[0]), in[0])); };
  Tensor h = hessian(cube, {vec({1, -2})})[0][0];
  EXPECT_EQ(h.to_vector<double>(), (std::vector<double>{6, 0, 0, -12}));
  auto square = [](std::span<const Tensor> in) { return tsum(tmul(in[0], in[0])); };
  EXPECT_EQ(hvp(square, {vec({1, -2})}, {vec({3, 5})})[0].to_vector<double>(),
            (std::vector<double>{6, 10}));
  // create_graph: x.grad = 2x carries a graph, whose sum has gradient 2.
  Tensor w = vec({1, 4}).requires_grad_();
  backward(tsum(tmul(w, w)), {.create_graph = true});
  Tensor g = w.grad();
  w.zero_grad_();
  backward(tsum(g));
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{2, 2}));
  w.zero_grad_();
}

// In-place accumulation writes only into storage the library allocated: a cotangent wrapping
// the caller's own memory (a NumPy array, a DLPack capsule, a Storage of their own) became a
// leaf's grad as is, and the next backward added into it, overwriting the caller's buffer once
// the wrapping tensor was gone (its count said "only the grad holds it").
TEST(AutodiffTape, AccumulationNeverWritesIntoMemoryTheLibraryDidNotAllocate) {
  static double buffer[3] = {1, 1, 1};
  auto wrap = [] {  // a fresh header over the caller's buffer, which the header does not free
    auto* s = new Storage;
    s->data = buffer;
    s->bytes = sizeof(buffer);
    s->release = [](Storage* st) noexcept { delete st; };
    return Tensor(StoragePtr(s), {3}, {1}, 0, DType::f64);
  };
  Tensor x = vec({1, 2, 3}).requires_grad_();
  backward(tadd(x, vec({2, 2, 2})), wrap());  // the grad is the caller's buffer itself
  backward(tsum(tmul(x, vec({5, 5, 5}))));
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{6, 6, 6}));
  EXPECT_EQ(std::vector<double>(buffer, buffer + 3), (std::vector<double>{1, 1, 1}));
  x.zero_grad_();
  backward(tadd(x, x), wrap());  // twice the caller's buffer: a sum, out of place
  backward(tadd(x, vec({2, 2, 2})), wrap());
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{3, 3, 3}));
  EXPECT_EQ(std::vector<double>(buffer, buffer + 3), (std::vector<double>{1, 1, 1}));
}

// A parameter update under NoGradGuard writes the leaf in place (PyTorch's `with no_grad: w -=
// lr * w.grad`): the leaf stays a leaf, its next backward works, and a graph that saved it
// before the write refuses by its version. With grad mode on, or for a tangent, still refused.
TEST(AutodiffTape, NoGradGuardAllowsInPlaceParameterUpdates) {
  Tensor w = vec({1, 2, 3}).requires_grad_();
  EXPECT_FALSE(writable_in_place(w));
  backward(tsum(tmul(w, w)));
  {
    NoGradGuard ng;
    EXPECT_TRUE(writable_in_place(w));
    sub_into(w, w, tmul(w.grad(), vec({0.1, 0.1, 0.1})));
  }
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(is_leaf(w));
  expect_values(detach(w), {0.8, 1.6, 2.4}, 1e-15);
  w.zero_grad_();
  backward(tsum(tmul(w, w)));
  expect_values(w.grad(), {1.6, 3.2, 4.8}, 1e-15);
  // A graph that saved w before the write refuses to differentiate through it.
  const Tensor loss = tsum(tmul(w, w));
  {
    NoGradGuard ng;
    mul_into(w, w, 2.0);
  }
  expect_error(ErrorKind::RuntimeState, [&] { backward(loss); }, {"mul_into"});
  // Grad mode on: Unsupported, nothing written.
  expect_error(ErrorKind::Unsupported, [&] { mul_into(w, w, 2.0); }, {"mul_into", "NoGradGuard"});
  expect_values(detach(w), {1.6, 3.2, 4.8}, 1e-15);
  // A tangent must see every op, NoGradGuard or not.
  (void)jvp(ScalarFn([](std::span<const Tensor> in) {
              Tensor x = in[0];
              NoGradGuard ng;
              EXPECT_FALSE(writable_in_place(x));
              expect_error(ErrorKind::Unsupported, [&] { mul_into(x, x, 2.0); }, {"tangent"});
              return tsum(x);
            }),
            {vec({1, 2})}, {vec({1, 1})});
}
