"""DLPack both ways: NumPy's np.from_dlpack always, torch when importable."""

import numpy as np
import pytest

import tenferro as tf
from conftest import check, needs_torch, sample


@pytest.mark.parametrize("d", ["i32", "i64", "f32", "f64", "c64", "c128"])
def test_numpy_round_trip(d):
    t = tf.asarray(sample((3, 4), d, 1))
    assert t.__dlpack_device__() == (1, 0)
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr()
    check(a, t)
    t[0, 0] = 3  # NumPy 1.x marks DLPack imports read-only: write on the tenferro side
    assert a[0, 0] == 3  # shared memory
    w = np.array(a)  # a writeable array exports through DLPack
    u = tf.from_dlpack(w)  # numpy -> tenferro
    assert u.data_ptr() == w.ctypes.data
    w[0, 1] = 5
    del t, a, w
    check(u[0, 0], 3)
    check(u[0, 1], 5)


def test_strided_and_capsule():
    a = np.arange(24.0).reshape(4, 6)[::2, 1::2]
    t = tf.from_dlpack(a)
    assert t.strides == (12, 2)
    check(t, a)
    cap = tf.to_dlpack(t)
    u = tf.from_dlpack(cap)
    check(u, a)
    with pytest.raises(tf.InvalidArgumentError):
        tf.from_dlpack(cap)  # consumed: renamed used_dltensor
    del cap  # an unconsumed capsule frees its tensor when collected
    tf.to_dlpack(t)


def test_refusals():
    x = tf.ones(2).requires_grad_()
    with pytest.raises(tf.RuntimeStateError, match="requires grad"):
        x.__dlpack__()
    with pytest.raises(tf.InvalidArgumentError):
        tf.from_dlpack(object())
    with pytest.raises(BufferError, match="negative strides"):
        tf.arange(4.0)[::-1].__dlpack__()
    check(np.from_dlpack(tf.arange(4.0)[::-1].contiguous()), [3.0, 2.0, 1.0, 0.0])


@needs_torch
def test_torch_both_ways():
    import torch

    t = tf.asarray(sample((2, 3), "f32", 2))
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr()
    tt[0, 0] = 7
    assert t[0, 0].item() == 7
    src = torch.arange(6, dtype=torch.float64).reshape(2, 3).t()
    u = tf.from_dlpack(src)
    assert u.data_ptr() == src.data_ptr() and u.strides == (1, 3)
    src[1, 1] = 100
    assert u[1, 1].item() == 100
    del src
    check(u[1, 1], 100.0)
    for dt in (torch.int32, torch.int64, torch.complex64, torch.complex128):
        x = torch.ones(3, dtype=dt)
        check(tf.from_dlpack(x), x.numpy())
        check(torch.from_dlpack(tf.from_dlpack(x)).numpy(), x.numpy())
