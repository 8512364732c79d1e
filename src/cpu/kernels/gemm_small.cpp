// Fixed-size batched GEMM kernels for m, n, k <= 8 (Note [Canonical GEMM]).
//
// Note [Tiny GEMM kernels]: a 16 x (2x2 * 2x2) f64 product is ~130 flops; a BLAS call per matrix
// costs far more than that, so tiny problems run here. Each matrix's operands are first loaded
// into local arrays (any strides, conjugation applied on load), then multiplied with loops whose
// trip counts are compile-time constants, so the compiler unrolls and keeps everything in
// registers. Compile-time kernels exist for square shapes 1..8, each in a strided form and a
// contiguous form (constant offsets); other shapes up to 8 use the same code with runtime trip
// counts. (An earlier version instantiated every (m, n, k) in {1..4}^3 as well: 4x the compile
// time for little gain over the runtime-size loop.)
#include "cpu/kernels/complex_mul.hpp"
#include "cpu/kernels/gemm.hpp"
#include "cpu/kernels/gemm_small_simd.hpp"

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

// S > 0: compile-time square size S (and, when Contig, the strides of contiguous row-major
// matrices, so every load and store has a constant offset). S == 0: runtime sizes (<= 8) and
// strides.
// Note [Tiny GEMM vectorisation]: the per-matrix body is vectorised across its rows and columns
// (SLP); vectorising the batch loop instead gathers elements of neighbouring matrices and adds
// run-time alias checks, which costs more than it saves for a handful of small matrices. The
// exception is 2x2, where a matrix is four interleaved planes: Note [Tiny GEMM across the batch].
template <class T, int S, bool Contig>
[[gnu::optimize("no-tree-loop-vectorize")]] void small_kernel(const GemmProblem& p, std::int64_t b0,
                                                              std::int64_t b1) {
  constexpr bool fixed = S > 0;
  const int m = fixed ? S : static_cast<int>(p.m);
  const int n = fixed ? S : static_cast<int>(p.n);
  const int k = fixed ? S : static_cast<int>(p.k);
  constexpr int MM = fixed ? S : 8;
  // C never overlaps A or B (it is a fresh output or a private temporary), which lets the
  // compiler drop its run-time alias checks between the loads and the stores.
  const auto* A = static_cast<const T*>(p.a);
  const auto* B = static_cast<const T*>(p.b);
  auto* C = static_cast<T*>(p.c);
  const real_t<T> sa = p.conj_a ? -1 : 1, sb = p.conj_b ? -1 : 1;
  const std::int64_t ars = Contig ? S : p.a_rs, acs = Contig ? 1 : p.a_cs;
  const std::int64_t brs = Contig ? S : p.b_rs, bcs = Contig ? 1 : p.b_cs;
  const std::int64_t crs = Contig ? S : p.c_rs, ccs = Contig ? 1 : p.c_cs;
  for_each_batch(p, b0, b1, [&](std::int64_t oa, std::int64_t ob, std::int64_t oc) {
    const T* __restrict a = A + oa;
    const T* __restrict b = B + ob;
    T* __restrict c = C + oc;
    T la[MM][MM], lb[MM][MM];
    for (int i = 0; i < m; ++i)
      for (int q = 0; q < k; ++q) la[i][q] = load(a + i * ars + q * acs, sa);
    for (int q = 0; q < k; ++q)
      for (int j = 0; j < n; ++j) lb[q][j] = load(b + q * brs + j * bcs, sb);
    for (int i = 0; i < m; ++i) {
      T acc[MM];
      for (int j = 0; j < n; ++j) acc[j] = fast_mul(la[i][0], lb[0][j]);  // k >= 1
      for (int q = 1; q < k; ++q)
        for (int j = 0; j < n; ++j) mac(acc[j], la[i][q], lb[q][j]);
      for (int j = 0; j < n; ++j) c[i * crs + j * ccs] = acc[j];
    }
  });
}

// Real 2x2 matrices back to back (a batch stride of 4 in A, B and C; A and B row-major or stored
// transposed, C row-major): whole vectors of them across SIMD lanes (Note [Tiny GEMM across the
// batch], gemm_small_simd.cpp), the tail above.
template <class T, bool TA, bool TB>
void batch_2x2_kernel(const GemmProblem& p, std::int64_t b0, std::int64_t b1) {
  static const auto lanes = kernels::simd::gemm_2x2<T, TA, TB>();
  const std::int64_t done =
      lanes(static_cast<const T*>(p.a) + 4 * b0, static_cast<const T*>(p.b) + 4 * b0,
            static_cast<T*>(p.c) + 4 * b0, b1 - b0);
  if (b0 + done < b1) small_kernel<T, 2, !TA && !TB>(p, b0 + done, b1);
}

