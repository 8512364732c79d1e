// Elementwise operations: arithmetic, analytic functions, comparisons, selection, dtype casts.
//
//   Tensor a = tenferro::randn({2, 3}, 1), b = tenferro::randn({3}, 2);
//   Tensor c = tenferro::exp(a) * b + 1.0;          // b broadcasts to [2, 3]
//   tenferro::add_into(c, c, a);                    // c += a, in place (same view)
//
// Broadcasting follows NumPy: shapes align at the trailing end; each pair of dimensions must be
// equal or one of them 1; missing leading dimensions count as 1. A failure is ShapeMismatch and
// names both shapes. Results are fresh contiguous tensors (except the `_into` ops and the
// documented no-op casts).
//
// Result dtypes (docs/dtypes.md). Tensor-tensor ops return promote(a.dtype(), b.dtype())
// (dtype.hpp); inputs of another dtype are converted first. A Scalar operand never raises
// precision: `f32 * 2.0` is f32. A Scalar with a non-zero imaginary part makes the result complex
// at the tensor's precision (`f32 * 1i` is c64); Scalar{2, 0} counts as real. Next to an integer
// tensor a whole-number Scalar keeps the integer dtype (`i32 + 2` is i32) and a fractional one
// gives f64 (`i32 * 0.5` is f64); next to a bool tensor a whole number gives i64.
//
// Bool and integer operands: add, sub, mul, neg, square, abs, sign, maximum, minimum compute in
// the integer dtype and wrap on overflow (two's complement; abs(INT_MIN) is INT_MIN); arithmetic
// on bool operands is DTypeMismatch (cast first, or use the logical ops). div, pow and the
// analytic functions (exp, log, sin, ..., erf) and the real binary functions (atan2, hypot,
// copysign, logaddexp) convert bool and integer operands to f64 first:
// i32 / i32 is true division giving f64, as NumPy.
//
// Comparisons and the logical ops return bool. lt/le/gt/ge, maximum and minimum are undefined on
// complex values (DTypeMismatch); eq/ne compare complex values exactly. The logical ops take any
// dtype and read non-zero (for complex: either part non-zero; NaN too) as true. where() takes a
// bool condition (or any real one, non-zero meaning true).
//
// Autodiff: every op here has forward and reverse rules, except comparisons, the logical ops,
// sign, the rounding ops (floor, ceil, round, trunc) and the classification ops (isnan, isinf,
// isfinite, signbit), which are piecewise constant and stop gradients; bool and integer results
// never carry a gradient. Complex gradients follow PyTorch's conjugate-Wirtinger
// convention: for a real loss L, grad_z = conj(dy/dz) * grad_y for holomorphic y = f(z) (e.g.
// mul: grad_a = grad_y * conj(b)); abs: grad_z = grad_y * z/|z| (0 at z = 0); a real input of a
// complex-valued op receives the real part of its complex gradient.
#pragma once

#include <optional>

#include "tenferro/tensor.hpp"

namespace tenferro {

// ---- Binary arithmetic (NumPy broadcasting, result dtype = promote) ----

/// a + b.
Tensor add(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, Scalar b);
/// a - b.
Tensor sub(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, Scalar b);
Tensor sub(Scalar a, const Tensor& b);
/// a * b.
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, Scalar b);
/// a / b (IEEE semantics: x/0 is inf or nan, no error).
Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, Scalar b);
Tensor div(Scalar a, const Tensor& b);
/// Larger / smaller of a and b, NaN-propagating; real dtypes only (complex: DTypeMismatch).
/// At ties the gradient is split equally between a and b.
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, Scalar b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, Scalar b);
/// a ** b (std::pow; real negative base with non-integer exponent gives nan; complex uses the
/// principal branch).
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, Scalar b);
Tensor pow(Scalar a, const Tensor& b);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator/(Scalar a, const Tensor& b);
// Plain numbers convert to Scalar: `2.0 * x`, `x / 2` work.

// ---- Unary (same dtype out, except abs) ----

