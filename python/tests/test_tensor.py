"""Tensor properties, NumPy interop (zero-copy, lifetimes), operators and indexing."""

import gc
import weakref

import numpy as np
import pytest

import tenferro as tf
from conftest import ALL_DTYPES, NP, check, sample


def test_properties():
    t = tf.asarray(np.zeros((2, 3), np.float32))
    assert t.dtype == tf.f32 and t.dtype == "f32" and t.dtype == "float32" and t.dtype == np.float32
    assert t.dtype is tf.float32 and str(t.dtype) == "f32" and repr(t.dtype) == "tenferro.f32"
    assert t.shape == (2, 3) and t.strides == (3, 1) and t.ndim == 2 and t.size == 6
    assert t.itemsize == 4 and t.nbytes == 24 and len(t) == 2
    assert "shape=[2, 3]" in repr(t) and "f32" in str(t)
    assert tf.bool is tf.bool_ and tf.dtype(np.bool_) is tf.bool_
    assert np.dtype(tf.c64) == np.complex64
    assert tf.promote_types("i32", "f32") == tf.f32
    assert hash(tf.f64) == hash(tf.float64)


@pytest.mark.parametrize("d", ALL_DTYPES)
def test_asarray_zero_copy_both_ways(d):
    a = sample((3, 4), d, 1)
    t = tf.asarray(a)
    assert t.dtype == d
    assert t.data_ptr() == a.ctypes.data  # zero-copy in
    b = np.asarray(t)
    assert np.shares_memory(a, b)  # zero-copy out
    b2 = t.numpy()
    assert b2.dtype == NP[d] and np.shares_memory(a, b2)
    check(t, a)


def test_asarray_strided_and_negative_strides():
    a = np.arange(24.0).reshape(4, 6)
    v = a[::-2, 1::2]
    t = tf.asarray(v)
    assert t.strides == (-12, 2)
    check(t, v)
    assert np.shares_memory(np.asarray(t), a)
    check(t + 1, v + 1)


def test_asarray_copies_when_needed():
    ro = np.arange(4.0)
    ro.flags.writeable = False
    t = tf.asarray(ro)
    assert t.data_ptr() != ro.ctypes.data  # read-only arrays are copied
    be = np.arange(4.0).astype(">f8")
    check(tf.asarray(be), np.arange(4.0))
    check(tf.asarray(np.arange(3, dtype=np.uint8), dtype="i32"), np.arange(3))
    with pytest.raises(TypeError):
        tf.asarray(np.arange(3, dtype=np.float16))  # tenferro has no f16 (docs/dtypes.md)


def test_asarray_scalars_lists():
    assert tf.asarray(3).dtype == tf.i64 and tf.asarray(3).shape == ()
    assert tf.asarray(2.5).dtype == tf.f64
    assert tf.asarray(True).dtype == tf.bool_
    assert tf.asarray(1j).dtype == tf.c128
    check(tf.asarray([[1, 2], [3, 4]], dtype="f32"), np.array([[1, 2], [3, 4]], np.float32))
    assert tf.Tensor([1.0, 2.0]).shape == (2,)
    t = tf.asarray([1.0])
    assert tf.asarray(t) is not None and tf.asarray(t, dtype="f32").dtype == tf.f32


def test_asarray_float_to_integer_dtype_is_tenferro_cast():
    # NumPy arrays, lists and scalars of floats with an integer dtype= went through NumPy's
    # astype: NaN and 1e30 gave INT_MIN, -3.7 gave uint8 253, 300.0 uint8 44, a Python NaN
    # raised ValueError; a Tensor source gave cast's values. Both are cast's now (docs/dtypes.md).
    a = np.array([np.nan, 1e30, -3.7, 300.0, -1e30, 2.9])
    for d, want in ((tf.uint8, [0, 255, 0, 255, 0, 2]),
                    (tf.int32, [0, 2**31 - 1, -3, 300, -2**31, 2]),
                    (tf.int64, [0, 2**63 - 1, -3, 300, -2**63, 2]),
                    (tf.uint64, [0, 2**64 - 1, 0, 300, 0, 2]),
                    (tf.int8, [0, 127, -3, 127, -128, 2])):
        for src in (a, a.astype(np.float32), a.tolist(), a + 0j, a[::-1][::-1]):
            for make in (lambda s: tf.asarray(s, dtype=d), lambda s: tf.Tensor(s, dtype=d)):
                r = make(src)
                assert r.dtype is d
                assert np.asarray(r).tolist() == want
            assert np.asarray(tf.asarray(tf.asarray(src), dtype=d)).tolist() == want
    assert int(tf.asarray(float("nan"), dtype=tf.int32)) == 0
    assert np.asarray(tf.asarray([1e30], dtype=tf.int16)).tolist() == [2**15 - 1]
    # Integer sources keep NumPy's conversion (the low bits, as cast).
    assert np.asarray(tf.asarray(np.array([300, -1]), dtype=tf.uint8)).tolist() == [44, 255]


