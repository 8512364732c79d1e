// tenferro variants of the cases. One forward function per Op; every variant is derived from it:
//
//   eager                 BackendGuard on the run's backend, ops outside any scope
//   eager_scope           the same calls inside ONE backend.with_execution_scope (entered, warmed
//                         up and left outside the clock; all samples run inside it)
//   session               the same calls inside ONE backend.with_session (ops on this thread run
//                         in the session's admission)
//   trace_prepared        trace(forward) (grad(...) of it for grad cases; a trace of
//                         value_and_grad(forward) for value_and_grad cases), Runtime::prepare
//                         outside the clock, Runtime::run inside it
//   trace_prepared_scope  the same runs inside ONE with_execution_scope of the runtime's backend
//
// A variant that throws Unsupported is emitted as "unsupported" with the reason -- never
// approximated by another variant.
#include "ours.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <tenferro/ops/linalg.hpp>
#include <tenferro/tenferro.hpp>
#include <vector>

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

// The forward result of a case whose op returns one tensor (the only place, with forward_all,
// where our ops are named). `in` are the inputs.
Tensor forward(const CaseSpec& c, const Tensor* in) {
  switch (c.op) {
    case Op::matmul:
      return tenferro::matmul(in[0], in[1]);
    case Op::chain10_matmul: {
      Tensor x = tenferro::matmul(in[0], in[1]);
      for (int i = 1; i < 10; ++i) x = tenferro::matmul(x, in[1]);
      return x;
    }
    case Op::sum_matmul:
      return tenferro::sum(tenferro::matmul(in[0], in[1]));
    case Op::sum_sq:
      return tenferro::sum(in[0] * in[0]);
    case Op::add:
      return in[0] + in[1];
    case Op::mul:
      return in[0] * in[1];
    case Op::exp:
      return tenferro::exp(in[0]);
    case Op::log:
      return tenferro::log(in[0]);
    case Op::sin:
      return tenferro::sin(in[0]);
    case Op::tanh:
      return tenferro::tanh(in[0]);
    case Op::sum:
      return tenferro::sum(in[0]);
    case Op::mean:
      return tenferro::mean(in[0]);
    case Op::einsum:
      return tenferro::einsum(c.subscripts, std::span<const Tensor>(in, c.inputs.size()));
    case Op::cholesky:
      return tenferro::cholesky(in[0]);
    case Op::solve:
      return tenferro::solve(in[0], in[1]);
    case Op::sum_svdvals:
      return tenferro::sum(tenferro::svdvals(in[0]));
    case Op::sum_solve:
      return tenferro::sum(tenferro::solve(in[0], in[1]));
    case Op::sum_eigvalsh:
      return tenferro::sum(tenferro::eigvalsh(in[0]));
    case Op::pinv:
      return tenferro::pinv(in[0]);
    case Op::matrix_exp:
      return tenferro::matrix_exp(in[0]);
    case Op::rfft:
      return tenferro::rfft(in[0]);
    case Op::fft:
      return tenferro::fft(in[0]);
    default:
      break;
  }
  throw tenferro::Error(tenferro::ErrorKind::Unsupported, "bench: not a single-output op");
}

