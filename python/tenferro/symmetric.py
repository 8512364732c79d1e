"""tenferro.symmetric: Abelian block-sparse tensors (C++ tenferro/symmetric.hpp).

Legs carry charges of U(1), Z_n or products of them (``Group.u1() * Group.zn(2)``); a
``BlockTensor`` stores one dense block per allowed sector tuple, and contractions, decompositions
and Krylov solves work block by block. A charge is an int for a one-factor group and a tuple of
ints otherwise. See docs/python.md, "Symmetric tensors", and docs/symmetric.md.

    from tenferro import symmetric as sym
    u1 = sym.Group.u1()
    phys = sym.Leg(u1, [(1, 1), (-1, 1)])              # S=1/2: charge 2 Sz
    bond = sym.Leg(u1, [(0, 4), (2, 3), (-2, 3)])
    A = sym.BlockTensor.randn([bond, phys, bond.dual()], seed=1)
    E = sym.tensordot(A, sym.conj(A), [0, 1], [0, 1])
    U, S, Vh = sym.svd_truncated(A, 2, max_rank=8)

The classes and functions live in the compiled extension (``tenferro._tenferro._symmetric``);
this module re-exports them.
"""

from . import _tenferro

_impl = _tenferro._symmetric

__all__ = sorted(name for name in dir(_impl) if not name.startswith("_"))
globals().update({name: getattr(_impl, name) for name in __all__})
