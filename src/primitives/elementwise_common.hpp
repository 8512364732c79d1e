// The generic elementwise primitives: UnaryPrim<Op>, BinaryPrim<Op>, and the rule helpers that
// make each op's derivative one line (STYLE.md point 2, JAX defjvp/deflinear).
//
// An op is a small struct (see elementwise_unary.cpp, analytic.cpp, elementwise_binary.cpp):
//   name, flags (complex_ok, to_real), apply<T>(x[, y]) -- the element function --, optionally
//   `simd` (its Highway loop for contiguous f32/f64, cpu/kernels/simd.hpp), and its rule:
//   - Rule::holomorphic: da(a, b, y) [, db(a, b, y)] give the partial derivatives as Partials;
//     JVP = sum_i d_i * t_i, VJP_i = conj(d_i) * ct (Note [Complex gradients]);
//   - Rule::self_adjoint (unary linear ops with op^H = op: neg, conj): JVP = op(t), VJP = op(ct);
//   - Rule::custom: the op defines jvp(x, y, t) and vjp(x, y, ct) itself (abs);
//   - Rule::none: piecewise constant, differentiable() is false (comparisons, rounding).
//
// Note [Complex gradients]: PyTorch's conjugate-Wirtinger convention. For a real loss L and
// holomorphic y = f(z), grad_z = conj(f'(z)) * grad_y; a real input of a complex-valued op
// receives the real part of that (cast to the input's dtype drops the imaginary part). VJPs are
// then summed back over broadcast dimensions (sum_to_shape) and cast to the input's dtype.
#pragma once

#include <array>
#include <string>

#include "core/strided.hpp"
#include "cpu/kernels/elementwise.hpp"
#include "primitives/primitive.hpp"
#include "primitives/rules.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro::detail {

enum class Rule { holomorphic, self_adjoint, custom, none };

/// How an op treats bool and integer operands (Note [Integer dtypes] in docs/dtypes.md).
enum class Ints : std::uint8_t {
  to_float,  // converted to default_float first: exp(i32) is f64, i32 / i32 true-divides
  native,    // computed in the integer dtype, wrapping on overflow (add, mul, comparisons)
};

/// Defaults an op struct inherits and overrides.
struct UnaryDefaults {
  static constexpr bool complex_ok = true;         // defined on complex inputs
  static constexpr Ints ints = Ints::to_float;     // bool/integer operands
  static constexpr bool bool_ok = false;           // Ints::native: bool too (else error)
  static constexpr bool to_bool = false;           // bool output (logical_not)
  static constexpr bool to_real = false;           // complex input -> real output (abs)
  static constexpr const char* complex_why = "";   // why complex is refused, if it is
  static constexpr bool identity_on_real = false;  // returns a real input itself (conj)
  static constexpr bool ints_only = false;         // bool/integer operands only (bitwise ops)
  static constexpr bool sign_agnostic = false;     // Note [Sign-agnostic kernels]
  static constexpr std::int64_t cost = kernels::kCheapCost;  // cycles/element (parallel split)
  static constexpr kernels::simd::Unary simd = kernels::simd::Unary::none;  // its f32/f64 loop
};
struct BinaryDefaults {
  static constexpr bool complex_ok = true;
  static constexpr Ints ints = Ints::to_float;
  static constexpr bool bool_ok = false;
  static constexpr bool to_bool = false;  // bool output (comparisons, logical ops)
  static constexpr bool to_real = false;  // result is the real dtype of the promoted inputs
  static constexpr const char* complex_why = "";
  static constexpr bool ints_only = false;      // bool/integer operands only (bitwise ops)
  static constexpr bool sign_agnostic = false;  // Note [Sign-agnostic kernels]
  static constexpr std::int64_t cost = kernels::kCheapCost;
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::none;  // its f32/f64 loop
  // op(a, b) == op(b, a) and da(a, b) == db(b, a): one operand passed twice (x * x) has two equal
  // cotangents, computed once (Note [Twin cotangents] in src/autodiff/accumulate.cpp).
  static constexpr bool commutative = false;
};

