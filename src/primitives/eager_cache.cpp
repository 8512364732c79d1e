// The eager cache (Note [Eager cache] in eager_cache.hpp).
#include "primitives/eager_cache.hpp"

#include <bit>

#include "core/alloc.hpp"

namespace tenferro::detail {
namespace {

// Element loops, not memcmp: layouts are a few dimensions.
bool same_dims(const Dims& a, const Dims& b) noexcept {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}
bool same_layout(const InputLayout& l, const Tensor& t) noexcept {
  return l.dtype == t.dtype() && same_dims(l.shape, t.shape()) && same_dims(l.strides, t.strides());
}
bool same_layout(const InputLayout& a, const InputLayout& b) noexcept {
  return a.dtype == b.dtype && same_dims(a.shape, b.shape) && same_dims(a.strides, b.strides);
}
// The key keeps its primitive alive, so a probe with that very object needs no comparison.
bool same_primitive(const Primitive& probe, const Primitive& kept) {
  return &probe == &kept || probe.same_as(kept);
}

// Outputs from the cached layouts, then the kernel; running out of memory in either is
// OutOfMemory naming the op (as on the full path).
void run_entry(ExecContext& ctx, const Primitive& p, EagerEntry& e, InputRefs in,
               std::span<const Tensor> in_span, TensorList& out) {
  translate_heap_failure(p.name(), [&] {
    for (const OutputLayout& o : e.outputs)
      out.emplace_back().set_layout_unchecked(StoragePtr(ctx.allocate(o.bytes)), o.shape, o.strides,
                                              o.numel, o.dtype);
    if (e.kernel) {
      e.kernel->run(ctx, in, out);
    } else if (in_span.size() == in.size()) {
      p.execute(ctx, in_span, out);
    } else {
      TensorList held;
      for (const Tensor* t : in) held.push_back(*t);
      p.execute(ctx, held, out);
    }
  });
}

EagerKey make_key(std::uint64_t hash, const Primitive& p, std::span<const Tensor> in) {
  EagerKey k;
  k.hash = hash;
  k.primitive = p.share();
  for (const Tensor& t : in) k.inputs.push_back({t.dtype(), t.shape(), t.strides()});
  return k;
}

}  // namespace

std::uint64_t eager_key_hash(const Primitive& p, InputRefs in) noexcept {
  // Dimensions fold in with a rotate-xor (two instructions each) and each input is mixed once: a
  // collision costs only a layout comparison, and this runs on every eager call.
  KeyHasher h;
  h.add(p.params_hash());
  for (const Tensor* t : in) {
    const Dims& shape = t->shape();
    const Dims& strides = t->strides();
    std::uint64_t w = static_cast<std::uint64_t>(t->dtype()) | shape.size() << 8;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      w = std::rotl(w, 7) ^ static_cast<std::uint64_t>(shape[i]);
      w = std::rotl(w, 7) ^ static_cast<std::uint64_t>(strides[i]);
    }
    h.add(w);
  }
  return h.h;
}

bool EagerKeyEq::operator()(const EagerKey& a, const EagerKey& b) const {
  if (a.hash != b.hash || a.inputs.size() != b.inputs.size()) return false;
  for (std::size_t i = 0; i < a.inputs.size(); ++i)
    if (!same_layout(a.inputs[i], b.inputs[i])) return false;
  return same_primitive(*a.primitive, *b.primitive);
}

bool EagerKeyEq::operator()(const EagerProbe& a, const EagerKey& b) const {
  if (a.hash != b.hash || a.inputs.size() != b.inputs.size()) return false;
  for (std::size_t i = 0; i < a.inputs.size(); ++i)
    if (!same_layout(b.inputs[i], *a.inputs[i])) return false;
  return same_primitive(a.primitive, *b.primitive);
}

void eager_execute(ExecContext& ctx, const Primitive& p, InputRefs in,
                   std::span<const Tensor> in_span, TensorList& out) {
  auto& cache = ctx.cache<EagerCache>().map;
  const std::uint64_t hash = eager_key_hash(p, in);
  if (EagerEntry* hit = cache.find(EagerProbe{hash, p, in})) {
    run_entry(ctx, p, *hit, in, in_span, out);
    return;
  }
  // Miss: validate and infer (may throw: nothing is cached), then cache and run.
  TensorList held;
  if (in_span.size() != in.size()) {
    for (const Tensor* t : in) held.push_back(*t);
    in_span = held;
  }
  SpecList specs;
  infer_specs(p, in_span, specs);
  EagerEntry* kept = translate_heap_failure(p.name(), [&] {
    EagerEntry entry;
    for (const TensorSpec& s : specs) {
      OutputLayout o;
      o.dtype = s.dtype;
      o.shape = s.shape;
      o.strides = contiguous_strides(s.shape);
      o.numel = dims_numel(s.shape);
      o.bytes = checked_bytes(s.shape, s.dtype, p.name());
      entry.outputs.push_back(std::move(o));
    }
    entry.kernel = p.prepare(in_span, specs);
    return cache.insert(make_key(hash, p, in_span), std::move(entry));
  });
  run_entry(ctx, p, *kept, in, in_span, out);
}

}  // namespace tenferro::detail
