// Diagonals and triangles of the last two dims (batched): diagonal (a view; other axis pairs are a
// permute first), NumPy's diag (rank 1 -> matrix, rank 2 -> diagonal), diag_embed, tril, triu.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "core/contiguous.hpp"
#include "core/strided.hpp"
#include "primitives/primitive.hpp"
#include "primitives/structural_prims.hpp"
#include "primitives/view_primitive.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {
namespace {

using I = std::int64_t;

void require_matrix(const Tensor& x, const char* op) {
  if (x.rank() < 2)
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": expected a tensor of rank >= 2 (a batch of matrices), got " +
                    describe(std::span<const Tensor>(&x, 1)));
}

I diag_length(I m, I n, I k) {
  return std::max<I>(0, k >= 0 ? std::min(m, n - k) : std::min(m + k, n));
}

// The diagonal view of x's last two dims (x concrete or symbolic: strides are x's).
void diag_geometry(const Tensor& x, I k, Dims& shape, Dims& strides, I& offset) {
  const std::size_t r = x.shape().size();
  const I m = x.shape()[r - 2], n = x.shape()[r - 1], sm = x.strides()[r - 2],
          sn = x.strides()[r - 1];
  shape = Dims(x.shape().begin(), x.shape().end() - 2);
  strides = Dims(x.strides().begin(), x.strides().end() - 2);
  const I len = diag_length(m, n, k);
  shape.push_back(len);
  // With len >= 2 both dims have size >= 2 and sm + sn lies within x's extent; a diagonal of
  // length <= 1 never steps (and sm + sn may overflow for size-1 dims with huge strides).
  strides.push_back(len > 1 ? sm + sn : 1);
  // An empty diagonal (or an empty batch) keeps x's offset.
  offset = x.offset() + (len > 0 && x.numel() > 0 ? (k >= 0 ? k * sn : -k * sm) : 0);
}

Tensor diag_view(const Tensor& x, I k) {
  Dims shape, strides;
  I offset;
  diag_geometry(x, k, shape, strides, offset);
  return Tensor(x.storage(), std::move(shape), std::move(strides), offset, x.dtype());
}

class DiagEmbedPrim;

// The diagonal of the last two dims (other axis pairs permute first, see diagonal()).
class DiagPrim final : public ViewPrimitive<DiagPrim> {
 public:
  explicit DiagPrim(I k) : k_(k) {}
  std::string_view name() const override { return "diagonal"; }
  std::string params() const override { return "offset=" + std::to_string(k_); }
  auto key() const { return std::tie(k_); }
  Dims view_shape(const Tensor& x) const {
    require_matrix(x, "diagonal");
    Dims shape, strides;
    I offset;
    diag_geometry(x, k_, shape, strides, offset);
    return shape;
  }
  Tensor view_of(const Tensor& x) const {
    require_matrix(x, "diagonal");
    return diag_view(x, k_);
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override;

 private:
  I k_;
};

// Zeros of [..., rows, cols] with v's last dim on diagonal k. rows = cols = -1: the square
// size L + |k| (the public diag_embed); explicit sizes: the adjoint of diag on an m x n input.
class DiagEmbedPrim final : public PrimitiveWith<DiagEmbedPrim> {
 public:
  bool accepts_integers() const override { return true; }  // moves elements only
  DiagEmbedPrim(I k, I rows, I cols) : k_(k), rows_(rows), cols_(cols) {}
  std::string_view name() const override { return "diag_embed"; }
  std::string params() const override {
    return "offset=" + std::to_string(k_) +
           (rows_ < 0 ? "" : " rows=" + std::to_string(rows_) + " cols=" + std::to_string(cols_));
  }
  auto key() const { return std::tie(k_, rows_, cols_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    if (in[0].rank() < 1)
      throw Error(
          ErrorKind::InvalidArgument,
          "diag_embed: expected a tensor of rank >= 1 (a batch of vectors), got " + describe(in));
    const I len = in[0].shape().back();
    I m = rows_, n = cols_;
    if (rows_ < 0 &&
        (k_ == std::numeric_limits<I>::min() || __builtin_add_overflow(len, k_ < 0 ? -k_ : k_, &m)))
      throw Error(ErrorKind::InvalidArgument,
                  "diag_embed: offset " + std::to_string(k_) + " with input " + describe(in) +
                      " gives matrices of more than INT64_MAX rows; expected |offset| + length "
                      "<= INT64_MAX");
    if (rows_ < 0) n = m;
    if (diag_length(m, n, k_) != len)
      throw Error(ErrorKind::ShapeMismatch, "diag_embed: input " + describe(in) +
                                                " does not fit diagonal " + std::to_string(k_) +
                                                " of a " + std::to_string(m) + " x " +
                                                std::to_string(n) + " matrix");
    Dims shape(in[0].shape().begin(), in[0].shape().end() - 1);
    shape.push_back(m);
    shape.push_back(n);
    out.push_back({in[0].dtype(), std::move(shape)});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    std::memset(out[0].data_ptr(), 0,
                static_cast<std::size_t>(out[0].numel()) * dtype_size(out[0].dtype()));
    if (in[0].numel() == 0) return;
    Tensor d = diag_view(out[0], k_);
    visit_dtype(in[0].dtype(), [&](auto z) {
      using T = decltype(z);
      std::unique_ptr<T[]> hold;
      const T* src = contiguous_or_held<T>(in[0], hold, "diag_embed");
      T* dst = static_cast<T*>(out[0].data_ptr());
      for_each_offset(d.shape(), d.strides(), d.offset(), [&](I off) { dst[off] = *src++; });
    });
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined()) out_t[0] = bind1(*this, {t[0]});
  }
  void vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    if (ct[0].defined()) in_ct[0] = diagonal(ct[0], k_);
  }

