"""The Array API elementwise functions added in issue 34: values against NumPy (f32, f64, c64, c128,
integers), the standard's special cases (+-0, +-inf, NaN), broadcasting and Python scalars,
errors, and one gradient check per differentiable function."""

import math

import numpy as np
import pytest

import tenferro as tf
from conftest import check

INF, NAN = np.inf, np.nan

# name, NumPy reference, complex too, input range (each part of a complex value)
UNARY = [
    ("tan", np.tan, True, (-1.2, 1.2)),
    ("sinh", np.sinh, True, (-2.0, 2.0)),
    ("cosh", np.cosh, True, (-2.0, 2.0)),
    ("asin", np.arcsin, True, (-0.9, 0.9)),
    ("acos", np.arccos, True, (-0.9, 0.9)),
    ("atan", np.arctan, True, (-0.9, 0.9)),
    ("asinh", np.arcsinh, True, (-0.9, 0.9)),
    ("acosh", np.arccosh, True, (1.1, 3.0)),
    ("atanh", np.arctanh, True, (-0.9, 0.9)),
    ("log2", np.log2, True, (0.2, 3.0)),
    ("log10", np.log10, True, (0.2, 3.0)),
    ("exp2", np.exp2, True, (-2.0, 2.0)),
    ("erf", np.vectorize(math.erf, otypes=[np.float64]), False, (-2.0, 2.0)),
]
# f'(x) for the gradient checks
DERIV = {
    "tan": lambda x: 1 + np.tan(x) ** 2,
    "sinh": np.cosh,
    "cosh": np.sinh,
    "asin": lambda x: 1 / np.sqrt(1 - x * x),
    "acos": lambda x: -1 / np.sqrt(1 - x * x),
    "atan": lambda x: 1 / (1 + x * x),
    "asinh": lambda x: 1 / np.sqrt(1 + x * x),
    "acosh": lambda x: 1 / (np.sqrt(x - 1) * np.sqrt(x + 1)),
    "atanh": lambda x: 1 / (1 - x * x),
    "log2": lambda x: 1 / (x * np.log(2)),
    "log10": lambda x: 1 / (x * np.log(10)),
    "exp2": lambda x: np.exp2(x) * np.log(2),
    "erf": lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x),
}
TOL = {"f32": dict(rtol=2e-6, atol=2e-6), "f64": dict(rtol=1e-13, atol=1e-14),
       "c64": dict(rtol=1e-5, atol=1e-5), "c128": dict(rtol=1e-12, atol=1e-13)}
NPD = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


def uniform(shape, dtype, lo, hi, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, size=shape)
    if dtype in ("c64", "c128"):
        x = x + 1j * rng.uniform(lo, hi, size=shape)
    return x.astype(NPD[dtype])


