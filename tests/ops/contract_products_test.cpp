// matmul, bmm, tensordot, outer, inner, vdot against the reference definitions, plus their errors.
#include <gtest/gtest.h>

#include "common/contract_reference.hpp"
#include "common/expect_error.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro {
namespace {

using testing::cld;
using testing::expect_error;
using testing::expect_matches;
using testing::reference_dot_general;
using testing::values_ld;

// NumPy matmul by definition: broadcast batch, promote 1-D operands.
testing::Reference reference_matmul(const Tensor& a, const Tensor& b) {
  const auto va = values_ld(a), vb = values_ld(b);
  const bool a1 = a.rank() == 1, b1 = b.rank() == 1;
  std::vector<std::int64_t> sa(a.shape().begin(), a.shape().end()),
      sb(b.shape().begin(), b.shape().end());
  if (a1) sa.insert(sa.begin(), 1);
  if (b1) sb.push_back(1);
  const std::int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  std::vector<std::int64_t> ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  const std::size_t nb = std::max(ba.size(), bb.size());
  ba.insert(ba.begin(), nb - ba.size(), 1);
  bb.insert(bb.begin(), nb - bb.size(), 1);
  std::vector<std::int64_t> batch(nb);
  std::int64_t nbatch = 1;
  for (std::size_t i = 0; i < nb; ++i) nbatch *= (batch[i] = std::max(ba[i], bb[i]));
  testing::Reference r;
  r.shape = batch;
  if (!a1) r.shape.push_back(m);
  if (!b1) r.shape.push_back(n);
  for (std::int64_t bi = 0; bi < nbatch; ++bi) {
    std::int64_t rem = bi, oa = 0, ob = 0, stride_a = m * k, stride_b = k * n;
    for (std::size_t i = nb; i-- > 0;) {
      std::int64_t j = rem % batch[i];
      rem /= batch[i];
      oa += (ba[i] == 1 ? 0 : j) * stride_a;
      ob += (bb[i] == 1 ? 0 : j) * stride_b;
      stride_a *= ba[i];
      stride_b *= bb[i];
    }
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        cld s = 0;
        long double mag = 0;
        for (std::int64_t q = 0; q < k; ++q) {
          cld x = va[static_cast<std::size_t>(oa + i * k + q)],
              y = vb[static_cast<std::size_t>(ob + q * n + j)];
          s += x * y;
          mag += std::abs(x) * std::abs(y);
        }
        r.values.push_back(s);
        r.magnitude.push_back(mag);
      }
  }
  return r;
}

TEST(ContractMatmul, NumPyShapesAllDTypes) {
  const std::pair<Dims, Dims> shapes[] = {
      {{4}, {4}},
      {{3, 4}, {4}},
      {{4}, {4, 5}},
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {4}},
      {{4}, {2, 4, 5}},
      {{2, 3, 4}, {4, 5}},
      {{3, 4}, {2, 4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {5, 4, 2}},
      {{1, 3, 4}, {6, 4, 2}},
      {{7, 1, 2, 3}, {1, 4, 3, 2}},
      {{16, 2, 2}, {16, 2, 2}},
      {{40, 33}, {33, 20}},
  };
  std::uint64_t seed = 100;
  for (const auto& [sa, sb] : shapes)
    for (DType da : float_dtypes)
      for (DType db : {da, DType::f64}) {
        Tensor a = randn(sa, seed++, da), b = randn(sb, seed++, db);
        std::string what = "matmul " + dims_to_string(sa) + " x " + dims_to_string(sb);
        expect_matches(matmul(a, b), reference_matmul(a, b), promote(da, db), what.c_str());
      }
}

TEST(ContractMatmul, StridedOperands) {
  Tensor at = randn({5, 2, 3}, 1).transpose();        // [5, 3, 2] transposed
  Tensor bs = randn({5, 2, 8}, 2).slice(2, 0, 8, 2);  // [5, 2, 4] sliced
  expect_matches(matmul(at, bs), reference_matmul(at, bs), DType::f64, "transposed x sliced");
  Tensor bb = randn({1, 2, 4}, 3, DType::c64).broadcast_to({5, 2, 4});
  expect_matches(matmul(at, bb), reference_matmul(at, bb), DType::c128, "transposed x broadcast");
}

TEST(ContractBmm, MatchesReference) {
  for (DType d : float_dtypes) {
    Tensor a = randn({16, 2, 2}, 1, d), b = randn({16, 2, 2}, 2, d);
    expect_matches(bmm(a, b), reference_dot_general(a, b, {{0}, {0}, {2}, {1}}), d, "bmm");
    Tensor a2 = randn({3, 5, 9}, 3, d).transpose(), b2 = randn({3, 5, 7}, 4, d);
    expect_matches(bmm(a2, b2), reference_dot_general(a2, b2, {{0}, {0}, {2}, {1}}), d,
                   "bmm transposed");
  }
}

