"""Gradients of Python functions against finite differences and (when importable) torch."""

import numpy as np
import pytest

import tenferro as tf
from conftest import HAVE_TORCH, check, needs_torch, sample


def fd_grad(f, xs, i, eps=1e-6):
    """Central finite differences of the real scalar f(*xs) with respect to xs[i] (f64 arrays)."""
    x = xs[i]
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        xp = [a.copy() for a in xs]
        xm = [a.copy() for a in xs]
        xp[i][k] += eps
        xm[i][k] -= eps
        g[k] = (f(*[tf.asarray(a) for a in xp]).item() - f(*[tf.asarray(a) for a in xm]).item()) / (2 * eps)
    return g


# (name, f, input shapes, positive inputs) -- tenferro functions of real f64 inputs.
GRAD_CASES = [
    ("sum_sq", lambda x: tf.sum(x * x), [(3,)], False),
    ("bmm", lambda a, b: tf.sum(tf.bmm(a, b)), [(4, 2, 2), (4, 2, 2)], False),
    ("exp_sin", lambda x: tf.sum(tf.exp(tf.sin(x)) / 3), [(2, 3)], False),
    ("log_sqrt", lambda x: tf.mean(tf.log(x) + tf.sqrt(x)), [(4,)], True),
    ("div_pow", lambda x, y: tf.sum(x / y + x ** 2.5), [(3,), (3,)], True),
    ("tanh_matmul", lambda a, b: tf.sum(tf.tanh(a @ b)), [(2, 3), (3, 2)], False),
    ("softmax", lambda x: tf.sum(tf.softmax(x, axis=1) * tf.arange(3.0)), [(2, 3)], False),
    ("logsumexp", lambda x: tf.logsumexp(x), [(5,)], False),
    ("norm", lambda x: tf.norm(x), [(4,)], False),
    ("prod", lambda x: tf.prod(x), [(4,)], False),
    ("max", lambda x: tf.max(x), [(5,)], False),
    ("einsum", lambda a, b: tf.sum(tf.einsum("ij,jk->ik", a, b) ** 2), [(2, 3), (3, 2)], False),
    ("indexing", lambda x: tf.sum(x[1:, ::-1] * x[0]), [(3, 2)], False),
    ("det", lambda a: tf.det(a), [(3, 3)], False),
    ("inv", lambda a: tf.sum(tf.inv(a + 3 * tf.asarray(np.eye(3)))), [(3, 3)], False),
    ("svdvals", lambda a: tf.sum(tf.svdvals(a)), [(3, 2)], False),
    ("solve", lambda a, b: tf.sum(tf.solve(a + 3 * tf.asarray(np.eye(3)), b)), [(3, 3), (3,)], False),
    ("cumsum", lambda x: tf.sum(tf.cumsum(x, 0) ** 2), [(4,)], False),
    ("where", lambda x: tf.sum(tf.where(x > 0, x, x * x)), [(5,)], False),
]


def _inputs(shapes, positive, seed=0):
    return [sample(s, "f64", seed + k, positive=positive) for k, s in enumerate(shapes)]


