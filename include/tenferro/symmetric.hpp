// Abelian symmetric (block-sparse) tensors: legs that carry charges of U(1), Z_n or products of
// them, tensors stored as dense blocks per allowed sector tuple, and contractions, decompositions
// and Krylov solves that work block by block (docs/symmetric.md).
//
//   using namespace tenferro::symmetric;
//   Group u1 = Group::u1();
//   Leg phys(u1, {{{1}, 1}, {{-1}, 1}});                 // S=1/2: Sz = +1/2, -1/2 (charge 2 Sz)
//   Leg left(u1, {{{0}, 4}, {{2}, 3}, {{-2}, 3}});        // even charges left of the site
//   Leg right(u1, {{{1}, 4}, {{-1}, 4}, {{3}, 2}});        // odd charges right of it
//   BlockTensor A = BlockTensor::randn({left, phys, right.dual()}, /*seed=*/1);
//   BlockTensor E = tensordot(A, conj(A), {0, 1}, {0, 1});   // legs (right in, right out)
//   BlockSvd s = svd_truncated(A, 2, {.max_rank = 8});        // global truncation over sectors
//
// Conventions. A leg has a direction: `out` legs count their charge with sign +1, `in` legs with
// -1. A block (one sector per leg) is allowed when the signed sum of its charges equals the
// tensor's flux; blocks that are allowed but not stored are zero. Contracting leg i of a with leg
// j of b needs b's leg to be the dual of a's (same sectors, opposite direction).
//
// Autodiff and tracing: every operation is a composition of catalog ops on the blocks (reshape,
// permute, concatenate, slice, dot_general, svd, ...), so reverse mode, forward mode and the
// execution scope see ordinary ops, and gradients equal those of the dense equivalent restricted
// to the blocks. The block structure depends on the legs only, so a function of BlockTensors can be
// traced and replayed (trace_blocks); svd_truncated decides its ranks from values and is not
// traceable (Unsupported when traced).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/tensor.hpp"
#include "tenferro/trace.hpp"

namespace tenferro::symmetric {

/// A charge: one integer per factor of its group (Z_n factors reduced to [0, n)).
using Charge = std::vector<std::int64_t>;

/// An abelian group: a product of U(1) factors (modulus 0) and Z_n factors (modulus n >= 2).
class Group {
 public:
  /// The trivial group (no factors): every charge is {}; a BlockTensor over it is one dense block.
  Group() = default;
  static Group u1();
  /// Z_n, n >= 2 (InvalidArgument otherwise).
  static Group zn(std::int64_t n);
  /// The product of the factors of a and b, in that order (U(1) x Z2: u1() * zn(2)).
  friend Group operator*(const Group& a, const Group& b);

  std::size_t num_factors() const noexcept { return moduli_.size(); }
  const std::vector<std::int64_t>& moduli() const noexcept { return moduli_; }
  Charge identity() const { return Charge(moduli_.size(), 0); }
  /// a + b (mod n per Z_n factor).
  Charge fuse(const Charge& a, const Charge& b) const;
  /// -a.
  Charge dual(const Charge& a) const;
  /// a with Z_n factors reduced into [0, n); InvalidArgument when a has the wrong length.
  Charge canonical(const Charge& a) const;
  /// "U(1)", "Z2", "U(1)xZ2", "trivial".
  std::string to_string() const;
  friend bool operator==(const Group& a, const Group& b) { return a.moduli_ == b.moduli_; }

 private:
  std::vector<std::int64_t> moduli_;
};

enum class Direction { in, out };
/// +1 for out, -1 for in.
inline int sign(Direction d) noexcept { return d == Direction::out ? 1 : -1; }
inline Direction flip(Direction d) noexcept {
  return d == Direction::out ? Direction::in : Direction::out;
}

/// One charge sector of a leg: `dim` basis states of charge `charge` (dim 0 is allowed).
struct Sector {
  Charge charge;
  std::int64_t dim = 0;
  friend bool operator==(const Sector&, const Sector&) = default;
};

struct Fusion;

/// A leg: the ordered sectors of one tensor index and its direction. The dense index of a leg
/// runs through the sectors in order (sector s occupies [offset(s), offset(s) + dim)).
class Leg {
 public:
  Leg() = default;
  /// Charges are made canonical; InvalidArgument for a repeated charge, a negative dim or a charge
  /// of the wrong length.
  Leg(Group group, std::vector<Sector> sectors, Direction direction = Direction::out);
  /// A leg of the trivial group with one sector of dimension `dim`.
  static Leg trivial(std::int64_t dim, Direction direction = Direction::out);

