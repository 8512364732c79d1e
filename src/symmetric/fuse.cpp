// fuse and split: several legs as one leg (and back) by the leg's Fusion (tenferro/symmetric.hpp).
// Fusing concatenates each fused sector's pieces along the fused axis; splitting slices them out
// again (views), so split(fuse(t)) reproduces t's blocks exactly.
#include "symmetric/internal.hpp"

namespace tenferro::symmetric {

using detail::make;

BlockTensor fuse(const BlockTensor& t, std::int64_t begin, std::int64_t end, Direction direction) {
  const char* op = "symmetric::fuse";
  const auto r = static_cast<std::int64_t>(t.rank());
  if (begin < 0 || end < begin || end > r)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": range [" + std::to_string(begin) + ", " + std::to_string(end) +
                    ") is not inside the " + std::to_string(r) + " legs");
  const std::span<const Leg> parts(t.legs().data() + begin, static_cast<std::size_t>(end - begin));
  Leg fused = detail::fuse_legs_in(t.group(), parts, direction);
  const Fusion& fusion = *fused.fusion();
  std::vector<Leg> legs(t.legs().begin(), t.legs().begin() + begin);
  legs.push_back(fused);
  legs.insert(legs.end(), t.legs().begin() + end, t.legs().end());

  // Group the stored blocks by their fused key: piece index -> block.
  std::map<BlockKey, std::map<std::int64_t, const Tensor*>> groups;
  for (const auto& [key, b] : t.blocks()) {
    const auto& [f, piece] = fusion.index.at(BlockKey(key.begin() + begin, key.begin() + end));
    BlockKey out(key.begin(), key.begin() + begin);
    out.push_back(f);
    out.insert(out.end(), key.begin() + end, key.end());
    groups[std::move(out)].emplace(piece, &b);
  }
  std::map<BlockKey, Tensor> blocks;
  for (auto& [out, pieces] : groups) {
    const auto f = out[begin];
    const auto& list = fusion.pieces[f];
    Dims pre, post;
    for (std::int64_t i = 0; i < begin; ++i) pre.push_back(legs[i].sector_dim(out[i]));
    for (std::size_t i = begin + 1; i < legs.size(); ++i)
      post.push_back(legs[i].sector_dim(out[i]));
    auto shaped = [&](std::int64_t dim) {
      Dims s = pre;
      s.push_back(dim);
      for (auto d : post) s.push_back(d);
      return s;
    };
    std::vector<Tensor> parts_of;
    for (std::size_t p = 0; p < list.size(); ++p) {
      if (list[p].dim == 0) continue;
      auto it = pieces.find(static_cast<std::int64_t>(p));
      parts_of.push_back(it != pieces.end() ? reshape(*it->second, shaped(list[p].dim))
                                            : tenferro::zeros(shaped(list[p].dim), t.dtype()));
    }
    Tensor block;
    if (parts_of.empty())
      block = tenferro::zeros(shaped(legs[begin].sector_dim(f)), t.dtype());
    else if (parts_of.size() == 1)
      block = parts_of[0];
    else
      block = concatenate(parts_of, begin);
    blocks.emplace(out, std::move(block));
  }
  return make(t.group(), std::move(legs), t.flux(), t.dtype(), std::move(blocks));
}

BlockTensor split(const BlockTensor& t, std::int64_t axis) {
  const char* op = "symmetric::split";
  axis = detail::normalize_axis(op, axis, t.rank());
  const Leg& fused = t.leg(axis);
  if (!fused.is_fused())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": leg " + std::to_string(axis) +
                                                " (" + fused.to_string() +
                                                ") was not made by fuse");
  const Fusion& fusion = *fused.fusion();
  std::vector<Leg> legs(t.legs().begin(), t.legs().begin() + axis);
  legs.insert(legs.end(), fusion.parts.begin(), fusion.parts.end());
  legs.insert(legs.end(), t.legs().begin() + axis + 1, t.legs().end());
  std::map<BlockKey, Tensor> blocks;
  for (const auto& [key, b] : t.blocks()) {
    const auto f = key[axis];
    Dims pre(b.shape().begin(), b.shape().begin() + axis);
    Dims post(b.shape().begin() + axis + 1, b.shape().end());
    for (const Fusion::Piece& p : fusion.pieces[f]) {
      BlockKey out(key.begin(), key.begin() + axis);
      out.insert(out.end(), p.parts.begin(), p.parts.end());
      out.insert(out.end(), key.begin() + axis + 1, key.end());
      Dims shape = pre;
      for (std::size_t i = 0; i < p.parts.size(); ++i)
        shape.push_back(fusion.parts[i].sector_dim(p.parts[i]));
      for (auto d : post) shape.push_back(d);
      Tensor piece = fusion.pieces[f].size() == 1 ? b : slice(b, axis, p.offset, p.offset + p.dim);
      blocks.emplace(std::move(out), reshape(piece, shape));
    }
  }
  return make(t.group(), std::move(legs), t.flux(), t.dtype(), std::move(blocks));
}

}  // namespace tenferro::symmetric
