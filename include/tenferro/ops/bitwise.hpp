// Bitwise operations of the Array API 2023.12: and, or, xor, invert, left and right shift.
//
//   Tensor m = tenferro::bitwise_and(flags, 0x0F);            // i32 stays i32
//   Tensor y = tenferro::bitwise_left_shift(x, counts);       // x * 2^counts, wrapping
//
// Dtypes: bitwise_and/or/xor/invert take bool and every integer dtype; the shifts take the
// integer dtypes only (bool with bool is DTypeMismatch; a bool next to an integer operand
// promotes to the integer dtype, as NumPy). Floating and complex operands are
// DTypeMismatch naming the op and the operands' dtypes (cast() to an integer dtype first). The
// ops are written for every integral element type of visit_dtype, so new integer dtypes are
// covered without changes.
//
// Broadcasting and promotion as every binary elementwise op (elementwise.hpp, docs/dtypes.md):
// NumPy broadcasting (ShapeMismatch naming both shapes), result dtype promote(a, b) (bool with
// bool stays bool: and/or/xor are then the logical ops). A Scalar operand keeps the tensor's
// integer dtype when it is a whole number that fits it; any other whole number in
// [-2^63, 2^63) gives i64 (next to a bool tensor too; x_i32 & 2^40 is i64, as NumPy); a
// fractional, complex or larger Scalar gives DTypeMismatch naming the op, the Scalar and the
// tensor. A Scalar passes through a double: integers beyond 2^53 are not exact there (use a 0-d
// tensor of the dtype instead).
//
// Shift counts (Note [Shift counts] in src/primitives/elementwise_bitwise.cpp; the standard
// leaves negative counts undefined, tenferro defines every count as NumPy does): for a count c
// in [0, bits) of the promoted dtype, x << c is x * 2^c wrapped to the dtype (two's complement)
// and x >> c is the arithmetic shift floor(x / 2^c). A count outside [0, bits) -- negative or
// too large -- shifts every bit out: x << c is 0, and x >> c is 0 for x >= 0 and -1 for x < 0.
// No count is an error, and no count is undefined behaviour.
//
// Autodiff: no gradient (integer results; the ops are not differentiable). Every op works
// eagerly, in traced and prepared programs and inside an execution scope.
#pragma once

#include "tenferro/tensor.hpp"

namespace tenferro {

/// a & b elementwise (bool: logical and).
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_and(const Tensor& a, Scalar b);
Tensor bitwise_and(Scalar a, const Tensor& b);
/// a | b elementwise (bool: logical or).
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, Scalar b);
Tensor bitwise_or(Scalar a, const Tensor& b);
/// a ^ b elementwise (bool: logical xor).
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, Scalar b);
Tensor bitwise_xor(Scalar a, const Tensor& b);
/// ~x elementwise: every bit flipped (signed: -x - 1); bool: logical not. Same dtype as x.
Tensor bitwise_invert(const Tensor& x);
/// a << b elementwise (integers): a * 2^b wrapped; 0 for a count outside [0, bits).
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, Scalar b);
Tensor bitwise_left_shift(Scalar a, const Tensor& b);
/// a >> b elementwise (integers), arithmetic (sign-filling); for a count outside [0, bits):
/// 0 for a >= 0, -1 for a < 0.
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, Scalar b);
Tensor bitwise_right_shift(Scalar a, const Tensor& b);

}  // namespace tenferro
