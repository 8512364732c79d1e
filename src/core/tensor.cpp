#include "tenferro/tensor.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "core/alloc.hpp"
#include "core/strided.hpp"

namespace tenferro {

std::string dims_to_string(std::span<const std::int64_t> dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::int64_t dims_numel(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  bool zero = false, saturated = false;
  for (auto d : shape) {
    if (d < 0) return -1;
    if (d == 0)
      zero = true;
    else if (!saturated && __builtin_mul_overflow(n, d, &n))
      saturated = true;
  }
  return zero ? 0 : saturated ? std::numeric_limits<std::int64_t>::max() : n;
}

Dims contiguous_strides(std::span<const std::int64_t> shape) {
  Dims s(shape.size(), 0);
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc = detail::saturating_mul(acc, shape[i] == 0 ? 1 : shape[i]);
  }
  return s;
}

// Like NumPy, the product of the non-zero dimensions must fit too (so that every contiguous
// stride is representable), even when another dimension is 0.
void detail::check_shape(std::span<const std::int64_t> shape, std::string_view op) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0)
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": negative dimension in shape " +
                                                  dims_to_string(shape) +
                                                  "; expected every dimension >= 0");
    if (d > 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": shape " + dims_to_string(shape) +
                      " has more elements than fit in int64; expected the product of the "
                      "non-zero dimensions to be at most " +
                      std::to_string(std::numeric_limits<std::int64_t>::max()));
    if (d > 0) n *= d;
  }
}

Tensor::Tensor(StoragePtr storage, Dims shape, Dims strides, std::int64_t offset, DType dtype) {
  detail::check_shape(shape, "Tensor");
  if (strides.size() != shape.size())
    throw Error(ErrorKind::InvalidArgument, "Tensor: strides " + dims_to_string(strides) +
                                                " do not match the rank of shape " +
                                                dims_to_string(shape));
  if (!storage)
    throw Error(ErrorKind::InvalidArgument,
                "Tensor: the storage is null (shape " + dims_to_string(shape) +
                    "); expected a storage, e.g. Tensor::empty(shape, dtype).storage()");
  const std::int64_t n = dims_numel(shape);
  // Elements the storage holds (at most INT64_MAX).
  const auto cap = static_cast<std::int64_t>(
      std::min<std::size_t>(storage->bytes / dtype_size(dtype),
                            static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())));
  // The addressed range [lo, hi] must lie inside the storage; computed with checked arithmetic,
  // so huge strides or offsets cannot wrap around into range. An empty view addresses nothing
  // but its offset must still lie in [0, cap] (data_ptr() points there).
  bool ok = offset >= 0 && offset <= cap;
  if (ok && n > 0) {
    std::int64_t lo = offset, hi = offset;
    for (std::size_t i = 0; ok && i < shape.size(); ++i) {
      std::int64_t ext = 0;
      ok = !__builtin_mul_overflow(shape[i] - 1, strides[i], &ext) &&
           !__builtin_add_overflow(ext < 0 ? lo : hi, ext, ext < 0 ? &lo : &hi);
    }
    ok = ok && lo >= 0 && hi < cap;
  }
  if (ok) {
    // Note [View invariant]: a stride that addresses nothing -- every stride of an empty view,
    // the stride of a size-1 dimension -- may be anything the caller likes, but offset
    // arithmetic on views (kernels' incremental walks, slice/diag offsets) must not overflow.
    // So an empty view takes row-major strides (bounded by its shape, whose non-zero product
    // fits in int64), and a size-1 dimension whose stride exceeds the storage's element count
    // in magnitude takes its row-major stride (at most numel <= cap). Every other stride is kept.
    if (n == 0) {
      strides = contiguous_strides(shape);
    } else {
      for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == 1 && (strides[i] > cap || strides[i] < -cap))
          strides[i] = dims_numel(std::span<const std::int64_t>(shape).subspan(i + 1));
    }
  }
  if (!ok)
    throw Error(ErrorKind::InvalidArgument,
                "Tensor: view (shape " + dims_to_string(shape) + ", strides " +
                    dims_to_string(strides) + ", offset " + std::to_string(offset) +
                    ") addresses elements outside a storage of " + std::to_string(cap) +
                    " elements; expected offset >= 0 and every addressed element in [0, " +
                    std::to_string(cap) + ")");
  storage_ = std::move(storage);
  layout_ = detail::make_layout(std::move(shape), std::move(strides), n, dtype);
  offset_ = offset;
}