/// -x.
Tensor neg(const Tensor& x);
Tensor operator-(const Tensor& x);
/// Complex conjugate; for a real dtype it returns x itself (no copy).
Tensor conj(const Tensor& x);
/// |x|; complex input gives the real dtype of the same precision.
Tensor abs(const Tensor& x);
/// x/|x| for complex, -1/0/1 for real (0 at 0). Stops gradients (derivative 0 a.e.).
Tensor sign(const Tensor& x);
/// x * x.
Tensor square(const Tensor& x);
/// e^x, natural log, sine, cosine, hyperbolic tangent, square root (complex: principal branch).
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sqrt(const Tensor& x);
/// 1 / sqrt(x).
Tensor rsqrt(const Tensor& x);
/// e^x - 1 and log(1 + x), accurate near 0 (complex too: see the formulas in
/// src/cpu/kernels/elementwise_math.hpp, Note [Complex expm1 and log1p]).
Tensor expm1(const Tensor& x);
Tensor log1p(const Tensor& x);
/// Tangent, hyperbolic sine and cosine, the inverse trigonometric functions (asin, acos, atan)
/// and the inverse hyperbolic ones (asinh, acosh, atanh): std:: on each element, so real inputs
/// get C99 Annex F's special values (acosh(x < 1), asin(|x| > 1) are NaN, atanh(+-1) is +-inf,
/// odd functions keep the sign of 0, atan(+-inf) is +-pi/2) and complex inputs the principal
/// branches and Annex G's special values of std::complex (branch cuts on the real axis outside
/// [-1, 1] for asin, acos, atanh, below 1 for acosh, on the imaginary axis outside [-i, i] for
/// atan, asinh). Holomorphic: tan' = 1 + tan^2, asin' = 1/sqrt(1 - z^2), acos' = -asin',
/// atan' = 1/(1 + z^2), asinh' = 1/sqrt(1 + z^2), acosh' = 1/(sqrt(z - 1) sqrt(z + 1)) (the
/// principal-branch form), atanh' = 1/(1 - z^2).
Tensor tan(const Tensor& x);
Tensor sinh(const Tensor& x);
Tensor cosh(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor asinh(const Tensor& x);
Tensor acosh(const Tensor& x);
Tensor atanh(const Tensor& x);
/// Base-2 and base-10 logarithms and 2^x. Real: std::log2, std::log10, std::exp2 (exact at
/// powers of two, log2(0) is -inf, log2(x < 0) NaN). Complex: log(z) / ln 2, log(z) / ln 10 and
/// exp(z ln 2), so their special values are those of log and exp, and the real functions on the
/// real axis (log2(8 + 0i) is exactly 3; Note [Complex log2, log10, exp2] in
/// src/primitives/analytic.cpp). Holomorphic.
Tensor log2(const Tensor& x);
Tensor log10(const Tensor& x);
Tensor exp2(const Tensor& x);
/// The error function (std::erf: erf(+-0) is +-0, erf(+-inf) is +-1); real dtypes only
/// (complex: DTypeMismatch), bool/integers give f64. Gradient 2/sqrt(pi) exp(-x^2).
Tensor erf(const Tensor& x);

// ---- Rounding, floor division, remainder, clamp, clip ----
/// Largest integer <= x, smallest integer >= x, nearest integer (half to even, as NumPy and
/// PyTorch), in x's dtype; the identity on bool and integers; real dtypes only. Piecewise
/// constant: no gradient flows.
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
/// The integer part, rounding toward zero (std::trunc: -0.5 gives -0, +-inf and NaN stay),
/// in x's dtype; the identity on bool and integers; real dtypes only. No gradient flows.
Tensor trunc(const Tensor& x);
/// floor(a / b) computed in the promoted dtype (integers stay integers: Python's //, so -7 // 2
/// is -4); integer division by 0 gives 0 and INT_MIN // -1 wraps to INT_MIN (never undefined
/// behaviour). Real dtypes; no gradient flows.
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, Scalar b);
/// a - b * floor(a / b): Python's %, the result has b's sign (remainder(-7, 2) is 1); integer
/// remainder by 0 gives 0. Real dtypes. Gradient 1 for a and -floor(a / b) for b (PyTorch).
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, Scalar b);
/// x limited to [lo, hi] (lo <= hi, real, not NaN: InvalidArgument otherwise); NaN stays NaN.
/// Real dtypes; an integer x with a fractional bound computes in f64. Gradient 1 inside
/// [lo, hi] (bounds included) and 0 outside, as PyTorch.
Tensor clamp(const Tensor& x, Scalar lo, Scalar hi);
/// The Array API's clip: x limited below by `min` and above by `max`, either of which may be
/// absent (an undefined Tensor / std::nullopt: no bound on that side; both absent: a copy of x).
/// Tensor bounds broadcast with x (the result has the broadcast shape); every result has x's
/// dtype (bounds are converted to it first, as cast(); the standard leaves bounds of another
/// dtype kind unspecified). NaN propagates as the standard's special cases say (and PyTorch's
/// clamp): NaN in x, in min or in max gives NaN there (NumPy 1.24's np.clip propagates a NaN of
/// x but ignores a NaN bound). Where min > max the result is max (NumPy: minimum(maximum(x,
/// min), max)). Real dtypes, bool excluded (DTypeMismatch for complex or bool x or bounds; a
/// complex Scalar bound is DTypeMismatch too; a NaN Scalar bound for an integer x, which could
/// not hold the NaN, is InvalidArgument). Gradient: to x where min <= x <= max (bounds
/// included, as clamp and PyTorch), to min where x < min, to max where the result is clipped by
/// max; NaN positions send it to the NaN operand.
Tensor clip(const Tensor& x, const Tensor& min, const Tensor& max);
Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max);

