// scatter (overwrite) and its winner mask, the primitive that makes its gradient traceable.
//
// Note [Scatter duplicates]: several positions of `indices` may name one target. The result is
// defined as the LAST write in row-major order of the positions (PyTorch leaves it unspecified;
// one fixed order makes it deterministic, bitwise, for every thread count). The derivative follows
// the same rule: only the winning write's source element reaches the output, so only it receives
// a cotangent; ScatterWinnersPrim computes which positions win, from the indices alone, so the
// rule is a plain where() that traces, prepares and differentiates again like any other op.
//
// Indices follow src/primitives/index_checks.hpp; all of them are checked before the first write.
#include <memory>
#include <string>
#include <vector>

#include "core/strided.hpp"
#include "primitives/index_checks.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/indexing.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

// Every index of `idx` normalised into [0, n), in row-major order of its positions; throws on
// the first one out of range.
std::vector<I> checked_indices(const Tensor& idx, I axis, I n, std::span<const Tensor> in) {
  std::vector<I> j;
  j.reserve(static_cast<std::size_t>(idx.numel()));
  const Dims strides[1] = {Dims(idx.strides())};
  const void* p = idx.data_ptr();
  for_each_position(idx.shape(), strides, [&](const Dims& pos, const I* off) {
    j.push_back(checked_index("scatter", p, idx.dtype(), off[0], n, pos, axis, in));
  });
  return j;
}

// Calls f(k, target) for each position k (row-major) of an index tensor of shape `ishape`, with
// `target` the flat offset it names in a contiguous tensor of shape `ishape` with the axis
// resized to n.
template <class F>
void for_each_target(const Dims& ishape, I a, I n, const std::vector<I>& j, F&& f) {
  Dims tshape = ishape;
  tshape[static_cast<std::size_t>(a)] = n;
  Dims ts = contiguous_strides(tshape);
  const I sa = ts[static_cast<std::size_t>(a)];
  ts[static_cast<std::size_t>(a)] = 0;  // the axis is addressed through the index
  const Dims strides[1] = {ts};
  I k = 0;
  for_each_position(ishape, strides, [&](const Dims&, const I* off) {
    f(k, off[0] + j[static_cast<std::size_t>(k)] * sa);
    ++k;
  });
}

// ---- scatter: out = x; out[p with p[axis] = idx[p]] = src[p], the last write winning ----
class ScatterPrim final : public PrimitiveWith<ScatterPrim> {
 public:
  explicit ScatterPrim(I axis) : axis_(axis) {}
  std::string_view name() const override { return "scatter"; }
  std::string params() const override { return "axis=" + std::to_string(axis_); }
  auto key() const { return std::tie(axis_); }
  bool accepts_integers() const override { return true; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor &x = in[0], &idx = in[1], &src = in[2];
    check_index_dtype("scatter", in, idx);
    if (src.dtype() != x.dtype())
      throw Error(ErrorKind::DTypeMismatch,
                  "scatter: expected a source of the input's dtype, got " + describe(in));
    check_scatter_shapes("scatter", axis_, in);
    out.push_back({x.dtype(), x.shape()});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor &x = in[0], &idx = in[1], &src = in[2];
    const I a = normalize_axis(axis_, x.rank(), "scatter");
    const I n = x.shape()[static_cast<std::size_t>(a)];
    const std::vector<I> j = checked_indices(idx, axis_, n, in);  // all, before any write
    copy_to_contiguous(x, out[0].data_ptr(), x.dtype());
    if (j.empty()) return;
    // The source in row-major order of the positions, so position k reads s[k].
    visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      // (A plain array: std::vector<bool> has no data().)
      std::unique_ptr<T[]> s(new T[j.size()]);
      copy_to_contiguous(src, s.get(), x.dtype());
      T* po = static_cast<T*>(out[0].data_ptr());
      // Writes in row-major order: the last one to a target stays (Note [Scatter duplicates]).
      for_each_target(idx.shape(), a, n, j,
                      [&](I k, I target) { po[target] = s[static_cast<std::size_t>(k)]; });
    });
  }

  void jvp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (!t[0].defined() && !t[2].defined()) return;
    const Tensor base = t[0].defined() ? t[0] : zeros(x[0].shape(), x[0].dtype());
    const Tensor src = t[2].defined() ? t[2] : zeros(x[2].shape(), x[2].dtype());
    out_t[0] = scatter(base, axis_, x[1], src);  // the same writes win
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override;

 private:
  I axis_;
};

