// The eager interpreter's per-engine cache of what an op call recomputes from layouts alone.
//
// Note [Eager cache]
// ~~~~~~~~~~~~~~~~~~
// An eager call on plain concrete tensors used to infer the output specs, size and stride the
// outputs, and (for dot_general) lower the contraction to a GEMM problem on every call, although
// all of it depends only on the primitive's typed parameters (Note [Typed params]) and the inputs'
// layouts: dtypes, shapes and strides -- never on data or storage offsets. The engine keeps a
// bounded LRU (ctx.cache<EagerCache>(), BoundedCache) from (params, layouts) to an entry holding
// the output layouts and, when the primitive offers one, a PreparedKernel (Primitive::prepare).
// A hit allocates the outputs from the cached layouts and runs the prepared kernel (or execute());
// a miss runs the full path -- infer (which validates and may throw: nothing is cached then),
// allocate, execute -- and inserts the entry. Because the key holds everything infer() reads, a
// hit can skip it: the same layouts passed validation before. Lookups probe with the caller's
// tensors (no key is built); only an insert shares the inputs' layout records and the primitive.
// Layouts compare by record first (Note [Layout record]): in a loop the inputs usually carry the
// very records the key holds, the outputs of an earlier hit; other records compare dtype, shape
// and strides. The hash is the records' own (made once per record). Before any hashing, the
// kEagerRecentSlots most recently used entries are tried with pointer comparisons alone
// (BoundedCache::find_recent): an op in a loop, or the few ops of an autodiff step, find
// themselves there. A hashed hit stores the caller's records in the key (Note [Refreshed key
// records] in eager_cache.cpp), so the next use of the same values also hits by pointer.
// The cache lives in the engine, so it is reached only under the engine borrow (no locking) and a
// prepared kernel may keep scratch state. Capacity: kEagerCacheCapacity entries per engine.
#pragma once

#include <cstdint>
#include <memory>

#include "cpu/bounded_cache.hpp"
#include "primitives/primitive.hpp"

namespace tenferro::detail {

inline constexpr std::size_t kEagerCacheCapacity = 256;
/// How many most recently used entries a lookup tries by pointer before hashing (Note [Eager
/// cache]): enough for the distinct ops of a small autodiff step (sum(bmm): five).
inline constexpr std::size_t kEagerRecentSlots = 6;

/// One output's cached layout: everything a fresh contiguous output needs. Every output of
/// every hit shares this record (Note [Layout record]).
struct OutputLayout {
  LayoutRef layout;
  std::size_t bytes = 0;
};

struct EagerKey {
  std::uint64_t hash = 0;
  std::shared_ptr<const Primitive> primitive;
  SmallVector<LayoutRef, 3> inputs;  // the records of the inputs it was made from
};

/// A lookup by the caller's primitive and tensors.
struct EagerProbe {
  std::uint64_t hash;
  const Primitive& primitive;
  InputRefs inputs;
};

struct EagerKeyHash {
  std::size_t operator()(const EagerKey& k) const noexcept { return k.hash; }
  std::size_t operator()(const EagerProbe& k) const noexcept { return k.hash; }
};
struct EagerKeyEq {
  bool operator()(const EagerKey& a, const EagerKey& b) const;
  bool operator()(const EagerProbe& a, const EagerKey& b) const;
  bool operator()(const EagerKey& a, const EagerProbe& b) const { return (*this)(b, a); }
};

struct EagerEntry {
  SmallVector<OutputLayout, 2> outputs;
  std::unique_ptr<PreparedKernel> kernel;  // null: Primitive::execute
};

struct EagerCache {
  BoundedCache<EagerKey, EagerEntry, EagerKeyHash, EagerKeyEq> map{kEagerCacheCapacity};
  void clear() { map.clear(); }
};

/// The key hash of (primitive, input layouts).
std::uint64_t eager_key_hash(const Primitive& p, InputRefs in) noexcept;

/// The eager interpreter's body inside an admitted operation: fills `out` (empty on entry) with
/// p's outputs on `in`, through the cache. `in_span` is the same inputs as a span when the caller
/// has one (execute() takes a span; without it a hit that has no prepared kernel copies handles).
void eager_execute(ExecContext& ctx, const Primitive& p, InputRefs in,
                   std::span<const Tensor> in_span, TensorList& out);

}  // namespace tenferro::detail
