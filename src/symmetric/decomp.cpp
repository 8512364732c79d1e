// svd, svd_truncated, qr and eigh per charge sector (tenferro/symmetric.hpp).
//
// Each decomposition fuses the row legs into one leg R (direction out) and the column legs into
// one leg C (direction in): a block (r, c) of that matrix has charge(r) - charge(c) = flux, so
// every row sector meets at most one column sector and each stored block is one dense matrix to
// decompose. The new bond leg (direction in) gets one sector per decomposed block, with the row
// sector's charge; U/Q/V are (R, bond) with flux 0 and Vh/R are (bond dual, C) with t's flux.
// Splitting R and C restores the original legs.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "symmetric/internal.hpp"

namespace tenferro::symmetric {

using detail::make;

namespace {

struct Factor {
  std::int64_t row_sector;  // sector of R
  std::int64_t col_sector;  // sector of C
  Tensor left, right;       // [m, k], [k, n]
  Tensor values;            // [k] (svd, eigh)
};

detail::Matricized as_matrix(const char* op, const BlockTensor& t, std::int64_t row_legs) {
  if (row_legs < 0 || row_legs > static_cast<std::int64_t>(t.rank()))
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": row_legs " +
                                                std::to_string(row_legs) + " for rank " +
                                                std::to_string(t.rank()));
  if (!is_floating(t.dtype()))
    throw Error(ErrorKind::DTypeMismatch, std::string(op) + ": dtype must be floating");
  return detail::matricize(t, row_legs, Direction::out, Direction::in, /*keep_single=*/false);
}

// The factors of the result: left = (R, bond) with flux 0, right = (bond dual, C) with t's flux.
std::pair<BlockTensor, BlockTensor> assemble(const BlockTensor& m, const std::vector<Factor>& fs,
                                             DType left_dtype, DType right_dtype) {
  const Leg& R = m.leg(0);
  std::vector<Sector> sectors;
  std::map<BlockKey, Tensor> lb, rb;
  for (const Factor& f : fs) {
    const auto s = static_cast<std::int64_t>(sectors.size());
    sectors.push_back({R.charge(f.row_sector), f.left.shape()[1]});
    lb.emplace(BlockKey{f.row_sector, s}, f.left);
    if (f.right.defined()) rb.emplace(BlockKey{s, f.col_sector}, f.right);
  }
  const Leg bond(m.group(), std::move(sectors), Direction::in);
  BlockTensor left = make(m.group(), {R, bond}, m.group().identity(), left_dtype, std::move(lb));
  BlockTensor right =
      make(m.group(), {bond.dual(), m.leg(1)}, m.flux(), right_dtype, std::move(rb));
  return {split(left, 0), split(right, 1)};
}

std::vector<Tensor> values_of(const std::vector<Factor>& fs) {
  std::vector<Tensor> v;
  for (const Factor& f : fs) v.push_back(f.values);
  return v;
}

bool is_symbolic(const BlockTensor& t) {
  for (const auto& [k, b] : t.blocks())
    if (!b.has_storage()) return true;
  return false;
}

// The thin svd of every non-empty block of the matrix m.
std::vector<Factor> svd_blocks(const BlockTensor& m, double degeneracy_eps) {
  std::vector<Factor> fs;
  for (const auto& [key, b] : m.blocks()) {
    if (b.shape()[0] == 0 || b.shape()[1] == 0) continue;
    SvdResult r = tenferro::svd(b, SvdOptions{.degeneracy_eps = degeneracy_eps});
    fs.push_back({key[0], key[1], r.U, r.Vh, r.S});
  }
  return fs;
}

}  // namespace

BlockSvd svd(const BlockTensor& t, std::int64_t row_legs) {
  const detail::Matricized mm = as_matrix("symmetric::svd", t, row_legs);
  const std::vector<Factor> fs = svd_blocks(mm.m, kDefaultDegeneracyEps);
  auto [U, Vh] = assemble(mm.m, fs, t.dtype(), t.dtype());
  return {std::move(U), values_of(fs), std::move(Vh), 0.0};
}

