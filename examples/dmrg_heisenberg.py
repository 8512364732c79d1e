#!/usr/bin/env python3
"""Two-site DMRG for the open spin-1/2 Heisenberg chain H = sum_i S_i . S_i+1 on U(1)-symmetric
block-sparse tensors (tenferro.symmetric): the Python twin of examples/dmrg_heisenberg.cpp.

Run (after building the Python module):

    PYTHONPATH=build/release/python /usr/bin/python3 examples/dmrg_heisenberg.py [--L 20]
        [--chi 32] [--sweeps 10] [--check]

--check compares the final energy of the default chain (L = 20) with the exact ground-state
energy -8.682473334398 (exact diagonalisation of the Sz = 0 sector) and exits with status 1 when
they differ by more than 1e-7. python/tests/test_symmetric.py runs it that way.

Conventions (charge = 2 Sz; an `out` leg counts its charge +1, an `in` leg -1; every tensor has
flux 0):
    MPS   A[l(out), s(out), r(in)]      charge(r) = charge(l) + charge(s): a bond carries the
                                        total charge of the sites to its left (as svd_truncated's
                                        U (bond `in`) and Vh (bond `out`) have it)
    MPO   W[wl(out), s(out), s'(in), wr(in)] = <s|O|s'>: the S+ channel carries +2, S- carries -2,
          Sz and the identities 0, so the MPO's virtual leg has sectors {0: 3, +2: 1, -2: 1}
    Lenv  L[b(out), w(in), k(in)]       b: bra bond, w: MPO bond, k: ket bond
    Renv  R[k(out), w(out), b(in)]
The boundary bonds are charge 0 (dim 1) on both ends, which fixes total Sz = 0. The start is the
Neel state (up, down, up, ...); each two-site step finds the lowest eigenvector of L W W R by
symmetric.eigsh (matrix-free, the previous theta as the start vector), truncates it by
symmetric.svd_truncated (one global truncation over all charge sectors), and updates one cached
environment.

MPO channels (start, Sz, end | S+ | S-), product W W ... W between <start| and |end>:
    W[start, start] = I   W[start, S+] = S+   W[start, S-] = S-   W[start, Sz] = Sz
    W[S+, end] = S-/2     W[S-, end] = S+/2   W[Sz, end] = Sz     W[end, end] = I
"""

import argparse
import math
import sys
import time

import numpy as np

import tenferro as tf
from tenferro import symmetric as sym

# Exact ground-state energy of the open L = 20 spin-1/2 Heisenberg chain (Sz = 0 sector).
EXACT_L20 = -8.682473334398
CHECK_TOL = 1e-7


class Model:
    """Legs and the MPO tensor of the spin-1/2 chain."""

    def __init__(self):
        self.u1 = sym.Group.u1()
        self.q = [1, -1]  # basis index 0: up (2 Sz = +1), 1: down (-1)
        self.phys = sym.Leg(self.u1, [(1, 1), (-1, 1)])
        self.mpo = sym.Leg(self.u1, [(0, 3), (2, 1), (-2, 1)])
        zero = self.mpo.offset(self.mpo.find(0))
        self.start, self.ch_sz, self.end = zero, zero + 1, zero + 2
        self.ch_plus = self.mpo.offset(self.mpo.find(2))
        self.ch_minus = self.mpo.offset(self.mpo.find(-2))
        self.pos = [self.phys.offset(self.phys.find(c)) for c in self.q]

        ident = np.eye(2)
        sz = np.diag([0.5, -0.5])
        sp = np.array([[0.0, 1.0], [0.0, 0.0]])  # S+ |down> = |up>
        sm = sp.T
        w = np.zeros((5, 2, 2, 5))

        def put(wl, wr, op, c=1.0):
            for a in range(2):
                for b in range(2):
                    w[wl, self.pos[a], self.pos[b], wr] += c * op[a, b]

        put(self.start, self.start, ident)
        put(self.start, self.ch_plus, sp)
        put(self.start, self.ch_minus, sm)
        put(self.start, self.ch_sz, sz)
        put(self.ch_plus, self.end, sm, 0.5)
        put(self.ch_minus, self.end, sp, 0.5)
        put(self.ch_sz, self.end, sz)
        put(self.end, self.end, ident)
        # from_dense refuses any entry outside the allowed blocks: this checks the charges above.
        self.W = sym.BlockTensor.from_dense(
            w, [self.mpo, self.phys, self.phys.dual(), self.mpo.dual()])

    def bond(self, charge, direction):
        return sym.Leg(self.u1, [(charge, 1)], direction)

    def neel(self, length):
        mps, c = [], 0
        for i in range(length):
            k = i % 2
            v = np.zeros((1, 2, 1))
            v[0, self.pos[k], 0] = 1.0
            legs = [self.bond(c, "out"), self.phys, self.bond(c + self.q[k], "in")]
            mps.append(sym.BlockTensor.from_dense(v, legs))
            c += self.q[k]
        return mps

    def left_boundary(self, bond):  # bond: A[0]'s left leg (out)
        v = np.zeros((1, 5, 1))
        v[0, self.start, 0] = 1.0
        return sym.BlockTensor.from_dense(v, [bond, self.mpo.dual(), bond.dual()])

    def right_boundary(self, bond):  # bond: A[L-1]'s right leg (in)
        v = np.zeros((1, 5, 1))
        v[0, self.end, 0] = 1.0
        return sym.BlockTensor.from_dense(v, [bond.dual(), self.mpo, bond])


