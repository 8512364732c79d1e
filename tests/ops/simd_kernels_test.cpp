// Whitebox: the Highway loops (cpu/kernels/simd.hpp) against scalar references, for every size
// around the vector widths (tails) and unaligned starts; then the public ops that reach them:
// results of add/exp/sum on sliced inputs, the SLEEF functions' values and special cases, and full
// sums bitwise equal at 1, 2 and 4 threads (Note [SIMD results], Note [Deterministic reductions]).
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cpu/kernels/reduce.hpp"
#include "cpu/kernels/simd.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro::detail::kernels::simd {
namespace {

constexpr std::int64_t kSizes[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 63, 64, 65, 1000, 4097};
constexpr Binary kBinaryOps[] = {Binary::add, Binary::sub, Binary::mul, Binary::div};

template <class T>
std::vector<T> random_values(std::int64_t n, unsigned seed, T lo = -2, T hi = 2) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<T> dist(lo, hi);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v) x = dist(gen);
  return v;
}

template <class T>
T apply_reference(Binary op, T a, T b) {
  switch (op) {
    case Binary::add:
      return a + b;
    case Binary::sub:
      return a - b;
    case Binary::mul:
      return a * b;
    default:
      return a / b;
  }
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The documented sum order of one block (Note [Deterministic reductions]), written out in
// scalar code: lanes of kSumLanes, leaves of kSumLeafRows rows, halves, lane tree, tail.
template <class T>
void rows_reference(const T* p, std::int64_t rows, T* acc) {
  constexpr std::int64_t L = kSumLanes<T>;
  if (rows <= kSumLeafRows) {
    for (std::int64_t k = 0; k < L; ++k) acc[k] = p[k];
    for (std::int64_t r = 1; r < rows; ++r)
      for (std::int64_t k = 0; k < L; ++k) acc[k] += p[r * L + k];
    return;
  }
  const std::int64_t h = rows / 2;
  std::vector<T> right(L);
  rows_reference(p, h, acc);
  rows_reference(p + h * L, rows - h, right.data());
  for (std::int64_t k = 0; k < L; ++k) acc[k] += right[static_cast<std::size_t>(k)];
}
template <class T>
T sum_reference(const T* p, std::int64_t n) {
  constexpr std::int64_t L = kSumLanes<T>;
  const std::int64_t rows = n / L;
  T r = 0;
  if (rows > 0) {
    std::vector<T> lane(L);
    rows_reference(p, rows, lane.data());
    for (std::int64_t w = L / 2; w > 0; w /= 2)
      for (std::int64_t k = 0; k < w; ++k) lane[k] += lane[k + w];
    r = lane[0];
  }
  for (std::int64_t i = rows * L; i < n; ++i) r += p[i];
  return r;
}

template <class T>
class SimdKernels : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SimdKernels, Types);

TYPED_TEST(SimdKernels, BinaryOpsMatchScalarBitwise) {
  using T = TypeParam;
  for (std::int64_t n : kSizes)
    for (std::int64_t off : {0, 1}) {  // off 1: a start that is not vector-aligned
      const auto a = random_values<T>(n + 1, 1), b0 = random_values<T>(n + 1, 2, T(0.5), T(3));
      const T s = T(1.75);
      for (Binary op : kBinaryOps) {
        SCOPED_TRACE("n " + std::to_string(n) + " off " + std::to_string(off) + " op " +
                     std::to_string(static_cast<int>(op)));
        std::vector<T> out(a.size(), T(-7)), right(a.size()), left(a.size());
        binary(op, a.data() + off, b0.data() + off, out.data() + off, n);
        binary_scalar_right(op, a.data() + off, s, right.data() + off, n);
        binary_scalar_left(op, s, b0.data() + off, left.data() + off, n);
        if (off == 1) EXPECT_EQ(out[0], T(-7)) << "wrote before the start";
        for (std::int64_t i = off; i < n + off; ++i) {
          const auto u = static_cast<std::size_t>(i);
          ASSERT_TRUE(same_bits(out[u], apply_reference(op, a[u], b0[u]))) << "at " << i;
          ASSERT_TRUE(same_bits(right[u], apply_reference(op, a[u], s))) << "at " << i;
          ASSERT_TRUE(same_bits(left[u], apply_reference(op, s, b0[u]))) << "at " << i;
        }
        std::vector<T> in_place = a;  // out exactly aliasing an input
        binary(op, in_place.data() + off, b0.data() + off, in_place.data() + off, n);
        for (std::int64_t i = off; i < n + off; ++i)
          ASSERT_TRUE(same_bits(in_place[static_cast<std::size_t>(i)], out[i]));
      }
    }
}

