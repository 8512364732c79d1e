// Fixed-size batched GEMM kernels for m, n, k <= 8 (Note [Canonical GEMM]).
//
// Note [Tiny GEMM kernels]: a 16 x (2x2 * 2x2) f64 product is ~130 flops; a BLAS call per matrix
// costs far more than that, so tiny problems run here. Each matrix's operands are first loaded
// into local arrays (any strides, conjugation applied on load), then multiplied with loops whose
// trip counts are compile-time constants, so the compiler unrolls and keeps everything in
// registers. Compile-time kernels exist for every (m, n, k) in {1..4}^3 and for square 5..8;
// other shapes up to 8 use the same code with runtime trip counts.
#include <array>

#include "cpu/kernels/gemm.hpp"

namespace tenferro::detail {
namespace {

// Multiply-add without the NaN/Inf recovery of std::complex's operator* (as BLAS does).
template <class T>
inline void mac(T& acc, const T& x, const T& y) noexcept {
  if constexpr (is_complex_v<T>) {
    acc = T(acc.real() + x.real() * y.real() - x.imag() * y.imag(),
            acc.imag() + x.real() * y.imag() + x.imag() * y.real());
  } else {
    acc += x * y;
  }
}

// Loads x, conjugated when `sign` is -1 (for complex T; real T ignores it).
template <class T>
inline T load(const T* p, real_t<T> sign) noexcept {
  if constexpr (is_complex_v<T>) {
    return T(p->real(), sign * p->imag());
  } else {
    (void)sign;
    return *p;
  }
}

// Calls f(a_off, b_off, c_off) for batch indices [b0, b1); rank <= 1 batches avoid the cursor.
template <class F>
inline void for_each_batch(const GemmProblem& p, std::int64_t b0, std::int64_t b1, F&& f) {
  if (p.batch_shape.size() <= 1) {
    const std::int64_t sa = p.batch_shape.empty() ? 0 : p.batch_a[0];
    const std::int64_t sb = p.batch_shape.empty() ? 0 : p.batch_b[0];
    const std::int64_t sc = p.batch_shape.empty() ? 0 : p.batch_c[0];
    for (std::int64_t i = b0; i < b1; ++i) f(i * sa, i * sb, i * sc);
    return;
  }
  BatchCursor cur(p, b0);
  for (std::int64_t i = b0; i < b1; ++i, cur.next()) f(cur.a(), cur.b(), cur.c());
}

// M, N, K > 0: compile-time sizes. M == 0: runtime sizes (bounded by 8).
template <class T, int M, int N, int K>
void small_kernel(const GemmProblem& p, std::int64_t b0, std::int64_t b1) {
  constexpr bool fixed = M > 0;
  const int m = fixed ? M : static_cast<int>(p.m);
  const int n = fixed ? N : static_cast<int>(p.n);
  const int k = fixed ? K : static_cast<int>(p.k);
  constexpr int MM = fixed ? M : 8, NN = fixed ? N : 8, KK = fixed ? K : 8;
  const auto* A = static_cast<const T*>(p.a);
  const auto* B = static_cast<const T*>(p.b);
  auto* C = static_cast<T*>(p.c);
  const real_t<T> sa = p.conj_a ? -1 : 1, sb = p.conj_b ? -1 : 1;
  const std::int64_t ars = p.a_rs, acs = p.a_cs, brs = p.b_rs, bcs = p.b_cs, crs = p.c_rs,
                     ccs = p.c_cs;
  for_each_batch(p, b0, b1, [&](std::int64_t oa, std::int64_t ob, std::int64_t oc) {
    T la[MM][KK], lb[KK][NN];
    for (int i = 0; i < m; ++i)
      for (int q = 0; q < k; ++q) la[i][q] = load(A + oa + i * ars + q * acs, sa);
    for (int q = 0; q < k; ++q)
      for (int j = 0; j < n; ++j) lb[q][j] = load(B + ob + q * brs + j * bcs, sb);
    T* c = C + oc;
    for (int i = 0; i < m; ++i) {
      T acc[NN];
      for (int j = 0; j < n; ++j) acc[j] = T{};
      for (int q = 0; q < k; ++q)
        for (int j = 0; j < n; ++j) mac(acc[j], la[i][q], lb[q][j]);
      for (int j = 0; j < n; ++j) c[i * crs + j * ccs] = acc[j];
    }
  });
}

using SmallFn = void (*)(const GemmProblem&, std::int64_t, std::int64_t);

template <class T>
struct SmallTable {
  std::array<SmallFn, 64> cube{};   // (m, n, k) in {1..4}^3, index (m-1)*16 + (n-1)*4 + (k-1)
  std::array<SmallFn, 9> square{};  // n = 5..8 at index n
  SmallFn generic = &small_kernel<T, 0, 0, 0>;

  template <int I>
  constexpr void fill_cube() {
    if constexpr (I < 64) {
      cube[I] = &small_kernel<T, I / 16 + 1, I / 4 % 4 + 1, I % 4 + 1>;
      fill_cube<I + 1>();
    }
  }
  constexpr SmallTable() {
    fill_cube<0>();
    square[5] = &small_kernel<T, 5, 5, 5>;
    square[6] = &small_kernel<T, 6, 6, 6>;
    square[7] = &small_kernel<T, 7, 7, 7>;
    square[8] = &small_kernel<T, 8, 8, 8>;
  }
  SmallFn pick(std::int64_t m, std::int64_t n, std::int64_t k) const {
    if (m <= 4 && n <= 4 && k <= 4) return cube[static_cast<std::size_t>((m - 1) * 16 + (n - 1) * 4 + (k - 1))];
    if (m == n && n == k) return square[static_cast<std::size_t>(m)];
    return generic;
  }
};

template <class T>
constexpr SmallTable<T> kTable{};

}  // namespace

bool gemm_small(const GemmProblem& p, std::int64_t b0, std::int64_t b1) {
  if (p.m > 8 || p.n > 8 || p.k > 8 || p.m < 1 || p.n < 1 || p.k < 1) return false;
  visit_dtype(p.dtype, [&](auto z) {
    using T = decltype(z);
    kTable<T>.pick(p.m, p.n, p.k)(p, b0, b1);
  });
  return true;
}

}  // namespace tenferro::detail
