// Derivatives of the solves, inverses, determinants and norms -- solve, triangular_solve, lstsq,
// inv, det, slogdet, matrix_norm, vector_norm -- checked against central finite differences
// (VJP and JVP, f64 and c128), with respect to every input: matrix and vector right-hand sides,
// batch broadcasting (the broadcast operand's cotangent is summed over the batch), mixed dtypes.
//
// triangular_solve reads one triangle of a (the strict one with unit_diagonal): the inputs carry
// random values in the rest, the finite differences perturb every entry, so the VJP must be zero
// there. Matrices are shifted by a multiple of the identity so that they are well conditioned.
#include <gtest/gtest.h>

#include <cmath>

#include "linalg_ad/linalg_ad_common.hpp"

using namespace tenferro;
using namespace tenferro::linalg_ad;
using tenferro::adtest::check_jvp;
using tenferro::adtest::check_vjp;

// ---- solve ----

TEST(LinalgAdSolve, MatrixVectorAndBroadcastRightHandSides) {
  struct Case {
    Dims a, b;
  };
  const Case cases[] = {
      {{3, 3}, {3, 2}},           // matrix b
      {{3, 3}, {3}},              // vector b
      {{2, 3, 3}, {3, 2}},        // b broadcast over a's batch
      {{3, 3}, {2, 3, 2}},        // a broadcast over b's batch
      {{2, 3, 3}, {2, 3, 2}},     // batched
      {{2, 3, 3}, {2, 3}},        // batched vectors (b = a's batch dims plus one)
      {{2, 1, 3, 3}, {4, 3, 2}},  // both broadcast: batch [2, 4]
  };
  std::uint64_t seed = 100;
  for (const Case& c : cases)
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " a " + dims_to_string(c.a) + " b " + dims_to_string(c.b));
      const Dims batch(c.a.begin(), c.a.end() - 2);
      const Tensor a = square_matrix(batch, 3, seed++, d), b = randn(c.b, seed++, d);
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{solve(in[0], in[1])}; },
               {a, b});
    }
}

TEST(LinalgAdSolve, MixedDtypes) {
  // A real operand of a complex solve receives the real part of its complex cotangent.
  const Tensor a = square_matrix({}, 3, 110, DType::c128), b = randn({3, 2}, 111);
  check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{solve(in[0], in[1])}; },
           {a, b});
  const Tensor ar = square_matrix({}, 3, 112, DType::f64), bc = randn({3}, 113, DType::c128);
  check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{solve(in[0], in[1])}; },
           {ar, bc});
}

TEST(LinalgAdSolve, OneDifferentiatedOperandAndStridedViews) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = square_matrix({}, 3, 114, d), b = randn({3, 2}, 115, d);
    // Only a (b a constant), only b: the rules skip the cotangent nobody needs.
    check_fd([&](std::span<const Tensor> in) { return std::vector<Tensor>{solve(in[0], b)}; }, {a});
    check_fd([&](std::span<const Tensor> in) { return std::vector<Tensor>{solve(a, in[0])}; }, {b});
    check_fd(
        [&](std::span<const Tensor> in) {
          return std::vector<Tensor>{triangular_solve(in[0], b, true),
                                     triangular_solve(a, in[1], false)};
        },
        {a, b});
    // An undefined tangent is a zero tangent.
    auto f = [](std::span<const Tensor> in) {
      return std::vector<Tensor>{solve(in[0], in[1]), triangular_solve(in[0], in[1], true)};
    };
    const Tensor ta = randn({3, 3}, 116, d), tb = randn({3, 2}, 117, d);
    const JvpResult only_a = jvp(MultiFn(f), {a, b}, {ta, Tensor()});
    const JvpResult zero_b = jvp(MultiFn(f), {a, b}, {ta, zeros({3, 2}, d)});
    const JvpResult only_b = jvp(MultiFn(f), {a, b}, {Tensor(), tb});
    const JvpResult zero_a = jvp(MultiFn(f), {a, b}, {zeros({3, 3}, d), tb});
    for (int k = 0; k < 2; ++k) {
      EXPECT_TRUE(near(only_a.tangents[k], zero_b.tangents[k], 1e-12, 1e-13));
      EXPECT_TRUE(near(only_b.tangents[k], zero_a.tangents[k], 1e-12, 1e-13));
    }
    // Transposed a, every-other-column b.
    const Tensor at = transpose(a), bs = slice(randn({3, 4}, 118, d), -1, 0, 4, 2);
    check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{solve(in[0], in[1])}; },
             {at, bs});
    check_fd(
        [](std::span<const Tensor> in) {
          return std::vector<Tensor>{triangular_solve(in[0], in[1], false, true, true)};
        },
        {at, bs});
  }
}

// ---- triangular_solve ----

