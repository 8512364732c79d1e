// Sliced contractions on one process, and the machinery tenferro::dist shares
// (Note [Sliced execution] in sliced.hpp).
#include "einsum/sliced.hpp"

#include <algorithm>
#include <string>

#include "core/tensor_aux.hpp"
#include "cpu/scope.hpp"
#include "tenferro/eager.hpp"
#include "tenferro/ops/elementwise.hpp"

namespace tenferro {
namespace detail {

Unrecorded unrecorded_state(const Tensor& t) {
  const TensorAux* aux = t.aux().get();
  if (!aux) return Unrecorded::none;
  if (aux->trace) return Unrecorded::traced;
  if (aux->tangent.defined()) return Unrecorded::tangent;
  if ((aux->requires_grad || aux->grad_fn) && is_grad_enabled()) return Unrecorded::requires_grad;
  return Unrecorded::none;
}

std::vector<Tensor> sliced_inputs(std::span<const Tensor> operands, const char* op,
                                  bool differentiating) {
  std::vector<Tensor> out;
  out.reserve(operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Tensor& t = operands[k];
    const std::string which = std::string(op) + ": operand " + std::to_string(k);
    if (!t.defined()) throw Error(ErrorKind::InvalidArgument, which + " is an undefined tensor");
    const Unrecorded state = unrecorded_state(t);
    if (state == Unrecorded::traced)
      throw Error(ErrorKind::Unsupported,
                  which +
                      " is traced; sliced contractions run on concrete tensors (trace einsum "
                      "or a prepared EinsumPlan instead)");
    if (state == Unrecorded::tangent)
      throw Error(ErrorKind::Unsupported,
                  which +
                      " carries a forward-mode tangent; sliced contractions are not "
                      "differentiated in forward mode (use einsum under jvp)");
    // Nothing sliced is recorded: with grad mode on, an operand that requires grad would get a
    // silent zero gradient from an outer differentiation (grad of a function that calls this).
    if (state == Unrecorded::requires_grad)
      throw Error(
          ErrorKind::Unsupported,
          which + " requires grad, but the sliced result is not recorded by autodiff " +
              (differentiating ? "(an outer grad would see no dependence); expected detach() or a "
                                 "NoGradGuard: the gradients are the returned grads"
                               : "; expected sliced_value_and_grad for gradients, or detach() / a "
                                 "NoGradGuard for the value alone"));
    if (!is_floating(t.dtype()))
      throw Error(ErrorKind::DTypeMismatch,
                  which + " has dtype " + std::string(dtype_name(t.dtype())) +
                      "; expected floating dtypes (f32, f64, c64, c128); cast() it first");
    out.push_back(detach(t));
  }
  return out;
}

std::pair<std::int64_t, std::int64_t> slice_range(std::int64_t count, int rank, int ranks) {
  const std::int64_t r = rank, n = ranks;
  const std::int64_t base = count / n, extra = count % n;
  const std::int64_t first = r * base + std::min(r, extra);
  return {first, first + base + (r < extra ? 1 : 0)};
}

einsum::Subscripts SliceSpec::parse() const {
  return labels ? einsum::integer_subscripts(*labels, output) : einsum::parse_subscripts(spec);
}

EinsumPlan SliceSpec::prepare(const std::vector<Dims>& shapes, const std::vector<DType>& dtypes,
                              const EinsumOptions& options) const {
  return labels ? prepare_einsum(*labels, *output, shapes, dtypes, options)
                : prepare_einsum(spec, shapes, dtypes, options);
}

namespace {
std::vector<Dims> shapes_of(std::span<const Tensor> operands) {
  std::vector<Dims> shapes;
  for (const Tensor& t : operands) shapes.push_back(t.shape());
  return shapes;
}

SlicePlan checked_plan(const SliceSpec& spec, std::span<const Tensor> operands,
                       const SliceOptions& options) {
  check_slice_options(options);
  return slice_plan_impl(spec.parse(), shapes_of(operands), options);
}
}  // namespace

SlicedContraction::SlicedContraction(const SliceSpec& spec, std::span<const Tensor> operands,
                                     const SliceOptions& options, bool differentiating)
    : plan_(checked_plan(spec, operands, options)) {
  std::vector<DType> dtypes;
  for (const Tensor& t : operands) dtypes.push_back(t.dtype());
  EinsumOptions along_plan = options.einsum;
  along_plan.path = plan_.pairs;
  einsum_ = spec.prepare(plan_.slice_shapes, dtypes, along_plan);
  if (!differentiating) return;
  std::vector<ValueSpec> specs;
  for (std::size_t k = 0; k < operands.size(); ++k)
    specs.push_back(ValueSpec{plan_.slice_shapes[k], dtypes[k]});
  const EinsumPlan& one_slice = einsum_;
  const Program forward = trace([&one_slice](std::span<const Tensor> x) { return one_slice(x); },
                                std::span<const ValueSpec>(specs));
  runtime_.emplace(current_backend());
  vjp_ = runtime_->prepare(vjp(forward));
}

Tensor SlicedContraction::contract(std::span<const Tensor> operands, std::int64_t first,
                                   std::int64_t last) const {
  Tensor acc = zeros(plan_.output_shape, output_dtype());
  if (first >= last) return acc;
  run_in_execution_scope(current_backend(), [&] {
    for (std::int64_t k = first; k < last; ++k) {
      const Tensor r = einsum_(plan_.slice_operands(operands, k));
      Tensor block = plan_.output_block(acc, k);
      add_into(block, block, r);
    }
  });
  return acc;
}

std::vector<Tensor> SlicedContraction::pullback(std::span<const Tensor> operands,
                                                const Tensor& cotangent, std::int64_t first,
                                                std::int64_t last) const {
  std::vector<Tensor> grads;
  for (const Tensor& t : operands) grads.push_back(zeros(t.shape(), t.dtype()));
  if (first >= last) return grads;
  run_in_execution_scope(current_backend(), [&] {
    for (std::int64_t k = first; k < last; ++k) {
      std::vector<Tensor> inputs = plan_.slice_operands(operands, k);
      inputs.push_back(plan_.output_block(cotangent, k));
      const std::vector<Tensor> pieces = runtime_->run(vjp_, inputs);
      std::vector<Tensor> blocks = plan_.slice_operands(grads, k);
      for (std::size_t j = 0; j < blocks.size(); ++j) add_into(blocks[j], blocks[j], pieces[j]);
    }
  });
  return grads;
}

std::pair<Tensor, Tensor> loss_and_cotangent(const char* op, const ScalarFn& loss,
                                             const Tensor& c) {
  const Tensor in[] = {c};
  try {
    ValueAndGrad vg = loss ? value_and_grad(loss, in)
                           : value_and_grad([](std::span<const Tensor> x) { return x[0]; }, in);
    return {std::move(vg.value), std::move(vg.grads[0])};
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(op) + ": loss: " + e.message());
  }
}

SlicedContraction SlicedContraction::prepare(const char* op, const SliceSpec& spec,
                                             std::span<const Tensor> operands,
                                             const SliceOptions& options, bool differentiating) {
  try {
    return SlicedContraction(spec, operands, options, differentiating);
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(op) + ": " + e.message());
  }
}

