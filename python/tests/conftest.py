"""Shared helpers for the tenferro Python tests (run: PYTHONPATH=build/release/python
/usr/bin/python3 -m pytest python/tests)."""

import numpy as np
import pytest

import tenferro as tf

ALL_DTYPES = ["bool", "i32", "i64", "f32", "f64", "c64", "c128"]
FLOAT_DTYPES = ["f32", "f64", "c64", "c128"]
REAL_FLOAT = ["f32", "f64"]
INT_DTYPES = ["i32", "i64"]
REAL_DTYPES = ["i32", "i64", "f32", "f64"]
NP = {"bool": np.bool_, "i32": np.int32, "i64": np.int64, "f32": np.float32,
      "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


def sample(shape, dtype, seed=0, positive=False, low=None):
    """Deterministic NumPy sample of `dtype` (positive: values in [0.5, 2])."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype in INT_DTYPES:
        lo = 1 if positive else (-5 if low is None else low)
        return rng.integers(lo, 6, size=shape).astype(NP[dtype])
    if positive:
        re = rng.uniform(0.5, 2.0, size=shape)
    else:
        re = rng.standard_normal(size=shape)
    if dtype in ("c64", "c128"):
        im = rng.uniform(0.5, 2.0, size=shape) if positive else rng.standard_normal(size=shape)
        return (re + 1j * im).astype(NP[dtype])
    return re.astype(NP[dtype])


def tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if dtype in ("f32", "c64") else dict(rtol=1e-10, atol=1e-10)


def check(actual, expected, dtype=None, **kw):
    a = np.asarray(actual)
    e = np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    opts = tol(dtype) if dtype else {}
    opts.update(kw)
    if a.dtype == np.bool_ or e.dtype == np.bool_ or np.issubdtype(e.dtype, np.integer):
        np.testing.assert_array_equal(a, e)
    else:
        np.testing.assert_allclose(a, e, **opts)


try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except Exception:  # pragma: no cover - CI has no torch
    HAVE_TORCH = False

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch is not importable")


@pytest.fixture
def backend1():
    return tf.CpuBackend(threads=1)
