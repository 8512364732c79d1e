// The values-only ops return the same bits whether or not they are differentiated
// (Note [Values-only primal] in src/primitives/linalg_ops.cpp), and svd_truncated with cutoff 0
// keeps exactly-zero singular values with finite derivatives (docs/linalg.md).
//
// Before the fix svdvals/eigvalsh took the values of the full decomposition when the tape recorded
// them, which differ from the values-only driver's in the last bits on 32x32: the same call gave
// two answers depending on whether it was differentiated.
#include <gtest/gtest.h>

#include <cstring>

#include "linalg_ad/linalg_ad_common.hpp"

using namespace tenferro;
using namespace tenferro::linalg_ad;

namespace {

using Op = Tensor (*)(const Tensor&);

Tensor nuclear(const Tensor& a) { return matrix_norm(a, MatrixNormOrd::nuc); }
Tensor spectral(const Tensor& a) { return matrix_norm(a, MatrixNormOrd::spectral); }
Tensor eigvalsh_lower(const Tensor& a) { return eigvalsh(a); }

struct Case {
  const char* name;
  Op op;
  bool hermitian;
};
const Case kCases[] = {{"svdvals", &svdvals, false},
                       {"eigvalsh", &eigvalsh_lower, true},
                       {"matrix_norm nuc", &nuclear, false},
                       {"matrix_norm spectral", &spectral, false}};

/// Bitwise equality of two tensors' elements (and equal shapes).
::testing::AssertionResult same_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype())
    return ::testing::AssertionFailure() << "shapes or dtypes differ";
  const Tensor x = contiguous(a), y = contiguous(b);
  if (std::memcmp(x.data_ptr(), y.data_ptr(),
                  static_cast<std::size_t>(x.numel()) * dtype_size(x.dtype())) != 0) {
    const std::vector<c128> u = values(x), v = values(y);
    for (std::size_t i = 0; i < u.size(); ++i)
      if (u[i] != v[i])
        return ::testing::AssertionFailure() << "element " << i << ": " << u[i] << " vs " << v[i]
                                             << " (differ by " << std::abs(u[i] - v[i]) << ")";
  }
  return ::testing::AssertionSuccess();
}

Tensor input_for(const Case& c, const Dims& shape, DType d) {
  const Tensor x = randn(shape, 40 + shape.back(), d);
  return c.hermitian ? contiguous(x + mH(x)) : x;
}

}  // namespace

TEST(LinalgAdValuesOnly, SameBitsEagerTapeVjpGradJvp) {
  for (const Case& c : kCases) {
    for (DType d : {DType::f32, DType::f64, DType::c128}) {
      for (const Dims& shape : {Dims{32, 32}, Dims{3, 5, 5}, Dims{20, 12}}) {
        if (c.hermitian && shape[shape.size() - 1] != shape[shape.size() - 2]) continue;
        SCOPED_TRACE(std::string(c.name) + " " + name_of(d) + " " + dims_to_string(shape));
        const Tensor a = input_for(c, shape, d);
        const Tensor eager = c.op(a);

        Tensor leaf = detach(a).requires_grad_();  // eager tape
        const Tensor taped = c.op(leaf);
        EXPECT_TRUE(taped.requires_grad());
        EXPECT_TRUE(same_bits(detach(taped), eager));

        const VjpResult v = vjp([&](std::span<const Tensor> x) { return c.op(x[0]); }, {a});
        EXPECT_TRUE(same_bits(v.outputs[0], eager));

        const ValueAndGrad g =
            value_and_grad([&](std::span<const Tensor> x) { return sum(c.op(x[0])); }, {a});
        EXPECT_TRUE(same_bits(g.value, sum(eager)));

        const JvpResult j = jvp([&](std::span<const Tensor> x) { return c.op(x[0]); }, {a},
                                {randn(a.shape(), 7, d)});
        EXPECT_TRUE(same_bits(j.outputs[0], eager));
      }
    }
  }
}

