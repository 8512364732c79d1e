// Sorting primitives: argsort and topk's indices, both non-differentiable i64 results; sort and
// topk gather their values with take_along_axis, whose rules carry the gradient.
//
// Both kernels order (value, original index) pairs by one strict total order (the header's
// contract: stable, NaN last ascending / first descending, -0.0 == 0.0), so std::sort,
// std::partial_sort and std::nth_element all give the one answer a stable sort gives, and the
// rows can be split among threads in any way with bitwise identical results.
#include "tenferro/ops/sorting.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "primitives/primitive.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

// Rank 0 counts as one element along axis 0 / -1 (PyTorch); otherwise normalize_axis's rule.
I sort_axis(I axis, I rank, std::string_view op) {
  if (rank == 0 && (axis == 0 || axis == -1)) return 0;
  return normalize_axis(axis, rank, op);
}

void check_sortable(std::string_view op, const Tensor& x, I axis) {
  if (is_complex(x.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                std::string(op) + ": expected a real dtype (bool, an integer, f32, f64), got " +
                    describe(std::span<const Tensor>(&x, 1)) +
                    "; complex numbers are not ordered: sort real(x) or abs(x) instead");
  (void)sort_axis(axis, x.rank(), op);
}

// a comes strictly before b in the order (the index breaks ties: see the file comment).
template <class T, bool Desc>
struct Before {
  bool operator()(const std::pair<T, I>& a, const std::pair<T, I>& b) const {
    if constexpr (std::is_floating_point_v<T>) {
      const bool na = std::isnan(a.first), nb = std::isnan(b.first);
      if (na || nb) {
        if (na && nb) return a.second < b.second;
        return Desc ? na : nb;  // NaN is the largest: first descending, last ascending
      }
    }
    if (a.first != b.first) return Desc ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  }
};

// Sorts each row of x along axis a and writes the first k indices into the contiguous i64
// output (x's shape with the axis of size k).
template <class T, bool Desc>
void sort_rows(ExecContext& ctx, const Tensor& x, I a, I k, I* o) {
  const T* p = static_cast<const T*>(x.data_ptr());
  if (x.rank() == 0) {
    if (k == 1) *o = 0;
    return;
  }
  const std::size_t ax = static_cast<std::size_t>(a);
  const I n = x.shape()[ax], s = x.strides()[ax];
  Dims oshape = x.shape();
  oshape[ax] = k;
  const Dims ostr = contiguous_strides(oshape);
  const I os = ostr[ax];
  Dims kshape, kstrides, kostrides;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (d != ax) {
      kshape.push_back(x.shape()[d]);
      kstrides.push_back(x.strides()[d]);
      kostrides.push_back(ostr[d]);
    }
  const I rows = dims_numel(kshape);
  if (rows == 0 || k == 0) return;
  auto body = [&](I b, I e) {
    std::vector<std::pair<T, I>> buf(static_cast<std::size_t>(n));
    const Before<T, Desc> before;
    for (I r = b; r < e; ++r) {
      I off = 0, ooff = 0, rest = r;  // unravel r over the kept dims
      for (std::size_t d = kshape.size(); d-- > 0;) {
        const I c = rest % kshape[d];
        off += c * kstrides[d];
        ooff += c * kostrides[d];
        rest /= kshape[d];
      }
      for (I j = 0; j < n; ++j) buf[static_cast<std::size_t>(j)] = {p[off + j * s], j};
      const auto first = buf.begin(), mid = first + k, last = buf.end();
      if (k == n) {
        std::sort(first, last, before);
      } else if (k * 16 <= n) {
        std::partial_sort(first, mid, last, before);  // a heap of k: O(n log k)
      } else {
        std::nth_element(first, mid - 1, last, before);  // O(n), then sort the k chosen
        std::sort(first, mid, before);
      }
      for (I j = 0; j < k; ++j) o[ooff + j * os] = buf[static_cast<std::size_t>(j)].second;
    }
  };
  // Rough cycles: a comparison sort of n elements per row.
  I lg = 1;
  while ((I{1} << lg) < n && lg < 62) ++lg;
  ctx.parallel_for_work(rows, std::max<I>(1, 4096 / std::max<I>(n, 1)), rows * n * lg * 4, body);
}

// The indices of the first k elements of each row in the order (argsort: k = the axis size).
class SortIndicesPrim final : public PrimitiveWith<SortIndicesPrim> {
 public:
  // kAll: every element (argsort), whatever the axis size.
  static constexpr I kAll = -1;
  SortIndicesPrim(bool topk, I axis, I k, bool descending)
      : topk_(topk), axis_(axis), k_(k), descending_(descending) {}
  std::string_view name() const override { return topk_ ? "topk_indices" : "argsort"; }
  std::string params() const override {
    return "axis=" + std::to_string(axis_) + (topk_ ? " k=" + std::to_string(k_) : "") +
           (topk_ ? (descending_ ? " largest=true" : " largest=false")
                  : (descending_ ? " descending=true" : " descending=false"));
  }
  auto key() const { return std::tie(topk_, axis_, k_, descending_); }
  bool accepts_integers() const override { return true; }
  bool differentiable() const override { return false; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor& x = in[0];
    check_sortable(name(), x, axis_);
    Dims shape = x.shape();
    if (topk_) {
      const I n = x.rank() == 0
                      ? 1
                      : x.shape()[static_cast<std::size_t>(sort_axis(axis_, x.rank(), name()))];
      const I lo = x.rank() == 0 ? 1 : 0;
      if (k_ < lo || k_ > n)
        throw Error(ErrorKind::InvalidArgument,
                    "topk: k = " + std::to_string(k_) + " is out of range for axis " +
                        std::to_string(axis_) + " of size " + std::to_string(n) + " (input " +
                        describe(in) + "); expected " + std::to_string(lo) +
                        " <= k <= " + std::to_string(n));
      if (x.rank() > 0) shape[static_cast<std::size_t>(sort_axis(axis_, x.rank(), name()))] = k_;
    }
    out.push_back({DType::i64, std::move(shape)});
  }

  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& x = in[0];
    const I a = sort_axis(axis_, x.rank(), name());
    const I k = x.rank() == 0 ? 1 : out[0].shape()[static_cast<std::size_t>(a)];
    I* o = static_cast<I*>(out[0].data_ptr());
    visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (!is_complex_v<T>) {
        if (descending_)
          sort_rows<T, true>(ctx, x, a, k, o);
        else
          sort_rows<T, false>(ctx, x, a, k, o);
      }
    });
  }

 private:
  bool topk_;
  I axis_;
  I k_;
  bool descending_;
};

