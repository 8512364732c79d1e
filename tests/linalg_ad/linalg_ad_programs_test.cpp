// Every linear-algebra rule outside the finite-difference harness: the eager tape, traced
// gradient programs, single precision, and matrices with no elements.
//
// A table of scalar losses (kLosses, one or two per op, each through a gauge-invariant view) is
// run through
//  - backward() on the eager tape, which must give what grad() gives;
//  - trace() + grad(Program) and jvp(grad(Program)) (the rules run symbolically, on symbolic
//    tensors, then on a prepared runtime), which must give the eager gradient and hvp;
//  - f32 / c64 inputs, whose gradients and hvps must have the input's dtype and agree with the
//    f64 / c128 ones to single-precision accuracy (the rules' constants must not promote).
// Empty matrices (a zero dimension or an empty batch) must give empty derivatives, not throw.
#include <gtest/gtest.h>

#include <functional>

#include "linalg_ad/linalg_ad_common.hpp"
#include "tenferro/trace.hpp"

using namespace tenferro;
using namespace tenferro::linalg_ad;

namespace {

// A constant of x's dtype with the same values for every precision (drawn in double, then cast).
Tensor constant_like(Dims shape, std::uint64_t seed, const Tensor& x) {
  return cast(randn(std::move(shape), seed, is_complex(x.dtype()) ? DType::c128 : DType::f64),
              x.dtype());
}

struct LossRow {
  const char* name;
  Tensor (*input)(DType);  // an f64 / c128 input
  Tensor (*loss)(const Tensor&);
};

Tensor svd_loss(const SvdResult& r) {
  const DType d = r.U.dtype();
  const I k = r.S.shape().back();
  const Tensor Uk = slice(r.U, -1, 0, k), Vhk = slice(r.Vh, -2, 0, k);
  return loss_of(proj(r.U, complement_weights(r.U.shape().back(), k, d))) +
         loss_of(proj(mH(r.Vh), complement_weights(r.Vh.shape()[0], k, d, 2.0, 0.5, -0.3))) +
         loss_of(r.S) + loss_of(matmul(Uk * weights(k, d, 0.5, 1.1), Vhk));
}

Tensor eigh_loss(const EighResult& r) {
  const I n = r.eigenvalues.shape().back();
  return loss_of(r.eigenvalues) + loss_of(proj(r.eigenvectors, weights(n, r.eigenvectors.dtype())));
}

const LossRow kLosses[] = {
    {"svd tall",
     [](DType d) {
       return with_singular_values({}, 4, 3, {3.0, 2.1, 1.3}, 400, d);
     },
     [](const Tensor& x) { return svd_loss(svd(x)); }},
    {"svd full wide",
     [](DType d) {
       return with_singular_values({}, 3, 4, {2.5, 1.6, 0.7}, 401, d);
     },
     [](const Tensor& x) { return svd_loss(svd(x, true)); }},
    {"svdvals",
     [](DType d) {
       return with_singular_values({2}, 3, 3, {2.5, 1.6, 0.7}, 402, d);
     },
     [](const Tensor& x) { return loss_of(svdvals(x)); }},
    {"svd_truncated",
     [](DType d) {
       return with_singular_values({}, 4, 4, {3.0, 2.1, 1.3, 0.6}, 403, d);
     },
     [](const Tensor& x) { return svd_loss(svd_truncated(x, 2)); }},
    {"eigh upper",
     [](DType d) {
       return spoil_unread(with_eigenvalues({}, {-1.2, 0.3, 1.5}, 404, d), false, 405);
     },
     [](const Tensor& x) { return eigh_loss(eigh(x, Uplo::upper)); }},
    {"eigvalsh batched",
     [](DType d) {
       return spoil_unread(with_eigenvalues({2}, {-1.2, 0.3, 1.5}, 406, d), true, 407);
     },
     [](const Tensor& x) { return loss_of(eigvalsh(x)); }},
    {"qr reduced",
     [](DType d) {
       return randn({4, 3}, 408, d);
     },
     [](const Tensor& x) {
       QrResult r = qr(x);
       return loss_of(r.Q) + loss_of(r.R);
     }},
    {"qr complete",
     [](DType d) {
       return randn({2, 3, 3}, 409, d);
     },
     [](const Tensor& x) {
       QrResult r = qr(x, QrMode::complete);
       return loss_of(r.Q) + loss_of(r.R);
     }},
    {"cholesky lower",
     [](DType d) { return spoil_unread(positive_definite({}, 3, 410, d), true, 411); },
     [](const Tensor& x) { return loss_of(cholesky(x)); }},
    {"cholesky upper",
     [](DType d) { return spoil_unread(positive_definite({2}, 3, 412, d), false, 413); },
     [](const Tensor& x) { return loss_of(cholesky(x, true)); }},
    {"solve", [](DType d) { return square_matrix({2}, 3, 414, d); },
     [](const Tensor& x) {
       return loss_of(solve(x, constant_like({3, 2}, 415, x)));
     }},
    {"triangular_solve", [](DType d) { return square_matrix({}, 3, 416, d); },
     [](const Tensor& x) {
       return loss_of(triangular_solve(x, constant_like({3, 2}, 417, x), true)) +
              loss_of(triangular_solve(x, constant_like({2, 3}, 418, x), false, false, true));
     }},
    {"lstsq",
     [](DType d) {
       return randn({5, 3}, 419, d);
     },
     [](const Tensor& x) {
       return loss_of(lstsq(x, constant_like({5, 2}, 420, x))) +
              loss_of(lstsq(mH(x), constant_like({3}, 421, x)));
     }},
    {"inv", [](DType d) { return square_matrix({}, 3, 422, d); },
     [](const Tensor& x) { return loss_of(inv(x)); }},
    {"det slogdet",
     [](DType d) {
       return randn({2, 3, 3}, 423, d);
     },
     [](const Tensor& x) {
       SlogdetResult r = slogdet(x);
       return loss_of(det(x)) + loss_of(r.logabsdet) + loss_of(r.sign);
     }},
    {"matrix_norm",
     [](DType d) {
       return with_singular_values({}, 4, 3, {3.0, 2.1, 1.3}, 424, d);
     },
     [](const Tensor& x) {
       return loss_of(matrix_norm(x)) + loss_of(matrix_norm(x, MatrixNormOrd::nuc)) +
              loss_of(matrix_norm(x, MatrixNormOrd::spectral));
     }},
    {"vector_norm",
     [](DType d) {
       return randn({3, 4}, 425, d);
     },
     [](const Tensor& x) {
       return loss_of(vector_norm(x, 3.0, {1})) + loss_of(vector_norm(x, 1.0)) +
              loss_of(vector_norm(x, INFINITY, {0}));
     }},
};

DType single(DType d) { return d == DType::f64 ? DType::f32 : DType::c64; }

}  // namespace

