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
//  - Any order, any nesting: grad of grad, jvp of jvp, grad of jvp, jvp of grad (hvp), vjp of
//    a pullback, and backward(..., {.create_graph = true}) on the eager tape. Each transform is a
//    level of its own (Note [Autodiff levels] in src/core/tensor_aux.hpp), so closures over an
//    outer transform's variables are differentiated correctly (no perturbation confusion).
//    jacrev, jacfwd and hessian build full Jacobians and Hessians.
//  - Version counters: the tape saves tensors by reference. A saved tensor written in place
//    afterwards (an `_into` op, Tensor::set, on it or on any view of its storage) makes
//    backward/grad/pullback throw Error{RuntimeState} naming the op that saved it and the op
//    that wrote it; forward mode refuses a tangent whose primal or own storage was written since
//    it was attached. Writes through data_ptr() are not tracked (docs/autodiff.md).
//  - Errors are tenferro::Error and leave tape and gradients unchanged.
//  - Threads: grad mode is per thread. A graph may be built on one thread and run backward on
//    another, but not concurrently from two threads.
#pragma once

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
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
  /// Record the backward pass on the tape (PyTorch's create_graph): the leaves' grad() then
  /// carry a graph, and backward of a function of them gives higher derivatives. Implies
  /// retain_graph. Like PyTorch, a leaf's grad() then refers back to the leaf (a reference
  /// cycle): call zero_grad_() when done, or use the functional grad, which has no cycle.
  bool create_graph = false;
};

/// Backpropagates from a real one-element `loss` (seed 1) into the leaves' grad().
/// Throws InvalidArgument when loss does not require grad, has more than one element or is
/// complex; RuntimeState when the graph was freed by an earlier backward, or when a tensor it
/// saved was written in place since (version counters). Nothing changes on error.
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
/// True when the `_into` ops may read or write x now: x carries no autodiff or trace state, or
/// grad mode is off (NoGradGuard) and its only state is reverse mode (it requires grad, or was
/// recorded): a parameter update `w -= lr * w.grad()` under NoGradGuard, as in PyTorch. A graph
/// that saved x then finds the write by its version (RuntimeState in backward). A tangent or a
/// trace state always refuses: they must see every op.
bool writable_in_place(const Tensor& x) noexcept;

// ---- Functional API ----

/// An owning, type-erased function of the input tensors returning R (Tensor or
/// std::vector<Tensor>), like std::move_only_function: `ScalarFn f = [](std::span<const Tensor>
/// x) { ... };` keeps its own copy of the lambda, so f stays valid after the lambda expression.
/// Accepts any callable invocable as f(std::span<const Tensor>) (no allocation per call) or
/// f(const std::vector<Tensor>&) (one vector per call) and returning something convertible to R:
/// lambdas (move-only ones too), function objects, functions and function pointers.
///  - Storage: callables of up to 32 bytes (a lambda capturing four references or pointers) that
///    are nothrow-movable live inside the TensorFn with no heap allocation; larger ones are moved
///    to the heap once, at construction. Pass std::ref(f) to refer to a callable you keep alive
///    instead of copying it.
///  - Move-only (moving is cheap and never allocates). The API takes `const ScalarFn&`, so
///    `grad(f, x)` with a ScalarFn variable f copies nothing, and passing a lambda builds a
///    temporary TensorFn that lives until the call returns.
///  - The call is const but invokes the stored callable as a non-const lvalue (a `mutable`
///    lambda may change its state); calls are not synchronised.
///  - An empty TensorFn (default-constructed, moved from, or made from a null function pointer)
///    throws Error{InvalidArgument} when called.
template <class R>
class TensorFn {
  static constexpr std::size_t kInline = 4 * sizeof(void*);
  template <class D>
  static constexpr bool kFitsInline =
      sizeof(D) <= kInline &&
      alignof(D) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<D>;
  template <class D>
  static constexpr bool kTakesSpan = std::is_invocable_r_v<R, D&, std::span<const Tensor>>;
  template <class D>
  static constexpr bool kTakesVector = std::is_invocable_r_v<R, D&, const std::vector<Tensor>&>;

