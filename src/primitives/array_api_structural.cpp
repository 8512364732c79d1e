// The Array API's manipulation functions and its cumulative_sum / cumulative_prod, composed
// from catalog views and joins (permute, unsqueeze, reshape, broadcast_to, concatenate, cumsum,
// cumprod): autodiff, tracing and prepared runs cover them through those. Each checks its
// arguments first so that errors name the Array API function.
#include <algorithm>
#include <string>
#include <vector>

#include "primitives/primitive.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/scans.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {

namespace {

void require_defined(std::span<const Tensor> ts, const char* op) {
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": tensor " + std::to_string(i) + " is undefined");
}

// Normalised axes of `axes` for a tensor x, distinct (InvalidArgument naming op otherwise).
std::vector<std::int64_t> distinct_axes(const Dims& axes, const Tensor& x, const char* op,
                                        const char* what) {
  std::vector<std::int64_t> out;
  for (std::int64_t a : axes) {
    const std::int64_t d = detail::normalize_axis(a, x.rank(), op);
    if (std::find(out.begin(), out.end(), d) != out.end())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": " + what + " " + dims_to_string(axes) + " names axis " +
                      std::to_string(d) + " twice (tensor of shape " + dims_to_string(x.shape()) +
                      "); expected distinct axes");
    out.push_back(d);
  }
  return out;
}

}  // namespace

Tensor moveaxis(const Tensor& x, Dims source, Dims destination) {
  const Tensor in[1] = {x};
  require_defined(in, "moveaxis");
  if (source.size() != destination.size())
    throw Error(ErrorKind::InvalidArgument,
                "moveaxis: source " + dims_to_string(source) + " and destination " +
                    dims_to_string(destination) + " have different lengths (tensor of shape " +
                    dims_to_string(x.shape()) + "); expected one destination per source axis");
  const auto src = distinct_axes(source, x, "moveaxis", "source");
  const auto dst = distinct_axes(destination, x, "moveaxis", "destination");
  // NumPy's construction: the unmoved axes in order, then each source inserted at its
  // destination, in increasing order of destination.
  std::vector<std::int64_t> order;
  for (std::int64_t d = 0; d < x.rank(); ++d)
    if (std::find(src.begin(), src.end(), d) == src.end()) order.push_back(d);
  std::vector<std::size_t> by_dst(src.size());
  for (std::size_t i = 0; i < by_dst.size(); ++i) by_dst[i] = i;
  std::sort(by_dst.begin(), by_dst.end(),
            [&](std::size_t a, std::size_t b) { return dst[a] < dst[b]; });
  for (std::size_t i : by_dst) order.insert(order.begin() + dst[i], src[i]);
  return permute(x, Dims(order.begin(), order.end()));
}

Tensor expand_dims(const Tensor& x, std::int64_t axis) {
  const Tensor in[1] = {x};
  require_defined(in, "expand_dims");
  if (axis < -x.rank() - 1 || axis > x.rank())
    throw Error(ErrorKind::InvalidArgument,
                "expand_dims: axis " + std::to_string(axis) + " is out of range for shape " +
                    dims_to_string(x.shape()) + "; expected " + std::to_string(-x.rank() - 1) +
                    " <= axis <= " + std::to_string(x.rank()));
  return unsqueeze(x, axis);
}

std::vector<Tensor> broadcast_arrays(std::span<const Tensor> tensors) {
  require_defined(tensors, "broadcast_arrays");
  std::int64_t rank = 0;
  for (const Tensor& t : tensors) rank = std::max(rank, t.rank());
  Dims shape(static_cast<std::size_t>(rank), 1);
  for (const Tensor& t : tensors)
    for (std::int64_t k = 1; k <= t.rank(); ++k) {
      const std::int64_t n = t.shape()[static_cast<std::size_t>(t.rank() - k)];
      std::int64_t& s = shape[static_cast<std::size_t>(rank - k)];
      if (n == s || n == 1) continue;
      if (s != 1)
        throw Error(ErrorKind::ShapeMismatch,
                    "broadcast_arrays: shapes " + detail::describe(tensors) +
                        " do not broadcast (axis " + std::to_string(-k) + " has sizes " +
                        std::to_string(s) + " and " + std::to_string(n) +
                        "); expected equal sizes or 1");
      s = n;
    }
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(broadcast_to(t, shape));
  return out;
}

std::vector<Tensor> meshgrid(std::span<const Tensor> tensors, MeshIndexing indexing) {
  require_defined(tensors, "meshgrid");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].rank() != 1)
      throw Error(ErrorKind::InvalidArgument,
                  "meshgrid: input " + std::to_string(i) + " has shape " +
                      dims_to_string(tensors[i].shape()) + " (inputs " + detail::describe(tensors) +
                      "); expected rank-1 tensors");
  const std::size_t n = tensors.size();
  const bool swap = indexing == MeshIndexing::xy && n >= 2;
  // Output axis of input i: i, except that xy swaps the first two.
  const auto axis_of = [&](std::size_t i) { return swap && i < 2 ? 1 - i : i; };
  Dims shape(n);
  for (std::size_t i = 0; i < n; ++i) shape[axis_of(i)] = tensors[i].shape()[0];
  std::vector<Tensor> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    Dims s(n, 1);
    s[axis_of(i)] = tensors[i].shape()[0];
    out.push_back(broadcast_to(reshape(tensors[i], s), shape));
  }
  return out;
}

Tensor concat(std::span<const Tensor> tensors, std::optional<std::int64_t> axis) {
  require_defined(tensors, "concat");
  if (tensors.empty())
    throw Error(ErrorKind::InvalidArgument,
                "concat: no tensors given; expected at least one tensor");
  if (axis) return concatenate(tensors, *axis);
  std::vector<Tensor> flat;
  flat.reserve(tensors.size());
  for (const Tensor& t : tensors) flat.push_back(reshape(t, {t.numel()}));
  return concatenate(std::span<const Tensor>(flat), 0);
}

namespace {

Tensor cumulative(const Tensor& x, std::optional<std::int64_t> axis, std::optional<DType> dtype,
                  bool include_initial, bool product) {
  const char* op = product ? "cumulative_prod" : "cumulative_sum";
  const Tensor in[1] = {x};
  require_defined(in, op);
  if (x.rank() == 0)
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the input is 0-d (" +
                                                detail::describe(in) +
                                                "); expected a tensor with at least one axis");
  if (!axis && x.rank() != 1)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": no axis given for a tensor of shape " +
                    dims_to_string(x.shape()) + "; expected an axis when the rank is not 1");
  const std::int64_t a = detail::normalize_axis(axis.value_or(0), x.rank(), op);
  const Tensor xd = dtype ? cast(x, *dtype) : x;
  Tensor c = product ? cumprod(xd, a) : cumsum(xd, a);
  if (dtype) c = cast(c, *dtype);
  if (!include_initial) return c;
  Dims first = c.shape();
  first[static_cast<std::size_t>(a)] = 1;
  const Tensor init = product ? ones(first, c.dtype()) : zeros(first, c.dtype());
  const Tensor parts[2] = {init, c};
  return concatenate(std::span<const Tensor>(parts), a);
}

}  // namespace

Tensor cumulative_sum(const Tensor& x, std::optional<std::int64_t> axis, std::optional<DType> dtype,
                      bool include_initial) {
  return cumulative(x, axis, dtype, include_initial, false);
}

Tensor cumulative_prod(const Tensor& x, std::optional<std::int64_t> axis,
                       std::optional<DType> dtype, bool include_initial) {
  return cumulative(x, axis, dtype, include_initial, true);
}

}  // namespace tenferro
