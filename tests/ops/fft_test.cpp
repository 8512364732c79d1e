// FFT ops: values against a direct O(n^2) DFT in long double (odd, even and prime lengths, every
// norm, crop and pad, every axis of 3-D and permuted inputs, f32 and f64), round trips, the
// n-dimensional forms, frequencies and shifts, typed errors, derivatives of every transform
// against finite differences (reverse and forward, real and complex inputs), and eager = traced +
// prepared = in-scope, bitwise.
#include "tenferro/ops/fft.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <vector>

#include "common/agreement.hpp"
#include "common/autodiff_fd.hpp"
#include "common/expect_error.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::testing {
namespace {

using i64 = std::int64_t;
using LD = std::complex<long double>;

enum class K { fwd, bwd, r2c, c2r };
constexpr FftNorm kNorms[] = {FftNorm::backward, FftNorm::ortho, FftNorm::forward};

long double scale_for(K k, FftNorm norm, i64 n) {
  const bool inv = k == K::bwd || k == K::c2r;
  const long double ln = static_cast<long double>(n);
  if (norm == FftNorm::ortho) return 1.0L / std::sqrt(ln);
  if (norm == FftNorm::backward) return inv ? 1.0L / ln : 1.0L;
  return inv ? 1.0L : 1.0L / ln;
}

struct Ref {
  std::vector<LD> v;
  Dims shape;
};

// The transform `k` of row-major values of `shape` along axis a with logical length n, computed
// as the defining sums (NumPy's definitions; the input cropped or zero-padded first).
Ref ref(const Ref& x, i64 a, K k, i64 n, FftNorm norm) {
  const std::size_t ua = static_cast<std::size_t>(a);
  const i64 len = x.shape[ua];
  const i64 m = n / 2 + 1;
  const i64 in_len = k == K::c2r ? m : n;
  const i64 out_len = k == K::r2c ? m : n;
  i64 inner = 1, outer = 1;
  for (std::size_t d = ua + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  for (std::size_t d = 0; d < ua; ++d) outer *= x.shape[d];
  Ref r{{}, x.shape};
  r.shape[ua] = out_len;
  r.v.assign(static_cast<std::size_t>(outer * out_len * inner), LD(0));
  const long double s = scale_for(k, norm, n), pi = std::numbers::pi_v<long double>;
  std::vector<LD> row(static_cast<std::size_t>(in_len));
  for (i64 o = 0; o < outer; ++o)
    for (i64 i = 0; i < inner; ++i) {
      for (i64 j = 0; j < in_len; ++j)
        row[static_cast<std::size_t>(j)] =
            j < len ? x.v[static_cast<std::size_t>((o * len + j) * inner + i)] : LD(0);
      for (i64 q = 0; q < out_len; ++q) {
        LD acc = 0;
        if (k == K::c2r) {
          acc = row[0].real();
          for (i64 f = 1; f < m; ++f) {
            const long double th = 2 * pi * static_cast<long double>((f * q) % n) / n;
            const long double w = 2 * f == n ? 1 : 2;
            acc += w * (row[static_cast<std::size_t>(f)] * LD(std::cos(th), std::sin(th))).real();
          }
        } else {
          const long double sign = k == K::bwd ? 1 : -1;
          for (i64 j = 0; j < in_len; ++j) {
            const long double th = sign * 2 * pi * static_cast<long double>((j * q) % n) / n;
            acc += row[static_cast<std::size_t>(j)] * LD(std::cos(th), std::sin(th));
          }
        }
        r.v[static_cast<std::size_t>((o * out_len + q) * inner + i)] = acc * s;
      }
    }
  return r;
}

Ref values_of(const Tensor& t) {
  Ref r{{}, t.shape()};
  for (c128 c : c128_values(t)) r.v.emplace_back(c.real(), c.imag());
  return r;
}

::testing::AssertionResult matches(const Tensor& got, const Ref& want, double tol) {
  if (got.shape() != want.shape)
    return ::testing::AssertionFailure()
           << "shape " << dims_to_string(got.shape()) << ", want " << dims_to_string(want.shape);
  const std::vector<c128> g = c128_values(got);
  long double big = 1;
  for (const LD& w : want.v) big = std::max(big, std::abs(w));
  for (std::size_t i = 0; i < g.size(); ++i) {
    const LD d = LD(g[i].real(), g[i].imag()) - want.v[i];
    if (std::abs(d) > tol * big)
      return ::testing::AssertionFailure()
             << "element " << i << ": " << g[i] << " vs " << static_cast<double>(want.v[i].real())
             << "+" << static_cast<double>(want.v[i].imag()) << "i";
  }
  return ::testing::AssertionSuccess();
}

Tensor call(K k, const Tensor& x, std::optional<i64> n, i64 axis, FftNorm norm) {
  switch (k) {
    case K::fwd:
      return fft(x, n, axis, norm);
    case K::bwd:
      return ifft(x, n, axis, norm);
    case K::r2c:
      return rfft(x, n, axis, norm);
    case K::c2r:
      return irfft(x, n, axis, norm);
  }
  return {};
}

DType in_dtype(K k, bool dbl) {
  if (k == K::r2c) return dbl ? DType::f64 : DType::f32;
  return dbl ? DType::c128 : DType::c64;
}
DType out_dtype(K k, bool dbl) {
  if (k == K::c2r) return dbl ? DType::f64 : DType::f32;
  return dbl ? DType::c128 : DType::c64;
}

TEST(Fft, OneDimensionalValuesMatchADirectDft) {
  std::uint64_t seed = 1;
  for (bool dbl : {true, false})
    for (K k : {K::fwd, K::bwd, K::r2c, K::c2r})
      for (i64 len : {1, 2, 5, 8, 12, 17})
        for (FftNorm norm : kNorms) {
          const Tensor x = randn({2, len}, seed++, in_dtype(k, dbl));
          const Ref xv = values_of(x);
          // (n given, logical n): the default, a crop and a zero-pad.
          std::vector<std::pair<std::optional<i64>, i64>> ns;
          if (k == K::c2r) {
            if (len > 1) ns.push_back({std::nullopt, 2 * (len - 1)});
            ns.push_back({len, len});
            ns.push_back({2 * len - 1, 2 * len - 1});
            ns.push_back({2 * len + 4, 2 * len + 4});
          } else {
            ns.push_back({std::nullopt, len});
            if (len > 1) ns.push_back({len - 1, len - 1});
            ns.push_back({len + 3, len + 3});
          }
          for (auto [n, logical] : ns) {
            const Tensor y = call(k, x, n, -1, norm);
            EXPECT_EQ(y.dtype(), out_dtype(k, dbl));
            EXPECT_TRUE(matches(y, ref(xv, 1, k, logical, norm), dbl ? 1e-13 : 3e-6))
                << "kind " << static_cast<int>(k) << " len " << len << " n " << logical << " norm "
                << static_cast<int>(norm) << (dbl ? " f64" : " f32");
          }
        }
}

// irfft of a real input is that of the input as complex, bitwise. fft/ifft of a real input take
// the rfft and mirror it (Note [Real input to fft/ifft]): the same values as the complex
// transform to rounding, for odd, even, cropped and padded lengths, every norm and axis, and a
// spectrum that is exactly Hermitian (X[n - k] == conj(X[k]) bit for bit).
TEST(Fft, RealInputsOfFftAndIfftTakeTheRealTransform) {
  const Tensor x = randn({3, 6}, 5);
  const Tensor a = irfft(x, std::nullopt, -1, FftNorm::backward);
  EXPECT_TRUE(same_bits(a, irfft(cast(x, DType::c128), std::nullopt, -1, FftNorm::backward)));
  for (bool dbl : {true, false}) {
    const Tensor base = randn({4, 7}, 9, dbl ? DType::f64 : DType::f32);
    const Tensor xs[] = {base, permute(base, {1, 0})};  // a strided input too
    for (const Tensor& xr : xs)
      for (K k : {K::fwd, K::bwd})
        for (FftNorm norm : kNorms)
          for (i64 axis : {0, -1})
            for (std::optional<i64> n : {std::optional<i64>(), std::optional<i64>(1),
                                         std::optional<i64>(4), std::optional<i64>(11)}) {
              const Tensor got = call(k, xr, n, axis, norm);
              EXPECT_EQ(got.dtype(), dbl ? DType::c128 : DType::c64);
              const i64 a = axis < 0 ? axis + 2 : axis;
              const i64 len = n ? *n : xr.shape()[static_cast<std::size_t>(a)];
              EXPECT_TRUE(matches(got, ref(values_of(xr), a, k, len, norm), dbl ? 1e-13 : 2e-6))
                  << static_cast<int>(k) << " n " << len << " axis " << axis;
              // Exact Hermitian symmetry along the axis, read from a row-major copy.
              const Tensor g = contiguous(moveaxis(got, {a}, {-1}));
              const std::vector<c128> v = c128_values(g);
              for (std::size_t row = 0; row * static_cast<std::size_t>(len) < v.size(); ++row)
                for (i64 q = 1; q < len; ++q) {
                  const c128 lo =
                      v[row * static_cast<std::size_t>(len) + static_cast<std::size_t>(q)];
                  const c128 hi =
                      v[row * static_cast<std::size_t>(len) + static_cast<std::size_t>(len - q)];
                  EXPECT_TRUE(lo.real() == hi.real() && lo.imag() == -hi.imag()) << q;
                }
            }
  }
}

TEST(Fft, EveryAxisOfThreeDimensionalAndStridedInputs) {
  for (bool dbl : {true, false})
    for (K k : {K::fwd, K::bwd, K::r2c, K::c2r}) {
      const Tensor base = randn({3, 4, 5}, 11, in_dtype(k, dbl));
      // Contiguous, permuted, offset (another alignment), flipped (negative strides) and
      // broadcast (zero strides) inputs: the last two go through a copy.
      const Tensor views[] = {base, permute(base, {2, 0, 1}), slice(base, 2, 1, 5), flip(base, {1}),
                              broadcast_to(slice(base, 0, 0, 1), {3, 4, 5})};
      EXPECT_LT(views[3].strides()[1], 0);
      EXPECT_EQ(views[4].strides()[0], 0);
      for (const Tensor& x : views) {
        const Ref xv = values_of(x);
        for (i64 axis : {0, 1, 2, -1, -3}) {
          const i64 a = axis < 0 ? axis + 3 : axis;
          const i64 len = x.shape()[static_cast<std::size_t>(a)];
          const i64 n = k == K::c2r ? 2 * len - 1 : len;
          for (FftNorm norm : kNorms)
            EXPECT_TRUE(
                matches(call(k, x, n, axis, norm), ref(xv, a, k, n, norm), dbl ? 1e-13 : 3e-6))
                << "kind " << static_cast<int>(k) << " axis " << axis;
        }
      }
    }
}

TEST(Fft, RoundTripsReturnTheInput) {
  for (bool dbl : {true, false})
    for (i64 len : {1, 2, 5, 8, 17})
      for (FftNorm norm : kNorms) {
        const double tol = dbl ? 1e-13 : 1e-5;
        const Tensor z = randn({3, len}, 7, dbl ? DType::c128 : DType::c64);
        EXPECT_TRUE(
            allclose(ifft(fft(z, std::nullopt, -1, norm), std::nullopt, -1, norm), z, tol, tol));
        const Tensor r = randn({len, 2}, 8, dbl ? DType::f64 : DType::f32);
        EXPECT_TRUE(allclose(irfft(rfft(r, std::nullopt, 0, norm), len, 0, norm), r, tol, tol));
      }
}

TEST(Fft, HermitianTransformsAreIrfftAndRfftWithTheScalingSwapped) {
  const Tensor z = randn({2, 5}, 61, DType::c128);
  const Tensor r = randn({2, 9}, 62);
  const Ref zc = values_of(conj(z)), rv = values_of(r);
  const FftNorm swap[] = {FftNorm::forward, FftNorm::ortho, FftNorm::backward};
  for (int i = 0; i < 3; ++i) {
    for (i64 n : {8, 9, 3})
      EXPECT_TRUE(matches(hfft(z, n, -1, kNorms[i]), ref(zc, 1, K::c2r, n, swap[i]), 1e-13));
    EXPECT_EQ(hfft(z, std::nullopt, -1, kNorms[i]).shape(), (Dims{2, 8}));
    const Ref want = ref(rv, 1, K::r2c, 9, swap[i]);
    Ref conj_want = want;
    for (LD& v : conj_want.v) v = std::conj(v);
    EXPECT_TRUE(matches(ihfft(r, std::nullopt, -1, kNorms[i]), conj_want, 1e-13));
    // ihfft inverts hfft on a real signal.
    EXPECT_TRUE(
        allclose(hfft(ihfft(r, std::nullopt, -1, kNorms[i]), 9, -1, kNorms[i]), r, 1e-13, 1e-13));
  }
  expect_error(ErrorKind::InvalidArgument, [&] { (void)hfft(z, 0); }, {"hfft", "at least 1"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)ihfft(z); }, {"ihfft", "real"});
  for (FftNorm norm : kNorms) {
    EXPECT_TRUE(adtest::check_vjp(
        [&](std::span<const Tensor> in) { return std::vector<Tensor>{hfft(in[0], 7, -1, norm)}; },
        {z}));
    EXPECT_TRUE(adtest::check_jvp(
        [&](std::span<const Tensor> in) { return std::vector<Tensor>{ihfft(in[0], 6, 0, norm)}; },
        {r}));
    EXPECT_TRUE(adtest::check_vjp(
        [&](std::span<const Tensor> in) { return std::vector<Tensor>{ihfft(in[0], 6, 0, norm)}; },
        {r}));
  }
}

TEST(Fft, NDimensionalFormsMatchTheReferenceAlongEachAxis) {
  const Tensor z = randn({3, 4, 5}, 21, DType::c128);
  const Tensor r = randn({3, 4, 5}, 22);
  const Ref zv = values_of(z), rv = values_of(r);
  for (FftNorm norm : kNorms) {
    // All axes, default sizes.
    EXPECT_TRUE(matches(
        fftn(z, std::nullopt, std::nullopt, norm),
        ref(ref(ref(zv, 2, K::fwd, 5, norm), 1, K::fwd, 4, norm), 0, K::fwd, 3, norm), 1e-13));
    // s alone: the last len(s) axes, cropped and padded.
    EXPECT_TRUE(matches(ifftn(z, std::vector<i64>{3, 7}, std::nullopt, norm),
                        ref(ref(zv, 2, K::bwd, 7, norm), 1, K::bwd, 3, norm), 1e-13));
    // axes and s together, in a non-sorted order.
    EXPECT_TRUE(matches(fftn(z, std::vector<i64>{6, 2}, std::vector<i64>{2, 0}, norm),
                        ref(ref(zv, 0, K::fwd, 2, norm), 2, K::fwd, 6, norm), 1e-13));
    // rfftn: the real transform along the last of the axes.
    EXPECT_TRUE(matches(rfftn(r, std::nullopt, std::vector<i64>{0, 1}, norm),
                        ref(ref(rv, 1, K::r2c, 4, norm), 0, K::fwd, 3, norm), 1e-13));
    // irfftn inverts it, given the real lengths.
    const Tensor spec = rfftn(r, std::nullopt, std::nullopt, norm);
    EXPECT_TRUE(
        allclose(irfftn(spec, std::vector<i64>{3, 4, 5}, std::nullopt, norm), r, 1e-13, 1e-13));
    const Ref sv = values_of(spec);
    EXPECT_TRUE(matches(
        irfftn(spec, std::nullopt, std::nullopt, norm),
        ref(ref(ref(sv, 0, K::bwd, 3, norm), 1, K::bwd, 4, norm), 2, K::c2r, 4, norm), 1e-13));
  }
}

TEST(Fft, FrequenciesAndShifts) {
  auto vals = [](const Tensor& t) {
    std::vector<double> v;
    for (c128 c : c128_values(t)) v.push_back(c.real());
    return v;
  };
  EXPECT_EQ(vals(fftfreq(5, 0.5)), (std::vector<double>{0, 0.4, 0.8, -0.8, -0.4}));
  EXPECT_EQ(vals(fftfreq(4)), (std::vector<double>{0, 0.25, -0.5, -0.25}));
  EXPECT_EQ(vals(fftfreq(1)), (std::vector<double>{0}));
  EXPECT_EQ(vals(rfftfreq(5)), (std::vector<double>{0, 0.2, 0.4}));
  EXPECT_EQ(vals(rfftfreq(4, 2.0)), (std::vector<double>{0, 0.125, 0.25}));
  EXPECT_EQ(fftfreq(6, 1.0, DType::f32).dtype(), DType::f32);
  EXPECT_EQ(vals(fftshift(arange(5))), (std::vector<double>{3, 4, 0, 1, 2}));
  EXPECT_EQ(vals(ifftshift(arange(5))), (std::vector<double>{2, 3, 4, 0, 1}));
  EXPECT_EQ(vals(fftshift(arange(4))), (std::vector<double>{2, 3, 0, 1}));
  const Tensor m = reshape(arange(6), {2, 3});
  EXPECT_EQ(vals(fftshift(m)), (std::vector<double>{5, 3, 4, 2, 0, 1}));
  EXPECT_EQ(vals(fftshift(m, std::vector<i64>{-1})), (std::vector<double>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(vals(ifftshift(fftshift(m))), vals(m));
  // The shift of the frequencies is sorted.
  EXPECT_EQ(vals(fftshift(fftfreq(5))), (std::vector<double>{-0.4, -0.2, 0, 0.2, 0.4}));
}

TEST(Fft, BadInputsAreTypedErrors) {
  const Tensor z = randn({2, 4}, 1, DType::c128);
  expect_error(ErrorKind::InvalidArgument, [&] { (void)fft(z, 0); },
               {"fft", "n must be at least 1", "0"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)ifft(z, -3); }, {"ifft"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)fft(z, std::nullopt, 2); }, {"fft"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)rfft(randn({3}, 1), std::nullopt, -2); },
               {"rfft"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)rfft(z); }, {"rfft", "real", "c128"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)rfftn(z); }, {"rfftn", "real", "c128"});
  expect_error(ErrorKind::DTypeMismatch, [&] { (void)fft(zeros({4}, DType::i32)); },
               {"fft", "i32"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)fft(full({}, 1.0)); }, {"fft", "0-d"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)irfft(randn({3, 1}, 1, DType::c128));
               },
               {"irfft", "default", "m = 1"});
  EXPECT_EQ(irfft(randn({3, 1}, 1, DType::c128), 1).shape(), (Dims{3, 1}));
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)fftn(z, std::nullopt, std::vector<i64>{1, -1});
               },
               {"fftn", "duplicate axis"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)fftn(z, std::vector<i64>{2}, std::vector<i64>{0, 1});
               },
               {"fftn", "s has 1"});
  expect_error(ErrorKind::InvalidArgument,
               [&] {
                 (void)rfftn(randn({2}, 1), std::vector<i64>{2, 2});
               },
               {"rfftn", "more than"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)irfftn(z, std::vector<i64>{0}); },
               {"irfftn", "n must be at least 1"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)fftn(z, std::nullopt, std::vector<i64>{}); },
               {"fftn", "at least one axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)ifftn(full({}, 1.0)); },
               {"ifftn", "at least one axis"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)fftfreq(0); }, {"fftfreq"});
  expect_error(ErrorKind::InvalidArgument, [&] { (void)rfftfreq(4, 1.0, DType::c64); },
               {"rfftfreq", "c64"});
  // A spacing d of 0, NaN or +-Inf, or one so small that 1 / (d n) overflows: it used to give
  // Inf / NaN frequencies (NumPy raises ZeroDivisionError for d = 0).
  for (double d : {0.0, -0.0, std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), 1e-320}) {
    expect_error(ErrorKind::InvalidArgument, [&] { (void)fftfreq(4, d); }, {"fftfreq", "d "});
    expect_error(ErrorKind::InvalidArgument, [&] { (void)rfftfreq(4, d, DType::f32); },
                 {"rfftfreq", "d "});
  }
  // A negative spacing is NumPy's too: the frequencies change sign.
  EXPECT_EQ(fftfreq(4, -1.0).to_vector<double>(), (std::vector<double>{-0.0, -0.25, 0.5, 0.25}));
  expect_error(ErrorKind::InvalidArgument, [&] { (void)fftshift(z, std::vector<i64>{5}); },
               {"fftshift"});
}

