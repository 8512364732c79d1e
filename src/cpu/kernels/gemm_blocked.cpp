// The native blocked GEMM kernel: any sizes, any strides, conjugation (Note [Canonical GEMM]).
//
// Note [Blocked GEMM kernel]: B is packed block by block (KC x NC, conjugated on the way) into a
// contiguous per-thread panel; rows of C are then accumulated four at a time in per-thread row
// buffers with unit-stride inner loops that the compiler vectorises, and written back once per
// K block. It is the fallback for every problem and the choice for strides BLAS cannot take; it
// is correct for any chunking of batches and rows, so the native provider can split both across
// threads. Workspaces are thread_local and grow once, so steady-state calls do not allocate.
#include <algorithm>
#include <vector>

#include "cpu/kernels/gemm.hpp"

namespace tenferro::detail {
namespace {

constexpr std::int64_t kKC = 128;
constexpr std::int64_t kNC = 256;
constexpr std::int64_t kRows = 4;

template <class T>
inline T load(const T* p, bool conj) noexcept {
  return maybe_conj(*p, conj);
}

// acc[j] += x * panel[j] for j < n, complex without std::complex's NaN recovery.
template <class T>
inline void axpy(T* __restrict acc, T x, const T* __restrict panel, std::int64_t n) noexcept {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    auto* a = reinterpret_cast<R*>(acc);
    const auto* b = reinterpret_cast<const R*>(panel);
    const R xr = x.real(), xi = x.imag();
    for (std::int64_t j = 0; j < n; ++j) {
      const R br = b[2 * j], bi = b[2 * j + 1];
      a[2 * j] += xr * br - xi * bi;
      a[2 * j + 1] += xr * bi + xi * br;
    }
  } else {
    for (std::int64_t j = 0; j < n; ++j) acc[j] += x * panel[j];
  }
}

template <class T>
void blocked(const GemmProblem& p, std::int64_t b0, std::int64_t b1, std::int64_t r0,
             std::int64_t r1) {
  thread_local std::vector<T> panel, rows;
  panel.resize(static_cast<std::size_t>(kKC * kNC));
  rows.resize(static_cast<std::size_t>(kRows * kNC));
  const auto* A = static_cast<const T*>(p.a);
  const auto* B = static_cast<const T*>(p.b);
  auto* C = static_cast<T*>(p.c);
  BatchCursor cur(p, b0);
  for (std::int64_t bi = b0; bi < b1; ++bi, cur.next()) {
    const T* a = A + cur.a();
    const T* b = B + cur.b();
    T* c = C + cur.c();
    for (std::int64_t jc = 0; jc < p.n; jc += kNC) {
      const std::int64_t nc = std::min(kNC, p.n - jc);
      for (std::int64_t pc = 0; pc < p.k; pc += kKC) {
        const std::int64_t kc = std::min(kKC, p.k - pc);
        for (std::int64_t q = 0; q < kc; ++q) {
          const T* src = b + (pc + q) * p.b_rs + jc * p.b_cs;
          T* dst = panel.data() + q * nc;
          if (p.b_cs == 1 && !p.conj_b)
            std::copy(src, src + nc, dst);
          else
            for (std::int64_t j = 0; j < nc; ++j) dst[j] = load(src + j * p.b_cs, p.conj_b);
        }
        for (std::int64_t i0 = r0; i0 < r1; i0 += kRows) {
          const std::int64_t nr = std::min(kRows, r1 - i0);
          for (std::int64_t r = 0; r < nr; ++r) {
            T* acc = rows.data() + r * nc;
            const T* crow = c + (i0 + r) * p.c_rs + jc * p.c_cs;
            if (pc == 0)
              std::fill(acc, acc + nc, T{});
            else
              for (std::int64_t j = 0; j < nc; ++j) acc[j] = crow[j * p.c_cs];
          }
          for (std::int64_t q = 0; q < kc; ++q) {
            const T* prow = panel.data() + q * nc;
            for (std::int64_t r = 0; r < nr; ++r) {
              const T x = load(a + (i0 + r) * p.a_rs + (pc + q) * p.a_cs, p.conj_a);
              axpy(rows.data() + r * nc, x, prow, nc);
            }
          }
          for (std::int64_t r = 0; r < nr; ++r) {
            const T* acc = rows.data() + r * nc;
            T* crow = c + (i0 + r) * p.c_rs + jc * p.c_cs;
            for (std::int64_t j = 0; j < nc; ++j) crow[j * p.c_cs] = acc[j];
          }
        }
      }
    }
  }
}

}  // namespace

void gemm_blocked(const GemmProblem& p, std::int64_t b0, std::int64_t b1, std::int64_t r0,
                  std::int64_t r1) {
  visit_float_dtype(p.dtype, [&](auto z) { blocked<decltype(z)>(p, b0, b1, r0, r1); });
}

}  // namespace tenferro::detail
