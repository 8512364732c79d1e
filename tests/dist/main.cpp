// The dist suite's main: MPI's lifetime around GoogleTest. Every rank runs every test in the same
// order (each test is collective). Rank 0 prints GoogleTest's usual report; the other ranks print
// only their failures, prefixed with their rank. The exit status is the same on every rank: 1 if
// any rank had a failure.
//
// Under ASan, LeakSanitizer ignores what MPI_Init allocates (Open MPI loads plugins, keeps what
// it needs and unloads the rest, whose leftovers could only be reported as "<unknown module>"),
// and the leak check runs here, before MPI_Finalize, while Open MPI's own state is reachable and
// its plugins are loaded (what it still leaks is attributed to its libraries: tests/dist/
// lsan.supp). The check at exit is then skipped. Everything the tests allocate is checked.
#include <gtest/gtest.h>

#include <cstdio>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "tenferro/dist.hpp"

namespace {

class FailuresOnly : public ::testing::EmptyTestEventListener {
 public:
  explicit FailuresOnly(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_disable();
#endif
  tenferro::dist::Environment mpi(argc, argv);
#if defined(__SANITIZE_ADDRESS__)
  __lsan_enable();
#endif
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();
#endif
  return failed;
}
