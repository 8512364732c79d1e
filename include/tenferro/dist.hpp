// tenferro::dist -- tensors over MPI: collectives, and sliced contractions with gradients spread
// over ranks. Link tenferro::dist (built when CMake finds MPI; docs/distributed.md).
//
//   #include "tenferro/dist.hpp"
//   using namespace tenferro;
//   int main(int argc, char** argv) {
//     dist::Environment mpi(argc, argv);              // MPI_Init_thread(FUNNELED) .. MPI_Finalize
//     dist::Comm comm;                                // a duplicate of MPI_COMM_WORLD
//     Tensor s = comm.allreduce(randn({4}, comm.rank()));          // sum over ranks
//     dist::SliceOptions opt{.memory_limit = 1 << 20, .min_slices = comm.size()};
//     Tensor z = dist::sliced_einsum(comm, "ab,bc,cd,da->", {a, b, c, d}, opt);
//     ValueAndGrad g = dist::sliced_value_and_grad(comm, "ab,bc,cd,da->", {a, b, c, d}, {}, opt);
//     Tensor y = dist::sliced_einsum(comm, {a, b, c, d},              // integer labels
//                                    {{0, 1}, {1, 2}, {2, 3}, {3, 0}}, {}, opt);
//   }
//   // mpirun -n 4 ./program
//
// Model: every rank holds the full operands (the same values on every rank) and runs the same
// call. A sliced contraction splits into SlicePlan::slices independent slices (tenferro/
// slicing.hpp); rank r contracts a contiguous block of them with one prepared einsum inside one
// execution scope of its current backend, adds them up, and one allreduce sums the ranks' parts.
// Every rank returns the same result (bitwise: MPI's reduction gives every rank the same value).
//
// Threads: MPI is called only from the thread that calls these functions, never from the
// backend's worker threads, so MPI_THREAD_FUNNELED is enough: call from the thread that
// initialised MPI (the main thread), or initialise with ThreadLevel::serialized (one thread at a
// time) or multiple. A call from another thread under FUNNELED is Error{RuntimeState}.
//
// Errors: every collective operation here is collective -- every rank of the communicator must
// call it, in the same order. Before any data moves, the ranks agree (Note [Rank agreement] in
// src/dist/agree.hpp): a rank whose arguments are invalid, or ranks whose shapes, dtypes, specs
// (or integer labels) or options differ, make EVERY rank throw the same tenferro::Error (same kind,
// same message, naming the ranks and what differs) instead of hanging in or corrupting a
// collective. That costs one small allreduce per call; CommOptions::check_agreement = false skips
// it for collectives (then a local error throws on its rank only, and mismatched calls are MPI's
// undefined behaviour). MPI failures are Error{BackendFailure} with MPI's error string.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tenferro/autodiff.hpp"
#include "tenferro/slicing.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::dist {

/// MPI's thread support levels, lowest first.
enum class ThreadLevel { single, funneled, serialized, multiple };
std::string_view to_string(ThreadLevel level) noexcept;

/// MPI's lifetime for a program: initialises MPI with MPI_Init_thread asking for `required`
/// (unless MPI is already initialised, e.g. by the application or another Environment) and, if
/// it initialised MPI, finalises it on destruction. Create one in main() before any Comm, and
/// destroy every Comm before it. Throws Error{InvalidArgument} for `required` below funneled
/// (before touching MPI), Error{Unsupported} when MPI provides less than `required` (MPI is then
/// finalised again if this object started it), and Error{RuntimeState} when MPI was already
/// finalised (MPI cannot start twice in a process).
class Environment {
 public:
  explicit Environment(ThreadLevel required = ThreadLevel::funneled);
  Environment(int& argc, char**& argv, ThreadLevel required = ThreadLevel::funneled);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  /// The thread level MPI provides.
  ThreadLevel provided() const noexcept { return provided_; }
  /// Whether this object initialised MPI (and so finalises it).
  bool owns_mpi() const noexcept { return owns_; }
  /// True between MPI's initialisation and its finalisation.
  static bool active();

 private:
  bool owns_ = false;
  ThreadLevel provided_ = ThreadLevel::single;
};

