// Public einsum entry points: einsum, einsum_path, prepare_einsum and EinsumPlan.
//
// Note [Einsum plan cache]: eager einsum(spec, ...) looks its program up in a small per-thread,
// direct-mapped cache keyed by (spec, shapes, dtypes, options), so repeating an expression on
// same-shaped operands skips parsing, path search and lowering and allocates nothing but what
// the catalog ops allocate. Entries are immutable shared programs; a miss overwrites its bucket.
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "einsum/program.hpp"

namespace tenferro {
namespace detail {

struct EinsumPlanAccess {
  static EinsumPlan make(std::shared_ptr<const EinsumProgram> p) {
    EinsumPlan plan;
    plan.program_ = std::move(p);
    return plan;
  }
  static const EinsumProgram& program(const EinsumPlan& plan) {
    if (!plan.program_)
      throw Error(ErrorKind::RuntimeState, "einsum plan: the plan is empty (default-constructed)");
    return *plan.program_;
  }
};

namespace {

using einsum::Shape;

std::shared_ptr<const EinsumProgram> build(const einsum::Subscripts& s,
                                           std::span<const Shape> shapes,
                                           std::span<const DType> dtypes,
                                           const EinsumOptions& options) {
  // A contraction computes in a floating dtype; a one-operand einsum lowered to sum would
  // otherwise turn i32 into i64 (Note [Integer dtypes] in docs/dtypes.md).
  for (std::size_t k = 0; k < dtypes.size(); ++k)
    if (is_integral(dtypes[k]))
      throw Error(ErrorKind::DTypeMismatch,
                  "einsum: operand " + std::to_string(k) + " has dtype " +
                      std::string(dtype_name(dtypes[k])) +
                      "; expected floating dtypes (f32, f64, c64, c128); cast() it first");
  const einsum::Network net = einsum::bind_shapes(s, shapes);
  return std::make_shared<const EinsumProgram>(lower_einsum(net, shapes, dtypes, options));
}

void check_defined(std::span<const Tensor> operands, const char* op) {
  for (std::size_t k = 0; k < operands.size(); ++k)
    if (!operands[k].defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": operand " + std::to_string(k) + " is an undefined tensor");
}

// Note [Einsum plan cache].
struct CacheEntry {
  std::string spec;
  SmallVector<Dims, 4> shapes;
  SmallVector<DType, 4> dtypes;
  EinsumOptions options;
  std::shared_ptr<const EinsumProgram> program;
};

bool same_options(const EinsumOptions& a, const EinsumOptions& b) {
  return a.strategy == b.strategy && a.optimal_limit == b.optimal_limit &&
         a.memory_limit == b.memory_limit && a.path == b.path && a.objective == b.objective &&
         a.combo_factor == b.combo_factor && a.time_budget == b.time_budget &&
         a.trials == b.trials && a.seed == b.seed && a.threads == b.threads;
}

std::shared_ptr<const EinsumProgram> cached_program(std::string_view spec,
                                                    std::span<const Tensor> operands,
                                                    const EinsumOptions& options) {
  constexpr std::size_t kBuckets = 64;
  thread_local CacheEntry cache[kBuckets];
  std::size_t h = std::hash<std::string_view>{}(spec);
  for (const Tensor& t : operands) {
    h = h * 1000003u ^ static_cast<std::size_t>(t.dtype());
    for (std::int64_t d : t.shape()) h = h * 1000003u ^ static_cast<std::size_t>(d);
    h = h * 1000003u ^ 0x9e37u;
  }
  CacheEntry& e = cache[h % kBuckets];
  bool hit = e.program && e.spec == spec && e.shapes.size() == operands.size() &&
             same_options(e.options, options);
  for (std::size_t k = 0; hit && k < operands.size(); ++k)
    hit = e.shapes[k] == operands[k].shape() && e.dtypes[k] == operands[k].dtype();
  if (hit) return e.program;
  SmallVector<Dims, 4> shapes;
  SmallVector<DType, 4> dtypes;
  for (const Tensor& t : operands) {
    shapes.push_back(t.shape());
    dtypes.push_back(t.dtype());
  }
  auto program =
      build(einsum::parse_subscripts(spec), std::span<const Shape>(shapes.data(), shapes.size()),
            std::span<const DType>(dtypes.data(), dtypes.size()), options);
  e.spec = std::string(spec);
  e.shapes = std::move(shapes);
  e.dtypes = std::move(dtypes);
  e.options = options;
  e.program = program;
  return program;
}

std::vector<DType> expand_dtypes(const std::vector<DType>& dtypes, std::size_t n) {
  if (dtypes.size() == n) return dtypes;
  if (dtypes.size() == 1) return std::vector<DType>(n, dtypes[0]);
  throw Error(ErrorKind::InvalidArgument, "prepare_einsum: got " + std::to_string(dtypes.size()) +
                                              " dtypes for " + std::to_string(n) +
                                              " operands; expected one dtype, or one per operand");
}

EinsumPlan prepare(const einsum::Subscripts& s, const std::vector<Dims>& shapes,
                   const std::vector<DType>& dtypes, const EinsumOptions& options) {
  const std::vector<DType> all = expand_dtypes(dtypes, shapes.size());
  return EinsumPlanAccess::make(build(s, shapes, all, options));
}

}  // namespace

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

const char* strategy_name(EinsumStrategy s) {
  switch (s) {
    case EinsumStrategy::automatic:
      return "automatic";
    case EinsumStrategy::optimal:
      return "optimal";
    case EinsumStrategy::greedy:
      return "greedy";
    case EinsumStrategy::sequential:
      return "sequential";
    case EinsumStrategy::given:
      return "given";
    case EinsumStrategy::random_greedy:
      return "random_greedy";
    case EinsumStrategy::hyper:
      return "hyper";
  }
  return "?";
}

const char* objective_name(PathObjective o) {
  switch (o) {
    case PathObjective::flops:
      return "flops";
    case PathObjective::size:
      return "size";
    case PathObjective::combo:
      return "combo";
  }
  return "?";
}

}  // namespace detail

std::string_view to_string(EinsumStrategy s) noexcept { return detail::strategy_name(s); }
std::string_view to_string(PathObjective o) noexcept { return detail::objective_name(o); }

std::string EinsumPath::to_string() const {
  using detail::number;
  // Long specs (networks of hundreds of operands) are cut: the steps carry the details.
  const std::string spec =
      subscripts.size() <= 200 ? subscripts : subscripts.substr(0, 197) + "...";
  std::string s = "einsum path: " + spec + "\n";
  s += "  strategy: " + std::string(detail::strategy_name(strategy)) + ", objective " +
       detail::objective_name(objective) + ", " + std::to_string(steps.size() + 1) + " operands, " +
       std::to_string(trials) + (trials == 1 ? " trial, " : " trials, ") + number(search_seconds) +
       " s\n";
  auto lg = [](double v, double base) { return v > 0 ? std::log(v) / std::log(base) : 0.0; };
  char line[160];
  std::snprintf(line, sizeof line,
                "  flops: %s = 10^%.2f (2 per multiply-add; multiply-adds 10^%.2f), naive %s\n",
                number(flops).c_str(), lg(flops, 10), lg(flops / 2, 10),
                number(naive_flops).c_str());
  s += line;
  std::snprintf(line, sizeof line, "  largest intermediate: %s elements = 2^%.2f\n",
                number(largest_intermediate).c_str(), lg(largest_intermediate, 2));
  s += line;
  std::snprintf(line, sizeof line, "  total write: %s elements = 10^%.2f\n",
                number(total_write).c_str(), lg(total_write, 10));
  s += line;
  const int n = static_cast<int>(steps.size()) + 1;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const EinsumStep& st = steps[k];
    char head[64];
    std::snprintf(head, sizeof head, "  step %zu: (%d, %d) -> %d  ", k, st.lhs, st.rhs,
                  n + static_cast<int>(k));
    s += head + st.subscripts + "  flops " + detail::number(st.flops) + "  shape " +
         dims_to_string(st.shape) + "\n";
  }
  return s;
}

