// tensordot over BlockTensors (Note [Block contraction]).
//
// Note [Block contraction]: a contraction is a matrix product once each operand is fused into a
// matrix (free legs | contracted legs). The fused contracted leg K of a and its counterpart K' of
// b carry the same sectors in the same order; with the fluxes fixed, a fused row sector of a
// determines its K sector and a K sector determines b's column sector, so the product is one GEMM
// per charge of K (TeNPy's approach) instead of one per pair of blocks. GEMMs of one small shape
// (every dim <= 32, four or more of them: many sectors of small dimension) run as one bmm over
// stacked blocks. matricize() builds each matrix block in one pass: one block_assemble op
// (src/primitives/block_assemble.hpp) reads every piece, permuted view or not, straight into its
// place, so each operand is copied once; a block that is a whole matrix block by itself is only
// reshaped. The split of the result is slicing and reshaping, i.e. views.
#include <algorithm>

#include "primitives/block_assemble.hpp"
#include "symmetric/internal.hpp"

namespace tenferro::symmetric {

using detail::make;

namespace detail {

using tenferro::detail::block_assemble;
using tenferro::detail::BlockPlace;

Matricized matricize(const BlockTensor& t, std::int64_t row_legs, Direction row_dir,
                     Direction col_dir, bool keep_single, std::span<const std::int64_t> perm) {
  const auto r = static_cast<std::int64_t>(t.rank());
  const bool permuted = !perm.empty();
  Matricized out;
  out.fused_rows = !(keep_single && row_legs == 1);
  out.fused_cols = !(keep_single && r - row_legs == 1);
  std::vector<Leg> legs;
  legs.reserve(t.rank());
  for (std::int64_t i = 0; i < r; ++i) legs.push_back(t.leg(permuted ? perm[i] : i));
  const std::span<const Leg> all(legs);
  const Leg R =
      out.fused_rows
          ? fuse_legs_in(t.group(), all.subspan(0, static_cast<std::size_t>(row_legs)), row_dir)
          : legs[0];
  const Leg C =
      out.fused_cols
          ? fuse_legs_in(t.group(), all.subspan(static_cast<std::size_t>(row_legs)), col_dir)
          : legs[static_cast<std::size_t>(row_legs)];
  struct Place {
    std::int64_t sector, offset, dim;
  };
  BlockKey part;  // reused lookup key
  auto locate = [&part](const Leg& leg, bool fused, BlockKey::const_iterator first,
                        BlockKey::const_iterator last) -> Place {
    if (!fused) return {*first, 0, leg.sector_dim(*first)};
    part.assign(first, last);
    const auto& [f, piece] = leg.fusion()->index.at(part);
    const Fusion::Piece& p = leg.fusion()->pieces[f][piece];
    return {f, p.offset, p.dim};
  };
  // Every block is one piece of one matrix block (row sector, column sector).
  struct Pieces {
    std::vector<Tensor> pieces;
    std::vector<BlockPlace> places;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, Pieces> groups;
  BlockKey key(t.rank());
  const Dims axes(perm.begin(), perm.end());
  for (const auto& [orig, b] : t.blocks()) {
    for (std::int64_t i = 0; i < r; ++i) key[i] = permuted ? orig[perm[i]] : orig[i];
    const Place pr = locate(R, out.fused_rows, key.begin(), key.begin() + row_legs);
    const Place pc = locate(C, out.fused_cols, key.begin() + row_legs, key.end());
    Pieces& g = groups[{pr.sector, pc.sector}];
    if (pr.dim * pc.dim == 0) continue;
    g.pieces.push_back(permuted ? tenferro::permute(b, axes) : b);
    g.places.push_back({pr.offset, pc.offset, pr.dim, pc.dim});
  }
  std::map<BlockKey, Tensor> blocks;
  for (auto& [rc, g] : groups) {
    const std::int64_t m = R.sector_dim(rc.first), n = C.sector_dim(rc.second);
    Tensor block;
    if (g.pieces.empty())
      block = zeros({m, n}, t.dtype());
    else if (g.pieces.size() == 1 && g.places[0].rows == m && g.places[0].cols == n)
      block = reshape(g.pieces[0], {m, n});
    else
      block = block_assemble(g.pieces, g.places, m, n);
    blocks.emplace(BlockKey{rc.first, rc.second}, std::move(block));
  }
  out.m = make(t.group(), {R, C}, t.flux(), t.dtype(), std::move(blocks));
  return out;
}

BlockTensor unmatricize(BlockTensor m, bool split_rows, bool split_cols) {
  if (split_cols) m = split(m, 1);
  if (split_rows) m = split(m, 0);
  return m;
}

}  // namespace detail

namespace {

struct Axes {
  Dims free_a, free_b, con_a, con_b;
};

Axes check_axes(const BlockTensor& a, const BlockTensor& b, Dims axes_a, Dims axes_b) {
  const char* op = "symmetric::tensordot";
  if (axes_a.size() != axes_b.size())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": " + std::to_string(axes_a.size()) +
                                                " axes of a, " + std::to_string(axes_b.size()) +
                                                " of b");
  if (!(a.group() == b.group()) && a.rank() > 0 && b.rank() > 0)
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": groups " + a.group().to_string() +
                                                " and " + b.group().to_string() + " differ");
  std::vector<bool> ua(a.rank(), false), ub(b.rank(), false);
  for (std::size_t k = 0; k < axes_a.size(); ++k) {
    axes_a[k] = detail::normalize_axis(op, axes_a[k], a.rank());
    axes_b[k] = detail::normalize_axis(op, axes_b[k], b.rank());
    if (ua[axes_a[k]] || ub[axes_b[k]])
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": an axis is contracted twice");
    ua[axes_a[k]] = ub[axes_b[k]] = true;
    const Leg& la = a.leg(axes_a[k]);
    const Leg& lb = b.leg(axes_b[k]);
    if (!is_dual(la, lb))
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": leg " + std::to_string(axes_a[k]) + " of a (" +
                      la.to_string() + ") and leg " + std::to_string(axes_b[k]) + " of b (" +
                      lb.to_string() + ") are not dual (same sectors, opposite directions needed)");
  }
  Axes ax;
  ax.con_a = axes_a;
  ax.con_b = axes_b;
  for (std::size_t i = 0; i < a.rank(); ++i)
    if (!ua[i]) ax.free_a.push_back(static_cast<std::int64_t>(i));
  for (std::size_t i = 0; i < b.rank(); ++i)
    if (!ub[i]) ax.free_b.push_back(static_cast<std::int64_t>(i));
  return ax;
}