// The gradients the values-only ops now compute in their backward pass are still right.
TEST(LinalgAdValuesOnly, GradientsUnchanged) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = with_singular_values({2}, 4, 3, {3.0, 1.5, 0.4}, 50, d);
    check_fd([](std::span<const Tensor> x) { return std::vector<Tensor>{svdvals(x[0])}; }, {a});
    const Tensor h = with_eigenvalues({2}, {-1.0, 0.5, 2.0}, 51, d);
    check_fd([](std::span<const Tensor> x) { return std::vector<Tensor>{eigvalsh(x[0])}; }, {h});
    check_fd(
        [](std::span<const Tensor> x) {
          return std::vector<Tensor>{matrix_norm(x[0], MatrixNormOrd::nuc)};
        },
        {a});
  }
}

// ---- svd_truncated, cutoff 0 ----

namespace {

/// [[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]: rank 2, two exactly-zero singular
/// values.
Tensor rank_two(DType d) {
  return cast(from_vector<double>({1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {4, 4}), d);
}
/// The same with a 5 at [2, 2]: rank 3, one exactly-zero singular value (no repeated value).
Tensor rank_three(DType d) {
  return cast(from_vector<double>({1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0}, {4, 4}), d);
}

}  // namespace

TEST(LinalgAdValuesOnly, TruncatedCutoffZeroKeepsZeroValues) {
  for (DType d : kDtypes) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = rank_two(d);
    const SvdResult all = svd_truncated(a, 0, 0.0);
    ASSERT_EQ(all.S.shape(), (Dims{4}));  // no value test: the zeros are kept
    const std::vector<c128> s = values(all.S);
    EXPECT_EQ(s[2], c128(0.0));
    EXPECT_EQ(s[3], c128(0.0));
    EXPECT_EQ(svd_truncated(a, 3, 0.0).S.shape(), (Dims{3}));     // max_rank bounds it
    EXPECT_EQ(svd_truncated(a, 0, 1e-12).S.shape(), (Dims{2}));   // cutoff > 0 drops them
    EXPECT_EQ(svd_truncated(a, 0, 1e-300).S.shape(), (Dims{2}));  // S > cutoff * S[0] strictly
  }
}

TEST(LinalgAdValuesOnly, TruncatedCutoffZeroDerivativesFinite) {
  for (DType d : kDtypes) {
    for (bool two_zeros : {false, true}) {
      for (I rank : {0, 3}) {
        SCOPED_TRACE(name_of(d) + (two_zeros ? " rank 2" : " rank 3") + " max_rank " +
                     std::to_string(rank));
        const Tensor a = two_zeros ? rank_two(d) : rank_three(d), c = randn({4, 4}, 60, d);
        // Gauge-invariant: <C, U S Vh> (= <C, A> when nothing is dropped).
        const auto rebuilt = [&](std::span<const Tensor> x) {
          const SvdResult r = svd_truncated(x[0], rank, 0.0);
          return cast(sum(conj(c) * matmul(r.U * cast(r.S, x[0].dtype()), r.Vh)),
                      real_dtype(x[0].dtype()));
        };
        const std::vector<Tensor> g = grad(rebuilt, {a});
        EXPECT_TRUE(all_finite(g[0]));
        // With one zero value nothing is repeated and the real rule is exact. Two exactly-zero
        // values are a repeated value: the broadened rule drops the off-diagonal part of the
        // gradient within that block; for complex input the phase of a zero value's pair (an
        // i Im(dP_ii) / (2 s) rotation times s) is dropped too (docs/linalg.md, "Degenerate
        // spectra"). There only finiteness holds.
        if (rank == 0 && !two_zeros && !is_complex(d)) EXPECT_TRUE(near(g[0], c, 1e-9, 1e-9));
        // Every factor, including the singular vectors of the zero values.
        const auto factors = [&](std::span<const Tensor> x) {
          const SvdResult r = svd_truncated(x[0], rank, 0.0);
          return sum_squares(abs(r.U)) + sum(r.S) + sum_squares(abs(r.Vh));
        };
        EXPECT_TRUE(all_finite(grad(factors, {a})[0]));
        const JvpResult j = jvp(
            [&](std::span<const Tensor> x) {
              const SvdResult r = svd_truncated(x[0], rank, 0.0);
              return std::vector<Tensor>{r.U, r.S, r.Vh};
            },
            {a}, {randn({4, 4}, 61, d)});
        for (const Tensor& t : j.tangents) EXPECT_TRUE(all_finite(t));
      }
    }
  }
}
