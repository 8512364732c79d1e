// Runtime: identity, epoch, backend and the prepared-plan cache (Note [Runtime epoch]).
//
// Note [Runtime epoch]: a plan is valid for the runtime that prepared it and for the epoch at
// which it did (the epoch grows on every reconfigure()/set_backend()). run() compares both with
// the runtime's current values before touching anything, so a stale plan can never execute on a
// backend it was not prepared for. The plan keeps a copy of that backend, so run() needs no lock.
#include <atomic>
#include <list>
#include <mutex>
#include <unordered_map>

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

// Bounded LRU of plans, keyed by a hash of (program fingerprint, input specs, runtime identity,
// epoch). The owning runtime also drops every entry when its epoch grows. Entries keep the source
// program and input specs to rule out hash collisions.
class PlanCache {
 public:
  struct Entry {
    std::uint64_t key;
    Program program;
    std::vector<ValueSpec> inputs;
    std::shared_ptr<const Plan> plan;
  };

  explicit PlanCache(std::size_t capacity) : capacity_(capacity) {}

  std::shared_ptr<const Plan> find(std::uint64_t key, const Program& p,
                                   std::span<const ValueSpec> inputs) {
    auto [b, e] = index_.equal_range(key);
    for (auto it = b; it != e; ++it) {
      Entry& entry = *it->second;
      if (std::equal(entry.inputs.begin(), entry.inputs.end(), inputs.begin(), inputs.end()) &&
          structurally_equal(entry.program, p)) {
        lru_.splice(lru_.begin(), lru_, it->second);
        ++stats_.hits;
        return entry.plan;
      }
    }
    ++stats_.misses;
    return nullptr;
  }
  void insert(std::uint64_t key, const Program& p, std::span<const ValueSpec> inputs,
              std::shared_ptr<const Plan> plan) {
    if (capacity_ == 0) return;
    lru_.push_front({key, p, {inputs.begin(), inputs.end()}, std::move(plan)});
    index_.emplace(key, lru_.begin());
    while (lru_.size() > capacity_) {
      auto last = std::prev(lru_.end());
      auto [b, e] = index_.equal_range(last->key);
      for (auto it = b; it != e; ++it)
        if (it->second == last) {
          index_.erase(it);
          break;
        }
      lru_.pop_back();
      ++stats_.evictions;
    }
  }
  void clear() {
    lru_.clear();
    index_.clear();
  }
  PlanCacheStats stats() const {
    PlanCacheStats s = stats_;
    s.size = lru_.size();
    s.capacity = capacity_;
    return s;
  }

 private:
  std::size_t capacity_;
  std::list<Entry> lru_;
  std::unordered_multimap<std::uint64_t, std::list<Entry>::iterator> index_;
  PlanCacheStats stats_;
};

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
  return state_->cache.stats();
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
  out.plan_ = state_->cache.find(key, p, inputs);
  if (out.plan_) return out;
  std::shared_ptr<detail::Plan> plan = detail::build_plan(optimize(p), inputs);
  plan->runtime_id = out.runtime_id_;
  plan->epoch = out.epoch_;
  plan->backend = state_->backend;
  plan->release(detail::make_workspace(*plan));  // the first run finds a workspace ready
  state_->cache.insert(key, p, inputs, plan);
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
