// Tensor: a strided view of shared, reference-counted storage.
//
// A Tensor is a value: copying it is cheap and shares the storage, the layout record (Note
// [Layout record] in tenferro/detail/layout.hpp) and the autodiff/trace identity (Note [Tensor
// aux]). Layout is row-major by default; any strides (in elements,
// possibly 0 for broadcast dimensions) are accepted as input. Rank-0 tensors are scalars; tensors
// with a zero-sized dimension are empty. A default-constructed Tensor is *undefined* (defined()
// is false); autodiff uses undefined tensors for "zero, not materialised".
//
// Note [Tensor aux]: the autodiff and tracing state of a tensor (requires_grad, gradient,
// producing node, forward tangent, trace symbol) lives in one optional shared block `aux`, a
// stack of one layer per autodiff level (Note [Autodiff levels] in src/core/tensor_aux.hpp). A
// plain tensor has none, so the eager fast path tests one pointer. Copies share the block;
// requires_grad_() on a tensor with no block creates one, which earlier copies do not see. Core
// holds what autodiff and tracing put there through opaque bases (Note [Core hooks] in
// src/core/tensor_aux.hpp), so it depends on nothing above it.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tenferro/detail/layout.hpp"
#include "tenferro/dtype.hpp"
#include "tenferro/error.hpp"
#include "tenferro/small_vector.hpp"
#include "tenferro/storage.hpp"

namespace tenferro {

/// "[2, 3]"
std::string dims_to_string(std::span<const std::int64_t> dims);
/// Product of the dimensions (1 for rank 0). Never overflows: 0 when a dimension is 0, INT64_MAX
/// when the product does not fit in int64 (no tensor has that many elements: every shape is
/// checked when a tensor is made, docs/errors.md "Limits"), and -1 when a dimension is negative
/// (not a shape).
std::int64_t dims_numel(std::span<const std::int64_t> shape);
/// Row-major strides of a shape (a stride that does not fit in int64, possible only in a
/// zero-sized shape, saturates at INT64_MAX).
Dims contiguous_strides(std::span<const std::int64_t> shape);

namespace detail {
struct TensorAux;
}

/// A scalar usable with any dtype (real values convert to complex with zero imaginary part).
using Scalar = std::complex<double>;

class Tensor {
 public:
  /// An undefined tensor.
  Tensor() = default;
  /// A view of `storage` (strides and offset in elements, any sign of stride). InvalidArgument
  /// unless: `storage` is not null, every dimension is >= 0 and the element count fits in int64,
  /// there is one stride per dimension, offset >= 0, and every addressed element lies inside the
  /// storage (checked without overflow, so huge strides or offsets are rejected, not wrapped).
  /// Strides that address nothing are normalised so that offset arithmetic on the view cannot
  /// overflow (Note [View invariant] in src/core/tensor.cpp): an empty view gets row-major
  /// strides, and a size-1 dimension whose stride exceeds the storage's element count in
  /// magnitude gets its row-major stride. Every other stride is kept as given. A bool view reads
  /// each byte as a C++ bool, so the bytes it addresses must be 0 or 1 (tenferro only ever
  /// writes those); viewing other bytes as bool is undefined behaviour, as it is in C++.
  Tensor(StoragePtr storage, Dims shape, Dims strides, std::int64_t offset, DType dtype);
  /// A fresh contiguous tensor with uninitialised heap storage (bool: all false). InvalidArgument
  /// for a negative dimension or more than INT64_MAX elements; OutOfMemory when the byte count is
  /// not representable or the heap cannot provide it (the message names the size).
  static Tensor empty(Dims shape, DType dtype);
  /// A contiguous tensor adopting `storage`. InvalidArgument unless the storage is not null, the
  /// shape is valid (as for the constructor) and the storage holds at least numel * itemsize
  /// bytes.
  static Tensor wrap_contiguous(StoragePtr storage, Dims shape, DType dtype);

  bool defined() const noexcept { return static_cast<bool>(layout_); }
  DType dtype() const noexcept { return layout_ ? layout_->dtype : DType::f64; }
  const Dims& shape() const noexcept { return layout_ ? layout_->shape : detail::kNoDims; }
  const Dims& strides() const noexcept { return layout_ ? layout_->strides : detail::kNoDims; }
  std::int64_t offset() const noexcept { return offset_; }
  std::int64_t rank() const noexcept { return static_cast<std::int64_t>(shape().size()); }
  std::int64_t numel() const noexcept { return layout_ ? layout_->numel : 0; }
  /// Size of dimension `axis` (negative counts from the end). Throws InvalidArgument.
  std::int64_t size(std::int64_t axis) const;
  /// True when the strides are row-major for the shape (size-1 dims ignore their stride).
  bool is_contiguous() const noexcept { return !layout_ || layout_->contiguous; }
  /// True when this tensor has storage (traced tensors are symbolic and have none).
  bool has_storage() const noexcept { return static_cast<bool>(storage_); }
  const StoragePtr& storage() const noexcept { return storage_; }

  /// Address of the element at index (0, ..., 0). Throws RuntimeState for undefined and symbolic
  /// tensors.
  void* data_ptr() const {
    if (!storage_) [[unlikely]]
      throw_no_data();
    return static_cast<char*>(storage_->data) +
           offset_ * static_cast<std::int64_t>(dtype_size(layout_->dtype));
  }
  /// Typed data_ptr(); throws DTypeMismatch when T is not the tensor's dtype.
  template <class T>
  T* data() const;

