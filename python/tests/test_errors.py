"""Bad input raises the right Python exception (tenferro.Error subclasses), never a crash."""

import numpy as np
import pytest

import tenferro as tf


def test_hierarchy():
    assert issubclass(tf.ShapeMismatchError, tf.Error) and issubclass(tf.ShapeMismatchError, ValueError)
    assert issubclass(tf.InvalidArgumentError, ValueError)
    assert issubclass(tf.DTypeMismatchError, TypeError)
    assert issubclass(tf.RuntimeStateError, RuntimeError)
    assert issubclass(tf.UnsupportedError, NotImplementedError)
    assert issubclass(tf.BackendFailureError, RuntimeError)
    assert issubclass(tf.OutOfMemoryError, MemoryError)
    assert issubclass(tf.LinAlgError, ValueError)
    assert issubclass(tf.ContractViolation, tf.Error)
    assert tf.ShapeMismatchError.kind == "ShapeMismatch"


@pytest.mark.parametrize("fn,exc,match", [
    (lambda: tf.ones(2) + tf.ones(3), tf.ShapeMismatchError, "ShapeMismatch: add"),
    (lambda: tf.matmul(tf.ones((2, 3)), tf.ones((2, 3))), tf.ShapeMismatchError, "matmul"),
    (lambda: tf.sum(tf.ones(2), axis=3), tf.InvalidArgumentError, "InvalidArgument"),
    # the C++ binding's sum; the namespace's tf.sum takes the standard's axis=() (no reduction)
    (lambda: tf._tenferro.sum(tf.ones(2), axis=()), tf.InvalidArgumentError, "axis"),
    (lambda: tf.ones(2, "bool") + tf.ones(2, "bool"), tf.DTypeMismatchError, "DTypeMismatch"),
    (lambda: tf.lt(tf.ones(2, "c64"), tf.ones(2, "c64")), tf.DTypeMismatchError, ""),
    (lambda: tf.cholesky(-tf.asarray(np.eye(2))), tf.LinAlgError, "cholesky"),
    (lambda: tf.inv(tf.zeros((2, 2))), tf.LinAlgError, "singular"),
    (lambda: tf.zeros((-1,)), tf.InvalidArgumentError, ""),
    (lambda: tf.zeros((2 ** 31, 2 ** 31), "c128"), tf.OutOfMemoryError, "OutOfMemory"),
    (lambda: tf.zeros((2 ** 40, 2 ** 30)), tf.InvalidArgumentError, "int64"),
    (lambda: tf.reshape(tf.ones(6), (4, 2)), tf.ShapeMismatchError, ""),
    (lambda: tf.einsum("ij,jk->ik", tf.ones((2, 3)), tf.ones((2, 3))), tf.Error, ""),
    (lambda: tf.einsum("ij->ij", tf.ones((2, 2)), strategy="fast"), tf.InvalidArgumentError, "strategy"),
    (lambda: tf.ones(3).backward(), tf.InvalidArgumentError, ""),
    (lambda: tf.asarray(["a", "b"]), TypeError, ""),
    (lambda: tf.ones(2, "float16"), TypeError, ""),
    (lambda: tf.CpuBackend(threads=-1), tf.InvalidArgumentError, ""),
    (lambda: tf.CpuBackend(kind="gpu"), tf.InvalidArgumentError, "kind"),
    (lambda: tf.add(tf.ones(2), "x"), TypeError, ""),
    (lambda: tf.exp(None), TypeError, ""),
    (lambda: tf.ones(2)[tf.ones((2, 2))], tf.UnsupportedError, ""),
    (lambda: tf.argmax(tf.ones(0), axis=0), tf.InvalidArgumentError, ""),
    (lambda: tf.slice(tf.ones(3), 0, 0, 2, 0), tf.InvalidArgumentError, ""),
])
def test_bad_input(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


def test_error_leaves_tensor_unchanged():
    out = tf.zeros(3)
    with pytest.raises(tf.ShapeMismatchError):
        tf.add_into(out, tf.ones(3), tf.ones(2))
    with pytest.raises(tf.DTypeMismatchError):
        tf.add_into(out, tf.ones(3, "c128"), tf.ones(3))
    assert np.all(np.asarray(out) == 0)


def test_into_refuses_grad():
    x = tf.ones(3).requires_grad_()
    with pytest.raises(tf.UnsupportedError):
        tf.add_into(x, x, x)
    with pytest.raises(tf.UnsupportedError):
        x[0] = 2.0


# Errors of the documented builtin types (issue: SystemError / RuntimeError "Unable to cast" before).
@pytest.mark.parametrize("fn,exc,match", [
    (lambda: tf.ones(2) + 10 ** 400, OverflowError, ""),
    (lambda: 10 ** 400 * tf.ones(2), OverflowError, ""),
    (lambda: tf.zeros("abc"), TypeError, "str"),
    (lambda: tf.zeros((2, "a")), TypeError, ""),
    (lambda: tf.zeros(2.5), TypeError, ""),
    (lambda: tf.sum(tf.ones((2, 2)), axis="a"), TypeError, ""),
    (lambda: tf.sum(tf.ones((2, 2)), axis=1.0), TypeError, ""),
    (lambda: tf.reshape(tf.ones(6), (2, "a")), TypeError, ""),
    (lambda: tf.zeros((10 ** 30,)), ValueError, "64-bit"),
    (lambda: tf.argmax(tf.ones(3), axis="a"), TypeError, ""),
    (lambda: tf.tile(tf.ones(3), "ab"), TypeError, ""),
    (lambda: tf.full((2,), 10 ** 400), OverflowError, ""),
    (lambda: tf.scalar_tensor(10 ** 400), OverflowError, ""),
    (lambda: tf.clamp(tf.ones(2), 0, 10 ** 400), OverflowError, ""),
    (lambda: tf.masked_fill(tf.ones(2), tf.ones(2, "bool"), 10 ** 400), OverflowError, ""),
    (lambda: tf.full((2,), "a"), TypeError, ""),
    (lambda: tf.clamp(tf.ones(2), "a", 1.0), TypeError, ""),
])
def test_builtin_error_types(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


def test_every_error_class_has_kind():
    classes = [tf.InvalidArgumentError, tf.ShapeMismatchError, tf.DTypeMismatchError,
               tf.RuntimeStateError, tf.UnsupportedError, tf.BackendFailureError,
               tf.OutOfMemoryError, tf.LinAlgError, tf.ContractViolation]
    for cls in classes:
        assert isinstance(cls.kind, str) and cls.kind, cls
    assert tf.ContractViolation.kind == "ContractViolation"
    assert tf.Error.kind is None  # the base names no kind; every subclass does
    try:
        tf.ones(2) + tf.ones(3)
    except tf.Error as e:
        assert e.kind == "ShapeMismatch"


def test_factories_take_dtype_none_and_numpy_ints():
    for make in (lambda d: tf.zeros((2, 3), dtype=d), lambda d: tf.ones((2, 3), dtype=d),
                 lambda d: tf.empty((2, 3), dtype=d), lambda d: tf.full((2, 3), 1.5, dtype=d),
                 lambda d: tf.randn((2, 3), 1, dtype=d), lambda d: tf.rand((2, 3), 1, dtype=d),
                 lambda d: tf.scalar_tensor(2.0, dtype=d)):
        assert make(None).dtype == tf.f64
        assert make("f32").dtype == tf.f32
    assert np.allclose(np.asarray(tf.full((2,), np.float32(1.5))), 1.5)
    assert np.allclose(np.asarray(tf.clamp(tf.asarray(np.array([0.0, 3.0])), 1, np.int64(2))), [1, 2])
    assert tf.zeros(np.int64(3)).shape == (3,)
    assert tf.zeros((np.int32(2), 3)).shape == (2, 3)


def test_einsum_memory_limit_int():
    a, b = tf.ones((4, 5)), tf.ones((5, 6))
    assert tf.einsum("ij,jk->ik", a, b, memory_limit=2 ** 27).shape == (4, 6)
    assert tf.einsum_path("ij,jk->ik", a, b, memory_limit=2 ** 27).flops > 0
    assert tf.einsum("ij,jk->ik", a, b, memory_limit=1e9).shape == (4, 6)
    with pytest.raises(TypeError):
        tf.einsum("ij,jk->ik", a, b, memory_limit="big")