EinsumPath einsum_path(std::string_view spec, const std::vector<Dims>& shapes,
                       const EinsumOptions& options) {
  const std::vector<DType> dtypes(shapes.size(), DType::f64);
  return detail::build(detail::einsum::parse_subscripts(spec), shapes, dtypes, options)->path;
}

EinsumPath einsum_path(const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                       const std::vector<Dims>& shapes, const EinsumOptions& options) {
  const std::vector<DType> dtypes(shapes.size(), DType::f64);
  return detail::build(detail::einsum::integer_subscripts(labels, &output), shapes, dtypes, options)
      ->path;
}

Tensor einsum(std::string_view spec, std::span<const Tensor> operands,
              const EinsumOptions& options) {
  detail::check_defined(operands, "einsum");
  return detail::cached_program(spec, operands, options)->run(operands);
}

namespace {
Tensor einsum_integer(std::span<const Tensor> operands, const std::vector<EinsumLabels>& labels,
                      const EinsumLabels* output, const EinsumOptions& options) {
  detail::check_defined(operands, "einsum");
  std::vector<Dims> shapes;
  std::vector<DType> dtypes;
  for (const Tensor& t : operands) {
    shapes.push_back(t.shape());
    dtypes.push_back(t.dtype());
  }
  return detail::build(detail::einsum::integer_subscripts(labels, output), shapes, dtypes, options)
      ->run(operands);
}
}  // namespace