TEST(LinalgAdTriangularSolve, EveryTriangleSideAndDiagonal) {
  std::uint64_t seed = 120;
  for (bool upper : {false, true})
    for (bool left : {true, false})
      for (bool unit : {false, true})
        for (DType d : kDtypes) {
          SCOPED_TRACE(name_of(d) + (upper ? " upper" : " lower") + (left ? " left" : " right") +
                       (unit ? " unit_diagonal" : ""));
          // The unread triangle holds random values; with unit_diagonal so does the diagonal.
          const Tensor a = square_matrix({}, 4, seed++, d);
          const Tensor b = randn(left ? Dims{4, 2} : Dims{2, 4}, seed++, d);
          check_fd(
              [&](std::span<const Tensor> in) {
                return std::vector<Tensor>{triangular_solve(in[0], in[1], upper, left, unit)};
              },
              {a, b});
        }
}

TEST(LinalgAdTriangularSolve, BatchedAndBroadcast) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = square_matrix({2}, 3, 130, d), b = randn({3, 2}, 131, d);
    check_fd(
        [](std::span<const Tensor> in) {
          return std::vector<Tensor>{triangular_solve(in[0], in[1], true)};
        },
        {a, b});
    const Tensor b2 = randn({2, 2, 3}, 132, d);
    check_fd(
        [](std::span<const Tensor> in) {
          return std::vector<Tensor>{triangular_solve(in[0], in[1], false, false, true)};
        },
        {a, b2});
  }
}

// ---- lstsq ----

TEST(LinalgAdLstsq, TallAndWide) {
  // Tall: min |a x - b| (x depends on the residual too); wide: the minimum-norm solution.
  struct Case {
    Dims a, b;
  };
  const Case cases[] = {{{5, 3}, {5, 2}}, {{5, 3}, {5}},    {{3, 5}, {3, 2}},
                        {{3, 5}, {3}},    {{4, 4}, {4, 1}}, {{2, 4, 3}, {2, 4, 2}}};
  std::uint64_t seed = 140;
  for (const Case& c : cases)
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " a " + dims_to_string(c.a) + " b " + dims_to_string(c.b));
      const Tensor a = randn(c.a, seed++, d), b = randn(c.b, seed++, d);
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{lstsq(in[0], in[1])}; },
               {a, b});
    }
}

// ---- inv, det, slogdet ----

TEST(LinalgAdInvDet, Inv) {
  for (const Dims& batch : {Dims{}, Dims{2}})
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " batch " + dims_to_string(batch));
      const Tensor a = square_matrix(batch, 3, 150, d);
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{inv(in[0])}; }, {a});
    }
}

TEST(LinalgAdInvDet, Det) {
  for (const Dims& batch : {Dims{}, Dims{2}})
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " batch " + dims_to_string(batch));
      const Tensor a = randn(with(batch, {3, 3}), 151, d);
      check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{det(in[0])}; }, {a});
    }
  // A negative determinant (real): the sign is locally constant, det's derivative is not.
  const Tensor neg = from_vector<double>({0.0, 1.0, 0.2, 1.0, 0.3, 0.1, 0.5, -0.4, 2.0}, {3, 3});
  ASSERT_LT(det(neg).item<double>(), 0.0);
  check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{det(in[0])}; }, {neg});
}

TEST(LinalgAdInvDet, DetDerivativeAtASingularMatrix) {
  // det is a polynomial, differentiable everywhere; at a rank n-1 matrix its gradient is the
  // (non-zero) cofactor matrix. The matrix is exactly singular: LU meets an exact zero pivot.
  const Tensor a = from_vector<double>({1, 2, 3, 2, 4, 6, 1, 0, 1}, {3, 3});
  const Tensor cofactors = from_vector<double>({4, 4, -4, -2, -2, 2, 0, 0, 0}, {3, 3});
  EXPECT_TRUE(near(grad([](std::span<const Tensor> in) { return det(in[0]); }, {a})[0], cofactors));
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor x = is_complex(d) ? cast(a, d) * Scalar(0.6, 0.8) : a;  // still singular
    check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{det(in[0])}; }, {x});
    // In a batch with an invertible matrix.
    const Tensor batch = stack({x, square_matrix({}, 3, 153, d)});
    check_fd([](std::span<const Tensor> in) { return std::vector<Tensor>{det(in[0])}; }, {batch});
  }
}

TEST(LinalgAdInvDet, SlogdetLogabsdetAndComplexSign) {
  // Both outputs: for real input the sign is piecewise constant (zero derivative), for complex
  // input it is the smooth phase det / |det|, moving by sign * i Im tr(a^-1 da).
  for (const Dims& batch : {Dims{}, Dims{2}})
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " batch " + dims_to_string(batch));
      const Tensor a = randn(with(batch, {3, 3}), 152, d);
      check_fd(
          [](std::span<const Tensor> in) {
            SlogdetResult r = slogdet(in[0]);
            return std::vector<Tensor>{r.sign, r.logabsdet};
          },
          {a});
      check_fd(
          [](std::span<const Tensor> in) { return std::vector<Tensor>{slogdet(in[0]).logabsdet}; },
          {a});
      if (is_complex(d))
        check_fd(
            [](std::span<const Tensor> in) { return std::vector<Tensor>{slogdet(in[0]).sign}; },
            {a});
    }
}

// ---- norms ----

