// Binary arithmetic primitives: add, sub, mul, div, maximum, minimum, pow, floor_divide and
// remainder (comparisons and logical ops: elementwise_compare.cpp). One block per op: element
// function + partials (elementwise_common.hpp explains the rule kinds).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "cpu/kernels/elementwise_math.hpp"
#include "primitives/elementwise_common.hpp"

namespace tenferro {
namespace detail {
namespace {

struct AddOp : BinaryDefaults {
  static constexpr const char* name = "add";
  static constexpr bool sign_agnostic = true;  // wraps: Note [Sign-agnostic kernels]
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::add;
  static constexpr Ints ints = Ints::native;
  static constexpr bool commutative = true;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::add_of(a, b);
  }
  static Partial da(const Tensor&, const Tensor&, const Tensor&) { return 1.0; }
  static Partial db(const Tensor&, const Tensor&, const Tensor&) { return 1.0; }
};

struct SubOp : BinaryDefaults {
  static constexpr const char* name = "sub";
  static constexpr bool sign_agnostic = true;  // wraps: Note [Sign-agnostic kernels]
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::sub;
  static constexpr Ints ints = Ints::native;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::sub_of(a, b);
  }
  static Partial da(const Tensor&, const Tensor&, const Tensor&) { return 1.0; }
  static Partial db(const Tensor&, const Tensor&, const Tensor&) { return -1.0; }
};

struct MulOp : BinaryDefaults {
  static constexpr const char* name = "mul";
  static constexpr bool sign_agnostic = true;  // wraps: Note [Sign-agnostic kernels]
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::mul;
  static constexpr Ints ints = Ints::native;
  static constexpr bool commutative = true;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::mul_of(a, b);  // Note [Complex products near overflow]
  }
  static Partial da(const Tensor&, const Tensor& b, const Tensor&) { return b; }
  static Partial db(const Tensor& a, const Tensor&, const Tensor&) { return a; }
};

struct DivOp : BinaryDefaults {
  static constexpr const char* name = "div";
  static constexpr kernels::simd::Binary simd = kernels::simd::Binary::div;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::div_of(a, b);  // Note [Complex division near overflow]
  }
  static Partial da(const Tensor&, const Tensor& b, const Tensor&) { return 1.0 / b; }
  static Partial db(const Tensor&, const Tensor& b, const Tensor& y) { return -(y / b); }
};

// The partials of maximum/minimum: 1 where `wins` holds, 1/2 at a tie (PyTorch's convention), 0
// elsewhere, in the result's dtype (comparisons give bool).
Tensor tie_split(const Tensor& wins, const Tensor& a, const Tensor& b, const Tensor& y) {
  return cast(wins, y.dtype()) + 0.5 * cast(eq(a, b), y.dtype());
}

struct MaximumOp : BinaryDefaults {
  static constexpr const char* name = "maximum";
  static constexpr bool complex_ok = false;
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::maximum_of(a, b);
  }
  // Ties split the gradient equally (PyTorch's convention).
  static Partial da(const Tensor& a, const Tensor& b, const Tensor& y) {
    return tie_split(gt(a, b), a, b, y);
  }
  static Partial db(const Tensor& a, const Tensor& b, const Tensor& y) {
    return tie_split(lt(a, b), a, b, y);
  }
};

struct MinimumOp : BinaryDefaults {
  static constexpr const char* name = "minimum";
  static constexpr bool complex_ok = false;
  static constexpr Ints ints = Ints::native;
  static constexpr bool bool_ok = true;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return kernels::minimum_of(a, b);
  }
  static Partial da(const Tensor& a, const Tensor& b, const Tensor& y) {
    return tie_split(lt(a, b), a, b, y);
  }
  static Partial db(const Tensor& a, const Tensor& b, const Tensor& y) {
    return tie_split(gt(a, b), a, b, y);
  }
};

