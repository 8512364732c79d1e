// GEMM providers: which one runs, fall-through, and each kernel against a reference over many
// shapes, strides and conjugations (whitebox: drives GemmProblem directly).
#include <gtest/gtest.h>

#include <random>

#include "common/contract_reference.hpp"
#include "cpu/providers/gemm_provider.hpp"
#include "primitives/contract.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro {
namespace {

using detail::GemmProblem;
using detail::GemmProvider;
using detail::GemmStatus;
using testing::cld;

TEST(ContractProviders, TinyGemmRunsOnFixedSizeKernel) {
  for (DType d : float_dtypes) {
    Tensor c = bmm(randn({16, 2, 2}, 1, d), randn({16, 2, 2}, 2, d));
    EXPECT_EQ(last_gemm_provider(), "small_fixed") << dtype_name(d);
    matmul(randn({3, 8}, 1, d), randn({8, 5}, 2, d));
    EXPECT_EQ(last_gemm_provider(), "small_fixed");
  }
}

TEST(ContractProviders, LargeGemmRunsOnOpenBlas) {
  CpuBackend blas(CpuBackendOptions{.threads = 2, .kind = BackendKind::blas});
  for (DType d : float_dtypes) {
    Tensor a = randn({64, 64}, 1, d), b = randn({64, 64}, 2, d);
    Tensor c = matmul(a, b);
    EXPECT_EQ(last_gemm_provider(), "openblas") << dtype_name(d);
    // Transposed operands pass to BLAS as Trans with their leading dimension.
    Tensor ct = matmul(a.transpose(), b.transpose());
    EXPECT_EQ(last_gemm_provider(), "openblas");
    testing::expect_matches(
        ct, testing::reference_dot_general(a.transpose(), b.transpose(), {{}, {}, {1}, {0}}), d,
        "openblas transposed");
    BackendGuard use(blas);
    Tensor cb = matmul(a, b);
    EXPECT_EQ(last_gemm_provider(), "openblas");
    testing::expect_close(c, cb, is_double_precision(d) ? 1e-12L : 1e-4L, "native vs blas kind");
  }
}

TEST(ContractProviders, Gemm128CubedRunsOnOpenBlas) {
  for (DType d : float_dtypes) {
    matmul(randn({128, 128}, 1, d), randn({128, 128}, 2, d));
    EXPECT_EQ(last_gemm_provider(), "openblas") << dtype_name(d);
  }
}

TEST(ContractProviders, BelowBlasThresholdRunsOnNativeKernel) {
  // Past the fixed-size kernels (a dimension > 8) but too little work for a BLAS call.
  for (DType d : float_dtypes) {
    bmm(randn({64, 2, 30}, 1, d), randn({64, 30, 3}, 2, d));
    EXPECT_EQ(last_gemm_provider(), "native_blocked") << dtype_name(d);
    vdot(randn({20}, 1, d), randn({20}, 2, d));
    EXPECT_EQ(last_gemm_provider(), "native_blocked");
  }
  // A batch of 16x16 matrices is above the threshold: one single-threaded BLAS call each.
  bmm(randn({64, 16, 16}, 1), randn({64, 16, 16}, 2));
  EXPECT_EQ(last_gemm_provider(), "openblas");
}

TEST(ContractProviders, ConjugatedOperandsOnBlas) {
  // conj of a row-major operand cannot be expressed in BLAS: packed; of a transposed one:
  // ConjTrans.
  Tensor a = randn({32, 40}, 1, DType::c128), b = randn({40, 36}, 2, DType::c128);
  for (bool ca : {false, true})
    for (bool cb : {false, true})
      for (bool ta : {false, true}) {
        Tensor aa = ta ? randn({40, 32}, 3, DType::c128).transpose() : a;
        detail::DotGeneralParams p;
        p.dims = {{}, {}, {1}, {0}};
        p.conj_lhs = ca;
        p.conj_rhs = cb;
        Tensor c = detail::dot_general_ex(aa, b, p);
        EXPECT_EQ(last_gemm_provider(), "openblas");
        testing::expect_matches(c, testing::reference_dot_general(aa, b, p.dims, ca, cb),
                                DType::c128, "conj blas");
      }
}

// A provider that declines everything, counting calls; it never looks at C.
class DecliningProvider final : public GemmProvider {
 public:
  std::string_view name() const noexcept override { return "test_declines"; }
  GemmStatus try_gemm(detail::ExecContext&, const GemmProblem&) const override {
    ++calls;
    return GemmStatus::unsupported;
  }
  mutable int calls = 0;
};

TEST(ContractProviders, UnsupportedProviderFallsThrough) {
  DecliningProvider declines;
  auto builtins = detail::builtin_gemm_providers();
  std::vector<const GemmProvider*> list{&declines};
  list.insert(list.end(), builtins.begin(), builtins.end());
  detail::ProviderRegistryOverride over(list);
  for (DType d : float_dtypes) {
    Tensor a = randn({4, 3, 3}, 1, d), b = randn({4, 3, 3}, 2, d);
    int before = declines.calls;
    Tensor c = bmm(a, b);
    EXPECT_EQ(declines.calls, before + 1);
    EXPECT_EQ(last_gemm_provider(), "small_fixed");
    testing::expect_matches(c, testing::reference_dot_general(a, b, {{0}, {0}, {2}, {1}}), d,
                            "fall-through");
  }
}

TEST(ContractProviders, NoProviderLeavesOutputUntouchedAndFails) {
  DecliningProvider declines;
  const GemmProvider* only[] = {&declines};
  std::vector<double> A(6, 1.0), B(6, 2.0), C(4, 42.0);
  GemmProblem p;
  p.dtype = DType::f64;
  p.m = 2;
  p.n = 2;
  p.k = 3;
  p.a = A.data();
  p.a_rs = 3;
  p.a_cs = 1;
  p.b = B.data();
  p.b_rs = 2;
  p.b_cs = 1;
  p.c = C.data();
  p.c_rs = 2;
  p.c_cs = 1;
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  cpu.with_session([&](Session& session) {
    detail::ExecContext& ctx = session.exec_context();
    BackendGuard use(cpu);
    {
      detail::ProviderRegistryOverride over(only);
      EXPECT_THROW(
          {
            try {
              detail::run_gemm(ctx, p);
            } catch (const Error& e) {
              EXPECT_EQ(e.kind(), ErrorKind::BackendFailure);
              throw;
            }
          },
          Error);
      EXPECT_EQ(declines.calls, 1);
      EXPECT_EQ(C, std::vector<double>(4, 42.0));
      // Through the public op: the error propagates and the inputs are untouched.
      Tensor a = randn({2, 3}, 1), b = randn({3, 2}, 2);
      auto ba = testing::raw_bytes(a);
      EXPECT_THROW(matmul(a, b), Error);
      EXPECT_EQ(ba, testing::raw_bytes(a));
    }
    // The override is gone: the built-ins run again.
    detail::run_gemm(ctx, p);
    EXPECT_EQ(C, std::vector<double>(4, 6.0));
  });
}

// ---- kernels against a reference, driven directly ----

enum class Lay { row, col, padded, strided_neg, broadcast_rows };

// Places a rows x cols matrix of values into `buf` with the layout; returns (base offset, rs, cs).
struct Placed {
  std::int64_t base, rs, cs;
};
template <class T>
Placed place(std::vector<T>& buf, const std::vector<T>& vals, std::int64_t rows, std::int64_t cols,
             Lay lay) {
  Placed pl{};
  switch (lay) {
    case Lay::row:
      pl = {0, cols, 1};
      break;
    case Lay::col:
      pl = {0, 1, rows};
      break;
    case Lay::padded:
      pl = {0, cols + 3, 1};
      break;
    case Lay::strided_neg:
      pl = {(rows - 1) * 2 * cols, -2 * cols, 2};
      break;
    case Lay::broadcast_rows:
      pl = {0, 0, 1};
      break;
  }
  std::int64_t need = 1;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      need = std::max(need, pl.base + i * pl.rs + j * pl.cs + 1);
  buf.assign(static_cast<std::size_t>(need), T{});
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      buf[static_cast<std::size_t>(pl.base + i * pl.rs + j * pl.cs)] =
          vals[static_cast<std::size_t>((lay == Lay::broadcast_rows ? 0 : i) * cols + j)];
  return pl;
}

template <class T>
T random_value(std::mt19937_64& rng) {
  std::normal_distribution<double> nd;
  if constexpr (is_complex_v<T>)
    return T(static_cast<real_t<T>>(nd(rng)), static_cast<real_t<T>>(nd(rng)));
  else
    return static_cast<T>(nd(rng));
}

template <class T>
cld to_cld(T v) {
  if constexpr (is_complex_v<T>)
    return cld(v.real(), v.imag());
  else
    return cld(v, 0);
}

// Runs `run(problem)` on a batch-3 problem and compares with the definition.
template <class T, class Run>
void check_kernel(std::int64_t m, std::int64_t n, std::int64_t k, Lay la, Lay lb, bool ca, bool cb,
                  Run&& run, std::mt19937_64& rng) {
  const std::int64_t batch = 3;
  std::vector<std::vector<T>> av(batch), bv(batch);
  std::vector<T> abuf_all, bbuf_all;
  std::vector<Placed> pa(batch), pb(batch);
  std::int64_t a_stride = 0, b_stride = 0;
  std::vector<std::vector<T>> abufs(batch), bbufs(batch);
  for (std::int64_t bi = 0; bi < batch; ++bi) {
    av[bi].resize(static_cast<std::size_t>(m * k));
    bv[bi].resize(static_cast<std::size_t>(k * n));
    for (auto& v : av[bi]) v = random_value<T>(rng);
    for (auto& v : bv[bi]) v = random_value<T>(rng);
    pa[bi] = place(abufs[bi], av[bi], m, k, la);
    pb[bi] = place(bbufs[bi], bv[bi], k, n, lb);
    a_stride = std::max<std::int64_t>(a_stride, static_cast<std::int64_t>(abufs[bi].size()));
    b_stride = std::max<std::int64_t>(b_stride, static_cast<std::int64_t>(bbufs[bi].size()));
  }
  abuf_all.assign(static_cast<std::size_t>(a_stride * batch), T{});
  bbuf_all.assign(static_cast<std::size_t>(b_stride * batch), T{});
  for (std::int64_t bi = 0; bi < batch; ++bi) {
    std::copy(abufs[bi].begin(), abufs[bi].end(), abuf_all.begin() + bi * a_stride);
    std::copy(bbufs[bi].begin(), bbufs[bi].end(), bbuf_all.begin() + bi * b_stride);
  }
  std::vector<T> cbuf(static_cast<std::size_t>(batch * m * n), T(7));
  GemmProblem p;
  p.dtype = dtype_v<T>;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a = abuf_all.data() + pa[0].base;
  p.a_rs = pa[0].rs;
  p.a_cs = pa[0].cs;
  p.b = bbuf_all.data() + pb[0].base;
  p.b_rs = pb[0].rs;
  p.b_cs = pb[0].cs;
  p.c = cbuf.data();
  p.c_rs = n;
  p.c_cs = 1;
  p.conj_a = ca;
  p.conj_b = cb;
  p.batch_shape = {batch};
  p.batch_a = {a_stride};
  p.batch_b = {b_stride};
  p.batch_c = {m * n};
  run(p);
  const long double tol = testing::tolerance_for(dtype_v<T>);
  for (std::int64_t bi = 0; bi < batch; ++bi)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        cld s = 0;
        long double mag = 0;
        for (std::int64_t q = 0; q < k; ++q) {
          cld x =
              to_cld(av[bi][static_cast<std::size_t>((la == Lay::broadcast_rows ? 0 : i) * k + q)]);
          cld y =
              to_cld(bv[bi][static_cast<std::size_t>((lb == Lay::broadcast_rows ? 0 : q) * n + j)]);
          if (ca) x = std::conj(x);
          if (cb) y = std::conj(y);
          s += cld(x.real() * y.real() - x.imag() * y.imag(),
                   x.real() * y.imag() + x.imag() * y.real());
          mag += (std::fabs(x.real()) + std::fabs(x.imag())) *
                 (std::fabs(y.real()) + std::fabs(y.imag()));
        }
        cld got = to_cld(cbuf[static_cast<std::size_t>(bi * m * n + i * n + j)]);
        ASSERT_LE(std::abs(got - s), tol * (mag + 1e-30L))
            << dtype_name(dtype_v<T>) << " m=" << m << " n=" << n << " k=" << k << " layouts "
            << int(la) << "," << int(lb) << " conj " << ca << cb << " at batch " << bi << " (" << i
            << "," << j << ")";
      }
}

