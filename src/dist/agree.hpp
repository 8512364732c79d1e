// Making every rank fail together: the agreement step of tenferro::dist.
//
// Note [Rank agreement]: a collective that one rank skips (because it threw) or calls with other
// counts hangs or corrupts memory on the others. So before data moves, each rank runs its local
// part (validation, planning, a slice's arithmetic) and then *every* rank enters one small
// MPI_Allreduce(MAX) of {failed ? size - rank : 0, h_1, ~h_1, ..., h_n, ~h_n}, where h_i hashes
// one claim (the spec, the shapes, the dtypes, the options, ...). From the result every rank sees
// the same facts: claim i agrees iff max(h_i) == ~max(~h_i) (max equals min), and the lowest
// failing rank is size - max(first). The first claim that disagrees wins (the root cause of a
// local failure is usually that difference): an allgather of its hash finds the first rank d that
// differs from rank 0 and broadcasts d's and rank 0's descriptions, and every rank throws the
// claim's kind with one message naming both. Otherwise, if a rank failed, it broadcasts its
// error kind and message and every rank throws them. So every rank throws the same
// tenferro::Error, or none does. Descriptions are only built on the error path.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tenferro/dist.hpp"
#include "tenferro/error.hpp"

namespace tenferro::dist::detail {

/// FNV-1a over the bytes of what is added.
class Hasher {
 public:
  Hasher& add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    for (char c : s) byte(static_cast<unsigned char>(c));
    return *this;
  }
  Hasher& add(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<unsigned char>(v >> (8 * i)));
    return *this;
  }
  Hasher& add(std::int64_t v) { return add(static_cast<std::uint64_t>(v)); }
  Hasher& add(int v) { return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  Hasher& add(bool v) { return add(static_cast<std::uint64_t>(v)); }
  Hasher& add(double v) {
    if (v == 0) v = 0;  // -0.0 and 0.0 mean the same
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return add(bits);
  }
  std::uint64_t value() const noexcept { return h_; }

 private:
  void byte(unsigned char b) noexcept {
    h_ ^= b;
    h_ *= 1099511628211ull;
  }
  std::uint64_t h_ = 14695981039346656037ull;
};

/// One thing every rank must agree on: its hash, the error kind when ranks differ, what it is
/// ("the operand shapes") and how this rank describes its own (called only on the error path).
struct Claim {
  ErrorKind kind;
  const char* what;
  std::uint64_t hash;
  std::function<std::string()> describe;  // owns the (small) lambda: claims outlive their braces
};

/// What the local part of a call threw, as a tenferro error kind and message.
struct LocalFailure {
  ErrorKind kind = ErrorKind::BackendFailure;
  std::string message;
};

/// The agreement step (Note [Rank agreement]). Collective over comm; throws the same Error on
/// every rank when any claim differs or any rank has a failure.
void agree(const Comm& comm, const char* op, std::span<const Claim> claims,
           const std::optional<LocalFailure>& failure);

/// The current exception as a LocalFailure (tenferro::Error keeps its kind and message;
/// std::bad_alloc is OutOfMemory; anything else is BackendFailure with its what()).
LocalFailure capture_failure(const char* op);

/// Runs `local` on this rank, then agree(): returns on every rank, or every rank throws.
template <class F>
void run_agreed(const Comm& comm, const char* op, std::span<const Claim> claims, F&& local) {
  std::optional<LocalFailure> failure;
  try {
    local();
  } catch (...) {
    failure = capture_failure(op);
  }
  agree(comm, op, claims, failure);
}

/// Local checks every collective and sliced call makes before any MPI call: the communicator is
/// usable (not moved from) and, under MPI_THREAD_FUNNELED, this is MPI's main thread. These
/// cannot be agreed on (agreeing is an MPI call), so they throw on this rank only.
void check_callable(const Comm& comm, const char* op);

/// Whether this thread may call MPI: always at ThreadLevel::serialized or more, else only MPI's
/// main thread (the one that initialised it).
bool on_mpi_thread();

/// Throws Error{BackendFailure} naming `op` and MPI's error string when rc is not MPI_SUCCESS.
void check_mpi(int rc, const char* op, const char* call);

}  // namespace tenferro::dist::detail
