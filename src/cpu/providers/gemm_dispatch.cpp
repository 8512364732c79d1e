// Provider dispatch (Note [Provider fall-through]) and the two native providers.
#include <cstring>
#include <string>

#include "cpu/providers/gemm_provider.hpp"
#include "tenferro/ops/contract.hpp"

namespace tenferro {
namespace detail {

thread_local constinit std::string_view t_last_provider = "none";
thread_local constinit bool t_has_override = false;

namespace {

thread_local std::span<const GemmProvider* const> t_override;

class SmallProvider final : public GemmProvider {
 public:
  std::string_view name() const noexcept override { return kSmallGemmProviderName; }
  GemmStatus try_gemm(ExecContext& ctx, const GemmProblem& p) const override {
    if (p.m > 8 || p.n > 8 || p.k > 8) return GemmStatus::unsupported;
    // m <= 8 never splits rows (row blocks hold >= 16 rows), so units are whole matrices.
    run_gemm_units(ctx, p, [&](std::int64_t b0, std::int64_t b1, std::int64_t, std::int64_t) {
      gemm_small(p, b0, b1);
    });
    return GemmStatus::executed;
  }
};

class NativeProvider final : public GemmProvider {
 public:
  std::string_view name() const noexcept override { return "native_blocked"; }
  GemmStatus try_gemm(ExecContext& ctx, const GemmProblem& p) const override {
    run_gemm_units(ctx, p, [&](std::int64_t b0, std::int64_t b1, std::int64_t r0, std::int64_t r1) {
      gemm_blocked(p, b0, b1, r0, r1);
    });
    return GemmStatus::executed;
  }
};

const SmallProvider kSmall;
const NativeProvider kNative;

void zero_fill(const GemmProblem& p) {
  const std::size_t item = dtype_size(p.dtype);
  BatchCursor cur(p, 0);
  for (std::int64_t b = 0, nb = p.batch(); b < nb; ++b, cur.next())
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j)
        std::memset(static_cast<char*>(p.c) +
                        (cur.c() + i * p.c_rs + j * p.c_cs) * static_cast<std::int64_t>(item),
                    0, item);
}

}  // namespace

const GemmProvider& small_gemm_provider() { return kSmall; }
const GemmProvider& native_gemm_provider() { return kNative; }

std::span<const GemmProvider* const> builtin_gemm_providers() {
  static const GemmProvider* const list[] = {&kSmall, &openblas_gemm_provider(), &kNative};
  return list;
}

std::span<const GemmProvider* const> active_gemm_providers() noexcept {
  return t_has_override ? t_override : builtin_gemm_providers();
}

ProviderRegistryOverride::ProviderRegistryOverride(std::span<const GemmProvider* const> providers)
    : previous_(t_override), had_previous_(t_has_override) {
  t_override = providers;
  t_has_override = true;
}
ProviderRegistryOverride::~ProviderRegistryOverride() {
  t_override = previous_;
  t_has_override = had_previous_;
}

void run_gemm(ExecContext& ctx, const GemmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.batch() == 0) return;
  if (p.k == 0) {
    zero_fill(p);
    return;
  }
  for (const GemmProvider* provider : active_gemm_providers()) {
    if (provider->try_gemm(ctx, p) == GemmStatus::executed) {
      t_last_provider = provider->name();
      return;
    }
  }
  throw Error(ErrorKind::BackendFailure,
              "dot_general: no GEMM provider accepted a " + std::string(dtype_name(p.dtype)) +
                  " problem with batch " + std::to_string(p.batch()) +
                  ", m=" + std::to_string(p.m) + ", n=" + std::to_string(p.n) +
                  ", k=" + std::to_string(p.k));
}

void run_small_gemm(ExecContext& ctx, const GemmProblem& p, SmallGemmFn kernel) {
  if (t_has_override) {
    run_gemm(ctx, p);
    return;
  }
  run_gemm_units(ctx, p, [&](std::int64_t b0, std::int64_t b1, std::int64_t, std::int64_t) {
    kernel(p, b0, b1);
  });
  t_last_provider = kSmall.name();
}

}  // namespace detail

std::string_view last_gemm_provider() noexcept { return detail::t_last_provider; }

}  // namespace tenferro
