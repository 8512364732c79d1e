// The public custom-rule API: CustomVjp, CustomJvp and checkpoint (docs/custom-rules.md).
#include "tenferro/custom_rules.hpp"

#include <string>

#include "custom_rules/custom_call.hpp"

namespace tenferro {

namespace {
template <class F>
void require(const F& fn, const char* api, const char* what) {
  if (!fn)
    throw Error(ErrorKind::InvalidArgument,
                std::string(api) + ": " + what + " is empty; expected a callable");
}

std::shared_ptr<detail::CustomRules> new_rules(detail::CustomRules::Kind kind, std::string label,
                                               MultiFn f) {
  auto r = std::make_shared<detail::CustomRules>();
  r->kind = kind;
  r->label = std::move(label);
  r->f = std::move(f);
  return r;
}

std::shared_ptr<const detail::CustomRules> vjp_rules(MultiFn f, VjpFwdFn fwd, VjpBwdFn bwd,
                                                     std::string name) {
  require(f, "custom_vjp", "f");
  require(fwd, "custom_vjp", "fwd");
  require(bwd, "custom_vjp", "bwd");
  auto r = new_rules(detail::CustomRules::Kind::vjp, std::move(name), std::move(f));
  r->fwd = std::move(fwd);
  r->bwd = std::move(bwd);
  return r;
}

std::shared_ptr<const detail::CustomRules> jvp_rules(MultiFn f, JvpRuleFn jvp, VjpRuleFn vjp,
                                                     std::string name) {
  require(f, "custom_jvp", "f");
  require(jvp, "custom_jvp", "the jvp rule");
  auto r = new_rules(detail::CustomRules::Kind::jvp, std::move(name), std::move(f));
  r->jvp = std::move(jvp);
  r->vjp = std::move(vjp);
  return r;
}

}  // namespace

CustomVjp::CustomVjp(MultiFn f, VjpFwdFn fwd, VjpBwdFn bwd, std::string name)
    : CustomFunction(vjp_rules(std::move(f), std::move(fwd), std::move(bwd), std::move(name))) {}

CustomJvp::CustomJvp(MultiFn f, JvpRuleFn jvp, VjpRuleFn vjp, std::string name)
    : CustomFunction(jvp_rules(std::move(f), std::move(jvp), std::move(vjp), std::move(name))) {}

std::vector<Tensor> CustomFunction::operator()(std::span<const Tensor> inputs) const {
  return detail::call_custom(rules_, inputs);
}
const std::string& CustomFunction::name() const noexcept { return rules_->label; }

// Checkpointing as a CustomVjp: fwd keeps only the inputs (as residuals, which alias them: no
// copy), and bwd recomputes f's forward pass under vjp to pull the cotangents back. Only f's
// outputs and inputs stay on the caller's tape; f's intermediates live during the recomputation
// of one checkpoint's backward step.
MultiFn checkpoint(MultiFn f) {
  require(f, "checkpoint", "f");
  auto shared = std::make_shared<MultiFn>(std::move(f));
  CustomVjp call([shared](std::span<const Tensor> x) { return (*shared)(x); },
                 [shared](std::span<const Tensor> x) {
                   return VjpFwdResult{(*shared)(x), std::vector<Tensor>(x.begin(), x.end())};
                 },
                 [shared](std::span<const Tensor> inputs, std::span<const Tensor> ct) {
                   // Bool and integer inputs (indices) are constants of the recomputation: vjp
                   // refuses them.
                   std::vector<std::size_t> wrt;
                   for (std::size_t i = 0; i < inputs.size(); ++i)
                     if (is_floating(inputs[i].dtype())) wrt.push_back(i);
                   if (wrt.size() == inputs.size()) return vjp(*shared, inputs).pullback(ct);
                   std::vector<Tensor> all(inputs.begin(), inputs.end()), w;
                   for (std::size_t i : wrt) w.push_back(all[i]);
                   MultiFn g([&](std::span<const Tensor> v) {
                     std::vector<Tensor> x = all;
                     for (std::size_t k = 0; k < wrt.size(); ++k) x[wrt[k]] = v[k];
                     return (*shared)(x);
                   });
                   std::vector<Tensor> gw = vjp(g, w).pullback(ct), out(inputs.size());
                   for (std::size_t k = 0; k < wrt.size(); ++k) out[wrt[k]] = std::move(gw[k]);
                   return out;
                 },
                 "checkpoint");
  return MultiFn(std::move(call));
}

}  // namespace tenferro
