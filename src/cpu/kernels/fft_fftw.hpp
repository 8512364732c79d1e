// The FFT kernel: one-dimensional batched transforms on FFTW, with plans cached per engine.
//
// Note [FFTW plans]: FFTW's planner (plan creation and destruction) is not thread-safe, its
// execute functions are. Every plan is therefore created and destroyed under one process-wide
// mutex (fft_fftw.cpp), while executions run unlocked, on the op's own buffers through the
// new-array execute functions (fftw_execute_dft and friends). Plans are made with FFTW_ESTIMATE
// only: it never writes the arrays it is given (FFTW_MEASURE would, and is slow), so planning on
// the op's real input and output is safe. A plan fits every pair of arrays with the same layout
// and the same alignment (fftw_alignment_of), so the engine's bounded plan cache is keyed by
// (kind, precision, n, strides along the axis, batch sizes and strides, input and output
// alignment); the engine borrow serialises the cache itself (bounded_cache.hpp). A cached plan is
// held by a shared_ptr while it runs, so an eviction (or CpuBackend::clear_caches) never frees a
// plan in use; the planner lock is never held while taking another lock, and the cache insert
// (which may evict, and so destroy, a plan) happens after it is released. The lock is ours, so
// another library in the process that plans with FFTW on its own threads is not covered
// (fftw_make_planner_thread_safe lives in libfftw3_threads, which we do not link).
#pragma once

#include <cstdint>

#include "cpu/admission.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

/// The four one-dimensional transforms, all unnormalised (FFTW's conventions):
/// forward y[k] = sum_j x[j] e^{-2 pi i jk/n}; backward uses e^{+2 pi i jk/n}; r2c is forward on
/// a real x keeping k = 0..n/2; c2r is backward on the Hermitian extension of its n/2+1 inputs
/// (the imaginary parts of input 0 and, for even n, input n/2 are ignored) and returns n reals.
enum class FftKind : std::uint8_t { forward, backward, r2c, c2r };

/// Runs the transform of `in` (any strides) along `axis` (normalised) of logical length n into
/// the freshly allocated contiguous `out`, then multiplies out by `scale` (when not 1). dtypes:
/// forward/backward c64 -> c64, c128 -> c128; r2c f32 -> c64, f64 -> c128; c2r c64 -> f32,
/// c128 -> f64 (the caller's infer() has checked them). Throws Error{BackendFailure} naming `op`
/// when FFTW cannot make a plan.
void fft_kernel(ExecContext& ctx, FftKind kind, const Tensor& in, Tensor& out, std::int64_t axis,
                std::int64_t n, double scale, const char* op);

}  // namespace tenferro::detail
