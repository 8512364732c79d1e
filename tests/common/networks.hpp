// Tensor networks for the sliced-contraction suites (tests/einsum/slicing_test.cpp, tests/dist):
// specs, shapes and seeded random operands, the same on every rank.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

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

/// max |a - b| / max |b|: the relative difference the sliced suites compare with.
inline double rel_diff(const Tensor& a, const Tensor& b) {
  const double scale = std::max(1e-300, cast(max(abs(b)), DType::f64).item<double>());
  return cast(max(abs(sub(a, b))), DType::f64).item<double>() / scale;
}

/// A real scalar loss of a (possibly complex) output: sum |c|^2.
inline Tensor squared_norm(std::span<const Tensor> c) { return sum(square(abs(c[0]))); }

}  // namespace tenferro::testing
