// The NumPy-style products, each lowered to dot_general plus views (so autodiff and tracing see
// one contraction primitive). Each validates its own arguments first so that errors name it.
#include <algorithm>

#include "core/strided.hpp"
#include "primitives/contract.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

[[noreturn]] void op_error(ErrorKind kind, const char* op, const Tensor& a, const Tensor& b,
                           const std::string& what) {
  const Tensor in[] = {a, b};
  throw Error(kind, std::string(op) + ": " + what + " (inputs: " + describe(in) + ")");
}

void check_defined(const char* op, const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined())
    op_error(ErrorKind::InvalidArgument, op, a, b, "an input tensor is undefined");
}

Dims range(std::int64_t begin, std::int64_t end) {
  Dims out;
  for (std::int64_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

Tensor flatten(const Tensor& x) { return x.rank() == 1 ? x : reshape(x, {x.numel()}); }

// Normalised, duplicate-free axes for tensordot.
Dims tensordot_axes(const char* op, const Tensor& a, const Tensor& b, const Tensor& t,
                    const Dims& axes, const char* which) {
  Dims out;
  for (std::int64_t ax : axes) {
    if (ax < -t.rank() || ax >= t.rank())
      op_error(ErrorKind::InvalidArgument, op, a, b,
               std::string(which) + " axis " + std::to_string(ax) + " is out of range for rank " +
                   std::to_string(t.rank()));
    std::int64_t n = ax < 0 ? ax + t.rank() : ax;
    if (std::find(out.begin(), out.end(), n) != out.end())
      op_error(ErrorKind::InvalidArgument, op, a, b,
               std::string(which) + " axes " + dims_to_string(axes) + " repeat axis " +
                   std::to_string(n));
    out.push_back(n);
  }
  return out;
}

// Note [Shared product primitives]: bmm, 2-D matmul and batched matmul with one batch dimension
// use fixed dimension lists, so they bind one immutable static primitive each instead of building
// four Dims lists and a primitive per call (bind() only reads the primitive; share() copies it).
DotGeneralParams plain_params(DotDims dims) {
  DotGeneralParams p;
  p.dims = std::move(dims);
  return p;
}

// [B, m, k] x [B, k, n].
const DotGeneralPrim& batched_matmul_prim() {
  // One function-local static (one guard to check per call), marked when it is made.
  static const DotGeneralPrim& prim = []() -> const DotGeneralPrim& {
    static const DotGeneralPrim p(plain_params(DotDims{{0}, {0}, {2}, {1}}));
    p.mark_static();
    return p;
  }();
  return prim;
}
// matmul of operands of rank <= 2: a's last dimension with b's first.
const DotGeneralPrim& plain_matmul_prim(bool a_is_vector) {
  static const DotGeneralPrim vec(plain_params(DotDims{{}, {}, {0}, {0}}));
  static const DotGeneralPrim mat(plain_params(DotDims{{}, {}, {1}, {0}}));
  static const bool marked = vec.mark_static() && mat.mark_static();
  (void)marked;
  return a_is_vector ? vec : mat;
}

// x @ y for operands of equal rank r >= 3 and equal batch dimensions [..., m, k] @ [..., k, n]:
// the shared primitive for one batch dimension, else one dot_general over the r - 2 batch dims.
Tensor batched_matmul(const Tensor& x, const Tensor& y) {
  const std::int64_t r = x.rank();
  if (r == 3) return bind1(batched_matmul_prim(), x, y);
  Dims bd = range(0, r - 2);
  return dot_general_ex(x, y, plain_params(DotDims{bd, bd, {r - 1}, {r - 2}}));
}

}  // namespace

}  // namespace detail

using detail::op_error;

