"""The Array API 2023.12 signatures of tenferro's existing functions (docs/python.md, "The Array
API namespace"): device= on the creation functions, full's dtype inference, sum/prod dtype=,
sort returning values, stable argsort, nonzero as a tuple, squeeze/roll with tuples, reshape
copy=, T only for 2-D arrays, fft s=/axes= as NumPy arrays. Values against NumPy, written from
the standard's text."""

import numpy as np
import pytest

import tenferro as tf

CPU = tf.__array_namespace_info__().default_device()


def check(t, want):
    got = np.asarray(t)
    assert got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)


CREATION = [
    ("arange", lambda **kw: tf.arange(5, **kw), np.arange(5)),
    ("empty", lambda **kw: tf.empty((2, 3), **kw), None),
    ("empty_like", lambda **kw: tf.empty_like(tf.zeros((2, 3)), **kw), None),
    ("eye", lambda **kw: tf.eye(3, 4, k=1, **kw), np.eye(3, 4, k=1)),
    ("full", lambda **kw: tf.full((2, 3), 2.5, **kw), np.full((2, 3), 2.5)),
    ("full_like", lambda **kw: tf.full_like(tf.zeros((2,)), 7.0, **kw), np.full(2, 7.0)),
    ("linspace", lambda **kw: tf.linspace(0.0, 1.0, 5, **kw), np.linspace(0.0, 1.0, 5)),
    ("ones", lambda **kw: tf.ones((2, 3), **kw), np.ones((2, 3))),
    ("ones_like", lambda **kw: tf.ones_like(tf.zeros((3,)), **kw), np.ones(3)),
    ("zeros", lambda **kw: tf.zeros((2, 3), **kw), np.zeros((2, 3))),
    ("zeros_like", lambda **kw: tf.zeros_like(tf.ones((3,)), **kw), np.zeros(3)),
]


@pytest.mark.parametrize("name,make,want", CREATION, ids=[c[0] for c in CREATION])
def test_creation_device(name, make, want):
    for kw in ({}, {"device": None}, {"device": CPU}):
        t = make(**kw)
        assert t.device == CPU
        if want is not None:
            check(t, want)
        else:
            assert t.shape == (2, 3)
    with pytest.raises(ValueError):
        make(device="gpu")


def test_full_infers_dtype_from_fill_value():
    # The standard: bool -> bool, int -> default integer, float -> default real floating,
    # complex -> default complex floating.
    assert tf.full((2,), True).dtype == tf.bool
    assert tf.full((2,), 3).dtype == tf.int64
    assert tf.full((2,), 3.5).dtype == tf.float64
    assert tf.full((2,), 1 + 2j).dtype == tf.complex128
    check(tf.full((2,), 1 + 2j), np.full(2, 1 + 2j))
    check(tf.full((2, 1), -4), np.full((2, 1), -4))
    assert tf.full((2,), 3, dtype=tf.float32).dtype == tf.float32
    assert tf.full_like(tf.zeros((2,), dtype=tf.int32), 5).dtype == tf.int32


@pytest.mark.parametrize("name", ["sum", "prod"])
def test_sum_prod_dtype(name):
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    fn, np_fn = getattr(tf, name), getattr(np, name)
    t = tf.asarray(x)
    assert fn(t).dtype == tf.int64  # default: the default integer dtype
    r = fn(t, dtype=tf.int32)
    assert r.dtype == tf.int32
    check(r, np_fn(x, dtype=np.int32))
    r = fn(t, axis=1, dtype=tf.float32)
    assert r.dtype == tf.float32
    check(r, np_fn(x, axis=1, dtype=np.float32))
    # x is cast before the reduction: 0.6 in float32 is not 0.6 in float64.
    y = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    r = fn(tf.asarray(y), dtype=tf.float64)
    assert r.dtype == tf.float64
    np.testing.assert_allclose(np.asarray(r), np_fn(y.astype(np.float64)), rtol=1e-15)
    r = fn(tf.asarray(y), keepdims=True, dtype=tf.complex128)
    assert r.dtype == tf.complex128 and r.shape == (1,)