TEST(LinalgAdNorms, MatrixNormFroNucSpectral) {
  for (MatrixNormOrd ord : {MatrixNormOrd::fro, MatrixNormOrd::nuc, MatrixNormOrd::spectral})
    for (bool keepdims : {false, true})
      for (DType d : kDtypes) {
        SCOPED_TRACE(name_of(d) + " ord " + std::to_string(static_cast<int>(ord)) +
                     (keepdims ? " keepdims" : ""));
        const Tensor a = with_singular_values({}, 4, 3, {3.0, 2.1, 1.3}, 160, d);
        const Tensor b = with_singular_values({2}, 3, 4, {2.5, 1.2, 0.4}, 161, d);
        auto f = [&](std::span<const Tensor> in) {
          return std::vector<Tensor>{matrix_norm(in[0], ord, keepdims)};
        };
        check_fd(f, {a});
        check_fd(f, {b});
      }
}

TEST(LinalgAdNorms, VectorNorm) {
  struct Case {
    double ord;
    Dims axes;
    bool keepdims;
  };
  const Case cases[] = {{2.0, {}, false},      {2.0, {1}, true},       {1.0, {}, false},
                        {1.0, {0}, false},     {3.0, {}, false},       {3.0, {1}, true},
                        {INFINITY, {}, false}, {INFINITY, {1}, false}, {-INFINITY, {0}, true}};
  for (const Case& c : cases)
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " ord " + std::to_string(c.ord) + " axes " +
                   dims_to_string(c.axes) + (c.keepdims ? " keepdims" : ""));
      const Tensor x = randn({3, 4}, 170, d);  // no zeros, distinct |x|: every norm is smooth
      check_fd(
          [&](std::span<const Tensor> in) {
            return std::vector<Tensor>{vector_norm(in[0], c.ord, c.axes, c.keepdims)};
          },
          {x});
    }
}

TEST(LinalgAdNorms, VectorNormAtTheOrigin) {
  // Not differentiable at x = 0; ord 1, 2, +-inf return the zero subgradient there (as PyTorch),
  // and a zero row of a per-row norm does not disturb the other rows.
  for (double ord : {1.0, 2.0, double(INFINITY), -double(INFINITY)})
    for (DType d : kDtypes) {
      SCOPED_TRACE(name_of(d) + " ord " + std::to_string(ord));
      const Tensor zero = zeros({3}, d);
      const Tensor g =
          grad([ord](std::span<const Tensor> in) { return vector_norm(in[0], ord); }, {zero})[0];
      EXPECT_TRUE(near(g, zeros({3}, d), 0, 0));
      const Tensor x = concatenate({zeros({1, 3}, d), randn({2, 3}, 171, d)}, 0);
      const Tensor gx = grad(
          [ord](std::span<const Tensor> in) { return sum(vector_norm(in[0], ord, {1})); }, {x})[0];
      EXPECT_TRUE(all_finite(gx));
      EXPECT_TRUE(near(slice(gx, 0, 0, 1), zeros({1, 3}, d), 0, 0));
    }
}

TEST(LinalgAdNorms, VectorNormOfHugeAndTinyValues) {
  // Note [Scaled p-norms]: the gradient of ||x||_p is 0-homogeneous, so at s x it is the
  // gradient at x; before the scaling, |x|^p overflowed (1e200: NaN gradient) or underflowed
  // (1e-200: 0 or NaN). The Hessian is (-1)-homogeneous: hvp at s x is hvp at x over s.
  for (double ord : {3.0, 1.5, 0.5, -1.0})
    for (DType d : kDtypes)
      for (double s : {1e200, 1e-200}) {
        SCOPED_TRACE(name_of(d) + " ord " + std::to_string(ord) + " scale " +
                     std::to_string(std::log10(s)));
        const Tensor x = randn({2, 4}, 173, d);
        const auto f = [ord](std::span<const Tensor> in) {
          return sum(vector_norm(in[0], ord, {1}));
        };
        const Tensor g = grad(f, {x})[0];
        EXPECT_TRUE(near(grad(f, {x * s})[0], g, 1e-12, 0));
        const Tensor v = randn({2, 4}, 174, d);
        EXPECT_TRUE(near(hvp(f, {x * s}, {v})[0] * s, hvp(f, {x}, {v})[0], 1e-10, 1e-12));
      }
}

TEST(LinalgAdNorms, VectorNormOrd3AtTheOrigin) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor g = grad([](std::span<const Tensor> in) { return vector_norm(in[0], 3.0); },
                          {zeros({3}, d)})[0];
    EXPECT_TRUE(near(g, zeros({3}, d), 0, 0));
    const Tensor x = concatenate({zeros({1, 3}, d), randn({2, 3}, 172, d)}, 0);
    const Tensor gx =
        grad([](std::span<const Tensor> in) { return sum(vector_norm(in[0], 3.0, {1})); }, {x})[0];
    EXPECT_TRUE(near(slice(gx, 0, 0, 1), zeros({1, 3}, d), 0, 0));
    EXPECT_TRUE(all_finite(gx));
  }
}
