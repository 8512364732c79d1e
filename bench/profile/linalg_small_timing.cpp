// Timing of the small linalg kernels (cpu/kernels/linalg_small.hpp) against LAPACKE: median ns
// per matrix over a batch of 16 square n x n matrices, n in {2, 3, 4, 6, 8, 12, 16}, f64 and c128,
// for the kernel, the plain LAPACKE call (column-major, so no layout transposition, but with its
// workspace query and allocation) and LAPACKE_*_work with a preallocated workspace; "ratio" is
// kernel / _work. svd is compared with gesdd, eigh with syevd/heevd, qr with geqrf + orgqr/ungqr;
// svd_vals is the values-only svd. OpenBLAS runs on one thread (the kernels are single-threaded).
// Accuracy is tested in tests/linalg/linalg_small_kernels_test.cpp.
//
// Not part of the CMake build. Build with the release preset's flags and run, from the repository
// root (the g++ command is one line, wrapped here):
//   g++ -std=c++20 -O3 -DNDEBUG -I include -I src -o /tmp/linalg_small_timing
//       bench/profile/linalg_small_timing.cpp src/cpu/kernels/linalg_small.cpp -llapacke -lopenblas
//   /tmp/linalg_small_timing
//
// LAPACKE's complex types as std::complex (must come before lapacke.h).
#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "cpu/kernels/linalg_small.hpp"

extern "C" void openblas_set_num_threads(int);

namespace {

using tenferro::c128;
using tenferro::is_complex_v;
using tenferro::real_t;
namespace sm = tenferro::detail::small;

template <class T>
const char* tname() {
  return std::is_same_v<T, double> ? "f64" : "c128";
}

template <class T>
T conjv(const T& x) {
  if constexpr (is_complex_v<T>) {
    return std::conj(x);
  } else {
    return x;
  }
}

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53 * 2 - 1; }  // [-1, 1)
};

template <class T>
T rnd(Rng& g) {
  if constexpr (is_complex_v<T>) {
    using Re = real_t<T>;
    const Re a = Re(g.uniform());
    return T(a, Re(g.uniform()));
  } else {
    return T(g.uniform());
  }
}

// geqrf and orgqr/ungqr (plain LAPACKE calls) for the timed types.
template <class T>
lapack_int geqrf(int m, int n, T* a, int lda, T* tau) {
  if constexpr (std::is_same_v<T, double>)
    return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
  else
    return LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
}
template <class T>
lapack_int orgqr(int m, int n, int k, T* a, int lda, const T* tau) {
  if constexpr (std::is_same_v<T, double>)
    return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
  else
    return LAPACKE_zungqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
}

// ---- timing ------------------------------------------------------------------------------------

volatile double sink;

template <class F>
double time_ns(F&& f, int batch) {
  // Calibrate repetitions to ~2 ms per sample, take the median of 21 samples.
  using clk = std::chrono::steady_clock;
  int reps = 1;
  for (;;) {
    auto t0 = clk::now();
    for (int r = 0; r < reps; ++r) f();
    const double dt = std::chrono::duration<double, std::nano>(clk::now() - t0).count();
    if (dt > 2e6 || reps > (1 << 20)) break;
    reps *= 2;
  }
  std::vector<double> samples;
  for (int s = 0; s < 21; ++s) {
    auto t0 = clk::now();
    for (int r = 0; r < reps; ++r) f();
    samples.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() /
                      (double(reps) * batch));
  }
  std::nth_element(samples.begin(), samples.begin() + 10, samples.end());
  return samples[10];
}

template <class T>
double first_real(const T& x) {
  if constexpr (is_complex_v<T>) {
    return x.real();
  } else {
    return x;
  }
}