Tensor Tensor::empty(Dims shape, DType dtype) {
  Tensor t = detail::empty_for(std::move(shape), dtype, "empty");
  // A bool's bytes must be 0 or 1 (anything else is undefined behaviour to read): an "empty"
  // bool tensor starts false, never uninitialised.
  if (dtype == DType::boolean && t.numel() > 0)
    std::memset(t.data_ptr(), 0, static_cast<std::size_t>(t.numel()));
  return t;
}

Tensor detail::empty_for(Dims shape, DType dtype, std::string_view op) {
  // checked_bytes also rejects an invalid shape (InvalidArgument), on its slow path.
  const std::size_t bytes = detail::checked_bytes(shape, dtype, op);
  return Tensor::wrap_contiguous_unchecked(StoragePtr(detail::heap_storage_for(bytes, op)),
                                           std::move(shape), dtype);
}

Tensor Tensor::wrap_contiguous(StoragePtr storage, Dims shape, DType dtype) {
  detail::check_shape(shape, "wrap_contiguous");
  if (!storage)
    throw Error(ErrorKind::InvalidArgument, "wrap_contiguous: the storage is null (shape " +
                                                dims_to_string(shape) + "); expected a storage");
  const auto need =
      static_cast<unsigned __int128>(dims_numel(shape)) * dtype_size(dtype);  // no overflow
  if (need > storage->bytes)
    throw Error(ErrorKind::InvalidArgument,
                "wrap_contiguous: shape " + dims_to_string(shape) + " " +
                    std::string(dtype_name(dtype)) + " needs " + std::to_string(dims_numel(shape)) +
                    " elements of " + std::to_string(dtype_size(dtype)) +
                    " bytes but the storage holds " + std::to_string(storage->bytes) + " bytes");
  return wrap_contiguous_unchecked(std::move(storage), std::move(shape), dtype);
}

Tensor Tensor::wrap_contiguous_unchecked(StoragePtr storage, Dims shape, DType dtype) {
  // Every op output the eager cache and prepared programs do not lay out comes through here. The
  // caller sized the storage from this shape with checked_bytes (Note [Byte counts]), so nothing
  // is checked.
  Tensor t;
  t.layout_ = detail::make_contiguous_layout(std::move(shape), dtype);
  t.storage_ = std::move(storage);
  return t;
}

Tensor Tensor::symbolic(Dims shape, DType dtype) {
  detail::check_shape(shape, "symbolic");
  Tensor t;
  t.layout_ = detail::make_contiguous_layout(std::move(shape), dtype);
  return t;
}

std::int64_t Tensor::size(std::int64_t axis) const {
  std::int64_t r = rank();
  if (axis < -r || axis >= r)
    throw Error(ErrorKind::InvalidArgument, "size: axis " + std::to_string(axis) +
                                                " out of range for a tensor of rank " +
                                                std::to_string(r));
  return shape()[static_cast<std::size_t>(axis < 0 ? axis + r : axis)];
}

void Tensor::throw_no_data() const {
  if (!layout_) throw Error(ErrorKind::RuntimeState, "data_ptr: the tensor is undefined");
  throw Error(ErrorKind::RuntimeState,
              "data_ptr: the tensor is symbolic (traced, shape " + dims_to_string(shape()) +
                  ") and has no data; run the traced program to get values");
}

void Tensor::check_dtype(DType expected, const char* op) const {
  if (!layout_) throw Error(ErrorKind::RuntimeState, std::string(op) + ": the tensor is undefined");
  if (dtype() != expected)
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": requested element type " + std::string(dtype_name(expected)) +
                    " but the tensor has dtype " + std::string(dtype_name(dtype())));
}

template <class T>
T* Tensor::data() const {
  check_dtype(dtype_v<T>, "data");
  return static_cast<T*>(data_ptr());
}

