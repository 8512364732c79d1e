"""The Array API 2023.12 namespace pieces that are plain Python (docs/python.md, "The Array API
namespace"): `tenferro` itself is the namespace. This module defines the CPU device object, the
inspection object, the dtype functions, the constants, and the Tensor attributes the standard asks
for (`__array_namespace__`, `device`, `to_device`, `mT`, the remaining in-place operators, integer
array and boolean mask keys in `__getitem__`/`__setitem__`). Every value still comes from the C++
ops: the index arithmetic of advanced keys is done on the (small, concrete) index arrays with NumPy,
the data is moved by `index_select`, `scatter` and the basic `__setitem__`.
"""

import builtins
import math
import operator

import numpy as np

from . import _tenferro as _tf

Tensor = _tf.Tensor

__array_api_version__ = "2023.12"
_API_VERSIONS = ("2021.12", "2022.12", "2023.12")

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

_BOOL = _tf.bool_
_SIGNED = (_tf.int8, _tf.int16, _tf.int32, _tf.int64)
_UNSIGNED = (_tf.uint8, _tf.uint16, _tf.uint32, _tf.uint64)
_REAL = (_tf.float32, _tf.float64)
_COMPLEX = (_tf.complex64, _tf.complex128)
_INTS = _SIGNED + _UNSIGNED
_ALL = (_BOOL,) + _INTS + _REAL + _COMPLEX
_NAMES = {
    _BOOL: "bool",
    _tf.int8: "int8",
    _tf.int16: "int16",
    _tf.int32: "int32",
    _tf.int64: "int64",
    _tf.uint8: "uint8",
    _tf.uint16: "uint16",
    _tf.uint32: "uint32",
    _tf.uint64: "uint64",
    _tf.float32: "float32",
    _tf.float64: "float64",
    _tf.complex64: "complex64",
    _tf.complex128: "complex128",
}
_BITS = {_tf.int8: 8, _tf.int16: 16, _tf.int32: 32, _tf.int64: 64, _tf.uint8: 8, _tf.uint16: 16,
         _tf.uint32: 32, _tf.uint64: 64, _tf.float32: 32, _tf.float64: 64, _tf.complex64: 64,
         _tf.complex128: 128}
_KINDS = {
    "bool": (_BOOL,),
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integral": _SIGNED + _UNSIGNED,
    "real floating": _REAL,
    "complex floating": _COMPLEX,
    "numeric": _SIGNED + _UNSIGNED + _REAL + _COMPLEX,
}


class Device:
    """The one device of tenferro's namespace: the CPU (all tensors live in host memory)."""

    __slots__ = ()
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __repr__(self):
        return "tenferro.Device('cpu')"

    def __eq__(self, other):
        return other is self

    def __hash__(self):
        return hash("tenferro.cpu")


CPU_DEVICE = Device()


def _check_device(device, where):
    if device is not None and device != CPU_DEVICE:
        raise ValueError(f"{where}: unsupported device {device!r}; tenferro has only "
                         f"{CPU_DEVICE!r}")


def _as_dtype(d, where):
    if isinstance(d, Tensor):
        return d.dtype
    if isinstance(d, _tf.DType):
        return d
    raise TypeError(f"{where}: expected a tenferro dtype or array, got {type(d).__name__}")


def isdtype(dtype, kind):
    """Array API isdtype(dtype, kind): kind is a dtype, one of the kind names ('bool', 'signed
    integer', 'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric') or
    a tuple of them."""
    if not isinstance(dtype, _tf.DType):
        raise TypeError(f"isdtype: expected a tenferro dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _tf.DType):
        return dtype == kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r}")
        return builtins.any(dtype == d for d in _KINDS[kind])
    raise TypeError(f"isdtype: kind must be a dtype, a kind name or a tuple, got "
                    f"{type(kind).__name__}")


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on the given arrays and dtypes (tenferro's promotion, which is
    the standard's within a kind; docs/dtypes.md)."""
    if not arrays_and_dtypes:
        raise ValueError("result_type: at least one array or dtype is required")
    r = _as_dtype(arrays_and_dtypes[0], "result_type")
    for a in arrays_and_dtypes[1:]:
        r = _tf.promote_types(r, _as_dtype(a, "result_type"))
    return r


def can_cast(from_, to, /):
    """Whether from_ (a dtype or an array) converts to `to` without loss by the standard's rules:
    bool only to bool; an integer to an integer its promotion with gives `to` (a wider-or-equal
    integer of the same signedness, or a wider signed integer for an unsigned one: uint8 to
    int16; never a signed to an unsigned integer); a real float to a real float of at least its
    size or to a complex of at least twice its size; a complex to a wider-or-equal complex. Casts
    across kinds (integer to float, ...) are False, as the standard leaves them out of its
    promotion rules."""
    f = _as_dtype(from_, "can_cast")
    if not isinstance(to, _tf.DType):
        raise TypeError(f"can_cast: `to` must be a tenferro dtype, got {type(to).__name__}")
    if f == _BOOL:
        return to == _BOOL
    integers = _SIGNED + _UNSIGNED
    if builtins.any(f == d for d in integers) and builtins.any(to == d for d in integers):
        return _tf.promote_types(f, to) == to  # the Array API's integer promotion table
    for group in (_REAL, _COMPLEX):
        if builtins.any(f == d for d in group) and builtins.any(to == d for d in group):
            return _BITS[f] <= _BITS[to]
    if builtins.any(f == d for d in _REAL) and builtins.any(to == d for d in _COMPLEX):
        return 2 * _BITS[f] <= _BITS[to]
    return False


def astype(x, dtype, /, *, copy=True, device=None):
    """x converted to dtype (tenferro's cast); with copy=False and an equal dtype, x itself."""
    _check_device(device, "astype")
    if not isinstance(x, Tensor):
        raise TypeError(f"astype: expected a Tensor, got {type(x).__name__}")
    # Every form a dtype= argument takes (a DType, its names, a NumPy dtype), as x.astype(d);
    # anything else is DTypeMismatchError, a TypeError.
    dtype = dtype.dtype if isinstance(dtype, Tensor) else _tf.dtype(dtype)
    if x.dtype == dtype:
        return _tf.copy(x) if copy else x
    return _tf.cast(x, dtype)


def matrix_transpose(x, /):
    """The transpose of the last two axes (x.mT)."""
    if not isinstance(x, Tensor):
        x = _tf.asarray(x)
    return _mT(x)


def _mT(self):
    if self.ndim < 2:
        raise ValueError(f"matrix transpose needs at least 2 dimensions, got {self.ndim}")
    return self.transpose(-2, -1)


class _Info:
    """What __array_namespace_info__() returns (the standard's inspection API)."""

    __module__ = "tenferro"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self):
        return CPU_DEVICE

    def default_dtypes(self, *, device=None):
        _check_device(device, "default_dtypes")
        return {"real floating": _tf.float64, "complex floating": _tf.complex128,
                "integral": _tf.int64, "indexing": _tf.int64}

    def dtypes(self, *, device=None, kind=None):
        _check_device(device, "dtypes")
        if kind is None:
            return {_NAMES[d]: d for d in _ALL}
        return {_NAMES[d]: d for d in _ALL if isdtype(d, kind)}

    def devices(self):
        return [CPU_DEVICE]