Tensor matmul(const Tensor& a, const Tensor& b) {
  detail::check_defined("matmul", a, b);
  const std::int64_t ra = a.rank(), rb = b.rank();
  if (ra == 0 || rb == 0)
    op_error(ErrorKind::InvalidArgument, "matmul", a, b,
             "operands must have rank >= 1 (use a product for scalars)");
  const std::int64_t ka = a.shape()[static_cast<std::size_t>(ra - 1)];
  const std::int64_t kb = rb == 1 ? b.shape()[0] : b.shape()[static_cast<std::size_t>(rb - 2)];
  if (ka != kb)
    op_error(ErrorKind::ShapeMismatch, "matmul", a, b,
             "the last dimension of a (" + std::to_string(ka) + ") must equal " +
                 (rb == 1 ? std::string("the size of b")
                          : std::string("the second-to-last dimension of b")) +
                 " (" + std::to_string(kb) + ")");
  // Without batch dimensions on both sides no broadcast is needed: the free dimensions of
  // dot_general already come out in matmul order.
  if (ra <= 2 || rb <= 2) {
    if (rb <= 2 || ra == 1) {
      if (ra <= 2 && rb <= 2)  // lists {ra - 1}, {0}: Note [Shared product primitives]
        return detail::bind1(detail::plain_matmul_prim(ra == 1), a, b);
      return detail::dot_general_ex(
          a, b, detail::plain_params(DotDims{{}, {}, {ra - 1}, {rb == 1 ? 0 : rb - 2}}));
    }
  }
  // Batched with equal batch dimensions (the common case, e.g. [B, m, k] @ [B, k, n]): no
  // broadcast view and no shape list to build.
  if (ra == rb && std::equal(a.shape().begin(), a.shape().end() - 2, b.shape().begin()))
    return detail::batched_matmul(a, b);
  // Batched: broadcast the batch dimensions (NumPy rules), then one batched dot_general.
  const std::int64_t nba = ra - 2, nbb = rb - 2, nb = std::max(nba, nbb);
  Dims batch(static_cast<std::size_t>(nb), 1);
  for (std::int64_t i = 0; i < nb; ++i) {
    const std::int64_t ia = i - (nb - nba), ib = i - (nb - nbb);
    const std::int64_t sa = ia >= 0 ? a.shape()[static_cast<std::size_t>(ia)] : 1;
    const std::int64_t sb = ib >= 0 ? b.shape()[static_cast<std::size_t>(ib)] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      op_error(ErrorKind::ShapeMismatch, "matmul", a, b,
               "batch dimensions do not broadcast (" + std::to_string(sa) + " vs " +
                   std::to_string(sb) + ")");
    batch[static_cast<std::size_t>(i)] = sa == 1 ? sb : sa;
  }
  auto full = [&](const Tensor& x) {
    Dims shape = batch;
    shape.push_back(x.shape()[static_cast<std::size_t>(x.rank() - 2)]);
    shape.push_back(x.shape()[static_cast<std::size_t>(x.rank() - 1)]);
    return x.shape() == shape ? x : broadcast_to(x, std::move(shape));
  };
  return detail::batched_matmul(full(a), full(b));
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  detail::check_defined("bmm", a, b);
  if (a.rank() != 3 || b.rank() != 3)
    op_error(ErrorKind::InvalidArgument, "bmm", a, b,
             "expected two rank-3 tensors [B, m, k] and [B, k, n]");
  if (a.shape()[0] != b.shape()[0])
    op_error(ErrorKind::ShapeMismatch, "bmm", a, b,
             "batch sizes differ; expected equal batch sizes");
  if (a.shape()[2] != b.shape()[1])
    op_error(ErrorKind::ShapeMismatch, "bmm", a, b, "a's dimension 2 must equal b's dimension 1");
  return detail::bind1(detail::batched_matmul_prim(), a, b);
}

Tensor tensordot(const Tensor& a, const Tensor& b, Dims axes_a, Dims axes_b) {
  detail::check_defined("tensordot", a, b);
  if (axes_a.size() != axes_b.size())
    op_error(ErrorKind::InvalidArgument, "tensordot", a, b,
             "axes lists " + dims_to_string(axes_a) + " and " + dims_to_string(axes_b) +
                 " differ in length");
  Dims la = detail::tensordot_axes("tensordot", a, b, a, axes_a, "a");
  Dims lb = detail::tensordot_axes("tensordot", a, b, b, axes_b, "b");
  for (std::size_t i = 0; i < la.size(); ++i)
    if (a.shape()[static_cast<std::size_t>(la[i])] != b.shape()[static_cast<std::size_t>(lb[i])])
      op_error(ErrorKind::ShapeMismatch, "tensordot", a, b,
               "a axis " + std::to_string(la[i]) + " and b axis " + std::to_string(lb[i]) +
                   " differ in size");
  return dot_general(a, b, DotDims{{}, {}, std::move(la), std::move(lb)});
}

Tensor tensordot(const Tensor& a, const Tensor& b, std::int64_t n) {
  detail::check_defined("tensordot", a, b);
  if (n < 0 || n > a.rank() || n > b.rank())
    op_error(ErrorKind::InvalidArgument, "tensordot", a, b,
             "n=" + std::to_string(n) + " must be in [0, min(rank a, rank b)]");
  return tensordot(a, b, detail::range(a.rank() - n, a.rank()), detail::range(0, n));
}

Tensor outer(const Tensor& a, const Tensor& b) {
  detail::check_defined("outer", a, b);
  return dot_general(detail::flatten(a), detail::flatten(b), DotDims{});
}

Tensor inner(const Tensor& a, const Tensor& b) {
  detail::check_defined("inner", a, b);
  if (a.rank() == 0 || b.rank() == 0)
    op_error(ErrorKind::InvalidArgument, "inner", a, b, "operands must have rank >= 1");
  if (a.shape().back() != b.shape().back())
    op_error(ErrorKind::ShapeMismatch, "inner", a, b,
             "the last dimensions differ; expected equal sizes");
  return dot_general(a, b, DotDims{{}, {}, {a.rank() - 1}, {b.rank() - 1}});
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  detail::check_defined("vdot", a, b);
  if (a.numel() != b.numel())
    op_error(ErrorKind::ShapeMismatch, "vdot", a, b,
             "element counts differ; expected equal counts");
  detail::DotGeneralParams p;
  p.dims = DotDims{{}, {}, {0}, {0}};
  p.conj_lhs = true;
  return detail::dot_general_ex(detail::flatten(a), detail::flatten(b), std::move(p));
}

}  // namespace tenferro
