// Helpers of the symmetric (block-sparse) suites: one case per group with seeded sample legs,
// dense references built from the blocks alone (never through to_dense), masks of the allowed
// blocks, and comparisons. The references use dense ops only, so a bug in BlockTensor::to_dense
// cannot hide itself.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/expect_error.hpp"
#include "tenferro/symmetric.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro::symmetric::test_util {

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// One abelian group with the charges its sample legs are drawn from. pool[0] is the identity;
/// every sample leg holds pool[0] and pool[1], so `flux` (= pool[1]) is reachable.
struct GroupCase {
  std::string name;
  Group group;
  std::vector<Charge> pool;
  Charge flux;
};

inline std::vector<GroupCase> group_cases() {
  const Group u1 = Group::u1();
  return {
      {"U1", u1, {{0}, {1}, {-1}, {2}}, {1}},
      {"Z3", Group::zn(3), {{0}, {1}, {2}}, {1}},
      {"U1xU1", u1 * u1, {{0, 0}, {1, 0}, {0, 1}, {-1, -1}, {1, -1}}, {1, 0}},
      {"U1xZ2", u1 * Group::zn(2), {{0, 0}, {1, 1}, {-1, 0}, {0, 1}, {1, 0}}, {1, 1}},
      {"trivial", Group(), {{}}, {}},
  };
}

inline const GroupCase& group_case(int i) {
  static const std::vector<GroupCase> cases = group_cases();
  return cases.at(static_cast<std::size_t>(i));
}

inline std::string dt_label(DType dt) { return dt == DType::f64 ? "f64" : "c128"; }

/// Parameter of the suites that run every group with f64 and c128.
using GroupDtype = std::tuple<int, DType>;
inline auto all_groups_and_dtypes() {
  return ::testing::Combine(::testing::Range(0, 5), ::testing::Values(DType::f64, DType::c128));
}
inline std::string group_dt_label(const ::testing::TestParamInfo<GroupDtype>& info) {
  return group_case(std::get<0>(info.param)).name + "_" + dt_label(std::get<1>(info.param));
}

/// A leg with pool[0], pool[1] and a seeded subset of the other charges, dims in [1, max_dim].
inline Leg sample_leg(const GroupCase& gc, std::uint64_t seed, Direction d = Direction::out,
                      std::int64_t max_dim = 3) {
  std::vector<Sector> sectors;
  std::uint64_t h = mix(seed * 7919 + 13);
  for (std::size_t i = 0; i < gc.pool.size(); ++i) {
    h = mix(h + i);
    if (i < 2 || (h & 1) != 0)
      sectors.push_back({gc.pool[i], 1 + static_cast<std::int64_t>((h >> 8) % max_dim)});
  }
  return Leg(gc.group, sectors, d);
}

inline Dims leg_dims(const std::vector<Leg>& legs) {
  Dims d;
  for (const Leg& l : legs) d.push_back(l.dim());
  return d;
}

/// Every sector tuple, row-major (= sorted).
inline std::vector<BlockKey> all_keys(const std::vector<Leg>& legs) {
  std::vector<BlockKey> out{BlockKey{}};
  for (const Leg& l : legs) {
    std::vector<BlockKey> next;
    for (const BlockKey& k : out)
      for (std::size_t s = 0; s < l.num_sectors(); ++s) {
        BlockKey e = k;
        e.push_back(static_cast<std::int64_t>(s));
        next.push_back(std::move(e));
      }
    out = std::move(next);
  }
  return out;
}

/// The signed charge sum of a key, computed with Group::fuse/dual only.
inline Charge key_charge(const Group& g, const std::vector<Leg>& legs, const BlockKey& key) {
  Charge c = g.identity();
  for (std::size_t i = 0; i < legs.size(); ++i) {
    const Charge& q = legs[i].charge(static_cast<std::size_t>(key[i]));
    c = g.fuse(c, legs[i].direction() == Direction::out ? q : g.dual(q));
  }
  return g.canonical(c);
}

