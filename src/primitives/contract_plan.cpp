// Lowering dot_general to the canonical batched GEMM (Note [Canonical GEMM]).
//
// Note [dot_general lowering]: the dimensions of each operand fall into groups -- batch, free
// (M for the lhs, N for the rhs) and contracted (K, taken pairwise). A group can be handed to a
// GEMM as a single strided extent when its non-unit dimensions are "stride-collapsible" (each
// stride equals the next one times the next size); the output is contiguous in
// [batch, M, N] order, so its groups always collapse. The contracted pairs may be visited in any
// order, so we try the order that suits the lhs, then the one that suits the rhs. An operand whose
// groups do not collapse, or whose dtype is not the compute dtype, is packed (one strided copy,
// converting) into a contiguous [batch, free, contract] buffer. Batch dimensions need not collapse
// (the GEMM walks them with a cursor); adjacent ones are merged when all three operands allow.
// The common case -- contiguous or transposed operands of one dtype, at most one contracted pair
// -- takes a direct path (plan_direct) that reads shapes and strides without building lists,
// copies nothing and allocates nothing but the output.
#include <algorithm>
#include <cstring>

#include "core/alloc.hpp"
#include "core/strided.hpp"
#include "cpu/providers/gemm_provider.hpp"
#include "primitives/contract.hpp"

