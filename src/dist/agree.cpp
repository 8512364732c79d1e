// The agreement step (Note [Rank agreement] in agree.hpp) and the local checks before MPI calls.
#include "dist/agree.hpp"

#include <vector>

namespace tenferro::dist::detail {
namespace {

// Root's string on every rank.
std::string broadcast_string(const Comm& comm, const std::string& mine, int root, const char* op) {
  std::uint64_t n = mine.size();
  check_mpi(MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm.native()), op, "MPI_Bcast");
  std::string s = comm.rank() == root ? mine : std::string(n, '\0');
  check_mpi(MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, root, comm.native()), op,
            "MPI_Bcast");
  return s;
}

}  // namespace

void check_mpi(int rc, const char* op, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(ErrorKind::BackendFailure,
              std::string(op) + ": " + call + " failed: " +
                  (len > 0 ? std::string(text, static_cast<std::size_t>(len))
                           : "error code " + std::to_string(rc)));
}

void check_callable(const Comm& comm, const char* op) {
  if (comm.native() == MPI_COMM_NULL)
    throw Error(ErrorKind::RuntimeState,
                std::string(op) + ": the communicator is empty (moved from); expected a Comm");
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    throw Error(ErrorKind::RuntimeState,
                std::string(op) +
                    ": MPI is already finalised; expected calls before the "
                    "dist::Environment is destroyed");
  if (!on_mpi_thread())
    throw Error(ErrorKind::RuntimeState,
                std::string(op) +
                    ": called from a thread other than the one that initialised "
                    "MPI, which provides only MPI_THREAD_FUNNELED; expected calls "
                    "from that thread, or ThreadLevel::serialized");
}

bool on_mpi_thread() {
  int level = MPI_THREAD_SINGLE, is_main = 1;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_SERIALIZED) MPI_Is_thread_main(&is_main);
  return is_main != 0;
}

LocalFailure capture_failure(const char* op) {
  try {
    throw;
  } catch (const Error& e) {
    return {e.kind(), e.message()};
  } catch (const std::bad_alloc&) {
    return {ErrorKind::OutOfMemory, std::string(op) + ": out of memory (std::bad_alloc)"};
  } catch (const std::exception& e) {
    return {ErrorKind::BackendFailure, std::string(op) + ": " + e.what()};
  } catch (...) {
    return {ErrorKind::BackendFailure, std::string(op) + ": an unknown exception"};
  }
}

void agree(const Comm& comm, const char* op, std::span<const Claim> claims,
           const std::optional<LocalFailure>& failure) {
  const int size = comm.size(), rank = comm.rank();
  std::vector<std::uint64_t> v(1 + 2 * claims.size());
  v[0] = failure ? static_cast<std::uint64_t>(size - rank) : 0;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    v[1 + 2 * i] = claims[i].hash;
    v[2 + 2 * i] = ~claims[i].hash;
  }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_MAX,
                          comm.native()),
            op, "MPI_Allreduce");
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (v[1 + 2 * i] == ~v[2 + 2 * i]) continue;
    std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
    check_mpi(
        MPI_Allgather(&claims[i].hash, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm.native()),
        op, "MPI_Allgather");
    int d = 1;
    while (d < size && all[static_cast<std::size_t>(d)] == all[0]) ++d;
    const bool involved = rank == 0 || rank == d;
    const std::string mine = involved ? claims[i].describe() : std::string();
    const std::string first = broadcast_string(comm, mine, 0, op);
    const std::string other = broadcast_string(comm, mine, d, op);
    throw Error(claims[i].kind, std::string(op) + ": the ranks disagree on " + claims[i].what +
                                    ": rank " + std::to_string(d) + " has " + other +
                                    " but rank 0 has " + first +
                                    "; expected the same on every rank of the communicator");
  }
  if (v[0] == 0) return;
  const int failed = size - static_cast<int>(v[0]);
  int kind = failure && rank == failed ? static_cast<int>(failure->kind) : 0;
  check_mpi(MPI_Bcast(&kind, 1, MPI_INT, failed, comm.native()), op, "MPI_Bcast");
  const std::string message =
      broadcast_string(comm, rank == failed ? failure->message : std::string(), failed, op);
  throw Error(static_cast<ErrorKind>(kind), message + " [raised on rank " + std::to_string(failed) +
                                                " of " + std::to_string(size) +
                                                "; every rank throws this error]");
}

}  // namespace tenferro::dist::detail
