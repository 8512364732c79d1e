// GEMM providers: who executes a canonical GEMM (Note [Canonical GEMM]).
//
// Note [Provider fall-through]: dot_general lowers to one GemmProblem and offers it to the
// providers in order. A provider answers `executed` after computing C, or `unsupported` --
// strictly BEFORE touching C or any shared state -- so the next one can take it. The built-in
// order is: small_fixed (m, n, k <= 8), openblas (large enough and expressible, possibly after
// packing), native_blocked (everything; the fallback, which never declines). The name of the
// provider that executed the last GEMM on this thread is tenferro::last_gemm_provider(); tests
// put their own providers in front with ProviderRegistryOverride. See docs/providers.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>

#include "cpu/admission.hpp"
#include "cpu/kernels/gemm.hpp"

namespace tenferro::detail {

enum class GemmStatus { executed, unsupported };

class GemmProvider {
 public:
  virtual ~GemmProvider() = default;
  /// Short stable name with static storage duration, e.g. "openblas".
  virtual std::string_view name() const noexcept = 0;
  /// Computes p.c and returns executed, or returns unsupported without writing anything.
  /// Throws tenferro::Error{BackendFailure} only for failures after it has started.
  virtual GemmStatus try_gemm(ExecContext& ctx, const GemmProblem& p) const = 0;
};

const GemmProvider& small_gemm_provider();
const GemmProvider& openblas_gemm_provider();
const GemmProvider& native_gemm_provider();
/// The built-in providers in dispatch order.
std::span<const GemmProvider* const> builtin_gemm_providers();
/// The providers dispatch uses on this thread (an override if one is live, else the built-ins).
std::span<const GemmProvider* const> active_gemm_providers() noexcept;

/// Test hook: makes `providers` (which must outlive the guard) the dispatch list on this thread
/// until destruction. Guards nest; destroy on the creating thread.
class ProviderRegistryOverride {
 public:
  explicit ProviderRegistryOverride(std::span<const GemmProvider* const> providers);
  ~ProviderRegistryOverride();
  ProviderRegistryOverride(const ProviderRegistryOverride&) = delete;
  ProviderRegistryOverride& operator=(const ProviderRegistryOverride&) = delete;

 private:
  std::span<const GemmProvider* const> previous_;
  bool had_previous_;
};

/// Runs p (any sizes, including empty and k == 0) through the active providers. Throws
/// Error{BackendFailure} when every provider declines.
void run_gemm(ExecContext& ctx, const GemmProblem& p);
/// run_gemm for a non-empty p whose small_fixed kernel was picked in advance (a prepared eager
/// GEMM): runs it directly unless a provider override is active, which then decides as usual.
void run_small_gemm(ExecContext& ctx, const GemmProblem& p, SmallGemmFn kernel);

/// The provider that ran this thread's last GEMM (last_gemm_provider()), and whether a provider
/// override (GemmProviderOverride) is active on it: gemm_dispatch.cpp's state, declared here so
/// that a prepared tiny GEMM reads it inline.
extern thread_local constinit std::string_view t_last_provider;
/// The small_fixed provider's name().
inline constexpr std::string_view kSmallGemmProviderName = "small_fixed";
extern thread_local constinit bool t_has_override;

/// Per-matrix multiply-adds from which the openblas provider takes a problem. Measured
/// (docs/providers.md): single-threaded OpenBLAS beats the native blocked kernel from about
/// 12^3 on; below ~10^3 its per-call overhead dominates.
inline constexpr std::int64_t kOpenBlasMinFlops = 1024;

/// Work (multiply-adds) below which a GEMM never fans out across threads.
inline constexpr std::int64_t kGemmParallelMinFlops = std::int64_t{1} << 16;

/// Splits p into units of (batch range, row range) and runs unit(b0, b1, r0, r1) on them, across
/// ctx's threads when the problem is large enough, else once inline over everything. Rows are
/// split only when there are fewer batches than threads (one big GEMM still uses every thread).
template <class Unit>
void run_gemm_units(ExecContext& ctx, const GemmProblem& p, Unit&& unit) {
  const std::int64_t batch = p.batch();
  const std::int64_t threads = ctx.threads();
  if (threads <= 1 || p.flops() < kGemmParallelMinFlops || !ctx.may_parallelize(p.flops())) {
    unit(std::int64_t{0}, batch, std::int64_t{0}, p.m);
    return;
  }
  if (batch >= threads) {
    const std::int64_t per_matrix = std::max<std::int64_t>(1, p.m * p.n * p.k);
    const std::int64_t grain = std::max<std::int64_t>(1, (kGemmParallelMinFlops / 4) / per_matrix);
    ctx.parallel_for_work(batch, grain, p.flops(), [&](std::int64_t b0, std::int64_t b1) {
      unit(b0, b1, std::int64_t{0}, p.m);
    });
    return;
  }
  // Few batches: split each matrix's rows into blocks of at least 16 rows.
  const std::int64_t want = (threads + batch - 1) / batch * 2;
  const std::int64_t row_block = std::max<std::int64_t>(16, (p.m + want - 1) / want);
  const std::int64_t blocks = (p.m + row_block - 1) / row_block;
  ctx.parallel_for_work(batch * blocks, 1, p.flops(), [&](std::int64_t u0, std::int64_t u1) {
    for (std::int64_t u = u0; u < u1; ++u) {
      const std::int64_t b = u / blocks, r0 = (u % blocks) * row_block;
      unit(b, b + 1, r0, std::min(p.m, r0 + row_block));
    }
  });
}

}  // namespace tenferro::detail
