// dot_general: shape rule, kernel entry, JVP and VJP (Note [dot_general parameters]).
#include "primitives/contract.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/strided.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

[[noreturn]] void dot_error(ErrorKind kind, std::span<const Tensor> in, const std::string& what,
                            const DotGeneralParams& p) {
  throw Error(kind, "dot_general: " + what + " (inputs: " + describe(in) +
                        "; lhs_batch=" + dims_to_string(p.dims.lhs_batch) +
                        " rhs_batch=" + dims_to_string(p.dims.rhs_batch) +
                        " lhs_contract=" + dims_to_string(p.dims.lhs_contract) +
                        " rhs_contract=" + dims_to_string(p.dims.rhs_contract) + ")");
}

// Every listed dimension in [0, rank) and used at most once across batch and contract lists.
// Returns which dimensions are listed (the rest are the operand's free dimensions).
SmallVector<bool, 8> check_lists(std::span<const Tensor> in, const DotGeneralParams& p,
                                 std::size_t which) {
  const Tensor& t = in[which];
  const Dims& batch = which == 0 ? p.dims.lhs_batch : p.dims.rhs_batch;
  const Dims& contract = which == 0 ? p.dims.lhs_contract : p.dims.rhs_contract;
  const char* side = which == 0 ? "lhs" : "rhs";
  SmallVector<bool, 8> seen(static_cast<std::size_t>(t.rank()), false);
  for (const Dims* list : {&batch, &contract}) {
    for (std::int64_t d : *list) {
      if (d < 0 || d >= t.rank())
        dot_error(ErrorKind::InvalidArgument, in,
                  std::string(side) + " dimension " + std::to_string(d) +
                      " is out of range for rank " + std::to_string(t.rank()) +
                      "; expected 0 <= dim < rank",
                  p);
      if (seen[static_cast<std::size_t>(d)])
        dot_error(ErrorKind::InvalidArgument, in,
                  std::string(side) + " dimension " + std::to_string(d) +
                      " appears more than once; expected each dimension at most once across batch "
                      "and contracting lists",
                  p);
      seen[static_cast<std::size_t>(d)] = true;
    }
  }
  return seen;
}

void check_pairs(std::span<const Tensor> in, const DotGeneralParams& p, const Dims& l,
                 const Dims& r, const char* what) {
  if (l.size() != r.size())
    dot_error(ErrorKind::InvalidArgument, in,
              std::string(what) + " lists have different lengths (" + std::to_string(l.size()) +
                  " vs " + std::to_string(r.size()) + "); expected equal lengths",
              p);
  for (std::size_t i = 0; i < l.size(); ++i) {
    std::int64_t ls = in[0].shape()[static_cast<std::size_t>(l[i])];
    std::int64_t rs = in[1].shape()[static_cast<std::size_t>(r[i])];
    if (ls != rs)
      dot_error(ErrorKind::ShapeMismatch, in,
                std::string(what) + " dimension pair " + std::to_string(i) + " (lhs dim " +
                    std::to_string(l[i]) + ", rhs dim " + std::to_string(r[i]) + ") has sizes " +
                    std::to_string(ls) + " and " + std::to_string(rs) + "; expected equal sizes",
                p);
  }
}

bool listed(const Dims& a, const Dims& b, std::int64_t d) {
  return std::find(a.begin(), a.end(), d) != a.end() || std::find(b.begin(), b.end(), d) != b.end();
}

// Dimensions of a rank-r operand that are neither batch nor contracted, increasing.
Dims free_dims(std::int64_t rank, const Dims& batch, const Dims& contract) {
  Dims out;
  for (std::int64_t d = 0; d < rank; ++d)
    if (!listed(batch, contract, d)) out.push_back(d);
  return out;
}

Dims iota(std::int64_t begin, std::int64_t count) {
  Dims out;
  for (std::int64_t i = 0; i < count; ++i) out.push_back(begin + i);
  return out;
}

// Stable argsort by insertion: the lists are a few dimensions long, and std::stable_sort takes a
// heap buffer (one allocation per VJP of every contraction).
Dims argsort(const Dims& v) {
  Dims idx = iota(0, static_cast<std::int64_t>(v.size()));
  for (std::size_t i = 1; i < idx.size(); ++i) {
    const std::int64_t x = idx[i];
    std::size_t j = i;
    for (; j > 0 && v[static_cast<std::size_t>(x)] < v[static_cast<std::size_t>(idx[j - 1])]; --j)
      idx[j] = idx[j - 1];
    idx[j] = x;
  }
  return idx;
}

