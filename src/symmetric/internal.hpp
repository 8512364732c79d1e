// Helpers shared by the symmetric-tensor files (src/symmetric/): charge arithmetic on keys, block
// shapes, and the checks that name legs and sectors in error messages.
#pragma once

#include <string>
#include <vector>

#include "tenferro/ops.hpp"
#include "tenferro/symmetric.hpp"

namespace tenferro::symmetric::detail {

/// "2" for a one-factor charge, "(1,0)" otherwise.
std::string charge_string(const Charge& c);
/// c as counted by a leg of direction d (+c for out, -c for in).
Charge signed_charge(const Group& g, const Charge& c, Direction d);
/// fuse_legs with the group given (the fusion of no legs is a leg of g's identity charge).
Leg fuse_legs_in(const Group& g, std::span<const Leg> legs, Direction direction);
/// The signed charge sum of the sectors `key` picks on `legs`.
Charge key_charge(const Group& g, const std::vector<Leg>& legs, const BlockKey& key);
/// Shape of the block `key` on `legs`.
Dims key_shape(const std::vector<Leg>& legs, const BlockKey& key);
/// "(s0, s1, ...)" with each sector's charge: "(0:2, 1:-1)" (sector index: charge).
std::string key_string(const std::vector<Leg>& legs, const BlockKey& key);
/// Every key on `legs` whose charge sum is `flux`, sorted.
std::vector<BlockKey> allowed_keys(const Group& g, const std::vector<Leg>& legs,
                                   const Charge& flux);
/// Throws InvalidArgument naming `op` unless a and b have equal legs and flux.
void require_same_structure(const char* op, const BlockTensor& a, const BlockTensor& b);
/// axis checked against rank (negative counts from the end).
std::int64_t normalize_axis(const char* op, std::int64_t axis, std::size_t rank);
/// Internal: tensor with the given structure, skipping checks.
inline BlockTensor make(const Group& group, std::vector<Leg> legs, Charge flux, DType dtype,
                        std::map<BlockKey, Tensor> blocks) {
  return BlockTensor(group, std::move(legs), std::move(flux), dtype, std::move(blocks));
}

}  // namespace tenferro::symmetric::detail

namespace tenferro::symmetric::detail {

/// A BlockTensor as a matrix: rows = legs [0, row_legs), columns = the rest, each side fused
/// into one leg (rows fused with direction `row_dir`, columns with `col_dir`). With `keep_single`
/// a side of exactly one leg is left as it is (fused_rows / fused_cols say what was fused).
struct Matricized {
  BlockTensor m;
  bool fused_rows = false, fused_cols = false;
};
/// `perm` (empty: identity) reorders t's legs first, block by block, as permute(t, perm) would.
Matricized matricize(const BlockTensor& t, std::int64_t row_legs, Direction row_dir,
                     Direction col_dir, bool keep_single, std::span<const std::int64_t> perm = {});
/// The inverse of matricize on a result whose leg 0 / leg 1 are the fused sides.
BlockTensor unmatricize(BlockTensor m, bool split_rows, bool split_cols);

}  // namespace tenferro::symmetric::detail
