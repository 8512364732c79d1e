"""The Array API bitwise functions and operators, searchsorted, unique_* (issue 34) and einsum's
integer-label (sublist) form: values and dtypes against NumPy, the standard's special cases (NaNs,
signed zeros, shift counts), Python scalars, errors, and traced runs."""

import numpy as np
import pytest

import tenferro as tf

NAN, INF = np.nan, np.inf
INTS = [np.int32, np.int64]


def arr(x):
    return x.numpy() if isinstance(x, tf.Tensor) else np.asarray(x)


def same(got, want):
    g = arr(got)
    w = np.asarray(want)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    np.testing.assert_array_equal(g, w)


# ---- bitwise ----

BINARY = [
    ("bitwise_and", np.bitwise_and, lambda a, b: a & b),
    ("bitwise_or", np.bitwise_or, lambda a, b: a | b),
    ("bitwise_xor", np.bitwise_xor, lambda a, b: a ^ b),
]


@pytest.mark.parametrize("name,ref,op", BINARY)
@pytest.mark.parametrize("dt", INTS + [np.bool_])
def test_and_or_xor_against_numpy(name, ref, op, dt):
    rng = np.random.default_rng(1)
    if dt is np.bool_:
        a = rng.integers(0, 2, (3, 4)).astype(dt)
        b = rng.integers(0, 2, (4,)).astype(dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, (3, 4), dtype=dt, endpoint=True)
        b = rng.integers(info.min, info.max, (4,), dtype=dt, endpoint=True)
    same(getattr(tf, name)(tf.asarray(a), tf.asarray(b)), ref(a, b))
    same(op(tf.asarray(a), tf.asarray(b)), ref(a, b))
    same(op(a, tf.asarray(b)), ref(a, b))  # ndarray on the left: the reflected operator


@pytest.mark.parametrize("dt", INTS + [np.bool_])
def test_invert(dt):
    a = np.array([0, 1, 1, 0], dtype=dt) if dt is np.bool_ else np.array([0, -1, 7, 2**20], dt)
    same(tf.bitwise_invert(tf.asarray(a)), np.invert(a))
    same(~tf.asarray(a), np.invert(a))


def test_mixed_dtypes_and_python_scalars_follow_numpy():
    a = np.array([[1, 2, 3], [12, -7, 0]], np.int32)
    b = np.array([5, 9, -1], np.int64)
    same(tf.asarray(a) & tf.asarray(b), a & b)  # i64
    same(tf.asarray(a) | 6, a | 6)  # stays i32
    same(6 ^ tf.asarray(a), 6 ^ a)
    same(tf.asarray(a) & True, a & True)
    t = np.array([True, False])
    same(tf.asarray(t) | False, t | False)
    same(tf.asarray(t) & tf.asarray(np.array([3, 3], np.int32)), t & np.array([3, 3], np.int32))
    # A Python int beyond i32 next to an i32 array is OverflowError (NEP 50, as NumPy 2; NumPy
    # 1.24's value-based casting widened to i64).
    with pytest.raises(OverflowError, match="bitwise_and: Python integer 1099511627776 out of "
                                            "bounds for int32"):
        tf.asarray(a) & 2**40
    # i64 values beyond 2^53 stay exact.
    big = np.array([2**62 + 3], np.int64)
    same(tf.asarray(big) ^ (2**62 + 1), big ^ (2**62 + 1))


@pytest.mark.parametrize("dt", INTS)
def test_shifts_in_range_against_numpy(dt):
    bits = np.iinfo(dt).bits
    rng = np.random.default_rng(2)
    x = rng.integers(-1000, 1000, (5, 6)).astype(dt)
    c = rng.integers(0, bits, (6,)).astype(dt)
    same(tf.bitwise_left_shift(tf.asarray(x), tf.asarray(c)), np.left_shift(x, c))
    same(tf.bitwise_right_shift(tf.asarray(x), tf.asarray(c)), np.right_shift(x, c))
    same(tf.asarray(x) << tf.asarray(c), x << c)
    same(tf.asarray(x) >> 2, x >> 2)
    same(1 << tf.asarray(c), np.left_shift(dt(1), c))


@pytest.mark.parametrize("dt", INTS)
def test_shift_counts_outside_the_range(dt):
    # Note [Shift counts]: every bit shifted out -- 0, or -1 for a negative x shifted right.
    bits = np.iinfo(dt).bits
    x = np.array([1, -1, 5, -5, 7, -7], dt)
    c = np.array([bits, bits, bits + 3, 200, -1, -1], dt)
    same(tf.asarray(x) << tf.asarray(c), np.zeros(6, dt))
    same(tf.asarray(x) >> tf.asarray(c), np.array([0, -1, 0, -1, 0, -1], dt))


