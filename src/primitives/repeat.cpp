// Repetition: tile (NumPy) and repeat_interleave (PyTorch), both composites of view ops and a
// gather, so autodiff, tracing and prepared programs need nothing of their own: the gradient of
// a broadcast sums over the copies, that of a gather scatter-adds over the repeats.
#include <string>
#include <vector>

#include "core/strided.hpp"
#include "primitives/index_checks.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops/indexing.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {

namespace {
using I = std::int64_t;

void require_defined(const char* op, const Tensor& x) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input tensor is undefined");
}

// reshape keeps a view of x where strides allow (all reps 1, or runs of stride 0): the result is
// always a fresh tensor, copied only when reshape did not already copy.
Tensor fresh(const Tensor& x, const Tensor& t) {
  if (t.has_storage() && t.storage().get() != x.storage().get()) return t;
  return copy(t);
}
}  // namespace

Tensor tile(const Tensor& x, Dims reps) {
  require_defined("tile", x);
  for (I r : reps)
    if (r < 0)
      throw Error(ErrorKind::InvalidArgument, "tile: reps " + dims_to_string(reps) + " for " +
                                                  detail::describe({&x, 1}) +
                                                  " has a negative entry; expected reps >= 0");
  // Align x's shape and reps at the trailing end, padding the shorter with 1s (NumPy).
  const std::size_t r = std::max(reps.size(), static_cast<std::size_t>(x.rank()));
  Dims shape(r - static_cast<std::size_t>(x.rank()), 1), rp(r - reps.size(), 1);
  shape.append(x.shape().begin(), x.shape().end());
  rp.append(reps.begin(), reps.end());
  // [s0, s1, ..] -> [1, s0, 1, s1, ..] -> broadcast [r0, s0, r1, s1, ..] -> [r0 s0, r1 s1, ..].
  Dims split, wide, out;
  for (std::size_t d = 0; d < r; ++d) {
    split.push_back(1);
    split.push_back(shape[d]);
    wide.push_back(rp[d]);
    wide.push_back(shape[d]);
    out.push_back(rp[d] * shape[d]);
  }
  return fresh(x, reshape(broadcast_to(reshape(x, split), wide), out));
}

Tensor repeat_interleave(const Tensor& x, std::int64_t repeats, std::int64_t axis) {
  require_defined("repeat_interleave", x);
  const I a = detail::normalize_axis(axis, x.rank(), "repeat_interleave");
  if (repeats < 0)
    throw Error(
        ErrorKind::InvalidArgument,
        "repeat_interleave: repeats " + std::to_string(repeats) + " is negative; expected >= 0");
  // [.., n, ..] -> [.., n, 1, ..] -> broadcast [.., n, repeats, ..] -> [.., n repeats, ..].
  const std::size_t ua = static_cast<std::size_t>(a);
  Dims wide = x.shape(), out = x.shape();
  wide.insert(ua + 1, repeats);
  out[ua] *= repeats;
  return fresh(x, reshape(broadcast_to(unsqueeze(x, a + 1), wide), out));
}

Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::int64_t axis) {
  require_defined("repeat_interleave", x);
  require_defined("repeat_interleave", repeats);
  const Tensor both[2] = {x, repeats};
  if (!is_integer(repeats.dtype()))
    throw Error(ErrorKind::DTypeMismatch,
                "repeat_interleave: repeats must have an integer dtype (i8 ... i64, u8 ... u64), "
                "got " +
                    detail::describe(both));
  const I a = detail::normalize_axis(axis, x.rank(), "repeat_interleave");
  const I n = x.shape()[static_cast<std::size_t>(a)];
  if (repeats.rank() > 1 || (repeats.numel() != 1 && repeats.numel() != n))
    throw Error(ErrorKind::ShapeMismatch, "repeat_interleave: repeats " + detail::describe(both) +
                                              " for axis " + std::to_string(axis) +
                                              "; expected rank <= 1 with 1 or " +
                                              std::to_string(n) + " counts");
  if (!repeats.has_storage())
    throw Error(ErrorKind::Unsupported,
                "repeat_interleave: the result's shape depends on the values of repeats, so a "
                "traced repeats tensor is unsupported; pass concrete counts (x may be traced)");
  // Read through load_index (any integer dtype); a u64 count above INT64_MAX is refused, never
  // wrapped to a negative one.
  std::vector<I> counts;
  const Dims strides[1] = {Dims(repeats.strides())};
  const void* p = repeats.data_ptr();
  detail::for_each_position(repeats.shape(), strides, [&](const Dims&, const I* off) {
    I c = 0;
    const bool fits = detail::load_index(p, repeats.dtype(), off[0], c);
    if (!fits || c < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "repeat_interleave: repeats[" + std::to_string(counts.size()) +
                      "] = " + detail::index_text(p, repeats.dtype(), off[0]) +
                      (fits ? " is negative; expected counts >= 0"
                            : " is too large; expected counts <= 2**63 - 1"));
    counts.push_back(c);
  });
  if (counts.size() == 1 && n != 1) return repeat_interleave(x, counts[0], axis);
  std::vector<I> idx;
  for (I k = 0; k < n; ++k) idx.insert(idx.end(), static_cast<std::size_t>(counts[k]), k);
  const I total = static_cast<I>(idx.size());
  return index_select(x, a, from_vector<I>(idx, {total}));
}

}  // namespace tenferro