// The transcendental loops (SLEEF's 1-ulp functions) against the C library, which is itself
// within 1 ulp: 2 ulp apart at most, relative to the result (absolute near the subnormal range).
struct UnaryCase {
  Unary op;
  const char* name;
  double lo, hi;  // a domain where the function is finite and interesting
};
constexpr UnaryCase kUnaryCases[] = {
    {Unary::exp, "exp", -20, 20},        {Unary::log, "log", 1e-6, 1e6},
    {Unary::sin, "sin", -100, 100},      {Unary::cos, "cos", -100, 100},
    {Unary::tanh, "tanh", -20, 20},      {Unary::expm1, "expm1", -20, 20},
    {Unary::log1p, "log1p", -0.999, 1e6}};

template <class T>
T unary_reference(Unary op, T x) {
  switch (op) {
    case Unary::exp:
      return std::exp(x);
    case Unary::log:
      return std::log(x);
    case Unary::sin:
      return std::sin(x);
    case Unary::cos:
      return std::cos(x);
    case Unary::tanh:
      return std::tanh(x);
    case Unary::expm1:
      return std::expm1(x);
    case Unary::log1p:
      return std::log1p(x);
    case Unary::none:
      break;
  }
  return x;
}

// y agrees with the C library's f(x): NaN for NaN, the same infinity, a zero of the same sign,
// else within 2 ulp of the result (2 smallest subnormals absolute below the normal range).
template <class T>
::testing::AssertionResult agrees(Unary op, T x, T y) {
  const T want = unary_reference(op, x);
  const auto fail = [&] {
    return ::testing::AssertionFailure() << "x " << x << ": got " << y << ", C library " << want;
  };
  if (std::isnan(want)) return std::isnan(y) ? ::testing::AssertionSuccess() : fail();
  if (std::isinf(want) || want == 0)
    return y == want && std::signbit(y) == std::signbit(want) ? ::testing::AssertionSuccess()
                                                              : fail();
  const T tol = std::max(2 * std::numeric_limits<T>::epsilon() * std::abs(want),
                         2 * std::numeric_limits<T>::denorm_min());
  return std::abs(y - want) <= tol ? ::testing::AssertionSuccess() : fail();
}

TYPED_TEST(SimdKernels, TranscendentalsWithinTwoUlpAndIndependentOfPosition) {
  using T = TypeParam;
  for (const UnaryCase& c : kUnaryCases)
    for (std::int64_t n : kSizes)
      for (std::int64_t off : {0, 1}) {
        SCOPED_TRACE(std::string(c.name) + " n " + std::to_string(n) + " off " +
                     std::to_string(off));
        const auto x = random_values<T>(n + 1, 5, T(c.lo), T(c.hi));
        std::vector<T> y(x.size());
        unary(c.op, x.data() + off, y.data() + off, n);
        for (std::int64_t i = off; i < n + off; ++i) {
          const auto u = static_cast<std::size_t>(i);
          ASSERT_TRUE(agrees(c.op, x[u], y[u]));
          T alone;  // the same element as a one-element tail: the same bits
          unary(c.op, &x[u], &alone, 1);
          ASSERT_TRUE(same_bits(alone, y[u])) << "x " << x[u];
        }
      }
}

