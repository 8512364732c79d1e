"""The Array API 2023.12 namespace (docs/python.md, "The Array API namespace"): tenferro itself is
the namespace. Namespace and inspection API, dtype objects and functions, constants, array
attributes, in-place operators, __setitem__/__getitem__ keys, 0-d conversions, DLPack and asarray,
checked against NumPy 1.24 where NumPy conforms."""

import inspect
import math

import numpy as np
import pytest

import tenferro as tf

DTYPES = [tf.bool, tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32,
          tf.uint64, tf.float32, tf.float64, tf.complex64, tf.complex128]
NP = {tf.bool: np.bool_, tf.int8: np.int8, tf.int16: np.int16, tf.int32: np.int32,
      tf.int64: np.int64, tf.uint8: np.uint8, tf.uint16: np.uint16, tf.uint32: np.uint32,
      tf.uint64: np.uint64, tf.float32: np.float32, tf.float64: np.float64,
      tf.complex64: np.complex64, tf.complex128: np.complex128}


def _np_key(k):
    return np.array(k, dtype=np.int64) if isinstance(k, list) else k


def arr(shape=(3, 4), dtype=np.float64):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


# ---- 1. namespace and inspection ----

def test_array_namespace():
    x = tf.ones(3)
    assert x.__array_namespace__() is tf
    for v in ("2023.12", "2022.12", "2021.12", None):
        assert x.__array_namespace__(api_version=v) is tf
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="2099.12")
    with pytest.raises(TypeError):
        x.__array_namespace__("2023.12")  # keyword-only
    assert tf.__array_api_version__ == "2023.12"


def test_namespace_info():
    info = tf.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert info.default_device() == tf.ones(1).device
    assert info.devices() == [tf.ones(1).device]
    assert info.default_dtypes() == {"real floating": tf.float64, "complex floating":
                                     tf.complex128, "integral": tf.int64, "indexing": tf.int64}
    assert info.default_dtypes(device=info.default_device())["integral"] == tf.int64
    all_ = info.dtypes()
    assert list(all_) == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                          "uint32", "uint64", "float32", "float64", "complex64", "complex128"]
    for name, d in all_.items():
        assert d is getattr(tf, name)
    assert list(info.dtypes(kind="bool")) == ["bool"]
    assert list(info.dtypes(kind="integral")) == ["int8", "int16", "int32", "int64", "uint8",
                                                  "uint16", "uint32", "uint64"]
    assert list(info.dtypes(kind="unsigned integer")) == ["uint8", "uint16", "uint32", "uint64"]
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind=("complex floating", "bool"))) == ["bool", "complex64",
                                                                   "complex128"]
    assert len(info.dtypes(kind="numeric")) == 12
    with pytest.raises(ValueError):
        info.dtypes(kind="no such kind")
    with pytest.raises(ValueError):
        info.dtypes(device="cuda")


# ---- 2. dtypes, dtype functions, constants ----

@pytest.mark.parametrize("d", DTYPES)
def test_dtype_objects(d):
    x = tf.asarray(np.zeros(2, NP[d]))
    assert x.dtype == d and x.dtype is d
    assert np.dtype(d) == np.dtype(NP[d])
    for other in DTYPES:
        if other is not d:
            assert x.dtype != other


KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric"]
NP_KIND = {"bool": lambda t: t == np.bool_, "signed integer": lambda t: np.issubdtype(
    t, np.signedinteger), "unsigned integer": lambda t: np.issubdtype(t, np.unsignedinteger),
    "integral": lambda t: np.issubdtype(t, np.integer), "real floating":
    lambda t: np.issubdtype(t, np.floating), "complex floating":
    lambda t: np.issubdtype(t, np.complexfloating), "numeric":
    lambda t: np.issubdtype(t, np.number)}


@pytest.mark.parametrize("d", DTYPES)
def test_isdtype(d):
    for k in KINDS:
        assert tf.isdtype(d, k) == bool(NP_KIND[k](NP[d])), (d, k)
    assert tf.isdtype(d, d)
    assert tf.isdtype(d, (d, "bool"))
    assert not tf.isdtype(d, ())