def __array_namespace_info__():
    return _Info()


# ---- creation with the standard's keywords ----

_c_asarray = _tf.asarray
_c_from_dlpack = _tf.from_dlpack


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """A Tensor from a Tensor, NumPy array (zero-copy when possible), DLPack/buffer object, Python
    scalar or nested sequence. copy=True always copies; copy=False never does (ValueError when a
    copy would be needed); copy=None copies only when needed."""
    _check_device(device, "asarray")
    if copy is False:
        if isinstance(obj, Tensor):
            if dtype is None or obj.dtype == dtype:
                return obj
            raise ValueError("asarray: copy=False but the dtype conversion needs a copy")
        if isinstance(obj, np.ndarray):
            r = _c_asarray(obj, dtype)
            if r.size == 0 or np.shares_memory(np.asarray(r), obj):
                return r
        raise ValueError(f"asarray: copy=False but a {type(obj).__name__} cannot be wrapped "
                         f"without a copy")
    r = _c_asarray(obj, dtype)
    if copy and (isinstance(obj, (Tensor, np.ndarray)) or hasattr(obj, "__dlpack__")
                 or hasattr(obj, "__array__") or isinstance(obj, (memoryview, bytearray))):
        r = _tf.copy(r)
    return r


def from_dlpack(x, /, *, device=None, copy=None):
    """A Tensor sharing the memory of a DLPack producer (an object with __dlpack__, or a capsule);
    copy=True copies it; device must be the CPU (or None)."""
    _check_device(device, "from_dlpack")
    r = _c_from_dlpack(x)
    return _tf.copy(r) if copy else r


# ---- Tensor attributes ----

_c_dlpack = Tensor.__dlpack__


