// Tensor's autodiff accessors (the tape itself lives in src/autodiff). They act on the eager
// tape's layer (Note [Autodiff levels] in src/core/tensor_aux.hpp), the bottom autodiff layer.
#include "core/tensor_aux.hpp"

namespace tenferro {

namespace {
// The eager tape's layer of a tensor, if it has one.
detail::TensorAux* eager_layer(const std::shared_ptr<detail::TensorAux>& aux) noexcept {
  for (detail::TensorAux* a = aux.get(); a; a = a->inner.get())
    if (a->kind == detail::AuxKind::tape && a->depth == 0) return a;
  return nullptr;
}
}  // namespace

bool Tensor::requires_grad() const noexcept {
  for (const detail::TensorAux* a = aux_.get(); a; a = a->inner.get())
    if (a->has_edge() && a->live()) return true;
  return false;
}

Tensor& Tensor::requires_grad_(bool on) {
  if (!defined())
    throw Error(ErrorKind::InvalidArgument, "requires_grad_: the tensor is undefined");
  detail::TensorAux* eager = eager_layer(aux_);
  if (eager && eager->grad_fn)
    throw Error(ErrorKind::InvalidArgument,
                "requires_grad_: only leaf tensors can be marked; this tensor was produced by an "
                "operation that records gradients (use detach() first)");
  if (on && is_integral(dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                "requires_grad_: a tensor of dtype " + std::string(dtype_name(dtype())) +
                    " cannot require gradients; expected a floating dtype (f32, f64, c64, c128)");
  if (aux_ && aux_->kind != detail::AuxKind::none && aux_.get() != eager && aux_->live())
    throw Error(ErrorKind::InvalidArgument,
                std::string("requires_grad_: the tensor is an input or result of a running '") +
                    aux_->level->transform +
                    "' transform; mark leaves before the transform, or differentiate with the "
                    "functional API");
  if (eager) {  // a leaf of the eager tape, on top of only trace state
    if (on) {
      eager->requires_grad = true;
    } else {
      aux_ = eager->inner;  // no longer a leaf: drop the layer (its gradient goes with it)
    }
    return *this;
  }
  if (!on) return *this;
  auto layer = std::make_shared<detail::TensorAux>();
  layer->kind = detail::AuxKind::tape;
  layer->requires_grad = true;
  layer->copy_trace(aux_.get());
  layer->inner = std::move(aux_);
  aux_ = std::move(layer);
  return *this;
}

Tensor Tensor::grad() const {
  const detail::TensorAux* a = eager_layer(aux_);
  return a ? a->grad : Tensor();
}

Tensor& Tensor::zero_grad_() {
  if (detail::TensorAux* a = eager_layer(aux_)) a->grad = Tensor();
  return *this;
}

}  // namespace tenferro
