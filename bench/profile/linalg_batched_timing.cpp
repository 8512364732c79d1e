// Timing of the batched small linalg kernels (cpu/kernels/linalg_simd_batch.hpp, one SIMD lane per
// matrix) against the scalar ones (linalg_small.hpp): median ns per matrix, f64 and f32 (and c128,
// c64 for the `csolve`, `cqr`, `ceigh` and `csvd` arguments), square n x n, n in {2, 3, 4, 6, 8,
// 12, 16}, for svd, eigh and reduced qr (all with vectors), then cholesky (of a + a^H + 2n I), lu
// and solve (lu + lu_solve, one right-hand side):
//   scalar:  small::svd / eigh / qr / cholesky / lu (/ lu_solve) one matrix after the other over
//            a batch of 64 (cholesky, lu, solve: copying the input into the output included, as
//            the batched kernels read the input in place);
//   b64:     the batched kernel over a batch of 64 (full tiles of batch_lanes<T>() matrices);
//   b2:      the batched kernel on a tile holding 2 matrices (the smallest batch it is used for);
//   b1:      the batched kernel on a tile holding 1 matrix.
// Packing from a strided tensor and the engine's dispatch are not included (the same for both).
// LAPACK's times for the same sizes (f64): bench/profile/linalg_small_timing.cpp. Results: docs/
// linalg.md, "Measured crossover".
//
// Not part of the CMake build. Build with the release preset's flags and run, from the repository
// root (the g++ command is one line, wrapped here):
//   g++ -std=c++20 -O3 -DNDEBUG -I include -I src -o /tmp/linalg_batched_timing
//       bench/profile/linalg_batched_timing.cpp src/cpu/kernels/linalg_small.cpp
//       src/cpu/kernels/linalg_simd_batch.cpp src/cpu/kernels/linalg_simd_solve.cpp
//       src/cpu/kernels/linalg_simd_solve_complex.cpp src/cpu/kernels/linalg_simd_qr_complex.cpp
//       src/cpu/kernels/linalg_simd_eigh_complex.cpp src/cpu/kernels/linalg_simd_svd_complex.cpp
//       -lhwy
//   /tmp/linalg_batched_timing [decomp | solve | csolve | cqr | ceigh | csvd]
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/kernels/linalg_simd_batch.hpp"

namespace {

namespace sm = tenferro::detail::small;

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

enum class Op { svd, eigh, qr, cholesky, lu, solve };

// Per-matrix output pointers into out (n * n per matrix and output), for count matrices from b0.
template <class T>
void run_batched(Op op, int n, int count, const std::vector<T>& in, int b0, std::vector<T>& o1,
                 std::vector<T>& o2, std::vector<T>& o3) {
  const T* a[sm::kMaxBatchLanes];
  T *p1[sm::kMaxBatchLanes], *p2[sm::kMaxBatchLanes], *p3[sm::kMaxBatchLanes];
  int* pv[sm::kMaxBatchLanes];
  static int piv[64 * sm::kMaxDim];
  int info[sm::kMaxBatchLanes];
  bool ok[sm::kMaxBatchLanes];
  for (int l = 0; l < count; ++l) {
    pv[l] = piv + (b0 + l) * sm::kMaxDim;
    const int b = b0 + l;
    a[l] = in.data() + b * n * n;
    p1[l] = o1.data() + b * n * n;
    p2[l] = o2.data() + b * n * n;
    p3[l] = o3.data() + b * n * n;
  }
  if (op == Op::svd) {  // singular values (real) into o2's storage
    tenferro::real_t<T>* sv[sm::kMaxBatchLanes];
    for (int l = 0; l < count; ++l) sv[l] = reinterpret_cast<tenferro::real_t<T>*>(p2[l]);
    sm::svd_batch<T>(n, n, count, a, p1, sv, p3, ok);
  }
  if (op == Op::eigh) {  // eigenvalues (real) into o2's storage
    tenferro::real_t<T>* w[sm::kMaxBatchLanes];
    for (int l = 0; l < count; ++l) w[l] = reinterpret_cast<tenferro::real_t<T>*>(p2[l]);
    sm::eigh_batch<T>(n, count, a, true, w, p1, ok);
  }
  if (op == Op::qr) sm::qr_batch<T>(n, n, count, a, p1, p3, false);
  if (op == Op::cholesky) sm::cholesky_batch<T>(n, count, a, n, 1, p1, info);
  if (op == Op::lu) sm::lu_batch<T>(n, n, count, a, n, 1, p1, pv, info);
  if (op == Op::solve) {  // o2 holds the right-hand sides (n x 1)
    const T* rhs[sm::kMaxBatchLanes];
    for (int l = 0; l < count; ++l) rhs[l] = o2.data() + (b0 + l) * n * n;
    sm::solve_batch<T>(n, 1, count, a, n, 1, rhs, 1, 1, p1, info);
  }
}

template <class T>
void run_scalar(Op op, int n, const T* a, T* o1, T* o2, T* o3) {
  if (op == Op::svd) sm::svd<T>(n, n, a, o1, reinterpret_cast<tenferro::real_t<T>*>(o2), o3);
  if (op == Op::eigh) sm::eigh<T>(n, a, true, reinterpret_cast<tenferro::real_t<T>*>(o2), o1);
  if (op == Op::qr) sm::qr<T>(n, n, a, o1, o3, false);
  int piv[sm::kMaxDim];
  if (op == Op::cholesky) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) o1[i * n + j] = a[i * n + j];
    (void)sm::cholesky<T>(n, o1);
  }
  if (op == Op::lu) {
    for (int e = 0; e < n * n; ++e) o1[e] = a[e];
    (void)sm::lu<T>(n, n, o1, piv);
  }
  if (op == Op::solve) {  // o2 holds the right-hand side (n x 1)
    for (int e = 0; e < n * n; ++e) o3[e] = a[e];
    for (int i = 0; i < n; ++i) o1[i] = o2[i];
    if (sm::lu<T>(n, n, o3, piv) == 0) sm::lu_solve<T>(n, o3, piv, o1, 1);
  }
}