/// Reductions of allreduce and reduce_scatter.
///  - sum: every dtype but bool (DTypeMismatch: cast to an integer dtype, or use max = logical
///    or / min = logical and); integers wrap on overflow.
///  - max, min: real dtypes (complex is DTypeMismatch); f32/f64 propagate NaN like tenferro's
///    maximum/minimum; on bool they are logical or / and.
enum class ReduceOp { sum, max, min };
std::string_view to_string(ReduceOp op) noexcept;

struct CommOptions {
  /// Collectives first check that every rank passes equal shapes, dtypes, ops and roots and
  /// valid tensors, so that a mistake is the same Error on every rank, not a hang (the
  /// sliced contractions always check).
  bool check_agreement = true;
};

/// A communicator: an owned duplicate (MPI_Comm_dup) of an MPI communicator, so tenferro's
/// messages never match the application's own; freed by the destructor (unless MPI is already
/// finalised). Its error handler returns errors (they become Error{BackendFailure}) instead of
/// aborting. Move-only. Not thread-safe: one thread at a time per communicator, and every rank
/// must call the collectives in the same order.
///
/// Collectives take any tensors of every dtype (bool, the integers, f32, f64, c64, c128) and return
/// fresh contiguous tensors. A contiguous tensor is handed to MPI without a copy; a strided one
/// is packed once. Inputs that require grad (with grad mode on), carry a tangent or are traced
/// are Unsupported: communication is not recorded by autodiff (detach() them). Per-rank tensors
/// of more than INT_MAX elements are sent in pieces by allreduce and broadcast; allgather and
/// reduce_scatter refuse them (Unsupported).
class Comm {
 public:
  /// A duplicate of MPI_COMM_WORLD. Error{RuntimeState} when MPI is not initialised (create a
  /// dist::Environment first) or already finalised, or when called off MPI's main thread under
  /// FUNNELED; Error{Unsupported} when the application initialised MPI with
  /// MPI_THREAD_SINGLE. Destroyed off MPI's main thread under FUNNELED (or after MPI_Finalize),
  /// the duplicate is left for MPI_Finalize to free.
  Comm();
  explicit Comm(CommOptions options);
  /// A duplicate of `comm` (collective over `comm`).
  explicit Comm(MPI_Comm comm, CommOptions options = {});
  Comm(Comm&& other) noexcept;
  Comm& operator=(Comm&& other) noexcept;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm();

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// The duplicate's handle (for MPI calls of your own; do not free it).
  MPI_Comm native() const noexcept { return comm_; }
  const CommOptions& options() const noexcept { return options_; }

  /// Blocks until every rank has called it.
  void barrier() const;
  /// MPI_Comm_split: ranks with equal `color` (>= 0, else InvalidArgument) form a new
  /// communicator, ordered by `key` then by rank. Collective.
  Comm split(int color, int key = 0) const;

  /// The elementwise reduction of x over all ranks (same shape and dtype on every rank).
  Tensor allreduce(const Tensor& x, ReduceOp op = ReduceOp::sum) const;
  /// allreduce in place: x (contiguous, else InvalidArgument) receives the result; its version
  /// counter records the write (Note [Version counter]).
  void allreduce_into(Tensor& x, ReduceOp op = ReduceOp::sum) const;
  /// Root's x on every rank. Other ranks' x is ignored (it may be undefined): shape and dtype
  /// come from the root. root must be in [0, size) and equal on every rank (InvalidArgument).
  Tensor broadcast(const Tensor& x, int root = 0) const;
  /// Every rank's x stacked along a new leading axis: shape [size, ...x.shape], rank r's at r.
  Tensor allgather(const Tensor& x) const;
  /// Reduces x over the ranks and scatters the result along axis 0 like NumPy's array_split:
  /// rank r receives n/size rows (integer division), one more for the first n % size ranks,
  /// starting at row r*(n/size) + min(r, n%size) (n = x.shape[0]; a rank may get none). x must
  /// have rank >= 1 and at most INT_MAX elements in all (Unsupported).
  Tensor reduce_scatter(const Tensor& x, ReduceOp op = ReduceOp::sum) const;

 private:
  void release() noexcept;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  CommOptions options_;
};

