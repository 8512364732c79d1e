// The backward engine (Notes [Topological order by sequence], [Backward is all-or-nothing]) and
// the eager reverse-mode API.
#include <algorithm>
#include <optional>

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
void collect(std::span<TensorAux* const> roots, NodeList& nodes, const char* api) {
  const std::uint64_t epoch = ++t_visit_epoch;
  NodeList stack;
  for (TensorAux* r : roots) {
    TapeNode* n = tape_node(r);
    if (n && n->visit != epoch) {
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
    n->cotangents.resize(n->output_count());
    nodes.push_back(n);
    for (const auto& e : n->edges) {
      TapeNode* p = tape_node(e.get());
      if (p && p->visit != epoch) {
        p->visit = epoch;
        stack.push_back(p);
      }
    }
  }
  // Decreasing sequence. The walk meets a chain's nodes nearly in that order already, so small
  // graphs take an insertion sort (a few compares, no call).
  if (nodes.size() > 16) {
    std::sort(nodes.begin(), nodes.end(), [](TapeNode* a, TapeNode* b) { return a->seq > b->seq; });
    return;
  }
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    TapeNode* n = nodes[i];
    std::size_t j = i;
    for (; j > 0 && nodes[j - 1]->seq < n->seq; --j) nodes[j] = nodes[j - 1];
    nodes[j] = n;
  }
}

// `ct` an rvalue: a rule's result is moved in, so the slot may own it alone (Note [Accumulating
// in place] in tape.hpp).
void send(TensorAux* a, Tensor&& ct, LeafList& leaves) {
  if (a->grad_fn) {
    accumulate_into(tape_node(a)->cotangents[static_cast<std::size_t>(a->output_index)],
                    std::move(ct));
    return;
  }
  if (!a->staged) {
    a->staged = true;
    leaves.push_back(a);
  }
  accumulate_into(a->pending, std::move(ct));
}

// Drops partial cotangents and staged leaf gradients when the pass ends, normally (after the
// commit) or by an exception (so that nothing changes).
// Note [Release order]: the pass holds the nodes and leaves by raw pointer; what keeps them
// alive is the graph itself. Releasing a node drops its edges, which may hold the last reference
// to a producer node (an intermediate output nobody else keeps) or to a leaf's layer (a temporary
// leaf). So the cleanup runs before any release, and nodes are released producers first
// (ascending sequence): a release can only free nodes of smaller sequence, already released,
// never one the loop has yet to visit.
struct Cleanup {
  NodeList& nodes;
  LeafList& leaves;
  bool done = false;
  // `nodes_too` false: the caller releases every node next, which drops its cotangents too.
  void run(bool nodes_too = true) noexcept {
    if (nodes_too)
      for (TapeNode* n : nodes)
        for (Tensor& c : n->cotangents)
          if (c.defined()) c = Tensor();
    for (TensorAux* a : leaves) {
      a->pending = Tensor();
      a->staged = false;
    }
    done = true;
  }
  ~Cleanup() {
    if (!done) run();
  }
};

// Note [Create graph]: the saved tensors as the op saw them, with the eager layer restored.
void restore_layers(TapeNode& n, TensorList& in, TensorList& out) {
  in.clear();
  out.clear();
  const std::span<const Tensor> inputs = n.inputs(), outputs = n.outputs();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    in.push_back(n.edges[i] ? with_aux(inputs[i], n.edges[i]) : inputs[i]);
  const std::shared_ptr<TapeNode> self = n.shared_from_this();
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    if (is_integral(outputs[k].dtype())) {
      out.push_back(outputs[k]);
      continue;
    }
    TensorAux eager;
    eager.kind = AuxKind::tape;
    auto layer = new_layer(eager, outputs[k].aux());
    layer->grad_fn = self;
    layer->output_index = static_cast<int>(k);
    out.push_back(with_aux(outputs[k], std::move(layer)));
  }
}

}  // namespace

