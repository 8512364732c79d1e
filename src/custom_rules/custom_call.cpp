// CustomCallPrim: the primitive of a custom_vjp / custom_jvp call (Note [Custom calls]).
#include "custom_rules/custom_call.hpp"

#include <cstdint>
#include <string>

#include "primitives/primitive.hpp"
#include "tenferro/ops.hpp"
#include "trace/call_body.hpp"

namespace tenferro::detail {

std::string CustomRules::who() const {
  return std::string(kind == Kind::vjp ? "custom_vjp" : "custom_jvp") + " '" + label + "'";
}

namespace {

// f's output count is part of the rule's contract: the node's outputs are split by it.
std::size_t learn_outputs(const CustomRules& r, std::size_t n, const char* fn) {
  int seen = -1;
  if (r.n_out.compare_exchange_strong(seen, static_cast<int>(n))) return n;
  if (static_cast<std::size_t>(seen) != n)
    throw Error(ErrorKind::InvalidArgument,
                r.who() + ": " + fn + " returned " + std::to_string(n) +
                    " outputs; earlier calls returned " + std::to_string(seen) +
                    " (f and fwd must return the same number of outputs on every call)");
  return n;
}

void check_defined(const CustomRules& r, std::span<const Tensor> ts, const char* fn,
                   const char* what) {
  for (std::size_t k = 0; k < ts.size(); ++k)
    if (!ts[k].defined())
      throw Error(ErrorKind::InvalidArgument,
                  r.who() + ": " + fn + " returned an undefined " + what + " " + std::to_string(k));
}

// The forward value with residuals, [outputs..., residuals...]: fwd for a CustomVjp, f for a
// CustomJvp (which has no residuals).
std::vector<Tensor> forward_flat(const CustomRules& r, std::span<const Tensor> in) {
  if (r.kind == CustomRules::Kind::jvp) {
    std::vector<Tensor> out = r.f(in);
    learn_outputs(r, out.size(), "f");
    check_defined(r, out, "f", "output");
    return out;
  }
  VjpFwdResult res = r.fwd(in);
  learn_outputs(r, res.outputs.size(), "fwd");
  check_defined(r, res.outputs, "fwd", "output");
  check_defined(r, res.residuals, "fwd", "residual");
  std::vector<Tensor> flat = std::move(res.outputs);
  for (Tensor& t : res.residuals) flat.push_back(std::move(t));
  return flat;
}

// Run on plain inputs, the user's functions give plain results unless they read a tensor with
// autodiff or trace state from their closure; its derivative would bypass the custom rule
// (silently: the rule has no cotangent for it), so that is refused.
void refuse_closure(const CustomRules& r, std::span<const Tensor> out, const char* fn) {
  for (std::size_t k = 0; k < out.size(); ++k)
    if (out[k].aux() || out[k].requires_grad())
      throw Error(ErrorKind::InvalidArgument,
                  r.who() + ": result " + std::to_string(k) + " of " + fn + " (" +
                      describe(out.subspan(k, 1)) +
                      ") carries autodiff or trace state although the inputs carry none: " + fn +
                      " reads a tensor from its closure that requires grad, carries a tangent or "
                      "is traced, whose derivative would bypass the custom rule; pass that tensor "
                      "as an input instead");
}

// A rule's results against the values they belong to: one per value, each undefined (zero) or
// of the value's shape and dtype. Results for bool/integer values are dropped (no derivative).
void check_results(const CustomRules& r, std::vector<Tensor>& got, std::span<const Tensor> like,
                   const char* rule, const char* what) {
  if (got.size() != like.size())
    throw Error(ErrorKind::InvalidArgument,
                r.who() + ": " + rule + " returned " + std::to_string(got.size()) +
                    " tensors; expected one per " + what + " (" + std::to_string(like.size()) +
                    ": " + describe(like) + "), an undefined tensor meaning zero");
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!got[i].defined()) continue;
    if (is_integral(like[i].dtype())) {
      got[i] = Tensor();
      continue;
    }
    const bool shape_ok = got[i].shape() == like[i].shape();
    if (shape_ok && got[i].dtype() == like[i].dtype()) continue;
    throw Error(shape_ok ? ErrorKind::DTypeMismatch : ErrorKind::ShapeMismatch,
                r.who() + ": " + rule + " returned " + describe({&got[i], 1}) + " for " + what +
                    " " + std::to_string(i) + ", which is " + describe(like.subspan(i, 1)) +
                    "; expected a tensor of the " + what +
                    "'s shape and dtype, or an undefined "
                    "tensor for zero");
  }
}