bool is_identity(const Dims& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

// r, whose dimension i is the operand's dimension order[i], viewed in the operand's own order.
Tensor in_operand_order(const Tensor& r, const Dims& order) {
  Dims back = argsort(order);
  return is_identity(back) ? r : permute(r, std::move(back));
}

// Cotangent of the lhs x of dot_general(x, y) (JAX's _dot_general_transpose_lhs). `g` has the
// output layout [batch, x free, y free]. Conjugation per Note [dot_general parameters]: for
// conj_x = false, x_bar = g . conj(op_y(y)); for conj_x = true, x_bar = conj(g) . op_y(y).
// `x_kept`, `y_kept`: the operands' free dimensions (free_dims), shared by both transposes.
Tensor transpose_lhs(const Tensor& g, const Tensor& x, const Tensor& y, const DotGeneralParams& p,
                     const Dims& x_kept, const Dims& y_kept) {
  const DotDims& d = p.dims;
  const auto nb = static_cast<std::int64_t>(d.lhs_batch.size());
  const auto nx = static_cast<std::int64_t>(x_kept.size()),
             ny = static_cast<std::int64_t>(y_kept.size());
  DotGeneralParams q;
  q.dims.lhs_batch = iota(0, nb);
  q.dims.rhs_batch = d.rhs_batch;
  q.dims.lhs_contract = iota(nb + nx, ny);
  q.dims.rhs_contract = y_kept;
  q.conj_lhs = p.conj_lhs;
  q.conj_rhs = p.conj_lhs == p.conj_rhs;
  q.out_dtype = x.dtype();
  // Result layout: x_batch, x_kept, then x_contract ordered by their partners in y.
  Dims order = d.lhs_batch;
  order.append(x_kept.begin(), x_kept.end());
  for (std::int64_t i : argsort(d.rhs_contract))
    order.push_back(d.lhs_contract[static_cast<std::size_t>(i)]);
  return in_operand_order(dot_general_ex(g, y, std::move(q)), order);
}

// Cotangent of the rhs y, computed as dot_general(x, g) (x's free dimensions contracted with
// g's) rather than JAX's swapped transpose_lhs: the result then comes out as [batch, y's
// contracted dims, y free] -- y's own layout for the usual [batch, k, n] operand, so no permute
// view and a contiguous gradient. Conjugation as in transpose_lhs with the roles exchanged:
// y_bar = op(x)^T . g with x conjugated unless exactly one operand was, g conjugated iff y was.
Tensor transpose_rhs(const Tensor& g, const Tensor& x, const Tensor& y, const DotGeneralParams& p,
                     const Dims& x_kept, const Dims& y_kept) {
  const DotDims& d = p.dims;
  const auto nb = static_cast<std::int64_t>(d.lhs_batch.size());
  const auto nx = static_cast<std::int64_t>(x_kept.size());
  DotGeneralParams q;
  q.dims.lhs_batch = d.lhs_batch;
  q.dims.rhs_batch = iota(0, nb);
  q.dims.lhs_contract = x_kept;
  q.dims.rhs_contract = iota(nb, nx);
  q.conj_lhs = p.conj_lhs == p.conj_rhs;
  q.conj_rhs = p.conj_rhs;
  q.out_dtype = y.dtype();
  // Result layout: y_batch, the partners of x's contracted dims in x's order, y_kept.
  Dims order = d.rhs_batch;
  for (std::int64_t i : argsort(d.lhs_contract))
    order.push_back(d.rhs_contract[static_cast<std::size_t>(i)]);
  order.append(y_kept.begin(), y_kept.end());
  return in_operand_order(dot_general_ex(x, g, std::move(q)), order);
}

}  // namespace

std::string DotGeneralPrim::params() const {
  std::string s = "lhs_batch=" + dims_to_string(p_.dims.lhs_batch) +
                  " rhs_batch=" + dims_to_string(p_.dims.rhs_batch) +
                  " lhs_contract=" + dims_to_string(p_.dims.lhs_contract) +
                  " rhs_contract=" + dims_to_string(p_.dims.rhs_contract);
  if (p_.conj_lhs) s += " conj_lhs=true";
  if (p_.conj_rhs) s += " conj_rhs=true";
  if (p_.out_dtype) s += " out_dtype=" + std::string(dtype_name(*p_.out_dtype));
  return s;
}

namespace {
// The bit mask of one operand's listed dimensions and 1 + the largest entry, or false when an
// entry is negative, >= 64 or repeated (Note [dot_general list masks]).
bool mask_of(const Dims& batch, const Dims& contract, std::uint64_t& mask, std::uint8_t& need) {
  mask = 0;
  need = 0;
  for (const Dims* list : {&batch, &contract})
    for (std::int64_t d : *list) {
      if (d < 0 || d >= 64 || (mask >> d & 1)) return false;
      mask |= std::uint64_t{1} << d;
      need = std::max(need, static_cast<std::uint8_t>(d + 1));
    }
  return true;
}
}  // namespace