// Special values and the ends of each domain: C99's results (NaN, infinities, signed zeros),
// huge arguments of sin/cos (exact reduction), subnormal inputs and results.
TYPED_TEST(SimdKernels, TranscendentalEdges) {
  using T = TypeParam;
  using L = std::numeric_limits<T>;
  const std::vector<T> x = {L::quiet_NaN(),
                            L::infinity(),
                            -L::infinity(),
                            T(0),
                            T(-0.0),
                            T(1),
                            T(-1),
                            T(-0.5),
                            T(-2),
                            L::min(),
                            -L::min(),
                            L::denorm_min(),
                            -L::denorm_min(),
                            L::max(),
                            -L::max(),
                            T(1e-20),
                            T(-1e-20),
                            T(20),
                            T(-20),
                            T(88.7),
                            T(-88.7),
                            T(89),
                            T(-104),
                            T(709.7),
                            T(710),
                            T(-745),
                            T(1e5),
                            T(-1e5),
                            T(1e15),
                            T(1e22),
                            T(1e30),
                            T(-1e30),
                            T(3.14159265358979323846),
                            T(1.5707963267948966),
                            T(-0.9999999)};
  for (const UnaryCase& c : kUnaryCases) {
    SCOPED_TRACE(c.name);
    std::vector<T> y(x.size());
    unary(c.op, x.data(), y.data(), static_cast<std::int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(agrees(c.op, x[i], y[i]));
  }
  // exp over its whole finite range, subnormal results included.
  const T lo = sizeof(T) == 4 ? T(-110) : T(-760), hi = sizeof(T) == 4 ? T(90) : T(711);
  std::vector<T> xs, ys;
  for (T v = lo; v < hi; v += T(0.0137)) xs.push_back(v);
  ys.resize(xs.size());
  unary(Unary::exp, xs.data(), ys.data(), static_cast<std::int64_t>(xs.size()));
  for (std::size_t i = 0; i < xs.size(); ++i) ASSERT_TRUE(agrees(Unary::exp, xs[i], ys[i]));
  // sin and cos of arguments far beyond a few periods: exact argument reduction.
  std::vector<T> big;
  for (T v = T(1e3); v < T(1e30); v *= T(1.7)) big.push_back(v);
  std::vector<T> sb(big.size()), cb(big.size());
  unary(Unary::sin, big.data(), sb.data(), static_cast<std::int64_t>(big.size()));
  unary(Unary::cos, big.data(), cb.data(), static_cast<std::int64_t>(big.size()));
  for (std::size_t i = 0; i < big.size(); ++i) {
    ASSERT_TRUE(agrees(Unary::sin, big[i], sb[i]));
    ASSERT_TRUE(agrees(Unary::cos, big[i], cb[i]));
  }
}

// Where |x| is below 2^-60 (f64) / 2^-30 (f32), log1p(x) rounds to x itself, sign included:
// SLEEF gave +0 for negative subnormals (log1p(-denorm_min) was +0, within the tolerance of
// `agrees` but on the wrong side of zero).
TYPED_TEST(SimdKernels, Log1pOfTinyValuesIsTheValueItself) {
  using T = TypeParam;
  using L = std::numeric_limits<T>;
  std::vector<T> x;
  for (T v : {L::denorm_min(), T(3) * L::denorm_min(), L::min() / T(3), L::min(), T(1e-30),
              T(sizeof(T) == 4 ? 0x1.fffffep-31 : 0x1.fffffffffffffp-61)}) {
    x.push_back(v);
    x.push_back(-v);
  }
  x.push_back(T(-0.0));
  for (std::int64_t n : {std::int64_t{1}, static_cast<std::int64_t>(x.size())}) {
    std::vector<T> y(x.size());
    for (std::size_t i = 0; i + static_cast<std::size_t>(n) <= x.size();
         i += static_cast<std::size_t>(n))
      unary(Unary::log1p, x.data() + i, y.data() + i, n);
    for (std::size_t i = 0; i < x.size(); ++i)
      EXPECT_TRUE(same_bits(y[i], x[i])) << "log1p(" << x[i] << ") = " << y[i] << ", n " << n;
  }
}

TYPED_TEST(SimdKernels, SumBlockIsTheDocumentedOrder) {
  using T = TypeParam;
  constexpr std::int64_t L = kSumLanes<T>;
  std::vector<std::int64_t> sizes(std::begin(kSizes), std::end(kSizes));
  for (std::int64_t n : {L - 1, L, L + 1, 16 * L, 16 * L + 1, 17 * L, 33 * L - 1, 128 * L,
                         129 * L + 3, 257 * L, 700 * L + 5, kReduceBlock})
    sizes.push_back(n);
  for (std::int64_t n : sizes)
    for (std::int64_t off : {0, 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " off " + std::to_string(off));
      const auto x = random_values<T>(n + 1, 4);
      const T got = sum_block(x.data() + off, n);
      ASSERT_TRUE(same_bits(got, sum_reference(x.data() + off, n))) << got;
      long double exact = 0, mag = 0;
      for (std::int64_t i = off; i < n + off; ++i) {
        exact += x[static_cast<std::size_t>(i)];
        mag += std::abs(x[static_cast<std::size_t>(i)]);
      }
      EXPECT_LE(std::abs(static_cast<long double>(got) - exact),
                32 * std::numeric_limits<T>::epsilon() * mag);
    }
}

// Pins Highway's dispatch to one target for the scope (hwy's own test hook), then restores it.
struct OnlyTarget {
  explicit OnlyTarget(std::int64_t target) { choose(target); }
  ~OnlyTarget() { choose(0); }  // 0: the CPU's real targets again
  static void choose(std::int64_t target) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  }
};

