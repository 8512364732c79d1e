// The reduction and structural op tables (one row per primitive; PyTorch OpInfo style).
//
// Reuse: every row has the op as a plain function of public tensors, the input domain on which
// it is smooth (for finite differences; max/min rows need distinct values, which the domains
// give almost surely), and an independent long-double reference. A finite-difference suite can
// iterate `reduce_table()` x axis sets (use `reduce_cases()`), and `structural_table()` with each
// row's example input shapes.
#pragma once

#include <algorithm>
#include <vector>

#include "common/reduce_ref.hpp"

namespace tenferro::testing {

// ---- reductions ----

/// One reduced run's reference value and the magnitude its rounding error scales with.
struct RefRun {
  cld value;
  long double scale;
};
using RunFn = RefRun (*)(const std::vector<cld>&);

struct ReduceRow {
  const char* name;
  Tensor (*op)(const Tensor&, Dims, bool);
  RunFn ref;
  bool real_only;     // complex input: DTypeMismatch
  bool empty_throws;  // reducing zero elements: InvalidArgument
  bool real_output;   // result dtype is real_dtype(input)
  Domain domain;      // inputs for value and derivative checks
};

namespace ref_runs {
inline RefRun sum(const std::vector<cld>& r) {
  RefRun o{0, 0};
  for (const cld& v : r) o.value += v, o.scale += std::abs(v);
  return o;
}
inline RefRun mean(const std::vector<cld>& r) {
  RefRun o = sum(r);
  const auto n = static_cast<long double>(r.size());
  return {r.empty() ? cld(NAN, 0) : o.value / n, r.empty() ? 0 : o.scale / n};
}
inline RefRun prod(const std::vector<cld>& r) {
  cld p = 1;
  for (const cld& v : r) p *= v;
  return {p, std::abs(p) * static_cast<long double>(r.size() + 1)};
}
inline RefRun max(const std::vector<cld>& r) {
  long double m = -INFINITY;
  for (const cld& v : r) m = std::max(m, v.real());
  return {m, 0};
}
inline RefRun min(const std::vector<cld>& r) {
  long double m = INFINITY;
  for (const cld& v : r) m = std::min(m, v.real());
  return {m, 0};
}
inline RefRun sum_squares(const std::vector<cld>& r) {
  long double s = 0;
  for (const cld& v : r) s += std::norm(v);
  return {s, s};
}
inline RefRun norm(const std::vector<cld>& r) {
  long double s = std::sqrt(sum_squares(r).value.real());
  return {s, s};
}
}  // namespace ref_runs

inline const std::vector<ReduceRow>& reduce_table() {
  static const std::vector<ReduceRow> rows = {
      {"sum", [](const Tensor& x, Dims a, bool k) { return sum(x, std::move(a), k); },
       ref_runs::sum, false, false, false, Domain::normal},
      {"prod", [](const Tensor& x, Dims a, bool k) { return prod(x, std::move(a), k); },
       ref_runs::prod, false, false, false, Domain::near_one},
      {"mean", [](const Tensor& x, Dims a, bool k) { return mean(x, std::move(a), k); },
       ref_runs::mean, false, false, false, Domain::normal},
      {"max", [](const Tensor& x, Dims a, bool k) { return max(x, std::move(a), k); },
       ref_runs::max, true, true, false, Domain::normal},
      {"min", [](const Tensor& x, Dims a, bool k) { return min(x, std::move(a), k); },
       ref_runs::min, true, true, false, Domain::normal},
      {"sum_squares",
       [](const Tensor& x, Dims a, bool k) { return sum_squares(x, std::move(a), k); },
       ref_runs::sum_squares, false, false, true, Domain::normal},
      {"norm", [](const Tensor& x, Dims a, bool k) { return norm(x, std::move(a), k); },
       ref_runs::norm, false, false, true, Domain::normal},
  };
  return rows;
}

/// Shapes and axis sets every reduction row is checked on (keepdims both ways by the caller).
struct ReduceCase {
  Dims shape;
  Dims axes;  // empty = all
};
inline const std::vector<ReduceCase>& reduce_cases() {
  static const std::vector<ReduceCase> cases = {
      {{}, {}},
      {{5}, {}},
      {{5}, {-1}},
      {{3, 4}, {0}},
      {{3, 4}, {1}},
      {{3, 4}, {}},
      {{3, 4}, {-2, 1}},
      {{2, 3, 4}, {0, 2}},
      {{2, 3, 4}, {1}},
      {{2, 3, 4}, {2, 0}},
      {{2, 3, 4}, {-1, -3}},
      {{4, 1, 5}, {1}},
      {{0, 3}, {1}},
      {{0, 3}, {0}},
      {{40, 70}, {0}},
      {{3, 20, 9}, {1}},
      {{2, 5, 3, 4}, {0, 2}},
      {{3, 40000}, {1}},
      {{70000}, {}},
  };
  return cases;
}

/// The reference reduction of x over `axes` (empty = all; negative allowed).
inline RefTensor ref_reduce(const RefTensor& x, const Dims& axes, bool keepdims, RunFn f,
                            std::vector<long double>* scales = nullptr) {
  const std::size_t r = x.shape.size();
  std::vector<bool> red(r, axes.empty());
  for (auto a : axes)
    red[static_cast<std::size_t>(a < 0 ? a + static_cast<std::int64_t>(r) : a)] = true;
  Dims kept, out_shape;
  for (std::size_t d = 0; d < r; ++d) {
    if (!red[d]) kept.push_back(x.shape[d]);
    if (!red[d]) out_shape.push_back(x.shape[d]);
    if (red[d] && keepdims) out_shape.push_back(1);
  }
  RefTensor out{out_shape, {}};
  std::vector<std::vector<cld>> runs(static_cast<std::size_t>(ref_numel(kept)));
  for (std::int64_t i = 0; i < ref_numel(x.shape); ++i) {  // row-major: runs in index order
    Dims idx = unravel(i, x.shape), k;
    for (std::size_t d = 0; d < r; ++d)
      if (!red[d]) k.push_back(idx[d]);
    runs[static_cast<std::size_t>(ravel(k, kept))].push_back(x.v[static_cast<std::size_t>(i)]);
  }
  for (const auto& run : runs) {
    RefRun o = f(run);
    out.v.push_back(o.value);
    if (scales) scales->push_back(o.scale);
  }
  return out;
}

// ---- structural ops ----

struct StructuralRow {
  const char* name;
  std::vector<Dims> shapes;  // example input shapes (one entry per input)
  Tensor (*op)(std::span<const Tensor>);
  RefTensor (*ref)(std::span<const RefTensor>);
};

namespace ref_structural {
inline RefTensor concat(std::span<const RefTensor> in, std::int64_t axis) {
  const auto a = static_cast<std::size_t>(
      axis < 0 ? axis + static_cast<std::int64_t>(in[0].shape.size()) : axis);
  RefTensor out{in[0].shape, {}};
  out.shape[a] = 0;
  for (const auto& t : in) out.shape[a] += t.shape[a];
  for (std::int64_t i = 0; i < ref_numel(out.shape); ++i) {
    Dims idx = unravel(i, out.shape);
    std::size_t k = 0;
    while (idx[a] >= in[k].shape[a]) idx[a] -= in[k++].shape[a];
    out.v.push_back(in[k].v[static_cast<std::size_t>(ravel(idx, in[k].shape))]);
  }
  return out;
}
inline RefTensor stack(std::span<const RefTensor> in, std::int64_t axis) {
  std::vector<RefTensor> u(in.begin(), in.end());
  const auto r = static_cast<std::int64_t>(in[0].shape.size());
  const std::int64_t a = axis < 0 ? axis + r + 1 : axis;
  for (auto& t : u) t.shape.insert(static_cast<std::size_t>(a), 1);
  return concat(u, a);
}
// Element (i, j) of the last two dims, offset k: on diagonal when j - i == k.
inline RefTensor diagonal(const RefTensor& x, std::int64_t k) {
  const std::size_t r = x.shape.size();
  const std::int64_t m = x.shape[r - 2], n = x.shape[r - 1];
  std::int64_t len = 0;
  for (std::int64_t i = 0; i < m; ++i)
    if (i + k >= 0 && i + k < n) ++len;
  RefTensor out{Dims(x.shape.begin(), x.shape.end() - 2), {}};
  out.shape.push_back(len);
  const std::int64_t batch = ref_numel(out.shape) / std::max<std::int64_t>(len, 1);
  for (std::int64_t b = 0; b < (len ? batch : 0); ++b)
    for (std::int64_t i = 0; i < m; ++i)
      if (i + k >= 0 && i + k < n)
        out.v.push_back(x.v[static_cast<std::size_t>((b * m + i) * n + i + k)]);
  return out;
}
inline RefTensor diag_embed(const RefTensor& v, std::int64_t k) {
  const std::int64_t len = v.shape.back(), n = len + (k < 0 ? -k : k);
  RefTensor out{Dims(v.shape.begin(), v.shape.end() - 1), {}};
  out.shape.push_back(n);
  out.shape.push_back(n);
  out.v.assign(static_cast<std::size_t>(ref_numel(out.shape)), cld(0));
  const std::int64_t batch = ref_numel(v.shape) / std::max<std::int64_t>(len, 1);
  for (std::int64_t b = 0; b < (len ? batch : 0); ++b)
    for (std::int64_t t = 0; t < len; ++t) {
      const std::int64_t i = k >= 0 ? t : t - k, j = i + k;
      out.v[static_cast<std::size_t>((b * n + i) * n + j)] =
          v.v[static_cast<std::size_t>(b * len + t)];
    }
  return out;
}
inline RefTensor tri(const RefTensor& x, std::int64_t k, bool lower) {
  const std::size_t r = x.shape.size();
  const std::int64_t m = x.shape[r - 2], n = x.shape[r - 1];
  RefTensor out = x;
  for (std::int64_t e = 0; e < ref_numel(x.shape); ++e) {
    const std::int64_t j = e % n, i = (e / n) % m;
    if (lower ? j > i + k : j < i + k) out.v[static_cast<std::size_t>(e)] = 0;
  }
  return out;
}
// out[idx] = x[idx with idx[a] -> n - 1 - idx[a]] for each flipped axis a.
inline RefTensor flip(const RefTensor& x, std::initializer_list<std::size_t> axes) {
  RefTensor out{x.shape, {}};
  for (std::int64_t e = 0; e < ref_numel(x.shape); ++e) {
    Dims idx = unravel(e, x.shape);
    for (std::size_t a : axes) idx[a] = x.shape[a] - 1 - idx[a];
    out.v.push_back(x.v[static_cast<std::size_t>(ravel(idx, x.shape))]);
  }
  return out;
}
// out[i] = x[(i - shift) mod n] along axis a.
inline RefTensor roll(const RefTensor& x, std::int64_t shift, std::size_t a) {
  RefTensor out{x.shape, {}};
  const std::int64_t n = x.shape[a];
  for (std::int64_t e = 0; e < ref_numel(x.shape); ++e) {
    Dims idx = unravel(e, x.shape);
    idx[a] = (((idx[a] - shift) % n) + n) % n;
    out.v.push_back(x.v[static_cast<std::size_t>(ravel(idx, x.shape))]);
  }
  return out;
}
// The elements at the listed positions of axis a, in that order.
inline RefTensor pick(const RefTensor& x, std::size_t a, std::initializer_list<std::int64_t> at) {
  RefTensor out{x.shape, {}};
  out.shape[a] = static_cast<std::int64_t>(at.size());
  for (std::int64_t e = 0; e < ref_numel(out.shape); ++e) {
    Dims idx = unravel(e, out.shape);
    idx[a] = at.begin()[idx[a]];
    out.v.push_back(x.v[static_cast<std::size_t>(ravel(idx, x.shape))]);
  }
  return out;
}
// The diagonal of the plane (a, b), k = 0, appended as the last axis of the remaining axes.
inline RefTensor diagonal_of(const RefTensor& x, std::size_t a, std::size_t b) {
  Dims rest;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (d != a && d != b) rest.push_back(x.shape[d]);
  const std::int64_t len = std::min(x.shape[a], x.shape[b]);
  RefTensor out{rest, {}};
  out.shape.push_back(len);
  for (std::int64_t e = 0; e < ref_numel(out.shape); ++e) {
    const Dims o = unravel(e, out.shape);
    Dims idx(x.shape.size(), 0);
    std::size_t r = 0;
    for (std::size_t d = 0; d < x.shape.size(); ++d)
      idx[d] = (d == a || d == b) ? o.back() : o[r++];
    out.v.push_back(x.v[static_cast<std::size_t>(ravel(idx, x.shape))]);
  }
  return out;
}
}  // namespace ref_structural

inline const std::vector<StructuralRow>& structural_table() {
  using namespace ref_structural;
  using S = std::span<const Tensor>;
  using R = std::span<const RefTensor>;
  static const std::vector<StructuralRow> rows = {
      {"concatenate_axis0",
       {{2, 3}, {4, 3}, {1, 3}},
       [](S t) { return concatenate(t, 0); },
       [](R t) { return concat(t, 0); }},
      {"concatenate_axis1",
       {{2, 3}, {2, 1}, {2, 2}},
       [](S t) { return concatenate(t, 1); },
       [](R t) { return concat(t, 1); }},
      {"concatenate_last_3d",
       {{2, 3, 2}, {2, 3, 5}},
       [](S t) { return concatenate(t, -1); },
       [](R t) { return concat(t, -1); }},
      {"concatenate_with_empty",
       {{2, 0, 3}, {2, 2, 3}},
       [](S t) { return concatenate(t, 1); },
       [](R t) { return concat(t, 1); }},
      {"stack_axis0",
       {{2, 3}, {2, 3}, {2, 3}},
       [](S t) { return stack(t, 0); },
       [](R t) { return stack(t, 0); }},
      {"stack_axis_last",
       {{3}, {3}},
       [](S t) { return stack(t, -1); },
       [](R t) { return stack(t, -1); }},
      {"stack_middle",
       {{2, 4}, {2, 4}},
       [](S t) { return stack(t, 1); },
       [](R t) { return stack(t, 1); }},
      {"diag", {{3, 3}}, [](S t) { return diagonal(t[0]); }, [](R t) { return diagonal(t[0], 0); }},
      {"diag_offset1_rect",
       {{3, 4}},
       [](S t) { return diagonal(t[0], 1); },
       [](R t) { return diagonal(t[0], 1); }},
      {"diag_batched_neg",
       {{2, 4, 3}},
       [](S t) { return diagonal(t[0], -2); },
       [](R t) { return diagonal(t[0], -2); }},
      {"diag_embed",
       {{3}},
       [](S t) { return diag_embed(t[0]); },
       [](R t) { return diag_embed(t[0], 0); }},
      {"diag_embed_batched_neg",
       {{2, 3}},
       [](S t) { return diag_embed(t[0], -1); },
       [](R t) { return diag_embed(t[0], -1); }},
      {"diag_embed_pos",
       {{2}},
       [](S t) { return diag_embed(t[0], 2); },
       [](R t) { return diag_embed(t[0], 2); }},
      {"flip_all_3d",
       {{2, 3, 4}},
       [](S t) { return flip(t[0]); },
       [](R t) {
         return flip(t[0], {0, 1, 2});
       }},
      {"flip_axes_neg",
       {{3, 4}},
       [](S t) { return flip(t[0], {-1}); },
       [](R t) { return flip(t[0], {1}); }},
      {"roll_axis1",
       {{2, 5}},
       [](S t) { return roll(t[0], 7, 1); },
       [](R t) { return roll(t[0], 7, 1); }},
      {"roll_negative_axis0",
       {{4, 3}},
       [](S t) { return roll(t[0], -1, 0); },
       [](R t) { return roll(t[0], -1, 0); }},
      {"slice_step_minus2",
       {{3, 5}},
       [](S t) { return slice(t[0], 1, 4, 0, -2); },
       [](R t) {
         return pick(t[0], 1, {4, 2});
       }},
      {"slice_reverse_from_neg",
       {{5, 2}},
       [](S t) { return slice(t[0], 0, -2, -6, -1); },
       [](R t) {
         return pick(t[0], 0, {3, 2, 1, 0});
       }},
      {"diagonal_axes_0_2",
       {{3, 2, 4}},
       [](S t) { return diagonal(t[0], 0, 0, 2); },
       [](R t) { return diagonal_of(t[0], 0, 2); }},
      {"diagonal_axes_2_0",
       {{3, 2, 3}},
       [](S t) { return diagonal(t[0], 0, -1, 0); },
       [](R t) { return diagonal_of(t[0], 2, 0); }},
      {"diag_numpy_vector",
       {{3}},
       [](S t) { return diag(t[0], -1); },
       [](R t) { return diag_embed(t[0], -1); }},
      {"diag_numpy_matrix",
       {{3, 4}},
       [](S t) { return diag(t[0], 1); },
       [](R t) { return diagonal(t[0], 1); }},
      {"tril", {{3, 4}}, [](S t) { return tril(t[0]); }, [](R t) { return tri(t[0], 0, true); }},
      {"tril_batched_neg",
       {{2, 3, 3}},
       [](S t) { return tril(t[0], -1); },
       [](R t) { return tri(t[0], -1, true); }},
      {"triu_pos",
       {{4, 3}},
       [](S t) { return triu(t[0], 1); },
       [](R t) { return tri(t[0], 1, false); }},
      {"triu_batched",
       {{2, 3, 5}},
       [](S t) { return triu(t[0]); },
       [](R t) { return tri(t[0], 0, false); }},
  };
  return rows;
}

}  // namespace tenferro::testing
