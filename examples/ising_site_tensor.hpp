// The 2D Ising model's site tensor, shared by the TRG and CTMRG examples.
#pragma once

#include "tenferro/tenferro.hpp"

namespace tenferro::examples {

// T[u,l,d,r] = sum_s W[s,u] W[s,l] W[s,d] W[s,r], from exp(beta s s') = sum_a W[s,a] W[s',a]
// with W = [[sqrt(cosh b), sqrt(sinh b)], [sqrt(cosh b), -sqrt(sinh b)]]; fully symmetric.
// tenferro has no cosh/sinh; expm1 spells them without cancellation in sinh at small beta.
inline Tensor ising_site_tensor(const Tensor& beta) {
  Tensor em = expm1(beta), emn = expm1(-beta);
  Tensor ch = sqrt(1.0 + 0.5 * (em + emn));
  Tensor sh = sqrt(0.5 * (em - emn));
  Tensor w = ch * from_values({1, 0, 1, 0}, {2, 2}) + sh * from_values({0, 1, 0, -1}, {2, 2});
  return einsum("su,sl,sd,sr->uldr", w, w, w, w);
}

}  // namespace tenferro::examples