@pytest.mark.parametrize("name,f,shapes,positive", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad_vs_finite_differences(name, f, shapes, positive):
    xs = _inputs(shapes, positive)
    argnums = tuple(range(len(xs)))
    gs = tf.grad(f, argnums=argnums)(*xs)
    for i, g in enumerate(gs):
        check(g, fd_grad(f, xs, i), rtol=1e-5, atol=1e-6)
    v, g0 = tf.value_and_grad(f)(*xs)
    check(v, f(*[tf.asarray(x) for x in xs]))
    check(g0, gs[0])


TORCH_CASES = [
    ("sum_sq", lambda m, x: m.sum(x * x)),
    ("bmm", lambda m, a, b: m.sum(m.bmm(a, b)) if m is tf else (a @ b).sum()),
    ("tanh_exp", lambda m, a: m.sum(m.tanh(m.exp(a) * a))),
]


@needs_torch
@pytest.mark.parametrize("name,f", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_grad_vs_torch(name, f):
    import torch

    nin = f.__code__.co_argcount - 1
    xs = [sample((4, 2, 2), "f64", k) for k in range(nin)]
    ours = tf.grad(lambda *a: f(tf, *a), argnums=tuple(range(nin)))(*xs)
    txs = [torch.tensor(x, requires_grad=True) for x in xs]
    f(torch, *txs).backward()
    for o, t in zip(ours, txs):
        check(o, t.grad.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
def test_complex_grad_vs_torch():
    import torch

    z = sample((3,), "c128", 1)
    ours = tf.grad(lambda z: tf.sum(tf.abs(z * z + 1) ** 2))(z)
    tz = torch.tensor(z, requires_grad=True)
    ((tz * tz + 1).abs() ** 2).sum().backward()
    check(ours, tz.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_vjp_jvp_hvp():
    x = sample((3,), "f64", 2)
    y, pull = tf.vjp(lambda a: a * a, x)
    check(y, x * x)
    (ct,) = pull(np.ones(3))
    check(ct, 2 * x)
    (y1, y2), pull2 = tf.vjp(lambda a, b: (a * b, a + b), x, x)
    ca, cb = pull2((np.ones(3), np.ones(3)))
    check(ca, x + 1)
    out, tan = tf.jvp(lambda a: tf.sin(a), (x,), (np.ones(3),))
    check(out, np.sin(x))
    check(tan, np.cos(x))
    check(tf.hvp(lambda a: tf.sum(a * a * a), (x,), (np.ones(3),)), 6 * x)


def test_tape_style():
    x = tf.asarray(sample((3,), "f64", 3)).requires_grad_()
    assert x.requires_grad and x.is_leaf and x.grad is None
    y = tf.sum(tf.exp(x))
    assert not y.is_leaf
    y.backward()
    check(x.grad, np.exp(np.asarray(x.detach())))
    x.zero_grad_()
    assert x.grad is None
    z = tf.sum(x * 2)
    z.backward(retain_graph=True)
    z.backward()
    check(x.grad, np.full(3, 4.0))
    with pytest.raises(tf.RuntimeStateError):
        z.backward()
    with tf.no_grad():
        assert not tf.is_grad_enabled()
        assert not (x * 2).requires_grad
    assert tf.is_grad_enabled()
    d = x.detach()
    assert not d.requires_grad
    w = x * 3
    tf.backward([w], [np.ones(3)])
    check(x.grad, np.full(3, 7.0))


def test_grad_errors_propagate():
    def bad(x):
        raise KeyError("from python")

    with pytest.raises(KeyError, match="from python"):
        tf.grad(bad)(np.ones(2))
    with pytest.raises(TypeError, match="must return a tenferro.Tensor"):
        tf.grad(lambda x: 1.0)(np.ones(2))
    with pytest.raises(tf.InvalidArgumentError):
        tf.grad(lambda x: x * 2)(np.ones(2))  # not a one-element output
    # everything still works afterwards
    check(tf.grad(lambda x: tf.sum(x))(np.ones(2)), np.ones(2))


def test_grad_of_nonfloat_argument_passthrough():
    # Non-differentiated arguments may be anything.
    g = tf.grad(lambda x, k: tf.sum(x * k), argnums=0)(np.ones(2), 3.0)
    check(g, np.full(2, 3.0))


def test_derivatives_of_any_order():
    """grad of grad, jvp of jvp and their mixtures nest to any order (C++ Note [Autodiff levels]),
    with no perturbation confusion; the traced and forward-over-reverse routes agree."""
    x = tf.asarray(np.array([2.0]))
    inner = tf.grad(lambda b: tf.sum(b * b * b))
    assert np.allclose(np.asarray(tf.grad(lambda a: tf.sum(inner(a)))(x)), [12.0])
    third = tf.grad(lambda a: tf.sum(tf.grad(lambda b: tf.sum(inner(b)))(a)))
    assert np.allclose(np.asarray(third(x)), [6.0])
    assert np.allclose(np.asarray(tf.grad(lambda a: tf.sum(tf.vjp(lambda b: b * b, a)[0]))(x)),
                       [4.0])

    def df(a):
        return tf.jvp(lambda b: tf.sin(b), [a], [tf.ones(1)])[1]

    assert np.allclose(np.asarray(tf.jvp(df, [x], [tf.ones(1)])[1]), -np.sin(2.0))
    assert np.allclose(np.asarray(tf.grad(lambda a: tf.sum(df(a)))(x)), -np.sin(2.0))
    # d/dx (x * d/dy (x + y)) = 1
    y = tf.asarray(np.array([-1.5]))
    conf = tf.grad(lambda a: tf.sum(a * tf.grad(lambda b: tf.sum(a + b))(y)))
    assert np.allclose(np.asarray(conf(x)), [1.0])
    assert np.allclose(np.asarray(tf.hvp(lambda a: tf.sum(a * a * a), [x], [tf.ones(1)])), [12.0])
    g2 = tf.grad(tf.grad(tf.trace(lambda a: tf.sum(a * a * a), [tf.ValueSpec((1,))])))
    assert np.allclose(np.asarray(g2(x)), [12.0])


def test_backward_with_create_graph():
    x = tf.asarray(np.array([2.0])).requires_grad_()
    tf.sum(x * x * x).backward(create_graph=True)
    g = x.grad
    assert g.requires_grad and np.allclose(np.asarray(g.detach()), [12.0])
    x.zero_grad_()
    tf.backward(tf.sum(g))
    assert np.allclose(np.asarray(x.grad), [12.0])
    x.zero_grad_()


def test_jacobians_and_hessian():
    x = np.array([1.5, -2.0])

    def f(a):
        return tf.concatenate([a * a, a[:1] * a[1:]])

    expect = np.array([[3.0, 0.0], [0.0, -4.0], [-2.0, 1.5]])
    assert np.allclose(np.asarray(tf.jacrev(f)(x)), expect)
    assert np.allclose(np.asarray(tf.jacfwd(f)(x)), expect)
    h = np.asarray(tf.hessian(lambda a: tf.sum(a * a * a))(x))
    assert np.allclose(h, np.diag(6 * x))
    hb = tf.hessian(lambda a, b: tf.sum(a * a * b), argnums=(0, 1))(x, np.array([3.0, 4.0]))
    assert np.allclose(np.asarray(hb[0][1]), np.diag(2 * x))
    with pytest.raises(tf.InvalidArgumentError, match="complex"):
        tf.jacrev(lambda a: a * a)(np.array([1j]))


def test_backward_never_writes_into_a_numpy_cotangent():
    # (x + 2).backward(cn) made x.grad share cn's buffer (zero-copy), and the next backward added
    # into it in place: cn became [6, 6, 6] (found by the derivative hunt).
    x = tf.asarray(np.array([1.0, 2.0, 3.0])).requires_grad_()
    cn = np.array([1.0, 1.0, 1.0])
    (x + 2.0).backward(cn)
    tf.sum(x * 5.0).backward()
    np.testing.assert_array_equal(cn, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(x.grad), [6.0, 6.0, 6.0])
    x.zero_grad_()
    (x + 2.0).backward(tf.asarray(cn))
    tf.sum(x * 5.0).backward()
    np.testing.assert_array_equal(cn, [1.0, 1.0, 1.0])


def test_no_grad_parameter_update_is_in_place():
    # `with no_grad: w -= lr * w.grad` computed out of place and rebound w to a tensor without
    # requires_grad, so the next backward raised (found by the derivative hunt). It writes in
    # place now; the leaf stays a leaf.
    w = tf.asarray(np.array([1.0, 2.0, 3.0])).requires_grad_()
    w0 = w
    tf.sum(w * w).backward()
    with tf.no_grad():
        w -= 0.1 * w.grad
    assert w is w0 and w.requires_grad
    np.testing.assert_allclose(np.asarray(tf.detach(w)), [0.8, 1.6, 2.4])
    w.zero_grad_()
    tf.sum(w * w).backward()
    np.testing.assert_allclose(np.asarray(w.grad), [1.6, 3.2, 4.8])
    loss = tf.sum(w * w)
    with tf.no_grad():
        w *= 2.0
    with pytest.raises(tf.RuntimeStateError, match="mul_into"):
        loss.backward()
    v = w * 1.0  # grad mode on: computed out of place, the name rebound
    v0 = v
    v += 1.0
    assert v is not v0 and v.requires_grad