def _dlpack(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    """DLPack export (a 0.x 'dltensor' capsule, which the standard lets a producer return for any
    max_version). dl_device must be None or the CPU (1, 0); copy=True exports a copy."""
    if dl_device is not None and tuple(dl_device) != (1, 0):
        raise BufferError(f"__dlpack__: tenferro exports to the CPU (1, 0) only, not {dl_device}")
    t = _tf.copy(self) if copy else self
    return _c_dlpack(t, stream)


def _array_namespace(self, /, *, api_version=None):
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(f"__array_namespace__: unsupported api_version {api_version!r}; "
                         f"tenferro implements {__array_api_version__}")
    import tenferro

    return tenferro


def _to_device(self, device, /, *, stream=None):
    if device != CPU_DEVICE:
        raise ValueError(f"to_device: unsupported device {device!r}; tenferro has only "
                         f"{CPU_DEVICE!r}")
    return self


def _complex(self):
    """complex(x) for a one-element array of any dtype (the standard: any numeric 0-d array)."""
    return complex(self.item())


def _inplace(name, op):
    def method(self, other):
        r = op(self, other)
        if r.dtype != self.dtype:
            raise _tf.DTypeMismatchError(
                f"{name}: the result has dtype {r.dtype} but the array has dtype {self.dtype}; "
                f"an in-place operator keeps the array's dtype")
        if tuple(r.shape) != tuple(self.shape):
            raise _tf.ShapeMismatchError(
                f"{name}: the result has shape {tuple(r.shape)} but the array has shape "
                f"{tuple(self.shape)}; an in-place operator keeps the array's shape")
        if self.requires_grad or not self.has_storage:
            return r  # as += on such tensors: computed out of place, the name is rebound
        self[...] = r
        return self

    method.__name__ = name
    return method


# ---- advanced keys ----

_c_getitem = Tensor.__getitem__
_c_setitem = Tensor.__setitem__


def _is_array_key(k):
    return isinstance(k, (Tensor, np.ndarray, list, builtins.bool, np.bool_))


def _key_array(k):
    a = np.asarray(k) if not isinstance(k, Tensor) else np.asarray(k.detach())
    if isinstance(k, list) and a.size == 0:
        a = a.astype(np.int64)
    return a


def _advanced(x, key):
    """(linear indices into x's leading axes flattened, their shape, the number k of leading axes)
    for a sole boolean mask or a tuple of integer arrays/ints on the leading axes (optionally
    followed by `...` or full slices); None for other keys."""
    items = key if isinstance(key, tuple) else (key,)
    if len(items) == 1 and _is_array_key(items[0]):
        a = _key_array(items[0])
        if a.dtype == np.bool_:
            k = a.ndim
            if k > x.ndim:
                raise IndexError(f"too many indices for tensor: tensor is {x.ndim}-dimensional, "
                                 f"but {k} were indexed")
            for i in range(k):
                if a.shape[i] != x.shape[i]:
                    raise IndexError(
                        f"boolean index did not match indexed tensor along axis {i}; size of "
                        f"axis is {x.shape[i]} but size of corresponding boolean axis is "
                        f"{a.shape[i]}")
            lin = np.flatnonzero(a)
            return lin, lin.shape, k
    if builtins.any(isinstance(k, (builtins.bool, np.bool_)) for k in items):
        raise _tf.UnsupportedError("a boolean index (True/False or a mask) must be the sole index")
    # A boolean array of any rank, 0-d included, beside other keys: UnsupportedError as
    # documented. (A 0-d one was counted as an index on an axis: x1d[np.array(True), 0] raised
    # IndexError "too many indices", where NumPy adds an axis of length 1.)
    if len(items) > 1 and builtins.any(
            _is_array_key(k) and _key_array(k).dtype == np.bool_ for k in items):
        raise _tf.UnsupportedError(
            "a boolean index (True/False, a mask or a 0-d bool array) must be the sole index; "
            "NumPy's boolean arrays mixed with other keys are not supported")
    arrays = []
    rest = list(items)
    while rest and (_is_array_key(rest[0]) or hasattr(type(rest[0]), "__index__")):
        arrays.append(rest.pop(0))
    if not builtins.any(_is_array_key(a) for a in arrays):
        return None
    for r in rest:
        if not (r is Ellipsis or (isinstance(r, slice) and r == slice(None))):
            return None
    k = len(arrays)
    if k > x.ndim:
        raise IndexError(f"too many indices for tensor: tensor is {x.ndim}-dimensional, but {k} "
                         f"were indexed")
    arrs = [_key_array(a) for a in arrays]
    if not builtins.all(np.issubdtype(a.dtype, np.integer) for a in arrs):
        return None  # float arrays, or a boolean mask that is not the sole index: unsupported
    for i, a in enumerate(arrs):  # before broadcasting: an int beside an empty array is checked
        n = x.shape[i]
        if a.size and (a.min() < -n or a.max() >= n):
            bad = a[(a < -n) | (a >= n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for axis {i} with size {n}")
    try:
        arrs = np.broadcast_arrays(*arrs)
    except ValueError as e:  # NumPy raises IndexError here
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with "
                         f"shapes {' '.join(str(a.shape) for a in arrs)}") from e
    fixed = []
    for i, a in enumerate(arrs):
        n = x.shape[i]
        fixed.append(np.where(a < 0, a + n, a).astype(np.int64))
    bshape = arrs[0].shape
    if builtins.any(x.shape[i] == 0 for i in range(k)):
        lin = np.zeros(bshape, dtype=np.int64)
    else:
        lin = np.ravel_multi_index(tuple(fixed), tuple(x.shape[:k])) if k else np.zeros(bshape)
    return np.asarray(lin, dtype=np.int64).reshape(-1), bshape, k


def _leading_flat(x, k):
    rows = 1
    for i in range(k):
        rows *= x.shape[i]
    return _tf.reshape(x, (rows,) + tuple(x.shape[k:]))


def _has_array(key):
    return _is_array_key(key) or (isinstance(key, tuple)
                                  and builtins.any(_is_array_key(k) for k in key))


def _getitem(self, key):
    adv = _advanced(self, key) if _has_array(key) else None
    if adv is None:  # basic keys (views), or keys C++ refuses with UnsupportedError
        return _c_getitem(self, key)
    lin, bshape, k = adv
    picked = _tf.index_select(_leading_flat(self, k), 0, _c_asarray(lin, _tf.int64))
    return _tf.reshape(picked, tuple(bshape) + tuple(self.shape[k:]))


def _big_int(v):
    """A Python/NumPy integer beyond 2**53: the C++ Scalar (a complex double) would round it."""
    return (isinstance(v, (int, np.integer)) and not isinstance(v, (builtins.bool, np.bool_))
            and abs(int(v)) > 2**53)


def _exact_int(v):
    """A 0-d NumPy integer holding v exactly: uint64 above int64's range (uint64 arrays), int64
    otherwise (the cast to the target dtype then wraps, as integer casts do)."""
    return np.uint64(v) if int(v) > 2**63 - 1 else np.int64(v)


def _setitem(self, key, value):
    if _is_int(value) and not isinstance(value, (builtins.bool, np.bool_)) and \
            self.dtype in _INTS:
        info = _tf.iinfo(self.dtype)
        if not info.min <= int(value) <= info.max:  # NumPy 2 raises too; a cast would saturate
            raise OverflowError(f"__setitem__: the Python int {int(value)} is out of the range "
                                f"[{info.min}, {info.max}] of the {self.dtype} array")
    if _big_int(value) and self.dtype in _INTS:
        value = _c_asarray(_exact_int(value))  # exact, through a 0-d int64 / uint64 array
    adv = _advanced(self, key) if _has_array(key) else None
    if adv is None:
        return _c_setitem(self, key, value)
    lin, bshape, k = adv
    rest = tuple(self.shape[k:])
    n = int(lin.size)
    if isinstance(value, (builtins.bool, int, float, complex)) and not isinstance(value, Tensor):
        # as the basic __setitem__: a Python number becomes a 0-d tensor of x's dtype (a complex
        # one with an imaginary part is DTypeMismatchError on a real x, not cast to its real part)
        v = _tf.scalar_tensor(value, self.dtype)
    else:
        v = value if isinstance(value, Tensor) else _c_asarray(value)
    if v.dtype != self.dtype:
        v = _tf.cast(v, self.dtype)
    v = _tf.reshape(v.broadcast_to(tuple(bshape) + rest), (n,) + rest)
    if n == 0:
        return
    idx = _c_asarray(lin, _tf.int64).reshape((n,) + (1,) * len(rest)).broadcast_to((n,) + rest)
    new = _tf.scatter(_leading_flat(self, k), 0, idx, v)
    _c_setitem(self, Ellipsis, _tf.reshape(new, tuple(self.shape)))


# ---- the standard's names for existing ops (installed only where tenferro has no such name) ----


def _alias(name, op, doc):
    def binary(x1, x2, /):
        return op(x1, x2)

    binary.__name__ = name
    binary.__doc__ = doc
    return binary


_ALIASES = {
    "divide": (_tf.div, "x1 / x2 (tenferro's div)."),
    "equal": (_tf.eq, "x1 == x2 (tenferro's eq)."),
    "not_equal": (_tf.ne, "x1 != x2 (tenferro's ne)."),
    "greater": (_tf.gt, "x1 > x2 (tenferro's gt)."),
    "greater_equal": (_tf.ge, "x1 >= x2 (tenferro's ge)."),
    "less": (_tf.lt, "x1 < x2 (tenferro's lt)."),
    "less_equal": (_tf.le, "x1 <= x2 (tenferro's le)."),
    "multiply": (_tf.mul, "x1 * x2 (tenferro's mul)."),
    "subtract": (_tf.sub, "x1 - x2 (tenferro's sub)."),
}


def negative(x, /):
    """-x (tenferro's neg)."""
    return _tf.neg(x)


def positive(x, /):
    """+x: a copy of x."""
    return _tf.copy(x)


def permute_dims(x, /, axes):
    """x with its axes permuted (tenferro's permute)."""
    return _tf.permute(x, tuple(axes))


def take(x, indices, /, *, axis=None):
    """Elements of x at the 1-D integer indices along axis (tenferro's index_select); axis may be
    None only for a 1-D x."""
    x = x if isinstance(x, Tensor) else _c_asarray(x)
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take: axis=None needs a one-dimensional array")
        axis = 0
    return _tf.index_select(x, axis, indices)


def unstack(x, /, *, axis=0):
    """The slices of x along axis, as a tuple of views."""
    x = x if isinstance(x, Tensor) else _c_asarray(x)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"unstack: axis {axis} is out of range for {x.ndim} dimensions")
    key = (slice(None),) * (axis % x.ndim)
    return tuple(_c_getitem(x, key + (i,)) for i in range(x.shape[axis]))


def repeat(x, repeats, /, *, axis=None):
    """Each element of x repeated (tenferro's repeat_interleave); axis=None flattens first."""
    x = x if isinstance(x, Tensor) else _c_asarray(x)
    if axis is None:
        x, axis = _tf.reshape(x, (x.size,)), 0
    return _tf.repeat_interleave(x, repeats, axis)


def install(ns):
    """Puts the namespace functions into tenferro's module dict and the attributes on Tensor."""
    for name in ("isdtype", "result_type", "can_cast", "astype", "matrix_transpose", "asarray",
                 "from_dlpack", "__array_namespace_info__", "__array_api_version__", "e", "pi",
                 "inf", "nan", "newaxis", "Device"):
        ns[name] = globals()[name]
    for name, (op, doc) in _ALIASES.items():
        ns.setdefault(name, _alias(name, op, doc))
    for name in ("negative", "positive", "permute_dims", "take", "unstack", "repeat"):
        ns.setdefault(name, globals()[name])
    Tensor.__array_namespace__ = _array_namespace
    Tensor.device = property(lambda self: CPU_DEVICE, doc="The CPU device object.")
    Tensor.to_device = _to_device
    Tensor.mT = property(_mT, doc="The last two axes transposed.")
    Tensor.__dlpack__ = _dlpack
    Tensor.__complex__ = _complex
    Tensor.__getitem__ = _getitem
    Tensor.__setitem__ = _setitem
    for name, op in (
        ("__ipow__", lambda a, b: a**b),
        ("__ifloordiv__", lambda a, b: a // b),
        ("__imod__", lambda a, b: a % b),
        ("__iand__", lambda a, b: a & b),
        ("__ior__", lambda a, b: a | b),
        ("__ixor__", lambda a, b: a ^ b),
        ("__imatmul__", lambda a, b: a @ b),
    ):
        setattr(Tensor, name, _inplace(name, op))
    install_signatures(ns)


# ---- the standard's signatures over existing ops (these replace tenferro's functions) ----
# Creation functions take device= (the CPU device or None), full infers its dtype from the fill
# value, sum/prod take dtype=, sort returns the values, nonzero a tuple, squeeze/roll take tuples,
# reshape takes copy=. Parameters that tenferro's API passed positionally stay positional-or-keyword
# (the standard's keyword-only ones are still accepted by keyword).

_C = {name: getattr(_tf, name) for name in (
    "arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "ones", "ones_like",
    "zeros", "zeros_like", "sum", "prod", "sort", "argsort", "nonzero", "squeeze", "roll",
    "reshape")}


def _tensor(x):
    return x if isinstance(x, Tensor) else _c_asarray(x)


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (builtins.bool, np.bool_))


def _leaves_range(lo, hi, step, dtype):
    # Whether an integer arange of dtype has a value outside dtype's range: the C++ arange casts
    # each double like cast(), which saturates, where integer values must wrap (the exact path).
    r = range(lo, hi, step)
    if dtype is None or len(r) == 0:
        return False
    info = _tf.iinfo(dtype)
    return builtins.min(r[0], r[-1]) < info.min or builtins.max(r[0], r[-1]) > info.max


def arange(start, /, stop=None, step=1, dtype=None, *, device=None):
    """Evenly spaced values in [start, stop) (tenferro's arange), on the CPU device. Integer
    arguments beyond 2**53 are exact (start + step * i in int64, or in uint64 for an unsigned
    dtype; the C++ arange takes doubles), and so are values outside an integer dtype's range,
    which wrap (the low bits, as NumPy; the C++ arange would saturate them)."""
    _check_device(device, "arange")
    lo, hi = (0, start) if stop is None else (start, stop)
    if (_is_int(lo) and _is_int(hi) and _is_int(step) and step != 0
            and (dtype is None or dtype in _INTS)
            and (builtins.max(abs(int(lo)), abs(int(hi)), abs(int(step))) > 2**53
                 or _leaves_range(int(lo), int(hi), int(step), dtype))):
        n = len(range(int(lo), int(hi), int(step)))
        if dtype in _UNSIGNED:
            # start + step * i modulo 2**64: uint64 products and sums wrap, so the values, which
            # lie in [0, 2**64), come out exact for every step (a negative one included).
            u64 = _tf.uint64
            r = (_C["arange"](0, n, 1, u64) * _c_asarray(np.uint64(int(step) % 2**64))
                 + _c_asarray(np.uint64(int(lo) % 2**64)))
            return r if dtype == u64 else _tf.cast(r, dtype)
        i64 = _tf.int64
        r = (_C["arange"](0, n, 1, i64) * _c_asarray(np.int64(step))) + _c_asarray(np.int64(lo))
        return r if dtype is None or dtype == i64 else _tf.cast(r, dtype)
    if (_is_int(lo) and _is_int(hi) and _is_int(step) and step != 0
            and dtype in _REAL + _COMPLEX
            and builtins.max(abs(int(lo)), abs(int(hi)), abs(int(step))) > 2**53):
        # A floating dtype with integer arguments beyond 2**53: the length is that of the exact
        # range (the C++ arange counts in doubles, where arange(2**53, 2**53 + 3) had 4 elements
        # and arange(-2**60, -2**60 + 5) none), and each value is the exact integer rounded
        # once to the dtype where the values fit int64.
        n = len(range(int(lo), int(hi), int(step)))
        last = int(lo) + int(step) * (n - 1)
        if n > 0 and builtins.min(int(lo), last) >= -2**63 and builtins.max(int(lo), last) < 2**63:
            i64 = _tf.int64
            r = (_C["arange"](0, n, 1, i64) * _c_asarray(np.int64(step))
                 + _c_asarray(np.int64(lo)))
            return _tf.cast(r, dtype)
        if n == 0:
            return _C["zeros"]((0,), dtype)
    return _C["arange"](start, stop, step, dtype)


def _factory(name):
    c_fn = _C[name]

    def factory(shape, dtype=None, *, device=None):
        _check_device(device, name)
        return c_fn(shape, dtype)

    factory.__name__ = name
    factory.__doc__ = f"tenferro's {name}(shape, dtype) with the standard's device= keyword."
    return factory


def _like(name):
    c_fn = _C[name]

    def like(x, /, dtype=None, *, device=None):
        _check_device(device, name)
        return c_fn(_tensor(x), dtype)

    like.__name__ = name
    like.__doc__ = f"tenferro's {name}(x, dtype) with the standard's device= keyword."
    return like


def eye(n_rows, n_cols=None, /, k=0, dtype=None, *, device=None):
    """Ones on the k-th diagonal of an n_rows x n_cols matrix (tenferro's eye), on the CPU."""
    _check_device(device, "eye")
    # Any |k| past the matrix gives zeros; clamping keeps a huge Python int k (beyond int64)
    # valid for the C++ eye.
    cols = n_rows if n_cols is None else n_cols
    k = builtins.max(-operator.index(n_rows) - 1, builtins.min(operator.index(k),
                                                              operator.index(cols) + 1))
    return _C["eye"](n_rows, n_cols, k, dtype)


def _fill_dtype(fill_value):
    # The standard: a bool fill is bool, an int the default integer, a float the default real
    # floating dtype, a complex the default complex one.
    if isinstance(fill_value, builtins.bool):
        return _BOOL
    if isinstance(fill_value, int):
        return _tf.int64
    if isinstance(fill_value, float):
        return _tf.float64
    if isinstance(fill_value, complex):
        return _tf.complex128
    return None


def _check_int_fill(where, fill_value, dtype):
    # A Python int outside an integer dtype is OverflowError (NumPy 2's np.full, and x[key] = v
    # here): the C++ full saturated it through its double (full(300, uint8) gave 255), while
    # one beyond 2**53 took the exact path and wrapped (full(2**53 + 1, int8) gave 1).
    if _is_int(fill_value) and dtype in _INTS:
        info = _tf.iinfo(dtype)
        if not info.min <= int(fill_value) <= info.max:
            raise OverflowError(f"{where}: Python integer {int(fill_value)} out of bounds for "
                                f"{np.dtype(_tf.dtype(dtype))}")


def _exact_fill(fill_value, dtype):
    # Where a big int (beyond 2**53) is filled through an exact int64 / uint64 array and a cast:
    # integer dtypes (the double would round it), and float32 / complex64 for ints that int64 or
    # uint64 hold, which the double would round twice (2**60 + 2**36 + 1 went to 2**60 through
    # the double's 2**60 + 2**36, a tie; rounded once it is 2**60 + 2**37, as np.full).
    return dtype in _INTS or (dtype in (_tf.float32, _tf.complex64)
                              and -2**63 <= int(fill_value) < 2**64)


def full(shape, fill_value, dtype=None, *, device=None):
    """An array of shape filled with fill_value; dtype=None infers it from the Python type of
    fill_value (bool, int64, float64 or complex128), as the standard. A Python int outside an
    integer dtype is OverflowError (NumPy 2)."""
    _check_device(device, "full")
    if dtype is None:
        dtype = _fill_dtype(fill_value)
    _check_int_fill("full", fill_value, dtype)
    if _big_int(fill_value) and _exact_fill(fill_value, dtype):
        # Exact: the C++ full takes a (complex double) Scalar, which rounds beyond 2**53.
        v = _exact_int(fill_value)
        return _tf.cast(_c_asarray(np.full(shape, v, dtype=v.dtype)), dtype)
    return _C["full"](shape, fill_value, dtype)


def full_like(x, /, fill_value, dtype=None, *, device=None):
    """An array like x filled with fill_value (x's dtype unless dtype is given)."""
    _check_device(device, "full_like")
    x = _tensor(x)
    _check_int_fill("full_like", fill_value, dtype or x.dtype)
    if _big_int(fill_value) and _exact_fill(fill_value, dtype or x.dtype):
        return full(tuple(x.shape), fill_value, dtype or x.dtype)
    return _C["full_like"](x, fill_value, dtype)


def linspace(start, stop, /, num, endpoint=True, dtype=None, *, device=None):
    """num evenly spaced values from start to stop (tenferro's linspace), on the CPU. For an
    integer dtype with integer bounds beyond 2**53 the values are exact (start + floor(i *
    (stop - start) / div) in Python integers; the C++ linspace computes in doubles)."""
    _check_device(device, "linspace")
    unsigned = dtype in _UNSIGNED and _is_int(start) and _is_int(stop) and \
        builtins.min(int(start), int(stop)) >= 0
    if ((dtype in _SIGNED or unsigned) and _is_int(start) and _is_int(stop)
            and builtins.max(abs(int(start)), abs(int(stop))) > 2**53):
        n = operator.index(num)
        lo, hi = int(start), int(stop)
        div = n - 1 if endpoint else n
        vals = [lo + ((i * (hi - lo)) // div if div > 0 else 0) for i in range(n)]
        held = np.uint64 if unsigned else np.int64  # u64 values reach 2**64 - 1
        return _tf.cast(_c_asarray(np.array(vals, dtype=held).reshape(n)), dtype)
    return _C["linspace"](start, stop, num, endpoint, dtype)


def _reduction(name):
    c_fn = _C[name]

    def reduce(x, /, axis=None, keepdims=False, *, dtype=None):
        x, axis, keepdims = _no_axis(_tensor(x), axis, keepdims)
        if dtype is None:
            return c_fn(x, axis, keepdims)
        # The standard: x is cast to dtype before the reduction, and the result has dtype.
        r = c_fn(_tf.cast(x, dtype), axis, keepdims)
        return r if r.dtype == dtype else _tf.cast(r, dtype)

    reduce.__name__ = name
    reduce.__doc__ = (f"tenferro's {name}(x, axis, keepdims) with the standard's dtype=: x is cast "
                      f"to dtype first and the result has dtype.")
    return reduce


def sort(x, /, axis=-1, descending=False, *, stable=True):
    """The sorted values of x along axis (a stable sort; tenferro's sort gives values and
    indices, which `tf.sort_with_indices` keeps)."""
    return _C["sort"](_tensor(x), axis, descending)[0]


def sort_with_indices(x, axis=-1, descending=False):
    """(values, indices) of x sorted along axis: tenferro's former sort."""
    return _C["sort"](_tensor(x), axis, descending)


def argsort(x, /, axis=-1, descending=False, *, stable=True):
    """Indices that sort x along axis; the sort is stable (equal elements keep their order, also
    for descending=True)."""
    return _C["argsort"](_tensor(x), axis, descending)


def nonzero(x, /):
    """The indices of x's nonzero elements, one 1-D int64 array per axis (row-major order), as
    the standard. A 0-d x is ValueError. `tf.argwhere` keeps the [count, ndim] form."""
    x = _tensor(x)
    if x.ndim == 0:
        raise ValueError("nonzero: x must have at least one dimension")
    r = _C["nonzero"](x)
    return tuple(_c_getitem(r, (slice(None), i)).contiguous() for i in range(x.ndim))


def argwhere(x):
    """The indices of x's nonzero elements as one [count, ndim] int64 array (NumPy's argwhere;
    tenferro's former nonzero)."""
    return _C["nonzero"](_tensor(x))


def _axes(axis, ndim, where):
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise IndexError(f"{where}: axis {a} is out of range for {ndim} dimensions")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{where}: repeated axis in {axis!r}")
    return out


def squeeze(x, /, axis):
    """x without the given axes (an int or a tuple), each of which must have size 1
    (ValueError otherwise)."""
    x = _tensor(x)
    axes = _axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} of shape {x.shape} has size {x.shape[a]}, not 1")
    for a in sorted(axes, reverse=True):
        x = _C["squeeze"](x, a)
    return x


def roll(x, /, shift, axis=None):
    """x rolled by shift along axis: axis=None rolls the flattened array (shape kept); a tuple
    of axes takes a tuple of shifts of the same length, or one int for all of them."""
    x = _tensor(x)
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise ValueError("roll: a tuple shift needs a tuple axis")
        if x.ndim == 0 or x.size == 0:
            return _tf.copy(x)
        flat = _C["reshape"](x, (x.size,))
        return _C["reshape"](_C["roll"](flat, operator.index(shift), 0), x.shape)
    axes = _axes(axis, x.ndim, "roll") if isinstance(axis, (tuple, list)) else [axis]
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,) * len(axes)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have the same length")
    if not axes:
        return _tf.copy(x)
    for s, a in zip(shifts, axes):
        x = _C["roll"](x, operator.index(s), a)
    return x


def reshape(x, /, shape, *, copy=None):
    """x with a new shape (tenferro's reshape): copy=True always copies, copy=False raises
    ValueError where the reshape cannot be a view of x."""
    x = _tensor(x)
    r = _C["reshape"](x, shape)
    if copy is True:
        return _tf.copy(r)
    if copy is False and x.size > 0 and r.data_ptr() != x.data_ptr():
        raise ValueError("reshape: copy=False, but this reshape needs a copy")
    return r


def _T(self):
    if self.ndim != 2:
        raise ValueError(f"T: the array has {self.ndim} dimensions; the standard's T is for "
                         f"two-dimensional arrays (use permute_dims or mT)")
    return _tf.permute(self, (1, 0))


# ---- more of the standard's semantics over existing ops ----


def _no_axis(x, axis, keepdims):
    """The standard's axis=() (an empty tuple: no axis is reduced, the result keeps x's shape) as
    a reduction over a new trailing axis of size 1, so the dtype rules of the reduction still
    apply (sum of int32 is int64, var with correction=1 is NaN); tenferro's C++ functions refuse
    axis=() (it means every axis in their API). Returns (x, axis, keepdims)."""
    if isinstance(axis, (tuple, list)) and len(axis) == 0:
        x = _tensor(x)
        return _C["reshape"](x, tuple(x.shape) + (1,)), -1, False
    return x, axis, keepdims


def _plain_reduction(name):
    c_fn = getattr(_tf, name)

    def reduce(x, /, axis=None, keepdims=False):
        x, axis, keepdims = _no_axis(x, axis, keepdims)
        return c_fn(x, axis, keepdims)

    reduce.__name__ = name
    reduce.__doc__ = (f"tenferro's {name}(x, axis, keepdims) with the standard's axis=() "
                      f"(nothing reduced).")
    return reduce


def _moment_reduction(name):
    c_fn = getattr(_tf, name)

    def reduce(x, /, axis=None, correction=0.0, keepdims=False):
        x, axis, keepdims = _no_axis(x, axis, keepdims)
        return c_fn(x, axis, correction, keepdims)

    reduce.__name__ = name
    reduce.__doc__ = (f"tenferro's {name}(x, axis, correction, keepdims) with the standard's "
                      f"axis=() (nothing reduced).")
    return reduce


class AxisError(_tf.InvalidArgumentError, IndexError):
    """An axis out of range: tenferro's InvalidArgumentError (a ValueError) that is also an
    IndexError, as NumPy's AxisError (the Array API test suite expects IndexError)."""


_c_expand_dims = _tf.expand_dims


def expand_dims(x, /, axis=0):
    """x with a new axis of size 1 at axis (-x.ndim - 1 <= axis <= x.ndim; AxisError, an
    IndexError and an InvalidArgumentError, otherwise)."""
    x = _tensor(x)
    a = operator.index(axis)
    if not -x.ndim - 1 <= a <= x.ndim:
        raise AxisError(f"InvalidArgument: expand_dims: axis {a} is out of range for shape "
                        f"{list(x.shape)}; expected {-x.ndim - 1} <= axis <= {x.ndim}")
    return _c_expand_dims(x, a)


def _arg_reduction(name):
    c_fn = getattr(_tf, name)

    def reduce(x, /, axis=None, keepdims=False):
        x = _tensor(x)
        r = c_fn(x, axis, keepdims)
        if axis is None and keepdims:
            # The standard: with keepdims the result keeps every (reduced) axis as size 1.
            r = _C["reshape"](r, (1,) * x.ndim)
        return r

    reduce.__name__ = name
    reduce.__doc__ = (f"tenferro's {name}(x, axis, keepdims); axis=None with keepdims=True keeps "
                      f"x.ndim axes of size 1.")
    return reduce


_c_flip = _tf.flip


def flip(x, /, axis=None):
    """x with the order of elements reversed along axis (tenferro's flip); axis=() reverses
    nothing (a copy)."""
    if isinstance(axis, (tuple, list)) and len(axis) == 0:
        return _tf.copy(_tensor(x))
    return _c_flip(x, axis)


_c_clip = _tf.clip


def _int_bound(x, v, lower):
    """A Python number bound of an integer x as a 0-d array of x's dtype holding the exact
    answer: an int is clamped to the dtype's range (a double would round it beyond 2**53), a
    finite float rounds inwards (ceil for min, floor for max). None for an infinite float that
    bounds nothing; the number itself where C++ decides (NaN, complex, bool)."""
    if isinstance(v, (builtins.bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                      np.floating)):
        return v
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):  # also beside an array bound, which would cast it to 0
            raise _tf.InvalidArgumentError(
                f"clip: bound NaN for an integer x {list(x.shape)} {x.dtype}; expected a "
                f"number (the NaN result has no integer value)")
        if math.isinf(v):
            if (v < 0) == lower:
                return None
            v = -2**64 if v < 0 else 2**64
        else:
            v = math.ceil(v) if lower else math.floor(v)
    info = _tf.iinfo(x.dtype)
    return _c_asarray(builtins.min(builtins.max(int(v), info.min), info.max), x.dtype)


