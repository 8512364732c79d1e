// Automatic differentiation: eager reverse mode (a tape), functional grad/vjp/jvp, forward mode.
//
//   using namespace tenferro;
//   Tensor x = randn({3}, 1).requires_grad_();
//   Tensor loss = sum(mul(x, x));          // recorded: x requires grad
//   backward(loss);                        // x.grad() == 2 x
//
//   auto f = [](std::span<const Tensor> in) { return sum(mul(in[0], in[0])); };
//   std::vector<Tensor> g = grad(f, {x});                   // {2 x}, functional, no .grad change
//   JvpResult r = jvp([&](std::span<const Tensor> in) { return grad(f, in)[0]; }, {x}, {v});
//   // r.tangents[0] == H v == 2 v  (forward over reverse)
//
// Semantics (see docs/autodiff.md):
//  - An op records a tape node only when grad mode is on (no NoGradGuard) and an input requires
//    grad; otherwise it costs nothing extra. backward() runs the ops' VJP rules in reverse
//    topological order with grad mode off and accumulates into the leaves' grad(); a leaf that
//    does not influence the output keeps an undefined grad. Without retain_graph, backward frees
//    the graph's saved tensors; a second backward through it throws Error{RuntimeState}.
//  - grad/value_and_grad/vjp never touch any tensor's grad(). An input that does not influence
//    the output gets a zero gradient (JAX-like). jvp gives zero tangents likewise.
//  - Complex numbers follow PyTorch's conjugate-Wirtinger convention: for a real loss L of complex
//    z = x + iy, grad(L) = dL/dx + i dL/dy (= 2 dL/dz*). L = |z|^2 gives 2z.
//  - Second order: forward over reverse (jvp of a function that calls grad) is supported.
//    Reverse over reverse (grad of grad) and nested jvp are not: backward does not record.
//  - Errors are tenferro::Error and leave tape and gradients unchanged.
//  - Threads: grad mode is per thread. A graph may be built on one thread and run backward on
//    another, but not concurrently from two threads.
#pragma once

#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "tenferro/tensor.hpp"

namespace tenferro {

// ---- Grad mode ----

/// Whether ops on this thread record tape nodes (true unless a NoGradGuard is live).
bool is_grad_enabled() noexcept;

/// Sets grad mode on this thread until destruction, then restores the previous mode.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled);
  ~GradModeGuard();
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};

/// Turns recording off on this thread until destruction (for evaluation and parameter updates).
class NoGradGuard : public GradModeGuard {
 public:
  NoGradGuard() : GradModeGuard(false) {}
};

// ---- Eager reverse mode ----

struct BackwardOptions {
  /// Keep the graph's saved tensors so that backward can run through it again.
  bool retain_graph = false;
};

/// Backpropagates from a real one-element `loss` (seed 1) into the leaves' grad().
/// Throws InvalidArgument when loss does not require grad, has more than one element or is
/// complex; RuntimeState when the graph was freed by an earlier backward. Nothing changes on error.
void backward(const Tensor& loss, BackwardOptions options = {});
/// Backpropagates `cotangent` (the output's shape: ShapeMismatch, dtype: DTypeMismatch) from any
/// output that requires grad.
void backward(const Tensor& output, const Tensor& cotangent, BackwardOptions options = {});
/// Several outputs at once, one cotangent each; shared subgraphs run once.
void backward(std::span<const Tensor> outputs, std::span<const Tensor> cotangents,
              BackwardOptions options = {});

/// Resets x's accumulated gradient to undefined (= zero). Same as x.zero_grad_().
void zero_grad(const Tensor& x);
/// The same values (shared storage) with no autodiff state: no tape link, no tangent. Ops on the
/// result do not record, and gradients do not flow through it.
Tensor detach(const Tensor& x);
/// True for tensors not produced by a recorded op (user-created tensors and requires_grad leaves).
bool is_leaf(const Tensor& x) noexcept;

// ---- Functional API ----

