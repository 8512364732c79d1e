"""tenferro.linalg, the Array API 2023.12 linear algebra extension (docs/python.md, "The Array API
namespace"): the standard's names, positional-only/keyword-only parameters and result tuples,
values against numpy.linalg."""

import inspect

import numpy as np
import pytest

import tenferro as tf
from tenferro import linalg as la

RNG = np.random.default_rng(34)


def mats(shape=(2, 4, 4), dtype=np.float64):
    a = RNG.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def spd(n=4, batch=(2,), dtype=np.float64):
    a = mats(batch + (n, n), dtype)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


def close(got, want, rtol=1e-10, atol=1e-10):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


SIGNATURES = {
    "cholesky": "(x, /, *, upper=False)", "cross": "(x1, x2, /, *, axis=-1)", "det": "(x, /)",
    "diagonal": "(x, /, *, offset=0)", "eigh": "(x, /)", "eigvalsh": "(x, /)", "inv": "(x, /)",
    "matmul": "(x1, x2, /)", "matrix_norm": "(x, /, *, keepdims=False, ord='fro')",
    "matrix_power": "(x, n, /)", "matrix_rank": "(x, /, *, rtol=None)",
    "matrix_transpose": "(x, /)", "outer": "(x1, x2, /)", "pinv": "(x, /, *, rtol=None)",
    "qr": "(x, /, *, mode='reduced')", "slogdet": "(x, /)", "solve": "(x1, x2, /)",
    "svd": "(x, /, *, full_matrices=True)", "svdvals": "(x, /)",
    "tensordot": "(x1, x2, /, *, axes=2)", "trace": "(x, /, *, offset=0, dtype=None)",
    "vecdot": "(x1, x2, /, *, axis=-1)",
    "vector_norm": "(x, /, *, axis=None, keepdims=False, ord=2)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures(name):
    assert str(inspect.signature(getattr(la, name))) == SIGNATURES[name]
    assert name in la.__all__


def test_namespace_attribute():
    assert tf.linalg is la
    assert sorted(la.__all__) == sorted(SIGNATURES)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_decompositions(dtype):
    tol = 1e-4 if dtype == np.float32 else 1e-10
    a = mats((2, 5, 3), dtype)
    r = la.svd(a)
    assert r._fields == ("U", "S", "Vh") and r.U.shape == (2, 5, 5) and r.Vh.shape == (2, 3, 3)
    close(r.S, np.linalg.svd(a, compute_uv=False), tol, tol)
    s = np.asarray(r.S)
    u, vh = np.asarray(r.U), np.asarray(r.Vh)
    close(u[..., :3] * s[..., None, :] @ vh, a, tol, tol)
    r2 = la.svd(a, full_matrices=False)
    assert r2.U.shape == (2, 5, 3)
    close(la.svdvals(a), np.linalg.svd(a, compute_uv=False), tol, tol)
    q, rr = la.qr(a)
    assert la.qr(a)._fields == ("Q", "R") and q.shape == (2, 5, 3)
    close(np.asarray(q) @ np.asarray(rr), a, tol, tol)
    assert la.qr(a, mode="complete").Q.shape == (2, 5, 5)
    h = spd(4, (2,), dtype)
    w = la.eigh(h)
    assert w._fields == ("eigenvalues", "eigenvectors")
    close(w.eigenvalues, np.linalg.eigvalsh(h), tol, tol)
    close(la.eigvalsh(h), np.linalg.eigvalsh(h), tol, tol)
    lo = la.cholesky(h)
    close(lo, np.linalg.cholesky(h), tol, tol)
    close(la.cholesky(h, upper=True), np.conj(np.swapaxes(np.linalg.cholesky(h), -1, -2)), tol,
          tol)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_solvers_and_determinants(dtype):
    a = spd(4, (3,), dtype)
    b = mats((3, 4, 2), dtype)
    close(la.solve(a, b), np.linalg.solve(a, b))
    close(la.inv(a), np.linalg.inv(a))
    close(la.det(a), np.linalg.det(a))
    s = la.slogdet(a)
    assert s._fields == ("sign", "logabsdet")
    ws, wl = np.linalg.slogdet(a)
    close(s.sign, ws)
    close(s.logabsdet, wl)
    m = mats((2, 5, 3), dtype)
    close(la.pinv(m), np.linalg.pinv(m), 1e-8, 1e-8)
    close(la.pinv(m, rtol=0.5), np.linalg.pinv(m, rcond=0.5), 1e-8, 1e-8)
    close(la.matrix_power(a, 3), np.linalg.matrix_power(a, 3), 1e-9)
    close(la.matrix_power(a, -2), np.linalg.matrix_power(a, -2), 1e-9)
    r = np.concatenate([m, m[..., :1]], axis=-1)  # rank 3 of 4 columns
    close(la.matrix_rank(r), np.linalg.matrix_rank(r))


def test_products():
    a, b = mats((2, 3, 4)), mats((2, 4, 5))
    close(la.matmul(a, b), a @ b)
    x, y = RNG.standard_normal(3), RNG.standard_normal(4)
    close(la.outer(x, y), np.outer(x, y))
    close(la.tensordot(a, b[0], axes=1), np.tensordot(a, b[0], axes=1))
    c = mats((3, 4))
    close(la.tensordot(a, c), np.tensordot(a, c, axes=2))
    close(la.tensordot(a, c, axes=([1, 2], [0, 1])), np.tensordot(a, c, axes=([1, 2], [0, 1])))
    u, v = mats((2, 3, 4), np.complex128), mats((2, 3, 4), np.complex128)
    close(la.vecdot(u, v), np.sum(np.conj(u) * v, axis=-1))
    close(la.vecdot(u, v, axis=1), np.sum(np.conj(u) * v, axis=1))
    p, q = mats((4, 3)), mats((4, 3))
    close(la.cross(p, q), np.cross(p, q))
    close(la.cross(p.T, q.T, axis=0), np.cross(p.T, q.T, axis=0))


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 3, 5])
def test_trace_and_diagonal(offset):
    a = mats((2, 4, 5))
    close(la.diagonal(a, offset=offset), np.diagonal(a, offset=offset, axis1=-2, axis2=-1))
    close(la.trace(a, offset=offset), np.trace(a, offset=offset, axis1=-2, axis2=-1))
    i = np.arange(20).reshape(4, 5).astype(np.int32)
    t = la.trace(tf.asarray(i), offset=offset)
    assert t.dtype == tf.int64 and int(t) == np.trace(i, offset=offset)  # the default integer
    assert la.trace(tf.asarray(i), dtype=tf.float64).dtype == tf.float64


