// Tensor's autodiff accessors (the tape itself lives in src/autodiff).
#include "core/tensor_aux.hpp"

namespace tenferro {

bool Tensor::requires_grad() const noexcept {
  return aux_ && (aux_->requires_grad || aux_->grad_fn);
}

Tensor& Tensor::requires_grad_(bool on) {
  if (!defined_) throw Error(ErrorKind::InvalidArgument, "requires_grad_: the tensor is undefined");
  if (aux_ && aux_->grad_fn)
    throw Error(ErrorKind::InvalidArgument,
                "requires_grad_: only leaf tensors can be marked; this tensor was produced by an "
                "operation that records gradients (use detach() first)");
  if (on && is_integral(dtype_))
    throw Error(ErrorKind::DTypeMismatch,
                "requires_grad_: a tensor of dtype " + std::string(dtype_name(dtype_)) +
                    " cannot require gradients; expected a floating dtype (f32, f64, c64, c128)");
  if (!on && !aux_) return *this;
  if (!aux_) aux_ = std::make_shared<detail::TensorAux>();
  aux_->requires_grad = on;
  return *this;
}

Tensor Tensor::grad() const { return aux_ ? aux_->grad : Tensor(); }

Tensor& Tensor::zero_grad_() {
  if (aux_) aux_->grad = Tensor();
  return *this;
}

}  // namespace tenferro
