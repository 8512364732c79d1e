// LinearMapPrim: the fixed linear map of a Krylov adjoint rule (Note [Krylov autodiff]).
#include "krylov/linear_map.hpp"

#include <cstdint>
#include <string>

#include "core/tensor_aux.hpp"
#include "primitives/primitive.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

namespace tenferro::detail::krylov {

bool carries_derivative(const Tensor& t) {
  for (const TensorAux* a = t.aux().get(); a; a = a->inner.get())
    if (a->live() && (a->kind == AuxKind::forward || a->has_edge())) return true;
  return false;
}

namespace {
// True when a level other than the one running a LinearMapPrim rule would differentiate the
// rule's result: the rule's operands have that level's layer removed, so any live layer left is
// an enclosing transform (a tape one only while it records). L holds its parameters frozen, so
// that level would miss dL: second order, refused (Note [Krylov autodiff]).
bool seen_by_another_level(const Tensor& t) {
  for (const TensorAux* a = t.aux().get(); a; a = a->inner.get()) {
    if (!a->live()) continue;
    if (a->kind == AuxKind::forward || (a->has_edge() && is_grad_enabled())) return true;
  }
  return false;
}
}  // namespace

Tensor derivative_probe(const Tensor& y) { return sub(y, detach(y)); }

namespace {

class LinearMapPrim final : public PrimitiveWith<LinearMapPrim> {
 public:
  LinearMapPrim(std::shared_ptr<const HostLinearMap> map, bool adjoint)
      : map_(std::move(map)), id_(reinterpret_cast<std::uintptr_t>(map_.get())), adjoint_(adjoint) {
    set_runs_on_host();
  }
  std::string_view name() const override { return "krylov_linear_map"; }
  std::string params() const override {
    return std::string("solver=") + map_->solver + (adjoint_ ? " adjoint" : "");
  }
  auto key() const { return std::tie(id_, adjoint_); }

  // Reached only by the tracer (the eager interpreter calls apply_on_host): refuse.
  void infer(std::span<const Tensor>, SpecList&) const override {
    throw Error(ErrorKind::Unsupported,
                std::string(map_->solver) +
                    ": a Krylov solver's derivative cannot be traced (its map is an arbitrary "
                    "function); differentiate it eagerly");
  }
  void execute(ExecContext&, std::span<const Tensor>, std::span<Tensor>) const override {
    throw Error(ErrorKind::RuntimeState, "krylov_linear_map: runs on the host, not as a kernel");
  }
  void apply_on_host(std::span<const Tensor> in, TensorList& out) const override {
    NoGradGuard no_grad;
    const VectorMap& f = adjoint_ && map_->adjoint ? map_->adjoint : map_->apply;
    for (Tensor& t : f(in)) out.push_back(std::move(t));
  }

  void jvp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> tangents, std::span<Tensor> out_tangents) const override {
    std::vector<Tensor> t(tangents.size());
    for (std::size_t i = 0; i < tangents.size(); ++i) {
      if (seen_by_another_level(primals[i]) ||
          (tangents[i].defined() && seen_by_another_level(tangents[i])))
        second_order("an operand differentiated by an enclosing transform");
      t[i] = tangents[i].defined() ? tangents[i] : zeros(primals[i].shape(), primals[i].dtype());
    }
    std::vector<Tensor> r = apply_linear_map(map_, t, adjoint_);
    for (std::size_t k = 0; k < out_tangents.size(); ++k) out_tangents[k] = like(r[k], outputs[k]);
  }
  void vjp(std::span<const Tensor> primals, std::span<const Tensor> outputs,
           std::span<const Tensor> cotangents, std::span<const bool> needs,
           std::span<Tensor> in_cotangents) const override {
    for (const Tensor& p : primals)
      if (seen_by_another_level(p))
        second_order("an input differentiated by an enclosing transform");
    std::vector<Tensor> ct(cotangents.size());
    for (std::size_t k = 0; k < cotangents.size(); ++k) {
      if (cotangents[k].defined() && seen_by_another_level(cotangents[k]))
        second_order("a cotangent differentiated by an enclosing transform");
      ct[k] =
          cotangents[k].defined() ? cotangents[k] : zeros(outputs[k].shape(), outputs[k].dtype());
    }
    std::vector<Tensor> r = apply_linear_map(map_, ct, !adjoint_);
    for (std::size_t i = 0; i < in_cotangents.size(); ++i)
      if (needs[i]) in_cotangents[i] = like(r[i], primals[i]);
  }

 private:
  // The rule's result in the dtype of `ref`: a real input's cotangent is the real part of a
  // complex one (PyTorch's convention), a real map's tangent of a complex input stays complex.
  static Tensor like(const Tensor& r, const Tensor& ref) {
    if (r.dtype() == ref.dtype()) return r;
    if (is_complex(r.dtype()) && !is_complex(ref.dtype())) return cast(real(r), ref.dtype());
    return cast(r, ref.dtype());
  }
  [[noreturn]] void second_order(const char* what) const {
    throw Error(ErrorKind::Unsupported, std::string(map_->solver) +
                                            ": second derivatives through a Krylov solver are not "
                                            "supported (its adjoint rule met " +
                                            what + ")");
  }

  std::shared_ptr<const HostLinearMap> map_;
  std::uintptr_t id_;
  bool adjoint_;
};

}  // namespace

std::vector<Tensor> apply_linear_map(const std::shared_ptr<const HostLinearMap>& map,
                                     std::span<const Tensor> in, bool adjoint) {
  const LinearMapPrim p(map, adjoint);
  TensorList out = detail::bind(p, in);
  return std::vector<Tensor>(out.begin(), out.end());
}

Tensor first_order_only(const char* solver, const Tensor& t) {
  auto map = std::make_shared<HostLinearMap>();
  map->solver = solver;
  map->apply = [](std::span<const Tensor> in) { return std::vector<Tensor>{copy(in[0])}; };
  return apply_linear_map(map, std::span<const Tensor>(&t, 1))[0];
}

}  // namespace tenferro::detail::krylov
