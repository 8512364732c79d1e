// dot_general: shape rule, kernel entry, JVP and VJP (Note [dot_general parameters]).
#include "primitives/contract.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
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

// The permutation that views a result whose dimension i is the operand's dimension order[i] in
// the operand's own order; empty when that is the identity.
Dims back_permutation(const Dims& order) {
  Dims back = argsort(order);
  return is_identity(back) ? Dims{} : back;
}

// Cotangent of the lhs x of dot_general(x, y) (JAX's _dot_general_transpose_lhs): g . y with `g`
// in the output layout [batch, x free, y free]. Conjugation per Note [dot_general parameters]:
// for conj_x = false, x_bar = g . conj(op_y(y)); for conj_x = true, x_bar = conj(g) . op_y(y).
// `x_kept`, `y_kept`: the operands' free dimensions (free_dims), shared by both transposes.
// Sets `back` to the permutation into x's layout.
DotGeneralParams transpose_lhs(const DotGeneralParams& p, DType x_dtype, const Dims& x_kept,
                               const Dims& y_kept, Dims& back) {
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
  q.out_dtype = x_dtype;
  // Result layout: x_batch, x_kept, then x_contract ordered by their partners in y.
  Dims order = d.lhs_batch;
  order.append(x_kept.begin(), x_kept.end());
  for (std::int64_t i : argsort(d.rhs_contract))
    order.push_back(d.lhs_contract[static_cast<std::size_t>(i)]);
  back = back_permutation(order);
  return q;
}

// Cotangent of the rhs y, computed as dot_general(x, g) (x's free dimensions contracted with
// g's) rather than JAX's swapped transpose_lhs: the result then comes out as [batch, y's
// contracted dims, y free] -- y's own layout for the usual [batch, k, n] operand, so no permute
// view and a contiguous gradient. Conjugation as in transpose_lhs with the roles exchanged:
// y_bar = op(x)^T . g with x conjugated unless exactly one operand was, g conjugated iff y was.
DotGeneralParams transpose_rhs(const DotGeneralParams& p, DType y_dtype, const Dims& x_kept,
                               const Dims& y_kept, Dims& back) {
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
  q.out_dtype = y_dtype;
  // Result layout: y_batch, the partners of x's contracted dims in x's order, y_kept.
  Dims order = d.rhs_batch;
  for (std::int64_t i : argsort(d.lhs_contract))
    order.push_back(d.rhs_contract[static_cast<std::size_t>(i)]);
  order.append(y_kept.begin(), y_kept.end());
  back = back_permutation(order);
  return q;
}

// Note [dot_general VJP plans]: the two transposed primitives and their permutations back into
// the operands' layouts depend only on the forward parameters and the operands' ranks and dtypes,
// yet building them (index lists, argsorts, two primitives with their hashes) cost more than the
// small GEMMs they run. Each thread keeps the last kVjpPlans plans; a backward pass of a
// recurring op finds its plan with one typed comparison. Plans are shared (held by the caller)
// so replacing a slot never invalidates a plan in use.
struct DotVjpPlan {
  DotGeneralParams fwd;
  std::int64_t x_rank, y_rank;
  DType x_dtype, y_dtype;
  // Shared, so that the eager cache keys on these very objects (Note [Shared dot_general]).
  std::shared_ptr<const DotGeneralPrim> lhs, rhs;
  Dims lhs_back, rhs_back;  // empty: the result is already in the operand's layout
  // The parameters of a static primitive (bmm, matmul: immortal and immutable) that matched this
  // plan: the next backward of that primitive finds it by address, without comparing the lists.
  // Only this thread reaches a plan (its slots and its caller's frame), so a plain field.
  mutable const DotGeneralParams* static_fwd = nullptr;
};

std::shared_ptr<const DotVjpPlan> make_vjp_plan(const DotGeneralParams& p, const Tensor& x,
                                                const Tensor& y) {
  const Dims x_kept = free_dims(x.rank(), p.dims.lhs_batch, p.dims.lhs_contract);
  const Dims y_kept = free_dims(y.rank(), p.dims.rhs_batch, p.dims.rhs_contract);
  Dims lhs_back, rhs_back;
  DotGeneralParams lhs = transpose_lhs(p, x.dtype(), x_kept, y_kept, lhs_back);
  DotGeneralParams rhs = transpose_rhs(p, y.dtype(), x_kept, y_kept, rhs_back);
  return std::make_shared<const DotVjpPlan>(
      DotVjpPlan{p, x.rank(), y.rank(), x.dtype(), y.dtype(),
                 std::make_shared<const DotGeneralPrim>(std::move(lhs)),
                 std::make_shared<const DotGeneralPrim>(std::move(rhs)), std::move(lhs_back),
                 std::move(rhs_back)});
}

constexpr std::size_t kVjpPlans = 8;

// `p_static`: p belongs to a static primitive (Primitive::is_static), so its address names it.
std::shared_ptr<const DotVjpPlan> vjp_plan(const DotGeneralParams& p, bool p_static,
                                           const Tensor& x, const Tensor& y) {
  struct Slots {
    std::array<std::shared_ptr<const DotVjpPlan>, kVjpPlans> plans;
    std::size_t next = 0;
  };
  thread_local Slots slots;
  const auto operands_match = [&](const DotVjpPlan& plan) {
    return plan.x_rank == x.rank() && plan.y_rank == y.rank() && plan.x_dtype == x.dtype() &&
           plan.y_dtype == y.dtype();
  };
  if (p_static)
    for (const auto& plan : slots.plans)
      if (plan && plan->static_fwd == &p && operands_match(*plan)) return plan;
  for (const auto& plan : slots.plans)
    if (plan && operands_match(*plan) && key_equal(plan->fwd.key(), p.key())) {
      if (p_static) plan->static_fwd = &p;
      return plan;
    }
  auto plan = make_vjp_plan(p, x, y);
  if (p_static) plan->static_fwd = &p;
  slots.plans[slots.next++ % kVjpPlans] = plan;
  return plan;
}

// dot_general by a plan's primitive, viewed back into the operand's layout.
Tensor run_transpose(const DotGeneralPrim& prim, const Dims& back, const Tensor& a,
                     const Tensor& b) {
  Tensor r = bind1(prim, a, b);
  return back.empty() ? r : permute(r, back);
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
  const auto plan = vjp_plan(p_, is_static(), x, y);  // Note [dot_general VJP plans]
  if (needs[0]) in_ct[0] = run_transpose(*plan->lhs, plan->lhs_back, ct[0], y);
  if (needs[1]) in_ct[1] = run_transpose(*plan->rhs, plan->rhs_back, x, ct[0]);
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
