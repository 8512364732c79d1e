// The backward engine (Notes [Topological order by sequence], [Backward is all-or-nothing]) and
// the eager reverse-mode API.
#include <algorithm>

#include "autodiff/tape.hpp"
#include "tenferro/autodiff.hpp"

namespace tenferro {
namespace detail {

namespace {

thread_local std::uint64_t t_visit_epoch = 0;

using NodeList = SmallVector<TapeNode*, 32>;
using LeafList = SmallVector<TensorAux*, 8>;

// Reachable nodes, checked for freed ones and for saved tensors written in place since (Note
// [Saved versions]) before anything is modified.
void collect(std::span<const Tensor> roots, NodeList& nodes, const char* api,
             std::uint64_t first_seq) {
  const std::uint64_t epoch = ++t_visit_epoch;
  NodeList stack;
  for (const Tensor& r : roots) {
    TapeNode* n = tape_node(r.aux().get());
    if (n && n->visit != epoch && n->seq >= first_seq) {
      n->visit = epoch;
      stack.push_back(n);
    }
  }
  while (!stack.empty()) {
    TapeNode* n = stack.back();
    stack.pop_back();
    if (n->released)
      throw Error(ErrorKind::RuntimeState,
                  std::string(api) + ": the graph through '" + std::string(n->primitive().name()) +
                      "' was already freed by an earlier backward; pass retain_graph = true to the "
                      "first backward to differentiate through it again");
    if (!saved_are_current(*n)) throw_saved_modified(*n, api);
    nodes.push_back(n);
    for (const auto& e : n->edges) {
      TapeNode* p = tape_node(e.get());
      if (p && p->visit != epoch && p->seq >= first_seq) {
        p->visit = epoch;
        stack.push_back(p);
      }
    }
  }
  std::sort(nodes.begin(), nodes.end(), [](TapeNode* a, TapeNode* b) { return a->seq > b->seq; });
}

void send(const std::shared_ptr<TensorAux>& edge, const Tensor& ct, LeafList& leaves) {
  TensorAux* a = edge.get();
  if (a->grad_fn) {
    accumulate_into(tape_node(a)->cotangents[static_cast<std::size_t>(a->output_index)], ct);
    return;
  }
  if (!a->staged) {
    a->staged = true;
    leaves.push_back(a);
  }
  accumulate_into(a->pending, ct);
}

// Drops partial cotangents and staged leaf gradients when the pass ends, normally (after the
// commit) or by an exception (so that nothing changes).
struct Cleanup {
  NodeList& nodes;
  LeafList& leaves;
  ~Cleanup() {
    for (TapeNode* n : nodes)
      for (Tensor& c : n->cotangents)
        if (c.defined()) c = Tensor();
    for (TensorAux* a : leaves) {
      a->pending = Tensor();
      a->staged = false;
    }
  }
};

}  // namespace

void run_backward(std::span<const Tensor> roots, std::span<const Tensor> cotangents,
                  bool retain_graph, std::span<TensorAux* const> capture,
                  std::span<Tensor> captured, const char* api, std::uint64_t first_seq) {
  NodeList nodes;
  collect(roots, nodes, api, first_seq);  // may throw; nothing modified yet
  LeafList leaves;
  Cleanup cleanup{nodes, leaves};
  GradModeGuard no_grad(false);  // rules' ops must not record
  // Note [Functional passes stay inside their graph]: a capturing pass sends only to its own
  // nodes and to the captured leaves.
  auto inside = [&](const std::shared_ptr<TensorAux>& e) {
    if (capture.empty()) return true;
    if (e->grad_fn) return tape_node(e.get())->seq >= first_seq;
    return std::find(capture.begin(), capture.end(), e.get()) != capture.end();
  };

  for (TapeNode* n : nodes) n->cotangents.resize(n->outputs.size());
  // A caller's cotangent may itself require grad; backward does not record, so drop that state.
  for (std::size_t r = 0; r < roots.size(); ++r)
    if (cotangents[r].defined() && inside(roots[r].aux()))
      send(roots[r].aux(), without_grad(cotangents[r]), leaves);

  SmallVector<bool, 4> needs;
  TensorList in_ct;
  for (TapeNode* n : nodes) {
    bool any = false;
    for (const Tensor& c : n->cotangents) any |= c.defined();
    if (!any) continue;  // all-zero cotangents: nothing flows from this node
    needs.clear();
    for (const auto& e : n->edges) needs.push_back(e != nullptr);
    in_ct.clear();
    in_ct.resize(n->inputs.size());
    n->primitive().vjp(n->inputs, n->outputs, n->cotangents, needs, in_ct);
    for (Tensor& c : n->cotangents)
      if (c.defined()) c = Tensor();
    for (std::size_t i = 0; i < n->edges.size(); ++i) {
      if (!n->edges[i] || !in_ct[i].defined() || !inside(n->edges[i])) continue;
      check_vjp_result(n->primitive(), in_ct[i], n->inputs[i]);
      send(n->edges[i], in_ct[i], leaves);
    }
  }

  // Commit (nothing below throws except accumulate's allocation; see Cleanup).
  if (capture.empty()) {
    // Sums first, assignments after: an allocation failure must not leave some leaves updated.
    SmallVector<Tensor, 8> sums;
    for (TensorAux* a : leaves)
      sums.push_back(a->grad.defined() && !accumulates_in_place(a->grad, a->pending)
                         ? accumulate(a->grad, a->pending)
                         : Tensor());
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      TensorAux* a = leaves[i];
      if (sums[i].defined())
        a->grad = std::move(sums[i]);
      else if (!a->grad.defined())
        a->grad = a->pending;
      else
        accumulate_in_place(a->grad, a->pending);  // noexcept
    }
  } else {
    for (std::size_t j = 0; j < capture.size(); ++j)
      if (capture[j]->staged) captured[j] = capture[j]->pending;
  }
  if (!retain_graph)
    for (TapeNode* n : nodes) n->release();
}

}  // namespace detail

