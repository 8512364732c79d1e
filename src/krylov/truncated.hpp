// Note [svd_truncated by svds]: svd_truncated(a, max_rank) with a small max_rank against
// min(m, n) needs only the leading triplets. When nothing asks for a derivative (a concrete `a`
// with no autodiff state: no tape, no tangent, not traced), it computes them by the randomised
// subspace iteration of svds (src/krylov/svds.cpp), per matrix of the batch, and keeps that
// result only when every triplet's residual |A v - s u| reaches 20 eps sqrt(max(m, n)) s_max (the
// rounding floor of that residual, and the dense svd's backward error) within min(m, n) / (2 l)
// power steps (l = 2 k: cheaper than the dense svd); otherwise (and whenever a derivative may
// be taken: the dense path's rules are exact, second order and traceable) the dense svd runs.
#pragma once

#include <cstdint>
#include <optional>

#include "tenferro/tensor.hpp"

namespace tenferro {
struct SvdResult;
namespace detail {

/// The top-k thin svd of every matrix of `a` [..., m, n] by svds, or nullopt when Note
/// [svd_truncated by svds] says the dense svd should run.
std::optional<SvdResult> truncated_by_svds(const Tensor& a, std::int64_t k);
/// How many calls on this thread took the svds path (a test diagnostic).
std::uint64_t truncated_by_svds_count() noexcept;

}  // namespace detail
}  // namespace tenferro