def _int_array_bound(x, b, lower):
    """A floating array bound of an integer x, rounded inwards (ceil for min, floor for max) as a
    number bound is, before C++ clip casts it to x's dtype (a truncating cast would let
    clip(x_i32, min=2.5) give 2, below its bound); NaN in it is InvalidArgumentError."""
    if not isinstance(b, (Tensor, np.ndarray)):
        return b
    b = _tensor(b)
    if b.dtype not in _REAL:
        return b
    if b.size and builtins.bool(_tf.any(_tf.isnan(b))):
        raise _tf.InvalidArgumentError(
            f"clip: {'min' if lower else 'max'} bound {list(b.shape)} {b.dtype} holds NaN for an "
            f"integer x {list(x.shape)} {x.dtype}; expected numbers (the NaN result has no integer "
            f"value)")
    return _tf.ceil(b) if lower else _tf.floor(b)


def _clip_method(self, min=None, max=None):
    """x.clip(min, max): clip(x, min, max)."""
    return clip(self, min, max)


def clip(x, /, min=None, max=None):
    """x clamped to [min, max] (tenferro's clip), with the standard's signature."""
    x = _tensor(x)
    if x.dtype in _INTS:
        min = _int_array_bound(x, _int_bound(x, min, True), True) if min is not None else None
        max = _int_array_bound(x, _int_bound(x, max, False), False) if max is not None else None
    return _c_clip(x, min, max)