template <class T>
void small_kernel_sweep() {
  std::mt19937_64 rng(5);
  for (std::int64_t m = 1; m <= 8; ++m)
    for (std::int64_t n = 1; n <= 8; ++n)
      for (std::int64_t k = 1; k <= 8; ++k) {
        Lay la = static_cast<Lay>((m + n + k) % 5), lb = static_cast<Lay>((m * n + k) % 5);
        bool ca = (m + k) % 2 == 0, cb = (n + k) % 3 == 0;
        auto run = [](const GemmProblem& p) { ASSERT_TRUE(detail::gemm_small(p, 0, p.batch())); };
        check_kernel<T>(m, n, k, la, lb, ca, cb, run, rng);
        // Square shapes also in the contiguous layout (their constant-offset kernels).
        if (m == n && n == k) check_kernel<T>(m, n, k, Lay::row, Lay::row, ca, cb, run, rng);
      }
}

TEST(ContractKernels, SmallKernelEveryShapeUpTo8) {
  small_kernel_sweep<float>();
  small_kernel_sweep<double>();
  small_kernel_sweep<c64>();
  small_kernel_sweep<c128>();
}

// Contiguous batches of 2x2 real matrices take the lanes kernel (Note [Tiny GEMM across the
// batch]) for whole vectors and the per-matrix kernel for the tail: every batch size (a tail of
// every length, none, and batches smaller than a vector), both storage orders of A and B (the
// backward products of bmm read them transposed) and every sub-range [b0, b1) (the parallel
// split) give, bit for bit, the per-matrix kernel's result, which a padded batch stride forces.
template <class T>
void batch_2x2_matches_per_matrix_kernel() {
  std::mt19937_64 rng(7);
  for (std::int64_t batch : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33})
    for (int order = 0; order < 4; ++order) {
      const bool ta = order & 1, tb = order & 2;
      std::vector<T> a(static_cast<std::size_t>(4 * batch)), b(a.size());  // logical, row-major
      for (T& v : a) v = random_value<T>(rng);
      for (T& v : b) v = random_value<T>(rng);
      // Packed in the storage order under test, and padded (five apart, row-major): the padded
      // batch stride is not packed, so the per-matrix kernel runs on it.
      std::vector<T> as(a.size()), bs(b.size());
      std::vector<T> ap(static_cast<std::size_t>(5 * batch)), bp(ap.size());
      for (std::int64_t i = 0; i < batch; ++i)
        for (std::int64_t r = 0; r < 2; ++r)
          for (std::int64_t c = 0; c < 2; ++c) {
            const auto logical = static_cast<std::size_t>(4 * i + 2 * r + c);
            const auto stored = static_cast<std::size_t>(4 * i + r + 2 * c);
            as[ta ? stored : logical] = a[logical];
            bs[tb ? stored : logical] = b[logical];
            ap[static_cast<std::size_t>(5 * i + 2 * r + c)] = a[logical];
            bp[static_cast<std::size_t>(5 * i + 2 * r + c)] = b[logical];
          }
      auto problem = [&](const T* pa, const T* pb, std::int64_t stride, bool ta_, bool tb_, T* c) {
        GemmProblem p;
        p.dtype = dtype_v<T>;
        p.m = p.n = p.k = 2;
        p.a = pa;
        p.b = pb;
        p.c = c;
        p.a_rs = ta_ ? 1 : 2;
        p.a_cs = ta_ ? 2 : 1;
        p.b_rs = tb_ ? 1 : 2;
        p.b_cs = tb_ ? 2 : 1;
        p.c_rs = 2;
        p.c_cs = 1;
        p.batch_shape = {batch};
        p.batch_a = {stride};
        p.batch_b = {stride};
        p.batch_c = {4};
        return p;
      };
      std::vector<T> want(a.size(), T(7)), got(a.size(), T(7));
      ASSERT_TRUE(detail::gemm_small(problem(ap.data(), bp.data(), 5, false, false, want.data()), 0,
                                     batch));
      ASSERT_TRUE(
          detail::gemm_small(problem(as.data(), bs.data(), 4, ta, tb, got.data()), 0, batch));
      EXPECT_EQ(got, want) << "batch " << batch << " order " << order;
      for (std::int64_t i = 0; i < batch; ++i) {  // and the definition, to rounding
        const T* x = &a[static_cast<std::size_t>(4 * i)];
        const T* y = &b[static_cast<std::size_t>(4 * i)];
        EXPECT_EQ(want[static_cast<std::size_t>(4 * i + 1)], x[0] * y[1] + x[1] * y[3]);
      }
      // A sub-range writes exactly its own matrices.
      const std::int64_t b0 = batch / 3, b1 = batch - batch / 4;
      std::vector<T> part(a.size(), T(7));
      ASSERT_TRUE(
          detail::gemm_small(problem(as.data(), bs.data(), 4, ta, tb, part.data()), b0, b1));
      for (std::int64_t i = 0; i < batch; ++i)
        for (std::int64_t e = 0; e < 4; ++e) {
          const auto at = static_cast<std::size_t>(4 * i + e);
          EXPECT_EQ(part[at], i >= b0 && i < b1 ? want[at] : T(7)) << "batch " << batch << " " << i;
        }
    }
}