  const Group& group() const noexcept { return group_; }
  Direction direction() const noexcept { return direction_; }
  const std::vector<Sector>& sectors() const noexcept { return sectors_; }
  std::size_t num_sectors() const noexcept { return sectors_.size(); }
  /// Sector s's charge and dimension (InvalidArgument when s is out of range).
  const Charge& charge(std::size_t s) const { return sectors_[checked(s)].charge; }
  std::int64_t sector_dim(std::size_t s) const { return sectors_[checked(s)].dim; }
  /// Sum of the sector dimensions (the dense size of the leg).
  std::int64_t dim() const noexcept { return dim_; }
  /// Start of sector s in the dense index.
  std::int64_t offset(std::size_t s) const { return offsets_[checked(s)]; }
  /// Index of the sector with this (canonical) charge, or -1.
  std::int64_t find(const Charge& charge) const;
  /// The same sectors, opposite direction (the leg a contraction partner must have).
  Leg dual() const;
  /// True when this leg was made by fuse() and can be split again.
  bool is_fused() const noexcept { return static_cast<bool>(fusion_); }
  /// The legs fused into this one (InvalidArgument if !is_fused()).
  const std::vector<Leg>& fused_from() const;
  /// "U(1) out [0:4, 2:3, -2:3]".
  std::string to_string() const;
  /// Same group, direction, sectors and fusion history.
  friend bool operator==(const Leg& a, const Leg& b);
  /// a == b.dual() (contraction compatibility).
  friend bool is_dual(const Leg& a, const Leg& b);

  /// Internal: how a fused leg's sectors are made of its parts' sectors.
  const std::shared_ptr<const Fusion>& fusion() const noexcept { return fusion_; }
  Leg(Group group, std::vector<Sector> sectors, Direction direction,
      std::shared_ptr<const Fusion> fusion);

 private:
  std::size_t checked(std::size_t s) const;
  Group group_;
  std::vector<Sector> sectors_;
  std::vector<std::int64_t> offsets_;
  std::int64_t dim_ = 0;
  Direction direction_ = Direction::out;
  std::shared_ptr<const Fusion> fusion_;
};

/// The fusion of legs (the combiner): every fused sector lists the tuples of part sectors it is
/// made of, each at an offset inside the fused sector, ordered as the parts' sectors are
/// (row-major over the parts).
struct Fusion {
  struct Piece {
    std::vector<std::int64_t> parts;  ///< one sector index per part leg
    std::int64_t offset = 0;          ///< start inside the fused sector
    std::int64_t dim = 0;             ///< product of the parts' sector dims
  };
  std::vector<Leg> parts;
  std::vector<std::vector<Piece>> pieces;  ///< per fused sector
  /// parts tuple -> (fused sector, piece index)
  std::map<std::vector<std::int64_t>, std::pair<std::int64_t, std::int64_t>> index;
};

/// `legs` fused into one leg of direction `direction`: its sectors are the reachable charges
/// (sign(direction) * charge = the signed sum of the parts' charges), sorted; no legs: one
/// sector of the identity charge and dimension 1.
Leg fuse_legs(std::span<const Leg> legs, Direction direction = Direction::out);

/// One sector index per leg.
using BlockKey = std::vector<std::int64_t>;

/// A block-sparse tensor: legs, flux and one dense block per stored allowed sector tuple. A value
/// type (copies share block storage, as Tensor copies do). Every block's dtype is the tensor's.
class BlockTensor {
 public:
  BlockTensor() = default;

