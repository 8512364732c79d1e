// BlockTensor: construction, checks, dense conversion and autodiff helpers
// (tenferro/symmetric.hpp).
#include <algorithm>
#include <ostream>

#include "symmetric/internal.hpp"

namespace tenferro::symmetric {
namespace detail {

Charge key_charge(const Group& g, const std::vector<Leg>& legs, const BlockKey& key) {
  Charge c = g.identity();
  for (std::size_t i = 0; i < legs.size(); ++i)
    c = g.fuse(c, signed_charge(g, legs[i].charge(key[i]), legs[i].direction()));
  return c;
}

Dims key_shape(const std::vector<Leg>& legs, const BlockKey& key) {
  Dims d;
  for (std::size_t i = 0; i < legs.size(); ++i) d.push_back(legs[i].sector_dim(key[i]));
  return d;
}

std::string key_string(const std::vector<Leg>& legs, const BlockKey& key) {
  std::string s = "(";
  for (std::size_t i = 0; i < key.size(); ++i) {
    s += i ? ", " : "";
    s += "leg " + std::to_string(i) + " sector " + std::to_string(key[i]);
    if (i < legs.size() && key[i] >= 0 && static_cast<std::size_t>(key[i]) < legs[i].num_sectors())
      s += " (charge " + charge_string(legs[i].charge(key[i])) + ")";
  }
  return s + ")";
}

std::vector<BlockKey> allowed_keys(const Group& g, const std::vector<Leg>& legs,
                                   const Charge& flux) {
  std::vector<BlockKey> out;
  if (legs.empty()) {
    if (flux == g.identity()) out.push_back({});
    return out;
  }
  // Enumerate all legs but the last; the last leg's sector is fixed by the flux.
  const std::size_t r = legs.size();
  BlockKey key(r, 0);
  std::vector<Charge> partial(r, g.identity());  // partial[i]: charge of legs [0, i)
  std::function<void(std::size_t)> rec = [&](std::size_t i) {
    if (i + 1 == r) {
      const Charge rest = g.fuse(flux, g.dual(partial[i]));
      const std::int64_t s = legs[i].find(signed_charge(g, rest, legs[i].direction()));
      if (s >= 0) {
        key[i] = s;
        out.push_back(key);
      }
      return;
    }
    for (std::size_t s = 0; s < legs[i].num_sectors(); ++s) {
      key[i] = static_cast<std::int64_t>(s);
      partial[i + 1] = g.fuse(partial[i], signed_charge(g, legs[i].charge(s), legs[i].direction()));
      rec(i + 1);
    }
  };
  rec(0);
  std::sort(out.begin(), out.end());
  return out;
}

void require_same_structure(const char* op, const BlockTensor& a, const BlockTensor& b) {
  if (a.rank() != b.rank())
    throw Error(ErrorKind::ShapeMismatch, std::string(op) + ": operands of rank " +
                                              std::to_string(a.rank()) + " and " +
                                              std::to_string(b.rank()));
  for (std::size_t i = 0; i < a.rank(); ++i)
    if (!(a.leg(i) == b.leg(i)))
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": leg " + std::to_string(i) +
                                                  " differs: " + a.leg(i).to_string() + " vs " +
                                                  b.leg(i).to_string());
  if (a.flux() != b.flux())
    throw Error(ErrorKind::InvalidArgument, std::string(op) +
                                                ": fluxes differ: " + charge_string(a.flux()) +
                                                " vs " + charge_string(b.flux()));
}

std::int64_t normalize_axis(const char* op, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  const std::int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": axis " + std::to_string(axis) +
                                                " is out of range for rank " + std::to_string(r));
  return a;
}

}  // namespace detail