struct PowOp : BinaryDefaults {
  static constexpr const char* name = "pow";
  static constexpr std::int64_t cost = kernels::kTranscendentalCost;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    // glibc's cpow(0, 0) is exp(0 * log 0) = nan; NumPy and the real pow give 1.
    if constexpr (is_complex_v<T>) {
      if (b == T(0)) return T(1);
      // Note [Complex integer powers]: a real integer exponent |n| < 100 multiplies, as NumPy's
      // npy_cpow does. glibc's cpow is exp(n log a), which puts rounding noise into what is exact
      // ((-1 + 0j) ** 2 was 1 - 2.4e-16j, (2 + 0j) ** 3 was 7.999999999999998, (1e300 + 1e300j)
      // ** 1 was off by 51 ulp) and turns an infinite a into NaN parts ((inf + 0j) ** 1 was
      // inf + NaN j, since 1 * log(inf) multiplies 0 * inf). The first factor is a itself, not
      // 1 * a, so no 0 * inf enters either ((inf + 0j) ** 3 is inf + NaN j only from a * a).
      const auto n_real = b.real();
      if (b.imag() == 0 && std::abs(n_real) < 100 && n_real == std::trunc(n_real))
        return integer_power(a, static_cast<int>(n_real));
    }
    return std::pow(a, b);
  }
  // The products run in kernels::ProdAcc (Note [Complex products of many factors]), so a power
  // whose intermediate squares leave the range has no NaN part ((1e200 + 0j) ** 3 was
  // inf + NaN j). For n < 0 a power below the normal range (underflowed, so 1 / a^-n gave
  // libgcc's division by zero, (1e-200 + 0j) ** -2 was inf + NaN j) is recomputed in XComplex.
  template <class T>
  static T integer_power(T a, int n) {  // n != 0, |n| < 100
    using Acc = kernels::ProdAcc<T>;
    const auto power = [&](Acc x) {
      unsigned m = static_cast<unsigned>(n < 0 ? -n : n);
      Acc result = x, p = x;
      bool have = false;
      for (;;) {
        if (m & 1u) {
          result = have ? kernels::prod_acc_mul(result, p) : p;
          have = true;
        }
        m >>= 1;
        if (m == 0) break;
        p = kernels::prod_acc_mul(p, p);
      }
      return result;
    };
    Acc result = power(Acc(a));
    if (n > 0) return static_cast<T>(result);
    if (!result.ext) {
      using R = real_t<T>;
      const R big = std::max(std::abs(result.v.real()), std::abs(result.v.imag()));
      if (!(big < std::numeric_limits<R>::min()) || !kernels::finite_c(a) || a == T(0))
        return kernels::div_of(T(1), result.v);
      Acc x;  // a finite and non-zero: its power has a non-zero exact value
      x.x = kernels::x_complex(a);
      x.ext = true;
      result = power(x);
    }
    return kernels::x_value(kernels::x_div(kernels::x_complex(T(1)), result.x));
  }
  // b a^(b-1) and a^b log(a), except where those give 0 * inf = NaN at a = 0 while a^b is
  // locally constant (PyTorch's masks): d/da is 0 at a = 0, b = 0 (a^0 = 1), d/db is 0 where
  // a == 0 and b is real and >= 0 (0^b = 0 for b > 0; 0^0 = 1 is taken as its right limit's
  // slope). The masked elements compute on a = 1 (the double-where trick), so the rule's own
  // derivatives (second order) see finite values there instead of 0 * inf; elsewhere the rules
  // and their derivatives are the plain formulas (d2(a^b)/da db at b = 0 is 1/a).
  static Partial da(const Tensor& a, const Tensor& b, const Tensor&) {
    const Tensor m = logical_and(eq(a, 0.0), eq(b, 0.0));
    const Tensor d = b * pow(where(m, scalar_tensor(1.0, a.dtype()), a), b - 1.0);
    return where(m, scalar_tensor(0.0, d.dtype()), d);
  }
  static Partial db(const Tensor& a, const Tensor& b, const Tensor& y) {
    const Tensor m = logical_and(eq(a, 0.0), logical_and(eq(imag(b), 0.0), ge(real(b), 0.0)));
    const Tensor d = y * log(where(m, scalar_tensor(1.0, a.dtype()), a));
    return where(m, scalar_tensor(0.0, d.dtype()), d);
  }
};

// ---- floor division and Python's remainder (the result takes the divisor's sign) ----
// Integers: x // 0 and x % 0 are 0 (NumPy's result, without its warning), and INT_MIN // -1
// wraps to INT_MIN; C++'s / and % are undefined in both cases. Unsigned integers need neither
// the -1 case nor the sign fix-up (C++'s / and % already floor there).
// Floats: NumPy's npy_divmod (Python's float // and %). floor(a / b) is wrong where a / b rounds
// or overflows (-5 // inf is -1, inf // 1 is nan, 1e308 // 1e-310 is inf only by rounding); a
// zero remainder takes the divisor's sign (3 % -3 is -0) and a zero quotient the sign of a / b.
template <class T>
std::pair<T, T> float_divmod(T a, T b) {
  T mod = std::fmod(a, b);
  if (b == 0) return {a / b, mod};
  T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = std::copysign(T(0), b);
  }
  T floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  return {floordiv, mod};
}
template <class T>
T floor_divide_of(T a, T b) {
  if constexpr (std::is_unsigned_v<T>) {
    return b == 0 ? T(0) : static_cast<T>(a / b);
  } else if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    if (b == -1) return kernels::neg_of(a);
    const T q = static_cast<T>(a / b);
    return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  } else {
    return float_divmod(a, b).first;
  }
}
template <class T>
T remainder_of(T a, T b) {
  if constexpr (std::is_unsigned_v<T>) {
    return b == 0 ? T(0) : static_cast<T>(a % b);
  } else if constexpr (std::is_integral_v<T>) {
    if (b == 0 || b == -1) return 0;
    const T r = static_cast<T>(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
  } else {
    return float_divmod(a, b).second;
  }
}

struct FloorDivideOp : BinaryDefaults {
  static constexpr const char* name = "floor_divide";
  static constexpr bool complex_ok = false;
  static constexpr Ints ints = Ints::native;
  static constexpr Rule rule = Rule::none;  // piecewise constant
  template <class T>
  static T apply(T a, T b) {
    return floor_divide_of(a, b);
  }
};

// a - b * floor(a / b): d/da = 1, d/db = -floor(a / b) (PyTorch's rule).
struct RemainderOp : BinaryDefaults {
  static constexpr const char* name = "remainder";
  static constexpr bool complex_ok = false;
  static constexpr Ints ints = Ints::native;
  static constexpr Rule rule = Rule::holomorphic;
  template <class T>
  static T apply(T a, T b) {
    return remainder_of(a, b);
  }
  static Partial da(const Tensor&, const Tensor&, const Tensor&) { return 1.0; }
  static Partial db(const Tensor& a, const Tensor& b, const Tensor&) { return -floor_divide(a, b); }
};

}  // namespace

