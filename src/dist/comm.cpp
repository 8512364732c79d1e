// dist::Environment (MPI's lifetime) and dist::Comm (an owned duplicate communicator).
#include <algorithm>
#include <string>
#include <utility>

#include "dist/agree.hpp"
#include "einsum/sliced.hpp"

namespace tenferro::dist {
namespace {

int mpi_level(ThreadLevel level) {
  switch (level) {
    case ThreadLevel::single:
      return MPI_THREAD_SINGLE;
    case ThreadLevel::funneled:
      return MPI_THREAD_FUNNELED;
    case ThreadLevel::serialized:
      return MPI_THREAD_SERIALIZED;
    case ThreadLevel::multiple:
      return MPI_THREAD_MULTIPLE;
  }
  throw Error(ErrorKind::InvalidArgument,
              "dist::Environment: ThreadLevel has value " +
                  std::to_string(static_cast<int>(level)) +
                  "; expected single, funneled, serialized or multiple");
}

ThreadLevel from_mpi_level(int level) {
  if (level >= MPI_THREAD_MULTIPLE) return ThreadLevel::multiple;
  if (level >= MPI_THREAD_SERIALIZED) return ThreadLevel::serialized;
  if (level >= MPI_THREAD_FUNNELED) return ThreadLevel::funneled;
  return ThreadLevel::single;
}

ThreadLevel start_mpi(int* argc, char*** argv, ThreadLevel required, bool& owns) {
  const int wanted = mpi_level(required);
  if (wanted < MPI_THREAD_FUNNELED)
    throw Error(ErrorKind::InvalidArgument,
                "dist::Environment: required thread level is single; expected funneled or more "
                "(tenferro calls MPI from the calling thread while its workers compute)");
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    throw Error(ErrorKind::RuntimeState,
                "dist::Environment: MPI was already finalised in this process and cannot start "
                "again; expected one Environment that lives as long as MPI is used");
  int provided = MPI_THREAD_SINGLE;
  if (initialized) {
    MPI_Query_thread(&provided);
  } else {
    detail::check_mpi(MPI_Init_thread(argc, argv, wanted, &provided), "dist::Environment",
                      "MPI_Init_thread");
    owns = true;
  }
  if (provided < wanted) {
    if (owns) {
      MPI_Finalize();
      owns = false;
    }
    throw Error(ErrorKind::Unsupported,
                "dist::Environment: MPI provides thread level " +
                    std::string(to_string(from_mpi_level(provided))) + "; expected at least " +
                    std::string(to_string(required)) + ", the level this Environment requires");
  }
  return from_mpi_level(provided);
}

}  // namespace

std::string_view to_string(ThreadLevel level) noexcept {
  switch (level) {
    case ThreadLevel::single:
      return "single";
    case ThreadLevel::funneled:
      return "funneled";
    case ThreadLevel::serialized:
      return "serialized";
    case ThreadLevel::multiple:
      return "multiple";
  }
  return "?";
}

Environment::Environment(ThreadLevel required)
    : provided_(start_mpi(nullptr, nullptr, required, owns_)) {}

Environment::Environment(int& argc, char**& argv, ThreadLevel required)
    : provided_(start_mpi(&argc, &argv, required, owns_)) {}

Environment::~Environment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) MPI_Finalize();
}

bool Environment::active() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

Comm::Comm() : Comm(MPI_COMM_WORLD, CommOptions{}) {}

Comm::Comm(CommOptions options) : Comm(MPI_COMM_WORLD, options) {}

Comm::Comm(MPI_Comm comm, CommOptions options) : options_(options) {
  if (!Environment::active())
    throw Error(ErrorKind::RuntimeState,
                "dist::Comm: MPI is not initialised (or already finalised); expected a "
                "dist::Environment (or MPI_Init_thread) before the first Comm");
  if (comm == MPI_COMM_NULL)
    throw Error(ErrorKind::InvalidArgument,
                "dist::Comm: the communicator is MPI_COMM_NULL; expected a valid communicator");
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_FUNNELED)
    throw Error(ErrorKind::Unsupported,
                "dist::Comm: MPI was initialised with MPI_THREAD_SINGLE; expected at least "
                "MPI_THREAD_FUNNELED (tenferro's workers run while the calling thread is in MPI)");
  if (!detail::on_mpi_thread())
    throw Error(ErrorKind::RuntimeState,
                "dist::Comm: constructed on a thread other than the one that initialised MPI, "
                "which provides only MPI_THREAD_FUNNELED; expected that thread, or "
                "ThreadLevel::serialized");
  detail::check_mpi(MPI_Comm_dup(comm, &comm_), "dist::Comm", "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Comm::Comm(Comm&& other) noexcept
    : comm_(std::exchange(other.comm_, MPI_COMM_NULL)),
      rank_(std::exchange(other.rank_, 0)),
      size_(std::exchange(other.size_, 0)),
      options_(other.options_) {}

Comm& Comm::operator=(Comm&& other) noexcept {
  if (this != &other) {
    release();
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    rank_ = std::exchange(other.rank_, 0);
    size_ = std::exchange(other.size_, 0);
    options_ = other.options_;
  }
  return *this;
}

Comm::~Comm() { release(); }

void Comm::release() noexcept {
  if (comm_ == MPI_COMM_NULL) return;
  // After MPI_Finalize, or on a thread that may not call MPI, the handle is left to
  // MPI_Finalize, which frees every communicator.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && detail::on_mpi_thread()) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

void Comm::barrier() const {
  detail::check_callable(*this, "dist::Comm::barrier");
  detail::check_mpi(MPI_Barrier(comm_), "dist::Comm::barrier", "MPI_Barrier");
}

Comm Comm::split(int color, int key) const {
  constexpr const char* op = "dist::Comm::split";
  detail::check_callable(*this, op);
  // Agreed, so that a negative color on one rank is an error on all of them (MPI_Comm_split is
  // collective); colors and keys may differ between ranks, so nothing is claimed.
  detail::run_agreed(*this, op, {}, [&] {
    if (color < 0)
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": color is " + std::to_string(color) + "; expected >= 0");
  });
  MPI_Comm part = MPI_COMM_NULL;
  detail::check_mpi(MPI_Comm_split(comm_, color, key, &part), op, "MPI_Comm_split");
  Comm out(part, options_);
  MPI_Comm_free(&part);
  return out;
}

std::pair<std::int64_t, std::int64_t> owned_slices(const SlicePlan& plan, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw Error(ErrorKind::InvalidArgument, "dist::owned_slices: rank " + std::to_string(rank) +
                                                " of " + std::to_string(ranks) +
                                                "; expected 0 <= rank < ranks");
  return tenferro::detail::slice_range(plan.slices, rank, ranks);
}

}  // namespace tenferro::dist