// ---- Floating-point classification (bool results, no gradient) ----
/// Whether each element is NaN, +-inf, or neither (finite). Complex: isnan is true when either
/// part is NaN, isinf when either part is infinite (also inf + NaN i), isfinite when both parts
/// are finite (Array API). Bool and integers: false, false, true.
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
/// Whether the sign bit is set (std::signbit: true for -0 and for a NaN with its sign bit set);
/// integers: x < 0, bool: false; complex: DTypeMismatch.
Tensor signbit(const Tensor& x);

// ---- Real binary functions (src/primitives/elementwise_binary_real.cpp) ----
// Broadcast, result dtype promote(a, b) (a Scalar operand as in add); bool/integers convert to
// f64 first (as div); complex: DTypeMismatch.

/// sqrt(a^2 + b^2) without overflow or underflow in between (std::hypot: hypot(+-inf, NaN) is
/// +inf). Gradient a / hypot and b / hypot (NaN at the origin, as PyTorch).
Tensor hypot(const Tensor& a, const Tensor& b);
Tensor hypot(const Tensor& a, Scalar b);
Tensor hypot(Scalar a, const Tensor& b);
/// |a| with the sign bit of b (std::copysign: copysign(1, -0) is -1, a NaN b's sign bit
/// counts). Gradient sign(a) * sign(result) for a (0 at a = 0, as PyTorch) and 0 for b.
Tensor copysign(const Tensor& a, const Tensor& b);
Tensor copysign(const Tensor& a, Scalar b);
Tensor copysign(Scalar a, const Tensor& b);
/// log(exp(a) + exp(b)) computed stably as max(a, b) + log1p(exp(-|a - b|)): never overflows;
/// NaN if either is NaN, +inf if either is +inf (and the other not NaN), a + log 2 when a == b
/// (so logaddexp(-inf, -inf) is -inf). Gradient: the logistic weights 1 / (1 + exp(b - a)) and
/// 1 / (1 + exp(a - b)), which stay 1 and 0 when a is +inf and b finite.
Tensor logaddexp(const Tensor& a, const Tensor& b);
Tensor logaddexp(const Tensor& a, Scalar b);
Tensor logaddexp(Scalar a, const Tensor& b);

// ---- Complex parts ----
/// Real part (x itself for a real dtype) and imaginary part (zeros of x's dtype for a real
/// dtype) in the real dtype of x's precision; differentiable (conjugate-Wirtinger convention).
Tensor real(const Tensor& x);
Tensor imag(const Tensor& x);
/// re + i im in the complex dtype of their promoted precision (bool/integers count as f64).
Tensor complex(const Tensor& re, const Tensor& im);

// ---- Comparisons, logical ops and selection (bool results) ----

/// a == b, a != b (complex allowed: exact equality of both parts).
Tensor eq(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, Scalar b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, Scalar b);
/// a < b, a <= b, a > b, a >= b; complex operands: DTypeMismatch.
Tensor lt(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, Scalar b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, Scalar b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, Scalar b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, Scalar b);
/// Elementwise a AND b, a OR b, a XOR b of the truth values (non-zero is true); any dtypes,
/// broadcast together; bool result.
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
/// x == 0 elementwise (NOT of the truth value); bool result.
Tensor logical_not(const Tensor& x);
/// cond ? a : b elementwise, all three broadcast together; result dtype promote(a, b).
/// cond is bool, or any real dtype read as non-zero = true (complex: DTypeMismatch).
/// Differentiable in a and b, not in cond.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
/// Alias of where().
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b);

// ---- dtype conversion ----

