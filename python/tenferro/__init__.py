"""tenferro: tensors, autodiff and traced programs on a CPU backend.

The compiled extension ``tenferro._tenferro`` holds one wrapper per C++ op; this package
re-exports it and adds the JAX-style function transforms (``grad(f, argnums)``), which only
arrange arguments around the C++ transforms. See docs/python.md.
"""

from . import _tenferro
from ._tenferro import *  # noqa: F401,F403
from ._tenferro import (  # noqa: F401  (names starting with _ or not in __all__)
    Error,
    Program,
    Tensor,
    _grad,
    _hvp,
    _jacobian,
    _hessian,
    _jvp,
    _value_and_grad,
    _vjp,
    grad_program,
    jvp_program,
    vjp_program,
)

from . import symmetric  # noqa: E402,F401  (tenferro.symmetric: block-sparse tensors)

__version__ = "0.1.0"

bool = _tenferro.bool_  # noqa: A001  (tenferro.bool is the dtype, as torch.bool)

# The Array API 2023.12 namespace is tenferro itself (docs/python.md, "The Array API namespace"):
# isdtype, result_type, can_cast, astype, asarray/from_dlpack with the standard's keywords, the
# constants, __array_namespace_info__, and the Tensor attributes; tenferro.linalg is the extension.
from . import _array_api  # noqa: E402

_array_api.install(globals())
from . import linalg  # noqa: E402,F401
from . import fft  # noqa: E402,F401  (tenferro.fft: the fft extension)


def _iter(self):
    """Iterates over the first axis (views)."""
    for i in range(len(self)):
        yield self[i]


Tensor.__iter__ = _iter

# Methods that forward to the module functions of the same name (t.sum(axis=0), t.exp(), ...).
_METHODS = (
    "sum prod mean max min sum_squares norm any all count_nonzero logsumexp softmax log_softmax "
    "argmax argmin exp log sin cos tanh sqrt rsqrt expm1 log1p abs sign square conj real imag "
    "floor ceil round trunc angle clamp flip roll tile cumsum cumprod diagonal tril triu argsort "
    "sort tan sinh cosh asin acos atan asinh acosh atanh log2 log10 exp2 erf isnan isinf isfinite "
    "signbit "
    "var std "  # clip: _array_api's (exact integer bounds)
    "topk matmul copy cast"
).split()


def _forward(name):
    fn = getattr(_tenferro, name)

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = fn.__doc__
    return method


for _name in _METHODS:
    setattr(Tensor, _name, _forward(_name))
del _name


def _positions(argnums, nargs):
    idx = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return tuple(i + nargs if i < 0 else i for i in idx)


def _closure(f, args, idx):
    """f as a function of the list of differentiated arguments (the others fixed)."""

    def g(ts):
        full = list(args)
        for i, t in zip(idx, ts):
            full[i] = t
        return f(*full)

    return g


def _argnums_transform(f, argnums, run):
    """f's transform by run(g, xs) -> list (one result per differentiated argument), where g is
    f as a function of the list of args[argnums]: the first result for an int argnums, else a
    tuple of them."""

    def g(*args):
        idx = _positions(argnums, len(args))
        args = list(args)
        for i in idx:
            args[i] = asarray(args[i])
        r = run(_closure(f, args, idx), [args[i] for i in idx])
        return r[0] if isinstance(argnums, int) else tuple(r)

    return g


_DEFAULT = object()


def grad(f, argnums=_DEFAULT):
    """grad(f, argnums=0)(*args): gradient of a real one-element f with respect to args[argnums]
    (a tuple of gradients when argnums is a tuple). grad(program) / grad(program, argnums=[i, ...])
    is the program transform of trace.hpp (default: every floating input)."""
    if isinstance(f, Program):
        return grad_program(f, None if argnums is _DEFAULT else argnums)
    if argnums is _DEFAULT:
        argnums = 0

    return _argnums_transform(f, argnums, _grad)


def value_and_grad(f, argnums=0):
    """value_and_grad(f, argnums=0)(*args) -> (f(*args), grad)."""

    def g(*args):
        idx = _positions(argnums, len(args))
        args = list(args)
        for i in idx:
            args[i] = asarray(args[i])
        v, gs = _value_and_grad(_closure(f, args, idx), [args[i] for i in idx])
        return v, (gs[0] if isinstance(argnums, int) else tuple(gs))

    return g


def _noting_single_output(f):
    """f over a list of tensors, and a list that records (once called) whether f returned one
    tensor rather than a tuple: the C++ transforms take and give lists."""
    single = []

    def g(ts):
        r = f(*ts)
        single.append(isinstance(r, Tensor))
        return r

    return g, single


def vjp(f, *primals):
    """JAX's vjp: (f(*primals), vjp_fn) where vjp_fn(cotangent) returns one cotangent per primal
    (a tuple). f may return a tensor or a tuple of tensors (then vjp_fn takes a tuple).
    vjp(program) is the program transform."""
    if isinstance(f, Program) and not primals:
        return vjp_program(f)
    primals = [asarray(p) for p in primals]
    g, single = _noting_single_output(f)

    outs, pullback = _vjp(g, primals)
    is_single = single[0]

    def vjp_fn(cotangent):
        cts = [cotangent] if is_single else list(cotangent)
        return tuple(pullback([asarray(c) for c in cts]))

    return (outs[0] if is_single else tuple(outs)), vjp_fn


def jvp(f, primals=None, tangents=None):
    """JAX's jvp: jvp(f, primals, tangents) -> (f(*primals), tangent of the output) (tuples when
    f returns a tuple). jvp(program) is the program transform."""
    if isinstance(f, Program) and primals is None:
        return jvp_program(f)
    primals = [asarray(p) for p in primals]
    tangents = [asarray(t) for t in tangents]
    g, single = _noting_single_output(f)

    outs, touts = _jvp(g, primals, tangents)
    if single[0]:
        return outs[0], touts[0]
    return tuple(outs), tuple(touts)


def jacrev(f, argnums=0):
    """JAX's jacrev: jacrev(f, argnums=0)(*args) is the Jacobian of f's tensor output with respect
    to args[argnums], shape out.shape + arg.shape (a tuple for a tuple of argnums). f is evaluated
    once, then one pullback per output element. Real tensors only."""
    return _argnums_transform(f, argnums, lambda g, xs: _jacobian(g, xs, "rev"))


def jacfwd(f, argnums=0):
    """JAX's jacfwd: the same Jacobian by forward mode (one jvp per input element)."""
    return _argnums_transform(f, argnums, lambda g, xs: _jacobian(g, xs, "fwd"))


def hessian(f, argnums=0):
    """JAX's hessian: hessian(f, argnums=0)(*args) of a real scalar f, shape arg.shape +
    arg.shape (for a tuple of argnums, a tuple of tuples of blocks). Reverse over reverse: the
    gradient is evaluated once, then one pullback of it per input element."""

    def run(g, xs):
        h = _hessian(g, xs)
        return [h[i][0] for i in range(len(h))] if len(xs) == 1 else [tuple(r) for r in h]

    return _argnums_transform(f, argnums, run)


def hvp(f, primals, v):
    """Hessian-vector products of a real scalar f at primals along v (forward over reverse):
    one tensor per primal (a tuple; the tensor itself for one primal)."""
    primals = [asarray(p) for p in primals]
    v = [asarray(t) for t in v]
    r = _hvp(lambda ts: f(*ts), primals, v)
    return r[0] if len(r) == 1 else tuple(r)
