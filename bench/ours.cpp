// tenferro variants of the cases. One forward function per Op; every variant is derived from it:
//
//   eager                 BackendGuard on the run's backend, ops outside any scope
//   eager_scope           the same calls inside ONE backend.with_execution_scope (entered, warmed
//                         up and left outside the clock; all samples run inside it)
//   session               the same calls inside ONE backend.with_session (ops on this thread run
//                         in the session's admission)
//   trace_prepared        trace(forward) (grad(...) of it for gradient cases), Runtime::prepare
//                         outside the clock, Runtime::run inside it
//   trace_prepared_scope  the same runs inside ONE with_execution_scope of the runtime's backend
//
// A variant whose API is not in this build is emitted as "unsupported" with the reason -- never
// approximated by another variant.
#include "ours.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <tenferro/tenferro.hpp>
#include <vector>

// What the tenferro side of this build can do. Each switch turns on when the API lands in main.
#define TF_BENCH_HAVE_RUNTIME 1  // CpuBackend::executor_entries, with_execution_scope, with_session
#define TF_BENCH_HAVE_MATMUL 1   // matmul / bmm (ops-contract)
#define TF_BENCH_HAVE_EINSUM 1   // einsum (einsum.hpp)
#define TF_BENCH_HAVE_ELEMENTWISE 1  // add, mul (ops-elementwise)
#define TF_BENCH_HAVE_REDUCE 1       // sum (ops-reduce)
#define TF_BENCH_HAVE_GRAD 1         // eager reverse-mode grad (autodiff)
#define TF_BENCH_HAVE_TRACE 1        // trace, grad(Program), Runtime::prepare/run (trace)
#define TF_BENCH_HAVE_LINALG 1       // svd, qr, eigh, cholesky, solve, ... (ops/linalg.hpp)

#if TF_BENCH_HAVE_LINALG
#include <tenferro/ops/linalg.hpp>
#endif