/// A partial derivative: the tensor `t` (when defined) times the constant `c`.
struct Partial {
  Tensor t;
  Scalar c = 1.0;
  Partial(Tensor tensor) : t(std::move(tensor)) {}  // NOLINT: rules return tensors directly
  Partial(Scalar constant) : c(constant) {}         // NOLINT
  Partial(double constant) : c(constant) {}         // NOLINT
};

/// x * p (x is a tangent or cotangent).
Tensor scale(const Tensor& x, const Partial& p);
/// conj(p).
Partial conj(Partial p);
/// A JVP result shaped and typed like the primal output y (broadcast + cast as needed).
Tensor fit_tangent(const Tensor& t, const Tensor& y);
/// A VJP result reduced to x's shape (sum over broadcast dims) and cast to x's dtype.
Tensor fit_cotangent(const Tensor& g, const Tensor& x);
/// True when `a` and `b` are one value: the same elements of one storage, with the same autodiff
/// and trace state (so the same tangents at every level below).
inline bool same_operand(const Tensor& a, const Tensor& b) noexcept {
  return a.storage().get() == b.storage().get() && a.layout() == b.layout() &&
         a.offset() == b.offset() && a.aux() == b.aux();
}
/// a + b where an undefined operand means zero.
Tensor add_maybe(const Tensor& a, const Tensor& b);

/// NumPy broadcast of two or three shapes; ShapeMismatch naming the op and every shape.
Dims broadcast_shapes(std::string_view op, std::span<const Tensor> in);
/// x when it has dtype d, else a contiguous converted copy kept in `holder` (mixed-dtype inputs
/// are converted before the loop; same-dtype inputs cost nothing).
const Tensor& with_dtype(const Tensor& x, DType d, Tensor& holder);
/// Dtype of a Scalar operand next to a tensor of dtype d (docs/dtypes.md, "Scalars"): d, made
/// complex by an imaginary part; next to an integer tensor, d when the value is a whole number
/// that fits d, else default_float; next to a bool tensor, i64 for a whole number, else
/// default_float.
DType scalar_dtype(DType d, Scalar s);
/// The scalar converted to T (its real part for a real T; cast() semantics for integers).
template <class T>
T scalar_as(Scalar s) {
  if constexpr (is_complex_v<T>)
    return T(static_cast<real_t<T>>(s.real()), static_cast<real_t<T>>(s.imag()));
  else
    return convert_element<T>(s.real());
}
[[noreturn]] void throw_complex_unsupported(std::string_view op, std::string_view why,
                                            std::span<const Tensor> in);
[[noreturn]] void throw_bool_unsupported(std::string_view op, std::span<const Tensor> in);
/// DTypeMismatch for operands of an op defined on bool and integers only (bitwise ops; without
/// bool_ok, integers only) that promote to another dtype.
[[noreturn]] void throw_integers_only(std::string_view op, bool bool_ok,
                                      std::span<const Tensor> in);
/// The dtype of a Scalar operand of an op defined on integers only (ints_only) next to an
/// integer or bool tensor of dtype d: scalar_dtype's integer dtype when the value is a whole
/// number that fits it, else i64 for a whole number in [-2^63, 2^63) (as a Python int, NumPy);
/// any other Scalar (fractional, complex, beyond i64) is DTypeMismatch naming op, the tensor and
/// the value.
DType integer_scalar_dtype(std::string_view op, std::span<const Tensor> in, Scalar s);