// One operand the same matrix for the whole batch (batch stride 0, as the broadcast cotangent of
// a sum()): row-major, transposed, or every element one value (strides 0, a broadcast scalar).
// The result must be bitwise the per-matrix kernel's on explicit copies of that matrix.
template <class T>
void uniform_2x2_matches_per_matrix_kernel() {
  std::mt19937_64 rng(9);
  const std::int64_t strides[][2] = {{2, 1}, {1, 2}, {0, 0}};
  for (std::int64_t batch : {1, 3, 4, 7, 8, 9, 16, 17, 33})
    for (int side = 0; side < 2; ++side)         // 0: A uniform, 1: B uniform
      for (int order = 0; order < 6; ++order) {  // uniform strides x packed storage order
        const auto& us = strides[order % 3];
        const bool tp = order >= 3;
        std::vector<T> u(4), packed(static_cast<std::size_t>(4 * batch));
        for (T& v : u) v = random_value<T>(rng);
        for (T& v : packed) v = random_value<T>(rng);
        // The uniform matrix as the kernels read it, and as explicit per-matrix copies (stride 5).
        auto uni = [&](std::int64_t r, std::int64_t c) {
          return u[static_cast<std::size_t>(r * us[0] + c * us[1])];
        };
        std::vector<T> copies(static_cast<std::size_t>(5 * batch)), stored(packed.size());
        std::vector<T> logical(packed.size());
        for (std::int64_t i = 0; i < batch; ++i)
          for (std::int64_t r = 0; r < 2; ++r)
            for (std::int64_t c = 0; c < 2; ++c) {
              copies[static_cast<std::size_t>(5 * i + 2 * r + c)] = uni(r, c);
              const auto at = static_cast<std::size_t>(4 * i + 2 * r + c);
              logical[at] = packed[at];
              stored[static_cast<std::size_t>(tp ? 4 * i + r + 2 * c : 4 * i + 2 * r + c)] =
                  packed[at];
            }
        auto problem = [&](bool explicit_copies, T* c) {
          GemmProblem p;
          p.dtype = dtype_v<T>;
          p.m = p.n = p.k = 2;
          const T* uni_ptr = explicit_copies ? copies.data() : u.data();
          const std::int64_t urs = explicit_copies ? 2 : us[0], ucs = explicit_copies ? 1 : us[1];
          const std::int64_t ubatch = explicit_copies ? 5 : 0;
          const T* pk = explicit_copies ? logical.data() : stored.data();
          const std::int64_t prs = !explicit_copies && tp ? 1 : 2;
          const std::int64_t pcs = !explicit_copies && tp ? 2 : 1;
          p.a = side == 0 ? uni_ptr : pk;
          p.b = side == 0 ? pk : uni_ptr;
          p.a_rs = side == 0 ? urs : prs;
          p.a_cs = side == 0 ? ucs : pcs;
          p.b_rs = side == 0 ? prs : urs;
          p.b_cs = side == 0 ? pcs : ucs;
          p.c = c;
          p.c_rs = 2;
          p.c_cs = 1;
          p.batch_shape = {batch};
          p.batch_a = {side == 0 ? ubatch : 4};
          p.batch_b = {side == 0 ? 4 : ubatch};
          p.batch_c = {4};
          return p;
        };
        std::vector<T> want(packed.size(), T(7)), got(packed.size(), T(7));
        ASSERT_TRUE(detail::gemm_small(problem(true, want.data()), 0, batch));
        ASSERT_TRUE(detail::gemm_small(problem(false, got.data()), 0, batch));
        EXPECT_EQ(got, want) << "batch " << batch << " side " << side << " order " << order;
        for (std::int64_t i = 0; i < batch; ++i) {  // and the definition, to rounding
          const T* x = &logical[static_cast<std::size_t>(4 * i)];
          const T e01 =
              side == 0 ? uni(0, 0) * x[1] + uni(0, 1) * x[3] : x[0] * uni(0, 1) + x[1] * uni(1, 1);
          EXPECT_EQ(want[static_cast<std::size_t>(4 * i + 1)], e01);
        }
        const std::int64_t b0 = batch / 3, b1 = batch - batch / 4;
        std::vector<T> part(packed.size(), T(7));
        ASSERT_TRUE(detail::gemm_small(problem(false, part.data()), b0, b1));
        for (std::int64_t i = 0; i < batch; ++i)
          for (std::int64_t e = 0; e < 4; ++e) {
            const auto at = static_cast<std::size_t>(4 * i + e);
            EXPECT_EQ(part[at], i >= b0 && i < b1 ? want[at] : T(7)) << batch << " " << i;
          }
      }
}