Dims concat_dims(const Dims& x, const Dims& y) {
  Dims d = x;
  for (auto v : y) d.push_back(v);
  return d;
}

struct Gemm {
  BlockKey out;
  const Tensor* a;
  const Tensor* b;
};

// Runs the GEMMs: one bmm per group of equal small shapes, one matmul otherwise.
std::map<BlockKey, Tensor> run_gemms(const std::vector<Gemm>& gemms) {
  std::map<std::array<std::int64_t, 3>, std::vector<const Gemm*>> by_shape;
  for (const Gemm& g : gemms)
    by_shape[{g.a->shape()[0], g.a->shape()[1], g.b->shape()[1]}].push_back(&g);
  std::map<BlockKey, Tensor> out;
  auto put = [&](const BlockKey& k, Tensor v) {
    if (auto it = out.find(k); it != out.end())
      it->second = add(it->second, v);
    else
      out.emplace(k, std::move(v));
  };
  for (auto& [shape, list] : by_shape) {
    const bool small = shape[0] <= 32 && shape[1] <= 32 && shape[2] <= 32;
    if (list.size() >= 4 && small && shape[0] > 0 && shape[2] > 0) {
      std::vector<Tensor> as, bs;
      for (const Gemm* g : list) {
        as.push_back(*g->a);
        bs.push_back(*g->b);
      }
      const Tensor c = bmm(stack(as, 0), stack(bs, 0));
      for (std::size_t i = 0; i < list.size(); ++i)
        put(list[i]->out,
            squeeze(slice(c, 0, static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 1),
                    0));
    } else {
      for (const Gemm* g : list) put(g->out, matmul(*g->a, *g->b));
    }
  }
  return out;
}

}  // namespace

