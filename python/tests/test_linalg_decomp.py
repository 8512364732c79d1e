"""eig, eigvals, lu, lu_factor, lu_solve, matrix_exp, pinv and qr_pivoted against NumPy, and a
gradient of each against central differences; eigh / eigvalsh with NaN or Inf in the triangle they
do not read (run:
PYTHONPATH=build/release/python /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests/test_linalg_decomp.py)."""

import numpy as np
import pytest

import tenferro as tf
from conftest import check, sample

DTYPES = ["f32", "f64", "c64", "c128"]


def _tol(d):
    return dict(rtol=1e-3, atol=1e-3) if d in ("f32", "c64") else dict(rtol=1e-9, atol=1e-9)


def _mh(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("d", DTYPES)
def test_eig(d):
    a = sample((2, 4, 4), d, 1)
    w, v = tf.eig(tf.asarray(a))
    w, v = np.asarray(w), np.asarray(v)
    assert w.dtype == (np.complex64 if d in ("f32", "c64") else np.complex128)
    check(a @ v, v * w[..., None, :], **_tol(d))
    check(np.linalg.norm(v, axis=-2), np.ones((2, 4)), **_tol(d))
    # Same multiset of eigenvalues as NumPy (order may differ): compare sorted.
    key = lambda z: np.sort_complex(np.round(z, 6))
    check(key(np.asarray(tf.eigvals(tf.asarray(a)))), key(np.linalg.eigvals(a)), **_tol(d))


@pytest.mark.parametrize("d", DTYPES)
@pytest.mark.parametrize("n", [2, 4, 40])
def test_eigh_ignores_the_unread_triangle(d, n):
    # eigh reads the lower triangle and the real part of the diagonal (docs/linalg.md), as NumPy's
    # eigh: NaN / Inf above the diagonal (matrix 2: one NaN, matrix 3: all NaN, matrix 4: one Inf)
    # is no error, and the results are those of the Hermitian matrix the lower triangle defines.
    a = sample((6, n, n), d, 3)
    ref = np.tril(a, -1) + _mh(np.tril(a, -1))
    ref[:, np.arange(n), np.arange(n)] = np.real(np.diagonal(a, axis1=-2, axis2=-1))
    x = a.copy()
    x[2, 0, n - 1] = np.nan
    x[3][np.triu_indices(n, 1)] = np.nan
    x[4, 0, 1] = np.inf
    w, v = tf.linalg.eigh(tf.asarray(x))
    w_ref, v_ref = tf.linalg.eigh(tf.asarray(ref))
    np.testing.assert_array_equal(np.asarray(w), np.asarray(w_ref))
    np.testing.assert_array_equal(np.asarray(v), np.asarray(v_ref))
    np.testing.assert_array_equal(np.asarray(tf.linalg.eigvalsh(tf.asarray(x))),
                                  np.asarray(tf.linalg.eigvalsh(tf.asarray(ref))))
    check(np.asarray(w), np.linalg.eigvalsh(x), **_tol(d))
    # A NaN in the lower triangle is read: LinAlgError naming the matrix.
    x[1, n - 1, 0] = np.nan
    with pytest.raises(tf.LinAlgError, match="batch index 1"):
        tf.linalg.eigh(tf.asarray(x))
    with pytest.raises(tf.LinAlgError, match="batch index 1"):
        tf.linalg.eigvalsh(tf.asarray(x))


@pytest.mark.parametrize("d", DTYPES)
def test_lu_and_lu_solve(d):
    a = sample((2, 5, 3), d, 2)
    P, L, U = (np.asarray(t) for t in tf.lu(tf.asarray(a)))
    check(P @ L @ U, a, **_tol(d))
    s = sample((2, 4, 4), d, 3) + 3 * np.eye(4)
    LU, piv = tf.lu_factor(tf.asarray(s))
    assert np.asarray(piv).dtype == np.int64
    assert np.asarray(piv).min() >= 0  # 0-based
    b = sample((2, 4, 2), d, 4)
    check(tf.lu_solve(LU, piv, tf.asarray(b)), np.linalg.solve(s, b), **_tol(d))
    check(tf.lu_solve(LU, piv, tf.asarray(b), adjoint=True), np.linalg.solve(_mh(s), b), **_tol(d))


def _expm_ref(a):
    # Eigendecomposition (diagonalisable random input).
    w, v = np.linalg.eig(a)
    return v @ (np.exp(w)[..., None] * np.linalg.inv(v))


@pytest.mark.parametrize("d", DTYPES)
def test_matrix_exp_and_pinv(d):
    a = sample((2, 4, 4), d, 5)
    check(tf.matrix_exp(tf.asarray(a)), _expm_ref(a.astype(np.complex128)).astype(a.dtype)
          if d in ("c64", "c128") else _expm_ref(a).real, **_tol(d))
    r = sample((3, 5, 2), d, 6) @ sample((3, 2, 4), d, 7)  # rank 2
    check(tf.pinv(tf.asarray(r)), np.linalg.pinv(r, rcond=1e-5 if d in ("f32", "c64") else 1e-12),
          **_tol(d))


@pytest.mark.parametrize("d", DTYPES)
def test_qr_pivoted(d):
    a = sample((6, 4), d, 8)
    Q, R, P = (np.asarray(t) for t in tf.qr_pivoted(tf.asarray(a)))
    assert P.dtype == np.int64
    check(Q @ R, a[:, P], **_tol(d))
    dr = np.abs(np.diag(R))
    assert np.all(dr[1:] <= dr[:-1] * (1 + 1e-6))


@pytest.mark.parametrize("op", ["matrix_exp", "pinv", "lu", "eigvals"])
def test_gradients_against_finite_differences(op):
    a = sample((3, 3), "f64", 9) + 2 * np.eye(3)

    def f(x):
        if op == "lu":
            _, L, U = tf.lu(x)
            return tf.sum(L * L) + tf.sum(U * U)
        if op == "eigvals":
            return tf.sum(tf.abs(tf.eigvals(x)) ** 2)
        return tf.sum(getattr(tf, op)(x) ** 2)

    g = np.asarray(tf.grad(f)(tf.asarray(a)))
    eps = 1e-6
    fd = np.zeros_like(a)
    for i in range(3):
        for j in range(3):
            e = np.zeros_like(a)
            e[i, j] = eps
            fd[i, j] = (float(np.asarray(f(tf.asarray(a + e)))) -
                        float(np.asarray(f(tf.asarray(a - e))))) / (2 * eps)
    check(g, fd, rtol=1e-5, atol=1e-6)


def test_errors():
    with pytest.raises(Exception, match="square"):
        tf.eig(tf.asarray(np.ones((2, 3))))
    LU, piv = tf.lu_factor(tf.asarray(np.zeros((3, 3))))
    with pytest.raises(Exception, match="singular"):
        tf.lu_solve(LU, piv, tf.asarray(np.ones((3, 1))))