namespace tenferro::detail {
namespace {

struct Axis {
  std::int64_t size, stride;
};
using Axes = SmallVector<Axis, 6>;

struct Operand {
  Axes batch, free, contract;
  const void* data = nullptr;
};

// (size, stride) of a collapsible group; false when the group is not collapsible.
bool collapse(const Axes& axes, std::int64_t& size, std::int64_t& stride) {
  size = 1;
  stride = 0;
  bool have = false;
  for (const Axis& ax : axes) {
    size *= ax.size;
    if (ax.size == 1) continue;
    if (have && stride != ax.stride * ax.size) return false;
    stride = ax.stride;
    have = true;
  }
  return true;
}

bool collapsible(const Axes& axes) {
  std::int64_t s, t;
  return collapse(axes, s, t);
}

// The operand's contracted axes in the visiting order `order` (indices into the pair lists).
Axes contract_axes(const Tensor& t, const Dims& dims, const Dims& order) {
  Axes out;
  for (std::int64_t i : order) {
    auto d = static_cast<std::size_t>(dims[static_cast<std::size_t>(i)]);
    out.push_back({t.shape()[d], t.strides()[d]});
  }
  return out;
}

Dims order_by_stride(const Tensor& t, const Dims& dims) {
  Dims order;
  for (std::size_t i = 0; i < dims.size(); ++i) order.push_back(static_cast<std::int64_t>(i));
  if (order.size() <= 1) return order;
  // Stable insertion sort by decreasing stride (std::stable_sort takes a heap buffer).
  auto stride = [&](std::int64_t i) {
    return t.strides()[static_cast<std::size_t>(dims[static_cast<std::size_t>(i)])];
  };
  for (std::size_t i = 1; i < order.size(); ++i) {
    const std::int64_t x = order[i];
    std::size_t j = i;
    for (; j > 0 && stride(x) > stride(order[j - 1]); --j) order[j] = order[j - 1];
    order[j] = x;
  }
  return order;
}

Operand describe_operand(const Tensor& t, const Dims& batch, const Dims& contract,
                         const Dims& order) {
  Operand op;
  SmallVector<bool, 8> listed(static_cast<std::size_t>(t.rank()), false);
  for (std::int64_t d : batch) {
    listed[static_cast<std::size_t>(d)] = true;
    op.batch.push_back(
        {t.shape()[static_cast<std::size_t>(d)], t.strides()[static_cast<std::size_t>(d)]});
  }
  for (std::int64_t d : contract) listed[static_cast<std::size_t>(d)] = true;
  for (std::size_t d = 0; d < listed.size(); ++d)
    if (!listed[d]) op.free.push_back({t.shape()[d], t.strides()[d]});
  op.contract = contract_axes(t, contract, order);
  return op;
}

// Packs the operand into a contiguous [batch, free, contract] buffer of dtype ct; `lhs` decides
// whether the free group precedes the contracted one (lhs: [M, K]; rhs: [K, N]).
void pack(ExecContext& ctx, const Tensor& t, Operand& op, bool lhs, DType ct, StoragePtr& keep) {
  Dims shape, strides;
  auto add = [&](const Axes& axes) {
    for (const Axis& ax : axes) {
      shape.push_back(ax.size);
      strides.push_back(ax.stride);
    }
  };
  add(op.batch);
  add(lhs ? op.free : op.contract);
  add(lhs ? op.contract : op.free);
  Tensor view(t.storage(), shape, strides, t.offset(), t.dtype());
  // A broadcast operand may have far more elements than bytes behind it (Note [Byte counts]).
  keep = StoragePtr(ctx.allocate(checked_bytes(view.numel(), ct, "dot_general")));
  copy_to_contiguous(view, keep->data, ct);
  Dims packed = contiguous_strides(shape);
  std::size_t i = 0;
  auto restride = [&](Axes& axes) {
    for (Axis& ax : axes) ax.stride = packed[i++];
  };
  restride(op.batch);
  restride(lhs ? op.free : op.contract);
  restride(lhs ? op.contract : op.free);
  op.data = keep->data;
}

// Appends a batch dimension, merged into the previous one when all three operands allow.
void add_batch(GemmProblem& p, std::int64_t n, std::int64_t sa, std::int64_t sb, std::int64_t sc) {
  if (n == 1) return;
  if (!p.batch_shape.empty() && p.batch_a.back() == sa * n && p.batch_b.back() == sb * n &&
      p.batch_c.back() == sc * n) {
    p.batch_shape.back() *= n;
    p.batch_a.back() = sa;
    p.batch_b.back() = sb;
    p.batch_c.back() = sc;
    return;
  }
  p.batch_shape.push_back(n);
  p.batch_a.push_back(sa);
  p.batch_b.push_back(sb);
  p.batch_c.push_back(sc);
}

// collapse(), one dimension at a time (no lists built).
struct Collapser {
  std::int64_t size = 1, stride = 0;
  bool ok = true, have = false;
  void add(std::int64_t n, std::int64_t s) {
    size *= n;
    if (n == 1) return;
    if (have && stride != s * n) ok = false;
    stride = s;
    have = true;
  }
};

// data_ptr() without its checks: the kernel only ever sees concrete, defined tensors.
inline void* raw_data(const Tensor& t) noexcept {
  return static_cast<char*>(t.storage()->data) +
         t.offset() * static_cast<std::int64_t>(dtype_size(t.dtype()));
}

// The compute dtype and the conjugation flags of a dot_general's GEMM problem (the eager kernel
// and the prepared one start from the same header).
GemmProblem problem_header(const Tensor& a, const Tensor& b, const DotGeneralParams& prm,
                           DType out_dtype) {
  GemmProblem p;
  p.dtype = promote(promote(a.dtype(), b.dtype()), out_dtype);
  p.conj_a = prm.conj_lhs && is_complex(p.dtype);
  p.conj_b = prm.conj_rhs && is_complex(p.dtype);
  return p;
}

// The common case, straight from shapes and strides: operands and output in the compute dtype,
// at most one contracted pair, free groups collapsible. False when the general path is needed.
// Sets everything but the data pointers (the caller's, per call).
bool plan_direct(const Tensor& a, const Tensor& b, const DotDims& d, DType out_dtype,
                 std::span<const std::int64_t> out_strides, DType ct, GemmProblem& p) {
  if (a.dtype() != ct || b.dtype() != ct || out_dtype != ct || d.lhs_contract.size() > 1 ||
      a.rank() > 64 || b.rank() > 64)
    return false;
  std::uint64_t la = 0, lb = 0;
  for (std::int64_t x : d.lhs_batch) la |= std::uint64_t{1} << x;
  for (std::int64_t x : d.lhs_contract) la |= std::uint64_t{1} << x;
  for (std::int64_t x : d.rhs_batch) lb |= std::uint64_t{1} << x;
  for (std::int64_t x : d.rhs_contract) lb |= std::uint64_t{1} << x;
  Collapser m, n;
  for (std::size_t i = 0; i < a.shape().size(); ++i)
    if (!(la >> i & 1)) m.add(a.shape()[i], a.strides()[i]);
  for (std::size_t i = 0; i < b.shape().size(); ++i)
    if (!(lb >> i & 1)) n.add(b.shape()[i], b.strides()[i]);
  if (!m.ok || !n.ok) return false;
  p.m = m.size;
  p.a_rs = m.stride;
  p.n = n.size;
  p.b_cs = n.stride;
  if (!d.lhs_contract.empty()) {
    const auto ca = static_cast<std::size_t>(d.lhs_contract[0]);
    const auto cb = static_cast<std::size_t>(d.rhs_contract[0]);
    p.k = a.shape()[ca];
    p.a_cs = a.strides()[ca];
    p.b_rs = b.strides()[cb];
  }
  p.c_rs = p.n;  // the output is contiguous [batch, M, N]
  p.c_cs = 1;
  for (std::size_t i = 0; i < d.lhs_batch.size(); ++i) {
    const auto xa = static_cast<std::size_t>(d.lhs_batch[i]);
    const auto xb = static_cast<std::size_t>(d.rhs_batch[i]);
    add_batch(p, a.shape()[xa], a.strides()[xa], b.strides()[xb], out_strides[i]);
  }
  return true;
}

// Everything else: choose the contraction order, pack operands that need it, and use a
// compute-dtype temporary for the output when its dtype differs.
void plan_general(ExecContext& ctx, const Tensor& a, const Tensor& b, const DotDims& d,
                  const Tensor& out, DType ct, GemmProblem& p, StoragePtr& a_keep,
                  StoragePtr& b_keep, StoragePtr& c_keep) {
  // Visiting order of the contracted pairs: the lhs's preference, else the rhs's.
  Dims order = order_by_stride(a, d.lhs_contract);
  Operand A = describe_operand(a, d.lhs_batch, d.lhs_contract, order);
  Operand B = describe_operand(b, d.rhs_batch, d.rhs_contract, order);
  bool a_ok = collapsible(A.free) && collapsible(A.contract);
  bool b_ok = collapsible(B.free) && collapsible(B.contract);
  if (!(a_ok && b_ok) && d.lhs_contract.size() > 1) {
    Dims alt = order_by_stride(b, d.rhs_contract);
    Operand A2 = describe_operand(a, d.lhs_batch, d.lhs_contract, alt);
    Operand B2 = describe_operand(b, d.rhs_batch, d.rhs_contract, alt);
    bool a2 = collapsible(A2.free) && collapsible(A2.contract);
    bool b2 = collapsible(B2.free) && collapsible(B2.contract);
    if (int(a2) + int(b2) > int(a_ok) + int(b_ok)) {
      A = std::move(A2);
      B = std::move(B2);
      a_ok = a2;
      b_ok = b2;
    }
  }
  if (a_ok && a.dtype() == ct)
    A.data = a.data_ptr();
  else
    pack(ctx, a, A, true, ct, a_keep);
  if (b_ok && b.dtype() == ct)
    B.data = b.data_ptr();
  else
    pack(ctx, b, B, false, ct, b_keep);

  // The output [batch, M, N] (or a compute-dtype temporary with the same layout).
  const std::size_t nb = A.batch.size(), nm = A.free.size();
  Axes c_m, c_n;
  for (std::size_t i = nb; i < out.shape().size(); ++i)
    (i < nb + nm ? c_m : c_n).push_back({out.shape()[i], out.strides()[i]});
  p.c = out.data_ptr();
  if (out.dtype() != ct) {
    c_keep = StoragePtr(ctx.allocate(checked_bytes(out.numel(), ct, "dot_general")));
    p.c = c_keep->data;
  }
  std::int64_t unused;
  collapse(A.free, p.m, p.a_rs);
  collapse(A.contract, p.k, p.a_cs);
  collapse(B.contract, unused, p.b_rs);
  collapse(B.free, p.n, p.b_cs);
  collapse(c_m, unused, p.c_rs);
  collapse(c_n, unused, p.c_cs);
  p.a = A.data;
  p.b = B.data;
  for (std::size_t i = 0; i < nb; ++i)
    add_batch(p, A.batch[i].size, A.batch[i].stride, B.batch[i].stride, out.strides()[i]);
}

}  // namespace

void dot_general_kernel(ExecContext& ctx, const Tensor& a, const Tensor& b,
                        const DotGeneralParams& prm, Tensor& out) {
  if (out.numel() == 0) return;
  const DotDims& d = prm.dims;
  for (std::int64_t x : d.lhs_contract)
    if (a.shape()[static_cast<std::size_t>(x)] == 0) {  // k == 0: the sum is empty
      std::memset(out.data_ptr(), 0,
                  static_cast<std::size_t>(out.numel()) * dtype_size(out.dtype()));
      return;
    }
  GemmProblem p = problem_header(a, b, prm, out.dtype());
  const DType ct = p.dtype;
  StoragePtr a_keep, b_keep, c_keep;
  if (plan_direct(a, b, d, out.dtype(), out.strides(), ct, p)) {
    p.a = raw_data(a);
    p.b = raw_data(b);
    p.c = raw_data(out);
  } else {
    plan_general(ctx, a, b, d, out, ct, p, a_keep, b_keep, c_keep);
  }
  run_gemm(ctx, p);
  if (c_keep) {
    Tensor tmp = Tensor::wrap_contiguous_unchecked(c_keep, out.shape(), ct);
    copy_to_contiguous(tmp, out.data_ptr(), out.dtype());
  }
}

namespace {
// The direct case with its GEMM problem built once (Note [Eager cache]): a call only points it
// at the operands and the output.
// A problem below kGemmParallelMinFlops never fans out (run_gemm_units), so its small kernel is
// called here over the whole batch, as run_small_gemm would, without the calls in between.
class PreparedGemm final : public PreparedKernel {
 public:
  PreparedGemm(GemmProblem p, std::int64_t a_item, std::int64_t b_item, std::int64_t c_item)
      : p_(std::move(p)),
        small_(small_gemm_kernel(p_)),
        inline_batch_(small_ && p_.flops() < kGemmParallelMinFlops ? p_.batch() : -1),
        a_item_(a_item),
        b_item_(b_item),
        c_item_(c_item) {}
  void run(ExecContext& ctx, InputRefs in, std::span<Tensor> out) override {
    // The tensors' dtypes are the prepared ones (a prepared kernel runs only on the layouts it
    // was made for), so their item sizes are known.
    p_.a = static_cast<char*>(in[0]->storage()->data) + in[0]->offset() * a_item_;
    p_.b = static_cast<char*>(in[1]->storage()->data) + in[1]->offset() * b_item_;
    p_.c = static_cast<char*>(out[0].storage()->data) + out[0].offset() * c_item_;
    if (inline_batch_ >= 0 && !t_has_override) {
      small_(p_, 0, inline_batch_);
      t_last_provider = kSmallGemmProviderName;
    } else if (small_) {
      run_small_gemm(ctx, p_, small_);
    } else {
      run_gemm(ctx, p_);
    }
  }