template <class T>
void time_type() {
  using Re = real_t<T>;
  const int sizes[] = {2, 3, 4, 6, 8, 12, 16};
  constexpr int kBatch = 16;
  std::printf(
      "\n%s timing, ns per matrix (median); lapacke = plain call incl. workspace query, "
      "_work = preallocated workspace\n",
      tname<T>());
  std::printf("%4s | %9s %9s %9s %6s | %9s %9s %9s %9s %6s | %9s %9s %9s %6s\n", "n", "svd",
              "gesdd", "gesdd_w", "ratio", "svd_vals", "eigh", "heevd", "heevd_w", "ratio", "qr",
              "geqrf+or", "_work", "ratio");
  Rng g{777};
  for (int n : sizes) {
    std::vector<T> as(kBatch * n * n), hs(kBatch * n * n);
    for (T& x : as) x = rnd<T>(g);
    for (int b = 0; b < kBatch; ++b) {
      T* h = hs.data() + b * n * n;
      for (int i = 0; i < n; ++i) {
        h[i * n + i] = T(Re(g.uniform()));
        for (int j = 0; j < i; ++j) {
          h[i * n + j] = rnd<T>(g);
          h[j * n + i] = conjv(h[i * n + j]);
        }
      }
    }
    std::vector<T> u(n * n), vh(n * n), a(n * n), work, tau(n);
    std::vector<Re> s(n), rwork;
    std::vector<lapack_int> iwork;

    // --- svd
    const double t_svd = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            sm::svd(n, n, as.data() + b * n * n, u.data(), s.data(), vh.data());
            sink = sink + s[0] + first_real(u[0]);
          }
        },
        kBatch);
    const double t_svdv = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            sm::svd<T>(n, n, as.data() + b * n * n, nullptr, s.data(), nullptr);
            sink = sink + s[0];
          }
        },
        kBatch);
    const double t_gesdd = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            std::copy_n(as.data() + b * n * n, n * n, a.data());
            if constexpr (std::is_same_v<T, double>)
              LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', n, n, a.data(), n, s.data(), u.data(), n,
                             vh.data(), n);
            else
              LAPACKE_zgesdd(LAPACK_COL_MAJOR, 'S', n, n, a.data(), n, s.data(), u.data(), n,
                             vh.data(), n);
            sink = sink + s[0];
          }
        },
        kBatch);
    {
      iwork.assign(8 * n, 0);
      T wq;
      if constexpr (std::is_same_v<T, double>) {
        LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', n, n, a.data(), n, s.data(), u.data(), n,
                            vh.data(), n, &wq, -1, iwork.data());
      } else {
        rwork.assign(n * std::max(5 * n + 7, 2 * n + 2 * n + 1), 0);
        LAPACKE_zgesdd_work(LAPACK_COL_MAJOR, 'S', n, n, a.data(), n, s.data(), u.data(), n,
                            vh.data(), n, &wq, -1, rwork.data(), iwork.data());
      }
      work.assign(std::size_t(first_real(wq)) + 1, T(0));
    }
    const int lw = int(work.size());
    const double t_gesdd_w = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            std::copy_n(as.data() + b * n * n, n * n, a.data());
            if constexpr (std::is_same_v<T, double>)
              LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', n, n, a.data(), n, s.data(), u.data(), n,
                                  vh.data(), n, work.data(), lw, iwork.data());
            else
              LAPACKE_zgesdd_work(LAPACK_COL_MAJOR, 'S', n, n, a.data(), n, s.data(), u.data(), n,
                                  vh.data(), n, work.data(), lw, rwork.data(), iwork.data());
            sink = sink + s[0];
          }
        },
        kBatch);

    // --- eigh
    const double t_eigh = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            sm::eigh(n, hs.data() + b * n * n, true, s.data(), u.data());
            sink = sink + s[0] + first_real(u[0]);
          }
        },
        kBatch);
    const double t_heevd = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            std::copy_n(hs.data() + b * n * n, n * n, a.data());
            if constexpr (std::is_same_v<T, double>)
              LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'L', n, a.data(), n, s.data());
            else
              LAPACKE_zheevd(LAPACK_COL_MAJOR, 'V', 'L', n, a.data(), n, s.data());
            sink = sink + s[0];
          }
        },
        kBatch);
    lapack_int liw = 0, lrw = 0;
    {
      T wq;
      lapack_int iq;
      if constexpr (std::is_same_v<T, double>) {
        LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a.data(), n, s.data(), &wq, -1, &iq, -1);
      } else {
        Re rq;
        LAPACKE_zheevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a.data(), n, s.data(), &wq, -1, &rq, -1,
                            &iq, -1);
        lrw = lapack_int(rq) + 1;
        rwork.assign(lrw, 0);
      }
      liw = iq;
      iwork.assign(liw, 0);
      work.assign(std::size_t(first_real(wq)) + 1, T(0));
    }
    const int lwe = int(work.size());
    const double t_heevd_w = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            std::copy_n(hs.data() + b * n * n, n * n, a.data());
            if constexpr (std::is_same_v<T, double>)
              LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a.data(), n, s.data(), work.data(),
                                  lwe, iwork.data(), liw);
            else
              LAPACKE_zheevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a.data(), n, s.data(), work.data(),
                                  lwe, rwork.data(), lrw, iwork.data(), liw);
            sink = sink + s[0];
          }
        },
        kBatch);

    // --- qr
    const double t_qr = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            sm::qr(n, n, as.data() + b * n * n, u.data(), vh.data(), false);
            sink = sink + first_real(u[0]) + first_real(vh[0]);
          }
        },
        kBatch);
    const double t_lqr = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            std::copy_n(as.data() + b * n * n, n * n, a.data());
            geqrf(n, n, a.data(), n, tau.data());
            std::copy_n(a.data(), n * n, u.data());  // r would be read from a here
            orgqr(n, n, n, u.data(), n, tau.data());
            sink = sink + first_real(u[0]);
          }
        },
        kBatch);
    {
      T wq1, wq2;
      if constexpr (std::is_same_v<T, double>) {
        LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, n, n, a.data(), n, tau.data(), &wq1, -1);
        LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, n, n, n, u.data(), n, tau.data(), &wq2, -1);
      } else {
        LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, n, n, a.data(), n, tau.data(), &wq1, -1);
        LAPACKE_zungqr_work(LAPACK_COL_MAJOR, n, n, n, u.data(), n, tau.data(), &wq2, -1);
      }
      work.assign(std::size_t(std::max(first_real(wq1), first_real(wq2))) + 1, T(0));
    }
    const int lwq = int(work.size());
    const double t_lqr_w = time_ns(
        [&] {
          for (int b = 0; b < kBatch; ++b) {
            std::copy_n(as.data() + b * n * n, n * n, a.data());
            if constexpr (std::is_same_v<T, double>) {
              LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, n, n, a.data(), n, tau.data(), work.data(),
                                  lwq);
              std::copy_n(a.data(), n * n, u.data());
              LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, n, n, n, u.data(), n, tau.data(), work.data(),
                                  lwq);
            } else {
              LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, n, n, a.data(), n, tau.data(), work.data(),
                                  lwq);
              std::copy_n(a.data(), n * n, u.data());
              LAPACKE_zungqr_work(LAPACK_COL_MAJOR, n, n, n, u.data(), n, tau.data(), work.data(),
                                  lwq);
            }
            sink = sink + first_real(u[0]);
          }
        },
        kBatch);
    std::printf(
        "%4d | %9.0f %9.0f %9.0f %6.2f | %9.0f %9.0f %9.0f %9.0f %6.2f | %9.0f %9.0f %9.0f %6.2f\n",
        n, t_svd, t_gesdd, t_gesdd_w, t_svd / t_gesdd_w, t_svdv, t_eigh, t_heevd, t_heevd_w,
        t_eigh / t_heevd_w, t_qr, t_lqr, t_lqr_w, t_qr / t_lqr_w);
  }
}

}  // namespace

int main() {
  openblas_set_num_threads(1);
  time_type<double>();
  time_type<c128>();
  return 0;
}
