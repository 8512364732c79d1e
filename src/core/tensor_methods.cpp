// Tensor's view methods: core forwards them to the catalog ops through the table the op layer
// installs (Note [Core hooks] in src/core/tensor_aux.hpp), so core never names a primitive.
#include <atomic>
#include <string>

#include "core/tensor_hooks.hpp"
#include "tenferro/error.hpp"

namespace tenferro {
namespace detail {
namespace {
constinit std::atomic<const TensorMethodHooks*> g_hooks{nullptr};

// Only reachable from a static initialiser of another translation unit that runs before the op
// layer's: a typed error rather than a null call.
const TensorMethodHooks& hooks(const char* method) {
  const TensorMethodHooks* h = g_hooks.load(std::memory_order_acquire);
  if (h == nullptr)
    throw Error(ErrorKind::RuntimeState,
                std::string("Tensor::") + method +
                    ": tenferro's op layer is not initialised yet (called from a static "
                    "initialiser?); call the free function tenferro::" +
                    method + " after main() starts");
  return *h;
}
}  // namespace

void install_tensor_method_hooks(const TensorMethodHooks& h) noexcept {
  g_hooks.store(&h, std::memory_order_release);
}
}  // namespace detail

Tensor Tensor::reshape(Dims shape) const {
  return detail::hooks("reshape").reshape(*this, std::move(shape));
}
Tensor Tensor::permute(Dims axes) const {
  return detail::hooks("permute").permute(*this, std::move(axes));
}
Tensor Tensor::transpose(std::int64_t a, std::int64_t b) const {
  return detail::hooks("transpose").transpose(*this, a, b);
}
Tensor Tensor::slice(std::int64_t axis, std::int64_t start, std::int64_t stop,
                     std::int64_t step) const {
  return detail::hooks("slice").slice(*this, axis, start, stop, step);
}
Tensor Tensor::broadcast_to(Dims shape) const {
  return detail::hooks("broadcast_to").broadcast_to(*this, std::move(shape));
}
Tensor Tensor::squeeze(std::int64_t axis) const {
  return detail::hooks("squeeze").squeeze(*this, axis);
}
Tensor Tensor::unsqueeze(std::int64_t axis) const {
  return detail::hooks("unsqueeze").unsqueeze(*this, axis);
}
Tensor Tensor::contiguous() const { return detail::hooks("contiguous").contiguous(*this); }

}  // namespace tenferro
