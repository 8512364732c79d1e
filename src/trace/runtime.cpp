// Runtime: identity, epoch, backend and the prepared-plan cache (Note [Runtime epoch]).
//
// Note [Runtime epoch]: a plan is valid for the runtime that prepared it and for the epoch at
// which it did (the epoch grows on every reconfigure()/set_backend()). run() compares both with
// the runtime's current values before touching anything, so a stale plan can never execute on a
// backend it was not prepared for. The plan keeps a copy of that backend, so run() needs no lock.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <span>
#include <vector>

#include "cpu/bounded_cache.hpp"
#include "trace/plan.hpp"
#include "trace/trace_state.hpp"

namespace tenferro {
namespace detail {

namespace {
std::atomic<std::uint64_t> g_next_runtime_id{1};

std::uint64_t hash_specs(std::uint64_t h, std::span<const ValueSpec> specs) {
  for (const ValueSpec& s : specs) {
    h = (h ^ static_cast<std::uint64_t>(s.dtype)) * 0x100000001b3ull;
    for (auto d : s.shape) h = (h ^ static_cast<std::uint64_t>(d)) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;
  }
  return h;
}
}  // namespace

// The plan cache's key: a hash of (program fingerprint, input specs, runtime identity, epoch),
// with the source program and input specs kept to rule out hash collisions. The owning runtime
// also drops every entry when its epoch grows. A lookup probes with the caller's program and specs
// (no copy); only an insert copies them.
struct PlanKey {
  std::uint64_t hash;
  Program program;
  std::vector<ValueSpec> inputs;
};
struct PlanProbe {
  std::uint64_t hash;
  const Program& program;
  std::span<const ValueSpec> inputs;
};
struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const noexcept { return k.hash; }
  std::size_t operator()(const PlanProbe& k) const noexcept { return k.hash; }
};
struct PlanKeyEq {
  static bool same(std::uint64_t h1, const Program& p1, std::span<const ValueSpec> s1,
                   std::uint64_t h2, const Program& p2, std::span<const ValueSpec> s2) {
    return h1 == h2 && std::equal(s1.begin(), s1.end(), s2.begin(), s2.end()) &&
           structurally_equal(p1, p2);
  }
  bool operator()(const PlanKey& a, const PlanKey& b) const {
    return same(a.hash, a.program, a.inputs, b.hash, b.program, b.inputs);
  }
  bool operator()(const PlanProbe& a, const PlanKey& b) const {
    return same(a.hash, a.program, a.inputs, b.hash, b.program, b.inputs);
  }
  bool operator()(const PlanKey& a, const PlanProbe& b) const { return (*this)(b, a); }
};
using PlanCache = BoundedCache<PlanKey, std::shared_ptr<const Plan>, PlanKeyHash, PlanKeyEq>;

PlanCacheStats to_public(const CacheStats& s) {
  return {s.hits, s.misses, s.evictions, s.size, s.capacity};
}

struct RuntimeState {
  RuntimeState(CpuBackend b, std::size_t capacity) : backend(std::move(b)), cache(capacity) {}
  const std::uint64_t id = g_next_runtime_id.fetch_add(1);
  std::atomic<std::uint64_t> epoch{0};
  std::mutex mu;  // guards backend, cache and epoch changes
  CpuBackend backend;
  PlanCache cache;
};

}  // namespace detail

// ---- PreparedProgram ----

namespace {
const detail::Plan& checked(const std::shared_ptr<const detail::Plan>& p) {
  if (!p) throw Error(ErrorKind::RuntimeState, "PreparedProgram: empty (default-constructed) plan");
  return *p;
}
}  // namespace

std::span<const ValueSpec> PreparedProgram::input_specs() const {
  return checked(plan_).input_specs;
}
std::span<const ValueSpec> PreparedProgram::output_specs() const {
  return checked(plan_).output_specs;
}
const Program& PreparedProgram::program() const { return checked(plan_).program; }
std::size_t PreparedProgram::workspace_bytes() const { return checked(plan_).workspace_bytes; }
std::size_t PreparedProgram::kernel_steps() const { return checked(plan_).kernel_steps; }

// ---- Runtime ----

Runtime::Runtime() : Runtime(default_backend()) {}
Runtime::Runtime(CpuBackend backend, std::size_t capacity)
    : state_(std::make_shared<detail::RuntimeState>(std::move(backend), capacity)) {}
Runtime::Runtime(RuntimeOptions o) : Runtime(CpuBackend(o.backend), o.plan_cache_capacity) {}

