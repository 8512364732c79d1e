// searchsorted (a primitive: its output shape is x2's, so it traces and prepares like every op)
// and the unique_* functions (eager only: their shapes depend on the values), the Array API's
// searching and set functions. Contracts in tenferro/ops/sets.hpp.
//
// Both use sort()'s order (sorting.cpp): NaN after every number, -0.0 == +0.0. For searchsorted
// that is the comparison `before(a, b)`: !isnan(a) && (isnan(b) || a < b), a strict weak order
// in which all NaNs are equivalent, so the binary searches below are lower_bound / upper_bound
// in it. unique sorts (value, index) pairs in it with the index breaking ties (so each value's
// first occurrence comes first) and then starts a new value wherever two neighbours differ or
// either is NaN (each NaN is distinct).
#include "tenferro/ops/sets.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/contiguous.hpp"
#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/integer_order.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/indexing.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

// a < b for two non-NaN values (complex: lexicographic, real part first).
template <class T>
bool less_value(const T& a, const T& b) {
  if constexpr (is_complex_v<T>)
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  else
    return a < b;
}

// The order: NaN after every number, all NaNs equivalent.
template <class T>
bool before(const T& a, const T& b) {
  const bool na = kernels::is_nan_of(a), nb = kernels::is_nan_of(b);
  if (na || nb) return !na && nb;
  return less_value(a, b);
}

// ---- searchsorted ----

