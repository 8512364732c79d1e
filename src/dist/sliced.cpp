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
                  ", einsum.memory_limit=" + exact(o.einsum.memory_limit) + ", einsum.path=[";
  for (std::size_t k = 0; k < o.einsum.path.size(); ++k)
    s += (k ? ", (" : "(") + std::to_string(o.einsum.path[k].first) + ", " +
         std::to_string(o.einsum.path[k].second) + ")";
  return s + "]" + (loss ? ", a loss" : "");
}

// Everything a rank's plan depends on must be equal on every rank; `loss` is -1 for
// sliced_einsum, else whether a loss function was given.
template <class F>
void agreed_sliced(const Comm& comm, const char* op, std::string_view spec,
                   std::span<const Tensor> operands, const SliceOptions& o, int loss, F&& local) {
  detail::check_callable(comm, op);
  Hasher shapes, dtypes, options;
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
  options.add(loss);
  const Claim claims[] = {
      {ErrorKind::InvalidArgument, "the spec", Hasher().add(spec).value(),
       [&] { return "spec '" + std::string(spec) + "'"; }},
      {ErrorKind::ShapeMismatch, "the operand shapes", shapes.value(),
       [&] { return describe_shapes(operands); }},
      {ErrorKind::DTypeMismatch, "the operand dtypes", dtypes.value(),
       [&] { return describe_dtypes(operands); }},
      {ErrorKind::InvalidArgument, "the options", options.value(),
       [&] { return describe_options(o, loss > 0); }},
  };
  detail::run_agreed(comm, op, claims, local);
}

// The prepared contraction every rank agrees on (or every rank throws).
SlicedContraction agreed_contraction(const Comm& comm, const char* op, std::string_view spec,
                                     std::span<const Tensor> operands, const SliceOptions& options,
                                     int loss, std::vector<Tensor>& inputs) {
  std::optional<SlicedContraction> sc;
  agreed_sliced(comm, op, spec, operands, options, loss, [&] {
    inputs = tenferro::detail::sliced_inputs(operands, op, loss >= 0);
    sc.emplace(SlicedContraction::prepare(op, spec, inputs, options, loss >= 0));
  });
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

}  // namespace

Tensor sliced_einsum(const Comm& comm, std::string_view spec, std::span<const Tensor> operands,
                     const SliceOptions& options) {
  constexpr const char* op = "dist::sliced_einsum";
  std::vector<Tensor> inputs;
  const SlicedContraction sc = agreed_contraction(comm, op, spec, operands, options, -1, inputs);
  return contract_and_sum(comm, op, sc, inputs);
}

ValueAndGrad sliced_value_and_grad(const Comm& comm, std::string_view spec,
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

}  // namespace tenferro::dist
