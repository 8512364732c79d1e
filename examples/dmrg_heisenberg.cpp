// Two-site DMRG (White, PRL 69, 2863 (1992)) for the open Heisenberg chain H = sum_i S_i . S_i+1,
// spin 1/2 or spin 1, on U(1)-symmetric block-sparse tensors (tenferro/symmetric.hpp) with the
// conserved charge q = 2 Sz. `--dense` runs the same code on the trivial group (one dense block
// per tensor) to show what the symmetry saves. docs/symmetric-dmrg.md has the measured results.
//
// Run:   cmake --build --preset release --target dmrg_heisenberg
//        build/release/dmrg_heisenberg [--spin 0.5|1] [--L 100] [--chi 200] [--sweeps 20]
//            [--dense] [--fused-heff] [--krylov-dim 20] [--no-eager] [--profile] [--check-ed]
//            [--expect E [--expect-tol t]]
//        build/release/dmrg_heisenberg --L 20 --chi 64 --check-ed   (the CTest smoke test)
//
// Algorithm. The MPS is kept in mixed canonical form around two sites (i, i+1). Each step
// contracts them into theta[l, s1, s2, r], finds the lowest eigenvector of the effective
// Hamiltonian Lenv[i] W W Renv[i+1] by Lanczos (symmetric::eigsh, matrix-free, theta as the start
// vector), splits it by symmetric::svd_truncated (global truncation over all charge sectors to
// chi values, cutoff 1e-12), keeps U (moving right) or Vh (moving left) as the new canonical
// tensor, puts the normalised S into the other one and updates one cached environment. A sweep is
// left to right and back. chi ramps 20, 50, 100, 200, ... up to --chi (from the product state the
// bonds can grow at most d^2-fold per sweep anyway: 4, 16, 64, 256 for spin 1/2); the run stops
// when <psi|H|psi> changes by less than 1e-10 between two sweeps at the final chi, or after
// --sweeps sweeps.
//
// The effective Hamiltonian, two forms:
//   default        four tensordots per application, L first, then W1, W2, R (apply_heff);
//   --fused-heff   L W1 and W2 R contracted once per step and kept as matrices, theta kept as the
//                  matrix [(l s1), (s2 r)]: two block GEMMs and one regrouping copy per application
//                  (FusedHeff). d times the multiply-adds, far fewer copies: faster here.
// Lanczos: krylov_dim 20 (--krylov-dim), tol 1e-7 while chi ramps and 1e-10 (relative to |E|)
// at the final chi, require_convergence off (the table reports the largest residual), and
// EigshOptions::eager (--no-eager turns it off): convergence is tested after every Lanczos step,
// so in the late sweeps, where the previous theta is nearly the answer, a solve takes a few
// applications instead of krylov_dim + 1.
//
// Measured on 2 cores (docs/symmetric-dmrg.md has the commands and the breakdown): spin 1/2,
// L = 100, chi = 200 reaches E = -44.127739893247 in 6 sweeps, 31 s; the last sweep takes 5.2 s
// (3.9 s with --fused-heff, 20.6 s with --dense), peak RSS 207 MiB (922 MiB dense). Spin 1,
// chi = 200: E = -138.940086143477 in 5 sweeps, 33 s. --L 20 --chi 64 --check-ed: 1.5 s.
//
// Conventions (charge = 2 Sz; an `out` leg counts its charge +1, an `in` leg -1; every tensor has
// flux 0, so the signed charges of every stored block sum to zero):
//   MPS     A[l(out), s(out), r(in)]        charge(r) = charge(l) + charge(s): the bond carries the
//                                           total charge of the sites to its left. This is what
//                                           svd_truncated returns: U's bond is `in`, Vh's `out`.
//   MPO     W[wl(out), s(out), s'(in), wr(in)], W[.., s, s', ..] = <s|O|s'>, so charge(wr) =
//           charge(wl) + charge(s) - charge(s'): the S+ channel carries +2, S- -2, Sz and the
//           identities 0.
//   bra     conj(A)[l(in), s(in), r(out)]   (conj flips every direction)
//   Lenv    L[b(out), w(in), k(in)]         b: bra bond, w: MPO bond, k: ket bond
//   Renv    R[k(out), w(out), b(in)]
// so every contraction below pairs an `out` leg with its `in` dual. The left boundary bond is
// charge 0 (dim 1), the right boundary bond carries the total charge 0 (total Sz = 0): the
// target sector is fixed by the boundary legs, not by a flux. The initial state is the Neel state
// (up, down, ...; spin 1: +1, -1, ...), whose bonds have one sector of dim 1; the two-site update
// reaches every (s1, s2) allowed by charge conservation (theta is filled() with every allowed
// block), so the bonds grow new sectors from the first sweep on.
//
// MPO (operator-valued 5 x 5 matrix, channels start / S+ / S- / Sz / end, product W W ... W between
// the boundary vectors <start| and |end>):
//   W[start, start] = I   W[start, S+] = S+   W[start, S-] = S-   W[start, Sz] = Sz
//   W[S+, end] = S-/2     W[S-, end] = S+/2   W[Sz, end] = Sz     W[end, end] = I
//
// Checks: --check-ed compares with exact diagonalisation of the Sz = 0 sector (plain C++ matvec
// on basis states, tenferro::eigsh on a std::vector, no block-sparse code), within 1e-8; --expect
// E compares with a known energy. Exit status 1 when a requested check fails or on an error, 2 on
// a bad command line.
//
// Everything runs under NoGradGuard (no tape) inside one CpuBackend::with_execution_scope of the
// default backend (every available core), so the many small block operations enter the executor
// once. At the end the program prints a time breakdown by operation (matvec tensordots, the rest
// of eigsh, svd_truncated, environment updates, ...).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/symmetric.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;
namespace sym = tenferro::symmetric;
using sym::BlockTensor;
using sym::Charge;
using sym::Direction;
using sym::Group;
using sym::Leg;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Config {
  double spin = 0.5;
  int length = 100;
  std::int64_t chi = 200;
  int max_sweeps = 20;
  bool dense = false;
  bool check_ed = false;
  bool fused_heff = false;
  bool eager = true;
  std::int64_t krylov_dim = 20;
  bool has_expect = false;
  bool profile = false;
  double expect = 0, expect_tol = 1e-8;
};