// values = x gathered at the indices; a rank-0 x goes through a one-element axis (the gather
// needs one).
ValuesIndices gather_values(const Tensor& x, Tensor idx, I axis) {
  if (x.rank() == 0)
    return {reshape(take_along_axis(reshape(x, {1}), reshape(idx, {1}), 0), {}), idx};
  Tensor values = take_along_axis(x, idx, axis);
  return {std::move(values), std::move(idx)};
}

void check_defined(const char* op, const Tensor& x) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
}

}  // namespace
}  // namespace detail

Tensor argsort(const Tensor& x, std::int64_t axis, bool descending) {
  detail::check_defined("argsort", x);
  return detail::bind1(
      detail::SortIndicesPrim(false, axis, detail::SortIndicesPrim::kAll, descending), x);
}

ValuesIndices sort(const Tensor& x, std::int64_t axis, bool descending) {
  detail::check_defined("sort", x);
  detail::check_sortable("sort", x, axis);  // errors name the op the caller called
  return detail::gather_values(x, argsort(x, axis, descending), axis);
}

ValuesIndices topk(const Tensor& x, std::int64_t k, std::int64_t axis, bool largest, bool sorted) {
  (void)sorted;  // always sorted: a valid answer for sorted = false too (see the header)
  detail::check_defined("topk", x);
  detail::check_sortable("topk", x, axis);
  return detail::gather_values(x, detail::bind1(detail::SortIndicesPrim(true, axis, k, largest), x),
                               axis);
}

}  // namespace tenferro