BlockSvd svd_truncated(const BlockTensor& t, std::int64_t row_legs,
                       const TruncationOptions& options) {
  const char* op = "symmetric::svd_truncated";
  // !(cutoff >= 0): a NaN cutoff failed no comparison and was taken as no cutoff at all.
  if (options.max_rank < 0 || !(options.cutoff >= 0) || !std::isfinite(options.cutoff))
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": max_rank " +
                                                std::to_string(options.max_rank) + " and cutoff " +
                                                std::to_string(options.cutoff) +
                                                " must be non-negative (the cutoff finite)");
  if (is_symbolic(t))
    throw Error(ErrorKind::Unsupported,
                std::string(op) +
                    ": the kept ranks depend on the singular values, so a traced "
                    "svd_truncated cannot be prepared (use svd)");
  // A negative degeneracy_eps is the dtype's default, in TruncationOptions as in SvdOptions; NaN
  // or infinite is refused here, also for a tensor without blocks (tenferro::svd checks each).
  if (!std::isfinite(options.degeneracy_eps))
    throw Error(ErrorKind::InvalidArgument,
                std::string(op) + ": degeneracy_eps must be a finite number (negative: the " +
                    "dtype's default), got " + std::to_string(options.degeneracy_eps));
  const detail::Matricized mm = as_matrix(op, t, row_legs);
  const std::vector<Factor> full = svd_blocks(mm.m, options.degeneracy_eps);
  std::vector<std::vector<double>> vals;
  {
    NoGradGuard no_grad;
    for (const Factor& f : full)
      vals.push_back(cast(detach(f.values), DType::f64).to_vector<double>());
  }
  // One global order of all singular values: the first max_rank above the cutoff are kept.
  struct Entry {
    double s;
    std::size_t block;
  };
  std::vector<Entry> all;
  // Squares relative to s_max: s * s left the double range for a tensor scaled by 1e-170 or
  // 1e170, and the discarded weight came out 0.
  double total = 0, smax = 0;
  for (std::size_t b = 0; b < vals.size(); ++b)
    for (double s : vals[b]) {
      all.push_back({s, b});
      smax = std::max(smax, s);
    }
  const double unit = smax > 0 && std::isfinite(smax) ? smax : 1.0;
  for (const Entry& e : all) total += (e.s / unit) * (e.s / unit);
  std::stable_sort(all.begin(), all.end(),
                   [](const Entry& x, const Entry& y) { return x.s > y.s; });
  // The dense svd_truncated's rule (tenferro/ops/linalg.hpp), over all sectors together:
  // cutoff = 0 tests no value (exact zeros are kept too); cutoff > 0 keeps the values
  // s > cutoff * s_max but at least one; max_rank > 0 bounds the count. (This kept nothing for
  // cutoff >= 1, where the dense op keeps one value, and dropped exact zeros at cutoff 0.)
  std::vector<std::int64_t> keep(vals.size(), 0);
  double kept = 0;
  std::int64_t n = 0;
  for (const Entry& e : all) {
    if (options.max_rank > 0 && n >= options.max_rank) break;
    if (options.cutoff > 0 && n > 0 && e.s <= options.cutoff * smax) break;
    ++keep[e.block];
    ++n;
    kept += (e.s / unit) * (e.s / unit);
  }
  std::vector<Factor> fs;
  for (std::size_t b = 0; b < full.size(); ++b) {
    const std::int64_t k = keep[b];
    if (k == 0) continue;
    const Factor& f = full[b];
    const std::int64_t have = f.values.shape()[0];
    if (k == have) {
      fs.push_back(f);
    } else {
      fs.push_back({f.row_sector, f.col_sector, slice(f.left, 1, 0, k), slice(f.right, 0, 0, k),
                    slice(f.values, 0, 0, k)});
    }
  }
  auto [U, Vh] = assemble(mm.m, fs, t.dtype(), t.dtype());
  const double discarded = total > 0 ? std::max(0.0, (total - kept) / total) : 0.0;
  return {std::move(U), values_of(fs), std::move(Vh), discarded};
}

BlockQr qr(const BlockTensor& t, std::int64_t row_legs) {
  const detail::Matricized mm = as_matrix("symmetric::qr", t, row_legs);
  std::vector<Factor> fs;
  for (const auto& [key, b] : mm.m.blocks()) {
    if (b.shape()[0] == 0 || b.shape()[1] == 0) continue;
    QrResult r = tenferro::qr(b);
    fs.push_back({key[0], key[1], r.Q, r.R, Tensor()});
  }
  auto [Q, R] = assemble(mm.m, fs, t.dtype(), t.dtype());
  return {std::move(Q), std::move(R)};
}

BlockEigh eigh(const BlockTensor& t, std::int64_t row_legs) {
  const char* op = "symmetric::eigh";
  const auto r = static_cast<std::int64_t>(t.rank());
  if (row_legs <= 0 || 2 * row_legs != r)
    throw Error(ErrorKind::InvalidArgument, std::string(op) +
                                                ": a Hermitian tensor has as many "
                                                "column legs as row legs; rank " +
                                                std::to_string(r) + ", row_legs " +
                                                std::to_string(row_legs));
  for (std::int64_t i = 0; i < row_legs; ++i)
    if (!is_dual(t.leg(i), t.leg(row_legs + i)))
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": column leg " + std::to_string(row_legs + i) + " (" +
                      t.leg(row_legs + i).to_string() + ") is not the dual of row leg " +
                      std::to_string(i) + " (" + t.leg(i).to_string() + ")");
  if (t.flux() != t.group().identity())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": a Hermitian tensor has flux 0, " +
                                                "got " + detail::charge_string(t.flux()));
  // Every diagonal block, stored or not: an unstored one is a zero block with eigenvalues 0.
  const detail::Matricized mm = as_matrix(op, t.filled(), row_legs);
  std::vector<Factor> fs;
  for (const auto& [key, b] : mm.m.blocks()) {
    if (b.shape()[0] == 0) continue;
    EighResult e = tenferro::eigh(b);
    fs.push_back({key[0], key[1], e.eigenvectors, Tensor(), e.eigenvalues});
  }
  auto [V, unused] = assemble(mm.m, fs, t.dtype(), t.dtype());
  return {values_of(fs), std::move(V)};
}

}  // namespace tenferro::symmetric