def grow_left(L, A, W):
    """L'[b', w', k'] = L[b, w, k] A[k, s', k'] W[w, s, s', w'] conj(A)[b, s, b']."""
    x = sym.tensordot(L, A, [2], [0])  # [b, w, s', k']
    x = sym.tensordot(x, W, [1, 2], [0, 2])  # [b, k', s, w']
    x = sym.tensordot(x, sym.conj(A), [0, 2], [0, 1])  # [k', w', b']
    return sym.permute(x, [2, 1, 0])


def grow_right(R, A, W):
    """R'[k, w, b] = A[k, s', k'] R[k', w', b'] W[w, s, s', w'] conj(A)[b, s, b']."""
    x = sym.tensordot(A, R, [2], [0])  # [k, s', w', b']
    x = sym.tensordot(x, W, [1, 2], [2, 3])  # [k, b', w, s]
    return sym.tensordot(x, sym.conj(A), [1, 3], [2, 1])  # [k, w, b]


def apply_heff(L, W, R, theta):
    """(L W W R) theta for theta[l, s1, s2, r]; the result has theta's legs."""
    y = sym.tensordot(L, theta, [2], [0])  # [b, w, s1, s2, r]
    y = sym.tensordot(y, W, [1, 2], [0, 2])  # [b, s2, r, s1', w1]
    y = sym.tensordot(y, W, [1, 4], [2, 0])  # [b, r, s1', s2', w2]
    return sym.tensordot(y, R, [1, 4], [0, 1])  # [b, s1', s2', b']