// Wall time per kind of operation (seconds), summed over the run.
struct Profile {
  double matvec = 0;  // applications of the effective Hamiltonian
  double setup = 0;   // --fused-heff: LW and WR per step
  double eigsh = 0;   // symmetric::eigsh in total (matvec included)
  double theta = 0;   // tensordot of the two sites + filled()
  double svd = 0;     // svd_truncated
  double absorb = 0;  // normalising S and scale_leg into U or Vh
  double env = 0;     // environment updates (three tensordots each)
  std::int64_t matvecs = 0, solves = 0;

  Profile since(const Profile& b) const {
    return {matvec - b.matvec, setup - b.setup, eigsh - b.eigsh,     theta - b.theta,  svd - b.svd,
            absorb - b.absorb, env - b.env,     matvecs - b.matvecs, solves - b.solves};
  }
  void print(const char* label, bool fused) const {
    std::printf(
        "%s: matvec (%s) %.2f s in %lld calls (%.3f ms each), eigsh besides matvec %.2f s (%lld "
        "solves), theta %.2f s, svd_truncated %.2f s, S into U/Vh %.2f s, environments %.2f s",
        label, fused ? "2 GEMMs + regroup" : "4 tensordots", matvec,
        static_cast<long long>(matvecs),
        matvecs ? 1e3 * matvec / static_cast<double>(matvecs) : 0.0, eigsh - matvec,
        static_cast<long long>(solves), theta, svd, absorb, env);
    if (fused) std::printf(", LW and WR %.2f s", setup);
    std::printf("\n");
  }
};

// Adds the time from construction to destruction to `acc`.
class ScopedTimer {
 public:
  explicit ScopedTimer(double& acc) : acc_(acc), t0_(Clock::now()) {}
  ~ScopedTimer() { acc_ += seconds_since(t0_); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double& acc_;
  Clock::time_point t0_;
};

// ---- The model ----

struct Model {
  double spin = 0.5;
  int d = 2;                      // local dimension 2S + 1; basis index k has Sz = S - k
  bool dense = false;             // trivial group instead of U(1)
  Group group;                    // U(1) or trivial
  Leg phys;                       // out
  Leg mpo;                        // out (W's left leg)
  BlockTensor W;                  // [wl, s, s', wr]
  std::vector<std::int64_t> q;    // charge 2 Sz of basis state k
  std::vector<std::int64_t> pos;  // dense index of basis state k on `phys`

