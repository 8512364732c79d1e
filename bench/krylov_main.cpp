// tenferro-krylov: the Krylov solvers against the dense factorisations they replace, in one run
// (docs/benchmarks.md, "Krylov solvers"): top-k singular triplets of an n x n matrix by svds
// (randomised and Golub-Kahan-Lanczos) and by svd_truncated (which takes the svds path) against
// the full svd, and the ground state of a dense symmetric map by eigsh (Lanczos, Davidson)
// against eigh. libtorch has no C++ twin of either (torch.svd_lowrank and torch.lobpcg are
// Python code), so the rows compare our own two ways of getting the same numbers.
//
//   build/release/bench/tenferro-krylov [--threads T] [--svd-n N] [--k K] [--eig-n N]
//
// Medians of calibrated batches (bench/harness.hpp), IQR in brackets; every row also prints the
// largest difference of its values from the dense reference.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"
#include "machine.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/tenferro.hpp"

namespace {

using tenferro::Tensor;

// U diag(s) V^T with s_i = decay^i: the leading values separate (a TRG-like spectrum).
Tensor decaying(std::int64_t n, double decay) {
  tenferro::NoGradGuard ng;
  const Tensor u = tenferro::qr(tenferro::randn({n, n}, 1)).Q;
  const Tensor v = tenferro::qr(tenferro::randn({n, n}, 2)).Q;
  std::vector<double> s(n);
  for (std::int64_t i = 0; i < n; ++i) s[i] = std::pow(decay, double(i));
  return tenferro::matmul(u * tenferro::from_vector<double>(s, {n}).unsqueeze(0), v.transpose())
      .contiguous();
}

double max_diff(const Tensor& a, const Tensor& b) {
  return tenferro::max(tenferro::abs(a - b)).item<double>();
}

template <class F>
void row(const char* name, double ref_ns, F op, double diff, int samples) {
  bench::TimingPolicy p;
  p.samples = samples;
  p.warmup_calls = 1;
  auto w = bench::make_workload(std::move(op));
  const bench::Measurement m = bench::measure(*w, p);
  std::printf("%-34s %12.3f ms  [IQR %8.3f]  %8.2fx  max|diff| %.1e\n", name, m.median_ns / 1e6,
              m.iqr_ns / 1e6, ref_ns > 0 ? ref_ns / m.median_ns : 1.0, diff);
}

double time_ref(const char* name, const std::function<Tensor()>& op, int samples) {
  bench::TimingPolicy p;
  p.samples = samples;
  p.warmup_calls = 1;
  auto w = bench::make_workload(op);
  const bench::Measurement m = bench::measure(*w, p);
  std::printf("%-34s %12.3f ms  [IQR %8.3f]  %8s\n", name, m.median_ns / 1e6, m.iqr_ns / 1e6,
              "1.00x");
  return m.median_ns;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tenferro-krylov: Krylov solvers against dense factorisations"};
  int threads = 1;
  std::int64_t svd_n = 1024, k = 32, eig_n = 4096;
  int samples = 7;
  app.add_option("--threads", threads, "backend threads (and OpenBLAS threads)");
  app.add_option("--svd-n", svd_n, "order of the svd matrix");
  app.add_option("--k", k, "singular triplets kept");
  app.add_option("--eig-n", eig_n, "order of the eigh matrix");
  app.add_option("--samples", samples, "timed samples per row");
  CLI11_PARSE(app, argc, argv);

  bench::set_openblas_threads(threads);
  tenferro::CpuBackend cpu(tenferro::CpuBackendOptions{.threads = threads});
  tenferro::BackendGuard use(cpu);
  std::printf("tenferro-krylov, %s, %d thread(s)%s\n\n", bench::utc_now().c_str(), threads,
              threads > 2 ? " (oversubscribed on 2 cores)" : "");

  for (const double decay : {0.9, 0.99}) {
    const Tensor a = decaying(svd_n, decay);
    const Tensor want = tenferro::svdvals(a).slice(0, 0, k);
    std::printf("top %lld of a %lld x %lld matrix, s_i = %.2f^i\n", static_cast<long long>(k),
                static_cast<long long>(svd_n), static_cast<long long>(svd_n), decay);
    const double ref = time_ref(
        "svd (full, thin)", [&] { return tenferro::svd(a).S; }, samples);
    tenferro::SvdsOptions aut, rnd, lan;
    rnd.method = tenferro::SvdsMethod::randomized;
    lan.method = tenferro::SvdsMethod::lanczos;
    row(
        "svds automatic", ref, [&] { return tenferro::svds(a, k, aut).S; },
        max_diff(tenferro::svds(a, k, aut).S, want), samples);
    row(
        "svds randomized", ref, [&] { return tenferro::svds(a, k, rnd).S; },
        max_diff(tenferro::svds(a, k, rnd).S, want), samples);
    row(
        "svds lanczos (GKL)", ref, [&] { return tenferro::svds(a, k, lan).S; },
        max_diff(tenferro::svds(a, k, lan).S, want), samples);
    row(
        "svd_truncated (auto svds)", ref, [&] { return tenferro::svd_truncated(a, k).S; },
        max_diff(tenferro::svd_truncated(a, k).S, want), samples);
    std::printf("\n");
  }

  {
    tenferro::NoGradGuard ng;
    const Tensor g = tenferro::randn({eig_n, eig_n}, 3);
    const Tensor h = ((g + g.transpose()) * 0.5).contiguous();
    auto map = [&h](std::span<const Tensor> x) { return tenferro::matmul(h, x[0]); };
    const Tensor x0 = tenferro::randn({eig_n}, 4);
    const double w0 = tenferro::eigvalsh(h).slice(0, 0, 1).item<double>();
    std::printf("ground state of a %lld x %lld dense symmetric map (random, GOE)\n",
                static_cast<long long>(eig_n), static_cast<long long>(eig_n));
    const double ref = time_ref(
        "eigh (all pairs)", [&] { return tenferro::eigh(h).eigenvalues; }, std::min(samples, 3));
    tenferro::EigshOptions dav;
    dav.method = tenferro::EigshMethod::davidson;
    auto lowest = [&](const tenferro::EigshOptions& o) {
      return tenferro::eigsh(map, x0, 1, o).eigenvalues;
    };
    row(
        "eigsh lanczos, k = 1", ref, [&] { return lowest({}); },
        std::abs(lowest({}).item<double>() - w0), samples);
    row(
        "eigsh davidson, k = 1", ref, [&] { return lowest(dav); },
        std::abs(lowest(dav).item<double>() - w0), samples);
    row(
        "eigsh lanczos in one scope", ref,
        [&] { return cpu.with_execution_scope([&] { return lowest({}); }); },
        std::abs(lowest({}).item<double>() - w0), samples);
  }
  return 0;
}
