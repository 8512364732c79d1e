"""tenferro.linalg: the Array API 2023.12 linear algebra extension (docs/python.md, "The Array
API namespace"), with the standard's names, keywords and result tuples over the C++ ops of
ops/linalg.hpp. Every function here forwards to one op of the top-level namespace; the integer
forms of matmul/outer/tensordot, pinv with one rtol per matrix and vector_norm over axis=() are
arranged in Python around those ops.
"""

from collections import namedtuple

import numpy as _np

from . import _array_api
from . import _tenferro as _tf

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
    "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def _t(x):
    return x if isinstance(x, _tf.Tensor) else _tf.asarray(x)


def cholesky(x, /, *, upper=False):
    """The Cholesky factor L (x = L L^H), or U = L^H with upper=True."""
    return _tf.cholesky(x, upper=upper)


def cross(x1, x2, /, *, axis=-1):
    return _tf.cross(x1, x2, axis=axis)


def det(x, /):
    return _tf.det(x)


def diagonal(x, /, *, offset=0):
    """The diagonal of the last two axes (offset > 0 above the main diagonal)."""
    return _tf.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def eigh(x, /):
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices (lower triangle read)."""
    w, v = _tf.eigh(x)
    return EighResult(w, v)


def eigvalsh(x, /):
    return _tf.eigvalsh(x)


def inv(x, /):
    return _tf.inv(x)


def matmul(x1, x2, /):
    """x1 @ x2; integer operands are multiplied exactly in their promoted integer dtype (the
    C++ matmul is floating-only)."""
    x1, x2 = _t(x1), _t(x2)
    if _array_api.int_pair(x1, x2):
        return _array_api.int_matmul(x1, x2)
    return _tf.matmul(x1, x2)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The matrix norm over the last two axes: 'fro', 'nuc' and 2 are the C++ matrix_norm; 1 and
    -1 (the largest / smallest column sum of |x|), inf and -inf (row sums) and -2 (the smallest
    singular value) are composed here from abs, sum, max/min and svdvals."""
    if isinstance(ord, str) or ord == 2:
        return _tf.matrix_norm(x, ord=ord, keepdims=keepdims)
    x = _t(x)
    if ord in (1, -1):
        sums = _tf.sum(_tf.abs(x), axis=-2)
        r = _tf.max(sums, axis=-1) if ord == 1 else _tf.min(sums, axis=-1)
    elif ord in (float("inf"), -float("inf")):
        sums = _tf.sum(_tf.abs(x), axis=-1)
        r = _tf.max(sums, axis=-1) if ord > 0 else _tf.min(sums, axis=-1)
    elif ord == -2:
        r = _tf.min(_tf.svdvals(x), axis=-1)
    else:
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                         f"not {ord!r}")
    return _tf.reshape(r, tuple(r.shape) + (1, 1)) if keepdims else r


def matrix_power(x, n, /):
    return _tf.matrix_power(x, n)


def matrix_rank(x, /, *, rtol=None):
    return _tf.matrix_rank(x, rtol=rtol)


def matrix_transpose(x, /):
    x = _t(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got {x.ndim}")
    return x.transpose(-2, -1)


def outer(x1, x2, /):
    x1, x2 = _t(x1), _t(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("outer: both arguments must be one-dimensional")
    # Broadcast products, exact for every dtype (signed zeros included, which a GEMM with k = 1
    # accumulating onto +0 loses; integers, which the C++ outer refuses).
    return _tf.reshape(x1, (x1.shape[0], 1)) * _tf.reshape(x2, (1, x2.shape[0]))


def pinv(x, /, *, rtol=None):
    """The pseudo-inverse; rtol cuts singular values below rtol * the largest (default:
    max(M, N) * eps): a number, or an array broadcast against the stack shape x.shape[:-2] (one
    C++ pinv per matrix then, as the C++ op takes one rcond)."""
    if rtol is None:
        return _tf.pinv(x)
    if isinstance(rtol, _tf.Tensor) or isinstance(rtol, _np.ndarray):
        r = rtol.numpy() if isinstance(rtol, _tf.Tensor) else rtol
        if r.ndim == 0:
            rtol = float(r)
        else:
            x = _t(x)
            stack = tuple(x.shape[:-2])
            r = _np.broadcast_to(r, stack)
            out_shape = stack + (x.shape[-1], x.shape[-2])
            if r.size == 0:
                return _tf.zeros(out_shape, x.dtype)
            mats = [_tf.pinv(x[idx], rcond=float(r[idx])) for idx in _np.ndindex(*stack)]
            return _tf.reshape(_tf.stack(mats, 0), out_shape)
    return _tf.pinv(x, rcond=float(rtol))


def qr(x, /, *, mode="reduced"):
    q, r = _tf.qr(x, mode=mode)
    return QRResult(q, r)


def slogdet(x, /):
    s, l = _tf.slogdet(x)
    return SlogdetResult(s, l)


def solve(x1, x2, /):
    return _tf.solve(x1, x2)


def svd(x, /, *, full_matrices=True):
    u, s, vh = _tf.svd(x, full_matrices=full_matrices)
    return SVDResult(u, s, vh)


def svdvals(x, /):
    return _tf.svdvals(x)


def tensordot(x1, x2, /, *, axes=2):
    return _array_api.tensordot(x1, x2, axes=axes)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the diagonal of the last two axes; dtype converts x first (the standard's
    default: x's dtype, integers summed as i64, unsigned ones as u64, as sum)."""
    x = _t(x)
    if dtype is not None:
        x = _tf.cast(x, dtype)
    return _tf.sum(diagonal(x, offset=offset), axis=-1)


def vecdot(x1, x2, /, *, axis=-1):
    return _tf.vecdot(x1, x2, axis=axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector norm over axis (None: all axes; axis=() normalizes each element alone, |x| for
    every order but 0, as the standard's "no axis reduced")."""
    if isinstance(axis, (tuple, list)) and len(axis) == 0:
        x = _t(x)
        return _tf.vector_norm(_tf.reshape(x, tuple(x.shape) + (1,)), ord=float(ord), axis=-1,
                               keepdims=False)
    return _tf.vector_norm(x, ord=float(ord), axis=axis, keepdims=keepdims)
