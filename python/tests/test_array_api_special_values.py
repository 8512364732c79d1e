"""The standard's real special values (+-0, +-inf, NaN of either sign, 1, halves, huge and tiny)
through every real elementwise function and operator, in f32 and f64, against NumPy (which follows
the standard's real special cases here, including floor_divide's and remainder's Python-behaviour
choices that the standard allows). array-api-tests' test_special_cases.py checks one float64 0-d
array per case; this covers f32 and arrays long enough for the vectorised and threaded kernel
paths, broadcasting, and Python-scalar operands (issue 34, the suite run in docs/python.md)."""

import math
import operator

import numpy as np
import pytest

import tenferro as tf

# Not the smallest subnormals: log1p(+-5e-324) is 0 (SLEEF's log1p, within its 1-ulp bound).
VALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -1.5, 2.5, -2.5, math.inf, -math.inf,
        math.nan, -math.nan, 3.0, -3.0, 1e-300, 1e300, 1e-310, 0.1, 7.0]
UNARY = ("abs acos acosh asin asinh atan atanh ceil cos cosh exp expm1 floor log log1p log2 log10 "
         "negative positive round sign signbit sin sinh sqrt square tan tanh trunc isfinite isinf "
         "isnan").split()
BINARY = ("add atan2 copysign divide equal floor_divide greater greater_equal hypot less less_equal "
          "logaddexp maximum minimum multiply not_equal pow remainder subtract").split()
NP_NAME = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
           "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2", "pow": "power"}
DTYPES = {"f32": (tf.float32, np.float32, 2e-6), "f64": (tf.float64, np.float64, 1e-13)}


def mismatches(args, got, want, rtol, nan_sign=False):
    """Positions where got and want differ: NaN vs not NaN, the sign of a zero (and of a NaN
    with nan_sign), or a value beyond rtol."""
    got, want = np.asarray(got).ravel(), np.asarray(want).ravel()
    if want.dtype == bool or got.dtype == bool:
        ok = got.astype(bool) == want.astype(bool)
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        gn, wn = np.isnan(g), np.isnan(w)
        same_sign = np.signbit(g) == np.signbit(w)
        with np.errstate(all="ignore"):
            close = (g == w) | np.isclose(g, w, rtol=rtol, atol=0)
        ok = np.where(gn | wn, gn & wn, np.where((g == 0) & (w == 0), same_sign, close))
        if nan_sign:
            ok &= ~(gn & wn) | same_sign
    return [f"{tuple(float(a.ravel()[i]) for a in args)}: {got[i]!r}, NumPy {want[i]!r}"
            for i in np.flatnonzero(~ok)[:20]]


@pytest.mark.parametrize("d", DTYPES)
@pytest.mark.parametrize("reps", [1, 5000])  # 5000: 115,000 elements, threaded
@pytest.mark.parametrize("name", UNARY)
def test_unary_special_values(name, reps, d):
    tdt, ndt, rtol = DTYPES[d]
    with np.errstate(all="ignore"):
        x = np.tile(np.array(VALS, dtype=ndt), reps)  # 1e300 is inf in f32
        want = getattr(np, NP_NAME.get(name, name))(x)
    got = getattr(tf, name)(tf.asarray(x, dtype=tdt)).numpy()
    assert got.dtype == want.dtype
    assert mismatches([x], got, want, rtol) == []


@pytest.mark.parametrize("d", DTYPES)
@pytest.mark.parametrize("layout", ["flat", "long", "broadcast"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_special_values(name, layout, d):
    tdt, ndt, rtol = DTYPES[d]
    with np.errstate(all="ignore"):
        v = np.array(VALS, dtype=ndt)
    if layout == "broadcast":
        x1, x2 = v.reshape(-1, 1), v.reshape(1, -1)
    else:
        x1, x2 = np.repeat(v, v.size), np.tile(v, v.size)
        if layout == "long":  # 105,800 elements: the threaded kernels
            x1, x2 = np.tile(x1, 200), np.tile(x2, 200)
    with np.errstate(all="ignore"):
        want = getattr(np, NP_NAME.get(name, name))(x1, x2)
    got = getattr(tf, name)(tf.asarray(x1, dtype=tdt), tf.asarray(x2, dtype=tdt)).numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    b1, b2 = np.broadcast_arrays(x1, x2)
    # copysign: also the sign of a NaN result (NaN with x2's sign bit)
    assert mismatches([b1, b2], got, want, rtol, nan_sign=name == "copysign") == []


SCALAR_OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq", "ne", "lt", "le", "gt",
              "ge"]
SCALARS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 2.5, math.inf, -math.inf, math.nan, 3.0]


def spec_pow(a, b):
    """x ** 0.5 by the standard's pow cases: NumPy takes sqrt there, so pow(-0, 0.5) is -0 and
    pow(-inf, 0.5) NaN in NumPy, where the standard (and C's pow) give +0 and +inf."""
    if b == 0.5 and a == 0:
        return 0.0
    if b == 0.5 and a == -math.inf:
        return math.inf
    return None


@pytest.mark.parametrize("d", DTYPES)
@pytest.mark.parametrize("name", SCALAR_OPS)
def test_operators_with_python_scalars(name, d):
    tdt, ndt, rtol = DTYPES[d]
    op = getattr(operator, name)
    bad = []
    for a in VALS[:15]:
        for b in SCALARS:
            x, nx = tf.asarray(a, dtype=tdt), np.asarray(a, dtype=ndt)
            with np.errstate(all="ignore"):
                cases = [("x op s", op(x, b), op(nx, b)), ("s op x", op(b, x), op(b, nx))]
                if name not in ("eq", "ne", "lt", "le", "gt", "ge"):
                    y = tf.asarray(a, dtype=tdt)
                    y = getattr(operator, "i" + name)(y, b)
                    cases.append(("x op= s", y, op(nx, b)))
            for label, got, want in cases:
                assert got.dtype == (tf.bool if name in ("eq", "ne", "lt", "le", "gt", "ge") else tdt)
                if name == "pow" and label != "s op x" and spec_pow(a, b) is not None:
                    want = spec_pow(a, b)
                want = np.asarray(want)
                if want.dtype != bool:
                    want = want.astype(ndt)  # NumPy 1.x widens 0-d f32 with a Python float
                bad += [f"{label} {m}" for m in mismatches([np.asarray(a), np.asarray(b)],
                                                            got.numpy(), want, rtol)]
    assert bad == []