TEST(LinalgAdPrograms, EagerBackwardMatchesFunctionalGrad) {
  for (const LossRow& row : kLosses)
    for (DType d : kDtypes) {
      SCOPED_TRACE(std::string(row.name) + " " + name_of(d));
      const Tensor x0 = row.input(d);
      Tensor x = copy(x0);
      x.requires_grad_();
      backward(row.loss(x));
      ASSERT_TRUE(x.grad().defined());
      const std::vector<Tensor> g =
          grad([&](std::span<const Tensor> in) { return row.loss(in[0]); }, {x0});
      EXPECT_TRUE(near(x.grad(), g[0], 1e-12, 1e-12));
    }
}

TEST(LinalgAdPrograms, TracedGradientAndHvpMatchEager) {
  for (const LossRow& row : kLosses)
    for (DType d : kDtypes) {
      SCOPED_TRACE(std::string(row.name) + " " + name_of(d));
      const Tensor x = row.input(d), v = randn(x.shape(), 430, d);
      auto f = [&](std::span<const Tensor> in) { return row.loss(in[0]); };
      const Program p = trace(f, {ValueSpec{x.shape(), d}});
      const Program g = grad(p);
      const std::vector<Tensor> traced = g({x});
      ASSERT_EQ(traced.size(), 1u);
      EXPECT_TRUE(near(traced[0], grad(f, {x})[0], 1e-10, 1e-11));
      const std::vector<Tensor> hv = jvp(g)({x, v});  // (grad, H v)
      ASSERT_EQ(hv.size(), 2u);
      EXPECT_TRUE(near(hv[1], hvp(f, {x}, {v})[0], 1e-10, 1e-11));
      // The same on a prepared plan of a runtime.
      Runtime rt;
      EXPECT_TRUE(near(rt.run(rt.prepare(g), {x})[0], traced[0], 1e-12, 1e-13));
    }
}

TEST(LinalgAdPrograms, SinglePrecisionMatchesDoublePrecision) {
  for (const LossRow& row : kLosses)
    for (DType d : kDtypes) {
      const DType s = single(d);
      SCOPED_TRACE(std::string(row.name) + " " + name_of(s));
      const Tensor x64 = row.input(d), x32 = cast(x64, s);
      const Tensor v64 = randn(x64.shape(), 431, d), v32 = cast(v64, s);
      auto f = [&](std::span<const Tensor> in) { return row.loss(in[0]); };
      const Tensor g32 = grad(f, {x32})[0], h32 = hvp(f, {x32}, {v32})[0];
      EXPECT_EQ(g32.dtype(), s);
      EXPECT_EQ(h32.dtype(), s);
      EXPECT_TRUE(near(cast(g32, d), grad(f, {x64})[0], 2e-3, 2e-3));
      EXPECT_TRUE(near(cast(h32, d), hvp(f, {x64}, {v64})[0], 1e-2, 1e-2));
    }
}