// ---- scatter_winners: true at the positions of idx whose write to x (axis size n) is last ----
class ScatterWinnersPrim final : public PrimitiveWith<ScatterWinnersPrim> {
 public:
  ScatterWinnersPrim(I axis, I n) : axis_(axis), n_(n) {}
  std::string_view name() const override { return "scatter_winners"; }
  std::string params() const override {
    return "axis=" + std::to_string(axis_) + " size=" + std::to_string(n_);
  }
  auto key() const { return std::tie(axis_, n_); }
  bool accepts_integers() const override { return true; }
  bool differentiable() const override { return false; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    check_index_dtype("scatter_winners", in, in[0]);
    (void)normalize_axis(axis_, in[0].rank(), "scatter_winners");
    out.push_back({DType::boolean, in[0].shape()});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& idx = in[0];
    const I a = normalize_axis(axis_, idx.rank(), "scatter_winners");
    const std::vector<I> j = checked_indices(idx, axis_, n_, in);
    if (j.empty()) return;
    Dims tshape = idx.shape();
    tshape[static_cast<std::size_t>(a)] = n_;
    I tn = 1;
    for (I d : tshape) tn *= d;
    // The last writer of each target, then a position wins when it is its target's last writer.
    std::vector<I> last(static_cast<std::size_t>(tn), -1);
    for_each_target(idx.shape(), a, n_, j,
                    [&](I k, I target) { last[static_cast<std::size_t>(target)] = k; });
    bool* po = static_cast<bool*>(out[0].data_ptr());
    for_each_target(idx.shape(), a, n_, j,
                    [&](I k, I target) { po[k] = last[static_cast<std::size_t>(target)] == k; });
  }

 private:
  I axis_;
  I n_;
};

void ScatterPrim::vjp(std::span<const Tensor> x, std::span<const Tensor>,
                      std::span<const Tensor> ct, std::span<const bool> needs,
                      std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  const Tensor &idx = x[1], &src = x[2];
  // x: every overwritten position lost its contribution.
  if (needs[0]) in_ct[0] = scatter(ct[0], axis_, idx, zeros(src.shape(), ct[0].dtype()));
  if (needs[2]) {
    const I a = normalize_axis(axis_, x[0].rank(), "scatter");
    const Tensor wins = bind1(ScatterWinnersPrim(axis_, x[0].shape()[static_cast<std::size_t>(a)]),
                              std::span<const Tensor>(&idx, 1));
    in_ct[2] = where(wins, take_along_axis(ct[0], idx, axis_), zeros({}, ct[0].dtype()));
  }
}

void require_defined(const Tensor& x, const Tensor& indices) {
  if (!x.defined() || !indices.defined())
    throw Error(ErrorKind::InvalidArgument, "scatter: an input tensor is undefined");
}

}  // namespace
}  // namespace detail

Tensor scatter(const Tensor& x, std::int64_t axis, const Tensor& indices, const Tensor& src) {
  detail::require_defined(x, indices);
  if (!src.defined())
    throw Error(ErrorKind::InvalidArgument, "scatter: the source tensor is undefined");
  const Tensor in[3] = {x, indices, src};
  return detail::bind1(detail::ScatterPrim(axis), in);
}

Tensor scatter(const Tensor& x, std::int64_t axis, const Tensor& indices, Scalar value) {
  detail::require_defined(x, indices);
  if (!is_complex(x.dtype()) && value.imag() != 0)
    throw Error(ErrorKind::DTypeMismatch, "scatter: the value has an imaginary part but x is " +
                                              std::string(dtype_name(x.dtype())));
  // One value read at every position (a stride-0 source).
  return scatter(x, axis, indices, broadcast_to(scalar_tensor(value, x.dtype()), indices.shape()));
}

}  // namespace tenferro
