// The batch machinery of the linear-algebra kernels: matrices of a strided tensor, packing, and the
// one loop that runs a per-matrix body under the provider rules.
//
// Note [Linalg provider rules]: LAPACK (OpenBLAS's) follows the GEMM provider rules (Note
// [OpenBLAS threads] in src/cpu/providers/openblas_gemm.cpp). A blas-kind backend holds the
// provider-exclusive permit and runs the batch's matrices one after the other, each call threaded
// by OpenBLAS at the backend's budget when the matrix is large (kLapackThreadedWork), else
// single-threaded. OpenBLAS's threaded routines may round differently for another thread count,
// so only there do blas-kind results depend on the budget (in the last bits). A native-kind backend
// sets OpenBLAS to one thread and splits the batch into at most `threads` contiguous chunks on the
// backend's arena. Each chunk owns one workspace slot, taken from the engine's buffer pool before
// the loop (so a prepared run that has run once allocates nothing but its outputs), and every
// matrix is computed by the same single-threaded code whatever the chunking: results are bitwise
// identical for every budget.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "cpu/admission.hpp"
#include "cpu/kernels/linalg_simd_batch.hpp"
#include "tenferro/detail/callback.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::detail::linalg {

using I = std::int64_t;

template <class T>
T conj_of(const T& v) {
  if constexpr (is_complex_v<T>)
    return std::conj(v);
  else
    return v;
}

/// f(T{}) with T the element type of a's dtype (the kernels' entry points dispatch with it).
template <class F>
void by_dtype(const Tensor& a, F&& f) {
  visit_float_dtype(a.dtype(), [&](auto z) { f(z); });
}

/// False for NaN or Inf (in the real or the imaginary part).
template <class T>
bool finite_value(const T& v) {
  if constexpr (is_complex_v<T>)
    return std::isfinite(v.real()) && std::isfinite(v.imag());
  else
    return std::isfinite(v);
}

/// False when one of p[0, count) is NaN or Inf: for a packed matrix, which holds what a kernel
/// reads (e.g. eigh's one triangle and real diagonal, not the whole input).
template <class T>
bool all_finite(const T* p, I count) {
  for (I i = 0; i < count; ++i)
    if (!finite_value(p[i])) return false;
  return true;
}

/// The matrices in the last two dims of a strided tensor (rank >= 2; batch dims row-major).
class MatrixBatch {
 public:
  explicit MatrixBatch(const Tensor& t)
      : base_(static_cast<const char*>(t.numel() > 0 ? t.data_ptr() : nullptr)),
        item_(static_cast<I>(dtype_size(t.dtype()))) {
    const std::size_t r = t.shape().size();
    rows = t.shape()[r - 2];
    cols = t.shape()[r - 1];
    rs = t.strides()[r - 2];
    cs = t.strides()[r - 1];
    count = 1;
    for (std::size_t d = 0; d + 2 < r; ++d) {
      shape_.push_back(t.shape()[d]);
      strides_.push_back(t.strides()[d]);
      count *= t.shape()[d];
    }
  }
  I rows = 0, cols = 0, rs = 0, cs = 0, count = 0;

  /// Element (0, 0) of matrix b (b in [0, count)).
  template <class T>
  const T* matrix(I b) const {
    I off = 0;
    for (std::size_t d = shape_.size(); d-- > 0;) {
      off += (b % shape_[d]) * strides_[d];
      b /= shape_[d];
    }
    return reinterpret_cast<const T*>(base_ + off * item_);
  }
  /// dst[i * cols + j] = m(i, j).
  template <class T>
  void pack_row_major(I b, T* dst) const {
    const T* src = matrix<T>(b);
    for (I i = 0; i < rows; ++i)
      for (I j = 0; j < cols; ++j) dst[i * cols + j] = src[i * rs + j * cs];
  }
  /// dst[i + j * ld] = m(i, j).
  template <class T>
  void pack_col_major(I b, T* dst, I ld) const {
    const T* src = matrix<T>(b);
    for (I j = 0; j < cols; ++j)
      for (I i = 0; i < rows; ++i) dst[i + j * ld] = src[i * rs + j * cs];
  }
  /// False when an element of matrix b is NaN or Inf (real or imaginary part).
  template <class T>
  bool finite(I b) const {
    const T* src = matrix<T>(b);
    for (I i = 0; i < rows; ++i)
      for (I j = 0; j < cols; ++j)
        if (!finite_value(src[i * rs + j * cs])) return false;
    return true;
  }

 private:
  const char* base_;
  I item_;
  Dims shape_, strides_;
};

/// The matrix with the lowest batch index whose body reported a failure (batch < 0: none).
struct Failure {
  I batch = -1;
  I info = 0;
  explicit operator bool() const noexcept { return batch >= 0; }
};

