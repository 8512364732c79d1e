// block_assemble (block_assemble.hpp): one primitive, so eager, tape, forward and tracer share it.
#include "primitives/block_assemble.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "core/contiguous.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/ops.hpp"

namespace tenferro::detail {
namespace {

using I = std::int64_t;

class BlockAssemblePrim final : public PrimitiveWith<BlockAssemblePrim> {
 public:
  BlockAssemblePrim(I m, I n, SmallVector<I, 16> places)
      : m_(m), n_(n), places_(std::move(places)) {}
  bool accepts_integers() const override { return true; }  // moves elements only
  std::string_view name() const override { return "block_assemble"; }
  std::string params() const override {
    return "shape=[" + std::to_string(m_) + ", " + std::to_string(n_) +
           "] pieces=" + std::to_string(places_.size() / 4);
  }
  auto key() const { return std::tie(m_, n_, places_); }

  void infer(std::span<const Tensor> in, SpecList& out) const override {
    const std::size_t k = places_.size() / 4;
    if (in.size() != k)
      throw Error(ErrorKind::InvalidArgument, "block_assemble: " + std::to_string(in.size()) +
                                                  " pieces for " + std::to_string(k) + " places");
    if (m_ < 0 || n_ < 0)
      throw Error(ErrorKind::InvalidArgument, "block_assemble: negative result shape");
    for (std::size_t i = 0; i < k; ++i) {
      const auto [r, c, nr, nc] = place(i);
      if (r < 0 || c < 0 || nr < 0 || nc < 0 || r + nr > m_ || c + nc > n_)
        throw Error(ErrorKind::InvalidArgument, "block_assemble: piece " + std::to_string(i) +
                                                    " does not fit the [" + std::to_string(m_) +
                                                    ", " + std::to_string(n_) + "] result");
      if (in[i].numel() != nr * nc)
        throw Error(ErrorKind::ShapeMismatch, "block_assemble: piece " + std::to_string(i) +
                                                  " of shape " + dims_to_string(in[i].shape()) +
                                                  " cannot be a " + std::to_string(nr) + " x " +
                                                  std::to_string(nc) + " matrix");
      if (in[i].dtype() != in[0].dtype())
        throw Error(ErrorKind::DTypeMismatch, "block_assemble: pieces of different dtypes");
    }
    out.push_back({k > 0 ? in[0].dtype() : DType::f64, Dims{m_, n_}});
  }

  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const std::size_t item = dtype_size(out[0].dtype());
    char* dst = static_cast<char*>(out[0].data_ptr());
    I covered = 0;
    for (std::size_t i = 0; i < in.size(); ++i) covered += place(i).rows * place(i).cols;
    if (covered < m_ * n_) std::memset(dst, 0, static_cast<std::size_t>(m_ * n_) * item);
    for (std::size_t i = 0; i < in.size(); ++i) {
      const auto [r, c, nr, nc] = place(i);
      if (nr * nc == 0) continue;
      std::unique_ptr<std::byte[]> hold;
      const std::byte* src = contiguous_or_held(in[i], hold, "block_assemble");
      const std::size_t row = static_cast<std::size_t>(nc) * item;
      if (nc == n_) {
        std::memcpy(dst + static_cast<std::size_t>(r * n_) * item, src, row * nr);
        continue;
      }
      for (I j = 0; j < nr; ++j)
        std::memcpy(dst + static_cast<std::size_t>((r + j) * n_ + c) * item,
                    src + static_cast<std::size_t>(j) * row, row);
    }
  }

  void jvp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    linear_jvp(*this, primals, t, out_t);
  }

  void vjp(std::span<const Tensor> primals, std::span<const Tensor>, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined()) return;
    for (std::size_t i = 0; i < primals.size(); ++i) {
      if (!needs[i]) continue;
      const auto [r, c, nr, nc] = place(i);
      in_ct[i] = reshape(slice(slice(ct[0], 0, r, r + nr), 1, c, c + nc), primals[i].shape());
    }
  }

 private:
  BlockPlace place(std::size_t i) const {
    return {places_[4 * i], places_[4 * i + 1], places_[4 * i + 2], places_[4 * i + 3]};
  }
  I m_, n_;
  SmallVector<I, 16> places_;  // row, col, rows, cols per piece (flat: a typed, hashable key)
};

}  // namespace

Tensor block_assemble(std::span<const Tensor> pieces, std::span<const BlockPlace> places, I m,
                      I n) {
  SmallVector<I, 16> flat;
  for (const BlockPlace& p : places) {
    flat.push_back(p.row);
    flat.push_back(p.col);
    flat.push_back(p.rows);
    flat.push_back(p.cols);
  }
  return bind1(BlockAssemblePrim(m, n, std::move(flat)), pieces);
}

}  // namespace tenferro::detail