def test_isdtype_errors():
    with pytest.raises(ValueError):
        tf.isdtype(tf.float64, "floating")
    with pytest.raises(TypeError):
        tf.isdtype(np.float64, "numeric")
    with pytest.raises(TypeError):
        tf.isdtype(tf.float64, 3)


SAME_KIND = [(a, b) for a in DTYPES for b in DTYPES
             if (a == b == tf.bool) or (a != tf.bool and b != tf.bool and (
                 (tf.isdtype(a, "integral") and tf.isdtype(b, "integral"))
                 or (tf.isdtype(a, ("real floating", "complex floating"))
                     and tf.isdtype(b, ("real floating", "complex floating")))))]


@pytest.mark.parametrize("a,b", SAME_KIND)
def test_result_type_against_numpy(a, b):
    want = np.result_type(NP[a], NP[b])
    assert np.dtype(tf.result_type(a, b)) == want
    x = tf.zeros(2, dtype=a)
    assert np.dtype(tf.result_type(x, b)) == want
    assert np.dtype(tf.result_type(x, tf.zeros(1, dtype=b), a)) == want


def test_result_type_errors():
    assert tf.result_type(tf.float32) == tf.float32
    with pytest.raises(ValueError):
        tf.result_type()
    with pytest.raises(TypeError):
        tf.result_type(tf.float32, 1.0)  # 2023.12: arrays and dtypes only


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_can_cast(a, b):
    got = tf.can_cast(a, b)
    assert tf.can_cast(tf.zeros(1, dtype=a), b) == got
    if (a, b) in SAME_KIND or (a == tf.bool) or (b == tf.bool):
        # NumPy's safe casting agrees with the standard within a kind and for bool targets.
        if not (a == tf.bool and b != tf.bool):
            assert got == np.can_cast(NP[a], NP[b]), (a, b)
        else:
            assert got is False
    else:
        assert got is False  # no cross-kind casts (NumPy allows int -> float)


def test_can_cast_errors():
    with pytest.raises(TypeError):
        tf.can_cast(tf.float32, np.float64)
    with pytest.raises(TypeError):
        tf.can_cast("f4", tf.float64)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_astype(a, b):
    src = np.array([0, 1, 2, 3]).astype(NP[a])
    x = tf.asarray(src)
    y = tf.astype(x, b)
    assert y.dtype == b
    if not (tf.isdtype(a, "complex floating") and not tf.isdtype(b, "complex floating")):
        np.testing.assert_array_equal(np.asarray(y), src.astype(NP[b]))
    assert y is not x


def test_astype_copy():
    x = tf.asarray(np.arange(3.0))
    assert tf.astype(x, tf.float64, copy=False) is x
    y = tf.astype(x, tf.float64)
    assert y is not x and not np.shares_memory(np.asarray(y), np.asarray(x))
    assert tf.astype(x, tf.float32, copy=False).dtype == tf.float32
    assert tf.astype(x, tf.float64, device=x.device).dtype == tf.float64
    with pytest.raises(ValueError):
        tf.astype(x, tf.float32, device="gpu")
    with pytest.raises(TypeError):
        tf.astype(x, tf.float32, False)  # copy is keyword-only
    assert list(inspect.signature(tf.astype).parameters) == ["x", "dtype", "copy", "device"]


def test_astype_takes_every_dtype_form():
    # tf.astype took only DType objects (TypeError for "float32", np.int8, np.dtype("u2")),
    # where x.astype(d) and every dtype= argument take the names and NumPy dtypes too.
    x = tf.asarray(np.array([1.5, -2.5, 300.0]))
    for d, want in (("float32", tf.float32), ("f32", tf.float32), (np.int8, tf.int8),
                    (np.dtype("u2"), tf.uint16), ("bool", tf.bool), (tf.int64, tf.int64),
                    (tf.asarray(np.zeros(1, np.complex64)), tf.complex64)):
        y = tf.astype(x, d)
        assert y.dtype is want
        np.testing.assert_array_equal(np.asarray(y), np.asarray(x.astype(want)))
    for bad in ("bogus", np.float16, None, 3):
        with pytest.raises(TypeError):
            tf.astype(x, bad)