/// A non-owning reference to a callable taking the input tensors and returning R (Tensor or
/// std::vector<Tensor>). Accepts callables taking std::span<const Tensor> (no allocation) or
/// const std::vector<Tensor>& (one vector per call). Valid only while the callable lives: the
/// functional API calls it before returning.
template <class R>
class TensorFn {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, TensorFn> &&
           std::is_invocable_r_v<R, F&, std::span<const Tensor>>) TensorFn(F&& f)
  noexcept  // NOLINT: implicit on purpose
      : obj_(erase(f)),
        call_([](void* o, std::span<const Tensor> in) -> R { return restore<F>(o)(in); }) {}
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, TensorFn> &&
           !std::is_invocable_r_v<R, F&, std::span<const Tensor>> &&
           std::is_invocable_r_v<R, F&, const std::vector<Tensor>&>) TensorFn(F&& f)
  noexcept  // NOLINT: implicit on purpose
      : obj_(erase(f)), call_([](void* o, std::span<const Tensor> in) -> R {
          return restore<F>(o)(std::vector<Tensor>(in.begin(), in.end()));
        }) {}
  R operator()(std::span<const Tensor> in) const { return call_(obj_, in); }

 private:
  template <class F>
  static void* erase(F& f) noexcept {
    if constexpr (std::is_function_v<F>)
      return reinterpret_cast<void*>(&f);
    else
      return const_cast<void*>(static_cast<const void*>(std::addressof(f)));
  }
  template <class F>
  static std::remove_reference_t<F>& restore(void* o) noexcept {
    using T = std::remove_reference_t<F>;
    if constexpr (std::is_function_v<T>)
      return *reinterpret_cast<T*>(o);
    else
      return *static_cast<T*>(o);
  }

  void* obj_;
  R (*call_)(void*, std::span<const Tensor>);
};
using ScalarFn = TensorFn<Tensor>;
using MultiFn = TensorFn<std::vector<Tensor>>;

/// Gradients of a real one-element f(inputs) with respect to each input (zeros for inputs that do
/// not influence it). Records with grad mode on even under NoGradGuard. Throws InvalidArgument
/// when f's result is undefined, complex or has more than one element.
std::vector<Tensor> grad(ScalarFn f, std::span<const Tensor> inputs);
std::vector<Tensor> grad(ScalarFn f, std::initializer_list<Tensor> inputs);

struct ValueAndGrad {
  Tensor value;
  std::vector<Tensor> grads;
};
/// f(inputs) and grad(f, inputs) from one evaluation.
ValueAndGrad value_and_grad(ScalarFn f, std::span<const Tensor> inputs);
ValueAndGrad value_and_grad(ScalarFn f, std::initializer_list<Tensor> inputs);

/// The reverse-mode linear map of one evaluation, callable any number of times. Holds the graph.
class Pullback {
 public:
  struct State;
  Pullback() = default;
  explicit Pullback(std::shared_ptr<State> s) : state_(std::move(s)) {}
  /// Input cotangents (one per primal, zeros where nothing flows) for one cotangent per output
  /// (an undefined cotangent means zero). Throws InvalidArgument for a wrong count, ShapeMismatch
  /// / DTypeMismatch for a cotangent unlike its output.
  std::vector<Tensor> operator()(std::span<const Tensor> cotangents) const;
  std::vector<Tensor> operator()(std::initializer_list<Tensor> cotangents) const {
    return (*this)(std::span<const Tensor>(cotangents.begin(), cotangents.size()));
  }

 private:
  std::shared_ptr<State> state_;
};

struct VjpResult {
  std::vector<Tensor> outputs;
  Pullback pullback;
};
/// Evaluates f at primals and returns its outputs and pullback.
VjpResult vjp(MultiFn f, std::span<const Tensor> primals);
VjpResult vjp(MultiFn f, std::initializer_list<Tensor> primals);
VjpResult vjp(ScalarFn f, std::span<const Tensor> primals);
VjpResult vjp(ScalarFn f, std::initializer_list<Tensor> primals);

struct JvpResult {
  std::vector<Tensor> outputs;
  std::vector<Tensor> tangents;
};
/// Forward mode: f's outputs at primals and their directional derivatives along `tangents` (one
/// per primal, the primal's shape and dtype: ShapeMismatch / DTypeMismatch; undefined = zero).
JvpResult jvp(MultiFn f, std::span<const Tensor> primals, std::span<const Tensor> tangents);
JvpResult jvp(MultiFn f, std::initializer_list<Tensor> primals,
              std::initializer_list<Tensor> tangents);
JvpResult jvp(ScalarFn f, std::span<const Tensor> primals, std::span<const Tensor> tangents);
JvpResult jvp(ScalarFn f, std::initializer_list<Tensor> primals,
              std::initializer_list<Tensor> tangents);

/// Hessian-vector products of a real scalar f: jvp of grad(f) along v (forward over reverse).
std::vector<Tensor> hvp(ScalarFn f, std::span<const Tensor> primals, std::span<const Tensor> v);
std::vector<Tensor> hvp(ScalarFn f, std::initializer_list<Tensor> primals,
                        std::initializer_list<Tensor> v);

}  // namespace tenferro
