// Discrete Fourier transforms (the Array API 2023.12 fft extension, NumPy's numpy.fft), on FFTW.
//
//   Tensor X = tenferro::fft(x);                           // along the last axis
//   Tensor y = tenferro::irfft(tenferro::rfft(x), x.shape().back());  // == x up to rounding
//   Tensor F = tenferro::fftn(img, std::nullopt, std::vector<std::int64_t>{0, 1}, FftNorm::ortho);
//
// Definitions (as NumPy): fft computes X[k] = sum_j x[j] exp(-2 pi i jk/n), ifft uses exp(+...);
// rfft returns the n/2+1 non-negative frequencies of a real x; irfft is the inverse of rfft and
// returns n reals (default n = 2 (m - 1) for m inputs along the axis; the imaginary parts of
// the first input and, for even n, of input n/2 are ignored, as NumPy); hfft/ihfft are NumPy's
// Hermitian pair (irfft of conj(x) and conj of rfft, the scaling direction swapped). `n` crops or
// zero-pads the input along the axis before the transform (for irfft, to n/2+1 inputs). `norm`
// scales as the standard: backward (default) = no scaling on the forward transforms, 1/n on the
// inverse ones; ortho = 1/sqrt(n) on both; forward = 1/n on the forward transforms, none on the
// inverse.
//
// dtypes: f32/c64 compute in single precision (fftwf) and return c64 (irfft: f32); f64/c128 in
// double precision (fftw), returning c128 (irfft: f64). fft/ifft/irfft/hfft accept real inputs
// (the values of the input promoted to complex, as NumPy; fft and ifft of a real input compute the
// real transform and mirror it, half the work, Note [Real input to fft/ifft]); rfft and ihfft of
// a complex input are DTypeMismatch; bool and
// integer inputs are DTypeMismatch for every transform. Errors (tenferro::Error naming the op):
// n < 1 and an axis out of range are InvalidArgument, as are a 0-d input, no axes for an n-d form,
// duplicate axes or s/axes of different lengths.
// Results are fresh contiguous tensors; inputs may have any strides.
//
// Autodiff: every transform is linear, so its forward rule is itself applied to the tangent. The
// reverse rules use the conjugate-Wirtinger convention (docs/autodiff.md): fft's is ifft's
// unnormalised sum with the same scale (the adjoint), and vice versa; rfft's and irfft's weight
// the one-sided spectrum by the Hermitian multiplicities (docs/ops.md, "FFT").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tenferro/tensor.hpp"

namespace tenferro {

/// The normalisation modes of the Array API / NumPy (see the file comment).
enum class FftNorm { backward, ortho, forward };

/// One-dimensional complex transform of x along `axis` (negative counts from the end), with the
/// axis cropped or zero-padded to `n` elements when n is given.
Tensor fft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
           FftNorm norm = FftNorm::backward);
/// The inverse of fft (same arguments).
Tensor ifft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
            FftNorm norm = FftNorm::backward);
/// Transform of a real x: the n/2+1 non-negative frequencies (n defaults to the axis length).
Tensor rfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
            FftNorm norm = FftNorm::backward);
/// The inverse of rfft: n reals along `axis` (default 2 (m - 1) for m inputs; n = 1 from m = 1
/// is not the default and must be given).
Tensor irfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
             FftNorm norm = FftNorm::backward);
/// The transform of a Hermitian-symmetric signal given by its first half x (m entries): n reals
/// (default 2 (m - 1)), NumPy's hfft = irfft(conj(x), n) with the norm's direction swapped
/// (backward <-> forward), so hfft with norm backward is unscaled. Complex input (real promoted).
Tensor hfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
            FftNorm norm = FftNorm::backward);
/// The inverse of hfft for a real x: conj(rfft(x, n)) with the norm's direction swapped (so 1/n
/// with norm backward), n/2+1 complex outputs.
Tensor ihfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
             FftNorm norm = FftNorm::backward);

/// n-dimensional forms (NumPy's rules): `axes` default to the last len(s) axes when s is given,
/// else all axes; `s` defaults to the input's lengths along `axes` (irfftn: 2 (m - 1) on the last
/// one). rfftn takes the real transform along the last of `axes`; irfftn inverts that. No axes
/// at all (axes = {}, s = {}, or a 0-d x) is InvalidArgument.
Tensor fftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s = std::nullopt,
            std::optional<std::vector<std::int64_t>> axes = std::nullopt,
            FftNorm norm = FftNorm::backward);
Tensor ifftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s = std::nullopt,
             std::optional<std::vector<std::int64_t>> axes = std::nullopt,
             FftNorm norm = FftNorm::backward);
Tensor rfftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s = std::nullopt,
             std::optional<std::vector<std::int64_t>> axes = std::nullopt,
             FftNorm norm = FftNorm::backward);
Tensor irfftn(const Tensor& x, std::optional<std::vector<std::int64_t>> s = std::nullopt,
              std::optional<std::vector<std::int64_t>> axes = std::nullopt,
              FftNorm norm = FftNorm::backward);

/// Sample frequencies of fft: [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d n), in `dtype` (f32 or
/// f64). n < 1, a non-real dtype, or a spacing d that is 0, NaN or infinite (or so small that
/// 1 / (d n) overflows) is InvalidArgument naming the op and d (NumPy: ZeroDivisionError for d =
/// 0). A negative d is allowed (the frequencies change sign, as NumPy).
Tensor fftfreq(std::int64_t n, double d = 1.0, DType dtype = DType::f64);
/// Sample frequencies of rfft: [0, 1, ..., n/2] / (d n); errors as fftfreq.
Tensor rfftfreq(std::int64_t n, double d = 1.0, DType dtype = DType::f64);
/// Moves the zero frequency to the centre: rolls each of `axes` (default all) by n/2.
Tensor fftshift(const Tensor& x, std::optional<std::vector<std::int64_t>> axes = std::nullopt);
/// The inverse of fftshift: rolls by -(n/2).
Tensor ifftshift(const Tensor& x, std::optional<std::vector<std::int64_t>> axes = std::nullopt);

}  // namespace tenferro