class SearchSortedPrim final : public PrimitiveWith<SearchSortedPrim> {
 public:
  explicit SearchSortedPrim(SearchSide side) : side_(side) {}
  std::string_view name() const override { return "searchsorted"; }
  std::string params() const override {
    return side_ == SearchSide::left ? "side=left" : "side=right";
  }
  auto key() const { return std::tie(side_); }
  bool accepts_integers() const override { return true; }
  bool differentiable() const override { return false; }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const Tensor& x1 = in[0];
    const Tensor& x2 = in[1];
    if (x1.rank() != 1)
      throw Error(ErrorKind::InvalidArgument,
                  "searchsorted: x1 must be one-dimensional (the sorted sequence), got " +
                      describe(in) + " (x1, x2)");
    if (in.size() > 2 &&
        (!is_integer(in[2].dtype()) || in[2].rank() != 1 || in[2].shape()[0] != x1.shape()[0]))
      throw Error(ErrorKind::ShapeMismatch,
                  "searchsorted: sorter must be one-dimensional of an integer dtype with x1's "
                  "length, got " +
                      describe(in) + " (x1, x2, sorter)");
    if (is_complex(x1.dtype()) || is_complex(x2.dtype()))
      throw Error(ErrorKind::DTypeMismatch,
                  "searchsorted: complex numbers are not ordered; got " + describe(in) +
                      " (x1, x2), expected real dtypes (bool, integers, f32, f64)");
    out.push_back({DType::i64, x2.shape()});
  }

  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& x1 = in[0];
    const Tensor& x2 = in[1];
    const I n = x1.numel(), m = x2.numel();
    I* o = static_cast<I*>(out[0].data_ptr());
    // The sorter (a third input) is checked whole, also when x2 is empty, before any search.
    const std::vector<I> order = in.size() > 2 ? checked_sorter(in, n) : std::vector<I>{};
    const I* s = in.size() > 2 ? order.data() : nullptr;
    if (m == 0) return;
    const bool right = side_ == SearchSide::right;
    // x1[s[i]] (or x1[i]) against each v[k]: lower_bound (left) / upper_bound (right) in `less`.
    auto search = [&](const auto* a, const auto* v, auto less) {
      auto body = [&](I b, I e) {
        for (I k = b; k < e; ++k) {
          const auto& q = v[k];
          I lo = 0, hi = n;  // answer in [lo, hi]
          while (lo < hi) {
            const I mid = lo + (hi - lo) / 2;
            const auto& am = a[s != nullptr ? s[mid] : mid];
            // left: is x1[mid] before q? right: is x1[mid] not after q?
            const bool go_right = right ? !less(q, am) : less(am, q);
            if (go_right)
              lo = mid + 1;
            else
              hi = mid;
          }
          o[k] = lo;
        }
      };
      I lg = 1;
      while ((I{1} << lg) < n + 1 && lg < 62) ++lg;
      ctx.parallel_for_work(m, 1024, m * lg * 4, body);
    };
    if (integers_promote_inexactly(x1.dtype(), x2.dtype())) {
      // Note [Exact u64-with-signed comparisons] (integer_order.hpp): u64 with a signed
      // integer promotes to f64, where values above 2^53 round; searchsorted compares them
      // exactly, both read as 128-bit integers.
      const std::vector<__int128> a = exact_integers(x1), v = exact_integers(x2);
      search(a.data(), v.data(), [](__int128 p, __int128 q) { return p < q; });
      return;
    }
    visit_dtype(promote(x1.dtype(), x2.dtype()), [&](auto z) {
      using T = decltype(z);
      if constexpr (!is_complex_v<T>) {
        std::unique_ptr<T[]> h1, h2;
        const T* a = n > 0 ? contiguous_or_held<T>(x1, h1, "searchsorted") : nullptr;
        const T* v = contiguous_or_held<T>(x2, h2, "searchsorted");
        search(a, v, [](const T& p, const T& q) { return before(p, q); });
      }
    });
  }

 private:
  // The sorter's entries as i64, each in [0, n): a negative entry is an error, as NumPy's
  // "Sorter index out of range" (it used to count from the end, index_select's rule).
  static std::vector<I> checked_sorter(std::span<const Tensor> in, I n) {
    const Tensor& sorter = in[2];
    std::vector<I> r(static_cast<std::size_t>(n));
    visit_dtype(sorter.dtype(), [&](auto z) {
      using S = decltype(z);
      if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
        std::unique_ptr<S[]> hold;
        const S* p = n > 0 ? contiguous_or_held<S>(sorter, hold, "searchsorted") : nullptr;
        for (I k = 0; k < n; ++k) {
          const S v = p[k];
          bool bad = false;
          if constexpr (std::is_signed_v<S>)
            bad = v < 0 || static_cast<I>(v) >= n;
          else
            bad = static_cast<std::uint64_t>(v) >= static_cast<std::uint64_t>(n);
          if (bad)
            throw Error(ErrorKind::InvalidArgument,
                        "searchsorted: sorter must hold indices into x1 (argsort(x1)) in [0, " +
                            std::to_string(n) + "), got index " + std::to_string(v) +
                            " at position " + std::to_string(k) + " for " + describe(in) +
                            " (x1, x2, sorter); negative indices are not accepted (NumPy)");
          r[static_cast<std::size_t>(k)] = static_cast<I>(v);
        }
      } else {
        throw Error(ErrorKind::DTypeMismatch,
                    "searchsorted: sorter must hold indices of an integer dtype, got " +
                        describe(in) + " (x1, x2, sorter)");
      }
    });
    return r;
  }

  // An integer tensor's elements, each exactly, as 128-bit integers (row-major).
  static std::vector<__int128> exact_integers(const Tensor& x) {
    std::vector<__int128> r(static_cast<std::size_t>(x.numel()));
    if (r.empty()) return r;
    visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (std::is_integral_v<T>) {
        std::unique_ptr<T[]> hold;
        const T* p = contiguous_or_held<T>(x, hold, "searchsorted");
        for (std::size_t k = 0; k < r.size(); ++k) r[k] = static_cast<__int128>(p[k]);
      }
    });
    return r;
  }

  SearchSide side_;
};

void check_defined(const char* op, const Tensor& x, const char* what) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": the input tensor " + what + " is undefined");
}

// ---- unique ----

struct UniqueParts {
  Tensor values;
  std::vector<I> firsts, inverse, counts;
};