  /// Every allowed block, zero-filled.
  static BlockTensor zeros(std::vector<Leg> legs, Charge flux = {}, DType dtype = DType::f64);
  /// Every allowed block filled with standard normal values (one seed for the whole tensor).
  static BlockTensor randn(std::vector<Leg> legs, std::uint64_t seed, Charge flux = {},
                           DType dtype = DType::f64);
  /// The blocks of a dense tensor (shape = the legs' dims). An entry with |x| > tol outside every
  /// allowed block is InvalidArgument naming the leg sectors and the charge it would need.
  static BlockTensor from_dense(const Tensor& dense, std::vector<Leg> legs, Charge flux = {},
                                double tol = 0.0);
  /// From explicit blocks: a key that breaks charge conservation is InvalidArgument naming the
  /// leg, the sector and the flux; a block of the wrong shape is ShapeMismatch. Missing allowed
  /// blocks are zero.
  static BlockTensor from_blocks(std::vector<Leg> legs, Charge flux,
                                 std::map<BlockKey, Tensor> blocks, DType dtype = DType::f64);

  bool defined() const noexcept { return defined_; }
  std::size_t rank() const noexcept { return legs_.size(); }
  const std::vector<Leg>& legs() const noexcept { return legs_; }
  /// Leg i (InvalidArgument when i >= rank()).
  const Leg& leg(std::size_t i) const;
  const Group& group() const noexcept { return group_; }
  const Charge& flux() const noexcept { return flux_; }
  DType dtype() const noexcept { return dtype_; }
  /// The stored blocks (sorted by key).
  const std::map<BlockKey, Tensor>& blocks() const noexcept { return blocks_; }
  /// The block at `key`: the stored one, or zeros when allowed and not stored (InvalidArgument when
  /// not allowed).
  Tensor block(const BlockKey& key) const;
  /// True when the signed charge sum of `key` equals the flux.
  bool allowed(const BlockKey& key) const;
  /// Every allowed key (sorted), stored or not.
  std::vector<BlockKey> allowed_keys() const;
  /// Shape of the block at `key`.
  Dims block_shape(const BlockKey& key) const;
  /// Number of stored elements.
  std::int64_t stored_size() const;
  /// The dense tensor (zeros outside the blocks).
  Tensor to_dense() const;
  /// The same tensor with every allowed block stored (zeros where missing).
  BlockTensor filled() const;

  // ---- Autodiff ----
  /// Marks every stored block as a leaf that requires grad (call on filled() tensors to get a
  /// gradient for every allowed block).
  BlockTensor& requires_grad_(bool on = true);
  bool requires_grad() const;
  /// The gradients of the blocks after backward() (blocks without one are zeros).
  BlockTensor grad() const;
  /// The same tensor with detached blocks.
  BlockTensor detach() const;

  /// Internal constructor (no checks): used by the operations. The group is given explicitly so
  /// that rank-0 results (full contractions, traces) keep it.
  BlockTensor(Group group, std::vector<Leg> legs, Charge flux, DType dtype,
              std::map<BlockKey, Tensor> blocks);