_c_round = _tf.round


def _round(x, /):
    """x rounded to the nearest integer, halves to even; a complex x rounds its real and
    imaginary parts (the standard; tenferro's C++ round is real-only)."""
    x = _tensor(x)
    if x.dtype in _COMPLEX:
        return _tf.complex(_c_round(_tf.real(x)), _c_round(_tf.imag(x)))
    return _c_round(x)


_round.__name__ = "round"


def _int_operand(v):
    # bool operands too: beside an integer one they promote to its dtype (x_u64 ** True is
    # uint64, not a float64 that rounds 2**64 - 1)
    return (isinstance(v, Tensor) and (v.dtype in _INTS or v.dtype == _BOOL)) or \
        isinstance(v, (int, np.integer, np.bool_))


def _int_power(x1, x2):
    """x1 ** x2 for integer operands in their promoted integer dtype (the standard; C++ pow of
    integers gives float64): exponentiation by squaring with tensor ops, wrapping as integer
    multiplication does. A negative exponent is ValueError, as NumPy."""
    if isinstance(x1, Tensor) and isinstance(x2, Tensor):
        dtype = result_type(x1, x2)
    else:
        dtype = (x1 if isinstance(x1, Tensor) else x2).dtype
    if dtype not in _INTS:  # uint64 with a signed integer promotes to float64
        return _c_pow(x1, x2)
    for v in (x1, x2):  # a Python int takes the array's dtype (NEP 50): out of range, raise
        if not isinstance(v, Tensor):
            info = _tf.iinfo(dtype)
            if not info.min <= int(v) <= info.max:
                raise OverflowError(f"pow: Python integer {int(v)} out of bounds for "
                                    f"{np.asarray(_C['zeros']((0,), dtype)).dtype.name}")
    a = _tf.cast(_tensor(x1), dtype) if isinstance(x1, Tensor) else _c_asarray(int(x1), dtype)
    b = _tf.cast(_tensor(x2), dtype) if isinstance(x2, Tensor) else _c_asarray(int(x2), dtype)
    a, b = _tf.cast(a, dtype), _tf.cast(b, dtype)
    if b.size and builtins.bool(_tf.any(b < 0)):
        raise ValueError("pow: integers to negative integer powers are not allowed")
    shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    base = _tf.broadcast_to(a, shape)
    e = _tf.broadcast_to(b, shape)
    result = _C["ones"](shape, dtype)
    while e.size and builtins.bool(_tf.any(e > 0)):
        result = _tf.where((e % 2) == 1, result * base, result)
        e = e // 2
        base = base * base
    return result