TEST(Fft, DerivativesMatchFiniteDifferences) {
  std::uint64_t seed = 100;
  for (K k : {K::fwd, K::bwd, K::r2c, K::c2r})
    for (i64 len : {1, 4, 5})
      for (FftNorm norm : kNorms) {
        std::vector<std::optional<i64>> ns{std::nullopt, len + 2};
        if (len > 1) ns.push_back(len - 1);
        if (k == K::c2r) ns = {2 * len - 1, 2 * len, len};
        std::vector<DType> dts{k == K::r2c ? DType::f64 : DType::c128};
        if (k == K::fwd || k == K::bwd) dts.push_back(DType::f64);  // promoted real inputs
        for (DType dt : dts)
          for (std::optional<i64> n : ns) {
            const Tensor x = randn({2, len}, seed++, dt);
            auto f = [&](std::span<const Tensor> in) {
              return std::vector<Tensor>{call(k, in[0], n, -1, norm)};
            };
            const std::string what = "kind " + std::to_string(static_cast<int>(k)) + " len " +
                                     std::to_string(len) + " n " + std::to_string(n.value_or(-1));
            EXPECT_TRUE(adtest::check_vjp(f, {x})) << what;
            EXPECT_TRUE(adtest::check_jvp(f, {x})) << what;
          }
      }
}