  Charge charge(std::int64_t c) const { return dense ? Charge{} : Charge{c}; }
  // A bond leg with one sector of dim 1 (the product state's bonds and the boundaries).
  Leg bond(std::int64_t c, Direction dir) const {
    return dense ? Leg::trivial(1, dir) : Leg(group, {{charge(c), 1}}, dir);
  }
};

Model make_model(double spin, bool dense) {
  Model m;
  m.spin = spin;
  m.d = static_cast<int>(std::lround(2 * spin)) + 1;
  m.dense = dense;
  const int d = m.d;
  std::vector<double> mz(d);
  for (int k = 0; k < d; ++k) {
    mz[k] = spin - k;
    m.q.push_back(std::lround(2 * mz[k]));
  }
  // MPO channels: U(1) leg sectors {0: 3, +2: 1, -2: 1} hold start, Sz, end | S+ | S-.
  std::int64_t start = 0, ch_sz = 1, end = 2, ch_plus = 3, ch_minus = 4;
  if (dense) {
    m.group = Group();
    m.phys = Leg::trivial(d);
    m.mpo = Leg::trivial(5);
    for (int k = 0; k < d; ++k) m.pos.push_back(k);
  } else {
    m.group = Group::u1();
    std::vector<sym::Sector> sectors;
    for (int k = 0; k < d; ++k) sectors.push_back({{m.q[k]}, 1});
    m.phys = Leg(m.group, sectors);
    m.mpo = Leg(m.group, {{{0}, 3}, {{2}, 1}, {{-2}, 1}});
    // Dense positions from the legs themselves (whatever order the sectors are kept in).
    for (int k = 0; k < d; ++k) m.pos.push_back(m.phys.offset(m.phys.find({m.q[k]})));
    const std::int64_t zero = m.mpo.offset(m.mpo.find({0}));
    start = zero, ch_sz = zero + 1, end = zero + 2;
    ch_plus = m.mpo.offset(m.mpo.find({2}));
    ch_minus = m.mpo.offset(m.mpo.find({-2}));
  }
  // Single-site operators <k|O|k'> on the basis index.
  using Op = std::vector<double>;
  Op id(d * d, 0.0), sz(d * d, 0.0), sp(d * d, 0.0), sm(d * d, 0.0);
  for (int k = 0; k < d; ++k) {
    id[k * d + k] = 1;
    sz[k * d + k] = mz[k];
  }
  for (int k = 1; k < d; ++k) {  // S+ |k> = sqrt(S(S+1) - m(m+1)) |k-1>
    sp[(k - 1) * d + k] = std::sqrt(spin * (spin + 1) - mz[k] * (mz[k] + 1));
    sm[k * d + (k - 1)] = sp[(k - 1) * d + k];
  }
  std::vector<double> w(5 * d * d * 5, 0.0);
  auto put = [&](std::int64_t wl, std::int64_t wr, const Op& op, double c) {
    for (int a = 0; a < d; ++a)
      for (int b = 0; b < d; ++b)
        w[((wl * d + m.pos[a]) * d + m.pos[b]) * 5 + wr] += c * op[a * d + b];
  };
  put(start, start, id, 1.0);
  put(start, ch_plus, sp, 1.0);
  put(start, ch_minus, sm, 1.0);
  put(start, ch_sz, sz, 1.0);
  put(ch_plus, end, sm, 0.5);
  put(ch_minus, end, sp, 0.5);
  put(ch_sz, end, sz, 1.0);
  put(end, end, id, 1.0);
  // from_dense rejects any entry outside the allowed blocks: this checks the charge assignment.
  m.W = BlockTensor::from_dense(from_vector(w, {5, d, d, 5}),
                                {m.mpo, m.phys, m.phys.dual(), m.mpo.dual()}, m.group.identity());
  return m;
}

// Boundary environments: L[b, w, k] = <start| on the MPO leg, R[k, w, b] = |end>.
BlockTensor left_boundary(const Model& m, const Leg& first_bond /* A[0].l, out */) {
  std::vector<double> v(5, 0.0);
  v[m.dense ? 0 : m.mpo.offset(m.mpo.find({0}))] = 1;  // start
  return BlockTensor::from_dense(from_vector(v, {1, 5, 1}),
                                 {first_bond, m.mpo.dual(), first_bond.dual()}, m.group.identity());
}
BlockTensor right_boundary(const Model& m, const Leg& last_bond /* A[L-1].r, in */) {
  std::vector<double> v(5, 0.0);
  v[m.dense ? 2 : m.mpo.offset(m.mpo.find({0})) + 2] = 1;  // end
  return BlockTensor::from_dense(from_vector(v, {1, 5, 1}), {last_bond.dual(), m.mpo, last_bond},
                                 m.group.identity());
}

// The product state with basis index basis[i] on site i.
std::vector<BlockTensor> product_state(const Model& m, const std::vector<int>& basis) {
  std::vector<BlockTensor> mps;
  std::int64_t c = 0;  // charge of the bond left of site i
  for (int k : basis) {
    std::vector<double> v(m.d, 0.0);
    v[m.pos[k]] = 1;
    mps.push_back(BlockTensor::from_dense(
        from_vector(v, {1, m.d, 1}),
        {m.bond(c, Direction::out), m.phys, m.bond(c + m.q[k], Direction::in)},
        m.group.identity()));
    c += m.q[k];
  }
  return mps;
}

// ---- Environments ----

// L'[b', w', k'] = sum L[b, w, k] A[k, s', k'] W[w, s, s', w'] conj(A)[b, s, b'].
BlockTensor grow_left(const BlockTensor& L, const BlockTensor& A, const BlockTensor& W) {
  BlockTensor x = sym::tensordot(L, A, {2}, {0});       // [b, w, s', k']
  x = sym::tensordot(x, W, {1, 2}, {0, 2});             // [b, k', s, w']
  x = sym::tensordot(x, sym::conj(A), {0, 2}, {0, 1});  // [k', w', b']
  return sym::permute(x, {2, 1, 0});
}

// R'[k, w, b] = sum A[k, s', k'] R[k', w', b'] W[w, s, s', w'] conj(A)[b, s, b'].
BlockTensor grow_right(const BlockTensor& R, const BlockTensor& A, const BlockTensor& W) {
  BlockTensor x = sym::tensordot(A, R, {2}, {0});          // [k, s', w', b']
  x = sym::tensordot(x, W, {1, 2}, {2, 3});                // [k, b', w, s]
  return sym::tensordot(x, sym::conj(A), {1, 3}, {2, 1});  // [k, w, b]
}

// The two-site effective Hamiltonian: theta[l, s1, s2, r] -> (L W W R) theta, same legs. L is
// contracted first (its chi x chi matrix against theta), then the two MPO tensors (cheap), then R.
BlockTensor apply_heff(const BlockTensor& L, const BlockTensor& W, const BlockTensor& R,
                       const BlockTensor& theta) {
  BlockTensor y = sym::tensordot(L, theta, {2}, {0});  // [b, w, s1, s2, r]
  y = sym::tensordot(y, W, {1, 2}, {0, 2});            // [b, s2, r, s1', w1]
  y = sym::tensordot(y, W, {1, 4}, {2, 0});            // [b, r, s1', s2', w2]
  return sym::tensordot(y, R, {1, 4}, {0, 1});         // [b, s1', s2', b']
}

// The same contractions' block-sparse and dense multiply-adds (from the legs alone).
std::pair<double, double> heff_cost(const BlockTensor& L, const BlockTensor& W,
                                    const BlockTensor& R, const BlockTensor& theta) {
  double sparse = 0, dense = 0;
  auto dense_of = [](const BlockTensor& t) {
    std::vector<Leg> legs;
    for (const Leg& l : t.legs()) legs.push_back(Leg::trivial(l.dim(), l.direction()));
    return BlockTensor::zeros(legs, {}, t.dtype());
  };
  auto step = [&](const BlockTensor& a, const BlockTensor& b, Dims xa, Dims xb) {
    sparse += sym::tensordot_cost(a, b, xa, xb);
    dense += sym::tensordot_cost(dense_of(a), dense_of(b), xa, xb);
    return sym::tensordot(a, b, xa, xb);
  };
  BlockTensor y = step(L, theta, {2}, {0});
  y = step(y, W, {1, 2}, {0, 2});
  y = step(y, W, {1, 4}, {2, 0});
  step(y, R, {1, 4}, {0, 1});
  return {sparse, dense};
}

// --fused-heff: the combined form (legs combined into pipes). L W1 and W2 R are contracted once
// per step and kept as matrices LW[(b s1' w), (k s1)] and WR[(w s2 r), (s2' b')], and theta is
// the matrix [(l s1), (s2 r)] during the solve. A matvec is then two block GEMMs with no operand
// to fuse, plus one regrouping of the intermediate [(b s1' w), (s2 r)] -> [(b s1'), (w s2 r)]
// (split: views; fuse: one copy), instead of four tensordots that each permute and fuse their
// operands. The GEMMs do d times the multiply-adds of the plain form (they run over (k s1)
// instead of k); the copies it saves are what costs more in the plain form
// (docs/symmetric-dmrg.md). Fused legs keep their parts, so (l s1) fused `out` and (k s1') fused
// `in` are dual legs.
struct FusedHeff {
  BlockTensor LW, WR;
  FusedHeff(const BlockTensor& L, const BlockTensor& W, const BlockTensor& R) {
    BlockTensor lw = sym::tensordot(L, W, {1}, {0});  // [b, k, s1', s1, w]
    lw = sym::permute(lw, {0, 2, 4, 1, 3});           // [b, s1', w, k, s1]
    LW = sym::fuse(sym::fuse(lw, 3, 5, Direction::in), 0, 3, Direction::out);
    BlockTensor wr = sym::tensordot(W, R, {3}, {1});  // [w, s2', s2, r, b']
    wr = sym::permute(wr, {0, 2, 3, 1, 4});           // [w, s2, r, s2', b']
    WR = sym::fuse(sym::fuse(wr, 3, 5, Direction::in), 0, 3, Direction::in);
  }
  // theta[l, s1, s2, r] <-> [(l s1), (s2 r)]
  static BlockTensor to_matrix(const BlockTensor& theta) {
    return sym::fuse(sym::fuse(theta, 2, 4, Direction::in), 0, 2, Direction::out);
  }
  static BlockTensor from_matrix(const BlockTensor& m) { return sym::split(sym::split(m, 1), 0); }
  BlockTensor operator()(const BlockTensor& x) const {
    BlockTensor y = sym::tensordot(LW, x, {1}, {0});  // [(b s1' w), (s2 r)]
    y = sym::split(sym::split(y, 1), 0);              // [b, s1', w, s2, r]
    y = sym::fuse(sym::fuse(y, 2, 5, Direction::out), 0, 2, Direction::out);
    return sym::tensordot(y, WR, {1}, {0});  // [(b s1'), (s2' b')]
  }
};

double sum_squares(const std::vector<Tensor>& s) {
  double acc = 0;
  for (const Tensor& t : s)
    for (double v : t.to_vector<double>()) acc += v * v;
  return acc;
}

// ---- DMRG ----

struct SweepStats {
  double energy = 0;         // last eigenvalue of the sweep
  double max_discarded = 0;  // largest discarded weight of a truncation
  double max_residual = 0;   // largest eigsh residual |H theta - E theta|
  std::int64_t not_converged = 0, matvecs = 0, max_bond = 0;
};

class Dmrg {
 public:
  Dmrg(const Model& model, std::vector<BlockTensor> mps, bool fused_heff, Profile& prof)
      : m_(model), A_(std::move(mps)), fused_(fused_heff), prof_(prof) {
    const std::size_t n = A_.size();
    Lenv_.resize(n);
    Renv_.resize(n);
    Lenv_[0] = left_boundary(m_, A_[0].leg(0));
    Renv_[n - 1] = right_boundary(m_, A_[n - 1].leg(2));
    // The product state is right-canonical as it is (each A is one entry 1).
    for (std::size_t j = n - 1; j >= 1; --j) Renv_[j - 1] = grow_right(Renv_[j], A_[j], m_.W);
  }