_c_pow = _tf.pow
_c_pow_dunder = Tensor.__pow__
_c_rpow_dunder = Tensor.__rpow__


def pow_(x1, x2, /):
    """x1 ** x2 (tenferro's pow); two integer operands give their promoted integer dtype, as the
    standard (C++ pow of integers is float64)."""
    if _int_operand(x1) and _int_operand(x2) and (isinstance(x1, Tensor) or
                                                  isinstance(x2, Tensor)):
        return _int_power(x1, x2)
    return _c_pow(x1, x2)


pow_.__name__ = "pow"


def _pow_dunder(self, other):
    if _int_operand(self) and _int_operand(other):
        return _int_power(self, other)
    return _c_pow_dunder(self, other)


def _rpow_dunder(self, other):
    if _int_operand(self) and _int_operand(other):
        return _int_power(other, self)
    return _c_rpow_dunder(self, other)


def _scalar_as(s, like):
    """A Python scalar as a 0-d array of like's dtype where the standard converts it so (the
    scalar's kind fits the dtype: bool for bool, int for integer and floating, float for
    floating, complex for complex), else None."""
    d = like.dtype
    if isinstance(s, (builtins.bool, np.bool_)):
        ok = d == _BOOL
    elif _is_int(s):
        # An integer dtype takes the int only inside its range (a conversion would saturate or
        # wrap it); outside it the C++ operator raises OverflowError (NEP 50, as NumPy 2) or,
        # for ops computing integers in float64 (atan2), takes it as a number.
        if d in _INTS:
            info = _tf.iinfo(d)
            if not info.min <= int(s) <= info.max:
                return None
            return _c_asarray(int(s), d)  # exact (a full() value is a double)
        ok = d in _REAL + _COMPLEX
    elif isinstance(s, (float, np.floating)):
        ok = d in _REAL + _COMPLEX
    elif isinstance(s, (complex, np.complexfloating)):
        ok = d in _COMPLEX
    else:
        ok = False
    return _C["full"]((), s, d) if ok else None