TEST(ContractTensordot, AxesAndCount) {
  for (DType d : float_dtypes) {
    Tensor a = randn({2, 3, 4}, 1, d), b = randn({4, 3, 5}, 2, d);
    expect_matches(tensordot(a, b, {1, 2}, {1, 0}),
                   reference_dot_general(a, b, {{}, {}, {1, 2}, {1, 0}}), d, "tensordot axes");
    expect_matches(tensordot(a, b, {-1}, {0}), reference_dot_general(a, b, {{}, {}, {2}, {0}}), d,
                   "tensordot negative axis");
    Tensor c = randn({3, 4, 6}, 3, d);
    expect_matches(tensordot(a, c, 2), reference_dot_general(a, c, {{}, {}, {1, 2}, {0, 1}}), d,
                   "tensordot n=2");
    expect_matches(tensordot(a, c, 0), reference_dot_general(a, c, {{}, {}, {}, {}}), d,
                   "tensordot n=0");
  }
}

TEST(ContractOuterInnerVdot, MatchDefinitions) {
  for (DType d : float_dtypes) {
    Tensor x = randn({4}, 1, d), y = randn({3}, 2, d);
    expect_matches(outer(x, y), reference_dot_general(x, y, {}), d, "outer");
    Tensor m = randn({2, 2}, 3, d);
    Tensor mf = m.reshape({4});
    expect_matches(outer(m, y), reference_dot_general(mf, y, {}), d, "outer flattens");
    Tensor z = randn({4}, 4, d);
    expect_matches(inner(x, z), reference_dot_general(x, z, {{}, {}, {0}, {0}}), d, "inner 1-D");
    Tensor p = randn({2, 3, 4}, 5, d), q = randn({5, 4}, 6, d);
    expect_matches(inner(p, q), reference_dot_general(p, q, {{}, {}, {2}, {1}}), d, "inner N-D");
    Tensor u = randn({2, 3}, 7, d), v = randn({3, 2}, 8, d);
    Tensor vd = vdot(u, v);
    EXPECT_EQ(vd.rank(), 0);
    expect_matches(
        vd,
        testing::reference_dot_general(u.reshape({6}), v.reshape({6}), {{}, {}, {0}, {0}}, true), d,
        "vdot conjugates a");
  }
  // vdot of complex vectors conjugates the first: vdot([i], [i]) = 1.
  Tensor i1 = from_vector<c128>({c128(0, 1)}, {1});
  EXPECT_EQ(vdot(i1, i1).item<c128>(), c128(1, 0));
  EXPECT_EQ(inner(i1, i1).item<c128>(), c128(-1, 0));
}

TEST(ContractProducts, Errors) {
  Tensor s = scalar_tensor(1.0), v3 = randn({3}, 1), v4 = randn({4}, 2, DType::c64);
  Tensor m34 = randn({3, 4}, 3), m35 = randn({3, 5}, 4), b234 = randn({2, 3, 4}, 5),
         b345 = randn({3, 4, 5}, 6);
  auto before = testing::raw_bytes(m34);
  expect_error([&] { matmul(s, v3); }, ErrorKind::InvalidArgument, {"matmul", "rank"});
  expect_error([&] { matmul(v3, v4); }, ErrorKind::ShapeMismatch, {"matmul", "[3] f64", "[4] c64"});
  expect_error([&] { matmul(m34, m35); }, ErrorKind::ShapeMismatch,
               {"matmul", "[3, 4] f64", "[3, 5] f64"});
  expect_error(
      [&] {
        matmul(b234, randn({3, 4, 5}, 7));
      },
      ErrorKind::ShapeMismatch, {"matmul", "broadcast"});
  expect_error([&] { bmm(m34, b345); }, ErrorKind::InvalidArgument, {"bmm", "rank-3"});
  expect_error([&] { bmm(b234, b345); }, ErrorKind::ShapeMismatch, {"bmm", "batch"});
  expect_error(
      [&] {
        bmm(b234, randn({2, 5, 4}, 8));
      },
      ErrorKind::ShapeMismatch, {"bmm", "[2, 5, 4]"});
  expect_error([&] { tensordot(m34, m35, {1}, {1}); }, ErrorKind::ShapeMismatch,
               {"tensordot", "differ in size"});
  expect_error([&] { tensordot(m34, m35, {2}, {1}); }, ErrorKind::InvalidArgument,
               {"tensordot", "out of range"});
  expect_error(
      [&] {
        tensordot(m34, m35, {0, 0}, {0, 1});
      },
      ErrorKind::InvalidArgument, {"tensordot", "repeat"});
  expect_error(
      [&] {
        tensordot(m34, m35, {0}, {0, 1});
      },
      ErrorKind::InvalidArgument, {"tensordot", "length"});
  expect_error([&] { tensordot(m34, m35, 3); }, ErrorKind::InvalidArgument, {"tensordot", "n=3"});
  expect_error([&] { inner(s, v3); }, ErrorKind::InvalidArgument, {"inner"});
  expect_error([&] { inner(m34, m35); }, ErrorKind::ShapeMismatch, {"inner", "[3, 4] f64"});
  expect_error([&] { vdot(v3, v4); }, ErrorKind::ShapeMismatch, {"vdot", "[3] f64", "[4] c64"});
  expect_error([&] { outer(Tensor(), v3); }, ErrorKind::InvalidArgument, {"outer", "undefined"});
  EXPECT_EQ(before, testing::raw_bytes(m34));
}

}  // namespace
}  // namespace tenferro
