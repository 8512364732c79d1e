"""The Array API's statistical, manipulation, creation and linalg-extension functions added in
issue 34 (var, std, clip, moveaxis, expand_dims, broadcast_arrays, meshgrid, concat,
cumulative_sum/prod, linspace, eye, *_like, vecdot, cross, matrix_power, matrix_rank, finfo,
iinfo): values against NumPy with the standard's keyword names, edge cases, errors, and gradients
of the differentiable ones."""

import numpy as np
import pytest

import tenferro as tf
from conftest import check, sample, tol

NAN = np.nan


# ---- var / std ----

@pytest.mark.parametrize("dtype", ["f32", "f64", "c64", "c128"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
@pytest.mark.parametrize("correction", [0, 1, 1.5])
def test_var_std_match_numpy(dtype, axis, correction):
    x = sample((4, 3, 2), dtype, seed=1)
    for keepdims in (False, True):
        v = tf.var(x, axis=axis, correction=correction, keepdims=keepdims)
        s = tf.std(x, axis=axis, correction=correction, keepdims=keepdims)
        check(v, np.var(x, axis=axis, ddof=correction, keepdims=keepdims), dtype)
        check(s, np.std(x, axis=axis, ddof=correction, keepdims=keepdims), dtype)
        assert np.asarray(v).dtype == np.var(x).dtype  # real for complex input
    # Methods.
    check(tf.asarray(x).var(axis=0), np.var(x, axis=0), dtype)
    check(tf.asarray(x).std(), np.std(x), dtype)


def test_var_edge_cases():
    x = np.array([1.0, 2.0, 4.0])
    # N - correction <= 0 is NaN (the standard); NumPy divides by max(N - ddof, 0) and gives inf.
    assert np.isnan(float(tf.var(x, correction=3)))
    assert np.isnan(float(tf.std(x, correction=4)))
    with pytest.warns(RuntimeWarning):
        assert np.isinf(np.var(x, ddof=3))
    # Empty reductions are NaN, as NumPy's.
    assert np.isnan(float(tf.var(np.zeros(0))))
    check(tf.var(np.zeros((0, 2)), axis=0), np.full(2, NAN))
    # Integers compute in f64; NaN propagates.
    check(tf.var(np.array([1, 2, 3, 4], np.int32)), np.var(np.array([1, 2, 3, 4])))
    assert np.isnan(float(tf.var(np.array([1.0, NAN]))))
    with pytest.raises(tf.InvalidArgumentError, match="var"):
        tf.var(x, axis=1)
    with pytest.raises(tf.InvalidArgumentError, match="std"):
        tf.std(np.ones((2, 2)), axis=(0, -2))


def test_var_std_gradients():
    x = sample((3, 4), "f64", seed=2)
    g = tf.grad(lambda t: tf.sum(tf.var(t, axis=0, correction=1)))(tf.asarray(x))
    check(g, 2 * (x - x.mean(axis=0)) / 2, "f64")
    g = tf.grad(lambda t: tf.std(t))(tf.asarray(x))
    check(g, (x - x.mean()) / (x.size * np.std(x)), "f64")


# ---- clip ----

@pytest.mark.parametrize("dtype", ["f32", "f64", "i32", "i64"])
def test_clip_matches_numpy(dtype):
    x = sample((3, 5), dtype, seed=3)
    check(tf.clip(x, -1, 1), np.clip(x, -1, 1))
    check(tf.clip(x, min=0), np.clip(x, 0, None))
    check(tf.clip(x, max=0), np.clip(x, None, 0))
    check(tf.clip(x), x)
    assert np.asarray(tf.clip(x, -1, 1)).dtype == x.dtype
    lo = np.array([-1, 0, 1, -2, 0], dtype=x.dtype)
    check(tf.clip(x, lo, 2), np.clip(x, lo, 2))
    check(tf.clip(x, min=lo), np.clip(x, lo, None))
    check(tf.Tensor.clip(tf.asarray(x), -1, 1), np.clip(x, -1, 1))


def test_clip_nan_and_inverted_bounds():
    x = np.array([-2.0, 0.5, NAN, np.inf, -np.inf])
    check(tf.clip(x, -1.0, 1.0), np.clip(x, -1.0, 1.0))
    # A NaN bound gives NaN (the standard's special cases, PyTorch's clamp); NumPy 1.24's
    # np.clip ignores a NaN bound, so the expectation is written out.
    check(tf.clip(x, NAN, 1.0), np.full(5, NAN))
    check(tf.clip(x, np.array([0.0, NAN, 0.0, 0.0, 0.0]), 1.0), [0.0, NAN, NAN, 1.0, 0.0])
    check(tf.clip(x, None, np.array([NAN, 1.0, 1.0, 1.0, 1.0])), [NAN, 0.5, NAN, 1.0, -np.inf])
    check(tf.clip(x, 2.0, 1.0), np.clip(x, 2.0, 1.0))  # min > max: max
    with pytest.raises(tf.DTypeMismatchError, match="clip"):
        tf.clip(np.array([1j]), 0, 1)
    with pytest.raises(tf.DTypeMismatchError, match="clip"):
        tf.clip(np.ones(2), 1j, None)
    with pytest.raises(tf.DTypeMismatchError, match="clip"):
        tf.clip(np.ones(2), np.ones(2), 1j)


def test_clip_integer_bounds_are_exact():
    # Python-number bounds of an integer x went through a double: beyond 2**53 they rounded
    # (clip(x_u64, 2**63 + 3) gave 2**63 for 5) and a fractional bound truncated towards 0
    # (clip(x_i8, max=-0.5) left 0 and 1 at 0, above the bound). Now ints are exact (clamped to
    # the dtype's range) and fractional bounds round inwards, in x's dtype; x.clip too.
    u = np.array([2**64 - 1, 2**63 + 1, 5], dtype=np.uint64)
    for r in (tf.clip(u, 2**63 + 3), tf.asarray(u).clip(2**63 + 3),
              tf.clip(u, np.uint64(2**63 + 3), 2**64 - 1)):
        assert r.dtype == tf.uint64
        np.testing.assert_array_equal(np.asarray(r), [2**64 - 1, 2**63 + 3, 2**63 + 3])
    np.testing.assert_array_equal(np.asarray(tf.clip(u, None, 2**64 - 2)),
                                  [2**64 - 2, 2**63 + 1, 5])
    i = np.array([2**62 + 1, -2**62, 0], dtype=np.int64)
    np.testing.assert_array_equal(np.asarray(tf.clip(i, 2**53 + 1, 2**62 + 2)),
                                  [2**62 + 1, 2**53 + 1, 2**53 + 1])
    x = np.array([0, 1, 3, 127, -128], dtype=np.int8)
    for lo, hi, want in ((2.5, None, [3, 3, 3, 127, 3]), (None, -0.5, [-1, -1, -1, -1, -128]),
                         (-0.5, 2.5, [0, 1, 2, 2, 0]), (300, None, [127] * 5),
                         (None, -300, [-128] * 5), (-np.inf, np.inf, x), (np.inf, None, [127] * 5)):
        for r in (tf.clip(x, lo, hi), tf.asarray(x).clip(lo, hi)):
            assert r.dtype == tf.int8
            np.testing.assert_array_equal(np.asarray(r), want)
    # a NaN bound of an integer x is an error, also beside an array bound (it was cast to 0)
    with pytest.raises(tf.InvalidArgumentError, match="clip"):
        tf.clip(x, np.zeros(5, np.int8), NAN)


def test_clip_integer_x_with_floating_array_bounds_rounds_inwards():
    # A floating array bound of an integer x was cast (truncated) by C++ clip: clip(x_i32,
    # min=np.array(2.5)) gave 2, below its bound, where the number 2.5 gives 3. Array bounds round
    # inwards as number bounds do; NaN in one is an error (it was cast to 0).
    x = np.array([2, 5, -3], dtype=np.int32)
    for r in (tf.clip(x, np.array(2.5)), tf.clip(x, tf.asarray(np.array([2.5, 2.5, 2.5])))):
        assert r.dtype == tf.int32
        np.testing.assert_array_equal(np.asarray(r), [3, 5, 3])
    r = tf.clip(x, None, np.array([4.5, 4.5, -3.5], np.float32))
    np.testing.assert_array_equal(np.asarray(r), [2, 4, -4])
    np.testing.assert_array_equal(np.asarray(tf.clip(x, np.array([-1.5]), np.array([1.5]))),
                                  [1, 1, -1])
    with pytest.raises(tf.InvalidArgumentError, match="clip: min bound"):
        tf.clip(x, np.array([NAN, 1.0, 1.0]))
    with pytest.raises(tf.InvalidArgumentError, match="clip: max bound"):
        tf.clip(x, None, tf.asarray(np.array([NAN])))
    # integer array bounds are unchanged
    np.testing.assert_array_equal(np.asarray(tf.clip(x, np.array([3, 0, 0], np.int64))), [3, 5, 0])


def test_clip_integer_x_with_integer_array_bounds_of_other_dtypes_saturates():
    # Integer array bounds of another dtype were cast to x's (wrapping): clip(x_u8,
    # min=int8 -1) was 255 everywhere, clip(x_i8, max=uint8 200) -56. They saturate to x's range,
    # which is the exact clip nearest to it, for every pair of integer dtypes.
    ints = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
    for dt in ints:
        info = np.iinfo(dt)
        x = np.array(sorted({info.min, 0, 5, info.max}), dtype=dt)
        for bt in ints:
            binfo = np.iinfo(bt)
            for lo, hi in [(binfo.min, None), (None, binfo.min), (binfo.max, None), (None, binfo.max),
                           (3, binfo.max), (binfo.min, 3)]:
                r = tf.clip(x, None if lo is None else np.array(lo, bt),
                            None if hi is None else np.array(hi, bt))
                want = [int(v) for v in x]
                if lo is not None:
                    want = [max(v, lo) for v in want]
                if hi is not None:
                    want = [min(v, hi) for v in want]
                want = [min(max(v, info.min), info.max) for v in want]
                assert r.dtype == tf.asarray(x).dtype
                assert [int(v) for v in np.asarray(r)] == want, (dt, bt, lo, hi)


def test_clip_gradient():
    x = tf.asarray(np.array([-2.0, -0.5, 0.3, 1.0, 3.0]))
    g = tf.grad(lambda t: tf.sum(tf.clip(t, -1.0, 1.0)))(x)
    check(g, [0, 1, 1, 1, 0])  # bounds included
    lo = tf.asarray(np.array([-1.0, 0.0, -1.0, -1.0, -1.0]))
    g_lo = tf.grad(lambda m: tf.sum(tf.clip(x, m, 2.0)))(lo)
    check(g_lo, [1, 1, 0, 0, 0])


# ---- manipulation ----

def test_moveaxis_expand_dims():
    x = sample((2, 3, 4, 5), "f64", seed=4)
    for src, dst in [(0, -1), (-1, 0), ((0, 1), (-1, -2)), ((3, 0), (0, 3)), ((), ())]:
        check(tf.moveaxis(x, src, dst), np.moveaxis(x, src, dst))
    for axis in (0, 2, 4, -1, -5):
        check(tf.expand_dims(x, axis=axis), np.expand_dims(x, axis))
    with pytest.raises(tf.InvalidArgumentError, match="moveaxis"):
        tf.moveaxis(x, 0, 4)
    with pytest.raises(tf.InvalidArgumentError, match="expand_dims"):
        tf.expand_dims(x, axis=5)


def test_broadcast_arrays_meshgrid_concat():
    a, b = np.arange(3.0).reshape(3, 1), np.arange(4, dtype=np.float32)
    out = tf.broadcast_arrays(a, b, 2.0)
    assert isinstance(out, list) and len(out) == 3
    for r, e in zip(out, np.broadcast_arrays(a, b, 2.0)):
        check(r, e)
    assert out[1].dtype == tf.f32
    with pytest.raises(tf.ShapeMismatchError, match="broadcast_arrays"):
        tf.broadcast_arrays(np.ones(2), np.ones(3))

    x, y, z = np.arange(3.0), np.arange(2.0) + 10, np.arange(4, dtype=np.int64)
    for indexing in ("xy", "ij"):
        for args in [(x,), (x, y), (x, y, z)]:
            got = tf.meshgrid(*args, indexing=indexing)
            want = np.meshgrid(*args, indexing=indexing)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                check(g, w)
    with pytest.raises(tf.InvalidArgumentError, match="indexing"):
        tf.meshgrid(x, indexing="xz")
    with pytest.raises(tf.InvalidArgumentError, match="meshgrid"):
        tf.meshgrid(np.ones((2, 2)))

    p, q = sample((2, 3), "f64", seed=5), sample((1, 3), "f32", seed=6)
    check(tf.concat([p, q]), np.concatenate([p, q]))
    check(tf.concat([p, p], axis=-1), np.concatenate([p, p], axis=-1))
    check(tf.concat([p, q, np.float64(7)], axis=None),
          np.concatenate([p.ravel(), q.ravel(), [7.0]]), "f32")


@pytest.mark.parametrize("dtype", ["i32", "f32", "f64", "c128"])
def test_cumulative_sum_prod(dtype):
    x = sample((3, 4), dtype, seed=7)
    for axis in (0, 1, -1):
        check(tf.cumulative_sum(x, axis=axis), np.cumsum(x, axis=axis), dtype)
        check(tf.cumulative_prod(x, axis=axis), np.cumprod(x, axis=axis), dtype)
        pad = [(0, 0), (0, 0)]
        pad[axis] = (1, 0)
        check(tf.cumulative_sum(x, axis=axis, include_initial=True),
              np.pad(np.cumsum(x, axis=axis), pad), dtype)
        check(tf.cumulative_prod(x, axis=axis, include_initial=True),
              np.pad(np.cumprod(x, axis=axis), pad, constant_values=1), dtype)
    v = x[0]
    check(tf.cumulative_sum(v), np.cumsum(v), dtype)
    if dtype != "c128":
        r = tf.cumulative_sum(v, dtype="f64")
        assert r.dtype == tf.f64
        check(r, np.cumsum(v.astype(np.float64)))
    with pytest.raises(tf.InvalidArgumentError, match="cumulative_sum"):
        tf.cumulative_sum(x)
    with pytest.raises(tf.InvalidArgumentError, match="cumulative_prod"):
        tf.cumulative_prod(np.float64(2.0), axis=0)


# ---- creation ----

def test_linspace_eye_like():
    for num in (0, 1, 2, 7):
        for endpoint in (True, False):
            check(tf.linspace(0.1, 0.7, num, endpoint=endpoint),
                  np.linspace(0.1, 0.7, num, endpoint=endpoint), rtol=1e-15, atol=1e-15)
    assert float(tf.linspace(0.1, 0.7, 7)[-1]) == 0.7
    check(tf.linspace(0, 2 + 4j, 3), np.linspace(0, 2 + 4j, 3))
    assert tf.linspace(0, 1, 3, dtype="f32").dtype == tf.f32
    with pytest.raises(tf.InvalidArgumentError, match="linspace"):
        tf.linspace(0, 1, -1)

    for n, m, k in [(3, None, 0), (2, 4, 1), (4, 2, -1), (3, 3, 5), (0, 2, 0)]:
        check(tf.eye(n, m, k=k), np.eye(n, m, k=k))
    assert tf.eye(2, dtype="c64").dtype == tf.c64

    x = sample((2, 3), "f32", seed=8)
    check(tf.zeros_like(x), np.zeros_like(x))
    check(tf.ones_like(x, dtype="i64"), np.ones_like(x, dtype=np.int64))
    check(tf.full_like(x, 2.5), np.full_like(x, 2.5))
    assert tf.full_like(x, 2.5).dtype == tf.f32
    e = tf.empty_like(x, dtype=tf.c128)
    assert e.shape == (2, 3) and e.dtype == tf.c128
    with pytest.raises(tf.DTypeMismatchError, match="full_like"):
        tf.full_like(x, 1j)


# ---- linalg ----

@pytest.mark.parametrize("dtype", ["f32", "f64", "c64", "c128"])
def test_vecdot_cross(dtype):
    a, b = sample((4, 3), dtype, seed=9), sample((3,), dtype, seed=10)
    check(tf.vecdot(a, b), np.sum(np.conj(a) * b, axis=-1), dtype)
    check(tf.vecdot(a, a, axis=0), np.sum(np.conj(a) * a, axis=0), dtype)
    check(tf.cross(a, b), np.cross(a, b), dtype)
    check(tf.cross(a.T, a[::-1].T, axis=0), np.cross(a.T, a[::-1].T, axis=0), dtype)
    with pytest.raises(tf.ShapeMismatchError, match="vecdot"):
        tf.vecdot(a, np.ones(4))
    with pytest.raises(tf.ShapeMismatchError, match="cross"):
        tf.cross(np.ones(2), np.ones(2))


def test_vecdot_cross_gradients():
    a, b = sample((2, 3), "f64", seed=11), sample((2, 3), "f64", seed=12)
    ga, gb = tf.grad(lambda x, y: tf.sum(tf.vecdot(x, y)), argnums=(0, 1))(a, b)
    check(ga, b, "f64")
    check(gb, a, "f64")
    w = sample((2, 3), "f64", seed=13)
    ga = tf.grad(lambda x: tf.sum(tf.cross(x, b) * w))(a)
    check(ga, np.cross(b, w), "f64")  # d/da (a x b) . w = b x w


@pytest.mark.parametrize("dtype", ["f32", "f64", "c128"])
def test_matrix_power(dtype):
    x = sample((2, 3, 3), dtype, seed=14) * 0.5 + np.eye(3)
    for n in (-3, -1, 0, 1, 2, 5):
        check(tf.matrix_power(x, n), np.linalg.matrix_power(x, n), dtype,
              **(dict(rtol=1e-4, atol=1e-4) if dtype == "f32" else {}))
    with pytest.raises(tf.DTypeMismatchError, match="matrix_power"):
        tf.matrix_power(np.array([[1, 1], [0, 1]]), 4)  # NumPy accepts integers; the standard not
    with pytest.raises(tf.ShapeMismatchError, match="matrix_power"):
        tf.matrix_power(np.ones((2, 3)), 2)
    g = tf.grad(lambda t: tf.sum(tf.matrix_power(t, 2)))(tf.asarray(np.eye(2) * 2.0))
    check(g, np.full((2, 2), 4.0), "f64")  # d sum(X^2) = 1 X^T + X^T 1 at X = 2 I


def test_matrix_rank():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))
    assert int(tf.matrix_rank(a)) == np.linalg.matrix_rank(a) == 2
    d = np.diag([1.0, 1e-3, 1e-9])
    assert int(tf.matrix_rank(d)) == 3
    assert int(tf.matrix_rank(d, rtol=1e-6)) == 2
    batch = np.stack([d, np.zeros((3, 3)), np.eye(3)])
    check(tf.matrix_rank(batch), [3, 0, 3])
    check(tf.matrix_rank(np.zeros((2, 0, 3))), [0, 0])
    assert tf.matrix_rank(batch).dtype == tf.i64
    check(tf.matrix_rank(batch, rtol=np.array([1e-6, 1e-6, 2.0])), [2, 0, 0])