def _reflected(name, op):
    """A reflected operator (scalar OP x) whose Python scalar takes x's dtype, as in x OP scalar
    (the C++ bindings of // and % made the scalar a default-dtype 0-d array first)."""
    c_method = getattr(Tensor, name)

    def method(self, other):
        s = _scalar_as(other, self)
        return c_method(self, other) if s is None else op(s, self)

    method.__name__ = name
    return method


def _weak_pair(x1, x2):
    """x1, x2 with a Python scalar beside an array made a 0-d array of that array's dtype, as the
    standard's promotion with a Python scalar says (x_i32 // 2 is i32, where(c, 2.5, x_f32) is
    f32): the C++ floor_divide, remainder, atan2 and where have no Scalar form, and a plain
    conversion made a default-dtype (i64 / f64) 0-d array that widened the result."""
    if isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        s = _scalar_as(x2, x1)
        return x1, (x2 if s is None else s)
    if isinstance(x2, Tensor) and not isinstance(x1, Tensor):
        s = _scalar_as(x1, x2)
        return (x1 if s is None else s), x2
    return x1, x2


def floor_divide(x1, x2, /):
    """x1 // x2 (rounding toward -inf), as NumPy."""
    return _tf.floor_divide(*_weak_pair(x1, x2))


def remainder(x1, x2, /):
    """x1 % x2 with the sign of x2, as NumPy."""
    return _tf.remainder(*_weak_pair(x1, x2))


