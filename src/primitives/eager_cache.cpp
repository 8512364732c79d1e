// The eager cache (Note [Eager cache] in eager_cache.hpp).
#include "primitives/eager_cache.hpp"

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
// Offsets are not part of a layout record (Note [Layout record]), so equal records mean equal
// keys. Null is an undefined input's.
bool same_layout(const Layout* a, const Layout* b) noexcept {
  return a == b || (a && b && a->hash == b->hash && a->dtype == b->dtype &&
                    same_dims(a->shape, b->shape) && same_dims(a->strides, b->strides));
}
// The key keeps its primitive alive, so a probe with that very object needs no comparison.
bool same_primitive(const Primitive& probe, const Primitive& kept) {
  return &probe == &kept || probe.same_as(kept);
}

// Outputs from the cached layouts, then the kernel; running out of memory in either is
// OutOfMemory naming the op (as on the full path).
void run_entry(ExecContext& ctx, const Primitive& p, EagerEntry& e, InputRefs in,
               std::span<const Tensor> in_span, TensorList& out) {
  translate_heap_failure(p, [&] {
    for (const OutputLayout& o : e.outputs)
      out.emplace_back().set_layout_unchecked(StoragePtr(ctx.allocate(o.bytes)), o.layout);
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
  for (const Tensor& t : in) k.inputs.push_back(t.layout_ref());
  return k;
}

}  // namespace

std::uint64_t eager_key_hash(const Primitive& p, InputRefs in) noexcept {
  // Each input's record carries its layout's hash (Note [Layout record]); it is mixed once.
  KeyHasher h;
  h.add(p.params_hash());
  for (const Tensor* t : in) h.add(t->defined() ? t->layout()->hash : 0);
  return h.h;
}

bool EagerKeyEq::operator()(const EagerKey& a, const EagerKey& b) const {
  if (a.hash != b.hash || a.inputs.size() != b.inputs.size()) return false;
  for (std::size_t i = 0; i < a.inputs.size(); ++i)
    if (!same_layout(a.inputs[i].get(), b.inputs[i].get())) return false;
  return same_primitive(*a.primitive, *b.primitive);
}

bool EagerKeyEq::operator()(const EagerProbe& a, const EagerKey& b) const {
  if (a.hash != b.hash || a.inputs.size() != b.inputs.size()) return false;
  for (std::size_t i = 0; i < a.inputs.size(); ++i)
    if (!same_layout(a.inputs[i]->layout(), b.inputs[i].get())) return false;
  return same_primitive(a.primitive, *b.primitive);
}

void eager_execute(ExecContext& ctx, const Primitive& p, InputRefs in,
                   std::span<const Tensor> in_span, TensorList& out) {
  auto& cache = ctx.cache<EagerCache>().map;
  // The recent slots: an op repeated in a loop meets its own entry among the last few, usually
  // with the very layout records it holds (the outputs of an earlier hit, or the same inputs).
  // Records compared by pointer only, so this hashes nothing; anything else falls through to the
  // full lookup.
  const auto same_records = [&](const EagerKey& k) {
    if (k.inputs.size() != in.size()) return false;
    for (std::size_t i = 0; i < in.size(); ++i)
      if (k.inputs[i].get() != in[i]->layout()) return false;
    return same_primitive(p, *k.primitive);
  };
  if (EagerEntry* hit = cache.find_recent(same_records, kEagerRecentSlots)) {
    run_entry(ctx, p, *hit, in, in_span, out);
    return;
  }
  const std::uint64_t hash = eager_key_hash(p, in);
  if (auto [key, hit] = cache.find_entry(EagerProbe{hash, p, in}); hit != nullptr) {
    // Note [Refreshed key records]: the key now holds the records this call brought (equal
    // layouts, so the hash and every comparison stay as they were). A value that is made anew
    // each time with a fresh record (a broadcast view of a cotangent in a backward pass) then
    // meets its entry in the recent slots when it is used again before it dies.
    for (std::size_t i = 0; i < in.size(); ++i)
      if (key->inputs[i].get() != in[i]->layout()) key->inputs[i] = in[i]->layout_ref();
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
      o.bytes = checked_bytes(s.shape, s.dtype, p.name());
      o.layout = make_contiguous_layout(s.shape, s.dtype);
      entry.outputs.push_back(std::move(o));
    }
    entry.kernel = p.prepare(in_span, specs);
    return cache.insert(make_key(hash, p, in_span), std::move(entry));
  });
  run_entry(ctx, p, *kept, in, in_span, out);
}

}  // namespace tenferro::detail