 private:
  std::vector<Leg> legs_;
  Group group_;
  Charge flux_;
  DType dtype_ = DType::f64;
  std::map<BlockKey, Tensor> blocks_;
  bool defined_ = false;
};

std::ostream& operator<<(std::ostream& os, const BlockTensor& t);

// ---- Structure and linear algebra of vectors ----

/// Legs reordered: result leg i is t's leg axes[i].
BlockTensor permute(const BlockTensor& t, Dims axes);
/// Complex conjugate with every leg's direction flipped and the flux negated (the bra of a ket).
BlockTensor conj(const BlockTensor& t);
/// conj with the legs in reverse order (the adjoint of a matrix-like tensor).
BlockTensor dagger(const BlockTensor& t);
/// a + b, a - b, alpha * t, alpha * x + y. The operands must have equal legs and flux
/// (ShapeMismatch / InvalidArgument otherwise); dtypes promote.
BlockTensor add(const BlockTensor& a, const BlockTensor& b);
BlockTensor sub(const BlockTensor& a, const BlockTensor& b);
BlockTensor scale(const BlockTensor& t, Scalar alpha);
/// t times a 0-dimensional tensor (differentiable in both).
BlockTensor scale(const BlockTensor& t, const Tensor& alpha);
BlockTensor axpy(Scalar alpha, const BlockTensor& x, const BlockTensor& y);
BlockTensor operator+(const BlockTensor& a, const BlockTensor& b);
BlockTensor operator-(const BlockTensor& a, const BlockTensor& b);
BlockTensor operator*(Scalar alpha, const BlockTensor& t);
/// <a, b> = sum conj(a) b over the blocks, a 0-dimensional tensor (legs and flux must match).
Tensor inner(const BlockTensor& a, const BlockTensor& b);
/// Frobenius norm, a 0-dimensional real tensor.
Tensor norm(const BlockTensor& t);
/// The trace over leg pairs (axes_a[k], axes_b[k]) of one tensor; each pair must be dual legs.
/// All legs traced: a 0-dimensional tensor wrapped in a rank-0 BlockTensor (see scalar()).
BlockTensor trace(const BlockTensor& t, Dims axes_a, Dims axes_b);
/// The value of a rank-0 BlockTensor as a 0-dimensional tensor.
Tensor scalar(const BlockTensor& t);
/// Multiplies t along leg `axis` by per-sector weights (weights[s] has that sector's dim; an
/// undefined entry means zero), e.g. singular values into U. Differentiable in both.
BlockTensor scale_leg(const BlockTensor& t, std::int64_t axis, std::span<const Tensor> weights);

// ---- Fusion ----

/// Legs [begin, end) fused into one leg of direction `direction`, placed at `begin`. The fused
/// leg remembers its parts, so split() restores the tensor exactly.
BlockTensor fuse(const BlockTensor& t, std::int64_t begin, std::int64_t end,
                 Direction direction = Direction::out);
/// The fused leg `axis` split back into its parts (InvalidArgument if it is not fused).
BlockTensor split(const BlockTensor& t, std::int64_t axis);

// ---- Contraction ----

/// Contracts legs axes_a of a with legs axes_b of b (each pair dual; InvalidArgument naming both
/// legs otherwise). Result legs: a's free legs, then b's. Flux: a.flux + b.flux. Per charge of
/// the contracted legs, one GEMM over the fused blocks (Note [Block contraction]).
BlockTensor tensordot(const BlockTensor& a, const BlockTensor& b, Dims axes_a, Dims axes_b);

/// Einstein summation over BlockTensors ("abc,cd->abd"): every label appears at most twice, the
/// summed ones on dual legs; no repeated label within one operand. The pairwise order comes from
/// a search with block-aware costs (exact multiply-adds of the per-charge GEMMs): optimal (dynamic
/// programming over subsets) for up to 8 operands, greedy above.
BlockTensor einsum(std::string_view spec, std::span<const BlockTensor> operands);
BlockTensor einsum(std::string_view spec, std::initializer_list<BlockTensor> operands);
/// The pairwise contraction order einsum would use (SSA pairs, as EinsumOptions::path) and its
/// cost in multiply-adds.
struct BlockPath {
  std::vector<std::pair<int, int>> pairs;
  double flops = 0;        ///< block-sparse multiply-adds along the path
  double dense_flops = 0;  ///< the same path on dense tensors
};
BlockPath einsum_path(std::string_view spec, std::span<const BlockTensor> operands);

/// Multiply-adds of tensordot(a, b, axes_a, axes_b) (block-sparse, from the legs alone).
double tensordot_cost(const BlockTensor& a, const BlockTensor& b, Dims axes_a, Dims axes_b);

// ---- Decompositions (per charge sector) ----
//
// Each treats t as a matrix with rows = legs [0, row_legs) and columns = the rest, decomposes the
// block of every charge through the cut, and returns tensors with a new leg `bond`: U's last leg
// (direction in, U's flux 0) and Vh's first leg (its dual, Vh's flux = t's flux).

struct BlockSvd {
  BlockTensor U;          ///< row legs + bond
  std::vector<Tensor> S;  ///< per sector of the bond: descending, real
  BlockTensor Vh;         ///< bond dual + column legs
  /// svd_truncated: sum of the discarded S^2 over the total (0 for svd).
  double discarded_weight = 0;
};
BlockSvd svd(const BlockTensor& t, std::int64_t row_legs);

struct TruncationOptions {
  /// Most singular values kept over all sectors together; 0: no limit.
  std::int64_t max_rank = 0;
  /// > 0: values <= cutoff * (largest value over all sectors) are dropped, but the largest value
  /// is always kept; 0: no value is tested (exact zeros kept), as the dense svd_truncated.
  double cutoff = 0.0;
  /// Degenerate-value broadening of the derivative (as tenferro::svd_truncated).
  double degeneracy_eps = -1.0;
};
/// svd keeping the globally largest values: ranks per sector follow from one sort of all singular
/// values (as DMRG needs); sectors left empty are dropped from the bond. Not traceable.
BlockSvd svd_truncated(const BlockTensor& t, std::int64_t row_legs,
                       const TruncationOptions& options = {});

struct BlockQr {
  BlockTensor Q;  ///< row legs + bond (orthonormal columns per sector)
  BlockTensor R;  ///< bond dual + column legs
};
BlockQr qr(const BlockTensor& t, std::int64_t row_legs);

struct BlockEigh {
  std::vector<Tensor> eigenvalues;  ///< per sector of the bond, ascending
  BlockTensor eigenvectors;         ///< row legs + bond
};
/// A Hermitian t (flux 0; column legs the duals of the row legs in the same order).
BlockEigh eigh(const BlockTensor& t, std::int64_t row_legs);

// ---- Krylov solvers on block-sparse vectors ----
//
// The map f takes and returns BlockTensors with x0's legs and flux (InvalidArgument otherwise);
// the solvers of tenferro/krylov.hpp run unchanged on the blocks (the vector is the list of
// allowed blocks), so an effective Hamiltonian stays block-sparse. Autodiff as krylov.hpp.
// EigshOptions::preconditioner, if set, receives and returns that flat vector: the allowed blocks
// of x0 flattened and concatenated in allowed_keys() order.

using BlockMap = std::function<BlockTensor(const BlockTensor&)>;

struct BlockEigshResult {
  Tensor eigenvalues;
  std::vector<BlockTensor> eigenvectors;
  KrylovInfo info;
};
BlockEigshResult eigsh(BlockMap f, const BlockTensor& x0, std::int64_t k,
                       const EigshOptions& options = {});

struct BlockLinsolveResult {
  BlockTensor x;
  KrylovInfo info;
};
/// f(x) = b; LinsolveOptions::adjoint is not used (the default adjoint, the VJP of f, applies).
BlockLinsolveResult linsolve(BlockMap f, const BlockTensor& b, const BlockTensor& x0 = {},
                             const LinsolveOptions& options = {});

struct BlockExponentiateResult {
  BlockTensor x;
  KrylovInfo info;
};
BlockExponentiateResult exponentiate(BlockMap f, Scalar t, const BlockTensor& x,
                                     const ExponentiateOptions& options = {});

// ---- Traced programs over BlockTensors ----

/// A function of BlockTensors traced once: the program's inputs and outputs are the blocks of the
/// BlockTensors in order (every allowed block of each input; the stored blocks of each output).
struct BlockProgram {
  Program program;
  std::vector<BlockTensor> input_structures;  ///< zero-size stand-ins: legs, flux, dtype, keys
  std::vector<BlockTensor> output_structures;
  /// The blocks of `inputs` in program order (InvalidArgument when the legs/flux differ).
  std::vector<Tensor> flatten_inputs(std::span<const BlockTensor> inputs) const;
  /// BlockTensors from the program's output tensors.
  std::vector<BlockTensor> unflatten_outputs(std::span<const Tensor> outputs) const;
  /// The program prepared on rt (served from rt's plan cache when it was prepared before).
  PreparedProgram prepare(Runtime& rt) const;
  /// Runs a plan from prepare(): one admission for all blocks, no program hashing.
  std::vector<BlockTensor> run(const Runtime& rt, const PreparedProgram& plan,
                               std::span<const BlockTensor> inputs) const;
  /// prepare + run. The plan of the last runtime (and epoch) is kept, so repeated calls on one
  /// runtime skip the plan-cache lookup (which hashes the whole program). Assigning a new
  /// `program` drops that plan; after editing nodes in place, call prepare() instead.
  std::vector<BlockTensor> run(Runtime& rt, std::span<const BlockTensor> inputs) const;

 private:
  struct PlanMemo {
    std::mutex mutex;
    PreparedProgram plan;
    const ProgramNode* nodes = nullptr;  // the program's node storage the plan was made for
    std::size_t num_nodes = 0;
  };
  std::shared_ptr<PlanMemo> memo_ = std::make_shared<PlanMemo>();
};
using BlockFn = std::function<std::vector<BlockTensor>(std::span<const BlockTensor>)>;
/// Traces f on symbolic blocks shaped like `examples` (their values are not used).
BlockProgram trace_blocks(const BlockFn& f, std::span<const BlockTensor> examples);

}  // namespace tenferro::symmetric
