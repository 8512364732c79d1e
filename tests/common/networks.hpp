// Tensor networks for the sliced-contraction suites (tests/einsum/slicing_test.cpp, tests/dist):
// specs, shapes and seeded random operands, the same on every rank.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tenferro/einsum.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::testing {

struct Network {
  std::string name;
  std::string spec;
  std::vector<Dims> shapes;
  /// Operands: randn with seeds seed, seed+1, ... scaled so that the result is of order one.
  std::vector<Tensor> operands(DType dtype, std::uint64_t seed = 11) const {
    std::vector<Tensor> out;
    for (std::size_t k = 0; k < shapes.size(); ++k)
      out.push_back(mul(randn(shapes[k], seed + k, dtype), 0.5));
    return out;
  }
};

/// A ring of 8 order-3 tensors: ring bonds a..h (size d) and four chords i..l (size d) joining
/// tensors t and t+4, closed (scalar result). Intermediates carry up to six bonds.
inline Network ring8(std::int64_t d = 4) {
  return {"ring8", "abi,bcj,cdk,del,efi,fgj,ghk,hal->", std::vector<Dims>(8, Dims{d, d, d})};
}

/// <A|W|B> for 4 sites: MPS A (bonds p,q,r; size D), MPO W (bonds u,v,w; size chi), MPS B (bonds
/// x,y,z; size D), physical legs s..., t... (size 2); open boundaries, scalar result.
inline Network mps_mpo_mps(std::int64_t D = 4, std::int64_t chi = 3) {
  const std::int64_t d = 2;
  return {"mps_mpo_mps",
          "Ap,pBq,qCr,rD,AEu,uBFv,vCGw,wDH,Ex,xFy,yGz,zH->",
          {{d, D},
           {D, d, D},
           {D, d, D},
           {D, d},  // A (physical A..D)
           {d, d, chi},
           {chi, d, d, chi},
           {chi, d, d, chi},
           {chi, d, d},  // W (in A..D, out E..H)
           {d, D},
           {D, d, D},
           {D, d, D},
           {D, d}}};  // B (physical E..H)
}

/// A closed 3x3 grid: horizontal bonds a..f, vertical bonds g..l, all of size d.
///   t00 -a- t01 -b- t02      rows: a,b / c,d / e,f;  columns: g,h,i (row 0-1), j,k,l (row 1-2)
inline Network grid3x3(std::int64_t d = 4) {
  return {
      "grid3x3",
      "ag,abh,bi,cgj,cdhk,dil,ej,efk,fl->",
      {{d, d}, {d, d, d}, {d, d}, {d, d, d}, {d, d, d, d}, {d, d, d}, {d, d}, {d, d, d}, {d, d}}};
}

/// A network in einsum's integer-label form.
struct LabelNetwork {
  std::string name;
  std::vector<EinsumLabels> labels;
  EinsumLabels output;
  std::vector<Dims> shapes;
  /// Operands as Network::operands.
  std::vector<Tensor> operands(DType dtype, std::uint64_t seed = 11) const {
    return Network{name, "", shapes}.operands(dtype, seed);
  }
  /// Distinct labels.
  std::size_t label_count() const {
    std::vector<std::int64_t> all;
    for (const EinsumLabels& t : labels) all.insert(all.end(), t.begin(), t.end());
    std::sort(all.begin(), all.end());
    return static_cast<std::size_t>(std::unique(all.begin(), all.end()) - all.begin());
  }
};

/// `n` with each letter c of its spec (no '...', explicit output) as the label base + c (its
/// character code): letters keep their order, so the plans of both forms agree.
inline LabelNetwork integer_form(const Network& n, std::int64_t base = 1000) {
  LabelNetwork out{n.name + " (integer labels)", {{}}, {}, n.shapes};
  bool in_output = false;
  for (std::size_t k = 0; k < n.spec.size(); ++k) {
    const char c = n.spec[k];
    if (c == ',') {
      out.labels.emplace_back();
    } else if (c == '-') {
      in_output = true;
      ++k;  // '>'
    } else {
      (in_output ? out.output : out.labels.back()).push_back(base + c);
    }
  }
  return out;
}

/// A rows x cols grid of tensors in the integer-label form, far past the 52 letters: bonds of
/// size d (label base + 7 * bond: sparse and large), and one open leg of size d on the first and
/// the last tensor (the output, a d x d matrix).
inline LabelNetwork grid_labels(std::int64_t rows, std::int64_t cols, std::int64_t d = 2,
                                std::int64_t base = std::int64_t{1} << 40) {
  LabelNetwork n{"grid" + std::to_string(rows) + "x" + std::to_string(cols), {}, {}, {}};
  auto right = [&](std::int64_t r, std::int64_t c) { return base + 7 * (r * (cols - 1) + c); };
  auto down = [&](std::int64_t r, std::int64_t c) {
    return base + 7 * (rows * (cols - 1) + r * cols + c);
  };
  const std::int64_t open0 = base - 1, open1 = base - 2;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      EinsumLabels t;
      if (r == 0 && c == 0) t.push_back(open0);
      if (c > 0) t.push_back(right(r, c - 1));
      if (c + 1 < cols) t.push_back(right(r, c));
      if (r > 0) t.push_back(down(r - 1, c));
      if (r + 1 < rows) t.push_back(down(r, c));
      if (r == rows - 1 && c == cols - 1) t.push_back(open1);
      n.shapes.push_back(Dims(t.size(), d));
      n.labels.push_back(std::move(t));
    }
  n.output = {open0, open1};
  return n;
}

/// max |a - b| / max |b|: the relative difference the sliced suites compare with.
inline double rel_diff(const Tensor& a, const Tensor& b) {
  const double scale = std::max(1e-300, cast(max(abs(b)), DType::f64).item<double>());
  return cast(max(abs(sub(a, b))), DType::f64).item<double>() / scale;
}

/// A real scalar loss of a (possibly complex) output: sum |c|^2.
inline Tensor squared_norm(std::span<const Tensor> c) { return sum(square(abs(c[0]))); }

}  // namespace tenferro::testing