/// Converts to `dtype`, allowing every conversion: complex -> real keeps the real part (lossy,
/// explicit), f64 -> f32 rounds, floating -> integer truncates toward zero with NaN -> 0 and
/// out-of-range values saturating, i64 -> i32 keeps the low 32 bits, anything -> bool is
/// "non-zero". Casting to the tensor's own dtype returns x itself (no copy).
Tensor cast(const Tensor& x, DType dtype);
/// Like cast() but only for lossless conversions (is_lossless_cast); otherwise DTypeMismatch.
Tensor convert(const Tensor& x, DType dtype);

// ---- Writing into an existing tensor ----
//
// `out` must be defined and concrete, have exactly the result's shape and dtype (ShapeMismatch /
// DTypeMismatch; no broadcasting or conversion of `out`), have no two elements at one address,
// and may share memory with an input only when it is exactly the same view (same storage,
// offset, shape, strides and dtype): `add_into(x, x, y)` is fine, writing into a shifted or
// transposed view of an input is InvalidArgument. Operands that require grad, carry a tangent or
// are traced: Unsupported (these ops are not recorded), except that under NoGradGuard a tensor
// whose only state is reverse mode may be read and written (a parameter update; see
// writable_in_place in tenferro/autodiff.hpp). On any error `out` is unchanged.

void add_into(Tensor& out, const Tensor& a, const Tensor& b);
void add_into(Tensor& out, const Tensor& a, Scalar b);
void sub_into(Tensor& out, const Tensor& a, const Tensor& b);
void sub_into(Tensor& out, const Tensor& a, Scalar b);
void mul_into(Tensor& out, const Tensor& a, const Tensor& b);
void mul_into(Tensor& out, const Tensor& a, Scalar b);
void div_into(Tensor& out, const Tensor& a, const Tensor& b);
void div_into(Tensor& out, const Tensor& a, Scalar b);
void maximum_into(Tensor& out, const Tensor& a, const Tensor& b);
void maximum_into(Tensor& out, const Tensor& a, Scalar b);
void minimum_into(Tensor& out, const Tensor& a, const Tensor& b);
void minimum_into(Tensor& out, const Tensor& a, Scalar b);
void pow_into(Tensor& out, const Tensor& a, const Tensor& b);
void pow_into(Tensor& out, const Tensor& a, Scalar b);

void neg_into(Tensor& out, const Tensor& x);
void conj_into(Tensor& out, const Tensor& x);
void abs_into(Tensor& out, const Tensor& x);
void square_into(Tensor& out, const Tensor& x);
void exp_into(Tensor& out, const Tensor& x);
void log_into(Tensor& out, const Tensor& x);
void sin_into(Tensor& out, const Tensor& x);
void cos_into(Tensor& out, const Tensor& x);
void tanh_into(Tensor& out, const Tensor& x);
void sqrt_into(Tensor& out, const Tensor& x);
void rsqrt_into(Tensor& out, const Tensor& x);
void expm1_into(Tensor& out, const Tensor& x);
void log1p_into(Tensor& out, const Tensor& x);

// ---- Angles and polar form (src/primitives/polar.cpp) ----

/// std::atan2(y, x) elementwise (the angle of the point (x, y) in [-pi, pi], signed zeros and
/// infinities as std::atan2), broadcast, result dtype promote(y, x); bool/integers convert to
/// f64 (as div); complex is DTypeMismatch. Gradient d/dy = x/(x^2+y^2), d/dx = -y/(x^2+y^2).
Tensor atan2(const Tensor& y, const Tensor& x);
/// The argument of z in (-pi, pi] in z's real dtype, exactly std::arg (so a negative real with a
/// -0 imaginary part gives -pi). Real x: 0 for x >= 0 (also -0), pi for x < 0, NaN stays NaN
/// (NumPy/PyTorch); bool/integers give f64. Gradient: complex
/// z as PyTorch's angle_backward, grad_z = grad * (-imag(z), real(z)) / |z|^2 read as a
/// complex number (0 at z = 0); a real input gets gradient 0.
Tensor angle(const Tensor& z);
/// abs * (cos(angle) + i sin(angle)) (torch.polar): real floating operands of one dtype
/// (DTypeMismatch otherwise; f32 -> c64, f64 -> c128), broadcast. Differentiable in both. Built
/// on complex(re, im), whose re + i*im makes the real part NaN when the imaginary part is
/// infinite (polar(inf, pi/2)); finite inputs are exact products.
Tensor polar(const Tensor& abs, const Tensor& angle);

}  // namespace tenferro
