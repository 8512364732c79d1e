// Helpers of the dist suite: the world communicator, and checks that every rank saw the same.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/expect_error.hpp"
#include "common/watchdog.hpp"
#include "tenferro/dist.hpp"
#include "tenferro/tenferro.hpp"

namespace tenferro::testing {

/// A duplicate of MPI_COMM_WORLD shared by the tests (made after main's Environment).
inline const dist::Comm& world() {
  static const dist::Comm comm;
  return comm;
}

inline std::uint64_t fnv(const void* data, std::size_t n) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<const unsigned char*>(data)[i];
    h *= 1099511628211ull;
  }
  return h;
}

/// True on every rank when `h` is the same on every rank (one MPI_Allgather on the world).
inline bool same_on_every_rank(std::uint64_t h) {
  std::vector<std::uint64_t> all(static_cast<std::size_t>(world().size()));
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, world().native());
  for (std::uint64_t x : all)
    if (x != all[0]) return false;
  return true;
}

/// The tensor's shape, dtype and bytes are identical on every rank.
inline bool bitwise_same_on_every_rank(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::uint64_t h = fnv(c.data_ptr(), static_cast<std::size_t>(c.numel()) * dtype_size(c.dtype()));
  h ^= fnv(c.shape().data(), c.shape().size() * sizeof(std::int64_t)) * 31 +
       static_cast<std::uint64_t>(c.dtype());
  return same_on_every_rank(h);
}

/// f() throws the same tenferro::Error (kind and message) on every rank, each message holding
/// every needle, and nothing hangs (a watchdog ends the process after 60 s).
template <class F>
void expect_same_error_everywhere(ErrorKind kind, F&& f, std::initializer_list<const char*> needles,
                                  const char* scenario) {
  Watchdog dog(scenario);
  std::string message = "(nothing thrown)";
  try {
    f();
    ADD_FAILURE() << scenario << ": expected an Error of kind " << to_string(kind);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << scenario << ": " << e.what();
    message = e.what();
    for (const char* n : needles)
      EXPECT_NE(message.find(n), std::string::npos)
          << scenario << ": missing '" << n << "' in " << message;
  }
  EXPECT_TRUE(same_on_every_rank(fnv(message.data(), message.size())))
      << scenario << ": the ranks threw different errors; this rank: " << message;
}

}  // namespace tenferro::testing