namespace {

Group group_of(const std::vector<Leg>& legs) {
  if (legs.empty()) return Group();
  for (const Leg& l : legs)
    if (!(l.group() == legs[0].group()))
      throw Error(ErrorKind::InvalidArgument, "symmetric::BlockTensor: legs of different groups " +
                                                  legs[0].group().to_string() + " and " +
                                                  l.group().to_string());
  return legs[0].group();
}

Charge checked_flux(const Group& g, const Charge& flux) {
  if (flux.empty()) return g.identity();
  return g.canonical(flux);
}

void require_floating_dtype(const char* op, DType dtype) {
  if (!is_floating(dtype))
    throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": dtype " +
                                              std::string(dtype_name(dtype)) +
                                              " is not floating (f32, f64, c64, c128)");
}

}  // namespace

BlockTensor::BlockTensor(Group group, std::vector<Leg> legs, Charge flux, DType dtype,
                         std::map<BlockKey, Tensor> blocks)
    : legs_(std::move(legs)),
      group_(std::move(group)),
      flux_(std::move(flux)),
      dtype_(dtype),
      blocks_(std::move(blocks)),
      defined_(true) {
  if (flux_.empty()) flux_ = group_.identity();
}

BlockTensor BlockTensor::zeros(std::vector<Leg> legs, Charge flux, DType dtype) {
  require_floating_dtype("symmetric::BlockTensor::zeros", dtype);
  const Group g = group_of(legs);
  const Charge f = checked_flux(g, flux);
  std::map<BlockKey, Tensor> blocks;
  for (BlockKey& k : detail::allowed_keys(g, legs, f))
    blocks.emplace(k, tenferro::zeros(detail::key_shape(legs, k), dtype));
  return BlockTensor(g, std::move(legs), f, dtype, std::move(blocks));
}

BlockTensor BlockTensor::randn(std::vector<Leg> legs, std::uint64_t seed, Charge flux,
                               DType dtype) {
  require_floating_dtype("symmetric::BlockTensor::randn", dtype);
  const Group g = group_of(legs);
  const Charge f = checked_flux(g, flux);
  std::map<BlockKey, Tensor> blocks;
  std::uint64_t s = seed;
  for (BlockKey& k : detail::allowed_keys(g, legs, f)) {
    blocks.emplace(k, tenferro::randn(detail::key_shape(legs, k), s, dtype));
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  return BlockTensor(g, std::move(legs), f, dtype, std::move(blocks));
}

BlockTensor BlockTensor::from_blocks(std::vector<Leg> legs, Charge flux,
                                     std::map<BlockKey, Tensor> blocks, DType dtype) {
  const char* op = "symmetric::BlockTensor::from_blocks";
  require_floating_dtype(op, dtype);
  const Group g = group_of(legs);
  const Charge f = checked_flux(g, flux);
  for (auto& [key, block] : blocks) {
    if (key.size() != legs.size())
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": key of length " +
                                                  std::to_string(key.size()) + " for " +
                                                  std::to_string(legs.size()) + " legs");
    for (std::size_t i = 0; i < key.size(); ++i)
      if (key[i] < 0 || static_cast<std::size_t>(key[i]) >= legs[i].num_sectors())
        throw Error(ErrorKind::InvalidArgument, std::string(op) + ": leg " + std::to_string(i) +
                                                    " has no sector " + std::to_string(key[i]) +
                                                    " (it has " +
                                                    std::to_string(legs[i].num_sectors()) + ")");
    const Charge c = detail::key_charge(g, legs, key);
    if (c != f)
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": block " + detail::key_string(legs, key) +
                      " breaks charge conservation: its signed charge sum is " +
                      detail::charge_string(c) + ", the flux is " + detail::charge_string(f));
    const Dims shape = detail::key_shape(legs, key);
    if (block.shape() != shape)
      throw Error(ErrorKind::ShapeMismatch, std::string(op) + ": block " +
                                                detail::key_string(legs, key) + " has shape " +
                                                dims_to_string(block.shape()) + ", its sectors " +
                                                "need " + dims_to_string(shape));
    if (block.dtype() != dtype)
      throw Error(ErrorKind::DTypeMismatch,
                  std::string(op) + ": block " + detail::key_string(legs, key) + " has dtype " +
                      std::string(dtype_name(block.dtype())) + ", the tensor's is " +
                      std::string(dtype_name(dtype)));
  }
  return BlockTensor(g, std::move(legs), f, dtype, std::move(blocks));
}