def test_in_place_operators():
    a = tf.asarray(np.array([1, 2, 3], np.int32))
    alias = a
    a <<= 2
    a |= 1
    a ^= 3
    a &= 0xFF
    a >>= 1
    assert a is alias
    ref = np.array([1, 2, 3], np.int32)
    ref <<= 2
    ref |= 1
    ref ^= 3
    ref &= 0xFF
    ref >>= 1
    same(a, ref)
    b = tf.asarray(np.array([1, 2], np.int32))
    with pytest.raises(tf.DTypeMismatchError, match="in-place operator keeps the array's dtype"):
        b <<= tf.asarray(np.array([1, 1], np.int64))
    same(b, np.array([1, 2], np.int32))


def test_bitwise_errors():
    f = tf.asarray(np.array([1.0, 2.0]))
    i = tf.asarray(np.array([1, 2], np.int32))
    with pytest.raises(tf.DTypeMismatchError, match="bitwise_and.*f64"):
        f & i
    with pytest.raises(tf.DTypeMismatchError, match="bitwise_left_shift"):
        i << 1.5
    with pytest.raises(tf.DTypeMismatchError, match="bitwise_invert"):
        ~f
    with pytest.raises(tf.DTypeMismatchError, match="bitwise_right_shift.*bool"):
        tf.bitwise_right_shift(tf.asarray([True]), tf.asarray([True]))
    with pytest.raises(tf.ShapeMismatchError, match="bitwise_xor"):
        i ^ tf.asarray(np.array([1, 2, 3], np.int32))
    same(i, np.array([1, 2], np.int32))
    assert (i.__and__(object())) is NotImplemented


def test_bitwise_traced_matches_eager():
    def f(a, b):
        return [a & b, a | 3, ~a, a << b, a >> b]

    x = tf.asarray(np.arange(-6, 6, dtype=np.int64).reshape(3, 4))
    c = tf.asarray(np.array([0, 1, 65, -2], np.int64))
    p = tf.trace(f, [((3, 4), "i64"), ((4,), "i64")])
    step = tf.Runtime(tf.CpuBackend(threads=1)).prepare(p)
    for got, prepared, want in zip(p(x, c), step(x, c), f(x, c)):
        same(got, want.numpy())
        same(prepared, want.numpy())


# ---- searchsorted ----


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_against_numpy(side):
    rng = np.random.default_rng(3)
    x1 = np.sort(rng.integers(0, 20, 30)).astype(np.float64)
    x2 = rng.integers(-2, 23, (4, 5)).astype(np.float64)
    same(tf.searchsorted(tf.asarray(x1), tf.asarray(x2), side=side),
         np.searchsorted(x1, x2, side=side))
    # NaNs last in x1; NaN values.
    y1 = np.array([-INF, -1.0, 0.0, 0.0, 2.0, INF, NAN, NAN])
    y2 = np.array([NAN, -0.0, 0.0, INF, -INF, 3.0])
    same(tf.searchsorted(tf.asarray(y1), tf.asarray(y2), side=side),
         np.searchsorted(y1, y2, side=side))
    # Integers, a 0-d x2.
    i1 = np.array([1, 3, 3, 9], np.int32)
    same(tf.searchsorted(tf.asarray(i1), tf.asarray(np.array([3, 10, 0], np.int32)), side=side),
         np.searchsorted(i1, np.array([3, 10, 0]), side=side))
    same(tf.searchsorted(tf.asarray(i1), tf.asarray(np.int32(3)), side=side),
         np.asarray(np.searchsorted(i1, np.int32(3), side=side), np.int64))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_sorter(side):
    x1 = np.array([5.0, 1.0, NAN, 3.0, 1.0])
    sorter = np.argsort(x1, kind="stable")
    x2 = np.array([1.0, 2.0, 6.0, NAN])
    want = np.searchsorted(x1, x2, side=side, sorter=sorter)
    same(tf.searchsorted(tf.asarray(x1), tf.asarray(x2), side=side, sorter=tf.asarray(sorter)),
         want)
    same(tf.searchsorted(tf.asarray(x1), tf.asarray(x2), side=side,
                         sorter=tf.asarray(sorter.astype(np.int32))), want)


def test_python_ints_beyond_int64_are_overflow_errors_naming_the_op():
    # They used to reach asarray, whose DTypeMismatchError named tenferro.asarray and uint64.
    x = tf.asarray(np.array([1, 2], np.int64))
    with pytest.raises(OverflowError,
                       match="bitwise_and: Python integer 9223372036854775808 out of bounds for "
                             "int64"):
        x & 2**63
    with pytest.raises(OverflowError, match="bitwise_left_shift.*int64"):
        2**64 << x
    with pytest.raises(OverflowError, match="bitwise_xor"):
        tf.bitwise_xor(x, -(2**63) - 1)
    with pytest.raises(OverflowError, match="bitwise_or"):
        x |= 2**70
    with pytest.raises(OverflowError, match="bitwise_invert"):
        tf.bitwise_invert(2**63)
    # Beyond a double's range too (the operators used to fail converting it to float).
    with pytest.raises(OverflowError, match="bitwise_and: Python integer 1000"):
        x & 10**400
    with pytest.raises(OverflowError, match="bitwise_right_shift"):
        10**400 >> x
    same(x, np.array([1, 2], np.int64))
    # The ends of int64's range are fine.
    same(x & (2**63 - 1), np.array([1, 2], np.int64))
    same(x | -(2**63), np.array([1, 2], np.int64) | np.int64(-(2**63)))