def test_sort_returns_values():
    x = np.array([[3.0, -1.0, 2.0, -1.0], [0.5, 7.0, 0.5, -3.0]])
    t = tf.asarray(x)
    r = tf.sort(t)
    assert isinstance(r, tf.Tensor)
    check(r, np.sort(x))
    check(tf.sort(t, axis=0), np.sort(x, axis=0))
    check(tf.sort(t, descending=True), -np.sort(-x))
    check(tf.sort(t, axis=-1, descending=False, stable=False), np.sort(x))
    v, i = tf.sort_with_indices(t, axis=1)
    check(v, np.sort(x, axis=1))
    check(i, np.argsort(x, axis=1, kind="stable"))


def test_argsort_is_stable_both_ways():
    x = np.array([3, 1, 2, 1, 3, 2, 1], dtype=np.int64)
    t = tf.asarray(x)
    check(tf.argsort(t), np.argsort(x, kind="stable"))
    check(tf.argsort(t, stable=True), np.argsort(x, kind="stable"))
    # Descending and stable: equal elements keep their original order.
    check(tf.argsort(t, descending=True), np.argsort(-x, kind="stable"))
    m = np.array([[2.0, 2.0, 1.0], [1.0, 3.0, 3.0]])
    check(tf.argsort(tf.asarray(m), axis=0, descending=True), np.argsort(-m, axis=0, kind="stable"))


def test_nonzero_is_a_tuple():
    x = np.array([[0, 1, 0], [2, 0, 3]], dtype=np.int32)
    r = tf.nonzero(tf.asarray(x))
    assert isinstance(r, tuple) and len(r) == 2
    for got, want in zip(r, np.nonzero(x)):
        assert got.dtype == tf.int64
        check(got, want)
    (only,) = tf.nonzero(tf.asarray([False, True, True]))
    check(only, [1, 2])
    (empty,) = tf.nonzero(tf.zeros((3,)))
    assert empty.shape == (0,)
    with pytest.raises(ValueError):
        tf.nonzero(tf.asarray(1.0))
    check(tf.argwhere(tf.asarray(x)), np.argwhere(x))


def test_squeeze_axes():
    x = np.zeros((1, 2, 1, 3, 1))
    t = tf.asarray(x)
    check(tf.squeeze(t, 0), np.squeeze(x, 0))
    check(tf.squeeze(t, (0, 2)), np.squeeze(x, (0, 2)))
    check(tf.squeeze(t, axis=(-1, 0, 2)), np.squeeze(x, (-1, 0, 2)))
    check(tf.squeeze(t, ()), x)
    with pytest.raises(ValueError):
        tf.squeeze(t, (0, 1))  # axis 1 has size 2
    with pytest.raises(ValueError):
        tf.squeeze(t, (0, 0))


def test_roll_axes():
    x = np.arange(24.0).reshape(2, 3, 4)
    t = tf.asarray(x)
    check(tf.roll(t, 5), np.roll(x, 5))
    check(tf.roll(t, -7, axis=None), np.roll(x, -7))
    check(tf.roll(t, 1, axis=2), np.roll(x, 1, axis=2))
    check(tf.roll(t, (1, -2), axis=(0, 2)), np.roll(x, (1, -2), axis=(0, 2)))
    check(tf.roll(t, 2, axis=(1, 2)), np.roll(x, 2, axis=(1, 2)))
    check(tf.roll(tf.asarray(np.zeros((0, 2))), 3), np.zeros((0, 2)))
    with pytest.raises(ValueError):
        tf.roll(t, (1, 2), axis=(0,))