// Undefined entries of `t` (zero) as zeros like `like`.
std::vector<Tensor> or_zeros(std::span<const Tensor> t, std::span<const Tensor> like) {
  std::vector<Tensor> r(t.begin(), t.end());
  for (std::size_t i = 0; i < r.size(); ++i)
    if (!r[i].defined()) r[i] = zeros(like[i].shape(), like[i].dtype());
  return r;
}

class CustomCallPrim final : public PrimitiveWith<CustomCallPrim>, public CallBody {
 public:
  explicit CustomCallPrim(std::shared_ptr<const CustomRules> rules)
      : rules_(std::move(rules)), id_(reinterpret_cast<std::uintptr_t>(rules_.get())) {
    set_runs_on_host();
  }
  std::string_view name() const override {
    return rules_->kind == CustomRules::Kind::vjp ? "custom_vjp" : "custom_jvp";
  }
  std::string params() const override { return "rule=" + rules_->label; }
  auto key() const { return std::tie(id_); }
  // Integer inputs (indices) are the user's business: the body is traced on them as they are.
  bool accepts_integers() const override { return true; }

  // Only the tracer and prepare's re-inference get here (the eager interpreter calls
  // apply_on_host): the specs of the traced body.
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    std::vector<ValueSpec> specs;
    for (const Tensor& t : in) specs.push_back({t.shape(), t.dtype()});
    for (const ValueSpec& s : body(specs)->output_specs()) out.push_back({s.dtype, s.shape});
  }
  void execute(ExecContext&, std::span<const Tensor>, std::span<Tensor>) const override {
    throw Error(ErrorKind::RuntimeState,
                rules_->who() +
                    ": runs on the host, or inlined in a prepared program; never as a "
                    "kernel");
  }
  void apply_on_host(std::span<const Tensor> in, TensorList& out) const override {
    std::vector<Tensor> flat = forward_flat(*rules_, in);
    refuse_closure(*rules_, flat, rules_->kind == CustomRules::Kind::vjp ? "fwd" : "f");
    for (Tensor& t : flat) out.push_back(std::move(t));
  }

  std::shared_ptr<const Program> body(std::span<const ValueSpec> specs) const override {
    const CustomRules& r = *rules_;
    {
      std::lock_guard lock(r.mu);
      for (const auto& [s, p] : r.bodies)
        if (std::equal(s.begin(), s.end(), specs.begin(), specs.end())) return p;
    }
    // Traced outside the lock: the function may call this rule again (a checkpoint inside a
    // checkpoint of the same function).
    std::shared_ptr<const Program> p;
    try {
      p = std::make_shared<const Program>(trace(
          [&r](std::span<const Tensor> x) {
            std::vector<Tensor> flat = forward_flat(r, x);
            // Traced results always carry trace state; a recorded one read a closure.
            for (std::size_t k = 0; k < flat.size(); ++k)
              if (flat[k].requires_grad()) refuse_closure(r, {&flat[k], 1}, "the function");
            return flat;
          },
          specs));
    } catch (const Error& e) {
      throw Error(e.kind(), r.who() + ": tracing its forward function failed (" + e.message() +
                                "); tensors the function differentiates or traces must be "
                                "its inputs, not read from its closure");
    }
    std::lock_guard lock(r.mu);
    if (r.bodies.size() >= 16) r.bodies.clear();
    r.bodies.emplace_back(std::vector<ValueSpec>(specs.begin(), specs.end()), p);
    return p;
  }

  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override {
    const CustomRules& r = *rules_;
    std::vector<Tensor> t = or_zeros(tangents, primals), got;
    if (r.kind == CustomRules::Kind::jvp) {
      got = r.jvp(primals, t);
      check_results(r, got, outputs, "the jvp rule", "output");
    } else {
      // A reverse rule says nothing about forward mode: differentiate fwd's own ops, which also
      // gives the residuals' tangents (bwd reads the residuals under forward over reverse).
      // Bool and integer inputs carry no tangent (jvp refuses one): they are constants here.
      for (std::size_t i = 0; i < t.size(); ++i)
        if (!is_floating(primals[i].dtype())) t[i] = Tensor();
      MultiFn flat([&r](std::span<const Tensor> x) { return forward_flat(r, x); });
      got = tenferro::jvp(flat, primals, t).tangents;
      if (got.size() != outputs.size())
        throw Error(ErrorKind::RuntimeState,
                    r.who() + ": fwd returned " + std::to_string(got.size()) +
                        " outputs and residuals in forward mode, " +
                        std::to_string(outputs.size()) + " before; fwd must be deterministic");
    }
    for (std::size_t k = 0; k < out_tangents.size(); ++k) out_tangents[k] = std::move(got[k]);
  }

  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override {
    const CustomRules& r = *rules_;
    const int n = r.n_out.load();
    if (n < 0 || static_cast<std::size_t>(n) > outputs.size())
      throw Error(ErrorKind::RuntimeState, r.who() + ": reverse rule without a forward call");
    const std::size_t n_out = static_cast<std::size_t>(n);
    std::vector<Tensor> ct = or_zeros(cotangents.first(n_out), outputs.first(n_out)), got;
    if (r.kind == CustomRules::Kind::vjp) {
      got = r.bwd(outputs.subspan(n_out), ct);
      check_results(r, got, primals, "bwd", "input");
      add_residual_cotangents(primals, cotangents, n_out, got);
    } else {
      if (!r.vjp)
        throw Error(ErrorKind::Unsupported,
                    r.who() +
                        ": reverse mode (backward, grad, vjp, or grad/vjp of a traced "
                        "Program) needs a vjp rule: a custom_jvp's jvp rule is arbitrary "
                        "C++ and cannot be transposed. Pass a vjp rule to CustomJvp, or "
                        "use forward mode (jvp)");
      got = r.vjp(primals, outputs.first(n_out), ct);
      check_results(r, got, primals, "the vjp rule", "input");
    }
    for (std::size_t i = 0; i < in_cotangents.size(); ++i)
      if (needs[i]) in_cotangents[i] = std::move(got[i]);
  }

 private:
  // Note [Residual cotangents]: an enclosing level that differentiates a gradient (reverse over
  // reverse) sends cotangents to the residuals too, since bwd read them. The custom rule covers
  // f's outputs only; the residuals' derivative is that of fwd's own ops (as in JAX, where the
  // outer level differentiates fwd's and bwd's ops), so those cotangents are pulled back through
  // fwd, recomputed under vjp, and added. First-order backward never gets here.
  void add_residual_cotangents(std::span<const Tensor> primals, std::span<const Tensor> cotangents,
                               std::size_t n_out, std::vector<Tensor>& got) const {
    bool any = false;
    for (std::size_t k = n_out; k < cotangents.size(); ++k) any |= cotangents[k].defined();
    if (!any) return;
    const CustomRules& r = *rules_;
    std::vector<Tensor> ct(cotangents.begin(), cotangents.end());
    for (std::size_t k = 0; k < n_out; ++k) ct[k] = Tensor();
    // Pulled back to the floating inputs only: vjp refuses bool and integer ones (indices),
    // which are constants of fwd here.
    std::vector<std::size_t> wrt;
    std::vector<Tensor> w;
    for (std::size_t i = 0; i < primals.size(); ++i)
      if (is_floating(primals[i].dtype())) {
        wrt.push_back(i);
        w.push_back(primals[i]);
      }
    if (wrt.empty()) return;
    MultiFn flat([&r, &wrt, primals](std::span<const Tensor> v) {
      std::vector<Tensor> x(primals.begin(), primals.end());
      for (std::size_t k = 0; k < wrt.size(); ++k) x[wrt[k]] = v[k];
      return forward_flat(r, x);
    });
    std::vector<Tensor> extra = tenferro::vjp(flat, w).pullback(ct);
    for (std::size_t k = 0; k < wrt.size(); ++k) {
      Tensor& g = got[wrt[k]];
      g = g.defined() ? g + extra[k] : extra[k];
    }
  }

  std::shared_ptr<const CustomRules> rules_;
  std::uintptr_t id_;
};

bool all_plain(std::span<const Tensor> in) {
  for (const Tensor& t : in)
    if (!t.defined() || t.aux()) return false;
  return true;
}

}  // namespace

std::vector<Tensor> call_custom(const std::shared_ptr<const CustomRules>& rules,
                                std::span<const Tensor> in) {
  const CustomRules& r = *rules;
  if (all_plain(in)) {  // nothing to differentiate or trace: f alone, no residuals
    std::vector<Tensor> out = r.f(in);
    learn_outputs(r, out.size(), "f");
    check_defined(r, out, "f", "output");
    refuse_closure(r, out, "f");
    return out;
  }
  const CustomCallPrim p(rules);
  TensorList out = detail::bind(p, in);
  const auto n = static_cast<std::size_t>(r.n_out.load());
  return std::vector<Tensor>(std::make_move_iterator(out.begin()),
                             std::make_move_iterator(out.begin() + static_cast<std::ptrdiff_t>(n)));
}

}  // namespace tenferro::detail
