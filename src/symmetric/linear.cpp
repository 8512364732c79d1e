// Structure and vector operations on BlockTensors: permute, conj, linear combinations, inner
// products, norms, traces, per-sector scaling (tenferro/symmetric.hpp). Each maps to catalog ops
// on the blocks, so autodiff and tracing see ordinary ops.
#include <numeric>

#include "symmetric/internal.hpp"

namespace tenferro::symmetric {

using detail::make;

BlockTensor permute(const BlockTensor& t, Dims axes) {
  const std::size_t r = t.rank();
  if (axes.size() != r)
    throw Error(ErrorKind::InvalidArgument, "symmetric::permute: " + std::to_string(axes.size()) +
                                                " axes for rank " + std::to_string(r));
  std::vector<bool> seen(r, false);
  for (auto& a : axes) {
    a = detail::normalize_axis("symmetric::permute", a, r);
    if (seen[a])
      throw Error(ErrorKind::InvalidArgument,
                  "symmetric::permute: axis " + std::to_string(a) + " repeated");
    seen[a] = true;
  }
  bool identity = true;
  for (std::size_t i = 0; i < r; ++i)
    identity = identity && axes[i] == static_cast<std::int64_t>(i);
  if (identity) return t;
  std::vector<Leg> legs;
  for (auto a : axes) legs.push_back(t.leg(a));
  std::map<BlockKey, Tensor> blocks;
  for (const auto& [key, b] : t.blocks()) {
    BlockKey k(r);
    for (std::size_t i = 0; i < r; ++i) k[i] = key[axes[i]];
    blocks.emplace(std::move(k), tenferro::permute(b, axes));
  }
  return make(t.group(), std::move(legs), t.flux(), t.dtype(), std::move(blocks));
}

BlockTensor conj(const BlockTensor& t) {
  std::vector<Leg> legs;
  for (const Leg& l : t.legs()) legs.push_back(l.dual());
  std::map<BlockKey, Tensor> blocks;
  const bool complex = is_complex(t.dtype());
  for (const auto& [key, b] : t.blocks()) blocks.emplace(key, complex ? tenferro::conj(b) : b);
  return make(t.group(), std::move(legs), t.group().dual(t.flux()), t.dtype(), std::move(blocks));
}

BlockTensor dagger(const BlockTensor& t) {
  Dims rev;
  for (std::size_t i = t.rank(); i-- > 0;) rev.push_back(static_cast<std::int64_t>(i));
  return permute(conj(t), rev);
}

namespace {

// The dtype of c * x for a coefficient c: a complex coefficient makes a real dtype complex (as a
// complex Scalar does in mul).
DType with_coefficient(DType dt, Scalar c) {
  return c.imag() != 0 && !is_complex(dt) ? promote(dt, DType::c64) : dt;
}

BlockTensor combine(const char* op, const BlockTensor& a, Scalar alpha, const BlockTensor& b,
                    Scalar beta) {
  detail::require_same_structure(op, a, b);
  const DType dt = with_coefficient(with_coefficient(promote(a.dtype(), b.dtype()), alpha), beta);
  auto scaled = [](const Tensor& x, Scalar c) { return c == Scalar(1) ? x : mul(x, c); };
  auto as_dt = [dt](Tensor y) { return y.dtype() == dt ? y : cast(y, dt); };
  std::map<BlockKey, Tensor> blocks;
  auto ib = b.blocks().begin();
  for (const auto& [key, x] : a.blocks()) {
    for (; ib != b.blocks().end() && ib->first < key; ++ib)
      blocks.emplace(ib->first, as_dt(scaled(ib->second, beta)));
    if (ib != b.blocks().end() && ib->first == key) {
      blocks.emplace(key, as_dt(add(scaled(x, alpha), scaled(ib->second, beta))));
      ++ib;
    } else {
      blocks.emplace(key, as_dt(scaled(x, alpha)));
    }
  }
  for (; ib != b.blocks().end(); ++ib) blocks.emplace(ib->first, as_dt(scaled(ib->second, beta)));
  return make(a.group(), a.legs(), a.flux(), dt, std::move(blocks));
}

}  // namespace

BlockTensor add(const BlockTensor& a, const BlockTensor& b) {
  return combine("symmetric::add", a, 1.0, b, 1.0);
}
BlockTensor sub(const BlockTensor& a, const BlockTensor& b) {
  return combine("symmetric::sub", a, 1.0, b, -1.0);
}
BlockTensor axpy(Scalar alpha, const BlockTensor& x, const BlockTensor& y) {
  return combine("symmetric::axpy", x, alpha, y, 1.0);
}
BlockTensor operator+(const BlockTensor& a, const BlockTensor& b) { return add(a, b); }
BlockTensor operator-(const BlockTensor& a, const BlockTensor& b) { return sub(a, b); }

BlockTensor scale(const BlockTensor& t, Scalar alpha) {
  std::map<BlockKey, Tensor> blocks;
  const DType dt = with_coefficient(t.dtype(), alpha);
  for (const auto& [key, b] : t.blocks()) {
    Tensor y = mul(b, alpha);
    blocks.emplace(key, y.dtype() == dt ? y : cast(y, dt));
  }
  return make(t.group(), t.legs(), t.flux(), dt, std::move(blocks));
}

BlockTensor scale(const BlockTensor& t, const Tensor& alpha) {
  if (alpha.rank() != 0)
    throw Error(ErrorKind::ShapeMismatch, "symmetric::scale: alpha must be 0-dimensional, got " +
                                              dims_to_string(alpha.shape()));
  const DType dt = promote(t.dtype(), alpha.dtype());
  std::map<BlockKey, Tensor> blocks;
  for (const auto& [key, b] : t.blocks()) blocks.emplace(key, mul(b, alpha));
  return make(t.group(), t.legs(), t.flux(), dt, std::move(blocks));
}

BlockTensor operator*(Scalar alpha, const BlockTensor& t) { return scale(t, alpha); }

Tensor inner(const BlockTensor& a, const BlockTensor& b) {
  detail::require_same_structure("symmetric::inner", a, b);
  Tensor acc;
  for (const auto& [key, x] : a.blocks()) {
    auto it = b.blocks().find(key);
    if (it == b.blocks().end() || x.numel() == 0) continue;
    Tensor v = vdot(x, it->second);
    acc = acc.defined() ? add(acc, v) : v;
  }
  return acc.defined() ? acc : tenferro::zeros({}, promote(a.dtype(), b.dtype()));
}

Tensor norm(const BlockTensor& t) {
  std::vector<Tensor> flat;
  for (const auto& [key, b] : t.blocks())
    if (b.numel() > 0) flat.push_back(reshape(b, {b.numel()}));
  if (flat.empty()) return tenferro::zeros({}, real_dtype(t.dtype()));
  return tenferro::norm(flat.size() == 1 ? flat[0] : concatenate(flat, 0));
}

Tensor scalar(const BlockTensor& t) {
  if (t.rank() != 0)
    throw Error(ErrorKind::InvalidArgument,
                "symmetric::scalar: the tensor has rank " + std::to_string(t.rank()) + ", not 0");
  auto it = t.blocks().find({});
  return it != t.blocks().end() ? it->second : tenferro::zeros({}, t.dtype());
}

BlockTensor trace(const BlockTensor& t, Dims axes_a, Dims axes_b) {
  const char* op = "symmetric::trace";
  const std::size_t r = t.rank();
  if (axes_a.size() != axes_b.size())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": " + std::to_string(axes_a.size()) +
                                                " and " + std::to_string(axes_b.size()) + " axes");
  std::vector<bool> used(r, false);
  for (std::size_t k = 0; k < axes_a.size(); ++k) {
    axes_a[k] = detail::normalize_axis(op, axes_a[k], r);
    axes_b[k] = detail::normalize_axis(op, axes_b[k], r);
    for (auto ax : {axes_a[k], axes_b[k]}) {
      if (used[ax])
        throw Error(ErrorKind::InvalidArgument,
                    std::string(op) + ": axis " + std::to_string(ax) + " used twice");
      used[ax] = true;
    }
    if (!is_dual(t.leg(axes_a[k]), t.leg(axes_b[k])))
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": legs " + std::to_string(axes_a[k]) + " (" +
                      t.leg(axes_a[k]).to_string() + ") and " + std::to_string(axes_b[k]) + " (" +
                      t.leg(axes_b[k]).to_string() + ") are not dual");
  }
  Dims rest;
  std::vector<Leg> legs;
  for (std::size_t i = 0; i < r; ++i)
    if (!used[i]) {
      rest.push_back(static_cast<std::int64_t>(i));
      legs.push_back(t.leg(i));
    }
  Dims order = rest;
  for (auto a : axes_a) order.push_back(a);
  for (auto b : axes_b) order.push_back(b);
  std::map<BlockKey, Tensor> blocks;
  for (const auto& [key, b] : t.blocks()) {
    bool on_diagonal = true;
    for (std::size_t k = 0; k < axes_a.size(); ++k)
      on_diagonal = on_diagonal && key[axes_a[k]] == key[axes_b[k]];
    if (!on_diagonal) continue;
    BlockKey out;
    Dims shape;
    for (auto i : rest) {
      out.push_back(key[i]);
      shape.push_back(b.shape()[i]);
    }
    std::int64_t p = 1;
    for (auto a : axes_a) p *= b.shape()[a];
    Dims mshape = shape;
    mshape.push_back(p);
    mshape.push_back(p);
    Tensor d =
        sum(tenferro::diagonal(reshape(tenferro::permute(b, order), mshape), 0, -2, -1), {-1});
    if (auto it = blocks.find(out); it != blocks.end())
      it->second = add(it->second, d);
    else
      blocks.emplace(std::move(out), d);
  }
  return make(t.group(), std::move(legs), t.flux(), t.dtype(), std::move(blocks));
}