TEST(Fft, NDimensionalDerivativesAndSecondOrder) {
  const Tensor z = randn({3, 4}, 31, DType::c128), r = randn({3, 4}, 32);
  auto check = [](auto f, const Tensor& x) {
    EXPECT_TRUE(adtest::check_vjp(f, {x}));
    EXPECT_TRUE(adtest::check_jvp(f, {x}));
  };
  check([](std::span<const Tensor> in) { return std::vector<Tensor>{fftn(in[0])}; }, z);
  check(
      [](std::span<const Tensor> in) {
        return std::vector<Tensor>{
            ifftn(in[0], std::vector<i64>{5, 3}, std::nullopt, FftNorm::ortho)};
      },
      z);
  check([](std::span<const Tensor> in) { return std::vector<Tensor>{rfftn(in[0])}; }, r);
  check(
      [](std::span<const Tensor> in) {
        return std::vector<Tensor>{irfftn(in[0], std::vector<i64>{3, 5})};
      },
      z);
  check(
      [](std::span<const Tensor> in) {
        return std::vector<Tensor>{fftshift(in[0]), ifftshift(in[0], std::vector<i64>{0})};
      },
      z);
  // A second derivative: the gradient of sum |rfft(x)|^4 differentiated again (forward mode).
  auto g = [](std::span<const Tensor> in) {
    return grad(
        [](std::span<const Tensor> v) {
          const Tensor p = abs(rfft(v[0], 7, -1, FftNorm::ortho));
          return sum(p * p * p * p);
        },
        {in[0]});
  };
  check(g, r);
}

TEST(Fft, EagerPreparedAndInScopeAgreeBitwiseAtBudgetsOneAndFour) {
  auto f = [](std::span<const Tensor> in) {
    const Tensor gx = grad(
        [](std::span<const Tensor> v) {
          const Tensor p = abs(rfft(v[0], 9, 0));
          return sum(p * p);
        },
        {in[1]})[0];
    return std::vector<Tensor>{fft(in[0]),
                               ifft(in[0], 5, 0, FftNorm::ortho),
                               rfft(in[1], std::nullopt, -1, FftNorm::forward),
                               irfft(in[0], 11),
                               fftn(in[1]),
                               irfftn(in[0]),
                               fftshift(in[1]),
                               gx};
  };
  const Tensor z = randn({6, 40}, 41, DType::c128), r = randn({6, 40}, 42);
  const Tensor in[2] = {z, r};
  expect_eager_prepared_scoped_bitwise(
      f, {ValueSpec{{6, 40}, DType::c128}, ValueSpec{{6, 40}, DType::f64}}, in);
}

}  // namespace
}  // namespace tenferro::testing