template <class T>
SmallGemmFn batch_2x2_kernel_for(const GemmProblem& p) {
  const bool ta = p.a_rs == 1, tb = p.b_rs == 1;
  if (ta) return tb ? &batch_2x2_kernel<T, true, true> : &batch_2x2_kernel<T, true, false>;
  return tb ? &batch_2x2_kernel<T, false, true> : &batch_2x2_kernel<T, false, false>;
}

// A 2x2 operand in four consecutive elements: row-major (2, 1) or transposed (1, 2).
bool packed_2x2(std::int64_t rs, std::int64_t cs) {
  return (rs == 2 && cs == 1) || (rs == 1 && cs == 2);
}

bool packed_2x2_batch(const GemmProblem& p) {
  return p.batch_shape.size() == 1 && p.batch_a[0] == 4 && p.batch_b[0] == 4 && p.batch_c[0] == 4 &&
         packed_2x2(p.a_rs, p.a_cs) && packed_2x2(p.b_rs, p.b_cs) && p.c_rs == 2 && p.c_cs == 1;
}

// One operand the same 2x2 matrix for the whole batch (batch stride 0, any element strides: the
// broadcast cotangent of a sum()), the other packed (Note [Tiny GEMM across the batch]).
template <class T, bool UA, bool TP>
void batch_2x2_uniform_kernel(const GemmProblem& p, std::int64_t b0, std::int64_t b1) {
  const auto* U = static_cast<const T*>(UA ? p.a : p.b);
  const std::int64_t rs = UA ? p.a_rs : p.b_rs, cs = UA ? p.a_cs : p.b_cs;
  const T u[4] = {U[0], U[cs], U[rs], U[rs + cs]};
  const auto* packed = static_cast<const T*>(UA ? p.b : p.a) + 4 * b0;
  static const auto lanes = kernels::simd::gemm_2x2_uniform<T, UA, TP>();
  const std::int64_t done =
      lanes(UA ? u : packed, UA ? packed : u, static_cast<T*>(p.c) + 4 * b0, b1 - b0);
  if (b0 + done < b1) small_kernel<T, 2, false>(p, b0 + done, b1);
}

// A batch of real 2x2 products with one operand uniform and the other packed, C packed.
bool uniform_2x2_batch(const GemmProblem& p) {
  if (p.batch_shape.size() != 1 || p.batch_c[0] != 4 || p.c_rs != 2 || p.c_cs != 1) return false;
  if (p.batch_a[0] == 0) return p.batch_b[0] == 4 && packed_2x2(p.b_rs, p.b_cs);
  return p.batch_b[0] == 0 && p.batch_a[0] == 4 && packed_2x2(p.a_rs, p.a_cs);
}

template <class T>
SmallGemmFn batch_2x2_uniform_kernel_for(const GemmProblem& p) {
  if (p.batch_a[0] == 0)
    return p.b_rs == 1 ? &batch_2x2_uniform_kernel<T, true, true>
                       : &batch_2x2_uniform_kernel<T, true, false>;
  return p.a_rs == 1 ? &batch_2x2_uniform_kernel<T, false, true>
                     : &batch_2x2_uniform_kernel<T, false, false>;
}

template <class T, int S>
constexpr SmallGemmFn square(bool contig) {
  return contig ? &small_kernel<T, S, true> : &small_kernel<T, S, false>;
}

template <class T>
SmallGemmFn pick(const GemmProblem& p) {
  if (p.m != p.n || p.n != p.k) return &small_kernel<T, 0, false>;
  const std::int64_t s = p.m;
  const bool contig = (s == 1 || (p.a_rs == s && p.a_cs == 1 && p.b_rs == s && p.b_cs == 1 &&
                                  p.c_rs == s && p.c_cs == 1));
  switch (s) {
    case 1:
      return square<T, 1>(contig);
    case 2:
      if constexpr (!is_complex_v<T>)
        if (packed_2x2_batch(p)) return batch_2x2_kernel_for<T>(p);
      if constexpr (!is_complex_v<T>)
        if (uniform_2x2_batch(p)) return batch_2x2_uniform_kernel_for<T>(p);
      return square<T, 2>(contig);
    case 3:
      return square<T, 3>(contig);
    case 4:
      return square<T, 4>(contig);
    case 5:
      return square<T, 5>(contig);
    case 6:
      return square<T, 6>(contig);
    case 7:
      return square<T, 7>(contig);
    default:
      return square<T, 8>(contig);
  }
}

}  // namespace

SmallGemmFn small_gemm_kernel(const GemmProblem& p) {
  if (p.m > 8 || p.n > 8 || p.k > 8 || p.m < 1 || p.n < 1 || p.k < 1) return nullptr;
  return visit_float_dtype(p.dtype, [&](auto z) { return pick<decltype(z)>(p); });
}

bool gemm_small(const GemmProblem& p, std::int64_t b0, std::int64_t b1) {
  const SmallGemmFn f = small_gemm_kernel(p);
  if (f) f(p, b0, b1);
  return f != nullptr;
}

}  // namespace tenferro::detail