def test_reshape_copy():
    x = np.arange(6.0).reshape(2, 3)
    t = tf.asarray(x)
    v = tf.reshape(t, (3, 2), copy=False)
    c = tf.reshape(t, (3, 2), copy=True)
    t[0, 0] = 100.0
    assert float(v[0, 0]) == 100.0  # a view of t
    assert float(c[0, 0]) == 0.0  # its own memory
    check(tf.reshape(t, (6,)), np.array([100.0, 1, 2, 3, 4, 5]))
    with pytest.raises(ValueError):
        tf.reshape(tf.asarray(x).mT, (6,), copy=False)  # not a view of a transposed array
    check(tf.reshape(tf.asarray(x).mT, (6,)), x.T.reshape(6))


def test_T_is_for_two_dimensional_arrays():
    x = np.arange(6.0).reshape(2, 3)
    check(tf.asarray(x).T, x.T)
    for shape in [(), (3,), (2, 3, 4)]:
        with pytest.raises(ValueError):
            tf.zeros(shape).T


def test_fft_s_and_axes_as_numpy_arrays():
    a = np.random.default_rng(0).standard_normal((4, 6))
    t = tf.asarray(a)
    np.testing.assert_allclose(np.asarray(tf.fft.fftn(t, s=np.array([4, 3]), axes=np.array([0, 1]))),
                               np.fft.fftn(a, s=(4, 3)), atol=1e-12)
    np.testing.assert_allclose(np.asarray(tf.fft.rfftn(t, s=[np.int64(2), np.int64(6)])),
                               np.fft.rfftn(a, s=(2, 6)), atol=1e-12)
    np.testing.assert_allclose(np.asarray(tf.fft.ifftn(t, axes=(1,))), np.fft.ifftn(a, axes=(1,)),
                               atol=1e-12)
    r = np.fft.rfftn(a)
    np.testing.assert_allclose(np.asarray(tf.fft.irfftn(tf.asarray(r), s=np.array([4, 6]))),
                               np.fft.irfftn(r, s=(4, 6)), atol=1e-12)
    check(tf.fft.fftshift(t, axes=np.array([1])), np.fft.fftshift(a, axes=1))
    check(tf.fft.ifftshift(t, axes=np.array([0, 1])), np.fft.ifftshift(a))


# ---- the standard's semantics over existing ops (axis=(), integer pow, reflected scalars,
# complex round, integer matmul/outer/tensordot, per-matrix pinv rtol, exact large arange) ----

REDUCTIONS = ["sum", "prod", "mean", "max", "min", "std", "var", "any", "all"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_over_no_axis(name):
    # axis=() reduces nothing: the result keeps x's shape, with the reduction's dtype rules.
    x = np.array([[1.5, -2.0, 0.0], [4.0, 0.25, -1.0]])
    fn, np_fn = getattr(tf, name), getattr(np, name)
    for keepdims in (False, True):
        got = fn(tf.asarray(x), axis=(), keepdims=keepdims)
        want = np_fn(x, axis=(), keepdims=keepdims)
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want)
    i = np.array([[1, 2], [3, 4]], dtype=np.int32)
    if name in ("sum", "prod"):
        r = fn(tf.asarray(i), axis=())
        assert r.dtype == tf.int64  # the default integer, as with any axis
        check(r, i.astype(np.int64))
    r = fn(tf.asarray(x), axis=[], keepdims=False)
    assert r.shape == x.shape


def test_var_std_over_no_axis_with_correction():
    x = np.array([1.0, 2.0])
    assert np.all(np.isnan(np.asarray(tf.var(tf.asarray(x), axis=(), correction=1))))
    check(tf.std(tf.asarray(x), axis=()), np.zeros(2))


