// tenferro-symmetric: block-sparse (U(1)) contractions against the same contractions on dense
// tensors, and a traced block program against eager block operations (docs/benchmarks.md,
// "Symmetric tensors").
//
//   build/release/bench/tenferro-symmetric [--threads T] [--sectors 10,30,100] [--samples N]
//                                          [--max-case-s S] [--tiny-sectors N]
//
// (a) DMRG-shaped contractions on U(1) legs with n sectors of charges -n/2 .. n/2 - 1 and
//     dimensions 4..8 (cycling), so a bond of n sectors has dense dimension D ~ 6n:
//       L.A  env[b(out), w(in), k(in)] . A[k(out), s(out), r(in)] over k    (rank 3 x rank 3)
//       L.th env[b, w, k] . theta[k(out), s1(out), s2(out), r(in)] over k   (rank 3 x rank 4)
//     with an MPO leg w {0: 3, +2: 1, -2: 1} and a spin-1/2 leg s {+1: 1, -1: 1}. Each row times
//     the dense contraction (tenferro::tensordot on to_dense() copies made outside the clock),
//     the block-sparse one as plain eager ops, and the block-sparse one inside one
//     CpuBackend::with_execution_scope per call, and reports the executor entries per call
//     (eager: one per op that enters the backend; in a scope: 1 for everything), the multiply-adds
//     (symmetric::tensordot_cost against the dense count) and the largest difference from the
//     dense result.
// (b) A traced program over BlockTensors: the left-environment update of DMRG (three tensordots
//     and a permute, L' = L A W conj(A)) on legs of many tiny sectors (dims 1..2), eager, eager in
//     one scope, BlockProgram::run (the plan looked up in the runtime's cache each call) and a plan
//     prepared once (Runtime::run on flatten_inputs, then unflatten_outputs). A prepared run is
//     one admission for all blocks.
//
// Medians of calibrated batches (bench/harness.hpp), IQR in brackets. No assertion on times.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "harness.hpp"
#include "machine.hpp"
#include "tenferro/symmetric.hpp"
#include "tenferro/tenferro.hpp"

