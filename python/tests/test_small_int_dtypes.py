"""int8, int16, uint8, uint16, uint32, uint64 (docs/dtypes.md): NumPy round trips both ways,
DLPack codes, promotion and wrapping arithmetic against NumPy, reductions' dtypes, sort, casts,
and the Array API dtype functions for them."""

import numpy as np
import pytest

import tenferro as tf

SMALL = ["int8", "int16", "uint8", "uint16", "uint32", "uint64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def values(name, seed=0, n=12):
    """Values spanning the whole range of the dtype, extremes included."""
    info = np.iinfo(name)
    rng = np.random.default_rng(seed)
    v = rng.integers(info.min, info.max, size=n, dtype=name, endpoint=True)
    v[:2] = [info.min, info.max]
    return v


@pytest.mark.parametrize("name", SMALL)
def test_numpy_round_trip_and_dtype_objects(name):
    a = values(name)
    t = tf.asarray(a)
    assert t.dtype == getattr(tf, name) and t.dtype is getattr(tf, name)
    assert np.dtype(t.dtype) == np.dtype(name)
    assert t.dtype == name and t.itemsize == np.dtype(name).itemsize
    back = t.numpy()
    assert back.dtype == np.dtype(name)
    np.testing.assert_array_equal(back, a)
    assert t[1].item() == int(a[1])  # u64 max as a Python int, exactly
    np.testing.assert_array_equal(np.asarray(tf.zeros(3, dtype=name)), np.zeros(3, name))
    np.testing.assert_array_equal(np.asarray(tf.arange(5, dtype=name)), np.arange(5, dtype=name))


@pytest.mark.parametrize("name", SMALL)
def test_dlpack_both_ways(name):
    a = values(name)
    t = tf.from_dlpack(a)
    assert t.dtype == getattr(tf, name)
    assert t.data_ptr() == a.ctypes.data  # shared, not copied
    b = np.from_dlpack(t)
    assert b.dtype == np.dtype(name)
    np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("a", INTS)
@pytest.mark.parametrize("b", INTS)
def test_promotion_matches_numpy(a, b):
    want = np.result_type(np.dtype(a), np.dtype(b))  # uint64 + signed is float64 in both
    assert np.dtype(tf.result_type(getattr(tf, a), getattr(tf, b))) == want
    x, y = tf.asarray(values(a, 1, 6)), tf.asarray(values(b, 2, 6))
    assert np.dtype((x + y).dtype) == want
    assert tf.can_cast(getattr(tf, a), getattr(tf, b)) == np.can_cast(a, b)


@pytest.mark.parametrize("name", SMALL)
def test_wrapping_arithmetic_matches_numpy(name):
    a, b = values(name, 3), values(name, 4)
    x, y = tf.asarray(a), tf.asarray(b)
    with np.errstate(all="ignore"):
        for got, want in [(x + y, a + b), (x - y, a - b), (x * y, a * b), (-x, -a),
                          (abs(x), np.abs(a)), (tf.maximum(x, y), np.maximum(a, b)),
                          (x // y, np.floor_divide(a, b)), (x % y, np.remainder(a, b))]:
            assert np.asarray(got).dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(x < y), a < b)
    np.testing.assert_array_equal(np.asarray(x == y), a == b)
    np.testing.assert_array_equal(np.asarray(x >= y), a >= b)


def test_the_examples_of_the_docs():
    u8 = tf.asarray(np.array([250, 0], np.uint8))
    np.testing.assert_array_equal(np.asarray(u8 + tf.asarray(np.array([10, 0], np.uint8))),
                                  [4, 0])
    np.testing.assert_array_equal(np.asarray(u8 - tf.asarray(np.array([0, 1], np.uint8))),
                                  [250, 255])
    i8 = tf.asarray(np.array([127], np.int8))
    assert np.asarray(i8 + tf.asarray(np.array([1], np.int8)))[0] == -128
    # Division by zero: 0 for floor_divide and remainder (NumPy's value, without its warning).
    z = tf.asarray(np.array([0, 0], np.uint16))
    np.testing.assert_array_equal(np.asarray(tf.asarray(np.array([7, 0], np.uint16)) // z), [0, 0])


@pytest.mark.parametrize("name", SMALL)
def test_reductions_sort_and_casts(name):
    a = values(name, 5)
    x = tf.asarray(a)
    unsigned = np.dtype(name).kind == "u"
    s = tf.sum(x)
    assert np.dtype(s.dtype) == (np.uint64 if unsigned else np.int64)
    assert s.item() == int(np.sum(a, dtype=np.uint64 if unsigned else np.int64))
    c = tf.cumulative_sum(x)
    np.testing.assert_array_equal(np.asarray(c), np.cumsum(a, dtype=np.dtype(s.dtype)))
    assert tf.max(x).item() == a.max() and tf.min(x).dtype == x.dtype
    assert tf.argmax(x).item() == np.argmax(a)
    np.testing.assert_array_equal(np.asarray(tf.sort(x)), np.sort(a))
    np.testing.assert_array_equal(np.asarray(tf.argsort(x)), np.argsort(a, kind="stable"))
    np.testing.assert_allclose(np.asarray(tf.mean(x)), np.mean(a.astype(np.float64)))
    for other in INTS:
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(np.asarray(tf.astype(x, getattr(tf, other))),
                                          a.astype(other))
    np.testing.assert_array_equal(np.asarray(tf.where(x > 3, x, tf.zeros_like(x))),
                                  np.where(a > 3, a, 0).astype(name))


def test_array_api_dtype_functions():
    for name in SMALL:
        d = getattr(tf, name)
        unsigned = name.startswith("u")
        assert tf.isdtype(d, "integral") and tf.isdtype(d, "numeric")
        assert tf.isdtype(d, "unsigned integer") == unsigned
        assert tf.isdtype(d, "signed integer") == (not unsigned)
        i, n = tf.iinfo(d), np.iinfo(name)
        assert (i.bits, i.min, i.max) == (n.bits, n.min, n.max)
    assert tf.can_cast(tf.uint8, tf.int16) and not tf.can_cast(tf.int8, tf.uint64)
    assert not tf.can_cast(tf.uint64, tf.int64)


def test_float_only_ops_and_missing_f16():
    x = tf.asarray(np.ones((2, 2), np.uint8))
    with pytest.raises(tf.DTypeMismatchError, match="u8"):
        tf.inv(x)
    np.testing.assert_array_equal(np.asarray(tf.matmul(x, x)), np.full((2, 2), 2, np.uint8))
    u = tf.asarray(np.array([[3]], np.uint64))
    assert np.asarray(tf.matmul(u, tf.asarray(np.array([[2]], np.int8)))).dtype == np.float64
    assert np.asarray(tf.exp(x)).dtype == np.float64  # computed in f64
    with pytest.raises(TypeError):
        tf.asarray(np.ones(2, np.float16))


def test_python_operators_keep_the_unsigned_dtype():
    a = np.array([3, 200, 0], np.uint8)
    x = tf.asarray(a)
    with np.errstate(all="ignore"):
        for got, want in [(x ** 2, a ** 2), (2 ** x[:1], np.uint8(2) ** a[:1]),
                          (7 // (x + 1), np.uint8(7) // (a + np.uint8(1))),
                          (250 - x, np.uint8(250) - a)]:
            assert np.asarray(got).dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)
    big = 2**64 - 1
    np.testing.assert_array_equal(np.asarray(tf.full((2,), big, dtype=tf.uint64)),
                                  np.full(2, big, np.uint64))
    y = tf.zeros(2, dtype=tf.uint64)
    y[0] = big
    assert y[0].item() == big
    # uint64 ** int8 promotes to float64 (uint64 with a signed integer), as NumPy.
    z = tf.asarray(np.array([3], np.uint64)) ** tf.asarray(np.array([2], np.int8))
    assert np.asarray(z).dtype == np.float64 and np.asarray(z)[0] == 9.0


def test_integer_matmul_and_tensordot_in_the_promoted_dtype():
    a = np.array([[1, 200], [3, 4]], np.uint8)
    b = np.array([[2, 1], [1, 2]], np.int8)
    for x, y in [(a, a), (a, b)]:
        got = tf.linalg.matmul(tf.asarray(x), tf.asarray(y))
        want = np.matmul(x, y)  # uint8 @ uint8 wraps in uint8; uint8 @ int8 is int16
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    got = tf.tensordot(tf.asarray(a), tf.asarray(b), axes=1)
    np.testing.assert_array_equal(np.asarray(got), np.tensordot(a, b, axes=1))


# ---- index arrays of every integer dtype (issue 34) ----


@pytest.mark.parametrize("name", INTS)
def test_index_arrays_of_every_integer_dtype_as_numpy(name):
    a = np.arange(12.0).reshape(3, 4)
    x = tf.asarray(a)
    idx = np.array([2, 0, 1, 2], name)
    for key in (idx, tf.asarray(idx)):
        np.testing.assert_array_equal(np.asarray(x[key]), a[idx])
        np.testing.assert_array_equal(np.asarray(x[key, ...]), a[idx, ...])
    cols = np.array([3, 0], name)
    np.testing.assert_array_equal(np.asarray(tf.take(x, tf.asarray(cols), axis=1)),
                                  np.take(a, cols.astype(np.int64), axis=1))  # NumPy's take
    # refuses uint64 (no safe cast to intp); tenferro takes it, as NumPy's x[uint64 array] does
    along = np.array([[0], [3], [1]], name)
    np.testing.assert_array_equal(np.asarray(tf.take_along_axis(x, tf.asarray(along), 1)),
                                  np.take_along_axis(a, along.astype(np.int64), 1))
    y, b = tf.asarray(a.copy()), a.copy()
    y[tf.asarray(idx[:2])] = 5.0
    b[idx[:2]] = 5.0
    np.testing.assert_array_equal(np.asarray(y), b)
    reps = np.array([1, 0, 2], name)
    np.testing.assert_array_equal(np.asarray(tf.repeat(tf.asarray(a[:, 0]), tf.asarray(reps))),
                                  np.repeat(a[:, 0], reps.astype(np.int64)))
    x1 = np.array([3.0, 1.0, 2.0])
    sorter = np.argsort(x1).astype(name)
    np.testing.assert_array_equal(
        np.asarray(tf.searchsorted(tf.asarray(x1), tf.asarray(np.array([2.5])),
                                   sorter=tf.asarray(sorter))),
        np.searchsorted(x1, [2.5], sorter=sorter.astype(np.int64)))
    if name.startswith("u"):  # never negative: the dtype's maximum is out of range, not -1
        top = np.array([np.iinfo(name).max], name)
        with pytest.raises(IndexError, match=f"index {np.iinfo(name).max} is out of bounds"):
            x[top]
        with pytest.raises(tf.InvalidArgumentError, match=f"index {np.iinfo(name).max}"):
            tf.take(x, tf.asarray(top), axis=1)


def test_uint64_indices_above_int64_max_are_out_of_range_not_wrapped():
    x = tf.asarray(np.arange(4.0))
    big = np.array([2**63], np.uint64)
    with pytest.raises(tf.InvalidArgumentError, match="index 9223372036854775808"):
        tf.take(x, tf.asarray(big))
    with pytest.raises(IndexError, match="index 9223372036854775808 is out of bounds"):
        x[big]
    with pytest.raises(tf.InvalidArgumentError, match="index 9223372036854775808"):
        tf.one_hot(tf.asarray(big), 4)
    # bool stays a mask, never an index dtype of the ops.
    with pytest.raises(tf.DTypeMismatchError, match="integer dtype"):
        tf.take(x, tf.asarray(np.array([True, False, True, False])))


# ---- a Python int beside an integer array takes its dtype (NEP 50, NumPy 2) ----


def _arith_ops():
    return [
        ("add", lambda x, v: x + v), ("add", lambda x, v: v + x),
        ("sub", lambda x, v: x - v), ("sub", lambda x, v: v - x),
        ("mul", lambda x, v: x * v), ("mul", lambda x, v: v * x),
        ("floor_divide", lambda x, v: x // v), ("floor_divide", lambda x, v: v // x),
        ("remainder", lambda x, v: x % v), ("remainder", lambda x, v: v % x),
        ("pow", lambda x, v: x ** v), ("pow", lambda x, v: v ** x),
        ("bitwise_and", lambda x, v: x & v), ("bitwise_or", lambda x, v: v | x),
        ("bitwise_xor", lambda x, v: x ^ v),
        ("bitwise_left_shift", lambda x, v: x << v),
        ("bitwise_right_shift", lambda x, v: v >> x),
        ("maximum", lambda x, v: tf.maximum(x, v)), ("minimum", lambda x, v: tf.minimum(v, x)),
        ("floor_divide", lambda x, v: tf.floor_divide(x, v)),
        ("remainder", lambda x, v: tf.remainder(v, x)),
        ("add", lambda x, v: tf.add(x, v)), ("sub", lambda x, v: tf.subtract(v, x)),
    ]


@pytest.mark.parametrize("name", INTS)
def test_out_of_range_python_ints_are_overflow_errors_in_arithmetic(name):
    info = np.iinfo(name)
    a = np.array([info.min, 1, info.max], name)
    for v in (info.max + 1, info.min - 1, 10**30, -(10**30)):
        for op, f in _arith_ops():
            x = tf.asarray(a.copy())
            with pytest.raises(OverflowError, match=f"{op}: Python integer {v} out of bounds "
                                                    f"for {name}"):
                f(x, v)
        # In-place forms too; the array is unchanged.
        for f in (lambda x: x.__iadd__(v), lambda x: x.__isub__(v), lambda x: x.__imul__(v),
                  lambda x: x.__ifloordiv__(v), lambda x: x.__imod__(v),
                  lambda x: x.__iand__(v), lambda x: x.__ior__(v), lambda x: x.__ipow__(v)):
            x = tf.asarray(a.copy())
            with pytest.raises(OverflowError, match=f"out of bounds for {name}"):
                f(x)
            np.testing.assert_array_equal(np.asarray(x), a)
    # The ends of the range are the dtype's own values (wrapping as NumPy).
    x = tf.asarray(a)
    with np.errstate(all="ignore"):
        for v in (info.max, info.min):
            got = x + v
            assert np.asarray(got).dtype == np.dtype(name)
            np.testing.assert_array_equal(np.asarray(got), a + np.array(v, name))
    # Ops that compute integers in float64 take the int as a number (NumPy 2 casts it to the
    # float loop's dtype there).
    np.testing.assert_allclose(np.asarray(x / (info.max + 1)), a / float(info.max + 1))


@pytest.mark.parametrize("name", INTS)
def test_comparisons_with_out_of_range_python_ints_are_exact(name):
    info = np.iinfo(name)
    a = np.array([info.min, 0, info.max], name)
    x = tf.asarray(a)
    ints = [int(v) for v in a]
    comparisons = [
        (lambda x, v: x == v, lambda p, v: p == v), (lambda x, v: x != v, lambda p, v: p != v),
        (lambda x, v: x < v, lambda p, v: p < v), (lambda x, v: x <= v, lambda p, v: p <= v),
        (lambda x, v: x > v, lambda p, v: p > v), (lambda x, v: x >= v, lambda p, v: p >= v),
        (lambda x, v: v < x, lambda p, v: v < p), (lambda x, v: v >= x, lambda p, v: v >= p),
        (lambda x, v: v == x, lambda p, v: v == p),
        (lambda x, v: tf.less(x, v), lambda p, v: p < v),
        (lambda x, v: tf.greater_equal(v, x), lambda p, v: v >= p),
    ]
    for v in (info.max + 1, info.min - 1, 2**64, -(2**64), 10**400):
        for f, want in comparisons:
            got = f(x, v)
            assert got.dtype == tf.bool and tuple(got.shape) == (3,)
            np.testing.assert_array_equal(np.asarray(got), [want(p, v) for p in ints])


def test_uint64_beside_python_ints_beyond_int64_and_2_53_is_exact():
    a = np.array([1, 2**64 - 1, 2**63 + 5], np.uint64)
    x = tf.asarray(a)
    np.testing.assert_array_equal(np.asarray(x == 2**64 - 1), [False, True, False])
    np.testing.assert_array_equal(np.asarray(x < 2**63 + 5), [True, False, False])
    got = x - (2**63 + 1)
    assert np.asarray(got).dtype == np.uint64
    np.testing.assert_array_equal(np.asarray(got), a - np.uint64(2**63 + 1))
    got = x + 2**60  # an int int64 holds beside uint64 keeps uint64 (it was float64)
    assert np.asarray(got).dtype == np.uint64
    np.testing.assert_array_equal(np.asarray(got), a + np.uint64(2**60))
    y = tf.asarray(a.copy())
    y -= 2**63 + 1
    np.testing.assert_array_equal(np.asarray(y), a - np.uint64(2**63 + 1))


@pytest.mark.parametrize("args", [(2**64 - 5, 2**64 - 1), (2**63 + 10, 2**63, -3),
                                  (0, 2**64 - 1, 2**62), (2**53 + 1, 2**53 + 4),
                                  (2**64 - 1, 2**64 - 10, -1), (9,)])
def test_arange_of_uint64_beyond_2_53_is_exact(args):
    got = tf.arange(*args, dtype=tf.uint64)
    want = np.arange(*args, dtype=np.uint64)
    assert np.asarray(got).dtype == np.uint64
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("args,dtype", [((-5, 5), "uint8"), ((250, 260), "uint8"),
                                        ((0, 300, 100), "int8"), ((10, -10, -3), "uint16"),
                                        ((-1, 2**52, 2**51), "uint64"), ((-200, 200, 37), "int8"),
                                        ((2**31 - 3, 2**31 + 3), "int32")])
def test_arange_values_outside_an_integer_dtype_wrap_as_numpy(args, dtype):
    # Integer arguments whose values leave the dtype's range went through the C++ arange's
    # doubles and saturated (arange(250, 260, dtype=uint8) ended in 255, 255, ...), unlike
    # the same start beside a bound beyond 2**53, which wrapped; both wrap now, as NumPy.
    got = tf.arange(*args, dtype=getattr(tf, dtype))
    want = np.array([v % 2**64 for v in range(*args)], np.uint64).astype(dtype)  # low bits
    assert np.asarray(got).dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_numpy_arrays_beside_python_ints_take_the_array_dtype_as_tensors_do():
    # A NumPy array (not a tensor) beside a Python int beyond 2**53 went through an i64 0-d
    # array, and uint64 with int64 gave float64: 2**53 + 1 and 2**63 + 1 came back rounded.
    for big in (2**53 + 1, 2**63 + 1, 2**64 - 1):
        a = np.array([0, 1], np.uint64)
        for r in (tf.add(a, big), tf.add(big, a), tf.maximum(a, big)):
            assert r.dtype == tf.uint64
            assert [int(v) for v in np.asarray(r)] in ([big, big + 1 if big < 2**64 - 1 else 0],
                                                      [big, big])
        assert int(np.asarray(tf.subtract(np.array([big], np.uint64), big - 1))[0]) == 1
    with pytest.raises(OverflowError):
        tf.add(np.array([1], np.uint8), 300)
    with pytest.raises(OverflowError):
        tf.multiply(-1, np.array([1], np.uint16))
    r = tf.add(np.array([0], np.int64), 2**53 + 1)
    assert r.dtype == tf.int64 and int(np.asarray(r)[0]) == 2**53 + 1