@pytest.mark.parametrize("dtype,np_dtype", [(tf.int32, np.int32), (tf.int64, np.int64)])
def test_integer_pow_is_integer(dtype, np_dtype):
    a = np.array([[0, 1, -2], [3, -4, 5]], dtype=np_dtype)
    b = np.array([[0, 3, 5], [2, 3, 7]], dtype=np_dtype)
    ta, tb = tf.asarray(a), tf.asarray(b)
    for r in (tf.pow(ta, tb), ta ** tb, tf.pow(ta, 3), ta ** 3, 2 ** tb):
        assert r.dtype == dtype
    check(tf.pow(ta, tb), np.power(a, b))
    check(ta ** 3, a ** 3)
    check(2 ** tb, np_dtype(2) ** b)
    check(tf.pow(ta, tf.asarray(b[0])), np.power(a, b[0]))  # broadcasting
    x = tf.asarray(a.copy())
    x **= tb
    assert x.dtype == dtype
    check(x, np.power(a, b))
    # Mixed integer dtypes promote; a negative exponent is an error, as in NumPy.
    assert (tf.asarray(a.astype(np.int32)) ** tf.asarray(b.astype(np.int64))).dtype == tf.int64
    with pytest.raises(ValueError):
        ta ** -1
    # Floating operands are unchanged (C++ pow).
    np.testing.assert_allclose(np.asarray(tf.asarray([2.0, 3.0]) ** 2), [4.0, 9.0])


def test_integer_pow_with_bool_operand_is_integer():
    # A bool exponent or base beside an integer array took C++ pow's float64, which rounds
    # uint64 values (x_u64 ** True gave 1.8446744073709552e19 for 2**64 - 1); NumPy promotes
    # bool to the integer dtype.
    u = np.array([2**64 - 1, 3], dtype=np.uint64)
    tu = tf.asarray(u)
    m = np.array([True, False])
    tm = tf.asarray(m)
    for r, want in ((tu ** True, u), (tf.pow(tu, True), u), (tu ** tm, u ** m),
                    (tf.pow(tu, tm), u ** m), (tm ** tu, m ** u),
                    (True ** tf.asarray(np.array([2, 3], np.int8)), np.array([1, 1], np.int8))):
        assert r.dtype == tf.asarray(want).dtype
        np.testing.assert_array_equal(np.asarray(r), want)
    x = tf.asarray(u.copy())
    x **= True
    np.testing.assert_array_equal(np.asarray(x), u)


def test_reflected_floordiv_and_mod_keep_the_array_dtype():
    xi = np.array([1, 2, -3, 7], dtype=np.int32)
    xf = np.array([1.5, -2.0, 3.0, 0.5], dtype=np.float32)
    for s, x in ((7, xi), (-9, xi), (2.5, xf), (4, xf)):
        t = tf.asarray(x)
        r = s // t
        assert r.dtype == t.dtype
        check(r, np.floor_divide(np.array(s, dtype=x.dtype), x))
        r = s % t
        assert r.dtype == t.dtype
        check(r, np.remainder(np.array(s, dtype=x.dtype), x))
    # A float scalar with an integer array is tenferro's mixed-kind promotion (unspecified).
    assert (2.5 // tf.asarray(xi)).dtype == tf.float64


def test_round_complex():
    z = np.array([1.5 + 2.5j, -0.5 - 1.4j, 2.6 + 0j], dtype=np.complex128)
    r = tf.round(tf.asarray(z))
    assert r.dtype == tf.complex128
    check(r, np.round(z))
    check(tf.round(tf.asarray(np.array([0.5, 1.5, -2.5]))), np.round([0.5, 1.5, -2.5]))


def test_integer_matmul_outer_tensordot():
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 5, (2, 3, 4)).astype(np.int32)
    b = rng.integers(-5, 5, (4, 5)).astype(np.int32)
    v = rng.integers(-5, 5, (4,)).astype(np.int64)
    la = tf.linalg
    for x1, x2 in ((a, b), (a, v), (v, b), (v, v), (a[0], b), (a[:, None], b[None])):
        t1, t2 = tf.asarray(x1), tf.asarray(x2)
        want = np.matmul(x1, x2)
        for r in (la.matmul(t1, t2), tf.matmul(t1, t2), t1 @ t2):
            assert r.dtype == tf.result_type(t1, t2)
            check(r, want)
    with pytest.raises(tf.ShapeMismatchError):
        tf.matmul(tf.asarray(a), tf.asarray(a))  # k = 4 against 3 rows
    m = tf.asarray(b[:4, :4].copy())
    m @= tf.asarray(b[:4, :4])
    check(m, b[:4, :4] @ b[:4, :4])
    check(la.outer(tf.asarray(v), tf.asarray(b[0])), np.outer(v, b[0]))
    for axes in (0, 1, ((2,), (0,)), ((1, 2), (0, 1))):
        x2 = b if axes != ((1, 2), (0, 1)) else rng.integers(-5, 5, (3, 4, 2)).astype(np.int32)
        check(tf.tensordot(tf.asarray(a), tf.asarray(x2), axes=axes), np.tensordot(a, x2, axes))
        check(la.tensordot(tf.asarray(a), tf.asarray(x2), axes=axes), np.tensordot(a, x2, axes))
    check(tf.tensordot(tf.asarray(a), tf.asarray(b), 1), np.tensordot(a, b, 1))  # positional