void run_backward(std::span<TensorAux* const> roots, std::span<Tensor> cotangents,
                  const BackwardPass& pass, std::span<TensorAux* const> capture,
                  std::span<Tensor> captured) {
  NodeList nodes;
  collect(roots, nodes, pass.api);  // may throw; nothing modified yet
  LeafList leaves;
  Cleanup cleanup{nodes, leaves};
  // The rules' ops are not recorded at this level: the saved tensors and the cotangents do not
  // carry its layer (except with create_graph, on purpose), while the enclosing levels record
  // them (Note [Forward over reverse]). The eager tape has no level below it, so without
  // create_graph its rules run with grad mode off, as they always have.
  std::optional<GradModeGuard> no_grad;
  if (!pass.create_graph && !roots.empty() && roots[0]->depth == 0) no_grad.emplace(false);
  auto inside = [&](TensorAux* e) {
    return capture.empty() || e->grad_fn ||
           std::find(capture.begin(), capture.end(), e) != capture.end();
  };

  for (std::size_t r = 0; r < roots.size(); ++r)
    if (cotangents[r].defined() && inside(roots[r]))
      send(roots[r], std::move(cotangents[r]), leaves);

  SmallVector<bool, 4> needs;
  TensorList in_ct;
  for (TapeNode* n : nodes) {
    bool any = false;
    for (const Tensor& c : n->cotangents) any |= c.defined();
    if (!any) continue;  // all-zero cotangents: nothing flows from this node
    needs.clear();
    for (const auto& e : n->edges) needs.push_back(e != nullptr);
    in_ct.clear();
    in_ct.resize(n->n_inputs);
    if (pass.create_graph) {
      TensorList restored_in, restored_out;
      restore_layers(*n, restored_in, restored_out);
      n->primitive().vjp(restored_in, restored_out, n->cotangents, needs, in_ct);
    } else {
      n->primitive().vjp(n->inputs(), n->outputs(), n->cotangents, needs, in_ct);
    }
    for (Tensor& c : n->cotangents)
      if (c.defined()) c = Tensor();
    for (std::size_t i = 0; i < n->edges.size(); ++i) {
      if (!n->edges[i] || !in_ct[i].defined() || !inside(n->edges[i].get())) continue;
      check_vjp_result(n->primitive(), in_ct[i], n->saved[i]);
      send(n->edges[i].get(), std::move(in_ct[i]), leaves);
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
      if (capture[j]->staged) captured[j] = std::move(capture[j]->pending);
  }
  const bool release = !pass.retain_graph && !pass.create_graph;
  cleanup.run(!release);  // Note [Release order]
  if (release)
    for (std::size_t i = nodes.size(); i-- > 0;) nodes[i]->release();
}

}  // namespace detail

namespace {

// The eager layer of a backward output: the top live layer, which must be the eager tape's.
detail::TensorAux* root_layer(const Tensor& out, const char* api) {
  if (!out.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(api) + ": the output tensor is undefined");
  detail::TensorAux* a = detail::live_aux(out.aux()).get();
  if (a && a->kind != detail::AuxKind::none && a->depth > 0)
    throw Error(ErrorKind::Unsupported,
                std::string(api) + ": the output (" + detail::describe({&out, 1}) +
                    ") depends on the inputs of a running '" + a->level->transform +
                    "' transform; eager backward inside it is not supported (the transform would "
                    "see the gradients as constants). Use grad/vjp inside transforms");
  if (!a || !a->has_edge())
    throw Error(ErrorKind::InvalidArgument,
                std::string(api) + ": the output (" + dims_to_string(out.shape()) + " " +
                    std::string(dtype_name(out.dtype())) +
                    ") does not require grad: no input of the computation requires grad, or it ran "
                    "under NoGradGuard");
  return a;
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

detail::BackwardPass eager_pass(const BackwardOptions& o) {
  return {.retain_graph = o.retain_graph, .create_graph = o.create_graph, .api = "backward"};
}

}  // namespace

void backward(const Tensor& loss, BackwardOptions options) {
  detail::TensorAux* root = root_layer(loss, "backward");
  if (loss.numel() != 1 || is_complex(loss.dtype()))
    throw Error(
        ErrorKind::InvalidArgument,
        "backward: without a cotangent the output must be a real tensor with one element, got " +
            dims_to_string(loss.shape()) + " " + std::string(dtype_name(loss.dtype())) +
            "; pass a cotangent of the output's shape and dtype");
  Tensor seed = detail::unit_seed(loss, "backward");
  detail::run_backward({&root, 1}, {&seed, 1}, eager_pass(options), {}, {});
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
  SmallVector<detail::TensorAux*, 2> roots;
  SmallVector<Tensor, 2> cts;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    roots.push_back(root_layer(outputs[i], "backward"));
    check_cotangent(outputs[i], cotangents[i], "backward");
    // Without create_graph the pass is not recorded, so a cotangent's own graph is not followed.
    cts.push_back(options.create_graph ? cotangents[i]
                                       : detail::strip_level(cotangents[i], *roots.back()));
  }
  detail::run_backward(roots, cts, eager_pass(options), {}, {});
}

void zero_grad(const Tensor& x) {
  Tensor y = x;  // shares x's layers
  y.zero_grad_();
}

Tensor detach(const Tensor& x) {
  // Keeps only the bottom layer's trace state (every layer carries a copy of it).
  const detail::TensorAux* a = x.aux().get();
  if (!a) return x;
  Tensor r = x;
  r.set_aux(nullptr);
  if (a->trace) {
    auto b = detail::new_aux();
    b->copy_trace(a);
    r.set_aux(std::move(b));
  }
  return r;
}

bool is_leaf(const Tensor& x) noexcept {
  const detail::TensorAux* a = detail::live_aux(x.aux()).get();
  return !a || !a->grad_fn;
}

}  // namespace tenferro