 private:
  I k_, rows_, cols_;
};

void DiagPrim::vjp(std::span<const Tensor> primals, std::span<const Tensor>,
                   std::span<const Tensor> ct, std::span<const bool>,
                   std::span<Tensor> in_ct) const {
  if (!ct[0].defined()) return;
  const Dims& s = primals[0].shape();
  in_ct[0] = bind1(DiagEmbedPrim(k_, s[s.size() - 2], s[s.size() - 1]), {ct[0]});
}

// tril (lower) keeps j <= i + k; triu keeps j >= i + k.
class TriPrim final : public PrimitiveWith<TriPrim> {
 public:
  bool accepts_integers() const override { return true; }  // moves elements only
  TriPrim(bool lower, I k) : lower_(lower), k_(k) {}
  std::string_view name() const override { return lower_ ? "tril" : "triu"; }
  std::string params() const override { return "k=" + std::to_string(k_); }
  auto key() const { return std::tie(lower_, k_); }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    require_matrix(in[0], lower_ ? "tril" : "triu");
    out.push_back({in[0].dtype(), in[0].shape()});
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    copy_to_contiguous(in[0], out[0].data_ptr(), out[0].dtype());
    const Dims& s = out[0].shape();
    const I m = s[s.size() - 2], n = s[s.size() - 1];
    const I batch = m == 0 || n == 0 ? 0 : out[0].numel() / m / n;
    // Any k beyond the matrix acts like its edge value; clamping keeps i + k from overflowing
    // (tril(x, INT64_MAX) keeps everything, triu(x, INT64_MAX) nothing).
    const I k = std::clamp<I>(k_, -m - 1, n + 1);
    const std::size_t item = dtype_size(out[0].dtype());
    char* base = static_cast<char*>(out[0].data_ptr());
    for (I b = 0; b < batch; ++b)
      for (I i = 0; i < m; ++i) {
        // Zeroed columns of row i: [lo, hi).
        const I lo = lower_ ? std::clamp<I>(i + k + 1, 0, n) : 0;
        const I hi = lower_ ? n : std::clamp<I>(i + k, 0, n);
        if (hi > lo)
          std::memset(base + ((b * m + i) * n + lo) * static_cast<I>(item), 0,
                      static_cast<std::size_t>(hi - lo) * item);
      }
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined()) out_t[0] = bind1(*this, {t[0]});
  }
  void vjp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool>, std::span<Tensor> in_ct) const override {
    if (ct[0].defined()) in_ct[0] = bind1(*this, {ct[0]});
  }

 private:
  bool lower_;
  I k_;
};

}  // namespace

std::shared_ptr<const Primitive> diag_primitive(std::int64_t offset) {
  return DiagPrim(offset).share();
}
std::shared_ptr<const Primitive> diag_embed_primitive(std::int64_t offset) {
  return DiagEmbedPrim(offset, -1, -1).share();
}
std::shared_ptr<const Primitive> tri_primitive(bool lower, std::int64_t k) {
  return TriPrim(lower, k).share();
}

}  // namespace detail

Tensor diagonal(const Tensor& x, std::int64_t offset, std::int64_t axis1, std::int64_t axis2) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, "diagonal: the input tensor is undefined");
  detail::require_matrix(x, "diagonal");
  const std::int64_t r = x.rank();
  const std::int64_t a = detail::normalize_axis(axis1, r, "diagonal");
  const std::int64_t b = detail::normalize_axis(axis2, r, "diagonal");
  if (a == b)
    throw Error(ErrorKind::InvalidArgument,
                "diagonal: axis1 " + std::to_string(axis1) + " and axis2 " + std::to_string(axis2) +
                    " are the same axis of " + detail::describe(std::span<const Tensor>(&x, 1)));
  if (a == r - 2 && b == r - 1) return detail::bind1(detail::DiagPrim(offset), x);
  // Other pairs: move (axis1, axis2) to the end (a view), so the one primitive and its rules
  // serve every pair; the permute's own VJP puts the cotangent back.
  Dims perm;
  for (std::int64_t d = 0; d < r; ++d)
    if (d != a && d != b) perm.push_back(d);
  perm.push_back(a);
  perm.push_back(b);
  return detail::bind1(detail::DiagPrim(offset), permute(x, std::move(perm)));
}

Tensor diag(const Tensor& x, std::int64_t offset) {
  if (!x.defined()) throw Error(ErrorKind::InvalidArgument, "diag: the input tensor is undefined");
  if (x.rank() == 1) return diag_embed(x, offset);
  if (x.rank() == 2) return diagonal(x, offset);
  throw Error(ErrorKind::InvalidArgument,
              "diag: expected a vector (rank 1, gives a matrix) or a matrix (rank 2, gives its "
              "diagonal) as NumPy's diag, got " +
                  detail::describe(std::span<const Tensor>(&x, 1)) +
                  "; use diagonal() for batches of matrices, diag_embed() for batches of vectors");
}
Tensor diag_embed(const Tensor& v, std::int64_t offset) {
  return detail::bind1(detail::DiagEmbedPrim(offset, -1, -1), v);
}
Tensor tril(const Tensor& x, std::int64_t k) { return detail::bind1(detail::TriPrim(true, k), x); }
Tensor triu(const Tensor& x, std::int64_t k) { return detail::bind1(detail::TriPrim(false, k), x); }

}  // namespace tenferro