// Note [Unique on concrete data]: the unique functions read x's elements on the calling thread
// (contiguous_or_held), as nonzero does, and build their index results with from_vector; only
// values goes through an op (take_along_axis), so autodiff sees the gather.
UniqueParts unique_parts(const char* op, const Tensor& x) {
  check_defined(op, x, "x");
  if (!x.has_storage())
    throw Error(ErrorKind::Unsupported,
                std::string(op) +
                    ": the result's shape depends on the values (the number of "
                    "distinct elements), so it cannot be traced or prepared; got "
                    "the symbolic tensor " +
                    describe(std::span<const Tensor>(&x, 1)) + "; call it eagerly");
  UniqueParts r;
  const I n = x.numel();
  r.inverse.resize(static_cast<std::size_t>(n));
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    std::unique_ptr<T[]> hold;
    const T* p = n > 0 ? contiguous_or_held<T>(x, hold, op) : nullptr;
    std::vector<I> order(static_cast<std::size_t>(n));
    for (I k = 0; k < n; ++k) order[static_cast<std::size_t>(k)] = k;
    std::sort(order.begin(), order.end(), [&](I a, I b) {
      if (before(p[a], p[b])) return true;
      if (before(p[b], p[a])) return false;
      return a < b;
    });
    for (std::size_t j = 0; j < order.size(); ++j) {
      const I k = order[j];
      bool fresh = j == 0;
      if (!fresh) {
        const T& prev = p[order[j - 1]];
        const T& cur = p[k];
        fresh = kernels::is_nan_of(cur) || kernels::is_nan_of(prev) || less_value(prev, cur);
      }
      if (fresh) {
        r.firsts.push_back(k);
        r.counts.push_back(0);
      }
      ++r.counts.back();
      r.inverse[static_cast<std::size_t>(k)] = static_cast<I>(r.firsts.size()) - 1;
    }
  });
  const I k = static_cast<I>(r.firsts.size());
  r.values = take_along_axis(reshape(x, {n}), from_vector<I>(r.firsts, {k}), 0);
  return r;
}

Tensor vec_tensor(const std::vector<I>& v, Dims shape) { return from_vector<I>(v, shape); }

}  // namespace
}  // namespace detail

Tensor searchsorted(const Tensor& x1, const Tensor& x2, SearchSide side, const Tensor& sorter) {
  using detail::I;
  detail::check_defined("searchsorted", x1, "x1");
  detail::check_defined("searchsorted", x2, "x2");
  if (side != SearchSide::left && side != SearchSide::right)
    throw Error(ErrorKind::InvalidArgument,
                "searchsorted: side must be SearchSide::left or SearchSide::right, got " +
                    std::to_string(static_cast<int>(side)));
  if (sorter.defined()) {
    const Tensor all[3] = {x1, x2, sorter};
    if (x1.rank() != 1)
      throw Error(ErrorKind::InvalidArgument,
                  "searchsorted: x1 must be one-dimensional (the sequence to search), got " +
                      detail::describe(all) + " (x1, x2, sorter)");
    if (!is_integer(sorter.dtype()))
      throw Error(ErrorKind::DTypeMismatch,
                  "searchsorted: sorter must hold indices of an integer dtype (argsort(x1)), got " +
                      detail::describe(all) + " (x1, x2, sorter)");
    if (sorter.rank() != 1 || sorter.shape()[0] != x1.shape()[0])
      throw Error(ErrorKind::ShapeMismatch,
                  "searchsorted: sorter must be one-dimensional with x1's length " +
                      std::to_string(x1.shape()[0]) + ", got " + detail::describe(all) +
                      " (x1, x2, sorter)");
    // The primitive reads x1 through the sorter and checks every index in [0, n) when it runs
    // (eagerly, traced or prepared alike).
    return detail::bind1(detail::SearchSortedPrim(side), {x1, x2, sorter});
  }
  return detail::bind1(detail::SearchSortedPrim(side), x1, x2);
}

UniqueAllResult unique_all(const Tensor& x) {
  detail::UniqueParts p = detail::unique_parts("unique_all", x);
  const detail::I k = static_cast<detail::I>(p.firsts.size());
  return {std::move(p.values), detail::vec_tensor(p.firsts, {k}),
          detail::vec_tensor(p.inverse, x.shape()), detail::vec_tensor(p.counts, {k})};
}

UniqueCountsResult unique_counts(const Tensor& x) {
  detail::UniqueParts p = detail::unique_parts("unique_counts", x);
  const detail::I k = static_cast<detail::I>(p.firsts.size());
  return {std::move(p.values), detail::vec_tensor(p.counts, {k})};
}

UniqueInverseResult unique_inverse(const Tensor& x) {
  detail::UniqueParts p = detail::unique_parts("unique_inverse", x);
  return {std::move(p.values), detail::vec_tensor(p.inverse, x.shape())};
}

Tensor unique_values(const Tensor& x) { return detail::unique_parts("unique_values", x).values; }

}  // namespace tenferro