/// Work per matrix (rough cycles) from which a blas-kind backend lets OpenBLAS thread a LAPACK call
/// (about a 50 x 50 svd); below it every kind calls LAPACK single-threaded.
inline constexpr I kLapackThreadedWork = I{1} << 21;

/// An info value a body returns for a matrix holding NaN or Inf (LAPACK's own infos are smaller).
inline constexpr I kNonFinite = I{1} << 40;

/// LinAlgError for a failed batch: NaN/Inf input, or `what` (e.g. "the SVD did not converge")
/// with the batch index and LAPACK's info.
[[noreturn]] inline void throw_failure(const char* op, const Failure& f, const std::string& what) {
  if (f.info == kNonFinite)
    throw Error(ErrorKind::LinAlgError, std::string(op) + ": the matrix at batch index " +
                                            std::to_string(f.batch) +
                                            " contains NaN or Inf; expected finite values");
  throw Error(ErrorKind::LinAlgError, std::string(op) + ": " + what + " for the matrix at batch " +
                                          "index " + std::to_string(f.batch) + " (LAPACK info " +
                                          std::to_string(f.info) + ")");
}

/// LAPACK's pivot measure (|re| + |im| for complex, as i?amax).
template <class T>
real_t<T> abs1(const T& v) {
  if constexpr (is_complex_v<T>)
    return std::abs(v.real()) + std::abs(v.imag());
  else
    return std::abs(v);
}

/// Runs body(b, workspace) for every matrix b in [0, count) under Note [Linalg provider rules].
/// `work` is the rough cost of one matrix (cycles); `ws_bytes` the workspace one call needs (each
/// concurrently running chunk gets its own, 64-byte aligned). body returns 0 or a positive info;
/// the failure with the lowest batch index is returned (every matrix is still computed). Errors
/// thrown by body propagate. `lapack`: the body calls LAPACK/BLAS (sets OpenBLAS's thread count).
Failure for_each_matrix(ExecContext& ctx, I count, I work, std::size_t ws_bytes, bool lapack,
                        FunctionRef<I(I, char*)> body);

/// Runs body(b0, nb) for the tiles [b0, b0 + nb) of `lanes` consecutive matrices (the last one
/// shorter when lanes does not divide count) under Note [Linalg provider rules], for kernels that
/// compute a tile of matrices at once (Note [Batched small linalg kernels] in
/// linalg_simd_batch.hpp). Chunks split the batch at multiples of `lanes`, so the tiles are the
/// same whatever the thread count. body returns the failure with the lowest batch index of its
/// tile (or none); the lowest over the batch is returned. `work` is the cost of one matrix.
Failure for_each_tile(ExecContext& ctx, I count, I lanes, I work, FunctionRef<Failure(I, I)> body);

/// small::lu of the matrices [b0, b0 + nb) of A (one tile of for_each_tile), each read as it is
/// (row-major rows x cols) or, `transposed`, as its transpose, into lu[j] with 0-based pivots
/// piv[j]: the batched kernel when the tile is full enough (lu_tile_pays_off), else the scalar
/// loops; the same bits either way (Note [Batched small linalg kernels]).
template <class T>
void lu_tile(const MatrixBatch& A, I b0, I nb, bool transposed, T* const* lu, int* const* piv) {
  const int m = static_cast<int>(transposed ? A.cols : A.rows);
  const int n = static_cast<int>(transposed ? A.rows : A.cols);
  const int count = static_cast<int>(nb);
  if (small::lu_tile_pays_off<T>(count, small::batch_lanes<T>())) {
    const T* in[small::kMaxBatchLanes] = {};
    int info[small::kMaxBatchLanes] = {};
    for (int j = 0; j < count; ++j) in[j] = A.matrix<T>(b0 + j);
    small::lu_batch<T>(m, n, count, in, transposed ? A.cs : A.rs, transposed ? A.rs : A.cs, lu, piv,
                       info);
    return;
  }
  for (int j = 0; j < count; ++j) {
    if (transposed)
      A.pack_col_major(b0 + j, lu[j], A.rows);
    else
      A.pack_row_major(b0 + j, lu[j]);
    small::lu<T>(m, n, lu[j], piv[j]);
  }
}

/// Bytes for n elements of T, rounded up to 64 (workspace carving).
template <class T>
constexpr std::size_t ws_bytes(I n) {
  return (static_cast<std::size_t>(n) * sizeof(T) + 63) / 64 * 64;
}

/// Carves consecutive 64-byte aligned arrays out of one workspace block.
class WorkspaceCarver {
 public:
  explicit WorkspaceCarver(char* p) : p_(p) {}
  template <class T>
  T* take(I n) {
    T* r = reinterpret_cast<T*>(p_);
    p_ += ws_bytes<T>(n);
    return r;
  }

 private:
  char* p_;
};

}  // namespace tenferro::detail::linalg