namespace {

using tenferro::Dims;
using tenferro::Tensor;
namespace sym = tenferro::symmetric;
using sym::BlockTensor;
using sym::Direction;
using sym::Leg;

struct Options {
  int samples = 7;
  double max_case_s = 4.0;
};

// A bond of n U(1) sectors: charges -n/2 .. n/2 - 1, dims lo, lo + 1, ..., hi, lo, ... (cycling).
Leg bond_leg(int n, std::int64_t lo, std::int64_t hi) {
  std::vector<sym::Sector> s;
  for (int i = 0; i < n; ++i) s.push_back({{i - n / 2}, lo + i % (hi - lo + 1)});
  return Leg(sym::Group::u1(), std::move(s));
}
Leg phys_leg() { return Leg(sym::Group::u1(), {{{1}, 1}, {{-1}, 1}}); }
Leg mpo_leg() { return Leg(sym::Group::u1(), {{{0}, 3}, {{2}, 1}, {{-2}, 1}}); }

double dense_cost(const BlockTensor& a, const BlockTensor& b, const Dims& xa, const Dims& xb) {
  double c = 1;
  for (const Leg& l : a.legs()) c *= static_cast<double>(l.dim());
  for (std::size_t i = 0; i < b.rank(); ++i)
    if (std::find(xb.begin(), xb.end(), static_cast<std::int64_t>(i)) == xb.end())
      c *= static_cast<double>(b.leg(i).dim());
  (void)xa;
  return c;
}

double max_diff(const Tensor& a, const Tensor& b) {
  tenferro::NoGradGuard ng;
  return tenferro::max(tenferro::abs(a - b)).item<double>();
}

struct Timed {
  double median_ns = 0, iqr_ns = 0;
  double entries_per_call = 0;
};

template <class F>
Timed time_op(const tenferro::CpuBackend& cpu, const Options& o, F op) {
  bench::TimingPolicy p;
  p.samples = o.samples;
  p.warmup_calls = 1;
  p.max_case_ns = o.max_case_s * 1e9;
  auto w = bench::make_workload(std::move(op));
  const bench::Measurement m =
      bench::measure(*w, p, [&cpu] { return static_cast<std::int64_t>(cpu.executor_entries()); });
  return {m.median_ns, m.iqr_ns,
          static_cast<double>(m.counter) /
              static_cast<double>(std::max<std::int64_t>(1, m.timed_calls))};
}

std::string ms(const Timed& t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%9.3f [%7.3f]", t.median_ns / 1e6, t.iqr_ns / 1e6);
  return buf;
}

void contraction_row(const char* name, int n, const tenferro::CpuBackend& cpu, const Options& o,
                     const BlockTensor& a, const BlockTensor& b, const Dims& xa, const Dims& xb) {
  const Tensor da = a.to_dense().contiguous();
  const Tensor db = b.to_dense().contiguous();
  const double sparse_flops = sym::tensordot_cost(a, b, xa, xb);
  const double full_flops = dense_cost(a, b, xa, xb);
  const double diff =
      max_diff(sym::tensordot(a, b, xa, xb).to_dense(), tenferro::tensordot(da, db, xa, xb));

  const Timed dense = time_op(cpu, o, [&] { return tenferro::tensordot(da, db, xa, xb); });
  const Timed eager = time_op(cpu, o, [&] { return sym::tensordot(a, b, xa, xb); });
  const Timed scope = time_op(cpu, o, [&] {
    return cpu.with_execution_scope([&] { return sym::tensordot(a, b, xa, xb); });
  });
  std::printf(
      "%-5s %4d %5lld %6zu %6zu %10.3e %10.3e %8.1fx | %s | %s %6.0f | %s %3.0f | %7.1fx %7.1fx | "
      "%.1e\n",
      name, n, static_cast<long long>(a.leg(0).dim()), a.blocks().size(), b.blocks().size(),
      sparse_flops, full_flops, full_flops / sparse_flops, ms(dense).c_str(), ms(eager).c_str(),
      eager.entries_per_call, ms(scope).c_str(), scope.entries_per_call,
      dense.median_ns / eager.median_ns, dense.median_ns / scope.median_ns, diff);
  std::fflush(stdout);
}

// ---- (b) the environment update as a traced block program ----

BlockTensor grow_left(const BlockTensor& L, const BlockTensor& A, const BlockTensor& W) {
  BlockTensor x = sym::tensordot(L, A, {2}, {0});       // [b, w, s', k']
  x = sym::tensordot(x, W, {1, 2}, {0, 2});             // [b, k', s, w']
  x = sym::tensordot(x, sym::conj(A), {0, 2}, {0, 1});  // [k', w', b']
  return sym::permute(x, {2, 1, 0});
}

void program_rows(int n, const tenferro::CpuBackend& cpu, const Options& o) {
  const Leg bond = bond_leg(n, 1, 2), phys = phys_leg(), mpo = mpo_leg();
  const BlockTensor A = BlockTensor::randn({bond, phys, bond.dual()}, 11);
  const BlockTensor L = BlockTensor::randn({bond, mpo.dual(), bond.dual()}, 12);
  const BlockTensor W = BlockTensor::randn({mpo, phys, phys.dual(), mpo.dual()}, 13);
  const std::vector<BlockTensor> inputs{L, A, W};

  const auto t0 = std::chrono::steady_clock::now();
  const sym::BlockProgram prog = sym::trace_blocks(
      [](std::span<const BlockTensor> in) {
        return std::vector<BlockTensor>{grow_left(in[0], in[1], in[2])};
      },
      inputs);
  tenferro::Runtime rt(cpu);
  const tenferro::PreparedProgram plan = rt.prepare(prog.program);
  const double setup_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  const BlockTensor want = grow_left(L, A, W);
  const BlockTensor got = prog.run(rt, inputs)[0];
  const double diff = max_diff(got.to_dense(), want.to_dense());
  std::size_t in_blocks = 0;
  for (const BlockTensor& t : inputs) in_blocks += t.allowed_keys().size();
  std::printf(
      "\n(b) environment update L' = L A W conj(A) on %d sectors of dim 1..2 (D = %lld): %zu "
      "input blocks, %zu output blocks, %zu program nodes; trace_blocks + prepare %.1f ms; "
      "max|diff| %.1e\n",
      n, static_cast<long long>(bond.dim()), in_blocks, got.blocks().size(),
      prog.program.nodes.size(), setup_ms, diff);
  std::printf("%-40s %20s %10s %10s\n", "variant", "median ms [IQR]", "entries", "vs eager");

  const Timed eager = time_op(cpu, o, [&] { return grow_left(L, A, W); });
  auto row = [&](const char* name, const Timed& t) {
    std::printf("%-40s %20s %10.1f %9.2fx\n", name, ms(t).c_str(), t.entries_per_call,
                eager.median_ns / t.median_ns);
    std::fflush(stdout);
  };
  row("eager", eager);
  row("eager in one execution scope", time_op(cpu, o, [&] {
        return cpu.with_execution_scope([&] { return grow_left(L, A, W); });
      }));
  row("BlockProgram::run (plan cache lookup)",
      time_op(cpu, o, [&] { return prog.run(rt, inputs); }));
  row("prepared once: flatten, run, unflatten", time_op(cpu, o, [&] {
        const std::vector<Tensor> flat = prog.flatten_inputs(inputs);
        return prog.unflatten_outputs(rt.run(plan, flat));
      }));
  const std::vector<Tensor> flat = prog.flatten_inputs(inputs);
  row("prepared once: Runtime::run on the blocks",
      time_op(cpu, o, [&] { return rt.run(plan, flat); }));
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t comma = s.find(',', pos);
    out.push_back(std::stoi(s.substr(pos, comma - pos)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tenferro-symmetric: block-sparse contractions against dense ones"};
  int threads = 1;
  std::string sectors = "10,30,100";
  int tiny = 30;
  Options o;
  app.add_option("--threads", threads, "backend threads (and OpenBLAS threads)");
  app.add_option("--sectors", sectors, "sectors per bond leg for (a), comma-separated");
  app.add_option("--tiny-sectors", tiny, "sectors per bond leg for (b) (dims 1..2)");
  app.add_option("--samples", o.samples, "timed samples per row");
  app.add_option("--max-case-s", o.max_case_s, "seconds one row may take (fewer samples beyond)");
  CLI11_PARSE(app, argc, argv);

  const bench::MachineState machine = bench::pin_and_probe(threads, 200);
  bench::set_openblas_threads(threads);
  tenferro::CpuBackendOptions backend_options;
  backend_options.threads = threads;
  tenferro::CpuBackend cpu(backend_options);
  tenferro::BackendGuard use(cpu);
  tenferro::NoGradGuard no_grad;
  std::string busy;
  for (double b : machine.busy_pct)
    busy += (busy.empty() ? "" : ", ") + std::to_string(int(b)) + "%";
  std::printf(
      "tenferro-symmetric, %s, %d thread(s), %s, load %.2f %.2f %.2f, busy before: %s%s\n\n",
      bench::utc_now().c_str(), threads, machine.cpu_model.c_str(), machine.loadavg[0],
      machine.loadavg[1], machine.loadavg[2], busy.c_str(),
      machine.idle ? "" : (" (not idle: " + machine.idle_note + ")").c_str());

  std::printf(
      "(a) U(1) contractions: n sectors per bond leg (dims 4..8), D = dense bond dimension; "
      "blocks = stored blocks of each operand; MACs = multiply-adds; ms = median [IQR]; "
      "entries = executor entries per call\n");
  std::printf("%-5s %4s %5s %6s %6s %10s %10s %9s | %20s | %20s %6s | %20s %3s | %8s %8s | %s\n",
              "case", "n", "D", "blk a", "blk b", "block MACs", "dense MACs", "ratio", "dense ms",
              "block eager ms", "entr", "block in scope ms", "ent", "vs eager", "vs scope",
              "max|diff|");
  for (int n : parse_list(sectors)) {
    const Leg bond = bond_leg(n, 4, 8), phys = phys_leg(), mpo = mpo_leg();
    const BlockTensor L = BlockTensor::randn({bond, mpo.dual(), bond.dual()}, 1);
    const BlockTensor A = BlockTensor::randn({bond, phys, bond.dual()}, 2);
    const BlockTensor theta = BlockTensor::randn({bond, phys, phys, bond.dual()}, 3);
    contraction_row("L.A", n, cpu, o, L, A, {2}, {0});
    contraction_row("L.th", n, cpu, o, L, theta, {2}, {0});
  }
  program_rows(tiny, cpu, o);
  return 0;
}