/// The dtype an op computes in for operands promoted to d: d itself for floating dtypes; for
/// bool and integers as the op's Ints policy says. Throws DTypeMismatch for complex operands of
/// an op defined on real values only, for bool operands of arithmetic, and for floating operands
/// of an op defined on integers only (ints_only).
template <class Op>
DType compute_dtype(DType d, std::span<const Tensor> in) {
  if constexpr (Op::ints_only) {
    if (!is_integral(d) || (d == DType::boolean && !Op::bool_ok))
      throw_integers_only(Op::name, Op::bool_ok, in);
  }
  if (is_integral(d)) {
    if constexpr (Op::ints == Ints::to_float) return default_float;
    if (d == DType::boolean && !Op::bool_ok) throw_bool_unsupported(Op::name, in);
    return d;
  }
  if (!Op::complex_ok && is_complex(d)) throw_complex_unsupported(Op::name, Op::complex_why, in);
  return d;
}
/// The op's output dtype when it computes in c.
template <class Op>
constexpr DType output_dtype(DType c) {
  return Op::to_bool ? DType::boolean : Op::to_real ? real_dtype(c) : c;
}
/// True for the element types an op's kernel is instantiated for (compute_dtype's results).
template <class Op, class T>
inline constexpr bool computes_in_v = std::is_integral_v<T>
                                          ? Op::ints == Ints::native &&
                                                (Op::bool_ok || !std::is_same_v<T, bool>)
                                          : !Op::ints_only && (Op::complex_ok || !is_complex_v<T>);

template <class T>
kernels::View<const T> in_view(const Tensor& x) {
  return {static_cast<const T*>(x.data_ptr()), x.shape(), x.strides()};
}
template <class T>
kernels::View<T> out_view(const Tensor& x) {
  return {static_cast<T*>(x.data_ptr()), x.shape(), x.strides()};
}

// Note [Sign-agnostic kernels]: wrapping add/sub/mul/neg/square, equality, the logical ops and
// the rounding ops (the identity on integers) give the same bits for uN as for iN: two's
// complement arithmetic modulo 2^N does not depend on how the bits are read. Such an op sets
// `sign_agnostic` and runs its iN kernel on uN data (C++ lets an object be read through the
// signed/unsigned variant of its type), so the four unsigned dtypes add no kernel code for it.
// Ops that order or divide (lt, maximum, abs, floor_divide, ...) keep their own uN kernels.
template <class Op, class T, class = void>
struct kernel_type {
  using type = T;
};
template <class Op, class T>
struct kernel_type<Op, T,
                   std::enable_if_t<Op::sign_agnostic && std::is_integral_v<T> &&
                                    std::is_unsigned_v<T> && !std::is_same_v<T, bool>>> {
  using type = std::make_signed_t<T>;
};
template <class Op, class T>
using kernel_t = typename kernel_type<Op, T>::type;

template <class Op, class T>
using unary_out_t =
    std::conditional_t<Op::to_bool, bool, std::conditional_t<Op::to_real, real_t<T>, T>>;

// Op's element function for compute type T and output type To, as one named type: its run
// (Note [Elementwise runs] in cpu/kernels/elementwise.hpp) is the only loop code an (op, dtype)
// instantiates, shared by execute() and the prepared kernel.
template <class Op, class To, class T>
struct UnaryFn {
  To operator()(T v) const { return static_cast<To>(Op::apply(v)); }
};
template <class Op, class To, class T>
struct BinaryFn {
  To operator()(T a, T b) const { return static_cast<To>(Op::apply(a, b)); }
};
// Op's run for compute type T.
template <class Op, class T>
inline constexpr kernels::UnaryRun unary_run_of =
    &kernels::unary_run<unary_out_t<Op, T>, T, UnaryFn<Op, unary_out_t<Op, T>, T>, Op::simd>;
template <class Op, class T>
inline constexpr kernels::BinaryRun binary_run_of =
    &kernels::binary_run<unary_out_t<Op, T>, T, BinaryFn<Op, unary_out_t<Op, T>, T>, Op::simd>;

// ---- unary ----

