// TSan wiring self-check (tsan preset only, see cmake/TsanTbb.cmake).
//   tsan_selfcheck clean  -> a race-free parallel_for: must produce no ThreadSanitizer report.
//   tsan_selfcheck race   -> unsynchronized += from a parallel_for body: must be reported.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <cstdio>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
  const bool race = argc > 1 && std::string_view(argv[1]) == "race";
  std::vector<double> v(1 << 16, 1.0);
  long shared = 0;
  std::atomic<long> counted{0};
  tbb::task_arena arena(2);
  for (int rep = 0; rep < 4; ++rep) {
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, v.size(), 256),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t i = r.begin(); i != r.end(); ++i) v[i] *= 1.5;
                          if (race) {
                            shared += static_cast<long>(r.size());
                          } else {
                            counted.fetch_add(static_cast<long>(r.size()));
                          }
                        });
    });
  }
  std::printf("%s: counted=%ld shared=%ld\n", race ? "race" : "clean", counted.load(), shared);
  return 0;
}
