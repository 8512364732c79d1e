"""tenferro.linalg: the Array API 2023.12 linear algebra extension (docs/python.md, "The Array
API namespace"), with the standard's names, keywords and result tuples over the C++ ops of
ops/linalg.hpp. Every function here forwards to one op of the top-level namespace; nothing is
computed in Python.
"""

from collections import namedtuple

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
    return _tf.matmul(x1, x2)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """ord: 'fro', 'nuc' or 2 (the largest singular value); other orders are not in tenferro."""
    return _tf.matrix_norm(x, ord=ord, keepdims=keepdims)


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
    return _tf.outer(x1, x2)


def pinv(x, /, *, rtol=None):
    """The pseudo-inverse; rtol (a number) cuts singular values below rtol * the largest (default:
    max(M, N) * eps). A per-matrix array rtol is not supported (a number only)."""
    if rtol is None:
        return _tf.pinv(x)
    if isinstance(rtol, _tf.Tensor):
        if rtol.ndim != 0:
            raise NotImplementedError("pinv: tenferro takes rtol as a number (or a 0-d array)")
        rtol = rtol.item()
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
    return _tf.tensordot(x1, x2, axes=axes)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the diagonal of the last two axes; dtype converts x first (the standard's
    default: x's dtype, i32 summed as the default integer i64, as sum)."""
    x = _t(x)
    if dtype is not None:
        x = _tf.cast(x, dtype)
    return _tf.sum(diagonal(x, offset=offset), axis=-1)


def vecdot(x1, x2, /, *, axis=-1):
    return _tf.vecdot(x1, x2, axis=axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    return _tf.vector_norm(x, ord=float(ord), axis=axis, keepdims=keepdims)