template <class Op>
class UnaryPrim final : public PrimitiveWith<UnaryPrim<Op>> {
 public:
  std::string_view name() const override { return Op::name; }
  bool accepts_integers() const override { return true; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({output_dtype<Op>(compute_dtype<Op>(in[0].dtype(), in)), in[0].shape()});
  }
  bool try_view(const Tensor& x, Tensor& out) const override {
    if constexpr (Op::identity_on_real) {
      if (!is_complex(x.dtype())) {
        out = x;
        return true;
      }
    }
    return false;
  }
  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_dtype(compute_dtype<Op>(in[0].dtype(), in), [&](auto z) {
      using T = decltype(z);
      if constexpr (computes_in_v<Op, T>) {
        using K = kernel_t<Op, T>;  // Note [Sign-agnostic kernels]
        using To = unary_out_t<Op, K>;
        Tensor hx;
        const Tensor& x = with_dtype(in[0], dtype_v<T>, hx);
        kernels::map1(ctx, unary_run_of<Op, K>, kernels::erase(out_view<To>(out[0])),
                      kernels::erase(in_view<K>(x)), Op::cost);
      }
    });
  }
  std::unique_ptr<PreparedKernel> prepare(std::span<const Tensor> in,
                                          std::span<const TensorSpec> out) const override;
  bool writes_strided_output() const override { return true; }
  bool differentiable() const override { return Op::rule != Rule::none; }

  void jvp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (!t[0].defined()) return;
    if constexpr (Op::rule == Rule::holomorphic)
      out_t[0] = fit_tangent(scale(t[0], Op::da(x[0], y[0])), y[0]);
    else if constexpr (Op::rule == Rule::self_adjoint)
      out_t[0] = bind1(*this, std::span<const Tensor>(&t[0], 1));
    else if constexpr (Op::rule == Rule::custom)
      out_t[0] = Op::jvp(x[0], y[0], t[0]);
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if (!ct[0].defined() || !needs[0]) return;
    if constexpr (Op::rule == Rule::holomorphic)
      in_ct[0] = fit_cotangent(scale(ct[0], conj(Op::da(x[0], y[0]))), x[0]);
    else if constexpr (Op::rule == Rule::self_adjoint)
      in_ct[0] = bind1(*this, std::span<const Tensor>(&ct[0], 1));
    else if constexpr (Op::rule == Rule::custom)
      in_ct[0] = Op::vjp(x[0], y[0], ct[0]);
  }
};

// ---- binary ----

/// Where a Scalar operand sits; `none` means two tensor inputs.
enum class ScalarSide : std::uint8_t { none, left, right };

template <class Op>
class BinaryPrim final : public PrimitiveWith<BinaryPrim<Op>> {
 public:
  BinaryPrim() = default;
  BinaryPrim(ScalarSide side, Scalar s) : side_(side), s_(s) {}

  std::string_view name() const override { return Op::name; }
  std::string params() const override {
    if (side_ == ScalarSide::none) return {};
    return std::string(side_ == ScalarSide::left ? "lhs=" : "rhs=") + "(" + round_trip(s_.real()) +
           "," + round_trip(s_.imag()) + ")";
  }
  // The scalar is part of the identity only when there is one (it stays {} otherwise).
  auto key() const { return std::tie(side_, s_); }

  /// The dtype both operands are converted to before the element function runs.
  DType common_dtype(std::span<const Tensor> in) const {
    if constexpr (Op::ints_only) {
      if (side_ != ScalarSide::none && is_integral(in[0].dtype()))
        return compute_dtype<Op>(integer_scalar_dtype(Op::name, in, s_), in);
    }
    const DType d = side_ != ScalarSide::none ? scalar_dtype(in[0].dtype(), s_)
                                              : promote(in[0].dtype(), in[1].dtype());
    return compute_dtype<Op>(d, in);
  }

