// for_each_matrix, for_each_tile: Note [Linalg provider rules] in linalg_batch.hpp.
#include "cpu/kernels/linalg_batch.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "cpu/providers/openblas_threads.hpp"

namespace tenferro::detail::linalg {
namespace {

// Runs run_chunk(c, failure) for the chunks c in [0, chunks): inline for one chunk, else on the
// context's workers. Returns the failure with the lowest batch index over all chunks.
Failure run_chunks(ExecContext& ctx, I chunks, I total_work,
                   FunctionRef<void(I, Failure&)> run_chunk) {
  Failure first;
  if (chunks == 1) {
    run_chunk(0, first);
    return first;
  }
  std::mutex mu;
  ctx.parallel_for_work(chunks, 1, total_work, [&](I c0, I c1) {
    for (I c = c0; c < c1; ++c) {
      Failure f;
      run_chunk(c, f);
      if (f) {
        std::lock_guard<std::mutex> lock(mu);
        if (!first || f.batch < first.batch) first = f;
      }
    }
  });
  return first;
}

}  // namespace

Failure for_each_matrix(ExecContext& ctx, I count, I work, std::size_t ws_bytes, bool lapack,
                        FunctionRef<I(I, char*)> body) {
  if (count <= 0) return Failure{};
  const std::size_t slot = (std::max<std::size_t>(ws_bytes, 1) + 63) / 64 * 64;
  const bool parallel = ctx.may_parallelize(count * std::max<I>(work, 1)) && count > 1;
  const I chunks = parallel ? std::min<I>(count, ctx.threads()) : 1;
  // Workspace for every chunk up front: workers must not touch the engine's pool.
  StoragePtr ws(ctx.allocate(slot * static_cast<std::size_t>(chunks)));
  char* base = static_cast<char*>(ws->data);
  // OpenBLAS's threads only pay off (and only change rounding) on large matrices: below
  // kLapackThreadedWork even the blas kind calls it single-threaded, so results are bitwise
  // identical for every budget there.
  if (lapack)
    set_openblas_threads(ctx.kind() == BackendKind::blas && work >= kLapackThreadedWork
                             ? std::max(1, ctx.threads())
                             : 1);
  auto run_chunk = [&](I c, Failure& f) {
    const I b0 = count * c / chunks, b1 = count * (c + 1) / chunks;
    char* w = base + slot * static_cast<std::size_t>(c);
    for (I b = b0; b < b1; ++b) {
      const I info = body(b, w);
      if (info != 0 && f.batch < 0) f = Failure{b, info};
    }
  };
  return run_chunks(ctx, chunks, count * std::max<I>(work, 1), run_chunk);
}

Failure for_each_tile(ExecContext& ctx, I count, I lanes, I work, FunctionRef<Failure(I, I)> body) {
  if (count <= 0) return Failure{};
  const I tiles = (count + lanes - 1) / lanes;
  const I total = count * std::max<I>(work, 1);
  const bool parallel = ctx.may_parallelize(total) && tiles > 1;
  const I chunks = parallel ? std::min<I>(tiles, ctx.threads()) : 1;
  auto run_chunk = [&](I c, Failure& f) {
    const I t0 = tiles * c / chunks, t1 = tiles * (c + 1) / chunks;
    for (I t = t0; t < t1; ++t) {
      const I b0 = t * lanes;
      const Failure ft = body(b0, std::min(lanes, count - b0));
      if (ft && !f) f = ft;
    }
  };
  return run_chunks(ctx, chunks, total, run_chunk);
}

}  // namespace tenferro::detail::linalg