namespace {

Tensor run_sliced_einsum(const SliceSpec& spec, std::span<const Tensor> operands,
                         const SliceOptions& options) {
  const std::vector<Tensor> in = sliced_inputs(operands, "sliced_einsum", false);
  const auto sc = SlicedContraction::prepare("sliced_einsum", spec, in, options, false);
  return sc.contract(in, 0, sc.plan().slices);
}

ValueAndGrad run_sliced_value_and_grad(const SliceSpec& spec, std::span<const Tensor> operands,
                                       const ScalarFn& loss, const SliceOptions& options) {
  const std::vector<Tensor> in = sliced_inputs(operands, "sliced_value_and_grad", true);
  const auto sc = SlicedContraction::prepare("sliced_value_and_grad", spec, in, options, true);
  const Tensor c = sc.contract(in, 0, sc.plan().slices);
  auto [value, cotangent] = loss_and_cotangent("sliced_value_and_grad", loss, c);
  return ValueAndGrad{std::move(value), sc.pullback(in, cotangent, 0, sc.plan().slices)};
}

}  // namespace
}  // namespace detail

Tensor sliced_einsum(std::string_view spec, std::span<const Tensor> operands,
                     const SliceOptions& options) {
  return detail::run_sliced_einsum({.spec = spec}, operands, options);
}

Tensor sliced_einsum(std::span<const Tensor> operands, const std::vector<EinsumLabels>& labels,
                     const EinsumLabels& output, const SliceOptions& options) {
  return detail::run_sliced_einsum({.labels = &labels, .output = &output}, operands, options);
}

ValueAndGrad sliced_value_and_grad(std::string_view spec, std::span<const Tensor> operands,
                                   const ScalarFn& loss, const SliceOptions& options) {
  return detail::run_sliced_value_and_grad({.spec = spec}, operands, loss, options);
}

ValueAndGrad sliced_value_and_grad(std::span<const Tensor> operands,
                                   const std::vector<EinsumLabels>& labels,
                                   const EinsumLabels& output, const ScalarFn& loss,
                                   const SliceOptions& options) {
  return detail::run_sliced_value_and_grad({.labels = &labels, .output = &output}, operands, loss,
                                           options);
}

}  // namespace tenferro
