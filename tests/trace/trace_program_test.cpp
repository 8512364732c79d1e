// Tracing, printing, fingerprints and passes (label: trace).
#include <gtest/gtest.h>

#include "common/trace_helpers.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using trace_test::near;

namespace {
Program structural_program() {
  return trace(
      [](std::span<const Tensor> x) {
        Tensor a = permute(x[0], {1, 0});
        Tensor b = reshape(a, {12});
        Tensor c = reshape(x[1], {12});
        return std::vector<Tensor>{slice(b, 0, 2, 10, 2), c};
      },
      {ValueSpec{{4, 3}}, ValueSpec{{3, 4}}});
}
}  // namespace

TEST(TraceProgram, PrintsOneLinePerNode) {
  Program p = structural_program();
  EXPECT_EQ(p.to_string(),
            "program(%0: [4, 3] f64, %1: [3, 4] f64) {\n"
            "  %2 = permute(%0) {axes=[1, 0]} : [3, 4] f64\n"
            "  %3 = reshape(%2) {shape=[12]} : [12] f64\n"
            "  %4 = reshape(%1) {shape=[12]} : [12] f64\n"
            "  %5 = slice(%3) {axis=0 start=2 stop=10 step=2} : [4] f64\n"
            "  return %5, %4\n"
            "}\n");
  EXPECT_EQ(p.nodes.size(), 4u);
  EXPECT_EQ(p.nodes[0].name(), "permute");
}

TEST(TraceProgram, ConcreteClosuresBecomeConstants) {
  Tensor k = arange(6).reshape({2, 3});
  Program p = trace(
      [&](std::span<const Tensor> x) {
        return std::vector<Tensor>{permute(k, {1, 0}), x[0]};
      },
      {ValueSpec{{2}, DType::f32}});
  // permute(k) ran eagerly (no traced input): its result is a constant output.
  ASSERT_EQ(p.constants.size(), 1u);
  EXPECT_EQ(p.to_string(),
            "program(%0: [2] f32) {\n"
            "  %1 = constant : [3, 2] f64\n"
            "  return %1, %0\n"
            "}\n");
  std::vector<Tensor> out = p({from_values({1, 2}, {2}, DType::f32)});
  EXPECT_TRUE(near(out[0], copy(permute(k, {1, 0}))));
}

TEST(TraceProgram, SingleTensorCallableAndInterpretation) {
  Program p = trace([](std::span<const Tensor> x) { return transpose(x[0]).reshape({-1}); },
                    {ValueSpec{{2, 3}, DType::c128}});
  Tensor x = randn({2, 3}, 7, DType::c128);
  std::vector<Tensor> got = p({x});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(near(got[0], reshape(transpose(x), {-1})));
  EXPECT_EQ(p.output_specs()[0], (ValueSpec{{6}, DType::c128}));
}

TEST(TraceProgram, ShapeErrorsPropagateFromTheTracedFunction) {
  try {
    trace([](std::span<const Tensor> x) { return reshape(x[0], {5}); }, {ValueSpec{{2, 3}}});
    FAIL() << "expected a shape error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
    EXPECT_NE(e.message().find("[2, 3]"), std::string::npos);
  }
}

TEST(TraceProgram, LeakedTracerIsARuntimeStateError) {
  Tensor leaked;
  trace(
      [&](std::span<const Tensor> x) {
        leaked = x[0];
        return x[0];
      },
      {ValueSpec{{2}}});
  try {
    reshape(leaked, {1, 2});
    FAIL() << "expected RuntimeState";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::RuntimeState);
  }
  EXPECT_THROW(leaked.to_vector<double>(), Error);
}