def test_outer_keeps_signed_zeros():
    r = tf.linalg.outer(tf.asarray([-0.0, 1.0]), tf.asarray([0.0, 2.0]))
    want = np.outer([-0.0, 1.0], [0.0, 2.0])
    check(r, want)
    assert np.signbit(np.asarray(r)[0, 0])


def test_pinv_with_an_rtol_per_matrix():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4, 2))
    x[1, :, 1] = 1e-3 * x[1, :, 0] + 1e-9
    rtol = np.array([1e-12, 0.5, 1e-3])
    got = np.asarray(tf.linalg.pinv(tf.asarray(x), rtol=tf.asarray(rtol)))
    want = np.stack([np.linalg.pinv(x[i], rcond=rtol[i]) for i in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8)
    got = np.asarray(tf.linalg.pinv(tf.asarray(x), rtol=tf.asarray(0.5)))
    np.testing.assert_allclose(got, np.linalg.pinv(x, rcond=0.5), rtol=1e-8, atol=1e-8)


def test_vector_norm_over_no_axis():
    x = np.array([[-1.0, 2.0], [0.0, -3.5]])
    for ord_ in (2, 1, np.inf, -np.inf, 3):
        got = tf.linalg.vector_norm(tf.asarray(x), axis=(), ord=ord_)
        np.testing.assert_allclose(np.asarray(got), np.abs(x), rtol=1e-14)


def test_arange_large_integers_are_exact():
    start, stop, step = 0, -9129245045424602, -91292450454247
    r = tf.arange(start, stop, step)
    assert r.dtype == tf.int64
    check(r, np.arange(start, stop, step, dtype=np.int64))
    big = 2**62
    check(tf.arange(big, big + 5), np.arange(big, big + 5, dtype=np.int64))
    check(tf.arange(5), np.arange(5))


def test_arange_of_large_integers_in_a_floating_dtype_has_the_exact_length():
    # The length is that of range(start, stop, step) (NumPy counts the ints exactly): counted
    # in doubles, arange(2**53, 2**53 + 3, dtype=f64) had 4 elements and arange(-2**60,
    # -2**60 + 5, dtype=f64) none. Each value is the exact integer rounded once to the dtype.
    for start, stop, step in [(2**53, 2**53 + 3, 1), (-2**60, -2**60 + 5, 1),
                              (2**62, 2**62 - 7, -2), (0, 2**60, 2**57), (3, 2**54 + 3, 2**52),
                              (-2**63, -2**63 + 2**54, 2**53 + 1)]:
        for dt, np_dt in [(tf.float64, np.float64), (tf.float32, np.float32),
                          (tf.complex128, np.complex128)]:
            got = np.asarray(tf.arange(start, stop, step, dtype=dt))
            exact = list(range(start, stop, step))
            assert got.shape == (len(exact),), (start, stop, step, dt)
            np.testing.assert_array_equal(got, np.array([np_dt(v) for v in exact], np_dt))


def test_full_of_a_large_int_in_single_precision_rounds_once():
    # Through the C++ Scalar's double, 2**60 + 2**36 + 1 became 2**60 + 2**36, a tie for float32,
    # which went to 2**60; rounded once (np.full) it is 2**60 + 2**37.
    for v in [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**63 + 2**39 + 1, 2**53 + 1]:
        for dt, np_dt in [(tf.float32, np.float32), (tf.complex64, np.complex64)]:
            want = np.full(3, v, dtype=np_dt)
            np.testing.assert_array_equal(np.asarray(tf.full((3,), v, dtype=dt)), want)
            x = tf.zeros((3,), dt)
            np.testing.assert_array_equal(np.asarray(tf.full_like(x, v)), want)
    assert int(np.asarray(tf.full((1,), 2**60 + 2**36 + 1, dtype=tf.float32))[0]) == 2**60 + 2**37


@pytest.mark.parametrize("ord_", [1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"])
def test_matrix_norm_orders(ord_):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4))
    for keepdims in (False, True):
        got = tf.linalg.matrix_norm(tf.asarray(x), ord=ord_, keepdims=keepdims)
        want = np.linalg.norm(x, ord=ord_, axis=(-2, -1), keepdims=keepdims)
        assert got.shape == want.shape and got.dtype == tf.float64
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    z = (x + 1j * rng.standard_normal(x.shape)).astype(np.complex64)
    got = tf.linalg.matrix_norm(tf.asarray(z), ord=ord_)
    assert got.dtype == tf.float32  # real, of the input's precision
    np.testing.assert_allclose(np.asarray(got), np.linalg.norm(z, ord=ord_, axis=(-2, -1)),
                               rtol=1e-4)
    with pytest.raises(ValueError):
        tf.linalg.matrix_norm(tf.asarray(x), ord=3)


def test_integers_beyond_2_53_are_exact_in_full_and_setitem():
    # 2**53 + 1 is not a double: the C++ Scalar would round it to 2**53.
    v = 2**53 + 1
    check(tf.full((2,), v), np.full(2, v, dtype=np.int64))
    check(tf.full((2,), -v, dtype=tf.int64), np.full(2, -v, dtype=np.int64))
    check(tf.full_like(tf.zeros((3,), dtype=tf.int64), v), np.full(3, v, dtype=np.int64))
    x = tf.zeros((3,), dtype=tf.int64)
    x[1] = v
    x[tf.asarray([0, 2])] = v + 2
    check(x, np.array([v + 2, v, v + 2], dtype=np.int64))
    assert float(tf.full((), v, dtype=tf.float64)) == float(v)  # floats round as they must


def test_full_of_a_python_int_outside_an_integer_dtype_is_overflow_error():
    # The C++ full saturated it through its double (full(300, uint8) gave 255, full(-1, uint8)
    # 0), one beyond 2**53 wrapped (full(2**53 + 1, int8) gave 1, full(2**63, int64) INT64_MIN);
    # NumPy 2 raises OverflowError, as x[key] = v does here.
    for v, d in ((300, tf.uint8), (-1, tf.uint8), (2**53 + 1, tf.int8), (2**53 - 1, tf.int8),
                 (2**63, tf.int64), (2**64, tf.uint64), (-2**63 - 1, tf.int64), (128, "int8")):
        with pytest.raises(OverflowError, match="out of bounds"):
            tf.full((2,), v, dtype=d)
        with pytest.raises(OverflowError, match="out of bounds"):
            tf.full_like(tf.zeros((2,), dtype=d), v)
    check(tf.full((2,), 255, dtype=tf.uint8), np.full(2, 255, np.uint8))
    check(tf.full((2,), -128, dtype="int8"), np.full(2, -128, np.int8))
    check(tf.full((2,), 2**64 - 1, dtype=tf.uint64), np.full(2, 2**64 - 1, np.uint64))
    check(tf.full_like(tf.zeros((2,), dtype=tf.int8), True), np.ones(2, np.int8))
    check(tf.full((2,), 300, dtype=tf.float32), np.full(2, 300, np.float32))


def test_reduction_and_clip_signatures_are_the_standards():
    import inspect

    for name in ("sum", "prod", "mean", "max", "min", "any", "all", "std", "var"):
        params = inspect.signature(getattr(tf, name)).parameters
        assert list(params)[:2] == ["x", "axis"] and "keepdims" in params
    assert "dtype" in inspect.signature(tf.sum).parameters
    assert "correction" in inspect.signature(tf.var).parameters
    assert list(inspect.signature(tf.clip).parameters) == ["x", "min", "max"]
    x = np.array([-2.0, 0.5, 3.0])
    check(tf.clip(tf.asarray(x), min=-1.0, max=1.0), np.clip(x, -1.0, 1.0))
    check(tf.clip(tf.asarray(x), None, 1.0), np.clip(x, None, 1.0))
    check(tf.mean(tf.asarray(x), 0, True), np.mean(x, 0, keepdims=True))  # positional
    check(tf.var(tf.asarray(x), 0, 1.0, False), np.var(x, 0, ddof=1))


def test_expand_dims_axis_out_of_range_is_an_index_error():
    x = tf.zeros((2, 3))
    check(tf.expand_dims(x, axis=-3), np.expand_dims(np.zeros((2, 3)), -3))
    check(tf.expand_dims(x, 2), np.expand_dims(np.zeros((2, 3)), 2))
    for axis in (3, -4, 10):
        with pytest.raises(IndexError, match="expand_dims"):
            tf.expand_dims(x, axis=axis)
        with pytest.raises(tf.InvalidArgumentError):  # still tenferro's error (a ValueError)
            tf.expand_dims(x, axis=axis)
    with pytest.raises(IndexError):
        tf.expand_dims(tf.asarray(1.0), axis=-2)
    assert issubclass(tf.AxisError, ValueError)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_keepdims_without_axis(name):
    x = np.array([[3, 1, 4], [1, 5, 9]], dtype=np.int32)
    fn, np_fn = getattr(tf, name), getattr(np, name)
    r = fn(tf.asarray(x), keepdims=True)
    assert r.shape == (1, 1)
    check(r, np_fn(x, keepdims=True))
    check(fn(tf.asarray(x)), np_fn(x))
    check(fn(tf.asarray(x), axis=1, keepdims=True), np_fn(x, axis=1, keepdims=True))
    check(fn(tf.asarray(x[0]), keepdims=True), np_fn(x[0], keepdims=True))


def test_flip_over_no_axis_and_eye_with_a_huge_k():
    x = np.arange(6.0).reshape(2, 3)
    check(tf.flip(tf.asarray(x), axis=()), x)
    check(tf.flip(tf.asarray(x), axis=(0, 1)), np.flip(x, (0, 1)))
    check(tf.flip(tf.asarray(x)), np.flip(x))
    for k in (2**63, -2**63 - 5, 3, -2, 1):
        check(tf.eye(2, 3, k=k), np.eye(2, 3, k=k if abs(k) < 10 else 0) * (abs(k) < 10))
    assert tf.eye(0, k=2**70).shape == (0, 0)


def test_integer_linspace_beyond_2_53_is_exact():
    big = 2**53 + 1
    r = tf.linspace(big, big, 1, dtype=tf.int64)
    check(r, np.array([big], dtype=np.int64))
    r = tf.linspace(big, big + 10, 6, dtype=tf.int64)
    check(r, np.array([big + 2 * i for i in range(6)], dtype=np.int64))
    r = tf.linspace(-big, big, 4, endpoint=False, dtype=tf.int64)
    check(r, np.array([-big + (i * 2 * big) // 4 for i in range(4)], dtype=np.int64))
    check(tf.linspace(0, 10, 5, dtype=tf.int64), np.linspace(0, 10, 5).astype(np.int64))
