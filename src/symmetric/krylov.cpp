// The Krylov solvers on BlockTensors: the vector the solvers see is the concatenation of the
// allowed blocks (Note [Krylov vectors] in src/krylov/space.hpp: they only take inner products,
// linear combinations and norms, which the concatenation preserves), and the user's map works on
// BlockTensors views of it, so the effective operator stays block-sparse. Packing is one
// concatenation (differentiable), unpacking is slices (views).
#include "symmetric/internal.hpp"

namespace tenferro::symmetric {
namespace {

struct Layout {
  BlockTensor proto;  // legs, flux, dtype
  std::vector<BlockKey> keys;
  std::vector<Dims> shapes;
  std::vector<std::int64_t> offsets;
  std::int64_t size = 0;
};

Layout layout_of(const BlockTensor& x) {
  Layout l;
  l.proto = detail::make(x.group(), x.legs(), x.flux(), x.dtype(), {});
  l.keys = x.allowed_keys();
  for (const BlockKey& k : l.keys) {
    l.shapes.push_back(x.block_shape(k));
    l.offsets.push_back(l.size);
    l.size += dims_numel(l.shapes.back());
  }
  return l;
}

Tensor pack(const char* op, const Layout& l, const BlockTensor& x, const char* what) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": " + what + " is undefined");
  detail::require_same_structure(op, l.proto, x);
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < l.keys.size(); ++i) {
    const std::int64_t n = dims_numel(l.shapes[i]);
    if (n == 0) continue;
    auto it = x.blocks().find(l.keys[i]);
    parts.push_back(it != x.blocks().end() ? reshape(it->second, {n}) : zeros({n}, x.dtype()));
  }
  if (parts.empty())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": " + what +
                                                " has no allowed element (a zero-dimensional "
                                                "vector space)");
  return parts.size() == 1 ? parts[0] : concatenate(parts, 0);
}

BlockTensor unpack(const Layout& l, const Tensor& v) {
  std::map<BlockKey, Tensor> blocks;
  for (std::size_t i = 0; i < l.keys.size(); ++i) {
    const std::int64_t n = dims_numel(l.shapes[i]);
    blocks.emplace(l.keys[i], reshape(slice(v, 0, l.offsets[i], l.offsets[i] + n), l.shapes[i]));
  }
  return detail::make(l.proto.group(), l.proto.legs(), l.proto.flux(), v.dtype(),
                      std::move(blocks));
}

ScalarFn flat_map(const char* op, BlockMap f, std::shared_ptr<const Layout> l) {
  return [op, f = std::move(f), l](std::span<const Tensor> v) {
    const BlockTensor y = f(unpack(*l, v[0]));
    return pack(op, *l, y, "f(x)");
  };
}

}  // namespace

BlockEigshResult eigsh(BlockMap f, const BlockTensor& x0, std::int64_t k,
                       const EigshOptions& options) {
  const char* op = "symmetric::eigsh";
  auto l = std::make_shared<const Layout>(layout_of(x0));
  const Tensor v0 = pack(op, *l, x0, "x0");
  EigshResult r = tenferro::eigsh(flat_map(op, std::move(f), l), v0, k, options);
  BlockEigshResult out{std::move(r.eigenvalues), {}, std::move(r.info)};
  for (const Tensor& v : r.eigenvectors) out.eigenvectors.push_back(unpack(*l, v));
  return out;
}

BlockLinsolveResult linsolve(BlockMap f, const BlockTensor& b, const BlockTensor& x0,
                             const LinsolveOptions& options) {
  const char* op = "symmetric::linsolve";
  auto l = std::make_shared<const Layout>(layout_of(b));
  const Tensor vb = pack(op, *l, b, "b");
  const Tensor vx = x0.defined() ? pack(op, *l, x0, "x0") : Tensor();
  LinsolveOptions opts = options;
  opts.adjoint = nullptr;  // a Tensor -> Tensor adjoint cannot act on the packed vector
  LinsolveResult r = tenferro::linsolve(flat_map(op, std::move(f), l), vb, vx, opts);
  return {unpack(*l, r.x), std::move(r.info)};
}

BlockExponentiateResult exponentiate(BlockMap f, Scalar t, const BlockTensor& x,
                                     const ExponentiateOptions& options) {
  const char* op = "symmetric::exponentiate";
  auto l = std::make_shared<const Layout>(layout_of(x));
  const Tensor vx = pack(op, *l, x, "x");
  ExponentiateOptions opts = options;
  opts.adjoint = nullptr;
  ExponentiateResult r = tenferro::exponentiate(flat_map(op, std::move(f), l), t, vx, opts);
  return {unpack(*l, r.x), std::move(r.info)};
}

}  // namespace tenferro::symmetric