/// A flux made canonical ({} read as the identity).
inline Charge norm_flux(const Group& g, const Charge& flux) {
  return flux.empty() ? g.identity() : g.canonical(flux);
}

inline bool conserves(const Group& g, const std::vector<Leg>& legs, const BlockKey& key,
                      const Charge& flux) {
  return key_charge(g, legs, key) == norm_flux(g, flux);
}

inline std::string key_string(const BlockKey& k) {
  std::string s = "(";
  for (std::size_t i = 0; i < k.size(); ++i) s += (i ? "," : "") + std::to_string(k[i]);
  return s + ")";
}

inline std::vector<BlockKey> conserving_keys(const Group& g, const std::vector<Leg>& legs,
                                             const Charge& flux) {
  std::vector<BlockKey> out;
  for (const BlockKey& k : all_keys(legs))
    if (conserves(g, legs, k, flux)) out.push_back(k);
  return out;
}

inline Dims key_shape(const std::vector<Leg>& legs, const BlockKey& key) {
  Dims d;
  for (std::size_t i = 0; i < legs.size(); ++i)
    d.push_back(legs[i].sector_dim(static_cast<std::size_t>(key[i])));
  return d;
}

/// `block` placed at the key's leg offsets in a zero tensor of the legs' dims (pad, not to_dense).
inline Tensor place(const std::vector<Leg>& legs, const BlockKey& key, const Tensor& block) {
  std::vector<std::pair<std::int64_t, std::int64_t>> widths;
  for (std::size_t i = 0; i < legs.size(); ++i) {
    const auto s = static_cast<std::size_t>(key[i]);
    const std::int64_t before = legs[i].offset(s);
    widths.emplace_back(before, legs[i].dim() - before - legs[i].sector_dim(s));
  }
  if (legs.empty()) return copy(block);
  return pad(block, std::span<const std::pair<std::int64_t, std::int64_t>>(widths));
}

/// The dense tensor of t's stored blocks, built by padding each block (independent of to_dense).
inline Tensor reference_dense(const BlockTensor& t) {
  Tensor out = zeros(leg_dims(t.legs()), t.dtype());
  for (const auto& [k, b] : t.blocks()) out = add(out, place(t.legs(), k, b));
  return out;
}

/// 1 inside every allowed block, 0 elsewhere.
inline Tensor allowed_mask(const Group& g, const std::vector<Leg>& legs, const Charge& flux,
                           DType dtype = DType::f64) {
  Tensor out = zeros(leg_dims(legs), dtype);
  for (const BlockKey& k : conserving_keys(g, legs, flux))
    out = add(out, place(legs, k, ones(key_shape(legs, k), dtype)));
  return out;
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  NoGradGuard no_grad;
  if (!(a.shape() == b.shape())) {
    ADD_FAILURE() << "shapes differ: " << dims_to_string(a.shape()) << " vs "
                  << dims_to_string(b.shape());
    return std::numeric_limits<double>::infinity();
  }
  if (a.numel() == 0) return 0.0;
  return cast(max(abs(sub(detach(a), detach(b)))), DType::f64).item<double>();
}

inline double max_abs(const Tensor& a) {
  NoGradGuard no_grad;
  if (a.numel() == 0) return 0.0;
  return cast(max(abs(detach(a))), DType::f64).item<double>();
}

/// The value of a one-element tensor as a complex number.
inline std::complex<double> value(const Tensor& t) {
  NoGradGuard no_grad;
  return cast(detach(t), DType::c128).reshape({}).item<std::complex<double>>();
}

inline void expect_near(const Tensor& got, const Tensor& want, double tol,
                        const std::string& what) {
  EXPECT_LE(max_abs_diff(got, want), tol) << what;
}