TEST(ContractKernels, Batched2x2LanesKernelIsThePerMatrixKernelBitwise) {
  batch_2x2_matches_per_matrix_kernel<float>();
  batch_2x2_matches_per_matrix_kernel<double>();
  uniform_2x2_matches_per_matrix_kernel<float>();
  uniform_2x2_matches_per_matrix_kernel<double>();
}

template <class T>
void blocked_sweep() {
  std::mt19937_64 rng(6);
  // The last three cross the kernel's K (128) and N (256) block sizes; fewer layouts for them.
  const std::int64_t sizes[][3] = {{1, 1, 1},     {9, 10, 11}, {33, 17, 5},
                                   {3, 260, 131}, {5, 3, 260}, {2, 520, 3}};
  for (int si = 0; si < 6; ++si)
    for (int l = 0; l < 5; ++l)
      for (int c = 0; c < 4; ++c) {
        if (si >= 3 && (l + c) % 4 != 0) continue;
        const auto& s = sizes[si];
        Lay la = static_cast<Lay>(l), lb = static_cast<Lay>((l + c) % 5);
        // Whole matrices, then the rows split in two uneven halves (as the parallel split does).
        check_kernel<T>(
            s[0], s[1], s[2], la, lb, c & 1, c & 2,
            [](const GemmProblem& p) { detail::gemm_blocked(p, 0, p.batch(), 0, p.m); }, rng);
        check_kernel<T>(
            s[0], s[1], s[2], la, lb, c & 1, c & 2,
            [](const GemmProblem& p) {
              const std::int64_t h = p.m / 3;
              detail::gemm_blocked(p, 0, 1, 0, p.m);
              detail::gemm_blocked(p, 1, p.batch(), 0, h);
              detail::gemm_blocked(p, 1, p.batch(), h, p.m);
            },
            rng);
      }
}

