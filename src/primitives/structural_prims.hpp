// The joining / diagonal / triangle primitives as catalog objects (tests call their rules
// directly; the public functions are in tenferro/ops/structural.hpp).
#pragma once

#include <memory>

#include "primitives/primitive.hpp"

namespace tenferro::detail {

std::shared_ptr<const Primitive> concatenate_primitive(std::int64_t axis);
std::shared_ptr<const Primitive> diag_primitive(std::int64_t offset);
/// The public diag_embed (square output).
std::shared_ptr<const Primitive> diag_embed_primitive(std::int64_t offset);
/// tril (lower = true) or triu.
std::shared_ptr<const Primitive> tri_primitive(bool lower, std::int64_t k);
/// True when `p` is a permute whose axes (normalised against `rank`) are 0, 1, ..., rank - 1.
bool is_identity_permute(const Primitive& p, std::size_t rank);
/// True when p is a slice with a positive step: then an output of the input's shape is the input
/// itself. A negative step keeps the shape too but reverses the axis.
bool is_forward_slice(const Primitive& p);

}  // namespace tenferro::detail