  SweepStats sweep(std::int64_t chi, const EigshOptions& eig) {
    SweepStats st;
    const int n = static_cast<int>(A_.size());
    for (int i = 0; i + 1 < n; ++i) step(i, true, chi, eig, st);
    for (int i = n - 2; i >= 0; --i) step(i, false, chi, eig, st);
    for (const BlockTensor& a : A_) st.max_bond = std::max(st.max_bond, a.leg(2).dim());
    return st;
  }

  // <psi|H|psi> / <psi|psi> after a sweep: the centre is A[0], every other tensor right-canonical
  // and summarised by Renv[0]. Computed from the truncated MPS (not from an eigenvalue).
  double expectation() const {
    BlockTensor y = sym::tensordot(Lenv_[0], A_[0], {2}, {0});  // [b, w, s, r]
    y = sym::tensordot(y, m_.W, {1, 2}, {0, 2});                // [b, r, s', w']
    y = sym::tensordot(y, Renv_[0], {1, 3}, {0, 1});            // [b, s', b']
    return sym::inner(A_[0], y).item<double>() / sym::inner(A_[0], A_[0]).item<double>();
  }

  // The bond between the two middle sites and the cost of a matvec there.
  const Leg& centre_bond() const { return A_[A_.size() / 2 - 1].leg(2); }
  std::pair<double, double> centre_matvec_cost() const {
    const std::size_t i = A_.size() / 2 - 1;
    BlockTensor theta = sym::tensordot(A_[i], A_[i + 1], {2}, {0}).filled();
    return heff_cost(Lenv_[i], m_.W, Renv_[i + 1], theta);
  }