Tensor einsum(std::span<const Tensor> operands, const std::vector<EinsumLabels>& labels,
              const EinsumLabels& output, const EinsumOptions& options) {
  return einsum_integer(operands, labels, &output, options);
}

Tensor einsum(std::span<const Tensor> operands, const std::vector<EinsumLabels>& labels) {
  return einsum_integer(operands, labels, nullptr, EinsumOptions{});
}

EinsumPlan prepare_einsum(std::string_view spec, const std::vector<Dims>& shapes,
                          const std::vector<DType>& dtypes, const EinsumOptions& options) {
  return detail::prepare(detail::einsum::parse_subscripts(spec), shapes, dtypes, options);
}

EinsumPlan prepare_einsum(const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                          const std::vector<Dims>& shapes, const std::vector<DType>& dtypes,
                          const EinsumOptions& options) {
  return detail::prepare(detail::einsum::integer_subscripts(labels, &output), shapes, dtypes,
                         options);
}

Tensor EinsumPlan::operator()(std::span<const Tensor> operands) const {
  const detail::EinsumProgram& p = detail::EinsumPlanAccess::program(*this);
  if (operands.size() != p.shapes.size())
    throw Error(ErrorKind::InvalidArgument,
                "einsum plan: expected " + std::to_string(p.shapes.size()) + " operands, got " +
                    std::to_string(operands.size()) + " (plan: " + p.path.subscripts + ")");
  detail::check_defined(operands, "einsum plan");
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (!(operands[k].shape() == p.shapes[k]))
      throw Error(ErrorKind::ShapeMismatch,
                  "einsum plan: operand " + std::to_string(k) + " has shape " +
                      dims_to_string(operands[k].shape()) + "; expected the prepared shape " +
                      dims_to_string(p.shapes[k]) + " (plan: " + p.path.subscripts + ")");
    if (operands[k].dtype() != p.dtypes[k])
      throw Error(ErrorKind::DTypeMismatch,
                  "einsum plan: operand " + std::to_string(k) + " has dtype " +
                      std::string(dtype_name(operands[k].dtype())) +
                      "; expected the prepared dtype " + std::string(dtype_name(p.dtypes[k])) +
                      " (plan: " + p.path.subscripts + ")");
  }
  return p.run(operands);
}

const EinsumPath& EinsumPlan::path() const { return detail::EinsumPlanAccess::program(*this).path; }
const Dims& EinsumPlan::output_shape() const {
  return detail::EinsumPlanAccess::program(*this).output_shape;
}
DType EinsumPlan::output_dtype() const {
  return detail::EinsumPlanAccess::program(*this).output_dtype;
}

}  // namespace tenferro
