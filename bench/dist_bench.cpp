// tenferro-dist-bench: a sliced contraction over MPI ranks, against the unsliced einsum
// (docs/benchmarks.md, "Sliced contractions over MPI"). Run under mpiexec, one configuration per
// process (peak memory is a per-process high-water mark); scripts/bench-dist runs the table.
//
//   mpiexec -n 2 build/release/bench/tenferro-dist-bench --mode sliced --threads 1
//
// Every rank: operands from fixed seeds, a backend of --threads threads, a warm-up call, then
// --repeats timed calls (a barrier before each; the time is the slowest rank's). Rank 0 prints
// one JSON line: the medians, the plan (slices, per-slice peak, overhead) and every rank's peak
// resident memory (getrusage ru_maxrss), the operand bytes and how the result compares with the
// unsliced einsum computed once, outside the clock, on rank 0.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "machine.hpp"
#include "tenferro/dist.hpp"
#include "tenferro/tenferro.hpp"

namespace {

using namespace tenferro;
using Clock = std::chrono::steady_clock;

// The benchmark network: a ring of 8 order-3 tensors with chords (tests/common/networks.hpp's
// ring8), bond dimension d. Its largest intermediate carries six bonds: d^6 elements.
const char* kSpec = "abi,bcj,cdk,del,efi,fgj,ghk,hal->";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;  // KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  dist::Environment mpi(argc, argv);
  CLI::App app{"tenferro-dist-bench: sliced contraction over MPI ranks vs unsliced einsum"};
  std::string mode = "sliced";
  int threads = 1, repeats = 5;
  std::int64_t d = 12;
  double limit_fraction = 8;
  app.add_option("--mode", mode, "einsum (unsliced, rank 0 only), sliced, or grad")
      ->check(CLI::IsMember({"einsum", "sliced", "grad"}));
  app.add_option("--threads", threads, "threads of each rank's backend")
      ->check(CLI::Range(1, 1024));
  app.add_option("--bond", d, "bond dimension of the ring")->check(CLI::Range(2, 64));
  app.add_option("--limit-fraction", limit_fraction,
                 "memory limit = unsliced peak / this (the issue's case: 8)")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats, "timed calls")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);

  const dist::Comm comm;
  CpuBackendOptions backend_options;
  backend_options.threads = threads;
  const CpuBackend cpu(backend_options);
  BackendGuard use(cpu);
  const std::vector<Dims> shapes(8, Dims{d, d, d});
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < shapes.size(); ++k)
    ops.push_back(mul(randn(shapes[k], 100 + k), 1.0 / static_cast<double>(d)));
  const double unsliced_peak = slice_plan(kSpec, shapes).unsliced_peak;
  SliceOptions options;
  options.memory_limit = std::floor(unsliced_peak / limit_fraction);
  const SlicePlan plan = slice_plan(kSpec, shapes, options);

  auto once = [&]() -> Tensor {
    if (mode == "einsum") return comm.rank() == 0 ? einsum(kSpec, ops) : Tensor();
    if (mode == "sliced") return dist::sliced_einsum(comm, kSpec, ops, options);
    return dist::sliced_value_and_grad(comm, kSpec, ops, {}, options).value;
  };
  Tensor result = once();  // warm-up
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    comm.barrier();
    const auto t0 = Clock::now();
    result = once();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, comm.native());
    seconds.push_back(s);
  }
  long rss = peak_rss_kib();
  std::vector<long> rss_all(static_cast<std::size_t>(comm.size()));
  MPI_Gather(&rss, 1, MPI_LONG, rss_all.data(), 1, MPI_LONG, 0, comm.native());
  if (comm.rank() != 0) return 0;

  const double reference = einsum(kSpec, ops).item<double>();
  const double value = result.item<double>();
  std::size_t operand_bytes = 0;
  for (const Tensor& t : ops) operand_bytes += static_cast<std::size_t>(t.numel()) * 8;
  nlohmann::ordered_json j;
  j["case"] = "ring8 " + std::string(kSpec) + " d=" + std::to_string(d) + " f64";
  j["mode"] = mode;
  j["ranks"] = comm.size();
  j["threads_per_rank"] = threads;
  j["oversubscribed"] = comm.size() * threads > static_cast<int>(bench::allowed_cpus().size());
  j["median_s"] = median(seconds);
  j["min_s"] = *std::min_element(seconds.begin(), seconds.end());
  j["repeats"] = repeats;
  j["unsliced_peak_elements"] = unsliced_peak;
  j["memory_limit_elements"] = mode == "einsum" ? 0.0 : options.memory_limit;
  j["slices"] = mode == "einsum" ? 1 : plan.slices;
  j["slices_per_rank_max"] = mode == "einsum" ? 1 : dist::owned_slices(plan, 0, comm.size()).second;
  j["peak_per_slice_elements"] = mode == "einsum" ? unsliced_peak : plan.peak;
  j["flop_overhead"] = mode == "einsum" ? 1.0 : plan.overhead();
  j["sliced"] = plan.to_string();
  j["peak_rss_mib_per_rank"] = std::vector<double>();
  for (long k : rss_all) j["peak_rss_mib_per_rank"].push_back(static_cast<double>(k) / 1024.0);
  j["operands_mib"] = static_cast<double>(operand_bytes) / (1 << 20);
  j["value"] = value;
  j["relative_difference_to_einsum"] = std::abs(value - reference) / std::abs(reference);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  j["openblas_coretype"] = coretype ? coretype : "";
  j["date"] = bench::utc_now();
  std::printf("%s\n", j.dump().c_str());
  return 0;
}