TEST(LinalgAdEdgeCases, EmptyMatricesGiveEmptyDerivatives) {
  // Matrices with no elements (a zero dimension or an empty batch): grad returns zeros of the
  // input's shape, jvp tangents of the outputs' shapes, nothing throws.
  using Op = std::function<std::vector<Tensor>(const Tensor&)>;
  struct Case {
    const char* name;
    Dims shape;
    Op op;
  };
  auto svd_op = [](bool full) {
    return [full](const Tensor& x) {
      SvdResult r = svd(x, full);
      return std::vector<Tensor>{r.U, r.S, r.Vh};
    };
  };
  auto eigh_op = [](const Tensor& x) {
    EighResult r = eigh(x);
    return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
  };
  auto rhs = [](const Tensor& x) {
    return ones(with(Dims(x.shape().begin(), x.shape().end() - 1), {2}), x.dtype());
  };
  const std::vector<Case> cases = {
      {"svd", {3, 0}, svd_op(false)},
      {"svd", {0, 3}, svd_op(false)},
      {"svd full", {3, 0}, svd_op(true)},
      {"svd full", {0, 3}, svd_op(true)},
      {"svd", {0, 3, 3}, svd_op(false)},
      {"svdvals", {3, 0}, [](const Tensor& x) { return std::vector<Tensor>{svdvals(x)}; }},
      {"eigh", {0, 0}, eigh_op},
      {"eigh", {0, 3, 3}, eigh_op},
      {"eigvalsh", {0, 0}, [](const Tensor& x) { return std::vector<Tensor>{eigvalsh(x)}; }},
      {"qr",
       {3, 0},
       [](const Tensor& x) {
         QrResult r = qr(x);
         return std::vector<Tensor>{r.Q, r.R};
       }},
      {"cholesky", {0, 0}, [](const Tensor& x) { return std::vector<Tensor>{cholesky(x)}; }},
      {"cholesky",
       {0, 3, 3},
       [](const Tensor& x) { return std::vector<Tensor>{cholesky(x, true)}; }},
      {"solve", {0, 0}, [&](const Tensor& x) { return std::vector<Tensor>{solve(x, rhs(x))}; }},
      {"solve", {0, 3, 3}, [&](const Tensor& x) { return std::vector<Tensor>{solve(x, rhs(x))}; }},
      {"triangular_solve",
       {0, 0},
       [&](const Tensor& x) { return std::vector<Tensor>{triangular_solve(x, rhs(x), true)}; }},
      {"inv", {0, 0}, [](const Tensor& x) { return std::vector<Tensor>{inv(x)}; }},
      {"det", {0, 0}, [](const Tensor& x) { return std::vector<Tensor>{det(x)}; }},
      {"slogdet",
       {0, 0},
       [](const Tensor& x) {
         SlogdetResult r = slogdet(x);
         return std::vector<Tensor>{r.sign, r.logabsdet};
       }},
      {"lstsq",
       {3, 0},
       [](const Tensor& x) {
         return std::vector<Tensor>{lstsq(x, ones({3, 2}, x.dtype()))};
       }},
      {"matrix_norm nuc",
       {3, 0},
       [](const Tensor& x) { return std::vector<Tensor>{matrix_norm(x, MatrixNormOrd::nuc)}; }},
  };
  for (const Case& c : cases)
    for (DType d : kDtypes) {
      SCOPED_TRACE(std::string(c.name) + " " + dims_to_string(c.shape) + " " + name_of(d));
      const Tensor x = zeros(c.shape, d);
      auto loss = [&](std::span<const Tensor> in) {
        Tensor l = zeros({});
        for (const Tensor& y : c.op(in[0])) l = l + sum_squares(y);
        return l;
      };
      try {
        const std::vector<Tensor> g = grad(loss, {x});
        EXPECT_EQ(g[0].shape(), c.shape);
        EXPECT_EQ(g[0].dtype(), d);
        const JvpResult j =
            jvp([&](std::span<const Tensor> in) { return c.op(in[0]); }, {x}, {zeros(c.shape, d)});
        ASSERT_EQ(j.tangents.size(), j.outputs.size());
        for (std::size_t k = 0; k < j.outputs.size(); ++k) {
          EXPECT_EQ(j.tangents[k].shape(), j.outputs[k].shape()) << "output " << k;
          EXPECT_TRUE(all_finite(j.tangents[k]));
        }
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
      }
    }
}