using tenferro::SlicedLabel;
using tenferro::SliceOptions;
using tenferro::SlicePlan;
/// The plan every rank computes (deterministically) for a sliced contraction
/// (tenferro/slicing.hpp; both forms, spec or integer labels). For work on every rank, ask for
/// SliceOptions::min_slices = comm.size().
using tenferro::slice_plan;

/// The slices [first, last) that rank `rank` of `ranks` contracts: contiguous blocks in slice
/// order, the first slices % ranks ranks one more (a rank may get none).
std::pair<std::int64_t, std::int64_t> owned_slices(const SlicePlan& plan, int rank, int ranks);

/// einsum(spec, operands) over the ranks of `comm`: every rank plans the same slicing, contracts
/// its own slices (owned_slices) with one prepared einsum inside one execution scope of its
/// current backend, and one allreduce sums the ranks' parts. Every rank must pass the same spec,
/// shapes, dtypes and options (checked up front: the same Error on every rank otherwise) and the
/// same operand values (not checked). The plans themselves (path and slicing) are compared too:
/// a random_greedy or hyper search that stops on its time budget (EinsumOptions::trials 0, or too
/// short a budget) may plan differently on different ranks, and then every rank throws
/// InvalidArgument ("the slice plan") instead of adding up slices of different slicings; give
/// trials and a budget long enough for them. Returns the same tensor on every rank, equal to
/// einsum to rounding for any number of ranks, including ranks that get no slice. Errors as
/// tenferro::sliced_einsum, on every rank.
Tensor sliced_einsum(const Comm& comm, std::string_view spec, std::span<const Tensor> operands,
                     const SliceOptions& options = {});
inline Tensor sliced_einsum(const Comm& comm, std::string_view spec,
                            std::initializer_list<Tensor> operands,
                            const SliceOptions& options = {}) {
  return sliced_einsum(comm, spec, std::span<const Tensor>(operands.begin(), operands.size()),
                       options);
}
/// Integer-label form: einsum(operands, labels, output) over the ranks (as
/// tenferro::sliced_einsum's integer form). The ranks must pass equal labels and output too.
Tensor sliced_einsum(const Comm& comm, std::span<const Tensor> operands,
                     const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                     const SliceOptions& options = {});
inline Tensor sliced_einsum(const Comm& comm, std::initializer_list<Tensor> operands,
                            const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                            const SliceOptions& options = {}) {
  return sliced_einsum(comm, std::span<const Tensor>(operands.begin(), operands.size()), labels,
                       output, options);
}

/// tenferro::sliced_value_and_grad over the ranks: the forward slices are spread and summed as
/// sliced_einsum does; every rank evaluates loss on the summed output (so loss must compute the
/// same value on every rank) and its cotangent; each rank runs the reverse pass of its own
/// slices, and one allreduce per operand sums the gradients. The same value and gradients on
/// every rank, equal to the single-process gradient to rounding.
ValueAndGrad sliced_value_and_grad(const Comm& comm, std::string_view spec,
                                   std::span<const Tensor> operands, const ScalarFn& loss,
                                   const SliceOptions& options = {});
inline ValueAndGrad sliced_value_and_grad(const Comm& comm, std::string_view spec,
                                          std::initializer_list<Tensor> operands,
                                          const ScalarFn& loss, const SliceOptions& options = {}) {
  return sliced_value_and_grad(
      comm, spec, std::span<const Tensor>(operands.begin(), operands.size()), loss, options);
}
/// Integer-label form of dist::sliced_value_and_grad.
ValueAndGrad sliced_value_and_grad(const Comm& comm, std::span<const Tensor> operands,
                                   const std::vector<EinsumLabels>& labels,
                                   const EinsumLabels& output, const ScalarFn& loss,
                                   const SliceOptions& options = {});
inline ValueAndGrad sliced_value_and_grad(const Comm& comm, std::initializer_list<Tensor> operands,
                                          const std::vector<EinsumLabels>& labels,
                                          const EinsumLabels& output, const ScalarFn& loss,
                                          const SliceOptions& options = {}) {
  return sliced_value_and_grad(comm, std::span<const Tensor>(operands.begin(), operands.size()),
                               labels, output, loss, options);
}

}  // namespace tenferro::dist