BlockTensor BlockTensor::from_dense(const Tensor& dense, std::vector<Leg> legs, Charge flux,
                                    double tol) {
  const char* op = "symmetric::BlockTensor::from_dense";
  require_floating_dtype(op, dense.dtype());
  const Group g = group_of(legs);
  const Charge f = checked_flux(g, flux);
  Dims want;
  for (const Leg& l : legs) want.push_back(l.dim());
  if (dense.shape() != want)
    throw Error(ErrorKind::ShapeMismatch,
                std::string(op) + ": dense shape " + dims_to_string(dense.shape()) +
                    " differs from the legs' dims " + dims_to_string(want));
  std::map<BlockKey, Tensor> blocks;
  const std::size_t r = legs.size();
  BlockKey key(r, 0);
  std::function<void(std::size_t, const Tensor&)> rec = [&](std::size_t i, const Tensor& x) {
    if (i == r) {
      if (x.numel() == 0) return;
      if (detail::key_charge(g, legs, key) == f) {
        blocks.emplace(key, x);
        return;
      }
      double worst = 0;
      {
        NoGradGuard no_grad;
        worst = cast(max(abs(tenferro::detach(x))), DType::f64).template item<double>();
      }
      if (worst > tol)
        throw Error(ErrorKind::InvalidArgument,
                    std::string(op) + ": the tensor is not symmetric: block " +
                        detail::key_string(legs, key) + " has an entry of magnitude " +
                        std::to_string(worst) + " > tol " + std::to_string(tol) +
                        ", but its signed charge sum " +
                        detail::charge_string(detail::key_charge(g, legs, key)) +
                        " is not the flux " + detail::charge_string(f));
      return;
    }
    for (std::size_t s = 0; s < legs[i].num_sectors(); ++s) {
      key[i] = static_cast<std::int64_t>(s);
      rec(i + 1, slice(x, static_cast<std::int64_t>(i), legs[i].offset(s),
                       legs[i].offset(s) + legs[i].sector_dim(s)));
    }
  };
  rec(0, dense);
  // Zero-size allowed blocks are kept (as zeros) so that every allowed key is stored.
  for (BlockKey& k : detail::allowed_keys(g, legs, f))
    if (!blocks.count(k))
      blocks.emplace(k, tenferro::zeros(detail::key_shape(legs, k), dense.dtype()));
  return BlockTensor(g, std::move(legs), f, dense.dtype(), std::move(blocks));
}

const Leg& BlockTensor::leg(std::size_t i) const {
  if (i >= legs_.size())
    throw Error(ErrorKind::InvalidArgument, "symmetric::BlockTensor::leg: leg " +
                                                std::to_string(i) + " of a tensor of rank " +
                                                std::to_string(legs_.size()));
  return legs_[i];
}

bool BlockTensor::allowed(const BlockKey& key) const {
  if (key.size() != legs_.size()) return false;
  for (std::size_t i = 0; i < key.size(); ++i)
    if (key[i] < 0 || static_cast<std::size_t>(key[i]) >= legs_[i].num_sectors()) return false;
  return detail::key_charge(group_, legs_, key) == flux_;
}

std::vector<BlockKey> BlockTensor::allowed_keys() const {
  return detail::allowed_keys(group_, legs_, flux_);
}

Dims BlockTensor::block_shape(const BlockKey& key) const { return detail::key_shape(legs_, key); }

Tensor BlockTensor::block(const BlockKey& key) const {
  if (auto it = blocks_.find(key); it != blocks_.end()) return it->second;
  if (!allowed(key))
    throw Error(ErrorKind::InvalidArgument,
                "symmetric::BlockTensor::block: block " + detail::key_string(legs_, key) +
                    " is not allowed by the flux " + detail::charge_string(flux_));
  return tenferro::zeros(block_shape(key), dtype_);
}

