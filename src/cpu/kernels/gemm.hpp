// The canonical contraction every dot_general lowers to: a batched, strided GEMM.
//
// Note [Canonical GEMM]: for every batch index b (row-major over batch_shape),
//   C[b] (m x n) = op_a(A[b]) (m x k) * op_b(B[b]) (k x n)
// where op_x is the identity or elementwise complex conjugation (conj_a / conj_b; a no-op for
// real dtypes) and C is overwritten (beta = 0). Element (i, p) of A[b] lives at
//   a + a_batch_offset(b) + i * a_rs + p * a_cs
// (strides in elements, any sign, 0 allowed); likewise B over (p, j) and C over (i, j). All three
// operands have the one compute dtype `dtype`. A stride of a size-1 extent is meaningless and may
// hold any value. Providers must handle m, n, k >= 1 and batch >= 1; the dispatcher deals with
// empty problems (nothing to do) and k == 0 (C is zero) itself.
#pragma once

#include <cstdint>

#include "tenferro/dtype.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail {

struct GemmProblem {
  DType dtype = DType::f64;
  std::int64_t m = 1, n = 1, k = 1;
  const void* a = nullptr;
  std::int64_t a_rs = 0, a_cs = 0;
  const void* b = nullptr;
  std::int64_t b_rs = 0, b_cs = 0;
  void* c = nullptr;
  std::int64_t c_rs = 0, c_cs = 0;
  bool conj_a = false, conj_b = false;
  // Batch dimensions (collapsed where possible; rank 0 means a single GEMM).
  Dims batch_shape, batch_a, batch_b, batch_c;

  std::int64_t batch() const noexcept {
    std::int64_t n = 1;
    for (std::int64_t d : batch_shape) n *= d;
    return n;
  }
  /// Work estimate (multiply-adds) used for the parallel/sequential choice.
  std::int64_t flops() const noexcept { return batch() * m * n * k; }
};

/// Walks batch indices [begin, end) of a problem, yielding element offsets of A, B and C.
/// Starts anywhere (for parallel chunks) and advances like an odometer: no division per step.
class BatchCursor {
 public:
  BatchCursor(const GemmProblem& p, std::int64_t begin) : p_(p), idx_(p.batch_shape.size(), 0) {
    for (std::size_t d = p.batch_shape.size(); d-- > 0;) {
      std::int64_t i = begin % p.batch_shape[d];
      begin /= p.batch_shape[d];
      idx_[d] = i;
      a_ += i * p.batch_a[d];
      b_ += i * p.batch_b[d];
      c_ += i * p.batch_c[d];
    }
  }
  std::int64_t a() const noexcept { return a_; }
  std::int64_t b() const noexcept { return b_; }
  std::int64_t c() const noexcept { return c_; }
  void next() noexcept {
    for (std::size_t d = p_.batch_shape.size(); d-- > 0;) {
      a_ += p_.batch_a[d];
      b_ += p_.batch_b[d];
      c_ += p_.batch_c[d];
      if (++idx_[d] < p_.batch_shape[d]) return;
      a_ -= p_.batch_a[d] * p_.batch_shape[d];
      b_ -= p_.batch_b[d] * p_.batch_shape[d];
      c_ -= p_.batch_c[d] * p_.batch_shape[d];
      idx_[d] = 0;
    }
  }

 private:
  const GemmProblem& p_;
  Dims idx_;
  std::int64_t a_ = 0, b_ = 0, c_ = 0;
};

template <class T>
inline T maybe_conj(T v, bool conj) noexcept {
  if constexpr (is_complex_v<T>) {
    return conj ? std::conj(v) : v;
  } else {
    (void)conj;
    return v;
  }
}

// Built-in kernels (src/cpu/kernels/gemm_*.cpp). Each runs batch indices [b0, b1).
/// Fixed-size kernels for m, n, k <= 8 (compile-time sizes for square shapes, a bounded
/// runtime-size loop otherwise). Returns false (doing nothing) when the sizes exceed 8.
bool gemm_small(const GemmProblem& p, std::int64_t b0, std::int64_t b1);
/// The fixed-size kernel gemm_small would run for p (its dtype, sizes and strides), or null when
/// the sizes exceed 8: a prepared eager GEMM picks it once (Note [Eager cache]).
using SmallGemmFn = void (*)(const GemmProblem&, std::int64_t, std::int64_t);
SmallGemmFn small_gemm_kernel(const GemmProblem& p);
/// Any sizes and strides: blocked, row-panel kernel. Rows [r0, r1) of every batch in [b0, b1).
void gemm_blocked(const GemmProblem& p, std::int64_t b0, std::int64_t b1, std::int64_t r0,
                  std::int64_t r1);

}  // namespace tenferro::detail