 private:
  GemmProblem p_;
  SmallGemmFn small_;  // the small_fixed provider's kernel, or null: the provider chain decides
  std::int64_t inline_batch_;              // the batch when small_ runs inline, else -1
  std::int64_t a_item_, b_item_, c_item_;  // bytes per element of the operands and the output
};
}  // namespace

std::unique_ptr<PreparedKernel> prepare_dot_general(const Tensor& a, const Tensor& b,
                                                    const DotGeneralParams& prm,
                                                    const TensorSpec& out) {
  const DotDims& d = prm.dims;
  if (dims_numel(out.shape) == 0) return nullptr;
  for (std::int64_t x : d.lhs_contract)
    if (a.shape()[static_cast<std::size_t>(x)] == 0) return nullptr;  // k == 0: execute() zeroes
  GemmProblem p = problem_header(a, b, prm, out.dtype);
  if (!plan_direct(a, b, d, out.dtype, contiguous_strides(out.shape), p.dtype, p)) return nullptr;
  return std::make_unique<PreparedGemm>(std::move(p),
                                        static_cast<std::int64_t>(dtype_size(a.dtype())),
                                        static_cast<std::int64_t>(dtype_size(b.dtype())),
                                        static_cast<std::int64_t>(dtype_size(out.dtype)));
}

}  // namespace tenferro::detail