# ---- finfo / iinfo ----

@pytest.mark.parametrize("dtype", ["f32", "f64", "c64", "c128"])
def test_finfo_matches_numpy(dtype):
    f, n = tf.finfo(dtype), np.finfo({"f32": np.float32, "f64": np.float64,
                                      "c64": np.complex64, "c128": np.complex128}[dtype])
    assert f.bits == n.bits
    assert f.eps == float(n.eps)
    assert f.max == float(n.max)
    assert f.min == float(n.min)
    assert f.smallest_normal == float(n.tiny)
    assert f.dtype == getattr(tf, dtype)
    assert tf.finfo(tf.zeros((1,), dtype=dtype)).bits == n.bits


@pytest.mark.parametrize("dtype", ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"])
def test_iinfo_matches_numpy(dtype):
    i, n = tf.iinfo(dtype), np.iinfo(np.dtype(getattr(tf, dtype)))
    assert (i.bits, i.min, i.max) == (n.bits, n.min, n.max)
    assert i.dtype == getattr(tf, dtype)


def test_info_errors():
    with pytest.raises(tf.DTypeMismatchError, match="finfo"):
        tf.finfo("i32")
    with pytest.raises(tf.DTypeMismatchError, match="iinfo"):
        tf.iinfo(tf.bool)


# ---- Python scalars beside an array take its dtype (the standard's promotion) ----
# floor_divide, remainder, atan2 and where have no C++ Scalar form; a plain conversion made the
# scalar an i64 / f64 0-d array and widened the result (found by an independent check).

def test_python_scalars_take_the_array_dtype_in_functions_without_a_scalar_form():
    xi = tf.asarray(np.array([5, -7, 9], dtype=np.int32))
    xf = tf.asarray(np.array([1.5, -2.25, 4.0], dtype=np.float32))
    c = tf.asarray(np.array([True, False, True]))
    for fn, npfn in ((tf.floor_divide, np.floor_divide), (tf.remainder, np.remainder)):
        for a, b in ((2, xi), (xi, 3), (2.5, xf), (xf, 1.5)):
            got = fn(a, b)
            na = a.numpy() if isinstance(a, tf.Tensor) else a
            nb = b.numpy() if isinstance(b, tf.Tensor) else b
            want = npfn(na, nb)
            assert got.dtype == (tf.int32 if (a is xi or b is xi) else tf.float32), (fn, a, b)
            np.testing.assert_array_equal(got.numpy(), want.astype(got.numpy().dtype))
    for a, b in ((xf, 2.5), (2.5, xf)):
        got = tf.atan2(a, b)
        assert got.dtype == tf.float32
        na = a.numpy() if isinstance(a, tf.Tensor) else np.float32(a)
        nb = b.numpy() if isinstance(b, tf.Tensor) else np.float32(b)
        np.testing.assert_allclose(got.numpy(), np.arctan2(na, nb), rtol=1e-6)
    assert tf.where(c, 2, xi).dtype == tf.int32
    assert tf.where(c, xi, 2).dtype == tf.int32
    assert tf.where(c, 2.5, xf).dtype == tf.float32
    np.testing.assert_array_equal(tf.where(c, 2.5, xf).numpy(),
                                  np.where(c.numpy(), np.float32(2.5), xf.numpy()))
    # A scalar whose kind does not fit keeps the promotion (a float beside i32 is f64).
    assert tf.where(c, 2.5, xi).dtype == tf.float64
    # Two arrays are unchanged.
    assert tf.floor_divide(xi, xi).dtype == tf.int32


# ---- found by an independent check: exact big ints, fresh results, mixed contractions ----

def test_python_ints_beyond_2_53_stay_exact_with_integer_arrays():
    big = 2**53 + 1
    x = tf.asarray(np.array([big, 5], dtype=np.int64))
    xn = x.numpy()
    # They once went through a double Scalar: x == big was all False, x + big off by one.
    np.testing.assert_array_equal((x == big).numpy(), xn == big)
    np.testing.assert_array_equal((x != big).numpy(), xn != big)
    for got, want in (((x + big), xn + big), ((x - big), xn - big), ((big - x), big - xn),
                      ((x * 3), xn * 3), ((x % big), xn % big), (tf.maximum(x, big),
                                                                 np.maximum(xn, big))):
        assert got.dtype == tf.int64
        np.testing.assert_array_equal(got.numpy(), want)
    y = tf.asarray(np.array([big, 5], dtype=np.int64))
    y += big
    np.testing.assert_array_equal(y.numpy(), xn + big)
    # A value written into an integer tensor goes through a double in C++: refused, not rounded.
    for call in (lambda: tf.clamp(x, 0, big), lambda: tf.pad(x, ((1, 0),), "constant", big),
                 lambda: tf.masked_fill(x, x > 6, big)):
        with pytest.raises(ValueError, match="2\\*\\*53"):
            call()
    # ... but a floating tensor takes the double it becomes anyway.
    assert float(tf.clamp(tf.asarray(np.array([1.0])), 0, big)[0]) == 1.0
    # Small ints and floats keep the Scalar path (and their dtype rules).
    assert (tf.asarray(np.array([1, 2], dtype=np.int32)) + 3).dtype == tf.int32


def test_astype_and_unary_plus_return_new_arrays():
    x = tf.asarray(np.array([1.0, 2.0]))
    y = x.astype(x.dtype)
    y += 1
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    z = +x
    z[0] = 9.0
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(x.astype(tf.float32).numpy(), np.array([1, 2], np.float32))


def test_integer_beside_floating_contractions_promote_as_numpy():
    ai = np.arange(6, dtype=np.int64).reshape(2, 3)
    bf = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    bc = (bf + 1j * bf).astype(np.complex64)
    for a, b in ((ai, bf), (bf.T, ai.T), (ai.astype(np.int32), bc), (ai > 2, bf)):
        ta, tb = tf.asarray(a), tf.asarray(b)
        got = ta @ tb
        # tenferro's promotion (docs/dtypes.md: an integer beside f32 is f32; NumPy says f64).
        assert got.dtype == tf.result_type(ta, tb)
        np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    got = tf.tensordot(tf.asarray(ai), tf.asarray(np.ones((3, 2))), axes=1)
    np.testing.assert_allclose(got.numpy(), np.tensordot(ai, np.ones((3, 2)), axes=1))


def test_setitem_of_a_python_int_out_of_the_integer_range_is_overflow_error():
    b = tf.asarray(np.arange(3, dtype=np.int32))
    # It once saturated to 2147483647 (NumPy 2 raises; the documented cast would wrap).
    with pytest.raises(OverflowError, match="out of the range"):
        b[0] = 2**40
    with pytest.raises(OverflowError):
        b[np.array([0, 2])] = -2**31 - 1
    np.testing.assert_array_equal(b.numpy(), [0, 1, 2])  # nothing written
    b[1] = -2**31
    assert int(b[1]) == -2**31


def test_in_place_operators_on_overlapping_views_read_the_right_side_as_copied():
    for op in ("__iadd__", "__imul__", "__isub__"):
        x, xn = tf.asarray(np.arange(6.0)), np.arange(6.0)
        getattr(x[1:], op)(x[:-1])  # raised InvalidArgumentError from add_into before
        getattr(xn[1:], op)(xn[:-1])
        np.testing.assert_array_equal(x.numpy(), xn)
    x, xn = tf.asarray(np.arange(6.0)), np.arange(6.0)
    x[::-1] *= x
    xn[::-1] *= xn
    np.testing.assert_array_equal(x.numpy(), xn)
    y = tf.asarray(np.arange(4, dtype=np.int64))
    alias = y
    y += y  # the whole tensor: still in place (alias sees it)
    np.testing.assert_array_equal(alias.numpy(), [0, 2, 4, 6])


def test_where_and_the_weak_scalar_functions_have_the_standards_signatures():
    import inspect
    for fn, names in ((tf.where, ["condition", "x1", "x2"]), (tf.floor_divide, ["x1", "x2"]),
                      (tf.remainder, ["x1", "x2"]), (tf.atan2, ["x1", "x2"])):
        params = list(inspect.signature(fn).parameters.values())
        assert [p.name for p in params] == names
        assert all(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in params)


def test_linspace_of_unsigned_integers_beyond_2_53_is_exact():
    big = 2**53 + 1
    got = tf.linspace(big, big, 1, endpoint=False, dtype=tf.uint64)
    assert int(got[0]) == big  # was 2**53 through the C++ linspace's doubles
    got = tf.linspace(2**64 - 11, 2**64 - 1, 6, dtype=tf.uint64)
    np.testing.assert_array_equal(got.numpy(), np.array([2**64 - 11 + 2 * i for i in range(6)],
                                                        dtype=np.uint64))