/// Same legs, flux and allowed blocks (compared through block(), so stored zeros and missing
/// blocks are equal).
inline void expect_same_blocks(const BlockTensor& got, const BlockTensor& want, double tol,
                               const std::string& what) {
  ASSERT_EQ(got.rank(), want.rank()) << what;
  for (std::size_t i = 0; i < got.rank(); ++i)
    EXPECT_TRUE(got.leg(i) == want.leg(i)) << what << ": leg " << i << " " << got.leg(i).to_string()
                                           << " vs " << want.leg(i).to_string();
  EXPECT_EQ(norm_flux(got.group(), got.flux()), norm_flux(want.group(), want.flux())) << what;
  for (const BlockKey& k : want.allowed_keys())
    EXPECT_LE(max_abs_diff(got.block(k), want.block(k)), tol)
        << what << ": block " << key_string(k);
}

inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// A tenferro::Error of `kind` whose message contains every needle (case-insensitive).
template <class F>
void expect_error_mentions(ErrorKind kind, F&& f, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "expected an Error of kind " << to_string(kind) << ", nothing was thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string msg = lower(e.message());
    for (const std::string& n : needles)
      EXPECT_NE(msg.find(lower(n)), std::string::npos) << "missing '" << n << "' in: " << e.what();
  }
}

/// A tenferro::Error of one of `kinds` (where the header allows either).
template <class F>
void expect_error_of(std::initializer_list<ErrorKind> kinds, F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected an Error, nothing was thrown";
  } catch (const Error& e) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), e.kind()), kinds.end()) << e.what();
  }
}

/// All values of per-sector tensors, cast to f64, sorted (descending when `desc`).
inline std::vector<double> all_values(const std::vector<Tensor>& parts, bool desc) {
  std::vector<double> out;
  for (const Tensor& t : parts) {
    if (!t.defined() || t.numel() == 0) continue;
    const std::vector<double> v = cast(detach(t), DType::f64).contiguous().to_vector<double>();
    out.insert(out.end(), v.begin(), v.end());
  }
  if (desc)
    std::sort(out.begin(), out.end(), std::greater<>());
  else
    std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<double> to_doubles(const Tensor& t) {
  return cast(detach(t), DType::f64).contiguous().to_vector<double>();
}

/// dense reshaped to (prod of the first `rows` dims, prod of the rest).
inline Tensor matricize(const Tensor& dense, std::int64_t rows) {
  std::int64_t m = 1, n = 1;
  for (std::int64_t i = 0; i < dense.rank(); ++i) (i < rows ? m : n) *= dense.shape()[i];
  return dense.reshape({m, n});
}

inline Tensor eye(std::int64_t n, DType dt) {
  if (n == 0) return zeros({0, 0}, dt);
  return diag(ones({n}, dt));
}

/// U's last leg times the weights, contracted with Vh's first leg: the reconstruction of a
/// decomposition.
inline BlockTensor reconstruct(const BlockTensor& U, const std::vector<Tensor>& S,
                               const BlockTensor& Vh) {
  const auto last = static_cast<std::int64_t>(U.rank()) - 1;
  return tensordot(scale_leg(U, last, S), Vh, {last}, {0});
}

/// dagger(U) . U over U's first r legs: should be the identity on the bond (legs bond^, bond).
inline BlockTensor gram_of_columns(const BlockTensor& U) {
  const auto r = static_cast<std::int64_t>(U.rank()) - 1;
  Dims da, du;
  for (std::int64_t i = 0; i < r; ++i) {
    da.push_back(1 + i);
    du.push_back(r - 1 - i);
  }
  return tensordot(dagger(U), U, da, du);
}

/// Vh . dagger(Vh) over Vh's last legs: should be the identity on the bond (legs bond^, bond).
inline BlockTensor gram_of_rows(const BlockTensor& Vh) {
  const auto c = static_cast<std::int64_t>(Vh.rank()) - 1;
  Dims dv, dd;
  for (std::int64_t i = 0; i < c; ++i) {
    dv.push_back(1 + i);
    dd.push_back(c - 1 - i);
  }
  return tensordot(Vh, dagger(Vh), dv, dd);
}

}  // namespace tenferro::symmetric::test_util