 public:
  /// An empty function.
  TensorFn() noexcept = default;
  template <class F, class D = std::decay_t<F>>
  requires(!std::is_same_v<D, TensorFn> && std::is_constructible_v<D, F> &&
           (kTakesSpan<D> || kTakesVector<D>)) TensorFn(F&& f)  // NOLINT: implicit on purpose
  noexcept(kFitsInline<D>&& std::is_nothrow_constructible_v<D, F>) {
    if constexpr (std::is_pointer_v<std::remove_cvref_t<F>>)
      if (f == nullptr) return;  // stays empty
    if constexpr (kFitsInline<D>) {
      ::new (static_cast<void*>(buf_)) D(std::forward<F>(f));
      if constexpr (!std::is_trivially_copyable_v<D>) manage_ = &manage_inline<D>;
      call_ = &invoke<D, false>;
    } else {
      ::new (static_cast<void*>(buf_)) D*(new D(std::forward<F>(f)));
      manage_ = &manage_heap<D>;
      call_ = &invoke<D, true>;
    }
  }
  TensorFn(TensorFn&& o) noexcept { take(o); }
  TensorFn& operator=(TensorFn&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  TensorFn(const TensorFn&) = delete;
  TensorFn& operator=(const TensorFn&) = delete;
  ~TensorFn() { reset(); }

  /// False when empty.
  explicit operator bool() const noexcept { return call_ != &empty_call; }
  R operator()(std::span<const Tensor> in) const { return call_(buf_, in); }

 private:
  enum class Op { move, destroy };
  using Call = R (*)(void*, std::span<const Tensor>);
  using Manage = void (*)(Op, void* self, void* from) noexcept;

  template <class D, bool Heap>
  static R invoke(void* b, std::span<const Tensor> in) {
    D& f = [&]() -> D& {
      if constexpr (Heap)
        return **static_cast<D**>(b);
      else
        return *static_cast<D*>(b);
    }();
    if constexpr (kTakesSpan<D>)
      return f(in);
    else
      return f(std::vector<Tensor>(in.begin(), in.end()));
  }
  template <class D>
  static void manage_inline(Op op, void* self, void* from) noexcept {
    if (op == Op::move) {
      ::new (self) D(std::move(*static_cast<D*>(from)));
      static_cast<D*>(from)->~D();
    } else {
      static_cast<D*>(self)->~D();
    }
  }
  template <class D>
  static void manage_heap(Op op, void* self, void* from) noexcept {
    if (op == Op::move)
      ::new (self) D*(*static_cast<D**>(from));
    else
      delete *static_cast<D**>(self);
  }
  [[noreturn]] static R empty_call(void*, std::span<const Tensor>) {
    throw Error(ErrorKind::InvalidArgument,
                "TensorFn: the function is empty (default-constructed, moved from, or made from a "
                "null function pointer)");
  }
  void reset() noexcept {
    if (manage_) manage_(Op::destroy, buf_, nullptr);
    manage_ = nullptr;
    call_ = &empty_call;
  }
  void take(TensorFn& o) noexcept {
    if (o.manage_)
      o.manage_(Op::move, buf_, o.buf_);
    else
      std::memcpy(buf_, o.buf_, kInline);  // trivially copyable callable, or empty
    call_ = std::exchange(o.call_, &empty_call);
    manage_ = std::exchange(o.manage_, nullptr);
  }

  alignas(std::max_align_t) mutable unsigned char buf_[kInline] = {};
  Call call_ = &empty_call;
  Manage manage_ = nullptr;  // null: nothing to do to move (memcpy) or destroy
};
using ScalarFn = TensorFn<Tensor>;
using MultiFn = TensorFn<std::vector<Tensor>>;

/// Gradients of a real one-element f(inputs) with respect to each input (zeros for inputs that do
/// not influence it). Records with grad mode on even under NoGradGuard. Throws InvalidArgument
/// when f's result is undefined, complex or has more than one element.
std::vector<Tensor> grad(const ScalarFn& f, std::span<const Tensor> inputs);
std::vector<Tensor> grad(const ScalarFn& f, std::initializer_list<Tensor> inputs);

struct ValueAndGrad {
  Tensor value;
  std::vector<Tensor> grads;
};
/// f(inputs) and grad(f, inputs) from one evaluation.
ValueAndGrad value_and_grad(const ScalarFn& f, std::span<const Tensor> inputs);
ValueAndGrad value_and_grad(const ScalarFn& f, std::initializer_list<Tensor> inputs);

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
VjpResult vjp(const MultiFn& f, std::span<const Tensor> primals);
VjpResult vjp(const MultiFn& f, std::initializer_list<Tensor> primals);
VjpResult vjp(const ScalarFn& f, std::span<const Tensor> primals);
VjpResult vjp(const ScalarFn& f, std::initializer_list<Tensor> primals);

struct JvpResult {
  std::vector<Tensor> outputs;
  std::vector<Tensor> tangents;
};
/// Forward mode: f's outputs at primals and their directional derivatives along `tangents` (one
/// per primal, the primal's shape and dtype: ShapeMismatch / DTypeMismatch; undefined = zero).
JvpResult jvp(const MultiFn& f, std::span<const Tensor> primals, std::span<const Tensor> tangents);
JvpResult jvp(const MultiFn& f, std::initializer_list<Tensor> primals,
              std::initializer_list<Tensor> tangents);
JvpResult jvp(const ScalarFn& f, std::span<const Tensor> primals, std::span<const Tensor> tangents);
JvpResult jvp(const ScalarFn& f, std::initializer_list<Tensor> primals,
              std::initializer_list<Tensor> tangents);

/// Jacobians of f at `inputs` by reverse mode: result[i] has shape f(inputs).shape ++
/// inputs[i].shape (element [o..., i...] = d out[o...] / d in_i[i...]). f is evaluated once,
/// then one pullback per output element; the result is differentiable itself. Real tensors
/// only: a complex input or output is InvalidArgument (the Jacobian of a function of complex
/// numbers is one complex matrix only for holomorphic functions; use jvp/vjp).
std::vector<Tensor> jacrev(const ScalarFn& f, std::span<const Tensor> inputs);
std::vector<Tensor> jacrev(const ScalarFn& f, std::initializer_list<Tensor> inputs);
/// The same Jacobians by forward mode: one jvp per input element (cheaper when the inputs have
/// fewer elements than the output).
std::vector<Tensor> jacfwd(const ScalarFn& f, std::span<const Tensor> inputs);
std::vector<Tensor> jacfwd(const ScalarFn& f, std::initializer_list<Tensor> inputs);
/// Hessian blocks of a real scalar f: result[i][j] has shape inputs[i].shape ++ inputs[j].shape
/// with entries d^2 f / d in_i d in_j (reverse over reverse: the gradient is evaluated once, then
/// one pullback of it per input element).
/// Real inputs only (InvalidArgument for complex ones: the complex Hessian needs both Wirtinger
/// blocks; use hvp).
std::vector<std::vector<Tensor>> hessian(const ScalarFn& f, std::span<const Tensor> inputs);
std::vector<std::vector<Tensor>> hessian(const ScalarFn& f, std::initializer_list<Tensor> inputs);

/// Hessian-vector products of a real scalar f: jvp of grad(f) along v (forward over reverse).
std::vector<Tensor> hvp(const ScalarFn& f, std::span<const Tensor> primals,
                        std::span<const Tensor> v);
std::vector<Tensor> hvp(const ScalarFn& f, std::initializer_list<Tensor> primals,
                        std::initializer_list<Tensor> v);

}  // namespace tenferro