TEST(ContractKernels, BlockedKernelShapesLayoutsConjugation) {
  blocked_sweep<float>();
  blocked_sweep<double>();
  blocked_sweep<c64>();
  blocked_sweep<c128>();
}

template <class T>
void blas_sweep() {
  std::mt19937_64 rng(7);
  CpuBackend cpu(CpuBackendOptions{.threads = 1});
  cpu.with_session([&](Session& session) {
    detail::ExecContext& ctx = session.exec_context();
    BackendGuard use(cpu);
    // m = 1, n = 1 and m = n = 1 take gemv / dot (Note [Vector products through gemv]).
    const std::int64_t sizes[][3] = {{33, 34, 35},  {1, 300, 120}, {120, 1, 300},
                                     {1, 1, 40000}, {20, 26, 2},   {8, 9, 10}};
    for (auto& s : sizes)
      for (int l = 0; l < 5; ++l)
        for (int c = 0; c < 4; ++c) {
          if ((l + c) % 2 != 0) continue;
          Lay la = static_cast<Lay>(l), lb = static_cast<Lay>((l + 2 * c) % 5);
          check_kernel<T>(
              s[0], s[1], s[2], la, lb, c & 1, c & 2,
              [&](const GemmProblem& p) {
                const bool big = p.m * p.n * p.k >= detail::kOpenBlasMinFlops;
                EXPECT_EQ(detail::openblas_gemm_provider().try_gemm(ctx, p) == GemmStatus::executed,
                          big);
                if (!big) detail::gemm_blocked(p, 0, p.batch(), 0, p.m);
              },
              rng);
        }
  });
}

TEST(ContractKernels, OpenBlasProviderLayoutsAndPacking) {
  blas_sweep<float>();
  blas_sweep<double>();
  blas_sweep<c64>();
  blas_sweep<c128>();
}

}  // namespace
}  // namespace tenferro