namespace {

void check_root(const Tensor& out, const char* api) {
  if (!out.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(api) + ": the output tensor is undefined");
  if (!out.requires_grad())
    throw Error(ErrorKind::InvalidArgument,
                std::string(api) + ": the output (" + dims_to_string(out.shape()) + " " +
                    std::string(dtype_name(out.dtype())) +
                    ") does not require grad: no input of the computation requires grad, or it ran "
                    "under NoGradGuard");
}

void check_cotangent(const Tensor& out, const Tensor& ct, const char* api) {
  if (!ct.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(api) + ": the cotangent is undefined");
  Tensor pair[2] = {out, ct};
  if (!(ct.shape() == out.shape()))
    throw Error(ErrorKind::ShapeMismatch, std::string(api) +
                                              ": the cotangent must have the output's shape "
                                              "and dtype (output, cotangent: " +
                                              detail::describe(pair) + ")");
  if (ct.dtype() != out.dtype())
    throw Error(ErrorKind::DTypeMismatch, std::string(api) +
                                              ": the cotangent must have the output's shape "
                                              "and dtype (output, cotangent: " +
                                              detail::describe(pair) + ")");
}

}  // namespace

void backward(const Tensor& loss, BackwardOptions options) {
  check_root(loss, "backward");
  if (loss.numel() != 1 || is_complex(loss.dtype()))
    throw Error(
        ErrorKind::InvalidArgument,
        "backward: without a cotangent the output must be a real tensor with one element, got " +
            dims_to_string(loss.shape()) + " " + std::string(dtype_name(loss.dtype())) +
            "; pass a cotangent of the output's shape and dtype");
  Tensor seed = ones(loss.shape(), loss.dtype());
  detail::run_backward({&loss, 1}, {&seed, 1}, options.retain_graph, {}, {}, "backward");
}

void backward(const Tensor& output, const Tensor& cotangent, BackwardOptions options) {
  backward(std::span<const Tensor>(&output, 1), std::span<const Tensor>(&cotangent, 1), options);
}

void backward(std::span<const Tensor> outputs, std::span<const Tensor> cotangents,
              BackwardOptions options) {
  if (outputs.size() != cotangents.size())
    throw Error(ErrorKind::InvalidArgument,
                "backward: got " + std::to_string(outputs.size()) + " outputs and " +
                    std::to_string(cotangents.size()) + " cotangents; expected one each");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    check_root(outputs[i], "backward");
    check_cotangent(outputs[i], cotangents[i], "backward");
  }
  detail::run_backward(outputs, cotangents, options.retain_graph, {}, {}, "backward");
}

void zero_grad(const Tensor& x) {
  if (x.aux()) x.aux()->grad = Tensor();
}

Tensor detach(const Tensor& x) {
  if (!x.aux()) return x;
  Tensor r = x;
  r.set_aux(nullptr);
  if (x.aux()->trace) {
    auto a = detail::new_aux();
    a->trace = x.aux()->trace;
    a->trace_value = x.aux()->trace_value;
    r.set_aux(std::move(a));
  }
  return r;
}

bool is_leaf(const Tensor& x) noexcept { return !x.aux() || !x.aux()->grad_fn; }

}  // namespace tenferro
