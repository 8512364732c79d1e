// bind(): the join point of the catalog and its interpreters, plus the eager interpreter.
#include <charconv>
#include <string>
#include <vector>

#include "core/alloc.hpp"
#include "core/tensor_aux.hpp"
#include "primitives/eager_cache.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/eager.hpp"

namespace tenferro {

namespace detail {

std::string round_trip(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, r.ptr);
}

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
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": axis " + std::to_string(axis) + " is out of range for rank " +
                    std::to_string(rank) + "; expected -rank <= axis < rank");
  return axis < 0 ? axis + rank : axis;
}

std::int64_t check_axes(const Tensor& x, const Dims& axes, std::string_view op) {
  if (axes.empty()) return x.numel();
  std::vector<bool> seen(static_cast<std::size_t>(x.rank()), false);
  std::int64_t n = 1;
  for (std::int64_t a : axes) {
    const auto d = static_cast<std::size_t>(normalize_axis(a, x.rank(), op));
    if (seen[d])
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": axis " + std::to_string(a) + " is repeated in " +
                      dims_to_string(axes) + " for a tensor of shape " + dims_to_string(x.shape()) +
                      "; expected distinct axes");
    seen[d] = true;
    n *= x.shape()[d];
  }
  return n;
}

void Primitive::jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor>,
                    std::span<Tensor>) const {
  throw Error(ErrorKind::Unsupported, std::string(name()) + ": no forward-mode (JVP) rule");
}

void Primitive::vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor>,
                    std::span<const bool>, std::span<Tensor>) const {
  throw Error(ErrorKind::Unsupported, std::string(name()) + ": no reverse-mode (VJP) rule");
}

void Primitive::apply_on_host(std::span<const Tensor>, TensorList&) const {
  throw Error(ErrorKind::RuntimeState,
              std::string(name()) + ": apply_on_host called on a primitive that runs kernels");
}

void infer_specs(const Primitive& p, std::span<const Tensor> in, SpecList& out) {
  if (!p.accepts_integers())
    for (const Tensor& t : in)
      if (t.defined() && is_integral(t.dtype()))
        throw Error(ErrorKind::DTypeMismatch,
                    std::string(p.name()) + ": bool and integer operands are not supported; got " +
                        describe(in) +
                        ", expected floating dtypes (f32, f64, c64, c128); cast() them first");
  p.infer(in, out);
}

namespace {
void check_inputs(const Primitive& p, std::span<const Tensor> in) {
  for (const Tensor& t : in)
    if (!t.defined())
      throw Error(
          ErrorKind::InvalidArgument,
          std::string(p.name()) + ": an input tensor is undefined (inputs: " + describe(in) + ")");
}
}  // namespace

namespace {
// Infers, allocates the outputs into `out` (empty on entry) and runs the kernel. Filling the
// caller's list in place keeps the result from being moved through the admission callback.
// Output byte counts are checked (Note [Byte counts] in src/core/alloc.hpp); running out of
// memory for an output or in the kernel's own temporaries is OutOfMemory naming the op.
void execute_into(ExecContext& ctx, const Primitive& p, std::span<const Tensor> in,
                  TensorList& out) {
  SpecList specs;
  infer_specs(p, in, specs);
  translate_heap_failure(p.name(), [&] {
    for (TensorSpec& s : specs) {
      const std::size_t bytes = checked_bytes(s.shape, s.dtype, p.name());
      out.push_back(Tensor::wrap_contiguous_unchecked(StoragePtr(ctx.allocate(bytes)),
                                                      std::move(s.shape), s.dtype));
    }
    p.execute(ctx, in, out);
  });
}
}  // namespace

TensorList execute_in(ExecContext& ctx, const Primitive& p, std::span<const Tensor> in) {
  TensorList out;
  execute_into(ctx, p, in, out);
  return out;
}

namespace {
// The eager interpreter (Note [Eager cache]): a view when the primitive can make one, else the
// cached kernel on the current backend.
void eager_into(const Primitive& p, InputRefs in, std::span<const Tensor> in_span,
                TensorList& out) {
  if (p.runs_on_host()) [[unlikely]] {  // Note [Host primitives]
    SmallVector<Tensor, 4> args;
    for (const Tensor* t : in) args.push_back(*t);
    p.apply_on_host(args, out);
    return;
  }
  if (in.size() == 1) {
    Tensor v;
    if (p.try_view(*in[0], v)) {
      out.push_back(std::move(v));
      return;
    }
  }
  run_operation(current_backend(),
                [&](ExecContext& ctx) { eager_execute(ctx, p, in, in_span, out); });
}

bool plain(const Tensor& t) noexcept { return t.defined() && !t.aux(); }
}  // namespace

TensorList eager_apply(const Primitive& p, std::span<const Tensor> in) {
  TensorList out;
  if (in.size() <= 4) {  // the usual few operands: a plain array, no list to grow and destroy
    const Tensor* refs[4];
    for (std::size_t i = 0; i < in.size(); ++i) refs[i] = &in[i];
    eager_into(p, InputRefs(refs, in.size()), in, out);
    return out;
  }
  SmallVector<const Tensor*, 8> refs;
  for (const Tensor& t : in) refs.push_back(&t);
  eager_into(p, refs, in, out);
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

Tensor bind1(const Primitive& p, const Tensor& a) {
  if (!plain(a)) return bind1(p, std::span<const Tensor>(&a, 1));
  const Tensor* refs[] = {&a};
  TensorList out;
  eager_into(p, refs, std::span<const Tensor>(&a, 1), out);
  return std::move(out[0]);
}

Tensor bind1(const Primitive& p, const Tensor& a, const Tensor& b) {
  if (!plain(a) || !plain(b)) return bind1(p, {a, b});
  const Tensor* refs[] = {&a, &b};
  TensorList out;
  eager_into(p, refs, {}, out);
  return std::move(out[0]);
}

}  // namespace detail
}  // namespace tenferro