BlockTensor tensordot(const BlockTensor& a, const BlockTensor& b, Dims axes_a, Dims axes_b) {
  const Axes ax = check_axes(a, b, axes_a, axes_b);
  const auto nfa = static_cast<std::int64_t>(ax.free_a.size());
  const auto nc = static_cast<std::int64_t>(ax.con_a.size());
  const Group g = a.group().num_factors() > 0 || b.rank() == 0 ? a.group() : b.group();
  // The permutations are applied block by block inside matricize (no permuted BlockTensor).
  auto order = [](const Dims& first, const Dims& second) {
    Dims d = concat_dims(first, second);
    for (std::size_t i = 0; i < d.size(); ++i)
      if (d[i] != static_cast<std::int64_t>(i)) return d;
    return Dims{};  // identity
  };
  const Dims perm_a = order(ax.free_a, ax.con_a), perm_b = order(ax.con_b, ax.free_b);
  // Rows of a fused "out"; a's contracted legs fused "out", b's (their duals) "in": the two fused
  // legs are then dual with the same sector order (Note [Block contraction]).
  const detail::Matricized ma =
      detail::matricize(a, nfa, Direction::out, Direction::out, /*keep_single=*/true, perm_a);
  const detail::Matricized mb =
      detail::matricize(b, nc, Direction::in, Direction::out, /*keep_single=*/true, perm_b);
  // b's blocks by their K sector.
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, const Tensor*>>> by_k;
  for (const auto& [key, blk] : mb.m.blocks()) by_k[key[0]].push_back({key[1], &blk});
  std::vector<Gemm> gemms;
  for (const auto& [key, blk] : ma.m.blocks()) {
    auto it = by_k.find(key[1]);
    if (it == by_k.end()) continue;
    for (const auto& [c, bb] : it->second) gemms.push_back({{key[0], c}, &blk, bb});
  }
  std::map<BlockKey, Tensor> blocks = run_gemms(gemms);
  const DType dt = promote(a.dtype(), b.dtype());
  for (auto& [k, v] : blocks)
    if (v.dtype() != dt) v = cast(v, dt);
  BlockTensor c =
      make(g, {ma.m.leg(0), mb.m.leg(1)}, g.fuse(a.flux(), b.flux()), dt, std::move(blocks));
  return detail::unmatricize(std::move(c), ma.fused_rows, mb.fused_cols);
}

double tensordot_cost(const BlockTensor& a, const BlockTensor& b, Dims axes_a, Dims axes_b) {
  const Axes ax = check_axes(a, b, axes_a, axes_b);
  const Group g = a.group().num_factors() > 0 || b.rank() == 0 ? a.group() : b.group();
  std::vector<Leg> fa, ca, fb;
  for (auto i : ax.free_a) fa.push_back(a.leg(i));
  for (auto i : ax.con_a) ca.push_back(a.leg(i));
  for (auto i : ax.free_b) fb.push_back(b.leg(i));
  const Leg R = detail::fuse_legs_in(g, fa, Direction::out);
  const Leg K = detail::fuse_legs_in(g, ca, Direction::out);
  const Leg C = detail::fuse_legs_in(g, fb, Direction::out);
  // a: R + K = flux_a; b: -K + C = flux_b.
  double cost = 0;
  for (std::size_t k = 0; k < K.num_sectors(); ++k) {
    const Charge& q = K.charge(k);
    const std::int64_t r = R.find(g.fuse(a.flux(), g.dual(q)));
    const std::int64_t c = C.find(g.fuse(b.flux(), q));
    if (r < 0 || c < 0) continue;
    cost += static_cast<double>(R.sector_dim(r)) * static_cast<double>(K.sector_dim(k)) *
            static_cast<double>(C.sector_dim(c));
  }
  return cost;
}

}  // namespace tenferro::symmetric