  // --profile: each contraction of one application at the centre, timed alone (best of `reps`),
  // with its block-sparse multiply-adds; then the same for the fused form, and the cost of
  // symmetric::eigsh itself per application (a diagonal map that costs next to nothing).
  void profile_centre(int reps) const {
    const std::size_t i = A_.size() / 2 - 1;
    const BlockTensor theta = sym::tensordot(A_[i], A_[i + 1], {2}, {0}).filled();
    const BlockTensor &L = Lenv_[i], &R = Renv_[i + 1], &W = m_.W;
    auto best_ms = [reps](auto&& f) {
      double best = 1e300;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        f();
        best = std::min(best, seconds_since(t0));
      }
      return 1e3 * best;
    };
    auto line = [](const char* what, double ms, double madds) {
      std::printf("  %-34s %8.3f ms %10.3g madds %7.1f GFLOP/s\n", what, ms, madds,
                  madds > 0 ? 2e-6 * madds / ms : 0.0);
    };
    std::printf("profile at the centre bond (theta: %lld elements in %zu blocks; best of %d):\n",
                static_cast<long long>(theta.stored_size()), theta.blocks().size(), reps);
    const BlockTensor y1 = sym::tensordot(L, theta, {2}, {0});
    const BlockTensor y2 = sym::tensordot(y1, W, {1, 2}, {0, 2});
    const BlockTensor y3 = sym::tensordot(y2, W, {1, 4}, {2, 0});
    line("plain: L . theta", best_ms([&] { sym::tensordot(L, theta, {2}, {0}); }),
         sym::tensordot_cost(L, theta, {2}, {0}));
    line("plain: . W1", best_ms([&] {
           sym::tensordot(y1, W, {1, 2}, {0, 2});
         }),
         sym::tensordot_cost(y1, W, {1, 2}, {0, 2}));
    line("plain: . W2", best_ms([&] {
           sym::tensordot(y2, W, {1, 4}, {2, 0});
         }),
         sym::tensordot_cost(y2, W, {1, 4}, {2, 0}));
    line("plain: . R", best_ms([&] {
           sym::tensordot(y3, R, {1, 4}, {0, 1});
         }),
         sym::tensordot_cost(y3, R, {1, 4}, {0, 1}));
    line("plain: whole application", best_ms([&] { apply_heff(L, W, R, theta); }), 0);
    std::optional<FusedHeff> f;
    line("fused: LW and WR (once per step)", best_ms([&] { f.emplace(L, W, R); }), 0);
    const BlockTensor x = FusedHeff::to_matrix(theta);
    BlockTensor z = sym::tensordot(f->LW, x, {1}, {0});
    line("fused: LW . theta", best_ms([&] { sym::tensordot(f->LW, x, {1}, {0}); }),
         sym::tensordot_cost(f->LW, x, {1}, {0}));
    z = sym::split(sym::split(z, 1), 0);
    line("fused: regroup (split + fuse)",
         best_ms([&] { sym::fuse(sym::fuse(z, 2, 5, Direction::out), 0, 2, Direction::out); }), 0);
    z = sym::fuse(sym::fuse(z, 2, 5, Direction::out), 0, 2, Direction::out);
    line("fused: . WR", best_ms([&] { sym::tensordot(z, f->WR, {1}, {0}); }),
         sym::tensordot_cost(z, f->WR, {1}, {0}));
    line("fused: whole application", best_ms([&] { (*f)(x); }), 0);
    // eigsh on a diagonal map (scale one leg by its dense index): all of its time is the solver.
    std::vector<Tensor> weights;
    for (std::size_t k = 0; k < theta.leg(0).num_sectors(); ++k)
      weights.push_back(
          arange(static_cast<double>(theta.leg(0).offset(k)),
                 static_cast<double>(theta.leg(0).offset(k) + theta.leg(0).sector_dim(k))));
    for (std::int64_t kd : {10, 20}) {
      std::int64_t calls = 0;
      auto diag = [&](const BlockTensor& v) {
        ++calls;
        return sym::scale_leg(v, 0, weights);
      };
      EigshOptions o;
      o.krylov_dim = kd;
      o.tol = 1e-300;  // never converges: max_restarts + 1 full cycles
      o.max_restarts = 2;
      o.require_convergence = false;
      const auto t0 = Clock::now();
      sym::eigsh(diag, theta, 1, o);
      const double ms = 1e3 * seconds_since(t0);
      const double map_ms = best_ms([&] { diag(theta); });
      std::printf(
          "  eigsh overhead, krylov_dim %2lld     %8.3f ms per application (map: %.3f ms)\n",
          static_cast<long long>(kd), ms / static_cast<double>(calls) - map_ms, map_ms);
    }
  }