def test_writes_visible_both_sides():
    a = np.zeros((2, 2))
    t = tf.asarray(a)
    a[0, 1] = 5
    assert t[0, 1].item() == 5
    t[1, 0] = 7  # __setitem__ through the C++ in-place op
    assert a[1, 0] == 7
    v = t.numpy()
    v[1, 1] = 9
    assert t[1, 1].item() == 9


def test_numpy_view_outlives_tensor():
    t = tf.arange(1000.0)
    v = np.asarray(t)
    del t
    gc.collect()
    assert v[999] == 999.0 and v.sum() == 999 * 1000 / 2


def test_tensor_keeps_numpy_alive():
    a = np.arange(10.0)
    ref = weakref.ref(a)
    t = tf.asarray(a)
    del a
    gc.collect()
    assert ref() is not None  # the tensor's storage holds the array
    assert t[9].item() == 9.0
    u = t[2:5]  # a view keeps it alive too
    del t
    gc.collect()
    assert ref() is not None
    del u
    gc.collect()
    assert ref() is None


def test_numpy_refuses_grad_and_traced():
    x = tf.ones(3).requires_grad_()
    with pytest.raises(tf.RuntimeStateError, match="detach"):
        x.numpy()
    check(x.detach().numpy(), np.ones(3))
    seen = []

    def f(a):
        with pytest.raises(tf.RuntimeStateError):
            a.numpy()
        seen.append(1)
        return a

    tf.trace(f, [tf.ValueSpec((2,))])
    assert seen


def test_operators():
    a = sample((3,), "f64", 2, positive=True)
    b = sample((3,), "f64", 3, positive=True)
    ta, tb = tf.asarray(a), tf.asarray(b)
    check(ta + tb, a + b)
    check(ta - tb, a - b)
    check(ta * tb, a * b)
    check(ta / tb, a / b)
    check(ta ** tb, a ** b)
    check(ta // tb, a // b)
    check(ta % tb, a % b)
    check(-ta, -a)
    check(abs(-ta), a)
    check(+ta, a)
    check(2 + ta, 2 + a)
    check(2 - ta, 2 - a)
    check(2 * ta, 2 * a)
    check(2 / ta, 2 / a)
    check(2 ** ta, 2 ** a)
    check(ta ** 2, a ** 2)
    check(a + tb, a + b)  # ndarray on the left defers to Tensor (__array_ufunc__ = None)
    check(ta < tb, a < b)
    check(ta <= 1.0, a <= 1.0)
    check(1.0 < ta, 1.0 < a)
    check(ta == ta, np.ones(3, bool))
    check(ta != tb, a != b)
    check(ta >= tb, a >= b)
    m = tf.asarray(sample((3, 3), "f64", 4))
    check(m @ ta, np.asarray(m) @ a)
    check(a @ m, a @ np.asarray(m))
    bt = tf.asarray([True, False, True])
    check(bt & tf.asarray([True, True, False]), [True, False, False])
    check(bt | False, [True, False, True])
    check(~bt, [False, True, False])
    assert (tf.asarray(np.ones(2, np.float32)) * 2.0).dtype == tf.f32  # scalars keep precision
    assert (tf.asarray(np.ones(2, np.int32)) + 2).dtype == tf.i32


def test_inplace_operators():
    a = np.zeros(3)
    t = tf.asarray(a)
    t2 = t
    t += 1
    t *= 3
    t -= tf.ones(3)
    t /= 2
    assert t is t2
    check(a, np.ones(3))  # written in place, visible through NumPy
    x = tf.ones(3).requires_grad_()
    y = x
    y += 1  # requires grad: out of place (rebinding), as the _into ops refuse it
    assert y is not x and y.requires_grad


def test_getitem_views():
    a = np.arange(60.0).reshape(3, 4, 5)
    t = tf.asarray(a)
    for key in [1, -1, (1, 2), (slice(None), 2), (Ellipsis, 1), (None, 0), (slice(None, None, -1),),
                (slice(3, 0, -2), Ellipsis, None), (0, slice(1, None), slice(None, None, 2)),
                (Ellipsis,), (slice(-100, 100),), (slice(None), None, slice(None), -1),
                (1, 2, 3), slice(5, 1)]:
        r = t[key]
        check(r, a[key])
        if r.size:
            assert np.shares_memory(np.asarray(r), a), key
    check(t[np.array([2, 0])], a[[2, 0]])
    mask = a > 30
    check(t[mask], a[mask])
    with pytest.raises(IndexError):
        t[3]
    with pytest.raises(IndexError):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError):
        t[..., ...]


