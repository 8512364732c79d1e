// bind(): the join point of the catalog and its interpreters, plus the eager interpreter.
#include "core/tensor_aux.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/eager.hpp"

namespace tenferro {

namespace {
thread_local const CpuBackend* t_current_backend = nullptr;
}

BackendGuard::BackendGuard(const CpuBackend& backend)
    : previous_(t_current_backend), backend_(backend) {
  t_current_backend = &backend_;
}
BackendGuard::~BackendGuard() { t_current_backend = previous_; }

const CpuBackend& current_backend() {
  return t_current_backend ? *t_current_backend : default_backend();
}

namespace detail {

std::string describe(std::span<const Tensor> in) {
  std::string s;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i) s += ", ";
    if (!in[i].defined()) {
      s += "undefined";
      continue;
    }
    s += dims_to_string(in[i].shape()) + " " + std::string(dtype_name(in[i].dtype()));
  }
  return s;
}

std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, std::string_view op) {
  if (axis < -rank || axis >= rank || (rank == 0))
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": axis " + std::to_string(axis) +
                                                " is out of range for rank " + std::to_string(rank) +
                                                "; expected -rank <= axis < rank");
  return axis < 0 ? axis + rank : axis;
}

void Primitive::jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor>,
                    std::span<Tensor>) const {
  throw Error(ErrorKind::Unsupported, std::string(name()) + ": no forward-mode (JVP) rule");
}

void Primitive::vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor>,
                    std::span<const bool>, std::span<Tensor>) const {
  throw Error(ErrorKind::Unsupported, std::string(name()) + ": no reverse-mode (VJP) rule");
}

namespace {
void check_inputs(const Primitive& p, std::span<const Tensor> in) {
  for (const Tensor& t : in)
    if (!t.defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(p.name()) + ": an input tensor is undefined (inputs: " + describe(in) + ")");
}
}  // namespace

namespace {
// Infers, allocates the outputs into `out` (empty on entry) and runs the kernel. Filling the
// caller's list in place keeps the result from being moved through the admission callback.
void execute_into(ExecContext& ctx, const Primitive& p, std::span<const Tensor> in,
                  TensorList& out) {
  SpecList specs;
  p.infer(in, specs);
  for (TensorSpec& s : specs) {
    auto bytes = static_cast<std::size_t>(dims_numel(s.shape)) * dtype_size(s.dtype);
    out.push_back(
        Tensor::wrap_contiguous(StoragePtr(ctx.allocate(bytes)), std::move(s.shape), s.dtype));
  }
  p.execute(ctx, in, out);
}
}  // namespace

TensorList execute_in(ExecContext& ctx, const Primitive& p, std::span<const Tensor> in) {
  TensorList out;
  execute_into(ctx, p, in, out);
  return out;
}

TensorList eager_apply(const Primitive& p, std::span<const Tensor> in) {
  TensorList out;
  {
    Tensor v;
    if (p.try_view(in, v)) {
      out.push_back(std::move(v));
      return out;
    }
  }
  run_operation(current_backend(), [&](ExecContext& ctx) { execute_into(ctx, p, in, out); });
  return out;
}

TensorList bind(const Primitive& p, std::span<const Tensor> in) {
  check_inputs(p, in);
  for (const Tensor& t : in)
    if (t.aux()) return apply_with_aux(p, in);
  return eager_apply(p, in);
}

Tensor bind1(const Primitive& p, std::span<const Tensor> in) {
  TensorList out = bind(p, in);
  return std::move(out[0]);
}

}  // namespace detail
}  // namespace tenferro