def test_searchsorted_sorter_out_of_range_names_searchsorted():
    # index_select checks the range; its error used to name only take_along_axis.
    x1 = tf.asarray(np.array([2.0, 1.0]))
    with pytest.raises(tf.InvalidArgumentError, match="searchsorted: sorter.*5"):
        tf.searchsorted(x1, x1, sorter=tf.asarray(np.array([1, 5])))
    # A negative index is out of range too (NumPy: ValueError "Sorter index out of range"); it
    # used to count from the end, so [-1, 0] read x1 as [1, 2] and gave [1].
    for sorter in [np.array([-1, 0]), np.array([1, -2], np.int32)]:
        with pytest.raises(tf.InvalidArgumentError, match=r"searchsorted: sorter.*-\d.*position"):
            tf.searchsorted(x1, tf.asarray(np.array([1.5])), sorter=tf.asarray(sorter))
        with pytest.raises(ValueError):
            tf.searchsorted(x1, tf.asarray(np.array([1.5])), sorter=tf.asarray(sorter))
    same(tf.searchsorted(x1, tf.asarray(np.array([1.5])), sorter=tf.asarray(np.array([1, 0]))),
         np.array([1]))


def test_searchsorted_errors_and_keywords():
    x1 = tf.asarray(np.array([1.0, 2.0]))
    with pytest.raises(tf.InvalidArgumentError, match="side must be 'left' or 'right'"):
        tf.searchsorted(x1, x1, side="middle")
    with pytest.raises(tf.InvalidArgumentError, match="searchsorted.*one-dimensional"):
        tf.searchsorted(tf.asarray(np.ones((2, 2))), x1)
    with pytest.raises(tf.DTypeMismatchError, match="searchsorted.*sorter"):
        tf.searchsorted(x1, x1, sorter=tf.asarray(np.array([0.0, 1.0])))
    with pytest.raises(tf.ShapeMismatchError, match="searchsorted.*sorter"):
        tf.searchsorted(x1, x1, sorter=tf.asarray(np.array([0, 1, 2])))
    with pytest.raises(tf.DTypeMismatchError, match="searchsorted.*complex"):
        tf.searchsorted(x1, tf.asarray(np.array([1j])))
    with pytest.raises(TypeError):
        tf.searchsorted(x1, x1, "left")  # side is keyword-only
    same(x1, np.array([1.0, 2.0]))


def test_searchsorted_traced_and_no_gradient():
    edges = np.array([0.0, 1.0, 2.0, 3.0])
    p = tf.trace(lambda a, b: [tf.searchsorted(a, b, side="right")],
                 [((4,), "f64"), ((2, 3), "f64")])
    v = np.array([[-1.0, 0.0, 0.5], [1.0, 2.5, 9.0]])
    want = np.searchsorted(edges, v, side="right")
    same(p(tf.asarray(edges), tf.asarray(v)), want)
    step = tf.Runtime(tf.CpuBackend(threads=1)).prepare(p)
    same(step(edges, v), want)
    # The indices are constants for autodiff.
    g = tf.grad(lambda e, x: tf.sum(x * tf.cast(tf.searchsorted(e, x), "f64")), argnums=1)(
        tf.asarray(edges), tf.asarray(np.array([0.5, 2.5])))
    same(g, np.array([1.0, 3.0]))


# ---- unique ----


def test_unique_all_against_numpy():
    x = np.array([[3, 1, 3], [2, 1, 3]], np.int32)
    r = tf.unique_all(tf.asarray(x))
    assert type(r).__name__ == "UniqueAllResult"
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    vals, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    same(r.values, vals)
    same(r.indices, idx.astype(np.int64))
    same(r.inverse_indices, inv.reshape(x.shape).astype(np.int64))
    same(r.counts, cnt.astype(np.int64))
    c = tf.unique_counts(tf.asarray(x))
    assert type(c).__name__ == "UniqueCountsResult" and c._fields == ("values", "counts")
    same(c.counts, cnt.astype(np.int64))
    i = tf.unique_inverse(tf.asarray(x))
    assert type(i).__name__ == "UniqueInverseResult"
    assert i._fields == ("values", "inverse_indices")
    same(i.inverse_indices, inv.reshape(x.shape).astype(np.int64))
    same(tf.unique_values(tf.asarray(x)), vals)
    values, counts = tf.unique_counts(tf.asarray(x))  # a tuple too
    same(values, vals)


