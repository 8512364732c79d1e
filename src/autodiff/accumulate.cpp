// Cotangent accumulation: a private same-shape add primitive, so that backward does not depend on
// the elementwise family and accumulations are seen by the forward interpreter and the tracer
// like any other op (Note [Forward over reverse]).
#include "autodiff/tape.hpp"
#include "core/alloc.hpp"
#include "core/strided.hpp"

namespace tenferro::detail {
namespace {

class AccumulatePrim final : public PrimitiveWith<AccumulatePrim> {
 public:
  std::string_view name() const override { return "ad_accumulate"; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    if (!(in[0].shape() == in[1].shape()) || in[0].dtype() != in[1].dtype())
      throw Error(
          ErrorKind::ShapeMismatch,
          "ad_accumulate: expected two tensors of equal shape and dtype, got " + describe(in));
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    if (out[0].numel() == 0) return;
    copy_to_contiguous(in[0], out[0].data_ptr(), out[0].dtype());
    visit_float_dtype(out[0].dtype(), [&](auto z) {
      using T = decltype(z);
      T* dst = static_cast<T*>(out[0].data_ptr());
      const T* src = static_cast<const T*>(in[1].storage()->data);
      if (in[1].is_contiguous()) {
        src += in[1].offset();
        for (std::int64_t i = 0, n = out[0].numel(); i < n; ++i) dst[i] += src[i];
        return;
      }
      std::int64_t k = 0;
      for_each_offset(in[1].shape(), in[1].strides(), in[1].offset(),
                      [&](std::int64_t off) { dst[k++] += src[off]; });
    });
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined() && t[1].defined())
      out_t[0] = accumulate(t[0], t[1]);
    else
      out_t[0] = t[0].defined() ? t[0] : t[1];
  }
  void vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (needs[0]) in_ct[0] = ct[0];
    if (needs[1]) in_ct[1] = ct[0];
  }
};

}  // namespace

Tensor unit_seed(const Tensor& out, const char* api) {
  // One element, so contiguous: the seed shares out's layout record (immutable, Note [Layout
  // record]) instead of building one from its shape.
  Tensor seed;
  if (out.is_contiguous() && out.numel() == 1)
    seed.set_layout_unchecked(StoragePtr(heap_storage_for(dtype_size(out.dtype()), api)),
                              out.layout_ref());
  else
    seed = empty_for(out.shape(), out.dtype(), api);
  visit_float_dtype(out.dtype(), [&](auto z) {
    using T = decltype(z);
    *static_cast<T*>(seed.data_ptr()) = T(1);
  });
  return seed;
}

Tensor accumulate(const Tensor& a, const Tensor& b) { return bind1(AccumulatePrim(), {a, b}); }

bool accumulates_in_place(const Tensor& acc, const Tensor& v) noexcept {
  // Small tensors only: large sums go through the backend (parallel loops); rank <= 6 keeps the
  // strided walk free of allocation (noexcept).
  // Only into memory the library allocated: a storage wrapping a NumPy array or a DLPack
  // capsule can be held by its owner outside any count (a cotangent passed as a NumPy array
  // would be overwritten by the next accumulation).
  if (acc.aux() || v.aux() || !acc.has_storage() || !v.has_storage() ||
      !acc.storage()->library_owned || acc.numel() > (std::int64_t{1} << 15) || v.rank() > 6 ||
      !acc.is_contiguous())
    return false;
  // Note [Twin cotangents]: v may be acc itself (a rule that gives two inputs one cotangent,
  // x * x or x + x): the same elements in the same order, held by these two handles only, so
  // acc[i] += acc[i] reads each element before it writes it and nobody else sees the doubling.
  if (acc.storage().get() == v.storage().get())
    return acc.storage().use_count() == 2 && acc.layout() == v.layout() &&
           acc.offset() == v.offset();
  return acc.storage().use_count() == 1 && acc.shape() == v.shape() && acc.dtype() == v.dtype();
}

void accumulate_in_place(Tensor& acc, const Tensor& v) noexcept {
  // Nobody else holds acc's storage (accumulates_in_place), so no saved tensor can see this
  // write; it is counted all the same (Note [Version counter] in tenferro/storage.hpp).
  acc.storage()->note_write("backward (in-place gradient accumulation)");
  visit_float_dtype(acc.dtype(), [&](auto z) {
    using T = decltype(z);
    T* dst = static_cast<T*>(acc.storage()->data) + acc.offset();
    const T* src = static_cast<const T*>(v.storage()->data);
    if (v.is_contiguous()) {
      src += v.offset();
      for (std::int64_t i = 0, n = acc.numel(); i < n; ++i) dst[i] += src[i];
      return;
    }
    std::int64_t k = 0;
    for_each_offset(v.shape(), v.strides(), v.offset(),
                    [&](std::int64_t off) { dst[k++] += src[off]; });
  });
}

}  // namespace tenferro::detail