def atan2(x1, x2, /):
    """The angle of the point (x2, x1), in (-pi, pi]."""
    return _tf.atan2(*_weak_pair(x1, x2))


def where(condition, x1, x2, /):
    """x1 where condition is true, else x2 (broadcast together)."""
    return _tf.where(condition, *_weak_pair(x1, x2))


_c_tensordot = _tf.tensordot


def _int_matmul(x1, x2):
    """matmul of integer arrays, exact in their promoted dtype, through vecdot (the C++ matmul
    is floating-only)."""
    v1 = x1.ndim == 1
    v2 = x2.ndim == 1
    a = _C["reshape"](x1, (1,) + tuple(x1.shape)) if v1 else x1
    b = _C["reshape"](x2, tuple(x2.shape) + (1,)) if v2 else x2
    bt = _tf.permute(b, tuple(range(b.ndim - 2)) + (b.ndim - 1, b.ndim - 2))
    a = _C["reshape"](a, tuple(a.shape[:-1]) + (1, a.shape[-1]))
    bt = _C["reshape"](bt, tuple(bt.shape[:-2]) + (1,) + tuple(bt.shape[-2:]))
    r = _tf.vecdot(a, bt, axis=-1)
    if v1:
        r = _C["squeeze"](r, r.ndim - 2)
    if v2:
        r = _C["squeeze"](r, r.ndim - 1)
    return r


def int_pair(x1, x2):
    """Whether two arrays are integers whose promoted dtype is an integer (uint64 with a signed
    integer is float64, which the C++ floating ops take)."""
    return x1.dtype in _INTS and x2.dtype in _INTS and result_type(x1, x2) in _INTS


def int_matmul(x1, x2):
    """x1 @ x2 for integer arrays (the C++ matmul takes floating dtypes only)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension")
    return _int_matmul(x1, x2)


def tensordot(x1, x2, /, axes=2):
    """tenferro's tensordot; integer operands are contracted exactly in their promoted dtype
    (the C++ tensordot is floating-only)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    int1, int2 = x1.dtype in _INTS + (_BOOL,), x2.dtype in _INTS + (_BOOL,)
    d = result_type(x1, x2)
    # An integer operand beside a floating one, or uint64 beside a signed integer (float64):
    # promoted first, as NumPy.
    if int1 != int2 or (int1 and d in _REAL):
        return _c_tensordot(_tf.cast(x1, d), _tf.cast(x2, d), axes=axes)
    if not int_pair(x1, x2):
        return _c_tensordot(x1, x2, axes=axes)
    if isinstance(axes, (tuple, list)):
        a1, a2 = ([int(i) % x1.ndim for i in axes[0]], [int(i) % x2.ndim for i in axes[1]])
    else:
        n = operator.index(axes)
        a1, a2 = list(range(x1.ndim - n, x1.ndim)), list(range(n))
    free1 = [i for i in range(x1.ndim) if i not in a1]
    free2 = [i for i in range(x2.ndim) if i not in a2]
    k = int(np.prod([x1.shape[i] for i in a1], dtype=np.int64))
    m = int(np.prod([x1.shape[i] for i in free1], dtype=np.int64))
    n2 = int(np.prod([x2.shape[i] for i in free2], dtype=np.int64))
    a = _C["reshape"](_tf.permute(x1, tuple(free1 + a1)).contiguous(), (m, k))
    b = _C["reshape"](_tf.permute(x2, tuple(a2 + free2)).contiguous(), (k, n2))
    r = _int_matmul(a, b)
    return _C["reshape"](r, tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2))


_STANDARD_SIGNATURES = ("arange", "eye", "full", "full_like", "linspace", "sort",
                        "sort_with_indices", "argsort", "nonzero", "argwhere", "squeeze", "roll",
                        "reshape")


def install_signatures(ns):
    """Replaces tenferro's functions in ns by the standard's signatures above."""
    for name in _STANDARD_SIGNATURES:
        ns[name] = globals()[name]
    for name in ("empty", "ones", "zeros"):
        ns[name] = _factory(name)
    for name in ("empty_like", "ones_like", "zeros_like"):
        ns[name] = _like(name)
    for name in ("sum", "prod"):
        ns[name] = _reduction(name)
    for name in ("mean", "max", "min", "any", "all"):
        ns[name] = _plain_reduction(name)
    for name in ("std", "var"):
        ns[name] = _moment_reduction(name)
    ns["clip"] = clip
    Tensor.clip = _clip_method
    ns["expand_dims"] = expand_dims
    ns["flip"] = flip
    for name in ("argmax", "argmin"):
        ns[name] = _arg_reduction(name)
    ns["AxisError"] = AxisError
    ns["round"] = _round
    ns["pow"] = pow_
    ns["tensordot"] = tensordot
    for fn in (floor_divide, remainder, atan2, where):
        ns[fn.__name__] = fn
    Tensor.T = property(_T, doc="The transpose of a two-dimensional array (ValueError otherwise).")
    Tensor.__pow__ = _pow_dunder
    Tensor.__rpow__ = _rpow_dunder
    Tensor.__rfloordiv__ = _reflected("__rfloordiv__", _tf.floor_divide)
    Tensor.__rmod__ = _reflected("__rmod__", _tf.remainder)