std::int64_t Tensor::element_offset(std::span<const std::int64_t> index, const char* op) const {
  if (static_cast<std::int64_t>(index.size()) != rank())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": index " + dims_to_string(index) + " has " +
                    std::to_string(index.size()) + " entries; the tensor has rank " +
                    std::to_string(rank()) + " (shape " + dims_to_string(shape()) + ")");
  const Dims& dims = shape();
  const Dims& steps = strides();
  std::int64_t off = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0 || index[i] >= dims[i])
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": index " + dims_to_string(index) +
                                                  " out of range for shape " +
                                                  dims_to_string(dims));
    off += index[i] * steps[i];
  }
  return off;
}

template <class T>
T Tensor::at(std::span<const std::int64_t> index) const {
  check_dtype(dtype_v<T>, "at");
  std::int64_t off = element_offset(index, "at");
  return static_cast<const T*>(data_ptr())[off];
}

template <class T>
void Tensor::set(std::span<const std::int64_t> index, T value) {
  check_dtype(dtype_v<T>, "set");
  std::int64_t off = element_offset(index, "set");
  T* base = static_cast<T*>(data_ptr());
  storage_->note_write("Tensor::set");  // Note [Version counter]
  base[off] = value;
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  check_dtype(dtype_v<T>, "to_vector");
  const std::int64_t n = numel();
  const DType dt = dtype();
  // A broadcast view may have far more elements than bytes (Note [Byte counts]).
  detail::checked_bytes(n, dt, "to_vector");
  return detail::translate_heap_failure("to_vector", [&] {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
      std::unique_ptr<bool[]> buf(new bool[static_cast<std::size_t>(n)]);
      if (n > 0) detail::copy_to_contiguous(*this, buf.get(), dt);
      return std::vector<bool>(buf.get(), buf.get() + n);
    } else {
      std::vector<T> out(static_cast<std::size_t>(n));
      if (n > 0) detail::copy_to_contiguous(*this, out.data(), dt);
      return out;
    }
  });
}

template <class T>
T Tensor::item() const {
  check_dtype(dtype_v<T>, "item");
  if (numel() != 1)
    throw Error(
        ErrorKind::InvalidArgument,
        "item: expected a tensor with exactly one element, got shape " + dims_to_string(shape()));
  return *static_cast<const T*>(data_ptr());
}

#define TENFERRO_INSTANTIATE(T)                                   \
  template T* Tensor::data<T>() const;                            \
  template T Tensor::at<T>(std::span<const std::int64_t>) const;  \
  template void Tensor::set<T>(std::span<const std::int64_t>, T); \
  template std::vector<T> Tensor::to_vector<T>() const;           \
  template T Tensor::item<T>() const;
TENFERRO_INSTANTIATE(bool)
TENFERRO_INSTANTIATE(std::int32_t)
TENFERRO_INSTANTIATE(std::int64_t)
TENFERRO_INSTANTIATE(std::int8_t)
TENFERRO_INSTANTIATE(std::int16_t)
TENFERRO_INSTANTIATE(std::uint8_t)
TENFERRO_INSTANTIATE(std::uint16_t)
TENFERRO_INSTANTIATE(std::uint32_t)
TENFERRO_INSTANTIATE(std::uint64_t)
TENFERRO_INSTANTIATE(float)
TENFERRO_INSTANTIATE(double)
TENFERRO_INSTANTIATE(c64)
TENFERRO_INSTANTIATE(c128)
#undef TENFERRO_INSTANTIATE

namespace detail {
void copy_to_contiguous(const Tensor& src, void* dst, DType dst_dtype) {
  if (src.numel() == 0) return;
  const char* base = static_cast<const char*>(src.data_ptr());
  if (src.is_contiguous() && src.dtype() == dst_dtype) {
    std::memcpy(dst, base, static_cast<std::size_t>(src.numel()) * dtype_size(dst_dtype));
    return;
  }
  visit_dtype(src.dtype(), [&](auto s) {
    using S = decltype(s);
    visit_dtype(dst_dtype, [&](auto d) {
      using D = decltype(d);
      const S* in = reinterpret_cast<const S*>(base);
      D* out = static_cast<D*>(dst);
      for_each_offset(src.shape(), src.strides(), 0,
                      [&](std::int64_t off) { *out++ = convert_element<D>(in[off]); });
    });
  });
}
}  // namespace detail

}  // namespace tenferro
