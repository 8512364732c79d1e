"""Krylov solvers on Python maps (docs/krylov.md): values against dense linalg and NumPy,
gradients through the map's parameters against the dense rules."""
import numpy as np
import pytest

import tenferro as tf


def _sym(n, seed):
    g = np.random.default_rng(seed).standard_normal((n, n))
    return (g + g.T) / 2


def test_eigsh_matches_numpy_and_reports_info():
    a = _sym(120, 1)
    at = tf.asarray(a)
    w, vs, info = tf.eigsh(lambda x: tf.matmul(at, x), tf.asarray(np.ones(120)), 3)
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(a)[:3], atol=1e-9)
    assert len(vs) == 3 and info["converged"] == 3 and info["applications"] > 3
    w2, _, _ = tf.eigsh(lambda x: tf.matmul(at, x), tf.asarray(np.ones(120)), 1,
                        which="largest_real", method="davidson")
    np.testing.assert_allclose(w2.numpy(), np.linalg.eigvalsh(a)[-1:], atol=1e-9)
    with pytest.raises(tf.InvalidArgumentError):
        tf.eigsh(lambda x: tf.matmul(at, x), tf.asarray(np.ones(120)), 1, which="lowest")
    with pytest.raises(TypeError):
        tf.eigsh(lambda x: 3.0, tf.asarray(np.ones(120)), 1)


def test_eigsh_gradient_through_the_map_matches_eigh():
    a0 = tf.asarray(_sym(40, 2))

    def krylov(a):
        s = (a + a.T) * 0.5
        w, _, _ = tf.eigsh(lambda x: tf.matmul(s, x), tf.asarray(np.ones(40)), 1)
        return tf.sum(w)

    def dense(a):
        return tf.sum(tf.eigvalsh((a + a.T) * 0.5)[0:1])

    np.testing.assert_allclose(tf.grad(krylov)(a0).numpy(), tf.grad(dense)(a0).numpy(), atol=1e-8)


def test_linsolve_exponentiate_and_svds():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((50, 50)) / np.sqrt(50) + 3 * np.eye(50)
    b = rng.standard_normal(50)
    at = tf.asarray(a)
    x, info = tf.linsolve(lambda v: tf.matmul(at, v), tf.asarray(b), method="bicgstab")
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), atol=1e-9)
    assert info["converged"] == 1
    h = _sym(30, 4)
    ht = tf.asarray(h)
    y, _ = tf.exponentiate(lambda v: tf.matmul(ht, v), -0.5j, tf.asarray(np.ones(30)),
                           hermitian=True)
    w, v = np.linalg.eigh(h)
    want = v @ (np.exp(-0.5j * w) * (v.T @ np.ones(30)))
    np.testing.assert_allclose(y.numpy(), want, atol=1e-9)
    m = rng.standard_normal((80, 60))
    u, s, vh, _ = tf.svds(tf.asarray(m), 5)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(m, compute_uv=False)[:5], atol=1e-9)
    mt = tf.asarray(m)
    us, s2, vs, _ = tf.svds(lambda q: tf.matmul(mt, q), 2, adjoint=lambda p: tf.matmul(mt.T, p),
                            v0=tf.asarray(np.ones(60)))
    np.testing.assert_allclose(s2.numpy(), np.linalg.svd(m, compute_uv=False)[:2], atol=1e-9)
    assert len(us) == 2 and us[0].shape == (80,) and vs[0].shape == (60,)


def test_eigsh_eager_stops_early_on_a_warm_start():
    n = 120
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    w = np.concatenate([[-3.0, -2.5], np.linspace(0, 1, n - 2)])
    a = (q * w) @ q.T
    a = 0.5 * (a + a.T)
    ta = tf.asarray(a)
    f = lambda x: tf.matmul(ta, x)
    warm = tf.asarray(q[:, 0] + 1e-4 * rng.standard_normal(n))
    vals_full, _, info_full = tf.eigsh(f, warm, 1, krylov_dim=30)
    vals, _, info = tf.eigsh(f, warm, 1, krylov_dim=30, eager=True)
    assert abs(vals.numpy()[0] + 3.0) < 1e-10
    assert abs(vals_full.numpy()[0] + 3.0) < 1e-10
    assert info["applications"] < info_full["applications"]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_tol_is_refused(bad):
    # A NaN tol failed `tol >= 0` in C++ and silently became the default; inf accepted anything.
    a = _sym(12, 7)
    at = tf.asarray(a)
    spd = tf.asarray(a @ a + np.eye(12))
    x = tf.asarray(np.ones(12))
    with pytest.raises(tf.InvalidArgumentError, match="eigsh: tol"):
        tf.eigsh(lambda v: tf.matmul(at, v), x, 1, tol=bad)
    with pytest.raises(tf.InvalidArgumentError, match="linsolve: tol"):
        tf.linsolve(lambda v: tf.matmul(spd, v), x, tol=bad)
    with pytest.raises(tf.InvalidArgumentError, match="exponentiate: tol"):
        tf.exponentiate(lambda v: tf.matmul(at, v), 0.5, x, tol=bad)
    with pytest.raises(tf.InvalidArgumentError, match="svds: tol"):
        tf.svds(tf.asarray(np.ones((6, 4))), 1, tol=bad)
    with pytest.raises(ValueError, match="fixed_point: tol"):
        tf.fixed_point(lambda v: tf.cos(v) * 0.5, tf.asarray(np.zeros(3)), tol=bad)
    # A negative tol is still the documented default.
    w, _, info = tf.eigsh(lambda v: tf.matmul(at, v), x, 1, tol=-1.0)
    assert info["converged"] == 1