BlockTensor scale_leg(const BlockTensor& t, std::int64_t axis, std::span<const Tensor> weights) {
  const char* op = "symmetric::scale_leg";
  axis = detail::normalize_axis(op, axis, t.rank());
  const Leg& leg = t.leg(axis);
  if (weights.size() != leg.num_sectors())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": " + std::to_string(weights.size()) + " weights for a leg of " +
                    std::to_string(leg.num_sectors()) + " sectors");
  for (std::size_t s = 0; s < weights.size(); ++s)
    if (weights[s].defined() &&
        (weights[s].rank() != 1 || weights[s].shape()[0] != leg.sector_dim(s)))
      throw Error(ErrorKind::ShapeMismatch,
                  std::string(op) + ": weights of sector " + std::to_string(s) + " have shape " +
                      dims_to_string(weights[s].shape()) + ", the sector needs [" +
                      std::to_string(leg.sector_dim(s)) + "]");
  DType dt = t.dtype();
  for (const Tensor& w : weights)
    if (w.defined()) dt = promote(dt, w.dtype());
  std::map<BlockKey, Tensor> blocks;
  for (const auto& [key, b] : t.blocks()) {
    const Tensor& w = weights[key[axis]];
    if (!w.defined()) continue;
    Dims shape(t.rank(), 1);
    shape[axis] = w.shape()[0];
    blocks.emplace(key, mul(b, reshape(w, shape)));
  }
  return make(t.group(), t.legs(), t.flux(), dt, std::move(blocks));
}

}  // namespace tenferro::symmetric