  bool accepts_integers() const override { return true; }
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    Dims shape = side_ == ScalarSide::none ? broadcast_shapes(Op::name, in) : in[0].shape();
    out.push_back({output_dtype<Op>(common_dtype(in)), std::move(shape)});
  }

  void execute(ExecContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) const override {
    visit_dtype(common_dtype(in), [&](auto z) {
      using T = decltype(z);
      if constexpr (computes_in_v<Op, T>) {
        using K = kernel_t<Op, T>;  // Note [Sign-agnostic kernels]
        using To = unary_out_t<Op, K>;
        constexpr kernels::BinaryRun run = binary_run_of<Op, K>;
        const K s = static_cast<K>(scalar_as<T>(s_));      // T's value, K's bits
        const kernels::AnyView sv{&s, {}, {}, sizeof(K)};  // rank 0: broadcasts everywhere
        const kernels::AnyView o = kernels::erase(out_view<To>(out[0]));
        Tensor hx, hy;
        const kernels::AnyView x = kernels::erase(in_view<K>(with_dtype(in[0], dtype_v<T>, hx)));
        if (side_ == ScalarSide::right) {
          kernels::map2(ctx, run, o, x, sv, Op::cost);
        } else if (side_ == ScalarSide::left) {
          kernels::map2(ctx, run, o, sv, x, Op::cost);
        } else {
          const Tensor& y = with_dtype(in[1], dtype_v<T>, hy);
          kernels::map2(ctx, run, o, x, kernels::erase(in_view<K>(y)), Op::cost);
        }
      }
    });
  }
  std::unique_ptr<PreparedKernel> prepare(std::span<const Tensor> in,
                                          std::span<const TensorSpec> out) const override;
  bool writes_strided_output() const override { return true; }
  bool differentiable() const override { return Op::rule != Rule::none; }

  void jvp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if constexpr (Op::rule == Rule::holomorphic) {
      const auto [a, b] = operands(x);
      Tensor r;
      if (t[0].defined())
        r = scale(t[0], side_ == ScalarSide::left ? Op::db(a, b, y[0]) : Op::da(a, b, y[0]));
      if (side_ == ScalarSide::none && t[1].defined())
        r = add_maybe(r, scale(t[1], Op::db(a, b, y[0])));
      if (r.defined()) out_t[0] = fit_tangent(r, y[0]);
    }
  }
  void vjp(std::span<const Tensor> x, std::span<const Tensor> y, std::span<const Tensor> ct,
           std::span<const bool> needs, std::span<Tensor> in_ct) const override {
    if constexpr (Op::rule == Rule::holomorphic) {
      if (!ct[0].defined()) return;
      const auto [a, b] = operands(x);
      if (needs[0]) {
        Partial d = side_ == ScalarSide::left ? Op::db(a, b, y[0]) : Op::da(a, b, y[0]);
        in_ct[0] = fit_cotangent(scale(ct[0], conj(std::move(d))), x[0]);
        if (Op::commutative && side_ == ScalarSide::none && needs[1] && same_operand(x[0], x[1])) {
          in_ct[1] = in_ct[0];
          return;
        }
      }
      if (side_ == ScalarSide::none && needs[1])
        in_ct[1] = fit_cotangent(scale(ct[0], conj(Op::db(a, b, y[0]))), x[1]);
    }
  }

 private:
  // The two operands as tensors; the scalar becomes a rank-0 constant (rules only, never on the
  // eager hot path).
  std::pair<Tensor, Tensor> operands(std::span<const Tensor> x) const {
    if (side_ == ScalarSide::none) return {x[0], x[1]};
    Tensor s = scalar_tensor(s_, scalar_dtype(x[0].dtype(), s_));
    if (side_ == ScalarSide::left) return {s, x[0]};
    return {x[0], s};
  }

  ScalarSide side_ = ScalarSide::none;
  Scalar s_{};
};

// ---- prepared kernels (Note [Eager cache]) ----
//
// Note [Prepared elementwise]: for fixed operand layouts an elementwise op's loop path and, for
// broadcast or strided operands, its collapsed iteration space (MapPlan, the broadcast plan) are
// fixed, as is the element type. The prepared kernel keeps both, so an eager call on a cached
// layout goes straight to the typed loop: no dtype dispatch, no dense checks, no StridedLoop.
// Mixed-dtype operands (converted before the loop) keep execute().

/// A contiguous output's view for planning (no data pointer yet).
template <class T>
kernels::View<T> spec_view(const TensorSpec& s, const Dims& strides) {
  return {nullptr, s.shape, strides};
}