// Every output of a multi_output op, in its order, all kept by the caller (a workload slot, a
// traced program's outputs): a call's outputs are allocated in the clock and released outside
// it, and a traced program cannot drop one as dead code. Inline storage: no heap allocation that
// the libtorch twin's std::array does not make either.
using Outputs = tenferro::SmallVector<Tensor, 3>;
Outputs forward_all(const CaseSpec& c, const Tensor* in) {
  switch (c.op) {
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
    case Op::eig: {
      tenferro::EigResult r = tenferro::eig(in[0]);
      return Outputs{std::move(r.eigenvalues), std::move(r.eigenvectors)};
    }
    case Op::lu_factor: {
      tenferro::LuFactorResult r = tenferro::lu_factor(in[0]);
      return Outputs{std::move(r.LU), std::move(r.pivots)};
    }
    default:
      break;
  }
  throw tenferro::Error(tenferro::ErrorKind::Unsupported, "bench: not a multi-output op");
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
  r.series = ctx.c.series;
  r.size = ctx.c.size;
  return r;
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
  if (tenferro::is_complex(t.dtype())) {  // interleaved (re, im), as torch::view_as_real
    std::vector<double> out;
    for (const tenferro::c128& z :
         tenferro::cast(t, tenferro::DType::c128).to_vector<tenferro::c128>()) {
      out.push_back(z.real());
      out.push_back(z.imag());
    }
    return out;
  }
  if (tenferro::is_integral(t.dtype()))
    return tenferro::cast(t, tenferro::DType::f64).to_vector<double>();
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

std::vector<double> flatten(const tenferro::ValueAndGrad& vg) {
  std::vector<double> out = flatten(vg.value);
  const std::vector<double> g = flatten(std::span<const Tensor>(vg.grads));
  out.insert(out.end(), g.begin(), g.end());
  return out;
}

// A variant ready to time, and the result of one untimed call of it (checked against libtorch).
struct Prepared {
  std::unique_ptr<Workload> workload;
  std::vector<double> result;
};
template <class F>
Prepared prepared(F op, const TimingPolicy& policy) {
  std::vector<double> result = flatten(op());
  return Prepared{make_workload(std::move(op), policy.retain_outputs), std::move(result)};
}

// The op, its gradient or its value and gradient, as an eager call on the current backend.
Prepared eager_workload(const Context& ctx) {
  const CaseSpec* c = &ctx.c;
  const Tensor* in = ctx.inputs.data();
  const std::span<const Tensor> args(ctx.inputs);
  auto f = [c](std::span<const Tensor> x) { return forward(*c, x.data()); };
  switch (c->mode) {
    case Mode::grad:
      return prepared([f, args] { return tenferro::grad(f, args); }, ctx.policy);
    case Mode::value_and_grad:
      return prepared([f, args] { return tenferro::value_and_grad(f, args); }, ctx.policy);
    case Mode::call:
      break;
  }
  if (multi_output(c->op)) return prepared([c, in] { return forward_all(*c, in); }, ctx.policy);
  return prepared([c, in] { return forward(*c, in); }, ctx.policy);
}

// The program a traced variant prepares: the op; grad(p), whose dead-code elimination drops the
// forward values no gradient needs; or a trace of value_and_grad, whose value output keeps the
// forward.
tenferro::Program traced_program(const Context& ctx) {
  std::vector<tenferro::ValueSpec> specs;
  for (const Tensor& t : ctx.inputs) specs.push_back(tenferro::ValueSpec{t.shape(), t.dtype()});
  const CaseSpec* c = &ctx.c;
  const std::span<const tenferro::ValueSpec> in_specs(specs);
  auto f = [c](std::span<const Tensor> x) { return forward(*c, x.data()); };
  switch (c->mode) {
    case Mode::grad:
      return tenferro::grad(tenferro::trace(f, in_specs));
    case Mode::value_and_grad:
      return tenferro::trace(
          [f](std::span<const Tensor> x) {
            tenferro::ValueAndGrad vg = tenferro::value_and_grad(f, x);
            std::vector<Tensor> out{std::move(vg.value)};
            out.insert(out.end(), vg.grads.begin(), vg.grads.end());
            return out;
          },
          in_specs);
    case Mode::call:
      break;
  }
  if (multi_output(c->op)) {
    return tenferro::trace([c](std::span<const Tensor> x) { return forward_all(*c, x.data()); },
                           in_specs);
  }
  return tenferro::trace(f, in_specs);
}

// The traced program prepared on a runtime over `backend`, outside the clock; a call is
// Runtime::run.
Prepared traced_workload(const Context& ctx, const tenferro::CpuBackend& backend) {
  struct Traced {
    tenferro::Runtime rt;
    tenferro::PreparedProgram plan;
    std::span<const Tensor> args;
    std::vector<Tensor> operator()() const { return rt.run(plan, args); }
  };
  tenferro::Runtime rt(backend);
  tenferro::PreparedProgram plan = rt.prepare(traced_program(ctx));
  return prepared(Traced{rt, plan, std::span<const Tensor>(ctx.inputs)}, ctx.policy);
}

// eager_scope / trace_prepared_scope: warm-up, calibration and every sample inside ONE
// with_execution_scope; its entries are counted from just before entry until it has ended.
// session: the same inside ONE with_session; entries counted during the timed batches.
template <class Entries>
void run_in_context(const Context& ctx, const tenferro::CpuBackend& backend, std::string_view v,
                    Workload& w, Measurement& m, Row& r, Entries& entries) {
  if (v == "session") {
    m = backend.with_session([&](tenferro::Session&) { return measure(w, ctx.policy, entries); });
    r.executor_entries = m.counter;
    return;
  }
  const std::int64_t e0 = entries();
  m = backend.with_execution_scope([&] { return measure(w, ctx.policy); });
  r.executor_entries = entries() - e0;
}

}  // namespace