def test_unique_nans_distinct_signed_zeros_one():
    x = np.array([NAN, 0.0, -0.0, 1.0, NAN, 1.0])
    r = tf.unique_all(tf.asarray(x))
    v = r.values.numpy()
    assert v.shape == (4,)
    np.testing.assert_array_equal(v[:2], [0.0, 1.0])
    assert np.isnan(v[2:]).all()
    same(r.counts, np.array([2, 2, 1, 1], np.int64))
    same(r.indices, np.array([1, 3, 0, 4], np.int64))
    same(r.inverse_indices, np.array([2, 0, 0, 1, 3, 1], np.int64))
    # values[inverse] == x (NaN aside).
    back = v[r.inverse_indices.numpy()]
    np.testing.assert_array_equal(back[~np.isnan(x)], x[~np.isnan(x)])


def test_unique_other_dtypes_and_shapes():
    for x in (np.array([True, False, True]), np.array([2**62 + 1, 2**62, 2**62 + 1], np.int64),
              np.array([1.5, -2.5, 1.5], np.float32), np.zeros((0, 3))):
        same(tf.unique_values(tf.asarray(x)), np.unique(x))
    z = np.array([1 + 2j, 1 - 1j, 5j, 1 + 2j])
    same(tf.unique_values(tf.asarray(z)), np.unique(z))
    s = tf.unique_inverse(tf.asarray(np.float64(7.0)))
    assert s.values.shape == (1,) and s.inverse_indices.shape == ()


def test_unique_traced_is_a_clear_error():
    with pytest.raises(tf.UnsupportedError, match="unique_values.*depends on the values"):
        tf.trace(lambda a: [tf.unique_values(a)], [((3,), "f64")])
    same(tf.unique_values(tf.asarray(np.array([2, 2]))), np.array([2]))


# ---- einsum with integer labels (NumPy's sublist form) ----


def test_einsum_sublists_against_numpy():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 4))
    b = rng.standard_normal((4, 5))
    c = rng.standard_normal((5, 2))
    cases = [
        ((a, [0, 1, 2], b, [2, 3], [0, 1, 3]), None),
        ((a, [0, 1, 2], b, [2, 3]), None),  # implicit output: the labels seen once, sorted
        ((a, [Ellipsis, 2], b, [2, 3], [Ellipsis, 3]), None),
        ((a, [0, Ellipsis, 2], b, [2, 3]), None),
        ((a, [0, 1, 2], b, [2, 3], c, [3, 0], []), None),
        ((a, [0, 1, 1 + 1]), None),
        ((rng.standard_normal((3, 3)), [0, 0], [0]), None),  # diagonal
    ]
    for args, _ in cases:
        np.testing.assert_allclose(tf.einsum(*args).numpy(), np.einsum(*args), rtol=1e-12,
                                   atol=1e-12)


def test_einsum_labels_beyond_52():
    # NumPy's sublists stop at 52 labels; tenferro's integer labels do not: compare relabelled.
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 3))
    b = rng.standard_normal((3, 4))
    got = tf.einsum(a, [100, 1000], b, [1000, 7], [7, 100])
    np.testing.assert_allclose(got.numpy(), np.einsum(a, [0, 1], b, [1, 2], [2, 0]), rtol=1e-12)
    ops = []
    for k in range(60):
        ops += [np.full(2, k + 1.0), [k]]
    got = tf.einsum(*ops, [])
    assert got.shape == ()
    want = np.prod(np.arange(1, 61, dtype=np.float64)) * 2.0**0  # sum over 2^60 index choices
    np.testing.assert_allclose(got.item(), want * 2.0**60, rtol=1e-12)


def test_unique_complex_values_with_a_nan_part_come_last_in_the_order_of_x():
    # docs/ops.md: a complex value with NaN in either part is a NaN (distinct, after the
    # numbers, in x's order); NumPy orders them by their parts instead.
    nan = np.nan
    x = np.array([complex(nan, 1), complex(2.5, nan), complex(1, 1), complex(-1, nan),
                  complex(1, 1), complex(-0.0, 0)])
    r = tf.unique_all(tf.asarray(x))
    v = np.asarray(r.values)
    assert v[:2].tolist() == [complex(-0.0, 0), complex(1, 1)]
    assert np.signbit(v[0].real)
    assert np.asarray(r.indices).tolist() == [5, 2, 0, 1, 3]
    assert np.asarray(r.counts).tolist() == [1, 2, 1, 1, 1]
    assert np.asarray(r.inverse_indices).tolist() == [2, 3, 1, 4, 1, 0]