template <class Op, class T>
class PreparedUnary final : public PreparedKernel {
 public:
  using To = unary_out_t<Op, T>;
  explicit PreparedUnary(kernels::MapPlan<2> plan) : plan_(std::move(plan)) {}
  void run(ExecContext& ctx, InputRefs in, std::span<Tensor> out) override {
    kernels::run_map1(ctx, unary_run_of<Op, T>, plan_, out[0].data_ptr(), in[0]->data_ptr(),
                      Op::cost);
  }

 private:
  kernels::MapPlan<2> plan_;
};

template <class Op>
std::unique_ptr<PreparedKernel> UnaryPrim<Op>::prepare(std::span<const Tensor> in,
                                                       std::span<const TensorSpec> out) const {
  std::unique_ptr<PreparedKernel> r;
  if (compute_dtype<Op>(in[0].dtype(), in) != in[0].dtype()) return r;  // converted: execute()
  const Dims out_strides = contiguous_strides(out[0].shape);
  visit_dtype(in[0].dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (computes_in_v<Op, T>) {
      using K = kernel_t<Op, T>;  // Note [Sign-agnostic kernels]
      using To = unary_out_t<Op, K>;
      r = std::make_unique<PreparedUnary<Op, K>>(kernels::plan_map1(
          kernels::erase(spec_view<To>(out[0], out_strides)), kernels::erase(in_view<K>(in[0]))));
    }
  });
  return r;
}

template <class Op, class T>
class PreparedBinary final : public PreparedKernel {
 public:
  using To = unary_out_t<Op, T>;
  // s: the scalar operand already converted to the compute dtype (and read as T's bits).
  PreparedBinary(kernels::MapPlan<3> plan, ScalarSide side, T s)
      : plan_(std::move(plan)), side_(side), s_(s) {}
  void run(ExecContext& ctx, InputRefs in, std::span<Tensor> out) override {
    const T* a = static_cast<const T*>(in[0]->data_ptr());
    const T* x = side_ == ScalarSide::left ? &s_ : a;
    const T* y = side_ == ScalarSide::none    ? static_cast<const T*>(in[1]->data_ptr())
                 : side_ == ScalarSide::right ? &s_
                                              : a;
    kernels::run_map2(ctx, binary_run_of<Op, T>, plan_, out[0].data_ptr(), x, y, Op::cost);
  }

 private:
  kernels::MapPlan<3> plan_;
  ScalarSide side_;
  T s_;
};

template <class Op>
std::unique_ptr<PreparedKernel> BinaryPrim<Op>::prepare(std::span<const Tensor> in,
                                                        std::span<const TensorSpec> out) const {
  const DType d = common_dtype(in);
  for (const Tensor& t : in)
    if (t.dtype() != d) return nullptr;  // converted copies: execute()
  std::unique_ptr<PreparedKernel> r;
  const Dims out_strides = contiguous_strides(out[0].shape);
  visit_dtype(d, [&](auto z) {
    using T = decltype(z);
    if constexpr (computes_in_v<Op, T>) {
      using K = kernel_t<Op, T>;  // Note [Sign-agnostic kernels]
      using To = unary_out_t<Op, K>;
      const kernels::AnyView sv{nullptr, {}, {}, sizeof(K)};  // the scalar: rank 0
      const kernels::AnyView a = kernels::erase(in_view<K>(in[0]));
      const kernels::AnyView x = side_ == ScalarSide::left ? sv : a;
      const kernels::AnyView y = side_ == ScalarSide::none    ? kernels::erase(in_view<K>(in[1]))
                                 : side_ == ScalarSide::right ? sv
                                                              : a;
      r = std::make_unique<PreparedBinary<Op, K>>(
          kernels::plan_map2(kernels::erase(spec_view<To>(out[0], out_strides)), x, y), side_,
          static_cast<K>(scalar_as<T>(s_)));
    }
  });
  return r;
}

// ---- the catalog list: one entry per op, outside its block ----