std::vector<std::int64_t> torch_einsum_path(const CaseSpec& c) {
  std::vector<tenferro::Dims> shapes;
  for (const Shape& s : c.inputs) shapes.emplace_back(s.begin(), s.end());
  const tenferro::EinsumPath path = tenferro::einsum_path(c.subscripts, shapes);
  // Our steps name operands by id (inputs 0..n-1, step k's result n+k); torch's path names
  // positions in a list from which each step removes its two operands and to whose end it
  // appends the result.
  std::vector<int> live(c.inputs.size());
  for (std::size_t i = 0; i < live.size(); ++i) live[i] = static_cast<int>(i);
  std::vector<std::int64_t> out;
  for (std::size_t k = 0; k < path.steps.size(); ++k) {
    const auto pos = [&](int id) {
      const auto it = std::find(live.begin(), live.end(), id);
      if (it == live.end()) throw std::logic_error(c.name + ": einsum path names a dead operand");
      return static_cast<std::int64_t>(it - live.begin());
    };
    const std::int64_t a = pos(path.steps[k].lhs), b = pos(path.steps[k].rhs);
    out.push_back(a);
    out.push_back(b);
    live.erase(live.begin() + std::max(a, b));
    live.erase(live.begin() + std::min(a, b));
    live.push_back(static_cast<int>(c.inputs.size() + k));
  }
  return out;
}

void run_case(const CaseSpec& c, int threads, const TimingPolicy& policy,
              const std::vector<double>& reference,
              const std::function<bool(std::string_view)>& want,
              const std::function<void(const Row&)>& emit) {
  Context ctx{c, threads, policy, emit, reference, {}};
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    ctx.inputs.push_back(make_input(c, i));
  }

  // One backend per case and thread count: every variant of the case runs on it.
  tenferro::CpuBackendOptions options;
  options.threads = threads;
  tenferro::CpuBackend backend(options);
  auto entries = [&]() -> std::int64_t {
    return static_cast<std::int64_t>(backend.executor_entries());
  };

  for (std::string_view v :
       {"eager", "eager_scope", "session", "trace_prepared", "trace_prepared_scope"}) {
    if (!want(v)) continue;
    run_variant(ctx, v, [&](Row& r) {
      tenferro::BackendGuard use(backend);
      Prepared p = v.starts_with("trace") ? traced_workload(ctx, backend) : eager_workload(ctx);
      check(ctx, p.result, r);
      Workload* w = p.workload.get();
      Measurement m;
      if (v == "eager") {
        m = measure(*w, ctx.policy, entries);
        r.executor_entries = m.counter;
      } else {
        run_in_context(ctx, backend, v, *w, m, r, entries);
      }
      fill(r, m);
    });
  }
}

}  // namespace bench::ours