class Dmrg:
    def __init__(self, model, mps):
        self.m = model
        self.A = mps
        n = len(mps)
        self.Lenv = [None] * n  # Lenv[i]: sites < i
        self.Renv = [None] * n  # Renv[i]: sites > i
        self.Lenv[0] = model.left_boundary(mps[0].leg(0))
        self.Renv[n - 1] = model.right_boundary(mps[n - 1].leg(2))
        # The product state is right-canonical as it is (each A holds one entry 1).
        for j in range(n - 1, 0, -1):
            self.Renv[j - 1] = grow_right(self.Renv[j], mps[j], model.W)
        self.matvecs = 0

    def step(self, i, to_right, chi, stats):
        W = self.m.W
        L, R = self.Lenv[i], self.Renv[i + 1]
        theta = sym.tensordot(self.A[i], self.A[i + 1], [2], [0]).filled()  # [l, s1, s2, r]

        def heff(x):
            self.matvecs += 1
            return apply_heff(L, W, R, x)

        if theta.stored_size == 1:  # a one-dimensional space: theta is the eigenvector
            energy = sym.inner(theta, heff(theta)).item() / sym.inner(theta, theta).item()
        else:
            w, vs, info = sym.eigsh(heff, theta, 1)
            energy = w.numpy()[0]
            theta = vs[0]
            stats["max_residual"] = max(stats["max_residual"], info["residuals"][0])
        stats["energy"] = energy

        f = sym.svd_truncated(theta, 2, max_rank=chi, cutoff=1e-12)
        stats["max_discarded"] = max(stats["max_discarded"], f.discarded_weight)
        norm = math.sqrt(sum(float(np.sum(s.numpy() ** 2)) for s in f.S))
        S = [s * (1.0 / norm) for s in f.S]  # keep <psi|psi> = 1
        if to_right:
            self.A[i] = f.U  # left-canonical
            self.A[i + 1] = sym.scale_leg(f.Vh, 0, S)  # the new centre
            self.Lenv[i + 1] = grow_left(L, self.A[i], W)
        else:
            self.A[i] = sym.scale_leg(f.U, 2, S)  # the new centre
            self.A[i + 1] = f.Vh  # right-canonical
            self.Renv[i] = grow_right(R, self.A[i + 1], W)

    def sweep(self, chi):
        stats = {"energy": 0.0, "max_discarded": 0.0, "max_residual": 0.0}
        n = len(self.A)
        for i in range(n - 1):
            self.step(i, True, chi, stats)
        for i in range(n - 2, -1, -1):
            self.step(i, False, chi, stats)
        stats["max_bond"] = max(a.leg(2).dim for a in self.A)
        return stats

    def expectation(self):
        """<psi|H|psi> / <psi|psi> with the centre at site 0 (after a full sweep)."""
        y = sym.tensordot(self.Lenv[0], self.A[0], [2], [0])  # [b, w, s, r]
        y = sym.tensordot(y, self.m.W, [1, 2], [0, 2])  # [b, r, s', w']
        y = sym.tensordot(y, self.Renv[0], [1, 3], [0, 1])  # [b, s', b']
        return sym.inner(self.A[0], y).item() / sym.inner(self.A[0], self.A[0]).item()


def run(length, chi, max_sweeps, verbose=True):
    """The ground-state energy after the sweeps (and the number of sweeps run)."""
    model = Model()
    dmrg = Dmrg(model, model.neel(length))
    schedule = [c for c in (16, chi) if c <= chi]
    previous = None
    energy = 0.0
    sweeps = 0
    for s in range(max_sweeps):
        c = schedule[min(s, len(schedule) - 1)]
        t0 = time.perf_counter()
        st = dmrg.sweep(c)
        sweeps += 1
        energy = st["energy"]
        if verbose:
            print(f"sweep {s + 1:2d}  chi {c:4d}  E = {energy:.12f}  max bond {st['max_bond']:4d}"
                  f"  discarded {st['max_discarded']:.1e}  residual {st['max_residual']:.1e}"
                  f"  {time.perf_counter() - t0:.2f} s", flush=True)
        if c == chi and previous is not None and abs(energy - previous) < 1e-10:
            break
        previous = energy if c == chi else None
    return dmrg.expectation(), sweeps


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--L", type=int, default=20, help="chain length (even)")
    p.add_argument("--chi", type=int, default=32, help="largest bond dimension")
    p.add_argument("--sweeps", type=int, default=10, help="most sweeps")
    p.add_argument("--check", action="store_true",
                   help=f"compare with the exact L = 20 energy to {CHECK_TOL:g} (exit 1 if not)")
    p.add_argument("--quiet", action="store_true", help="print only the final energy")
    a = p.parse_args(argv)
    if a.L < 2 or a.L % 2:
        p.error("--L must be even and >= 2 (the Neel state has total Sz = 0)")
    if a.check and a.L != 20:
        p.error("--check knows the exact energy of L = 20 only")
    t0 = time.perf_counter()
    with tf.no_grad():
        # One execution scope for the whole run: the many small block operations enter the
        # backend's executor once (docs/execution-scope.md).
        energy, sweeps = tf.default_backend().with_execution_scope(
            run, a.L, a.chi, a.sweeps, not a.quiet)
    elapsed = time.perf_counter() - t0
    print(f"L = {a.L}, chi = {a.chi}: E = {energy:.12f} after {sweeps} sweeps ({elapsed:.1f} s)")
    if a.check:
        err = abs(energy - EXACT_L20)
        ok = err < CHECK_TOL
        print(f"exact {EXACT_L20:.12f}, |diff| = {err:.1e}: {'ok' if ok else 'FAILED'}")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
