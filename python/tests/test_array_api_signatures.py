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