 private:
  void step(int i, bool to_right, std::int64_t chi, const EigshOptions& eig_base, SweepStats& st) {
    BlockTensor theta;
    {
      ScopedTimer t(prof_.theta);
      theta = sym::tensordot(A_[i], A_[i + 1], {2}, {0}).filled();  // [l, s1, s2, r]
    }
    const BlockTensor& L = Lenv_[i];
    const BlockTensor& R = Renv_[i + 1];
    const BlockTensor& W = m_.W;
    std::optional<FusedHeff> fused;
    if (fused_) {
      ScopedTimer t(prof_.setup);
      fused.emplace(L, W, R);
      theta = FusedHeff::to_matrix(theta);
    }
    Profile& prof = prof_;
    auto heff = [&L, &W, &R, &fused, &prof](const BlockTensor& x) {
      ScopedTimer t(prof.matvec);
      ++prof.matvecs;
      return fused ? (*fused)(x) : apply_heff(L, W, R, x);
    };
    const std::int64_t dim = theta.stored_size();
    const std::int64_t before = prof_.matvecs;
    EigshOptions eig = eig_base;  // near the chain ends theta can be smaller than the Krylov space
    eig.krylov_dim = std::min<std::int64_t>(eig.krylov_dim, dim);
    double energy = 0;
    if (dim == 1) {  // theta is an eigenvector already
      energy =
          sym::inner(theta, heff(theta)).item<double>() / sym::inner(theta, theta).item<double>();
    } else {
      ScopedTimer t(prof_.eigsh);
      sym::BlockEigshResult r = sym::eigsh(heff, theta, 1, eig);
      ++prof_.solves;
      energy = r.eigenvalues.reshape({1}).to_vector<double>()[0];
      theta = r.eigenvectors[0];
      if (!r.info.residuals.empty())
        st.max_residual = std::max(st.max_residual, r.info.residuals[0]);
      if (r.info.converged < 1) ++st.not_converged;
    }
    st.matvecs += prof_.matvecs - before;
    st.energy = energy;
    if (fused_) theta = FusedHeff::from_matrix(theta);

    sym::BlockSvd f;
    {
      ScopedTimer t(prof_.svd);
      f = sym::svd_truncated(theta, 2, {.max_rank = chi, .cutoff = 1e-12});
    }
    st.max_discarded = std::max(st.max_discarded, f.discarded_weight);
    {
      ScopedTimer t(prof_.absorb);
      const double scale = 1.0 / std::sqrt(sum_squares(f.S));  // keep <psi|psi> = 1
      for (Tensor& s : f.S) s = scale * s;
      if (to_right) {
        A_[i] = f.U;                               // left-canonical
        A_[i + 1] = sym::scale_leg(f.Vh, 0, f.S);  // the new centre
      } else {
        A_[i] = sym::scale_leg(f.U, 2, f.S);  // the new centre
        A_[i + 1] = f.Vh;                     // right-canonical
      }
    }
    ScopedTimer t(prof_.env);
    if (to_right)
      Lenv_[i + 1] = grow_left(Lenv_[i], A_[i], m_.W);
    else
      Renv_[i] = grow_right(Renv_[i + 1], A_[i + 1], m_.W);
  }

  const Model& m_;
  std::vector<BlockTensor> A_;
  std::vector<BlockTensor> Lenv_;  // Lenv_[i]: sites < i
  std::vector<BlockTensor> Renv_;  // Renv_[i]: sites > i
  bool fused_ = false;
  Profile& prof_;
};

// ---- Exact diagonalisation (independent of the block-sparse code) ----