def test_constants():
    assert tf.e == np.e and tf.pi == np.pi
    assert tf.inf == np.inf and math.isnan(tf.nan)
    assert tf.newaxis is None
    assert tf.ones((2, 3))[:, tf.newaxis].shape == (2, 1, 3)


# ---- 3. array attributes ----

def test_shape_ndim_size():
    x = tf.zeros((2, 3, 4))
    assert x.shape == (2, 3, 4) and isinstance(x.shape, tuple)
    assert x.ndim == 3 and x.size == 24
    assert tf.zeros(()).shape == () and tf.zeros(()).size == 1


def test_device_and_to_device():
    x = tf.ones(3)
    d = x.device
    assert d == tf.zeros(1).device and d == tf.__array_namespace_info__().default_device()
    assert isinstance(d, tf.Device) and hash(d) == hash(tf.Device())
    assert "cpu" in repr(d)
    assert x.to_device(d) is x
    assert x.to_device(d, stream=None) is x
    for bad in ("cpu", "cuda", 0, None):
        with pytest.raises(ValueError):
            x.to_device(bad)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (1, 2, 5, 3)])
def test_mT(shape):
    a = arr(shape)
    np.testing.assert_array_equal(np.asarray(tf.asarray(a).mT), np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(np.asarray(tf.matrix_transpose(tf.asarray(a))),
                                  np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(np.asarray(tf.linalg.matrix_transpose(a)),
                                  np.swapaxes(a, -1, -2))


def test_mT_errors_and_T():
    with pytest.raises(ValueError):
        tf.ones(3).mT
    with pytest.raises(ValueError):
        tf.matrix_transpose(tf.ones(()))
    a = arr((3, 4))
    np.testing.assert_array_equal(np.asarray(tf.asarray(a).T), a.T)


# In-place operators: the result must keep the array's dtype and shape, and be written in place.
INPLACE = [
    ("+=", lambda a, b: a.__iadd__(b), np.add),
    ("-=", lambda a, b: a.__isub__(b), np.subtract),
    ("*=", lambda a, b: a.__imul__(b), np.multiply),
    ("/=", lambda a, b: a.__itruediv__(b), np.divide),
    ("**=", lambda a, b: a.__ipow__(b), np.power),
    ("//=", lambda a, b: a.__ifloordiv__(b), np.floor_divide),
    ("%=", lambda a, b: a.__imod__(b), np.remainder),
]


@pytest.mark.parametrize("name,op,ref", INPLACE, ids=[r[0] for r in INPLACE])
@pytest.mark.parametrize("d", [tf.int32, tf.int64, tf.float32, tf.float64, tf.complex128])
def test_inplace_operators(name, op, ref, d):
    if tf.isdtype(d, "integral") and name == "/=":
        pytest.skip("i32 / i32 is f64: in-place true division of integers changes the dtype")
    if tf.isdtype(d, "complex floating") and name in ("//=", "%="):
        pytest.skip("floor division and remainder are not defined for complex numbers")
    a = (np.arange(1, 7).reshape(2, 3) + 2).astype(NP[d])
    b = (np.arange(6).reshape(2, 3) % 3 + 1).astype(NP[d])
    x = tf.asarray(a.copy())
    view = np.asarray(x)
    r = op(x, tf.asarray(b))
    assert r is x and x.dtype == d and x.shape == (2, 3)
    want = ref(a, b)
    np.testing.assert_allclose(np.asarray(x), want.astype(NP[d]), rtol=1e-6)
    np.testing.assert_allclose(view, want.astype(NP[d]), rtol=1e-6)  # written in place
    # A Python scalar and a broadcast row.
    y = tf.asarray(a.copy())
    op(y, 2)
    np.testing.assert_allclose(np.asarray(y), ref(a, NP[d](2)).astype(NP[d]), rtol=1e-6)
    z = tf.asarray(a.copy())
    op(z, tf.asarray(b[0]))
    np.testing.assert_allclose(np.asarray(z), ref(a, b[0]).astype(NP[d]), rtol=1e-6)


def test_inplace_syntax_and_logical():
    x = tf.asarray(np.arange(1.0, 5.0))
    x **= 2
    x //= 3
    x %= 2
    np.testing.assert_array_equal(np.asarray(x), (np.arange(1.0, 5.0) ** 2 // 3) % 2)
    b = tf.asarray(np.array([True, False, True, False]))
    bv = np.asarray(b)
    b &= tf.asarray(np.array([True, True, False, False]))
    np.testing.assert_array_equal(bv, [True, False, False, False])
    b |= tf.asarray(np.array([False, True, False, False]))
    np.testing.assert_array_equal(bv, [True, True, False, False])
    b ^= tf.asarray(np.array([True, True, True, True]))
    np.testing.assert_array_equal(bv, [False, False, True, True])
    m = tf.asarray(np.eye(3) * 2)
    mv = np.asarray(m)
    m @= tf.asarray(np.full((3, 3), 1.0))
    np.testing.assert_array_equal(mv, np.full((3, 3), 2.0))


def test_inplace_keeps_dtype_and_shape():
    x = tf.ones(3, dtype=tf.float32)
    with pytest.raises(TypeError):
        x += tf.ones(3, dtype=tf.float64)  # f32 + f64 is f64
    x = tf.ones(3, dtype=tf.int32)
    with pytest.raises(TypeError):
        x **= tf.ones(3, dtype=tf.float64)
    with pytest.raises(TypeError):
        x //= tf.ones(3, dtype=tf.int64)
    with pytest.raises(TypeError):
        x &= tf.ones(3, dtype=tf.int64)  # bitwise: i32 & i64 is i64
    with pytest.raises(ValueError):
        y = tf.ones(3)
        y **= tf.ones((2, 3))  # would broadcast the array itself
    with pytest.raises(ValueError):
        m = tf.ones((2, 3))
        m @= tf.ones((3, 3)) + tf.ones((3, 1))  # fine shape -> allowed below
        m @= tf.ones((3, 4))
    np.testing.assert_array_equal(np.asarray(tf.ones(3, dtype=tf.int32)), [1, 1, 1])


def test_inplace_on_grad_tensor_rebinds():
    x = tf.ones(3).requires_grad_()
    y = x
    y **= 2
    assert y is not x and y.requires_grad


# __getitem__ / __setitem__ keys, against NumPy.
GET_KEYS = [
    1, -1, slice(None, None, -1), (Ellipsis, 1), (None, 1), (1, None, slice(1, 3)),
    (slice(0, 3, 2), Ellipsis, 1), [0, 2], [[0, 1], [2, 2]], ([0, 2], [1, 3]),
    ([[0], [2]], [1, 3]), ([0, -1], 1), (1, [0, 3]), ([2, 0], Ellipsis), ([0, 1], slice(None)),
    (np.int64(2), [0, 3]), [], ([], []),
]


@pytest.mark.parametrize("key", GET_KEYS, ids=[repr(k) for k in GET_KEYS])
def test_getitem_like_numpy(key):
    a = arr((3, 4, 2))
    nkey = tuple(_np_key(k) for k in key) if isinstance(key, tuple) else _np_key(key)
    np.testing.assert_array_equal(np.asarray(tf.asarray(a)[key]), a[nkey])
    # Integer-array keys given as Tensors.
    tkey = tuple(tf.asarray(_np_key(k)) if isinstance(k, list) else k for k in key) \
        if isinstance(key, tuple) else (tf.asarray(_np_key(key)) if isinstance(key, list) else key)
    np.testing.assert_array_equal(np.asarray(tf.asarray(a)[tkey]), a[nkey])


@pytest.mark.parametrize("mshape", [(3,), (3, 4), (3, 4, 2)])
def test_bool_mask_get_and_set(mshape):
    a = arr((3, 4, 2))
    mask = (arr(mshape, np.int64) % 3 == 1)
    np.testing.assert_array_equal(np.asarray(tf.asarray(a)[mask]), a[mask])
    np.testing.assert_array_equal(np.asarray(tf.asarray(a)[tf.asarray(mask)]), a[mask])
    for value in (-1.0, np.arange(a[mask].size, dtype=np.float64).reshape(a[mask].shape)):
        want = a.copy()
        want[mask] = value
        x = tf.asarray(a.copy())
        view = np.asarray(x)
        x[tf.asarray(mask)] = value
        np.testing.assert_array_equal(view, want)
    # Broadcast value over the trailing axes.
    if len(mshape) == 1:
        want = a.copy()
        want[mask] = np.array([5.0, 6.0])
        x = tf.asarray(a.copy())
        x[mask] = tf.asarray([5.0, 6.0])
        np.testing.assert_array_equal(np.asarray(x), want)


SET_KEYS = [1, (Ellipsis, 0), (None, 2, slice(1, 3)), slice(None, None, -2), [0, 2],
            ([0, 2], [1, 3]), ([[0], [2]], [1, 3]), ([0, -1], 1), (1, [0, 3]),
            ([2, 0], Ellipsis), ([0, 1], slice(None)), ([1, 1], [2, 2])]


@pytest.mark.parametrize("key", SET_KEYS, ids=[repr(k) for k in SET_KEYS])
@pytest.mark.parametrize("d", [tf.int32, tf.float64, tf.complex64])
def test_setitem_like_numpy(key, d):
    a = arr((3, 4), NP[d])
    nkey = tuple(np.array(k) if isinstance(k, list) else k for k in key) \
        if isinstance(key, tuple) else (np.array(key) if isinstance(key, list) else key)
    shape = a[nkey].shape
    for value in (7, np.arange(1, 1 + int(np.prod(shape))).reshape(shape).astype(NP[d])):
        want = a.copy()
        want[nkey] = value
        x = tf.asarray(a.copy())
        view = np.asarray(x)
        x[key] = value
        assert x.dtype == d
        np.testing.assert_array_equal(view, want)


def test_setitem_on_strided_view_and_cast():
    a = arr((4, 6))
    x = tf.asarray(a.copy())
    v = x[::2, 1:]  # a strided view: writes go through to x
    v[[0, 1], [0, 2]] = 9
    want = a.copy()
    want[::2, 1:][[0, 1], [0, 2]] = 9
    np.testing.assert_array_equal(np.asarray(x), want)
    y = tf.asarray(np.zeros(3, np.int32))
    y[[0, 2]] = tf.asarray([1.7, 2.2])  # cast to the array's dtype
    np.testing.assert_array_equal(np.asarray(y), np.array([1, 0, 2], np.int32))


def test_advanced_setitem_python_number_as_basic():
    # A complex Python number into a real array was cast to its real part by the advanced
    # (integer-array / mask) __setitem__ while the basic one refuses it: a silent wrong write.
    for d in (np.float64, np.float32, np.int32, np.uint8):
        for key in ([0, 2], np.array([True, False, True, False]), slice(1, 3)):
            x = tf.asarray(np.zeros(4, d))
            with pytest.raises(tf.DTypeMismatchError):
                x[key] = 1 + 2j
            np.testing.assert_array_equal(np.asarray(x), np.zeros(4, d))
    # a Python int beyond int64 into a float array is a number, as with a basic key (NumPy too)
    for v in (2**64, -2**63 - 1):
        x = tf.asarray(np.zeros(4))
        x[[0, 2]] = v
        np.testing.assert_array_equal(np.asarray(x), np.array([float(v), 0, float(v), 0]))
    c = tf.asarray(np.zeros(3, np.complex128))
    c[[1]] = 1 + 2j
    np.testing.assert_array_equal(np.asarray(c), np.array([0, 1 + 2j, 0]))


def test_write_from_numpy_memory_of_the_same_array():
    # A NumPy array over the tensor's own memory (np.asarray(t), or the array t wraps) is a
    # different storage object; only the same storage was copied first, so a shifted or reversed
    # source was read after being overwritten (t[1:] = np.asarray(t)[:-1] gave all zeros).
    a = np.arange(10.0)
    t = tf.asarray(a)  # wraps a without a copy
    t[1:] = a[:-1]
    np.testing.assert_array_equal(np.asarray(t), np.r_[0.0, np.arange(9.0)])
    t = tf.asarray(np.arange(10.0))
    t[::-1] = np.asarray(t)
    np.testing.assert_array_equal(np.asarray(t), np.arange(9.0, -1.0, -1.0))
    t = tf.asarray(np.arange(10.0))
    t[1:] = tf.asarray(np.asarray(t))[:-1]
    np.testing.assert_array_equal(np.asarray(t), np.r_[0.0, np.arange(9.0)])
    a = np.arange(10.0)
    t = tf.asarray(a)
    t += a[::-1]
    np.testing.assert_array_equal(np.asarray(t), np.full(10, 9.0))
    a = np.arange(10.0)
    t = tf.asarray(a)
    t[1:] += a[:-1]
    want = np.arange(10.0)
    want[1:] += want[:-1]
    np.testing.assert_array_equal(np.asarray(t), want)


def test_into_refuses_numpy_memory_overlapping_out():
    # The _into ops compared storages, not addresses: a NumPy array over out's memory passed the
    # check and was read after being overwritten (add_into(t, a[::-1], 0) gave [5 4 3 3 4 5]).
    a = np.arange(6.0)
    t = tf.asarray(a)
    with pytest.raises(tf.InvalidArgumentError, match="overlaps"):
        tf.add_into(t, a[::-1], 0.0)
    with pytest.raises(tf.InvalidArgumentError, match="overlaps"):
        tf.add_into(t, tf.asarray(np.ones(6)), tf.asarray(np.asarray(t))[::-1])
    np.testing.assert_array_equal(a, np.arange(6.0))  # unchanged
    tf.add_into(t, a, 1.0)  # the identical view stays allowed, as for one storage
    np.testing.assert_array_equal(a, np.arange(1.0, 7.0))


def test_index_errors_with_empty_and_unbroadcastable_arrays():
    # An out-of-range int beside an empty index array was broadcast away unchecked (x[3, []] on
    # shape (3, 0, 0) returned an empty array, NumPy raises), and index arrays that do not
    # broadcast raised ValueError instead of NumPy's IndexError.
    x = tf.asarray(np.zeros((3, 0, 0)))
    with pytest.raises(IndexError):
        x[3, np.array([], np.int64)]
    with pytest.raises(IndexError):
        x[3, np.array([], np.int64)] = 1.0
    y = tf.asarray(np.zeros((3, 4)))
    with pytest.raises(IndexError):
        y[np.array([0, 1]), np.array([0, 1, 2])]
    with pytest.raises(IndexError):
        y[np.array([0, 1]), np.array([0, 1, 2])] = 1.0


def test_python_bool_key():
    a = arr((3, 4))
    for key in (True, False, np.bool_(True)):
        np.testing.assert_array_equal(np.asarray(tf.asarray(a)[key]), a[key])
        x = tf.asarray(a.copy())
        x[key] = -1.0
        want = a.copy()
        want[key] = -1.0
        np.testing.assert_array_equal(np.asarray(x), want)
    with pytest.raises(tf.UnsupportedError):
        tf.asarray(a)[True, 0]


def test_index_errors():
    x = tf.asarray(arr((3, 4)))
    with pytest.raises(IndexError):
        x[[0, 3]]
    with pytest.raises(IndexError):
        x[[0, 1], [4, 0]]
    with pytest.raises(IndexError):
        x[[0, 1], [0, 1], [0, 1]]
    with pytest.raises(IndexError):
        x[np.ones(4, bool)]
    with pytest.raises(IndexError):
        x[[0, -4]] = 1.0
    with pytest.raises(IndexError):
        x[np.ones((3, 3), bool)] = 1.0
    with pytest.raises(ValueError):
        x[[0, 1]] = tf.ones(3)  # value does not broadcast to (2, 4)
    with pytest.raises(tf.UnsupportedError):
        x[[0, 1], 1:3]  # advanced keys followed by a partial slice
    with pytest.raises(tf.UnsupportedError):
        x[np.ones(3, bool), 0]  # a mask must be the sole index (2023.12)
    with pytest.raises(tf.UnsupportedError):
        x[[0.5]] = 1.0


@pytest.mark.parametrize("mask", [np.array(True), np.array(False), tf.asarray(np.array(True)),
                                  np.ones(3, bool)])
def test_boolean_array_beside_other_keys_is_unsupported(mask):
    # docs/python.md: a boolean mask together with other keys is UnsupportedError. A 0-d bool
    # array was counted as an index on an axis: x1[np.array(True), 0] on a 1-D x raised
    # IndexError ("too many indices"), where NumPy adds an axis of length 1.
    x1 = tf.asarray(np.arange(3.0))
    x2 = tf.asarray(np.arange(12.0).reshape(3, 4))
    for x, key in [(x1, (mask, 0)), (x1, (0, mask)), (x2, (mask, 1, 2)), (x2, (mask, [0, 1])),
                   (x2, (mask, slice(None))), (x2, (Ellipsis, mask))]:
        with pytest.raises(tf.UnsupportedError, match="sole index"):
            x[key]
        with pytest.raises(tf.UnsupportedError, match="sole index"):
            x[key] = 1.0
    assert np.asarray(x2).sum() == 66.0  # nothing written
    # Alone, a 0-d bool array is NumPy's new axis of length 1 (True) or 0 (False).
    if isinstance(mask, np.ndarray) and mask.ndim == 0:
        assert tuple(x2[mask].shape) == np.arange(12.0).reshape(3, 4)[mask].shape


def test_getitem_advanced_is_differentiable():
    a = tf.asarray(arr((3, 4)))
    g = tf.grad(lambda t: tf.sum(t[[0, 2], [1, 1]]))(a)
    want = np.zeros((3, 4))
    want[0, 1] = want[2, 1] = 1
    np.testing.assert_array_equal(np.asarray(g), want)


def test_zero_d_conversions():
    assert bool(tf.asarray(True)) is True and bool(tf.asarray(0.0)) is False
    assert int(tf.asarray(7)) == 7 and isinstance(int(tf.asarray(7.9)), int)
    assert int(tf.asarray(7.9)) == int(np.float64(7.9))
    assert float(tf.asarray(2.5)) == 2.5 and float(tf.asarray(3)) == 3.0
    assert complex(tf.asarray(1 + 2j)) == 1 + 2j and complex(tf.asarray(2.0)) == 2 + 0j
    assert [0, 1, 2, 3][tf.asarray(2)] == 2
    assert float(tf.asarray(np.nan)) != float(tf.asarray(np.nan))
    assert float(tf.asarray(-np.inf)) == -np.inf
    with pytest.raises(TypeError):
        [0, 1][tf.asarray(1.0)]  # __index__ only for integers
    with pytest.raises(ValueError):
        bool(tf.ones(2))


# ---- DLPack, from_dlpack, asarray ----

def test_dlpack():
    x = tf.asarray(arr((2, 3)))
    assert x.__dlpack_device__() == (1, 0)
    y = tf.from_dlpack(x)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    assert np.shares_memory(np.asarray(y), np.asarray(x))
    z = tf.from_dlpack(x, copy=True)
    assert not np.shares_memory(np.asarray(z), np.asarray(x))
    np.testing.assert_array_equal(np.asarray(z), np.asarray(x))
    assert tf.from_dlpack(x, device=x.device).shape == (2, 3)
    with pytest.raises(ValueError):
        tf.from_dlpack(x, device="cuda")
    n = np.from_dlpack(x)
    np.testing.assert_array_equal(n, np.asarray(x))
    cap = x.__dlpack__(stream=None, max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert "dltensor" in repr(cap)
    c = tf.from_dlpack(x.__dlpack__(copy=True))
    assert not np.shares_memory(np.asarray(c), np.asarray(x))
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(2, 0))
    w = tf.from_dlpack(np.arange(4.0))
    np.testing.assert_array_equal(np.asarray(w), np.arange(4.0))


def test_asarray_keywords():
    a = np.arange(6.0).reshape(2, 3)
    x = tf.asarray(a)
    assert np.shares_memory(np.asarray(x), a)
    assert np.shares_memory(np.asarray(tf.asarray(a, copy=False)), a)
    assert not np.shares_memory(np.asarray(tf.asarray(a, copy=True)), a)
    assert tf.asarray(x, copy=False) is x
    assert not np.shares_memory(np.asarray(tf.asarray(x, copy=True)), a)
    assert tf.asarray(x, dtype=tf.float32).dtype == tf.float32
    assert tf.asarray([1, 2], dtype=tf.int32, device=x.device).dtype == tf.int32
    with pytest.raises(ValueError):
        tf.asarray(x, dtype=tf.float32, copy=False)
    with pytest.raises(ValueError):
        tf.asarray([1.0, 2.0], copy=False)
    with pytest.raises(ValueError):
        tf.asarray(np.arange(3.0)[::-1].astype(">f8"), copy=False)  # big-endian: copied
    with pytest.raises(ValueError):
        tf.asarray(a, device="cuda")
    with pytest.raises(TypeError):
        tf.asarray(a, tf.float32)  # dtype is keyword-only
    # Python scalars and nested sequences, NumPy's default dtypes (64-bit).
    assert tf.asarray(1).dtype == tf.int64 and tf.asarray(1.0).dtype == tf.float64
    assert tf.asarray(True).dtype == tf.bool and tf.asarray(1j).dtype == tf.complex128
    np.testing.assert_array_equal(np.asarray(tf.asarray([[1, 2], [3, 4]])), [[1, 2], [3, 4]])
    assert list(inspect.signature(tf.asarray).parameters) == ["obj", "dtype", "device", "copy"]


# ---- the standard's names for existing ops ----

ALIASES = [("divide", np.divide), ("equal", np.equal), ("not_equal", np.not_equal),
           ("greater", np.greater), ("greater_equal", np.greater_equal), ("less", np.less),
           ("less_equal", np.less_equal), ("multiply", np.multiply),
           ("subtract", np.subtract)]


@pytest.mark.parametrize("name,ref", ALIASES, ids=[a[0] for a in ALIASES])
def test_binary_aliases(name, ref):
    a = arr((3, 4)) - 5
    b = arr((4,)) % 3 + 1
    np.testing.assert_allclose(np.asarray(getattr(tf, name)(a, b)), ref(a, b))
    assert str(inspect.signature(getattr(tf, name))) == "(x1, x2, /)"


def test_unary_and_manipulation_aliases():
    a = arr((2, 3, 4)) - 7
    np.testing.assert_array_equal(np.asarray(tf.negative(a)), -a)
    x = tf.asarray(a)
    p = tf.positive(x)
    np.testing.assert_array_equal(np.asarray(p), a)
    assert not np.shares_memory(np.asarray(p), np.asarray(x))
    np.testing.assert_array_equal(np.asarray(tf.permute_dims(x, (2, 0, 1))),
                                  np.transpose(a, (2, 0, 1)))
    np.testing.assert_array_equal(np.asarray(tf.take(x, tf.asarray([2, 0, 2]), axis=1)),
                                  np.take(a, [2, 0, 2], axis=1))
    np.testing.assert_array_equal(np.asarray(tf.take(tf.asarray(a[0, 0]), [3, 1])),
                                  np.take(a[0, 0], [3, 1]))
    with pytest.raises(ValueError):
        tf.take(x, [0])  # axis=None needs a 1-D array
    for axis in (0, 1, -1):
        got = tf.unstack(x, axis=axis)
        want = [np.take(a, i, axis=axis) for i in range(a.shape[axis])]
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w)
    with pytest.raises(ValueError):
        tf.unstack(x, axis=3)
    np.testing.assert_array_equal(np.asarray(tf.repeat(x, 2)), np.repeat(a, 2))
    np.testing.assert_array_equal(np.asarray(tf.repeat(x, 3, axis=1)), np.repeat(a, 3, axis=1))
    np.testing.assert_array_equal(np.asarray(tf.repeat(x, tf.asarray([1, 0, 2]), axis=1)),
                                  np.repeat(a, [1, 0, 2], axis=1))
