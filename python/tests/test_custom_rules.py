"""tenferro.custom_vjp / custom_jvp / checkpoint: the user's rule is what grad, backward, jvp and
traced programs compute (docs/custom-rules.md)."""

import numpy as np
import pytest

import tenferro as tf


def scaled_sin():
    # sin with a deliberately different reverse rule (3 cos x): a result of 3 cos x can only
    # have come from bwd.
    return tf.custom_vjp(
        lambda x: tf.sin(x),
        lambda x: (tf.sin(x), (tf.cos(x),)),
        lambda res, ct: (3.0 * ct * res[0],),
        name="scaled_sin",
    )


def test_custom_vjp_grad_backward_and_jvp():
    g = scaled_sin()
    x = np.array([0.1, -0.7, 1.3])
    np.testing.assert_allclose(g(x).numpy(), np.sin(x))
    gx = tf.grad(lambda t: tf.sum(g(t)))(x)
    np.testing.assert_allclose(gx.numpy(), 3 * np.cos(x), rtol=1e-14)
    leaf = tf.asarray(x).requires_grad_()
    tf.sum(g(leaf)).backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 3 * np.cos(x), rtol=1e-14)
    # Forward mode differentiates fwd's own ops (the rule is a reverse rule).
    _, t = tf.jvp(g, (x,), (np.ones(3),))
    np.testing.assert_allclose(t.numpy(), np.cos(x), rtol=1e-14)


def test_custom_vjp_several_outputs_and_safe_rule():
    def fwd(x):
        n = tf.sqrt(tf.sum(x * x))
        return (n, 2.0 * x), (x, n)

    def bwd(res, ct):
        x, n = res
        safe = tf.where(n > 0.0, n, tf.ones(()))
        return (ct[0] * x / safe + 2.0 * ct[1],)

    norm2 = tf.custom_vjp(lambda x: (tf.sqrt(tf.sum(x * x)), 2.0 * x), fwd, bwd)
    z = np.zeros(3)
    out = norm2(z)
    assert isinstance(out, tuple) and len(out) == 2
    gz = tf.grad(lambda t: norm2(t)[0])(z)
    np.testing.assert_array_equal(gz.numpy(), np.zeros(3))  # the ops' derivative is nan here


def test_custom_vjp_in_traced_and_prepared_programs():
    g = scaled_sin()
    p = tf.trace(lambda t: tf.sum(g(t)), [(3,)])
    assert "custom_vjp" in str(p)
    rt = tf.Runtime(tf.CpuBackend(threads=1))
    step = rt.prepare(tf.grad(p))
    x = np.array([0.3, 0.2, -1.0])
    np.testing.assert_allclose(step(x).numpy(), 3 * np.cos(x), rtol=1e-14)


def test_bad_bwd_is_a_typed_error_and_nothing_changes():
    bad = tf.custom_vjp(
        lambda x: tf.sin(x), lambda x: (tf.sin(x), (x,)), lambda res, ct: (tf.zeros((2, 2)),)
    )
    leaf = tf.asarray(np.ones(3)).requires_grad_()
    msg = r"custom_vjp.*bwd returned \[2, 2\] f64 for input 0, which is \[3\] f64"
    with pytest.raises(tf.ShapeMismatchError, match=msg):
        tf.sum(bad(leaf)).backward()
    assert leaf.grad is None
    tf.sum(scaled_sin()(leaf)).backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 3 * np.cos(np.ones(3)))


def test_python_exceptions_in_rules_propagate():
    def bwd(res, ct):
        raise KeyError("from bwd")

    f = tf.custom_vjp(lambda x: tf.sin(x), lambda x: (tf.sin(x), ()), bwd)
    with pytest.raises(KeyError, match="from bwd"):
        tf.grad(lambda t: tf.sum(f(t)))(np.ones(2))


def test_custom_jvp_forward_rule_and_reverse_rule():
    jv = tf.custom_jvp(lambda x: tf.sin(x), lambda xs, ts: 2.0 * tf.cos(xs[0]) * ts[0])
    x = np.array([0.5, 1.5])
    _, t = tf.jvp(jv, (x,), (np.ones(2),))
    np.testing.assert_allclose(t.numpy(), 2 * np.cos(x), rtol=1e-14)
    with pytest.raises(tf.UnsupportedError, match="custom_jvp.*cannot be transposed"):
        tf.grad(lambda v: tf.sum(jv(v)))(x)
    both = tf.custom_jvp(
        lambda x: tf.sin(x),
        lambda xs, ts: 2.0 * tf.cos(xs[0]) * ts[0],
        vjp=lambda xs, y, ct: (2.0 * ct * tf.cos(xs[0]),),
    )
    np.testing.assert_allclose(
        tf.grad(lambda v: tf.sum(both(v)))(x).numpy(), 2 * np.cos(x), rtol=1e-14
    )


def test_checkpoint_gives_the_same_gradient():
    a = np.random.default_rng(0).standard_normal((8, 8)) * 0.3

    def step(x, a):
        return tf.tanh(tf.matmul(a, x))

    ck = tf.checkpoint(step)

    def loss(x, a, s):
        for _ in range(5):
            x = s(x, a)
        return tf.sum(x)

    x0 = np.eye(8)
    g0 = tf.grad(lambda x, a: loss(x, a, step), argnums=(0, 1))(x0, a)
    g1 = tf.grad(lambda x, a: loss(x, a, ck), argnums=(0, 1))(x0, a)
    for u, v in zip(g0, g1):
        np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-12, atol=1e-14)
