// Sliced contractions and their gradients over the ranks of a communicator (tenferro/dist.hpp):
// Note [Sliced execution] (src/einsum/sliced.hpp) on each rank's own slices, Note [Rank
// agreement] (agree.hpp) before anything moves, one allreduce to sum the ranks' parts.
#include "einsum/sliced.hpp"

#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "dist/collectives.hpp"
#include "einsum/program.hpp"
#include "tenferro/ops/elementwise.hpp"

namespace tenferro::dist {
namespace {

using detail::Claim;
using detail::Hasher;
using tenferro::detail::SlicedContraction;
using tenferro::detail::SliceSpec;

std::string describe_shapes(std::span<const Tensor> operands) {
  std::string s = "shapes [";
  for (std::size_t k = 0; k < operands.size(); ++k)
    s += (k ? ", " : "") +
         (operands[k].defined() ? dims_to_string(operands[k].shape()) : std::string("undefined"));
  return s + "]";
}

std::string describe_dtypes(std::span<const Tensor> operands) {
  std::string s = "dtypes [";
  for (std::size_t k = 0; k < operands.size(); ++k)
    s += (k ? ", " : "") + (operands[k].defined() ? std::string(dtype_name(operands[k].dtype()))
                                                  : std::string("undefined"));
  return s + "]";
}

std::string describe_labels(const EinsumLabels& labels) {
  std::string s = "[";
  for (std::size_t j = 0; j < labels.size(); ++j) s += (j ? ", " : "") + std::to_string(labels[j]);
  return s + "]";
}

// The contraction as this rank wrote it: "spec 'ab,bc->ac'" or "labels [[0, 1], [1, 2]] -> [0, 2]".
std::string describe_spec(const SliceSpec& spec) {
  if (!spec.labels) return "spec '" + std::string(spec.spec) + "'";
  std::string s = "labels [";
  for (std::size_t k = 0; k < spec.labels->size(); ++k)
    s += (k ? ", " : "") + describe_labels((*spec.labels)[k]);
  return s + "] -> " + describe_labels(*spec.output);
}

Hasher& hash_spec(Hasher& h, const SliceSpec& spec) {
  if (!spec.labels) return h.add(std::uint64_t{0}).add(spec.spec);
  h.add(std::uint64_t{1}).add(static_cast<std::uint64_t>(spec.labels->size()));
  for (const EinsumLabels& term : *spec.labels) {
    h.add(static_cast<std::uint64_t>(term.size()));
    for (std::int64_t l : term) h.add(l);
  }
  h.add(static_cast<std::uint64_t>(spec.output->size()));
  for (std::int64_t l : *spec.output) h.add(l);
  return h;
}

// Doubles as %.17g (round-trip): two limits that differ must print differently.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string describe_options(const SliceOptions& o, bool loss) {
  std::string s = "memory_limit=" + exact(o.memory_limit) +
                  ", min_slices=" + std::to_string(o.min_slices) +
                  ", slice_output=" + (o.slice_output ? "true" : "false") +
                  ", einsum.strategy=" + tenferro::detail::strategy_name(o.einsum.strategy) +
                  ", einsum.optimal_limit=" + std::to_string(o.einsum.optimal_limit) +
                  ", einsum.memory_limit=" + exact(o.einsum.memory_limit) +
                  ", einsum.objective=" + tenferro::detail::objective_name(o.einsum.objective) +
                  ", einsum.combo_factor=" + exact(o.einsum.combo_factor) +
                  ", einsum.time_budget=" + exact(o.einsum.time_budget) +
                  ", einsum.trials=" + std::to_string(o.einsum.trials) +
                  ", einsum.seed=" + std::to_string(o.einsum.seed) +
                  ", einsum.threads=" + std::to_string(o.einsum.threads) + ", einsum.path=[";
  for (std::size_t k = 0; k < o.einsum.path.size(); ++k)
    s += (k ? ", (" : "(") + std::to_string(o.einsum.path[k].first) + ", " +
         std::to_string(o.einsum.path[k].second) + ")";
  return s + "]" + (loss ? ", a loss" : "");
}

// Everything a rank's plan depends on must be equal on every rank; `loss` is -1 for
// sliced_einsum, else whether a loss function was given.
template <class F>
void agreed_sliced(const Comm& comm, const char* op, const SliceSpec& spec,
                   std::span<const Tensor> operands, const SliceOptions& o, int loss, F&& local) {
  detail::check_callable(comm, op);
  Hasher contraction, shapes, dtypes, options;
  hash_spec(contraction, spec);
  shapes.add(static_cast<std::uint64_t>(operands.size()));
  dtypes.add(static_cast<std::uint64_t>(operands.size()));
  for (const Tensor& t : operands) {
    shapes.add(t.defined() ? t.rank() : std::int64_t{-1});
    if (t.defined())
      for (std::int64_t d : t.shape()) shapes.add(d);
    dtypes.add(t.defined() ? static_cast<int>(t.dtype()) : -1);
  }
  options.add(o.memory_limit).add(o.min_slices).add(o.slice_output);
  options.add(static_cast<int>(o.einsum.strategy)).add(o.einsum.optimal_limit);
  options.add(o.einsum.memory_limit).add(static_cast<std::uint64_t>(o.einsum.path.size()));
  for (auto [a, b] : o.einsum.path) options.add(a).add(b);
  options.add(static_cast<int>(o.einsum.objective)).add(o.einsum.combo_factor);
  options.add(o.einsum.time_budget).add(o.einsum.trials).add(o.einsum.seed);
  options.add(o.einsum.threads);
  options.add(loss);
  const Claim claims[] = {
      {ErrorKind::InvalidArgument, "the spec", contraction.value(),
       [&] { return describe_spec(spec); }},
      {ErrorKind::ShapeMismatch, "the operand shapes", shapes.value(),
       [&] { return describe_shapes(operands); }},
      {ErrorKind::DTypeMismatch, "the operand dtypes", dtypes.value(),
       [&] { return describe_dtypes(operands); }},
      {ErrorKind::InvalidArgument, "the options", options.value(),
       [&] { return describe_options(o, loss > 0); }},
  };
  detail::run_agreed(comm, op, claims, local);
}

// Equal arguments give equal plans, except when a random_greedy or hyper search stopped on its
// time budget (its path then depends on timing): every rank checks the plan itself, so ranks
// never add up slices of different slicings (every rank throws instead).
void agree_on_plan(const Comm& comm, const char* op, const SlicePlan& plan) {
  Hasher h;
  h.add(static_cast<std::uint64_t>(plan.pairs.size()));
  for (auto [a, b] : plan.pairs) h.add(a).add(b);
  h.add(static_cast<std::uint64_t>(plan.sliced.size()));
  for (const SlicedLabel& l : plan.sliced) h.add(l.id).add(l.chunks);
  const Claim claims[] = {
      {ErrorKind::InvalidArgument, "the slice plan", h.value(), [&] {
         return "path and slicing of " + std::to_string(plan.pairs.size()) + " pairs, " +
                std::to_string(plan.slices) +
                " slices (a random_greedy or hyper search that stops on its time budget plans "
                "differently on different ranks: give EinsumOptions::trials and a time_budget "
                "long enough for them, or an explicit path)";
       }}};
  detail::agree(comm, op, claims, std::nullopt);
}

// The prepared contraction every rank agrees on (or every rank throws).
SlicedContraction agreed_contraction(const Comm& comm, const char* op, const SliceSpec& spec,
                                     std::span<const Tensor> operands, const SliceOptions& options,
                                     int loss, std::vector<Tensor>& inputs) {
  std::optional<SlicedContraction> sc;
  agreed_sliced(comm, op, spec, operands, options, loss, [&] {
    inputs = tenferro::detail::sliced_inputs(operands, op, loss >= 0);
    sc.emplace(SlicedContraction::prepare(op, spec, inputs, options, loss >= 0));
  });
  agree_on_plan(comm, op, sc->plan());
  return std::move(*sc);
}

// The sum of every rank's slices, on every rank.
Tensor contract_and_sum(const Comm& comm, const char* op, const SlicedContraction& sc,
                        std::span<const Tensor> inputs) {
  const auto [first, last] = owned_slices(sc.plan(), comm.rank(), comm.size());
  Tensor part;
  detail::run_agreed(comm, op, {}, [&] { part = sc.contract(inputs, first, last); });
  detail::reduce_in_place(comm, part, MPI_SUM, op);
  return part;
}

Tensor run_sliced_einsum(const Comm& comm, const SliceSpec& spec, std::span<const Tensor> operands,
                         const SliceOptions& options) {
  constexpr const char* op = "dist::sliced_einsum";
  std::vector<Tensor> inputs;
  const SlicedContraction sc = agreed_contraction(comm, op, spec, operands, options, -1, inputs);
  return contract_and_sum(comm, op, sc, inputs);
}

ValueAndGrad run_sliced_value_and_grad(const Comm& comm, const SliceSpec& spec,
                                       std::span<const Tensor> operands, const ScalarFn& loss,
                                       const SliceOptions& options) {
  constexpr const char* op = "dist::sliced_value_and_grad";
  std::vector<Tensor> inputs;
  const SlicedContraction sc =
      agreed_contraction(comm, op, spec, operands, options, loss ? 1 : 0, inputs);
  const Tensor c = contract_and_sum(comm, op, sc, inputs);
  Tensor value, cotangent;
  detail::run_agreed(comm, op, {}, [&] {
    std::tie(value, cotangent) = tenferro::detail::loss_and_cotangent(op, loss, c);
  });
  // Every rank evaluated the loss on the same output: a loss that depends on the rank would give
  // each rank its own value and wrong gradients.
  const Tensor bits = value.contiguous();
  const Claim same_loss[] = {
      {ErrorKind::InvalidArgument, "the loss value",
       Hasher()
           .add(std::string_view(static_cast<const char*>(bits.data_ptr()),
                                 static_cast<std::size_t>(bits.numel()) * dtype_size(bits.dtype())))
           .value(),
       [&] { return "loss " + exact(cast(value, DType::f64).item<double>()); }}};
  detail::agree(comm, op, same_loss, std::nullopt);
  const auto [first, last] = owned_slices(sc.plan(), comm.rank(), comm.size());
  std::vector<Tensor> grads;
  detail::run_agreed(comm, op, {}, [&] { grads = sc.pullback(inputs, cotangent, first, last); });
  for (Tensor& g : grads) detail::reduce_in_place(comm, g, MPI_SUM, op);
  return ValueAndGrad{value, std::move(grads)};
}

}  // namespace

Tensor sliced_einsum(const Comm& comm, std::string_view spec, std::span<const Tensor> operands,
                     const SliceOptions& options) {
  return run_sliced_einsum(comm, {.spec = spec}, operands, options);
}

Tensor sliced_einsum(const Comm& comm, std::span<const Tensor> operands,
                     const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                     const SliceOptions& options) {
  return run_sliced_einsum(comm, {.labels = &labels, .output = &output}, operands, options);
}

ValueAndGrad sliced_value_and_grad(const Comm& comm, std::string_view spec,
                                   std::span<const Tensor> operands, const ScalarFn& loss,
                                   const SliceOptions& options) {
  return run_sliced_value_and_grad(comm, {.spec = spec}, operands, loss, options);
}

ValueAndGrad sliced_value_and_grad(const Comm& comm, std::span<const Tensor> operands,
                                   const std::vector<EinsumLabels>& labels,
                                   const EinsumLabels& output, const ScalarFn& loss,
                                   const SliceOptions& options) {
  return run_sliced_value_and_grad(comm, {.labels = &labels, .output = &output}, operands, loss,
                                   options);
}

}  // namespace tenferro::dist