// Every compiled target this CPU can run (here AVX2, SSE4, SSSE3, EMU128; AVX-512 where present):
// sums have the same bits on all of them (the order is written in lanes, not vectors), binary ops
// are exact, the transcendental functions stay within 2 ulp (with or without FMA).
TYPED_TEST(SimdKernels, EveryTargetGivesTheSameBits) {
  using T = TypeParam;
  const std::int64_t n = 4097;
  const auto x = random_values<T>(n + 1, 10), y = random_values<T>(n + 1, 11, T(0.5), T(3));
  const auto targets = hwy::SupportedAndGeneratedTargets();
  EXPECT_GE(targets.size(), 2u) << "expected at least one SIMD target beside the fallback";
  for (std::int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    OnlyTarget only(target);
    for (std::int64_t m : {std::int64_t{31}, n, kReduceBlock < n ? kReduceBlock : n})
      for (std::int64_t off : {0, 1})
        ASSERT_TRUE(same_bits(sum_block(x.data() + off, m), sum_reference(x.data() + off, m)));
    std::vector<T> out(x.size()), e(x.size());
    for (Binary op : kBinaryOps) {
      binary(op, x.data() + 1, y.data() + 1, out.data() + 1, n);
      for (std::int64_t i = 1; i <= n; ++i) {
        const auto u = static_cast<std::size_t>(i);
        ASSERT_TRUE(same_bits(out[u], apply_reference(op, x[u], y[u])));
      }
    }
    for (const UnaryCase& c : kUnaryCases) {
      SCOPED_TRACE(c.name);
      const auto in = random_values<T>(n + 1, 12, T(c.lo), T(c.hi));
      unary(c.op, in.data() + 1, e.data() + 1, n);
      for (std::int64_t i = 1; i <= n; ++i)
        ASSERT_TRUE(agrees(c.op, in[static_cast<std::size_t>(i)], e[static_cast<std::size_t>(i)]));
    }
  }
}

}  // namespace
}  // namespace tenferro::detail::kernels::simd

namespace tenferro {
namespace {

// The full sum of x on a backend of `threads` threads.
Tensor sum_on(int threads, const Tensor& x) {
  const CpuBackend backend(CpuBackendOptions{.threads = threads});
  BackendGuard use(backend);
  return sum(x);
}

TEST(SimdOps, FullSumBitwiseEqualAtOneTwoFourThreads) {
  for (DType dt : {DType::f32, DType::f64}) {
    // Several blocks (kReduceBlock) and a tail; the slice starts at element 1 (unaligned).
    const Tensor full_x = randn({(1 << 20) + 7}, 5, dt);
    for (const Tensor& x : {full_x, slice(full_x, 0, 1, full_x.numel())}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " n " + std::to_string(x.numel()));
      const Tensor one = sum_on(1, x), two = sum_on(2, x), four = sum_on(4, x);
      EXPECT_TRUE(allclose(two, one, 0, 0));
      EXPECT_TRUE(allclose(four, one, 0, 0));
      const Tensor ref = sum(cast(x, DType::f64));  // f64 within f32's rounding
      EXPECT_TRUE(allclose(cast(one, DType::f64), ref, 0, dt == DType::f32 ? 1e-2 : 1e-9));
    }
  }
}

TEST(SimdOps, FewShortRunsFanOutOverOutputs) {
  // 4 outputs of one block each: the outputs are the parallel units (reduce.cpp run_inner).
  const Tensor x = randn({4, 30000}, 9, DType::f32);
  Tensor one;
  {
    const CpuBackend backend(CpuBackendOptions{.threads = 1});
    BackendGuard use(backend);
    one = sum(x, {1});
  }
  const CpuBackend two(CpuBackendOptions{.threads = 2});
  Tensor got;
  {
    BackendGuard use(two);
    got = sum(x, {1});
  }
  EXPECT_GT(two.diagnostics().parallel_loops, 0u);
  EXPECT_TRUE(allclose(got, one, 0, 0));
}

TEST(SimdOps, InnerSumsOfRowsMatchTheBlockSum) {
  const Tensor x = randn({37, 1031}, 6, DType::f32);
  const Tensor rows = sum(x, {1});
  for (std::int64_t r = 0; r < 37; ++r) {
    const float* p = x.data<float>() + r * 1031;
    EXPECT_EQ(rows.data<float>()[r], detail::kernels::simd::sum_block(p, 1031)) << "row " << r;
  }
}

// Note [One-block sums] (src/primitives/reduce.cpp): the cached full sum of a contiguous run of
// at most one block calls the block loop directly; it must give the documented order's bits (the
// general kernel's), for every size around the lane and block edges, at an unaligned offset too,
// and leave other kinds and layouts to the general kernel.
TEST(SimdOps, OneBlockFullSumsAreTheDocumentedOrder) {
  using detail::kernels::simd::sum_reference;
  for (DType dt : {DType::f32, DType::f64}) {
    const Tensor base = randn({detail::kReduceBlock + 2}, 21, dt);
    for (std::int64_t n : {1, 2, 3, 15, 16, 17, 31, 32, 33, 64, 1000, 4097}) {
      for (std::int64_t off : {0, 1}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " n " + std::to_string(n) + " off " +
                     std::to_string(off));
        const Tensor x = slice(base, 0, off, off + n);
        for (int call = 0; call < 2; ++call) {  // the miss, then the cached kernel
          const Tensor s = sum(x), m = mean(x);
          if (dt == DType::f64) {
            const double want = sum_reference(x.data<double>(), n);
            EXPECT_EQ(s.item<double>(), want);
            EXPECT_EQ(m.item<double>(), want / static_cast<double>(n));
          } else {
            const float want = sum_reference(x.data<float>(), n);
            EXPECT_EQ(s.item<float>(), want);
            EXPECT_EQ(m.item<float>(), want / static_cast<float>(n));
          }
        }
      }
    }
    // Above one block: the general kernel (blocks combined pairwise), same value as before.
    const Tensor two_blocks = slice(base, 0, 0, detail::kReduceBlock + 1);
    EXPECT_TRUE(allclose(sum(two_blocks), sum(cast(two_blocks, DType::f64)), 1e-5, 1e-3));
  }
}