std::shared_ptr<const Primitive> find_elementwise_binary(std::string_view name, ScalarSide side,
                                                         Scalar s) {
  if (auto p = find_binary<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, PowOp, FloorDivideOp,
                           RemainderOp>(name, side, s))
    return p;
  return find_elementwise_compare(name, side, s);
}

}  // namespace detail

using detail::apply_binary;
using detail::binary_into;

Tensor add(const Tensor& a, const Tensor& b) { return apply_binary<detail::AddOp>(a, b); }
Tensor add(const Tensor& a, Scalar b) { return apply_binary<detail::AddOp>(a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return apply_binary<detail::SubOp>(a, b); }
Tensor sub(const Tensor& a, Scalar b) { return apply_binary<detail::SubOp>(a, b); }
Tensor sub(Scalar a, const Tensor& b) { return apply_binary<detail::SubOp>(a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return apply_binary<detail::MulOp>(a, b); }
Tensor mul(const Tensor& a, Scalar b) { return apply_binary<detail::MulOp>(a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return apply_binary<detail::DivOp>(a, b); }
Tensor div(const Tensor& a, Scalar b) { return apply_binary<detail::DivOp>(a, b); }
Tensor div(Scalar a, const Tensor& b) { return apply_binary<detail::DivOp>(a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return apply_binary<detail::MaximumOp>(a, b); }
Tensor maximum(const Tensor& a, Scalar b) { return apply_binary<detail::MaximumOp>(a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return apply_binary<detail::MinimumOp>(a, b); }
Tensor minimum(const Tensor& a, Scalar b) { return apply_binary<detail::MinimumOp>(a, b); }
Tensor pow(const Tensor& a, const Tensor& b) { return apply_binary<detail::PowOp>(a, b); }
Tensor pow(const Tensor& a, Scalar b) { return apply_binary<detail::PowOp>(a, b); }
Tensor pow(Scalar a, const Tensor& b) { return apply_binary<detail::PowOp>(a, b); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator-(Scalar a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator/(Scalar a, const Tensor& b) { return div(a, b); }

Tensor floor_divide(const Tensor& a, const Tensor& b) {
  return apply_binary<detail::FloorDivideOp>(a, b);
}
Tensor floor_divide(const Tensor& a, Scalar b) { return apply_binary<detail::FloorDivideOp>(a, b); }
Tensor remainder(const Tensor& a, const Tensor& b) {
  return apply_binary<detail::RemainderOp>(a, b);
}
Tensor remainder(const Tensor& a, Scalar b) { return apply_binary<detail::RemainderOp>(a, b); }

void add_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::AddOp>(o, a, b); }
void add_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::AddOp>(o, a, b); }
void sub_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::SubOp>(o, a, b); }
void sub_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::SubOp>(o, a, b); }
void mul_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::MulOp>(o, a, b); }
void mul_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::MulOp>(o, a, b); }
void div_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::DivOp>(o, a, b); }
void div_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::DivOp>(o, a, b); }
void maximum_into(Tensor& o, const Tensor& a, const Tensor& b) {
  binary_into<detail::MaximumOp>(o, a, b);
}
void minimum_into(Tensor& o, const Tensor& a, const Tensor& b) {
  binary_into<detail::MinimumOp>(o, a, b);
}
void maximum_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::MaximumOp>(o, a, b); }
void minimum_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::MinimumOp>(o, a, b); }
void pow_into(Tensor& o, const Tensor& a, const Tensor& b) { binary_into<detail::PowOp>(o, a, b); }
void pow_into(Tensor& o, const Tensor& a, Scalar b) { binary_into<detail::PowOp>(o, a, b); }

}  // namespace tenferro