  /// Checked element read/write (dtype must match T exactly; indices in range).
  template <class T>
  T at(std::span<const std::int64_t> index) const;
  template <class T>
  T at(std::initializer_list<std::int64_t> index) const {
    return at<T>(std::span<const std::int64_t>(index.begin(), index.size()));
  }
  template <class T>
  void set(std::span<const std::int64_t> index, T value);
  template <class T>
  void set(std::initializer_list<std::int64_t> index, T value) {
    set<T>(std::span<const std::int64_t>(index.begin(), index.size()), value);
  }
  /// All elements in row-major logical order (T must be the dtype).
  template <class T>
  std::vector<T> to_vector() const;
  /// The only element of a one-element tensor (T must be the dtype).
  template <class T>
  T item() const;

  // Views and layout. These are catalog operations: autodiff records them and tracing captures
  // them. Views share storage; see each function in ops for when a copy is made.
  Tensor reshape(Dims shape) const;
  Tensor permute(Dims axes) const;
  Tensor transpose(std::int64_t a = -2, std::int64_t b = -1) const;
  Tensor slice(std::int64_t axis, std::int64_t start, std::int64_t stop,
               std::int64_t step = 1) const;
  Tensor broadcast_to(Dims shape) const;
  Tensor expand(Dims shape) const { return broadcast_to(std::move(shape)); }
  Tensor squeeze(std::int64_t axis) const;
  Tensor unsqueeze(std::int64_t axis) const;
  /// This tensor when already contiguous, else a contiguous copy.
  Tensor contiguous() const;

  // Autodiff (see autodiff.hpp for the full API).
  bool requires_grad() const noexcept;
  /// Marks this tensor as a leaf of the eager tape whose gradient is accumulated by backward()
  /// (on = false unmarks it and drops its gradient). Returns *this. InvalidArgument for a
  /// recorded result, or for an input or result of a running grad/vjp/jvp (mark leaves before
  /// the transform); DTypeMismatch for bool and integer tensors.
  Tensor& requires_grad_(bool on = true);
  /// Accumulated gradient of a leaf (undefined when none has been accumulated).
  Tensor grad() const;
  /// Resets the accumulated gradient to undefined (= zero). Returns *this.
  Tensor& zero_grad_();

  /// Human-readable form: header line with shape and dtype, then the values (elided when large).
  std::string to_string() const;

  // Internal: the autodiff/trace block (Note [Tensor aux]).
  const std::shared_ptr<detail::TensorAux>& aux() const noexcept { return aux_; }
  void set_aux(std::shared_ptr<detail::TensorAux> aux) noexcept { aux_ = std::move(aux); }
  /// Internal: a symbolic tensor (no storage) carrying only shape and dtype.
  static Tensor symbolic(Dims shape, DType dtype);
  /// Internal: wrap_contiguous without any check, for outputs the library allocated itself from
  /// this very shape (Note [Byte counts] in src/core/alloc.hpp); the hot path of every op.
  static Tensor wrap_contiguous_unchecked(StoragePtr storage, Dims shape, DType dtype);
  /// Internal: makes this tensor a plain view of `storage` with a layout record made earlier (the
  /// eager cache and prepared programs keep one per output) at `offset`, without any check.
  void set_layout_unchecked(StoragePtr storage, detail::LayoutRef layout,
                            std::int64_t offset = 0) noexcept {
    storage_ = std::move(storage);
    layout_ = std::move(layout);
    offset_ = offset;
    aux_.reset();
  }
  /// Internal: the layout record (null when undefined).
  const detail::Layout* layout() const noexcept { return layout_.get(); }
  const detail::LayoutRef& layout_ref() const noexcept { return layout_; }

 private:
  [[noreturn]] void throw_no_data() const;
  std::int64_t element_offset(std::span<const std::int64_t> index, const char* op) const;
  void check_dtype(DType expected, const char* op) const;

  StoragePtr storage_;
  detail::LayoutRef layout_;  // null: undefined
  std::int64_t offset_ = 0;
  std::shared_ptr<detail::TensorAux> aux_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- Construction (heap storage, contiguous) ----
Tensor zeros(Dims shape, DType dtype = DType::f64);
Tensor ones(Dims shape, DType dtype = DType::f64);
Tensor full(Dims shape, Scalar value, DType dtype = DType::f64);
/// A rank-0 tensor.
Tensor scalar_tensor(Scalar value, DType dtype = DType::f64);
/// Copies `values` (row-major) into a tensor of `shape`; throws ShapeMismatch on a count mismatch.
template <class T>
Tensor from_vector(const std::vector<T>& values, Dims shape);
/// Real values converted to `dtype`.
Tensor from_values(std::initializer_list<double> values, Dims shape, DType dtype = DType::f64);
/// [start, start+step, ...) below stop (above for negative step), rank 1.
Tensor arange(double start, double stop, double step = 1.0, DType dtype = DType::f64);
Tensor arange(std::int64_t n, DType dtype = DType::f64);
/// Uniform [0, 1) (complex: both parts). The same seed gives the same values on every machine
/// (integer arithmetic only), thread count and generation order.
Tensor rand(Dims shape, std::uint64_t seed, DType dtype = DType::f64);
/// Standard normal (complex: each part N(0, 1/2)). Same seed, same values at every thread count
/// and generation order; across machines, as far as their libm's log/cos/sin agree (glibc's, in
/// practice correctly rounded, do; another math library may differ in the last bit).
Tensor randn(Dims shape, std::uint64_t seed, DType dtype = DType::f64);

/// |a - b| <= atol + rtol * |b| elementwise, shapes equal (dtypes may differ). Concrete tensors.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace tenferro