// Lowest energy of the open chain in the sector total Sz = 0: basis states are base-d numbers
// (digit k_i on site i, Sz = S - k_i), a table maps each to its index in the sector, and the
// matvec applies Sz Sz + (S+ S- + S- S+)/2 bond by bond. tenferro::eigsh (dense vectors) finds the
// lowest eigenvalue. Needs d^L <= 2^24 (spin 1/2: L <= 24; spin 1: L <= 15).
double exact_energy(double spin, int length, std::int64_t& sector_dim) {
  const int d = static_cast<int>(std::lround(2 * spin)) + 1;
  std::vector<double> mz(d), cp(d), cm(d);
  for (int k = 0; k < d; ++k) {
    mz[k] = spin - k;
    cp[k] = std::sqrt(spin * (spin + 1) - mz[k] * (mz[k] + 1));  // <k-1|S+|k>
    cm[k] = std::sqrt(spin * (spin + 1) - mz[k] * (mz[k] - 1));  // <k+1|S-|k>
  }
  std::vector<std::int64_t> pw(length + 1, 1);
  for (int i = 1; i <= length; ++i) pw[i] = pw[i - 1] * d;
  std::vector<std::int32_t> index(pw[length], -1);
  std::vector<std::int64_t> states;
  const std::int64_t twice_s = std::lround(2 * spin);
  for (std::int64_t code = 0; code < pw[length]; ++code) {
    std::int64_t q = 0;  // sum of 2 Sz = L 2S - 2 sum k
    for (std::int64_t c = code; c > 0; c /= d) q += c % d;
    if (length * twice_s == 2 * q) {
      index[code] = static_cast<std::int32_t>(states.size());
      states.push_back(code);
    }
  }
  const std::int64_t n = static_cast<std::int64_t>(states.size());
  sector_dim = n;
  // H column by column (H[row, a] for basis state a), built once: start[a] .. start[a + 1].
  std::vector<std::int64_t> start{0};
  std::vector<std::int32_t> rows;
  std::vector<double> values;
  std::vector<int> k(length);
  for (std::int64_t a = 0; a < n; ++a) {
    const std::int64_t code = states[a];
    for (int i = 0; i < length; ++i) k[i] = static_cast<int>(code / pw[i] % d);
    double diag = 0;
    for (int i = 0; i + 1 < length; ++i) {
      const int ki = k[i], kj = k[i + 1];
      diag += mz[ki] * mz[kj];
      if (ki > 0 && kj < d - 1) {  // S+_i S-_i+1
        rows.push_back(index[code - pw[i] + pw[i + 1]]);
        values.push_back(0.5 * cp[ki] * cm[kj]);
      }
      if (ki < d - 1 && kj > 0) {  // S-_i S+_i+1
        rows.push_back(index[code + pw[i] - pw[i + 1]]);
        values.push_back(0.5 * cm[ki] * cp[kj]);
      }
    }
    rows.push_back(static_cast<std::int32_t>(a));
    values.push_back(diag);
    start.push_back(static_cast<std::int64_t>(rows.size()));
  }
  std::vector<double> y(n);
  auto matvec = [&](std::span<const Tensor> in) {
    const std::vector<double> x = in[0].to_vector<double>();
    std::fill(y.begin(), y.end(), 0.0);
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t e = start[a]; e < start[a + 1]; ++e) y[rows[e]] += values[e] * x[a];
    return from_vector(y, {n});
  };
  EigshOptions opt;
  opt.krylov_dim = 20;
  opt.tol = 1e-12;
  EigshResult r = eigsh(matvec, randn({n}, 7), 1, opt);
  return r.eigenvalues.reshape({1}).to_vector<double>()[0];
}

// ---- Driver ----

double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return -1;
}

// Reference energies of the open chains (--check-ed recomputes them at small L).
double literature_energy(double spin, int length) {
  if (spin == 0.5 && length == 20) return -8.682473334398;
  if (spin == 0.5 && length == 100) return -44.127739893;
  if (spin == 1.0 && length == 100) return -138.940086;
  return NAN;
}

int run(const Config& cfg) {
  NoGradGuard no_grad;
  const auto t_start = Clock::now();
  const Model model = make_model(cfg.spin, cfg.dense);
  // Neel state: up, down, up, ... (spin 1: +1, -1, ...); total Sz = 0 for even L.
  std::vector<int> basis(cfg.length);
  for (int i = 0; i < cfg.length; ++i) basis[i] = i % 2 == 0 ? 0 : model.d - 1;
  Profile prof, last_prof;
  Dmrg dmrg(model, product_state(model, basis), cfg.fused_heff, prof);

  std::printf("%5s %5s %20s %10s %9s %8s %6s %8s %9s\n", "sweep", "chi", "energy", "discarded",
              "residual", "matvecs", "bond", "time[s]", "dE");
  const std::int64_t ramp[] = {20, 50, 100, 200, 400, 800, 1600};
  double previous = NAN, energy = NAN, last_time = 0;
  int sweeps_at_final = 0;
  bool converged = false;
  for (int k = 0; k < cfg.max_sweeps; ++k) {
    const std::int64_t chi = k < 7 ? std::min(cfg.chi, ramp[k]) : cfg.chi;
    const bool final_chi = chi == cfg.chi;
    EigshOptions eig;
    eig.which = Which::smallest_real;
    eig.krylov_dim = cfg.krylov_dim;
    eig.eager = cfg.eager;
    // Loose while chi still ramps (the environment is not converged either), tight at the end.
    eig.tol = final_chi ? 1e-10 : 1e-7;
    eig.max_restarts = final_chi ? 10 : 3;
    eig.require_convergence = false;
    const auto t0 = Clock::now();
    const Profile before = prof;
    const SweepStats st = dmrg.sweep(chi, eig);
    energy = dmrg.expectation();
    last_time = seconds_since(t0);
    last_prof = prof.since(before);
    const double de = energy - previous;
    std::printf("%5d %5lld %20.12f %10.2e %9.1e %8lld %6lld %8.2f %9.1e%s\n", k + 1,
                static_cast<long long>(chi), energy, st.max_discarded, st.max_residual,
                static_cast<long long>(st.matvecs), static_cast<long long>(st.max_bond), last_time,
                de, st.not_converged ? " (some solves not converged)" : "");
    std::fflush(stdout);
    sweeps_at_final += final_chi ? 1 : 0;
    previous = energy;
    if (sweeps_at_final >= 2 && std::abs(de) < 1e-10) {
      converged = true;
      break;
    }
  }
  const double total = seconds_since(t_start);
  std::printf("\n%s after %s: E = %.12f, E/L = %.12f\n", converged ? "converged" : "stopped",
              converged ? "|dE| < 1e-10" : "the last sweep", energy, energy / cfg.length);
  std::printf("centre bond: %s\n", dmrg.centre_bond().to_string().c_str());
  if (cfg.profile) dmrg.profile_centre(20);
  const auto [sparse, dense] = dmrg.centre_matvec_cost();
  std::printf("matvec at the centre: %.3g multiply-adds block-sparse, %.3g dense (%.1fx)\n", sparse,
              dense, dense / sparse);
  std::printf("total %.2f s, last sweep (chi = %lld) %.2f s, peak RSS %.0f MiB\n", total,
              static_cast<long long>(cfg.chi), last_time, peak_rss_mib());
  prof.print("time by operation, whole run", cfg.fused_heff);
  last_prof.print("time by operation, last sweep", cfg.fused_heff);

  bool ok = std::isfinite(energy);
  const double lit = literature_energy(cfg.spin, cfg.length);
  if (std::isfinite(lit))
    std::printf("literature: E = %.12f, E_DMRG - E_lit = %.2e\n", lit, energy - lit);
  if (cfg.check_ed) {
    const auto t0 = Clock::now();
    std::int64_t n = 0;
    const double ed = exact_energy(cfg.spin, cfg.length, n);
    const double diff = energy - ed;
    const bool pass = std::abs(diff) < 1e-8;
    std::printf(
        "%s: exact diagonalisation (Sz = 0, %lld states, %.2f s) E = %.12f, "
        "E_DMRG - E_ED = %.2e (bound 1e-8)\n",
        pass ? "PASS" : "FAIL", static_cast<long long>(n), seconds_since(t0), ed, diff);
    ok = ok && pass;
    if (std::isfinite(lit) && std::abs(ed - lit) > 1e-9) {
      std::printf("FAIL: the exact diagonalisation misses the literature value by %.2e\n",
                  ed - lit);
      ok = false;
    }
  }
  if (cfg.has_expect) {
    const bool pass = std::abs(energy - cfg.expect) < cfg.expect_tol;
    std::printf("%s: E_DMRG - (%.12f) = %.2e (bound %.1e)\n", pass ? "PASS" : "FAIL", cfg.expect,
                energy - cfg.expect, cfg.expect_tol);
    ok = ok && pass;
  }
  return ok ? 0 : 1;
}