std::uint64_t Runtime::id() const noexcept { return state_->id; }
std::uint64_t Runtime::epoch() const noexcept {
  return state_->epoch.load(std::memory_order_acquire);
}
CpuBackend Runtime::backend() const {
  std::lock_guard lock(state_->mu);
  return state_->backend;
}

void Runtime::set_backend(CpuBackend backend) {
  std::lock_guard lock(state_->mu);
  state_->backend = std::move(backend);
  state_->epoch.fetch_add(1, std::memory_order_acq_rel);
  state_->cache.clear();  // every entry is of an older epoch now
}
void Runtime::reconfigure(const CpuBackendOptions& options) { set_backend(CpuBackend(options)); }

PlanCacheStats Runtime::cache_stats() const {
  std::lock_guard lock(state_->mu);
  return detail::to_public(state_->cache.stats());
}
void Runtime::clear_cache() {
  std::lock_guard lock(state_->mu);
  state_->cache.clear();
}

PreparedProgram Runtime::prepare(const Program& p) { return prepare(p, p.input_specs); }

PreparedProgram Runtime::prepare(const Program& p, std::span<const ValueSpec> inputs) {
  const std::uint64_t shape_key = detail::hash_specs(p.fingerprint(), inputs);
  std::lock_guard lock(state_->mu);
  PreparedProgram out;
  out.runtime_id_ = state_->id;
  out.epoch_ = state_->epoch.load(std::memory_order_relaxed);
  // The full key: (fingerprint, input specs, runtime identity, epoch).
  const std::uint64_t key =
      ((shape_key ^ out.runtime_id_) * 0x100000001b3ull ^ out.epoch_) * 0x100000001b3ull;
  if (const auto* hit = state_->cache.find(detail::PlanProbe{key, p, inputs})) {
    out.plan_ = *hit;
    return out;
  }
  std::shared_ptr<detail::Plan> plan = detail::build_plan(optimize(p), inputs);
  plan->runtime_id = out.runtime_id_;
  plan->epoch = out.epoch_;
  plan->backend = state_->backend;
  plan->release(detail::make_workspace(*plan));  // the first run finds a workspace ready
  state_->cache.insert({key, p, {inputs.begin(), inputs.end()}}, plan);
  out.plan_ = std::move(plan);
  return out;
}

void Runtime::run_into(const PreparedProgram& prepared, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const {
  const detail::Plan& plan = checked(prepared.plan_);
  if (plan.runtime_id != state_->id)
    throw Error(ErrorKind::RuntimeState,
                "run: the program was prepared on runtime #" + std::to_string(plan.runtime_id) +
                    " and cannot run on runtime #" + std::to_string(state_->id) +
                    "; prepare it on this runtime");
  std::uint64_t now = state_->epoch.load(std::memory_order_acquire);
  if (plan.epoch != now)
    throw Error(ErrorKind::RuntimeState, "run: the program was prepared at epoch " +
                                             std::to_string(plan.epoch) + " of runtime #" +
                                             std::to_string(state_->id) +
                                             ", which was reconfigured since (epoch " +
                                             std::to_string(now) + "); prepare it again");
  detail::check_args(inputs, plan.input_specs, "run");
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].has_storage())
      throw Error(
          ErrorKind::InvalidArgument,
          "run: input " + std::to_string(i) + " is symbolic (traced); run needs concrete tensors");
  if (outputs.size() != plan.results.size())
    throw Error(ErrorKind::InvalidArgument, "run: expected room for " +
                                                std::to_string(plan.results.size()) +
                                                " outputs, got " + std::to_string(outputs.size()));

  struct Lease {  // gives the workspace back, with no reference to this run's tensors left in it
    const detail::Plan& plan;
    detail::Workspace* ws;
    ~Lease() {
      detail::reset_dynamic(plan, *ws);
      plan.release(ws);
    }
  } lease{plan, plan.acquire()};
  detail::run_operation(plan.backend,
                        [&](detail::ExecContext& ctx) { plan.execute(ctx, *lease.ws, inputs); });
  std::span<Tensor> res = detail::workspace_results(*lease.ws);
  for (std::size_t k = 0; k < outputs.size(); ++k) outputs[k] = std::move(res[k]);
}

std::vector<Tensor> Runtime::run(const PreparedProgram& prepared,
                                 std::span<const Tensor> inputs) const {
  std::vector<Tensor> out(prepared.plan_ ? prepared.plan_->results.size() : 0);
  run_into(prepared, inputs, out);
  return out;
}

}  // namespace tenferro
