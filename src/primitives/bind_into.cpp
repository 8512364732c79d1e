// bind_into(): run a primitive into a caller-provided tensor (the `_into` ops).
//
// Note [Writing into an existing tensor]: every check happens before any byte of `out` is
// written, so an error leaves `out` unchanged. The checks:
//   - operands are defined and concrete, and carry no autodiff/trace state: an in-place write is
//     not something the tape or the tracer can record (Unsupported); under NoGradGuard a tensor
//     that only requires grad is allowed (nothing records then; the version counter guards the
//     graphs that saved it);
//   - `out` has exactly the inferred shape and dtype (no broadcasting or conversion of `out`);
//   - `out` has no two elements at one address (a broadcast view cannot be written);
//   - `out` shares bytes with an input only when it is exactly the same view (storage, offset,
//     shape, strides, dtype). Elementwise kernels read element i of every input before writing
//     element i of the output, so that case is safe; any other overlap (a shifted or transposed
//     view of an input) would read already-overwritten values and is InvalidArgument. The test
//     is on address ranges, so interleaved views that never touch (even/odd slices) are also
//     rejected: conservative, never wrong.
// A write that passed the checks and was admitted bumps out's storage version (Note [Version
// counter] in tenferro/storage.hpp), so autodiff notices a saved tensor written this way.
// Primitives whose kernel writes strided outputs (Primitive::writes_strided_output) run
// directly into `out`; others run into a temporary that is then copied into `out`.
#include <algorithm>

#include "core/strided.hpp"
#include "core/tensor_aux.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/eager.hpp"

namespace tenferro {

bool writable_in_place(const Tensor& t) noexcept {
  const detail::TensorAux* a = t.aux().get();
  if (!a || a->empty()) return true;
  if (is_grad_enabled()) return false;
  for (; a; a = a->inner.get())
    if (a->kind == detail::AuxKind::forward || a->trace) return false;
  return true;
}

}  // namespace tenferro

namespace tenferro::detail {
namespace {

// State an in-place write would bypass. Under NoGradGuard reverse mode records nothing, so a
// tensor that only requires grad (a leaf, a recorded result) may be read or written in place, as
// a parameter update `with no_grad: w -= lr * w.grad` in PyTorch; a graph that saved it finds the
// write by its version (Note [Version counter]). A tangent or a trace must see every op, always.
bool carries_state(const Tensor& t) { return !writable_in_place(t); }

// Views are compared by the addresses they span, not by storage identity: two storages can
// share memory (a NumPy array wrapped without a copy and the tensor it was exported from, in the
// Python binding), and a shifted or reversed input over out's bytes was read after being written.
struct ByteRange {
  std::intptr_t lo, hi;  // [lo, hi)
};
ByteRange byte_range(const Tensor& t) {
  const auto size = static_cast<std::intptr_t>(dtype_size(t.dtype()));
  std::intptr_t lo = reinterpret_cast<std::intptr_t>(t.data_ptr()), hi = lo + size;
  for (std::size_t i = 0; i < t.shape().size(); ++i) {
    const auto ext = static_cast<std::intptr_t>((t.shape()[i] - 1) * t.strides()[i]) * size;
    (ext < 0 ? lo : hi) += ext;
  }
  return {lo, hi};
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.strides() == b.strides();
}

bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  const ByteRange x = byte_range(a), y = byte_range(b);
  return x.lo < y.hi && y.lo < x.hi;
}

// True when two distinct indices of t address the same element.
bool self_overlapping(const Tensor& t) {
  if (t.numel() <= 1) return false;
  SmallVector<std::pair<std::int64_t, std::int64_t>, 6> dims;  // (|stride|, size)
  for (std::size_t i = 0; i < t.shape().size(); ++i)
    if (t.shape()[i] > 1) dims.push_back({std::abs(t.strides()[i]), t.shape()[i]});
  std::sort(dims.begin(), dims.end());
  std::int64_t extent = 1;  // elements spanned by the dims seen so far
  for (auto [stride, size] : dims) {
    if (stride < extent) return true;
    extent += (size - 1) * stride;
  }
  return false;
}

void check_into(const Primitive& p, std::span<const Tensor> in, const Tensor& out,
                const char* name) {
  auto fail = [&](ErrorKind kind, const std::string& what) {
    throw Error(kind, std::string(name) + ": " + what + " (inputs: " + describe(in) +
                          "; out: " + describe(std::span<const Tensor>(&out, 1)) + ")");
  };
  if (!out.defined()) fail(ErrorKind::InvalidArgument, "the output tensor is undefined");
  for (const Tensor& t : in)
    if (!t.defined()) fail(ErrorKind::InvalidArgument, "an input tensor is undefined");
  for (const Tensor& t : in)
    if (carries_state(t))
      fail(ErrorKind::Unsupported,
           "an input requires grad, carries a tangent or is traced; in-place writes are not "
           "recorded, use the allocating op (under NoGradGuard a tensor that only requires grad "
           "may be read and written)");
  if (carries_state(out))
    fail(ErrorKind::Unsupported,
         "the output requires grad, carries a tangent or is traced; in-place writes are not "
         "recorded (under NoGradGuard a tensor that only requires grad may be written)");
  if (!out.has_storage()) fail(ErrorKind::InvalidArgument, "the output has no storage");
  for (const Tensor& t : in)
    if (!t.has_storage()) fail(ErrorKind::InvalidArgument, "an input has no storage");
  SpecList specs;
  infer_specs(p, in, specs);
  if (specs.size() != 1)
    fail(ErrorKind::Unsupported, "only single-output operations can write into a tensor");
  if (!(specs[0].shape == out.shape()))
    fail(ErrorKind::ShapeMismatch, "the result has shape " + dims_to_string(specs[0].shape) +
                                       " but out has shape " + dims_to_string(out.shape()) +
                                       "; expected equal shapes");
  if (specs[0].dtype != out.dtype())
    fail(ErrorKind::DTypeMismatch,
         "the result has dtype " + std::string(dtype_name(specs[0].dtype)) + " but out has dtype " +
             std::string(dtype_name(out.dtype())) + "; expected equal dtypes");
  if (self_overlapping(out))
    fail(ErrorKind::InvalidArgument, "out has strides " + dims_to_string(out.strides()) +
                                         " that map several elements to one address; expected a "
                                         "writable (non-broadcast) view");
  for (const Tensor& t : in)
    if (overlaps(t, out) && !same_view(t, out))
      fail(ErrorKind::InvalidArgument,
           "out overlaps an input without being exactly the same view; expected out to be "
           "disjoint from the inputs or identical to one of them");
}

void copy_into_strided(const Tensor& src, Tensor& dst) {
  visit_dtype(dst.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* s = static_cast<const T*>(src.data_ptr());
    T* d = static_cast<T*>(dst.data_ptr());
    for_each_offset(dst.shape(), dst.strides(), 0, [&](std::int64_t off) { d[off] = *s++; });
  });
}

}  // namespace

void bind_into(const Primitive& p, std::span<const Tensor> in, Tensor& out, const char* name) {
  check_into(p, in, out, name);
  if (out.numel() == 0) return;
  run_operation(current_backend(), [&](ExecContext& ctx) {
    // Admitted: the write happens now (Note [Version counter] in tenferro/storage.hpp).
    out.storage()->note_write(name);
    if (p.writes_strided_output()) {
      p.execute(ctx, in, std::span<Tensor>(&out, 1));
    } else {
      TensorList tmp = execute_in(ctx, p, in);
      copy_into_strided(tmp[0], out);
    }
  });
}

}  // namespace tenferro::detail
