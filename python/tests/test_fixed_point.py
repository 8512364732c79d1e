"""fixed_point on Python maps (docs/fixed-point.md): the value, the implicit gradient against the
analytic one and finite differences, info, and the errors."""
import numpy as np
import pytest

import tenferro as tf


def _cos_map(x, a):
    return tf.cos(x) * a


def _a():
    return tf.asarray(np.array([0.3, 0.6, 0.9]))


def test_value_and_info():
    x, info = tf.fixed_point_with_info(_cos_map, tf.zeros([3]), [_a()], tol=1e-14)
    a = _a().numpy()
    np.testing.assert_allclose(x.numpy(), a * np.cos(x.numpy()), atol=1e-13)
    assert info["converged"] and info["iterations"] > 5 and info["residual"] <= 1e-14
    y = tf.fixed_point(_cos_map, tf.zeros([3]), _a(), anderson_depth=3)  # one Tensor as params
    np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-11)


@pytest.mark.parametrize("dense_threshold", [64, 0])
def test_gradient_matches_analytic_and_finite_differences(dense_threshold):
    def loss(a):
        return tf.sum(tf.fixed_point(_cos_map, tf.zeros([3]), [a], tol=1e-14,
                                     dense_threshold=dense_threshold))

    a = _a()
    g = tf.grad(loss)(a).numpy()
    x = tf.fixed_point(_cos_map, tf.zeros([3]), [a], tol=1e-14).numpy()
    an = a.numpy()
    np.testing.assert_allclose(g, np.cos(x) / (1 + an * np.sin(x)), atol=1e-10)
    eps = 1e-6
    fd = [(loss(tf.asarray(an + eps * e)).item() - loss(tf.asarray(an - eps * e)).item()) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, atol=1e-7)


def test_eager_backward():
    a = _a().requires_grad_()
    tf.backward(tf.sum(tf.fixed_point(_cos_map, tf.zeros([3]), [a])))
    x = tf.fixed_point(_cos_map, tf.zeros([3]), [_a()]).numpy()
    an = _a().numpy()
    np.testing.assert_allclose(a.grad.numpy(), np.cos(x) / (1 + an * np.sin(x)), atol=1e-10)


def test_errors():
    with pytest.raises(tf.LinAlgError, match="did not converge"):
        tf.fixed_point(_cos_map, tf.zeros([3]), [_a()], max_iterations=2)
    _, info = tf.fixed_point_with_info(_cos_map, tf.zeros([3]), [_a()], max_iterations=2,
                                       require_convergence=False)
    assert not info["converged"] and info["iterations"] == 2
    with pytest.raises(tf.ShapeMismatchError, match="fixed_point"):
        tf.fixed_point(lambda x, a: tf.zeros([4]), tf.zeros([3]), [_a()])
    with pytest.raises(TypeError, match="fixed_point"):
        tf.fixed_point(lambda x, a: 1.0, tf.zeros([3]), [_a()])
