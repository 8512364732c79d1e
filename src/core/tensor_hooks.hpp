// The view methods of Tensor, as a table the op layer installs (Note [Core hooks] in
// src/core/tensor_aux.hpp). Core defines Tensor::reshape and friends (src/core/tensor_methods.cpp)
// by calling through this table; src/primitives/structural_views.cpp fills it with the catalog
// ops during static initialisation. The library's link interface forces that object into every
// program (`--undefined=tenferro_detail_op_layer_anchor`, CMakeLists.txt), so the table is set
// before main() in any program linked against tenferro, static or shared.
#pragma once

#include <cstdint>

#include "tenferro/tensor.hpp"

namespace tenferro::detail {

struct TensorMethodHooks {
  Tensor (*reshape)(const Tensor&, Dims);
  Tensor (*permute)(const Tensor&, Dims);
  Tensor (*transpose)(const Tensor&, std::int64_t, std::int64_t);
  Tensor (*slice)(const Tensor&, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
  Tensor (*broadcast_to)(const Tensor&, Dims);
  Tensor (*squeeze)(const Tensor&, std::int64_t);
  Tensor (*unsqueeze)(const Tensor&, std::int64_t);
  Tensor (*contiguous)(const Tensor&);
};

/// Installs the table (the op layer calls this once, during static initialisation).
void install_tensor_method_hooks(const TensorMethodHooks& hooks) noexcept;

}  // namespace tenferro::detail

/// Defined next to the installer in the op layer; see the comment at the top.
extern "C" void tenferro_detail_op_layer_anchor();