@pytest.mark.parametrize("ord", [2, 1, np.inf, -np.inf, 3])
@pytest.mark.parametrize("axis", [None, -1, (0, 2)])
def test_vector_norm(ord, axis):
    a = mats((2, 3, 4))
    for keepdims in (False, True):
        want = np.linalg.norm(a.reshape(-1) if axis is None else a, ord=ord,
                              axis=None if axis is None else axis, keepdims=keepdims) \
            if not (axis is None or isinstance(axis, tuple)) else None
        got = la.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord)
        if isinstance(axis, tuple) or axis is None:
            flat = np.moveaxis(a, axis, (-2, -1)) if axis is not None else a.reshape(-1)
            flat = flat.reshape(flat.shape[:-2] + (-1,)) if axis is not None else flat
            want = np.linalg.norm(flat, ord=ord, axis=-1)
            if keepdims:
                want = np.reshape(want, [1 if (axis is None or i in axis) else n
                                         for i, n in enumerate(a.shape)])
        close(got, want)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2])
def test_matrix_norm(ord):
    a = mats((2, 4, 3))
    close(la.matrix_norm(a, ord=ord), np.linalg.norm(a, ord=ord, axis=(-2, -1)))
    close(la.matrix_norm(a, ord=ord, keepdims=True),
          np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=True))


def test_errors():
    a = mats((3, 3))
    with pytest.raises(TypeError):
        la.svd(a, False)  # full_matrices is keyword-only
    with pytest.raises(TypeError):
        la.det(x=a)  # x is positional-only
    with pytest.raises(ValueError):
        la.outer(a, a)
    with pytest.raises(ValueError):
        la.matrix_transpose(np.ones(3))
    with pytest.raises(tf.ShapeMismatchError):
        la.solve(a, np.ones((4, 1)))
    with pytest.raises(tf.LinAlgError):
        la.cholesky(-np.eye(3))
    with pytest.raises(ValueError):
        la.qr(a, mode="raw")
    with pytest.raises(ValueError):  # an rtol per matrix must broadcast to the stack shape ()
        la.pinv(a, rtol=tf.ones(2))