def same_special(got, want, **tol):
    """Equal up to `tol`, NaN where NumPy has NaN, and the sign of every zero and infinity."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    parts = [(got, want)]
    if np.iscomplexobj(want):
        parts = [(got.real, want.real), (got.imag, want.imag)]
    for g, w in parts:
        np.testing.assert_allclose(g, w, equal_nan=True, **tol)
        exact = (w == 0) | np.isinf(w)
        np.testing.assert_array_equal(np.signbit(g[exact]), np.signbit(w[exact]))


@pytest.mark.parametrize("name,ref,cplx,dom", UNARY, ids=[r[0] for r in UNARY])
def test_unary_values(name, ref, cplx, dom):
    fn = getattr(tf, name)
    for d in ["f32", "f64"] + (["c64", "c128"] if cplx else []):
        x = uniform((3, 5), d, *dom, seed=1)
        r = fn(tf.asarray(x))
        assert r.dtype == d
        check(r, ref(x).astype(NPD[d]), **TOL[d])
        # The Tensor method forwards to the function.
        check(getattr(tf.asarray(x), name)(), np.asarray(r))
    # Integers and bool compute in f64.
    xi = np.array([-3, -1, 0, 1, 2], dtype=np.int32)
    r = fn(tf.asarray(xi))
    assert r.dtype == "f64"
    with np.errstate(all="ignore"):
        same_special(np.asarray(r), ref(xi.astype(np.float64)), **TOL["f64"])
    assert fn(tf.asarray(np.array([True, False]))).dtype == "f64"


REAL_SPECIAL = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 2.0, -2.0, 0.5, 1e-300]


@pytest.mark.parametrize("name,ref,cplx,dom", UNARY, ids=[r[0] for r in UNARY])
@pytest.mark.parametrize("d", ["f32", "f64"])
def test_unary_real_special_values(name, ref, cplx, dom, d):
    x = np.array(REAL_SPECIAL, dtype=NPD[d])
    with np.errstate(all="ignore"):
        want = ref(x).astype(NPD[d])
    same_special(getattr(tf, name)(tf.asarray(x)), want, **TOL[d])


COMPLEX_PARTS = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN]


@pytest.mark.parametrize("name,ref,cplx,dom", [r for r in UNARY if r[2]],
                         ids=[r[0] for r in UNARY if r[2]])
def test_unary_complex_special_values(name, ref, cplx, dom):
    z = np.array([complex(a, b) for a in COMPLEX_PARTS for b in COMPLEX_PARTS], dtype=np.complex128)
    with np.errstate(all="ignore"):
        want = ref(z)
    got = np.asarray(getattr(tf, name)(tf.asarray(z)))
    # NumPy's complex functions are the C library's (Annex G) here, as ours: same values, NaN
    # parts and signed zeros.
    same_special(got, want, **TOL["c128"])


def test_standard_special_cases_written_out():
    def f(name, *v):
        return np.asarray(getattr(tf, name)(tf.asarray(np.array(v, dtype=np.float64))))

    assert np.signbit(f("tan", -0.0)[0]) and f("tan", -0.0)[0] == 0
    assert np.isnan(f("asin", 1.5)[0]) and np.isnan(f("acosh", 0.5)[0])
    assert f("atanh", 1.0, -1.0).tolist() == [INF, -INF]
    assert f("atan", INF)[0] == pytest.approx(np.pi / 2)
    assert f("log2", 0.0, 1024.0).tolist() == [-INF, 10.0]
    assert f("exp2", -INF, INF, 10.0).tolist() == [0.0, INF, 1024.0]
    assert f("erf", -INF, INF).tolist() == [-1.0, 1.0] and np.signbit(f("erf", -0.0)[0])
    z = np.asarray(tf.acos(tf.asarray(np.array([0j]))))[0]
    assert z.real == pytest.approx(np.pi / 2) and z.imag == 0 and np.signbit(z.imag)
    assert np.asarray(tf.exp2(tf.asarray(np.array([complex(INF, 0)]))))[0] == complex(INF, 0)
    assert np.asarray(tf.log2(tf.asarray(np.array([8 + 0j]))))[0] == 3


def test_trunc():
    x = np.array([2.7, -2.7, 0.5, -0.5, 0.0, -0.0, INF, -INF, NAN], dtype=np.float64)
    for d in ("f32", "f64"):
        xd = x.astype(NPD[d])
        r = tf.trunc(tf.asarray(xd))
        assert r.dtype == d
        same_special(r, np.trunc(xd))
    xi = np.array([-3, 0, 7], dtype=np.int64)
    r = tf.trunc(tf.asarray(xi))  # the identity on integers, in their dtype (NumPy gives f64)
    assert r.dtype == "i64"
    np.testing.assert_array_equal(np.asarray(r), xi)
    with pytest.raises(tf.DTypeMismatchError, match="trunc"):
        tf.trunc(tf.ones(2, "c128"))


def test_classification():
    x = np.array([0.0, -0.0, 1.5, -2.0, INF, -INF, NAN, -NAN, 1e-310])
    for d in ("f32", "f64"):
        xd = x.astype(NPD[d])
        t = tf.asarray(xd)
        for name, ref in [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
                          ("signbit", np.signbit)]:
            r = getattr(tf, name)(t)
            assert r.dtype == "bool"
            np.testing.assert_array_equal(np.asarray(r), ref(xd), err_msg=name)
    z = np.array([complex(a, b) for a in COMPLEX_PARTS for b in COMPLEX_PARTS])
    for d in ("c64", "c128"):
        zd = z.astype(NPD[d])
        for name, ref in [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)]:
            np.testing.assert_array_equal(np.asarray(getattr(tf, name)(tf.asarray(zd))), ref(zd),
                                          err_msg=name)
        with pytest.raises(tf.DTypeMismatchError, match="signbit"):
            tf.signbit(tf.asarray(zd))
    xi = np.array([-5, 0, 3], dtype=np.int32)
    np.testing.assert_array_equal(np.asarray(tf.signbit(tf.asarray(xi))), np.signbit(xi))
    np.testing.assert_array_equal(np.asarray(tf.isfinite(tf.asarray(xi))), [True] * 3)
    np.testing.assert_array_equal(np.asarray(tf.isnan(tf.asarray(np.array([True])))), [False])


BINARY = [("hypot", np.hypot), ("copysign", np.copysign), ("logaddexp", np.logaddexp)]


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_values_broadcasting_and_scalars(name, ref):
    fn = getattr(tf, name)
    for d in ("f32", "f64"):
        a, b = uniform((4, 1), d, -3, 3, 2), uniform((5,), d, -3, 3, 3)
        r = fn(tf.asarray(a), tf.asarray(b))
        assert r.dtype == d and r.shape == (4, 5)
        check(r, ref(a, b), **TOL[d])
        # Python scalars on either side keep the tensor's precision.
        r = fn(tf.asarray(a), -0.75)
        assert r.dtype == d
        check(r, ref(a, NPD[d](-0.75)), **TOL[d])
        r = fn(0.75, tf.asarray(b))
        assert r.dtype == d
        check(r, ref(NPD[d](0.75), b), **TOL[d])
    assert fn(tf.ones(2, "f32"), tf.ones(2, "f64")).dtype == "f64"
    ri = fn(tf.asarray(np.array([3, -5], dtype=np.int32)), tf.asarray(np.array([4, 12])))
    assert ri.dtype == "f64"
    check(ri, ref(np.array([3.0, -5.0]), np.array([4.0, 12.0])))
    with pytest.raises(tf.DTypeMismatchError, match=name):
        fn(tf.ones(2, "c64"), tf.ones(2))
    with pytest.raises(tf.ShapeMismatchError, match=name):
        fn(tf.ones((2, 3)), tf.ones(4))


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("d", ["f32", "f64"])
def test_binary_special_values(name, ref, d):
    big = 1e300 if d == "f64" else 1e30
    parts = [0.0, -0.0, 1.0, -2.5, INF, -INF, NAN, big, -big]
    a = np.array([p for p in parts for _ in parts], dtype=NPD[d])
    b = np.array([q for _ in parts for q in parts], dtype=NPD[d])
    with np.errstate(all="ignore"):
        want = ref(a, b)
    same_special(getattr(tf, name)(tf.asarray(a), tf.asarray(b)), want, **TOL[d])
    if name == "logaddexp":  # stable: no overflow for large equal arguments
        r = np.asarray(tf.logaddexp(tf.asarray(np.array([1000.0, -INF])),
                                    tf.asarray(np.array([1000.0, -INF]))))
        assert r[0] == pytest.approx(1000 + np.log(2)) and r[1] == -INF


@pytest.mark.parametrize("name", list(DERIV))
def test_unary_gradient(name):
    lo, hi = next(r[3] for r in UNARY if r[0] == name)
    x = uniform((4,), "f64", lo + 0.05, hi - 0.05, 5)
    g = tf.grad(lambda t: tf.sum(getattr(tf, name)(t)))(tf.asarray(x))
    check(g, DERIV[name](x), rtol=1e-12, atol=1e-12)


def test_complex_gradient_is_conjugate_wirtinger():
    z = np.array([0.3 + 0.4j, -0.2 + 0.1j])
    g = tf.grad(lambda t: tf.sum(tf.real(tf.tan(t))))(tf.asarray(z))
    check(g, np.conj(1 + np.tan(z) ** 2), rtol=1e-12, atol=1e-12)


def test_binary_gradients():
    a, b = np.array([0.5, -1.5, 2.0]), np.array([-1.0, 0.7, 2.0])
    for name, da, db in [
        ("hypot", a / np.hypot(a, b), b / np.hypot(a, b)),
        ("copysign", np.sign(a) * np.sign(np.copysign(a, b)), np.zeros(3)),
        ("logaddexp", 1 / (1 + np.exp(b - a)), 1 / (1 + np.exp(a - b))),
    ]:
        ga, gb = tf.grad(lambda x, y: tf.sum(getattr(tf, name)(x, y)), argnums=(0, 1))(
            tf.asarray(a), tf.asarray(b))
        check(ga, da, rtol=1e-12, atol=1e-12)
        check(gb, db, rtol=1e-12, atol=1e-12)