namespace bench::ours {
namespace {

using tenferro::Tensor;

// Input `index` of `c`, from the values the libtorch twin uses too.
Tensor make_input(const CaseSpec& c, std::size_t index) {
  const auto values = case_input_values(c, index);
  const Shape& shape = c.inputs[index];
  tenferro::Dims dims(shape.begin(), shape.end());
  if (c.dtype == Dt::f32) {
    return tenferro::from_vector(std::vector<float>(values.begin(), values.end()), dims);
  }
  return tenferro::from_vector(values, dims);
}

// Why `op` cannot run in this build, or "" when it can.
std::string op_missing(Op op) {
  switch (op) {
    case Op::matmul:
    case Op::chain10_matmul:
      return TF_BENCH_HAVE_MATMUL ? "" : "matmul/bmm not in this build";
    case Op::sum_matmul:
      return TF_BENCH_HAVE_MATMUL && TF_BENCH_HAVE_REDUCE ? "" : "bmm or sum not in this build";
    case Op::sum_sq:
      return TF_BENCH_HAVE_ELEMENTWISE && TF_BENCH_HAVE_REDUCE ? ""
                                                               : "mul or sum not in this build";
    case Op::add:
      return TF_BENCH_HAVE_ELEMENTWISE ? "" : "add not in this build";
    case Op::sum:
      return TF_BENCH_HAVE_REDUCE ? "" : "sum not in this build";
    case Op::einsum:
      return TF_BENCH_HAVE_EINSUM ? "" : "einsum not in this build";
    case Op::svd:
    case Op::qr:
    case Op::eigh:
    case Op::cholesky:
    case Op::solve:
      return TF_BENCH_HAVE_LINALG ? "" : "linalg not in this build";
    case Op::sum_svdvals:
    case Op::sum_solve:
    case Op::sum_eigvalsh:
      return TF_BENCH_HAVE_LINALG && TF_BENCH_HAVE_REDUCE ? "" : "linalg or sum not in this build";
  }
  return "unknown op";
}

// The forward result of a case whose op returns one tensor (the only place, with forward_all,
// where our ops are named). `in` are the inputs.
[[maybe_unused]] Tensor forward(const CaseSpec& c, const Tensor* in) {
  switch (c.op) {
#if TF_BENCH_HAVE_MATMUL
    case Op::matmul:
      return tenferro::matmul(in[0], in[1]);
    case Op::chain10_matmul: {
      Tensor x = tenferro::matmul(in[0], in[1]);
      for (int i = 1; i < 10; ++i) x = tenferro::matmul(x, in[1]);
      return x;
    }
#endif
#if TF_BENCH_HAVE_MATMUL && TF_BENCH_HAVE_REDUCE
    case Op::sum_matmul:
      return tenferro::sum(tenferro::matmul(in[0], in[1]));
#endif
#if TF_BENCH_HAVE_ELEMENTWISE && TF_BENCH_HAVE_REDUCE
    case Op::sum_sq:
      return tenferro::sum(in[0] * in[0]);
#endif
#if TF_BENCH_HAVE_ELEMENTWISE
    case Op::add:
      return in[0] + in[1];
#endif
#if TF_BENCH_HAVE_REDUCE
    case Op::sum:
      return tenferro::sum(in[0]);
#endif
#if TF_BENCH_HAVE_EINSUM
    case Op::einsum:
      return tenferro::einsum(c.subscripts, std::span<const Tensor>(in, c.inputs.size()));
#endif
#if TF_BENCH_HAVE_LINALG
    case Op::cholesky:
      return tenferro::cholesky(in[0]);
    case Op::solve:
      return tenferro::solve(in[0], in[1]);
#endif
#if TF_BENCH_HAVE_LINALG && TF_BENCH_HAVE_REDUCE
    case Op::sum_svdvals:
      return tenferro::sum(tenferro::svdvals(in[0]));
    case Op::sum_solve:
      return tenferro::sum(tenferro::solve(in[0], in[1]));
    case Op::sum_eigvalsh:
      return tenferro::sum(tenferro::eigvalsh(in[0]));
#endif
    default:
      break;
  }
  throw tenferro::Error(tenferro::ErrorKind::Unsupported, "bench: op not in this build");
}

// Every output of a multi_output op, in its order, all kept by the caller (a workload slot, a
// traced program's outputs): a call's outputs are allocated in the clock and released outside
// it, and a traced program cannot drop one as dead code. Inline storage: no heap allocation that
// the libtorch twin's std::array does not make either.
using Outputs = tenferro::SmallVector<Tensor, 3>;
[[maybe_unused]] Outputs forward_all(const CaseSpec& c, const Tensor* in) {
  switch (c.op) {
#if TF_BENCH_HAVE_LINALG
    case Op::svd: {
      tenferro::SvdResult r = tenferro::svd(in[0]);
      return Outputs{std::move(r.U), std::move(r.S), std::move(r.Vh)};
    }
    case Op::qr: {
      tenferro::QrResult r = tenferro::qr(in[0]);
      return Outputs{std::move(r.Q), std::move(r.R)};
    }
    case Op::eigh: {
      tenferro::EighResult r = tenferro::eigh(in[0]);
      return Outputs{std::move(r.eigenvalues), std::move(r.eigenvectors)};
    }
#endif
    default:
      break;
  }
  throw tenferro::Error(tenferro::ErrorKind::Unsupported, "bench: op not in this build");
}

struct Context {
  const CaseSpec& c;
  int threads;
  const TimingPolicy& policy;
  const std::function<void(const Row&)>& emit;
  const std::vector<double>& reference;
  std::vector<Tensor> inputs;
};

Row base_row(const Context& ctx, std::string_view variant) {
  Row r;
  r.case_name = ctx.c.name;
  r.variant = std::string(variant);
  r.threads = ctx.threads;
  r.unit = ctx.c.unit;
  return r;
}

void emit_unsupported(const Context& ctx, std::string_view variant, const std::string& why) {
  Row r = base_row(ctx, variant);
  r.status = "unsupported";
  r.note = why;
  ctx.emit(r);
}

// Compares a variant's result with the libtorch twin's (when there is one; both canonicalized).
void check(const Context& ctx, std::vector<double> ours, Row& r) {
  const auto& ref = ctx.reference;
  if (ref.empty()) return;
  canonicalize_result(ctx.c, ours);
  if (ours.size() != ref.size()) {
    r.check = "mismatch";
    r.note = "result has " + std::to_string(ours.size()) + " values, libtorch " +
             std::to_string(ref.size());
    return;
  }
  double scale = 1, err = 0;
  for (double v : ref) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < ref.size(); ++i) err = std::max(err, std::abs(ours[i] - ref[i]));
  const double tol = ctx.c.dtype == Dt::f32 ? 1e-4 : 1e-10;
  r.check = err <= tol * scale ? "ok" : "mismatch";
  if (r.check == "mismatch") {
    char buf[96];
    std::snprintf(buf, sizeof buf, "differs from libtorch: max |diff| %.3g (scale %.3g)", err,
                  scale);
    r.note = buf;
  }
}

// Fills the timing fields of `r` from a measurement.
void fill(Row& r, const Measurement& m) {
  r.median_ns = m.median_ns;
  r.iqr_ns = m.iqr_ns;
  r.min_ns = m.min_ns;
  r.repeats = m.repeats;
  r.batch = m.batch;
}

// Runs `body` (which measures and fills the row) and emits the row; exceptions become "error".
template <class Body>
void run_variant(const Context& ctx, std::string_view variant, Body&& body) {
  Row r = base_row(ctx, variant);
  try {
    body(r);
  } catch (const tenferro::Error& e) {
    r.status = e.kind() == tenferro::ErrorKind::Unsupported ? "unsupported" : "error";
    r.note = e.what();
  } catch (const std::exception& e) {
    r.status = "error";
    r.note = e.what();
  }
  ctx.emit(r);
}

std::vector<double> flatten(const Tensor& t) {
  if (t.dtype() == tenferro::DType::f32) {
    auto v = t.to_vector<float>();
    return std::vector<double>(v.begin(), v.end());
  }
  return t.to_vector<double>();
}
std::vector<double> flatten(std::span<const Tensor> ts) {
  std::vector<double> out;
  for (const auto& t : ts) {
    auto v = flatten(t);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

// A variant ready to time, and the result of one untimed call of it (checked against libtorch).
struct Prepared {
  std::unique_ptr<Workload> workload;
  std::vector<double> result;
};
template <class F>
Prepared prepared(F op) {
  std::vector<double> result = flatten(op());
  return Prepared{make_workload(std::move(op)), std::move(result)};
}

// The op (or its gradient) as an eager call on the current backend.
Prepared eager_workload(const Context& ctx) {
  const CaseSpec* c = &ctx.c;
  const Tensor* in = ctx.inputs.data();
  if (ctx.c.grad) {
#if TF_BENCH_HAVE_GRAD
    const std::span<const Tensor> args(ctx.inputs);
    return prepared([c, args] {
      return tenferro::grad([c](std::span<const Tensor> x) { return forward(*c, x.data()); }, args);
    });
#else
    throw tenferro::Error(tenferro::ErrorKind::Unsupported, "bench: grad not in this build");
#endif
  }
  if (multi_output(c->op)) return prepared([c, in] { return forward_all(*c, in); });
  return prepared([c, in] { return forward(*c, in); });
}

// The op traced once (grad-transformed for gradient cases) and prepared on a runtime over
// `backend`, outside the clock; a call is Runtime::run.
Prepared traced_workload([[maybe_unused]] const Context& ctx,
                         [[maybe_unused]] const tenferro::CpuBackend& backend) {
#if TF_BENCH_HAVE_TRACE
  std::vector<tenferro::ValueSpec> specs;
  for (const Tensor& t : ctx.inputs) specs.push_back(tenferro::ValueSpec{t.shape(), t.dtype()});
  const CaseSpec* c = &ctx.c;
  const std::span<const tenferro::ValueSpec> in_specs(specs);
  tenferro::Program p =
      multi_output(c->op)
          ? tenferro::trace([c](std::span<const Tensor> x) { return forward_all(*c, x.data()); },
                            in_specs)
          : tenferro::trace([c](std::span<const Tensor> x) { return forward(*c, x.data()); },
                            in_specs);
  if (ctx.c.grad) p = tenferro::grad(p);
  struct Traced {
    tenferro::Runtime rt;
    tenferro::PreparedProgram plan;
    std::span<const Tensor> args;
    std::vector<Tensor> operator()() const { return rt.run(plan, args); }
  };
  tenferro::Runtime rt(backend);
  tenferro::PreparedProgram plan = rt.prepare(p);
  return prepared(Traced{rt, plan, std::span<const Tensor>(ctx.inputs)});
#else
  throw tenferro::Error(tenferro::ErrorKind::Unsupported, "bench: trace not in this build");
#endif
}

// eager_scope / trace_prepared_scope: warm-up, calibration and every sample inside ONE
// with_execution_scope; its entries are counted from just before entry until it has ended.
// session: the same inside ONE with_session; entries counted during the timed batches.
template <class Entries>
void run_in_context([[maybe_unused]] const Context& ctx,
                    [[maybe_unused]] const tenferro::CpuBackend& backend, std::string_view v,
                    [[maybe_unused]] Workload& w, [[maybe_unused]] Measurement& m,
                    [[maybe_unused]] Row& r, [[maybe_unused]] Entries& entries) {
#if TF_BENCH_HAVE_RUNTIME
  if (v == "session") {
    m = backend.with_session([&](tenferro::Session&) { return measure(w, ctx.policy, entries); });
    r.executor_entries = m.counter;
    return;
  }
  const std::int64_t e0 = entries();
  m = backend.with_execution_scope([&] { return measure(w, ctx.policy); });
  r.executor_entries = entries() - e0;
#else
  throw tenferro::Error(tenferro::ErrorKind::Unsupported,
                        "bench: " + std::string(v) + " needs the CPU runtime");
#endif
}

}  // namespace

std::string describe_build() {
  std::string s = "runtime=" + std::to_string(TF_BENCH_HAVE_RUNTIME) +
                  " matmul=" + std::to_string(TF_BENCH_HAVE_MATMUL) +
                  " einsum=" + std::to_string(TF_BENCH_HAVE_EINSUM) +
                  " elementwise=" + std::to_string(TF_BENCH_HAVE_ELEMENTWISE) +
                  " reduce=" + std::to_string(TF_BENCH_HAVE_REDUCE) +
                  " grad=" + std::to_string(TF_BENCH_HAVE_GRAD) +
                  " trace=" + std::to_string(TF_BENCH_HAVE_TRACE) +
                  " linalg=" + std::to_string(TF_BENCH_HAVE_LINALG);
  return s;
}

void run_case(const CaseSpec& c, int threads, const TimingPolicy& policy,
              const std::vector<double>& reference,
              const std::function<bool(std::string_view)>& want,
              const std::function<void(const Row&)>& emit) {
  Context ctx{c, threads, policy, emit, reference, {}};
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    ctx.inputs.push_back(make_input(c, i));
  }
  std::string eager_missing = op_missing(c.op);
  if (eager_missing.empty() && c.grad && !TF_BENCH_HAVE_GRAD) {
    eager_missing = "eager grad (autodiff) not in this build";
  }
  std::string trace_missing = op_missing(c.op);
  if (trace_missing.empty() && !TF_BENCH_HAVE_TRACE)
    trace_missing = "trace/Runtime not in this build";
  const std::string runtime_missing =
      TF_BENCH_HAVE_RUNTIME ? ""
                            : "CPU runtime (scopes, sessions, executor_entries) not in this build";

  // One backend per case and thread count: every variant of the case runs on it.
  tenferro::CpuBackendOptions options;
  options.threads = threads;
  tenferro::CpuBackend backend(options);
  [[maybe_unused]] auto entries = [&]() -> std::int64_t {
#if TF_BENCH_HAVE_RUNTIME
    return static_cast<std::int64_t>(backend.executor_entries());
#else
    return -1;
#endif
  };

  for (std::string_view v :
       {"eager", "eager_scope", "session", "trace_prepared", "trace_prepared_scope"}) {
    if (!want(v)) continue;
    const bool traced = v.starts_with("trace");
    const std::string& missing = traced ? trace_missing : eager_missing;
    if (!missing.empty()) {
      emit_unsupported(ctx, v, missing);
      continue;
    }
    if (v != "eager" && !runtime_missing.empty()) {
      emit_unsupported(ctx, v, runtime_missing);
      continue;
    }
    run_variant(ctx, v, [&](Row& r) {
      tenferro::BackendGuard use(backend);
      Prepared p = traced ? traced_workload(ctx, backend) : eager_workload(ctx);
      check(ctx, p.result, r);
      Workload* w = p.workload.get();
      Measurement m;
      if (v == "eager") {
        std::function<std::int64_t()> counter;
        if (TF_BENCH_HAVE_RUNTIME) counter = entries;
        m = measure(*w, ctx.policy, counter);
        r.executor_entries = TF_BENCH_HAVE_RUNTIME ? m.counter : -1;
        if (!TF_BENCH_HAVE_RUNTIME) r.note = "executor entries not counted (runtime stand-in)";
      } else {
        run_in_context(ctx, backend, v, *w, m, r, entries);
      }
      fill(r, m);
    });
  }
}

}  // namespace bench::ours