DotGeneralPrim::DotGeneralPrim(DotGeneralParams p) : p_(std::move(p)) {
  const DotDims& d = p_.dims;
  lists_simple_ = d.lhs_batch.size() == d.rhs_batch.size() &&
                  d.lhs_contract.size() == d.rhs_contract.size() &&
                  mask_of(d.lhs_batch, d.lhs_contract, lhs_listed_, lhs_min_rank_) &&
                  mask_of(d.rhs_batch, d.rhs_contract, rhs_listed_, rhs_min_rank_);
}

void DotGeneralPrim::infer(std::span<const Tensor> in, SpecList& out) const {
  if (in.size() != 2)
    throw Error(ErrorKind::InvalidArgument,
                "dot_general: expected 2 inputs, got " + std::to_string(in.size()));
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  // The common case: lists valid for these ranks, known from construction (Note [dot_general
  // list masks]). Everything else, including every invalid list, takes the list path below,
  // whose checks throw the precise errors.
  if (lists_simple_ && a.rank() >= lhs_min_rank_ && b.rank() >= rhs_min_rank_ && a.rank() <= 64 &&
      b.rank() <= 64) {
    check_pairs(in, p_, p_.dims.lhs_batch, p_.dims.rhs_batch, "batch");
    check_pairs(in, p_, p_.dims.lhs_contract, p_.dims.rhs_contract, "contracting");
    TensorSpec& spec = out.emplace_back();
    spec.dtype = p_.out_dtype ? *p_.out_dtype : promote(a.dtype(), b.dtype());
    for (std::int64_t d : p_.dims.lhs_batch)
      spec.shape.push_back(a.shape()[static_cast<std::size_t>(d)]);
    for (std::size_t d = 0; d < a.shape().size(); ++d)
      if (!(lhs_listed_ >> d & 1)) spec.shape.push_back(a.shape()[d]);
    for (std::size_t d = 0; d < b.shape().size(); ++d)
      if (!(rhs_listed_ >> d & 1)) spec.shape.push_back(b.shape()[d]);
    return;
  }
  const SmallVector<bool, 8> listed_a = check_lists(in, p_, 0);
  const SmallVector<bool, 8> listed_b = check_lists(in, p_, 1);
  check_pairs(in, p_, p_.dims.lhs_batch, p_.dims.rhs_batch, "batch");
  check_pairs(in, p_, p_.dims.lhs_contract, p_.dims.rhs_contract, "contracting");
  TensorSpec spec;
  spec.dtype = p_.out_dtype ? *p_.out_dtype : promote(a.dtype(), b.dtype());
  for (std::int64_t d : p_.dims.lhs_batch)
    spec.shape.push_back(a.shape()[static_cast<std::size_t>(d)]);
  for (std::size_t d = 0; d < listed_a.size(); ++d)
    if (!listed_a[d]) spec.shape.push_back(a.shape()[d]);
  for (std::size_t d = 0; d < listed_b.size(); ++d)
    if (!listed_b[d]) spec.shape.push_back(b.shape()[d]);
  out.push_back(std::move(spec));
}

void DotGeneralPrim::execute(ExecContext& ctx, std::span<const Tensor> in,
                             std::span<Tensor> out) const {
  dot_general_kernel(ctx, in[0], in[1], p_, out[0]);
}

void DotGeneralPrim::jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
                         std::span<const Tensor> t, std::span<Tensor> out_t) const {
  DotGeneralParams q = p_;
  q.out_dtype = outputs[0].dtype();
  Tensor da, db;
  if (t[0].defined()) da = dot_general_ex(t[0], primals[1], q);
  if (t[1].defined()) db = dot_general_ex(primals[0], t[1], q);
  if (da.defined() && db.defined())
    out_t[0] = add(da, db);
  else
    out_t[0] = da.defined() ? da : db;
}

void DotGeneralPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor>,
                         std::span<const Tensor> ct, std::span<const bool> needs,
                         std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  const Tensor &x = primals[0], &y = primals[1];
  const Dims x_kept = free_dims(x.rank(), p_.dims.lhs_batch, p_.dims.lhs_contract);
  const Dims y_kept = free_dims(y.rank(), p_.dims.rhs_batch, p_.dims.rhs_contract);
  if (needs[0]) in_ct[0] = transpose_lhs(ct[0], x, y, p_, x_kept, y_kept);
  if (needs[1]) in_ct[1] = transpose_rhs(ct[0], x, y, p_, x_kept, y_kept);
}

Tensor dot_general_ex(const Tensor& a, const Tensor& b, DotGeneralParams p) {
  return bind1(DotGeneralPrim(std::move(p)), a, b);
}

}  // namespace detail

Tensor dot_general(const Tensor& a, const Tensor& b, const DotDims& dims) {
  detail::DotGeneralParams p;
  p.dims = dims;
  return detail::bind1(detail::DotGeneralPrim(std::move(p)), a, b);
}

}  // namespace tenferro