def test_setitem():
    a = np.zeros((3, 4))
    t = tf.asarray(a)
    t[0] = 1
    t[1, ::2] = tf.asarray([5.0, 6.0])
    t[2] = np.arange(4.0)
    t[:, -1] = [7, 8, 9]
    e = np.zeros((3, 4))
    e[0] = 1
    e[1, ::2] = [5, 6]
    e[2] = np.arange(4.0)
    e[:, -1] = [7, 8, 9]
    check(a, e)
    t[1:] = t[:-1]  # overlapping source: copied first
    e[1:] = e[:-1].copy()
    check(a, e)
    c = tf.zeros(2, "c64")
    c[0] = 1 + 2j
    assert c[0].item() == 1 + 2j


def test_item_bool_len_iter():
    t = tf.asarray([[1.5, 2.5]])
    assert t[0, 1].item() == 2.5 and float(t[0, 0]) == 1.5 and int(t[0, 1]) == 2
    assert isinstance(tf.asarray(3).item(), int) and isinstance(tf.asarray(True).item(), bool)
    assert complex(tf.asarray(1 + 1j)) == 1 + 1j
    assert bool(tf.asarray([1.0])) and not bool(tf.asarray(0))
    with pytest.raises(ValueError):
        bool(tf.ones(2))
    with pytest.raises(TypeError):
        len(tf.asarray(1.0))
    rows = list(tf.asarray(np.arange(6).reshape(3, 2)))
    assert len(rows) == 3 and rows[2].shape == (2,) and rows[2][1].item() == 5
    assert [1, 2, 3][tf.asarray(1)] == 2  # __index__
    assert t.tolist() == [[1.5, 2.5]]


def test_methods_and_views():
    a = np.arange(12.0).reshape(3, 4)
    t = tf.asarray(a)
    check(t.sum(axis=0), a.sum(0))
    check(t.exp(), np.exp(a))
    check(t.transpose(), a.T)
    check(t.permute(1, 0), a.T)
    check(t.reshape((2, 6)), a.reshape(2, 6))
    assert not t.T.is_contiguous() and t.T.contiguous().is_contiguous()
    check(t.astype("i32"), a.astype(np.int32))
    check(t.broadcast_to((2, 3, 4)), np.broadcast_to(a, (2, 3, 4)))
    check(t.unsqueeze(0).squeeze(0), a)
    assert t.offset == 0 and t[1].offset == 4


def test_operators_with_foreign_objects():
    t = tf.ones(2)
    assert (t == None) is False  # noqa: E711  NotImplemented -> identity comparison
    assert (t != "x") is True
    with pytest.raises(TypeError):
        t + "x"
    with pytest.raises(TypeError):
        object() * t
    check(t + np.float32(2), np.full(2, 3.0))  # NumPy scalars are operands


@pytest.mark.parametrize("mask_shape", [(3,), (3, 4), (3, 4, 5), ()])
def test_bool_mask_selects_leading_axes_as_numpy(mask_shape):
    a = sample((3, 4, 5), "f64", seed=3)
    rng = np.random.default_rng(5)
    mask = np.asarray(rng.integers(0, 2, size=mask_shape).astype(np.bool_))
    t = tf.asarray(a)
    for m in (mask, tf.asarray(mask)):
        r = t[m]
        expected = a[mask]
        assert r.shape == expected.shape
        check(r, expected)


@pytest.mark.parametrize("mask_shape", [(5,), (4, 5), (1, 5), (3, 1), (2,), (3, 4, 5, 1)])
def test_bool_mask_of_another_shape_is_index_error(mask_shape):
    a = np.ones((3, 4, 5))
    mask = np.ones(mask_shape, dtype=np.bool_)
    with pytest.raises(IndexError):
        a[mask]  # NumPy refuses it ...
    with pytest.raises(IndexError):
        tf.asarray(a)[mask]  # ... and so do we (no broadcasting of the mask)


def test_bool_mask_is_differentiable():
    a = sample((3, 4), "f64", seed=4)
    mask = np.array([True, False, True])
    g = tf.grad(lambda x: tf.sum(x[mask] * x[mask]))(tf.asarray(a))
    check(g, 2 * a * mask[:, None])