TEST(SimdOps, SlicedAddAndExpMatchScalar) {
  for (DType dt : {DType::f32, DType::f64}) {
    const Tensor a = randn({4097}, 7, dt), b = randn({4097}, 8, dt);
    const Tensor as = slice(a, 0, 1, 4097), bs = slice(b, 0, 1, 4097);
    const Tensor sum_ab = add(as, bs), scaled = mul(as, Scalar(3.0)), e = exp(as);
    const Tensor strided = exp(slice(a, 0, 0, 4097, 2));  // gathered through the same loop
    for (std::int64_t i = 0; i < 4096; ++i) {
      if (dt == DType::f32) {
        const float x = a.data<float>()[i + 1], y = b.data<float>()[i + 1];
        ASSERT_EQ(sum_ab.data<float>()[i], x + y);
        ASSERT_EQ(scaled.data<float>()[i], x * 3.0f);
      } else {
        const double x = a.data<double>()[i + 1], y = b.data<double>()[i + 1];
        ASSERT_EQ(sum_ab.data<double>()[i], x + y);
        ASSERT_EQ(scaled.data<double>()[i], x * 3.0);
      }
    }
    // exp of element 2k from the strided view equals exp of it in the contiguous slice.
    const Tensor e_full = exp(a);
    EXPECT_TRUE(allclose(strided, slice(e_full, 0, 0, 4097, 2), 0, 0));
    EXPECT_TRUE(allclose(e, slice(e_full, 0, 1, 4097), 0, 0));
  }
}

// Every op with a SLEEF loop gives an element the same bits whatever its layout: contiguous,
// sliced, strided (gathered), broadcast, transposed, and at 1 and 2 threads (a large map fans out).
TEST(SimdOps, TranscendentalOpsGiveTheSameBitsOnEveryLayout) {
  using Fn = Tensor (*)(const Tensor&);
  const std::pair<const char*, Fn> ops[] = {{"exp", &exp},    {"log", &log},   {"sin", &sin},
                                            {"cos", &cos},    {"tanh", &tanh}, {"expm1", &expm1},
                                            {"log1p", &log1p}};
  for (DType dt : {DType::f32, DType::f64})
    for (const auto& [name, f] : ops) {
      SCOPED_TRACE(std::string(name) + " " + std::string(dtype_name(dt)));
      const Tensor a = abs(randn({301, 257}, 17, dt)) + Scalar(0.01);  // log's domain too
      const Tensor full = f(a);
      EXPECT_TRUE(allclose(f(slice(a, 1, 3, 257, 2)), slice(full, 1, 3, 257, 2), 0, 0));
      EXPECT_TRUE(allclose(f(transpose(a, 0, 1)), transpose(full, 0, 1), 0, 0));
      const Tensor row = slice(a, 0, 5, 6);  // one row, broadcast over 301 rows
      EXPECT_TRUE(allclose(f(broadcast_to(row, {301, 257})),
                           broadcast_to(slice(full, 0, 5, 6), {301, 257}), 0, 0));
      const CpuBackend two(CpuBackendOptions{.threads = 2});
      BackendGuard use(two);
      EXPECT_TRUE(allclose(f(a), full, 0, 0));
    }
}

}  // namespace
}  // namespace tenferro