/// The parameter-free elementwise primitive behind public op `name` ("mul", "exp", "where"),
/// or null. Rule tests and program printing look primitives up here; each family file lists
/// its ops once (find_unary/find_binary below).
/// For binary ops, `side`/`s` select the tensor-Scalar form (ignored by other ops).
std::shared_ptr<const Primitive> elementwise_primitive(std::string_view name,
                                                       ScalarSide side = ScalarSide::none,
                                                       Scalar s = {});
std::shared_ptr<const Primitive> find_analytic(std::string_view name);
std::shared_ptr<const Primitive> find_elementwise_unary(std::string_view name);
std::shared_ptr<const Primitive> find_elementwise_binary(std::string_view name, ScalarSide side,
                                                         Scalar s);
std::shared_ptr<const Primitive> find_elementwise_compare(std::string_view name, ScalarSide side,
                                                          Scalar s);
std::shared_ptr<const Primitive> find_analytic_trig(std::string_view name);
std::shared_ptr<const Primitive> find_elementwise_classify(std::string_view name);
std::shared_ptr<const Primitive> find_elementwise_binary_real(std::string_view name,
                                                              ScalarSide side, Scalar s);
std::shared_ptr<const Primitive> find_polar(std::string_view name, ScalarSide side, Scalar s);
std::shared_ptr<const Primitive> find_elementwise_bitwise(std::string_view name, ScalarSide side,
                                                          Scalar s);

template <class... Ops>
std::shared_ptr<const Primitive> find_unary(std::string_view name) {
  std::shared_ptr<const Primitive> r;
  ((name == Ops::name ? (void)(r = std::make_shared<UnaryPrim<Ops>>()) : (void)0), ...);
  return r;
}
template <class... Ops>
std::shared_ptr<const Primitive> find_binary(std::string_view name, ScalarSide side, Scalar s) {
  std::shared_ptr<const Primitive> r;
  ((name == Ops::name ? (void)(r = std::make_shared<BinaryPrim<Ops>>(side, s)) : (void)0), ...);
  return r;
}

/// Public-function helpers: build the primitive and bind.
template <class Op>
Tensor apply_unary(const Tensor& x) {
  return bind1(UnaryPrim<Op>(), std::span<const Tensor>(&x, 1));
}
template <class Op>
Tensor apply_binary(const Tensor& a, const Tensor& b) {
  return bind1(BinaryPrim<Op>(), a, b);
}
template <class Op>
Tensor apply_binary(const Tensor& a, Scalar b) {
  return bind1(BinaryPrim<Op>(ScalarSide::right, b), a);
}
template <class Op>
Tensor apply_binary(Scalar a, const Tensor& b) {
  return bind1(BinaryPrim<Op>(ScalarSide::left, a), b);
}
/// "<Op::name>_into" as a static string (the storage keeps the pointer as the name of its last
/// in-place writer, Note [Version counter] in tenferro/storage.hpp).
template <class Op>
struct IntoName {
  static constexpr std::size_t size = std::char_traits<char>::length(Op::name);
  static constexpr std::array<char, size + 6> value = [] {
    std::array<char, size + 6> a{};
    for (std::size_t i = 0; i < size; ++i) a[i] = Op::name[i];
    for (std::size_t i = 0; i < 5; ++i) a[size + i] = "_into"[i];
    return a;
  }();
};
template <class Op>
void unary_into(Tensor& out, const Tensor& x) {
  bind_into(UnaryPrim<Op>(), std::span<const Tensor>(&x, 1), out, IntoName<Op>::value.data());
}
template <class Op>
void binary_into(Tensor& out, const Tensor& a, const Tensor& b) {
  const Tensor in[2] = {a, b};
  bind_into(BinaryPrim<Op>(), in, out, IntoName<Op>::value.data());
}
template <class Op>
void binary_into(Tensor& out, const Tensor& a, Scalar b) {
  bind_into(BinaryPrim<Op>(ScalarSide::right, b), std::span<const Tensor>(&a, 1), out,
            IntoName<Op>::value.data());
}

}  // namespace tenferro::detail