TEST(TraceProgram, ArgumentChecksOfInterpretation) {
  Program p = structural_program();
  auto kind_of = [&](std::vector<Tensor> args) {
    try {
      p(args);
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::BackendFailure;  // "no error"
  };
  EXPECT_EQ(kind_of({zeros({4, 3})}), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of({zeros({4, 3}), zeros({4, 3})}), ErrorKind::ShapeMismatch);
  EXPECT_EQ(kind_of({zeros({4, 3}), zeros({3, 4}, DType::f32)}), ErrorKind::DTypeMismatch);
}

TEST(TraceProgram, FingerprintIsStructural) {
  Program a = structural_program(), b = structural_program();
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  EXPECT_TRUE(structurally_equal(a, b));
  Program c = trace(
      [](std::span<const Tensor> x) {
        return std::vector<Tensor>{slice(reshape(permute(x[0], {1, 0}), {12}), 0, 2, 10, 3),
                                   reshape(x[1], {12})};
      },
      {ValueSpec{{4, 3}}, ValueSpec{{3, 4}}});
  EXPECT_NE(a.fingerprint(), c.fingerprint());  // step=3 instead of 2
  EXPECT_FALSE(structurally_equal(a, c));
  // Constants with equal values fingerprint equally; different values do not.
  auto with_const = [](double v) {
    Tensor k = full({2}, v);
    return trace(
        [&](std::span<const Tensor> x) {
          return std::vector<Tensor>{x[0], k};
        },
        {ValueSpec{{2}}});
  };
  EXPECT_EQ(with_const(1.0).fingerprint(), with_const(1.0).fingerprint());
  EXPECT_NE(with_const(1.0).fingerprint(), with_const(2.0).fingerprint());
}

TEST(TracePasses, DeadCodeIsRemovedAndValuesRenumbered) {
  Program p = trace(
      [](std::span<const Tensor> x) {
        Tensor unused = permute(x[0], {1, 0});
        (void)copy(unused);
        return reshape(x[0], {6});
      },
      {ValueSpec{{2, 3}}});
  EXPECT_EQ(p.nodes.size(), 3u);
  Program d = eliminate_dead_code(p);
  EXPECT_EQ(d.to_string(),
            "program(%0: [2, 3] f64) {\n"
            "  %1 = reshape(%0) {shape=[6]} : [6] f64\n"
            "  return %1\n"
            "}\n");
}

TEST(TracePasses, ShapeFoldingRemovesIdentitiesAndChains) {
  Program p = trace(
      [](std::span<const Tensor> x) {
        Tensor a = reshape(reshape(reshape(x[0], {3, 2}), {6}), {1, 6});
        Tensor same = broadcast_to(x[1], {2, 3});  // same shape: identity
        Tensor perm = permute(permute(x[1], {0, 1}), {1, 0});
        Tensor back = reshape(x[0], {2, 3});  // same shape: identity
        return std::vector<Tensor>{a, same, perm, back};
      },
      {ValueSpec{{2, 3}}, ValueSpec{{2, 3}}});
  Program f = fold_shapes(p);
  EXPECT_EQ(f.to_string(),
            "program(%0: [2, 3] f64, %1: [2, 3] f64) {\n"
            "  %2 = reshape(%0) {shape=[1, 6]} : [1, 6] f64\n"
            "  %3 = permute(%1) {axes=[1, 0]} : [3, 2] f64\n"
            "  return %2, %1, %3, %0\n"
            "}\n");
  Tensor x = randn({2, 3}, 1), y = randn({2, 3}, 2);
  std::vector<Tensor> want = p({x, y}), got = f({x, y});
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(near(got[i], want[i])) << i;
}

TEST(TracePasses, CommonSubexpressionsAreComputedOnce) {
  Program p = trace(
      [](std::span<const Tensor> x) {
        Tensor a = permute(x[0], {1, 0}), b = permute(x[0], {1, 0}), c = permute(x[0], {0, 1});
        return std::vector<Tensor>{copy(a), copy(b), c};
      },
      {ValueSpec{{2, 3}}});
  Program c = eliminate_common_subexpressions(p);
  EXPECT_EQ(c.to_string(),
            "program(%0: [2, 3] f64) {\n"
            "  %1 = permute(%0) {axes=[1, 0]} : [3, 2] f64\n"
            "  %2 = permute(%0) {axes=[0, 1]} : [2, 3] f64\n"
            "  %3 = copy(%1) : [3, 2] f64\n"
            "  return %3, %3, %2\n"
            "}\n");
  Program o = optimize(p);  // also folds the identity permute
  EXPECT_EQ(o.nodes.size(), 2u);
  EXPECT_EQ(o.outputs[2], o.inputs[0]);
}

TEST(TraceProgram, ScalarParametersPrintRoundTrippable) {
  Program p = trace(
      [](std::span<const Tensor> x) {
        return std::vector<Tensor>{(x[0] * 1e-9 + 0.1) * Scalar(0, 1.0 / 3.0)};
      },
      {ValueSpec{{2}}});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("rhs=(1e-09,0)"), std::string::npos) << text;
  EXPECT_NE(text.find("rhs=(0.1,0)"), std::string::npos) << text;
  EXPECT_NE(text.find("rhs=(0,0.3333333333333333)"), std::string::npos) << text;
}