const char* op_name(Op op) {
  static const char* const names[] = {"svd", "eigh", "qr", "cholesky", "lu", "solve"};
  return names[static_cast<int>(op)];
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, double>) return "f64";
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, std::complex<double>>) return "c128";
  return "c64";
}

// A random entry in [-1, 1) (complex: both parts).
template <class T>
T rand_entry(Rng& g) {
  if constexpr (tenferro::is_complex_v<T>) {
    const double re = g.uniform();
    return T(re, g.uniform());
  } else {
    return T(g.uniform());
  }
}

template <class T>
T conj_of(const T& x) {
  if constexpr (tenferro::is_complex_v<T>)
    return std::conj(x);
  else
    return x;
}

template <class T>
double first_real(const std::vector<T>& o) {
  return double(std::real(o[0]));
}

template <class T>
void time_type(const std::vector<Op>& ops) {
  const char* tn = type_name<T>();
  const int L = sm::batch_lanes<T>();
  constexpr int kBatch = 64;
  std::printf("\n%s, %d lanes per tile: ns per matrix (median)\n%4s", tn, L, "n");
  for (Op op : ops) std::printf(" | %8s %8s %8s %8s", op_name(op), "b64", "b2", "b1");
  std::printf("\n");
  Rng g{777};
  for (int n : {2, 3, 4, 6, 8, 12, 16}) {
    std::vector<T> as(kBatch * n * n), hs(kBatch * n * n), ps(kBatch * n * n);
    for (T& x : as) x = rand_entry<T>(g);
    for (int b = 0; b < kBatch; ++b) {
      T* h = hs.data() + b * n * n;
      T* p = ps.data() + b * n * n;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) {
          h[i * n + j] = rand_entry<T>(g);
          if (i == j) h[i * n + j] = T(std::real(h[i * n + j]));
          h[j * n + i] = conj_of(h[i * n + j]);
          p[i * n + j] = h[i * n + j] + T(i == j ? 2 * n : 0);
          p[j * n + i] = conj_of(p[i * n + j]);
        }
    }
    std::vector<T> o1(kBatch * n * n), o2(kBatch * n * n), o3(kBatch * n * n);
    for (T& x : o2) x = rand_entry<T>(g);  // solve's right-hand sides
    std::printf("%4d", n);
    for (Op op : ops) {
      const std::vector<T>& in = op == Op::eigh ? hs : op == Op::cholesky ? ps : as;
      double r[4];
      r[0] = time_ns(
          [&] {
            for (int b = 0; b < kBatch; ++b)
              run_scalar<T>(op, n, in.data() + b * n * n, o1.data(), o2.data(), o3.data());
            sink = sink + first_real(o1);
          },
          kBatch);
      r[1] = time_ns(
          [&] {
            for (int b0 = 0; b0 < kBatch; b0 += L)
              run_batched<T>(op, n, std::min(L, kBatch - b0), in, b0, o1, o2, o3);
            sink = sink + first_real(o1);
          },
          kBatch);
      r[2] = time_ns(
          [&] {
            run_batched<T>(op, n, 2, in, 0, o1, o2, o3);
            sink = sink + first_real(o1);
          },
          2);
      r[3] = time_ns(
          [&] {
            run_batched<T>(op, n, 1, in, 0, o1, o2, o3);
            sink = sink + first_real(o1);
          },
          1);
      std::printf(" | %8.0f %8.0f %8.0f %8.0f", r[0], r[1], r[2], r[3]);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
}

}  // namespace

// No argument: both tables; "decomp": svd, eigh, qr only; "solve": cholesky, lu, solve only;
// "csolve": cholesky, lu, solve for c128 and c64 (the batched complex kernels); "cqr" / "ceigh" /
// "csvd": qr / eigh / svd for c128 and c64.
int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  if (which == "csolve" || which == "cqr" || which == "ceigh" || which == "csvd") {
    std::vector<Op> ops{Op::cholesky, Op::lu, Op::solve};
    if (which == "cqr") ops = {Op::qr};
    if (which == "ceigh") ops = {Op::eigh};
    if (which == "csvd") ops = {Op::svd};
    time_type<std::complex<double>>(ops);
    time_type<std::complex<float>>(ops);
    return 0;
  }
  for (const auto& ops : {std::vector<Op>{Op::svd, Op::eigh, Op::qr},
                          std::vector<Op>{Op::cholesky, Op::lu, Op::solve}}) {
    if (which == "decomp" && ops[0] != Op::svd) continue;
    if (which == "solve" && ops[0] == Op::svd) continue;
    time_type<double>(ops);
    time_type<float>(ops);
  }
  return 0;
}