std::int64_t BlockTensor::stored_size() const {
  std::int64_t n = 0;
  for (const auto& [k, b] : blocks_) n += b.numel();
  return n;
}

Tensor BlockTensor::to_dense() const {
  // Nested concatenation over the sector grid (differentiable: blocks are inputs of the ops).
  const std::size_t r = legs_.size();
  if (r == 0) {
    auto it = blocks_.find({});
    return it != blocks_.end() ? it->second : tenferro::zeros({}, dtype_);
  }
  BlockKey key;
  std::function<Tensor(std::size_t)> rec = [&](std::size_t i) -> Tensor {
    Dims shape;
    for (std::size_t j = 0; j < i; ++j) shape.push_back(legs_[j].sector_dim(key[j]));
    for (std::size_t j = i; j < r; ++j) shape.push_back(legs_[j].dim());
    if (i == r) {
      auto it = blocks_.find(key);
      return it != blocks_.end() ? it->second : tenferro::zeros(shape, dtype_);
    }
    // A prefix no stored block starts with is all zeros.
    auto lo = std::lower_bound(blocks_.begin(), blocks_.end(), key,
                               [](const auto& kv, const BlockKey& k) { return kv.first < k; });
    if (lo == blocks_.end() || !std::equal(key.begin(), key.end(), lo->first.begin()))
      return tenferro::zeros(shape, dtype_);
    std::vector<Tensor> parts;
    for (std::size_t s = 0; s < legs_[i].num_sectors(); ++s) {
      if (legs_[i].sector_dim(s) == 0) continue;
      key.push_back(static_cast<std::int64_t>(s));
      parts.push_back(rec(i + 1));
      key.pop_back();
    }
    if (parts.empty()) return tenferro::zeros(shape, dtype_);
    if (parts.size() == 1) return parts[0];
    return concatenate(parts, static_cast<std::int64_t>(i));
  };
  return rec(0);
}

BlockTensor BlockTensor::filled() const {
  std::map<BlockKey, Tensor> blocks = blocks_;
  for (BlockKey& k : allowed_keys())
    if (!blocks.count(k)) blocks.emplace(k, tenferro::zeros(block_shape(k), dtype_));
  return BlockTensor(group_, legs_, flux_, dtype_, std::move(blocks));
}

BlockTensor& BlockTensor::requires_grad_(bool on) {
  for (auto& [k, b] : blocks_) b.requires_grad_(on);
  return *this;
}

bool BlockTensor::requires_grad() const {
  for (const auto& [k, b] : blocks_)
    if (b.requires_grad()) return true;
  return false;
}

BlockTensor BlockTensor::grad() const {
  std::map<BlockKey, Tensor> g;
  for (const auto& [k, b] : blocks_) {
    Tensor gb = b.grad();
    g.emplace(k, gb.defined() ? gb : tenferro::zeros(b.shape(), dtype_));
  }
  return BlockTensor(group_, legs_, flux_, dtype_, std::move(g));
}

BlockTensor BlockTensor::detach() const {
  std::map<BlockKey, Tensor> d;
  for (const auto& [k, b] : blocks_) d.emplace(k, tenferro::detach(b));
  return BlockTensor(group_, legs_, flux_, dtype_, std::move(d));
}

std::ostream& operator<<(std::ostream& os, const BlockTensor& t) {
  os << "BlockTensor(" << dtype_name(t.dtype()) << ", flux " << detail::charge_string(t.flux())
     << ", " << t.blocks().size() << " blocks, " << t.stored_size() << " stored elements)\n";
  for (std::size_t i = 0; i < t.rank(); ++i)
    os << "  leg " << i << ": " << t.leg(i).to_string() << "\n";
  return os;
}

}  // namespace tenferro::symmetric