int usage() {
  std::fprintf(stderr,
               "usage: dmrg_heisenberg [--spin 0.5|1] [--L n >= 4, even] [--chi n >= 2] "
               "[--sweeps n >= 1] [--dense] [--fused-heff] [--krylov-dim n >= 2] [--no-eager] "
               "[--profile] [--check-ed] [--expect E [--expect-tol t]]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int a = 1; a < argc; ++a) {
    std::string_view arg = argv[a];
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); eq != std::string_view::npos) {
      value = std::string(arg.substr(eq + 1));
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&](std::string& v) {
      if (has_value) {
        v = value;
        return true;
      }
      if (a + 1 >= argc) return false;
      v = argv[++a];
      return true;
    };
    std::string v;
    char* endp = nullptr;
    auto number = [&](double& out) {
      if (!next(v)) return false;
      out = std::strtod(v.c_str(), &endp);
      return endp != v.c_str() && *endp == '\0';
    };
    double x = 0;
    if (arg == "--dense") {
      cfg.dense = true;
    } else if (arg == "--check-ed") {
      cfg.check_ed = true;
    } else if (arg == "--profile") {
      cfg.profile = true;
    } else if (arg == "--no-eager") {
      cfg.eager = false;
    } else if (arg == "--fused-heff") {
      cfg.fused_heff = true;
    } else if (arg == "--krylov-dim" && number(x)) {
      cfg.krylov_dim = static_cast<std::int64_t>(x);
    } else if (arg == "--spin" && number(x)) {
      cfg.spin = x;
    } else if ((arg == "--L" || arg == "--length") && number(x)) {
      cfg.length = static_cast<int>(x);
    } else if (arg == "--chi" && number(x)) {
      cfg.chi = static_cast<std::int64_t>(x);
    } else if (arg == "--sweeps" && number(x)) {
      cfg.max_sweeps = static_cast<int>(x);
    } else if (arg == "--expect" && number(x)) {
      cfg.expect = x;
      cfg.has_expect = true;
    } else if (arg == "--expect-tol" && number(x)) {
      cfg.expect_tol = x;
    } else {
      return usage();
    }
  }
  if ((cfg.spin != 0.5 && cfg.spin != 1.0) || cfg.length < 4 || cfg.length % 2 != 0 ||
      cfg.chi < 2 || cfg.max_sweeps < 1 || cfg.krylov_dim < 2)
    return usage();
  if (cfg.check_ed) {
    const double states = std::pow(2 * cfg.spin + 1, cfg.length);
    if (states > 16777216.0) {
      std::fprintf(stderr,
                   "--check-ed needs (2S+1)^L <= 2^24 (spin 1/2: L <= 24, spin 1: L <= 15)\n");
      return 2;
    }
  }

  try {
    const CpuBackend& cpu = default_backend();
    std::printf(
        "two-site DMRG, spin-%s Heisenberg chain, L = %d (open), chi = %lld, %s, %d threads\n",
        cfg.spin == 0.5 ? "1/2" : "1", cfg.length, static_cast<long long>(cfg.chi),
        cfg.dense ? "dense (trivial group)" : "U(1) charge 2 Sz, total Sz = 0", cpu.threads());
    return cpu.with_execution_scope([&] { return run(cfg); });
  } catch (const Error& e) {
    std::fprintf(stderr, "tenferro error: %s\n", e.what());
    return 1;
  }
}
