"""tenferro.symmetric (block-sparse tensors, docs/python.md "Symmetric tensors"): construction,
dense conversion, contractions and decompositions against NumPy, gradients against the dense
computation, Krylov solvers with Python maps, traced block programs, errors, and the Python DMRG
example (examples/dmrg_heisenberg.py --check)."""

import importlib.util
import itertools
import pathlib

import numpy as np
import pytest

import tenferro as tf
from tenferro import symmetric as sym

ROOT = pathlib.Path(__file__).resolve().parents[2]


def u1_leg(charges_dims, direction="out"):
    return sym.Leg(sym.Group.u1(), list(charges_dims), direction)


def dense(t):
    return np.asarray(t.to_dense().numpy())


def mps_like(seed=0, chi_sectors=((0, 3), (2, 2), (-2, 2), (4, 1))):
    """A[l, s, r] with U(1) legs: l out, s out (charges +-1), r in."""
    left = u1_leg(chi_sectors)
    phys = u1_leg([(1, 1), (-1, 1)])
    right = u1_leg([(1, 3), (-1, 3), (3, 2), (-3, 1)], "in")
    return sym.BlockTensor.randn([left, phys, right], seed=seed)


# ---- Groups and legs ----


def test_groups():
    u1, z2, z3 = sym.Group.u1(), sym.Group.zn(2), sym.Group.zn(3)
    g = u1 * z3
    assert str(u1) == "U(1)" and str(g) == "U(1)xZ3" and str(sym.Group()) == "trivial"
    assert u1.num_factors == 1 and g.num_factors == 2 and g.moduli == [0, 3]
    assert u1.identity() == 0 and g.identity() == (0, 0) and sym.Group().identity() == ()
    assert g.fuse((1, 2), (2, 2)) == (3, 1)
    assert g.dual((1, 1)) == (-1, 2)
    assert z2.fuse(1, 1) == 0 and z3.canonical(-1) == 2
    assert u1 * z2 == sym.Group.u1() * sym.Group.zn(2) and not (u1 == z2)
    with pytest.raises(tf.InvalidArgumentError):
        sym.Group.zn(1)
    with pytest.raises(tf.InvalidArgumentError):
        g.fuse(1, (0, 0))  # a one-entry charge for a two-factor group
    with pytest.raises(TypeError):
        u1.fuse("a", 1)


def test_legs():
    u1 = sym.Group.u1()
    leg = sym.Leg(u1, [(0, 4), (2, 3), (-2, 3)])
    assert leg == sym.Leg(u1, {0: 4, 2: 3, -2: 3})  # a dict keeps its order
    assert leg.sectors == [(0, 4), (2, 3), (-2, 3)]
    assert leg.dim == 10 and leg.num_sectors == 3
    assert [leg.offset(s) for s in range(3)] == [0, 4, 7]
    assert leg.find(-2) == 2 and leg.find(5) == -1
    assert leg.charge(1) == 2 and leg.sector_dim(2) == 3
    assert leg.direction == sym.Direction.out and leg.group == u1
    d = leg.dual()
    assert d.direction == sym.Direction.in_ and d.sectors == leg.sectors
    assert sym.is_dual(leg, d) and leg.is_dual(d) and not sym.is_dual(leg, leg)
    assert d == sym.Leg(u1, [(0, 4), (2, 3), (-2, 3)], sym.Direction.in_)
    assert str(leg) == "U(1) out [0:4, 2:3, -2:3]"
    assert not leg.is_fused
    assert (leg == 3) is False and leg != d
    assert sym.flip("in") == sym.Direction.out and sym.sign(sym.Direction.in_) == -1
    # Z_n and product groups: charges as ints or tuples, made canonical.
    z3 = sym.Leg(sym.Group.zn(3), [(-1, 2), (0, 1)])
    assert z3.sectors == [(2, 2), (0, 1)]
    g = sym.Group.u1() * sym.Group.zn(2)
    p = sym.Leg(g, [((1, 1), 2), ([0, 0], 1)])
    assert p.sectors == [((1, 1), 2), ((0, 0), 1)]
    t = sym.Leg.trivial(5)
    assert t.dim == 5 and t.sectors == [((), 5)]
    # fuse_legs: the reachable charges, sorted.
    f = sym.fuse_legs([u1_leg([(1, 1), (-1, 1)]), u1_leg([(1, 1), (-1, 1)])])
    assert f.is_fused and f.sectors == [(-2, 1), (0, 2), (2, 1)]
    assert len(f.fused_from) == 2
    with pytest.raises(tf.InvalidArgumentError):
        sym.Leg(u1, [(0, 1), (0, 2)])  # repeated charge
    with pytest.raises(tf.InvalidArgumentError):
        sym.Leg(u1, [((0, 1), 2)])  # charge of the wrong length
    with pytest.raises(tf.InvalidArgumentError):
        sym.Leg(u1, [(0, 1)], "sideways")
    with pytest.raises(tf.InvalidArgumentError):
        leg.offset(3)
    with pytest.raises(tf.InvalidArgumentError):
        u1_leg([(0, 1)]).fused_from
    with pytest.raises(TypeError):
        sym.Leg(u1, 3)


# ---- BlockTensor construction and dense conversion ----


def test_from_blocks_and_to_dense_match_numpy():
    u1 = sym.Group.u1()
    a = sym.Leg(u1, [(0, 2), (1, 3)])
    b = sym.Leg(u1, [(1, 1), (0, 2), (2, 2)], "in")
    rng = np.random.default_rng(0)
    # flux 0: charge(a) - charge(b) = 0 -> keys (0, 1) and (1, 0)
    b01 = rng.standard_normal((2, 2))
    b10 = rng.standard_normal((3, 1))
    t = sym.BlockTensor.from_blocks([a, b], {(0, 1): b01, (1, 0): tf.asarray(b10)})
    assert t.rank == 2 and t.flux == 0 and t.dtype == tf.f64 and t.shape == (5, 5)
    assert sorted(t.blocks) == [(0, 1), (1, 0)]
    assert t.allowed_keys() == [(0, 1), (1, 0)]
    assert t.allowed((1, 0)) and not t.allowed((0, 0))
    assert t.block_shape((1, 0)) == (3, 1) and t.stored_size == 7
    want = np.zeros((5, 5))
    want[0:2, 1:3] = b01  # a sector 0 -> rows 0:2, b sector 1 (charge 0) -> columns 1:3
    want[2:5, 0:1] = b10
    np.testing.assert_array_equal(dense(t), want)
    np.testing.assert_array_equal(t.block((0, 1)).numpy(), b01)
    # from_dense round trip, a missing allowed block reads as zeros
    back = sym.BlockTensor.from_dense(want, [a, b])
    np.testing.assert_array_equal(dense(back), want)
    half = sym.BlockTensor.from_blocks([a, b], {(0, 1): b01})
    np.testing.assert_array_equal(half.block((1, 0)).numpy(), np.zeros((3, 1)))
    assert half.filled().stored_size == 7
    # flux 1: keys whose charge(a) - charge(b) = 1
    t1 = sym.BlockTensor.zeros([a, b], flux=1, dtype="f32")
    assert t1.flux == 1 and t1.dtype == tf.f32
    assert t1.allowed_keys() == [(1, 1)]
    assert "BlockTensor(f32, flux 1, 1 blocks" in repr(t1)
    assert not sym.BlockTensor().defined


def test_randn_to_dense_is_block_sparse_and_symmetric():
    t = mps_like(1)
    d = dense(t)
    legs = t.legs
    signs = [1 if leg.direction == sym.Direction.out else -1 for leg in legs]
    charges = [[c for c, n in leg.sectors for _ in range(n)] for leg in legs]
    for idx in itertools.product(*(range(leg.dim) for leg in legs)):
        q = sum(s * charges[k][i] for k, (s, i) in enumerate(zip(signs, idx)))
        if q != 0:
            assert d[idx] == 0
    assert np.count_nonzero(d) == t.stored_size
    np.testing.assert_allclose(t.norm().item(), np.linalg.norm(d), rtol=1e-13)


def test_from_dense_rejects_a_non_symmetric_tensor():
    a = u1_leg([(0, 1), (1, 1)])
    x = np.array([[1.0, 0.5], [0.0, 2.0]])  # (0, 1) breaks charge conservation
    with pytest.raises(tf.InvalidArgumentError, match="not symmetric"):
        sym.BlockTensor.from_dense(x, [a, a.dual()])
    t = sym.BlockTensor.from_dense(x, [a, a.dual()], tol=1.0)  # below tol: dropped
    np.testing.assert_array_equal(dense(t), np.diag([1.0, 2.0]))


# ---- Vector operations ----


def test_linear_operations_match_numpy():
    x, y = mps_like(1), mps_like(2)
    dx, dy = dense(x), dense(y)
    np.testing.assert_allclose(dense(x + y), dx + dy)
    np.testing.assert_allclose(dense(sym.add(x, y)), dx + dy)
    np.testing.assert_allclose(dense(x - y), dx - dy)
    np.testing.assert_allclose(dense(sym.sub(x, y)), dx - dy)
    np.testing.assert_allclose(dense(2.5 * x), 2.5 * dx)
    np.testing.assert_allclose(dense(x * 2.5), 2.5 * dx)
    np.testing.assert_allclose(dense(x / 4), dx / 4)
    np.testing.assert_allclose(dense(-x), -dx)
    np.testing.assert_allclose(dense(sym.scale(x, tf.asarray(np.array(3.0)))), 3 * dx)
    np.testing.assert_allclose(dense(sym.axpy(0.5, x, y)), 0.5 * dx + dy)
    np.testing.assert_allclose(sym.inner(x, y).item(), np.vdot(dx, dy), rtol=1e-12)
    np.testing.assert_allclose(sym.norm(x).item(), np.linalg.norm(dx), rtol=1e-12)
    z = 1j * x
    assert z.dtype == tf.c128
    np.testing.assert_allclose(dense(sym.conj(z)), np.conj(1j * dx))
    assert sym.conj(x).flux == 0 and sym.conj(x).leg(0).direction == sym.Direction.in_
    np.testing.assert_allclose(dense(sym.permute(x, [2, 0, 1])), dx.transpose(2, 0, 1))
    np.testing.assert_allclose(dense(x.permute(1, 0, 2)), dx.transpose(1, 0, 2))
    np.testing.assert_allclose(dense(sym.dagger(x)), dx.transpose(2, 1, 0))
    with pytest.raises(TypeError):
        x * "a"
    with pytest.raises(TypeError):
        x + 1
    with pytest.raises(tf.InvalidArgumentError):
        x + sym.permute(x, [2, 1, 0])  # different legs


def test_trace_scalar_and_scale_leg():
    leg = u1_leg([(0, 2), (1, 3), (-1, 1)])
    m = sym.BlockTensor.randn([leg, leg.dual()], seed=4)
    tr = sym.trace(m, [0], [1])
    assert tr.rank == 0
    np.testing.assert_allclose(sym.scalar(tr).item(), np.trace(dense(m)), rtol=1e-13)
    w = [tf.asarray(np.array([1.0, 2.0])), None, tf.asarray(np.array([5.0]))]
    s = sym.scale_leg(m, 0, w)
    diag = np.array([1.0, 2.0, 0.0, 0.0, 0.0, 5.0])
    np.testing.assert_allclose(dense(s), diag[:, None] * dense(m))
    with pytest.raises(tf.InvalidArgumentError):
        sym.scalar(m)


def test_fuse_and_split_round_trip():
    t = mps_like(3)
    f = sym.fuse(t, 0, 2)
    assert f.rank == 2 and f.leg(0).is_fused and f.leg(0).dim == t.leg(0).dim * t.leg(1).dim
    back = sym.split(f, 0)
    assert back.legs == t.legs
    np.testing.assert_array_equal(dense(back), dense(t))
    with pytest.raises(tf.InvalidArgumentError):
        sym.split(t, 1)


# ---- Contractions ----


def test_tensordot_matches_numpy_tensordot():
    A = mps_like(5)
    E = sym.BlockTensor.randn([A.leg(2).dual(), u1_leg([(0, 2), (2, 1), (-2, 1)], "in"),
                               u1_leg([(1, 2), (-1, 2), (3, 1)])], seed=6, flux=0)
    # A[l, s, r] . E[r, w, x] over r
    got = sym.tensordot(A, E, [2], [0])
    np.testing.assert_allclose(dense(got), np.tensordot(dense(A), dense(E), ([2], [0])),
                               atol=1e-12)
    assert [leg.direction for leg in got.legs] == [sym.Direction.out, sym.Direction.out,
                                                   sym.Direction.in_, sym.Direction.out]
    # NumPy's forms: axes=(list, list) and axes=int
    np.testing.assert_allclose(dense(sym.tensordot(A, E, ([2], [0]))), dense(got))
    np.testing.assert_allclose(dense(sym.tensordot(A, E, 1)), dense(got))
    # a transfer-matrix-like pair contraction with a conjugate
    T = sym.tensordot(A, sym.conj(A), [0, 1], [0, 1])
    np.testing.assert_allclose(dense(T), np.tensordot(dense(A), dense(A), ([0, 1], [0, 1])),
                               atol=1e-12)
    # rank-4 times rank-3 over two legs, with a Z2 x U(1) group and a nonzero flux
    g = sym.Group.zn(2) * sym.Group.u1()
    p = sym.Leg(g, [((0, 0), 2), ((1, 1), 2), ((1, -1), 1)])
    q = sym.Leg(g, [((0, 1), 2), ((1, 0), 3)])
    X = sym.BlockTensor.randn([p, q, p.dual(), q], seed=7, flux=(1, 1))
    Y = sym.BlockTensor.randn([q.dual(), p, q.dual()], seed=8, flux=(1, -1))
    assert X.stored_size > 0 and Y.stored_size > 0
    Z = sym.tensordot(X, Y, [1, 2], [0, 1])
    assert Z.flux == (0, 0)
    np.testing.assert_allclose(dense(Z), np.tensordot(dense(X), dense(Y), ([1, 2], [0, 1])),
                               atol=1e-12)
    cost = sym.tensordot_cost(X, Y, [1, 2], [0, 1])
    dense_cost = np.prod([p.dim, q.dim, q.dim, p.dim, q.dim])
    assert 0 < cost < dense_cost
    with pytest.raises(tf.InvalidArgumentError):
        sym.tensordot(A, E, [1], [0])  # phys (out) with E's leg 0: not dual


def test_einsum_and_path_match_numpy():
    A = mps_like(9)
    B = sym.BlockTensor.randn([A.leg(2).dual(), A.leg(1), u1_leg([(0, 2), (2, 2)], "in")],
                              seed=10)
    C = sym.BlockTensor.randn([A.leg(0).dual(), u1_leg([(0, 3), (2, 1)])], seed=11)
    got = sym.einsum("lsr,rtx,lm->mstx", A, B, C)
    want = np.einsum("lsr,rtx,lm->mstx", dense(A), dense(B), dense(C))
    np.testing.assert_allclose(dense(got), want, atol=1e-12)
    np.testing.assert_allclose(dense(sym.einsum("lsr,rtx,lm->mstx", [A, B, C])), want,
                               atol=1e-12)
    p = sym.einsum_path("lsr,rtx,lm->mstx", A, B, C)
    assert len(p.pairs) == 2 and 0 < p.flops <= p.dense_flops
    assert "BlockPath(pairs=" in repr(p)


# ---- Decompositions ----


def test_svd_qr_eigh_reconstruct():
    t = mps_like(12)
    d = dense(t)
    U, S, Vh = sym.svd(t, 2)
    assert U.leg(2).direction == sym.Direction.in_ and Vh.leg(0).direction == sym.Direction.out
    US = sym.scale_leg(U, 2, S)
    np.testing.assert_allclose(dense(sym.tensordot(US, Vh, [2], [0])), d, atol=1e-12)
    sv = np.sort(np.concatenate([s.numpy() for s in S]))[::-1]
    dm = d.reshape(d.shape[0] * d.shape[1], -1)
    np.testing.assert_allclose(sv, np.linalg.svd(dm, compute_uv=False)[:len(sv)], atol=1e-12)
    Q, R = sym.qr(t, 2)
    np.testing.assert_allclose(dense(sym.tensordot(Q, R, [2], [0])), d, atol=1e-12)
    leg = u1_leg([(0, 3), (2, 2), (-2, 2)])
    g = sym.BlockTensor.randn([leg, leg.dual()], seed=13)
    h = g + sym.dagger(g)
    w, V = sym.eigh(h, 1)
    np.testing.assert_allclose(np.sort(np.concatenate([x.numpy() for x in w])),
                               np.linalg.eigvalsh(dense(h)), atol=1e-12)
    assert V.leg(1).num_sectors == len(w)


def test_block_svd_indexing_returns_the_parts():
    # BlockSvd.__getitem__ read an item of a temporary tuple after it was freed: r[1] came back
    # as an empty list (and corrupted memory) instead of S.
    r = sym.svd(mps_like(12), 2)
    for _ in range(50):
        assert r[0] is not None and r[0].rank == r.U.rank
        assert len(r[1]) == len(r.S) > 0
        assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(r[1], r.S))
        assert r[2].rank == r.Vh.rank and r[-1].rank == r.Vh.rank
    with pytest.raises(IndexError):
        r[3]


def test_svd_truncated_is_a_global_truncation():
    t = mps_like(14)
    d = dense(t)
    dm = d.reshape(d.shape[0] * d.shape[1], -1)
    full = np.linalg.svd(dm, compute_uv=False)  # block-diagonal up to permutations
    rank = int(np.sum(full > 1e-12 * full[0]))  # the block ranks summed (9 here)
    for k in (1, 3, 7, rank, rank + 5):
        r = sym.svd_truncated(t, 2, max_rank=k)
        kept = np.sort(np.concatenate([s.numpy() for s in r.S]))[::-1]
        assert len(kept) == min(k, rank)
        k = len(kept)
        np.testing.assert_allclose(kept, full[:k], atol=1e-12)
        want = np.sum(full[k:] ** 2) / np.sum(full ** 2)
        np.testing.assert_allclose(r.discarded_weight, want, rtol=1e-9, atol=1e-15)
        U, S, Vh = r
        approx = dense(sym.tensordot(sym.scale_leg(U, 2, S), Vh, [2], [0]))
        np.testing.assert_allclose(np.sum((approx - d) ** 2), np.sum(full[k:] ** 2), rtol=1e-8,
                                   atol=1e-12)
        # every bond sector holds values; sectors without kept values are dropped
        assert U.leg(2).num_sectors == len(r.S) and all(s.size > 0 for s in r.S)
    cut = sym.svd_truncated(t, 2, cutoff=0.5)
    kept = np.concatenate([s.numpy() for s in cut.S])
    assert np.all(kept > 0.5 * full[0]) and len(kept) == np.sum(full > 0.5 * full[0])
    assert "BlockSvd(" in repr(cut)


# ---- Autodiff ----


def test_gradient_matches_the_dense_computation():
    A = mps_like(15)
    E = sym.BlockTensor.randn([A.leg(2).dual(), A.leg(1).dual(), A.leg(0)], seed=16)
    Wd = np.random.default_rng(17).standard_normal((A.leg(0).dim, A.leg(0).dim))

    # Tape: loss = sum(W * (A . E)^2) over the dense result
    A = A.filled().requires_grad_()
    assert A.requires_grad
    r = sym.tensordot(A, E, [1, 2], [1, 0])  # [l, l']
    loss = tf.sum(r.to_dense() ** 2 * tf.asarray(Wd))
    loss.backward()
    g = A.grad
    assert g.legs == A.legs and not sym.BlockTensor.detach(A).requires_grad

    def dense_loss(a):
        return tf.sum(tf.tensordot(a, tf.asarray(dense(E)), [[1, 2], [1, 0]]) ** 2 * tf.asarray(Wd))

    gd = tf.grad(dense_loss)(tf.asarray(dense(A.detach()))).numpy()
    # The block gradient is the dense one restricted to the allowed blocks.
    restricted = dense(sym.BlockTensor.from_dense(gd, A.legs, tol=np.inf))
    np.testing.assert_allclose(dense(g), restricted, atol=1e-10)

    # Functional: tf.grad through a block built from a Tensor
    key = next(iter(A.blocks))
    blocks = {k: v.detach() for k, v in A.blocks.items()}

    def f(b):
        t = sym.BlockTensor.from_blocks(A.legs, {**blocks, key: b})
        return sym.norm(t) ** 2

    gb = tf.grad(f)(blocks[key])
    np.testing.assert_allclose(gb.numpy(), 2 * blocks[key].numpy(), atol=1e-12)


# ---- Krylov solvers with Python maps ----


def _hermitian(seed):
    leg = u1_leg([(0, 6), (2, 5), (-2, 5), (4, 2)])
    g = sym.BlockTensor.randn([leg, leg.dual()], seed=seed)
    return leg, g + sym.dagger(g)


def test_eigsh_with_a_python_callable():
    leg, h = _hermitian(18)
    calls = []

    def f(x):
        calls.append(1)
        return sym.tensordot(h, x, [1], [0])

    for charge in (0, 2):
        x0 = sym.BlockTensor.randn([leg], seed=19, flux=charge)
        w, vs, info = sym.eigsh(f, x0, 2)
        s = leg.find(charge)
        lo, hi = leg.offset(s), leg.offset(s) + leg.sector_dim(s)
        want = np.linalg.eigvalsh(dense(h)[lo:hi, lo:hi])[:2]
        np.testing.assert_allclose(w.numpy(), want, atol=1e-10)
        assert len(vs) == 2 and vs[0].flux == charge and info["converged"] == 2
        hv = dense(f(vs[0]))
        np.testing.assert_allclose(hv, w.numpy()[0] * dense(vs[0]), atol=1e-9)
    assert calls
    w, _, _ = sym.eigsh(f, sym.BlockTensor.randn([leg], seed=19), 1, which="largest_real",
                        method="davidson")
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(dense(h)[0:6, 0:6])[-1:],
                               atol=1e-10)
    with pytest.raises(TypeError, match="BlockTensor"):
        sym.eigsh(lambda x: 1.0, sym.BlockTensor.randn([leg], seed=1), 1)
    with pytest.raises(tf.InvalidArgumentError):
        sym.eigsh(f, sym.BlockTensor.randn([leg], seed=1), 1, which="lowest")
    with pytest.raises(ZeroDivisionError):
        sym.eigsh(lambda x: 1 / 0, sym.BlockTensor.randn([leg], seed=1), 1)


def test_eigsh_gradient_through_the_map():
    leg, h0 = _hermitian(20)
    x0 = sym.BlockTensor.randn([leg], seed=21)

    def lowest(hb):
        hh = sym.BlockTensor.from_blocks(h0.legs, {k: hb[i] for i, k in enumerate(h0.blocks)})
        hs = 0.5 * (hh + sym.dagger(hh))
        w, _, _ = sym.eigsh(lambda x: sym.tensordot(hs, x, [1], [0]), x0, 1)
        return tf.sum(w)

    blocks = list(h0.blocks.values())
    grads = tf.grad(lambda *bs: lowest(bs), argnums=tuple(range(len(blocks))))(*blocks)
    # d lambda / d H = v v^T (symmetrised): check on the charge-0 block
    _, v = np.linalg.eigh(dense(h0)[0:6, 0:6])
    k0 = list(h0.blocks).index((0, 0))
    np.testing.assert_allclose(grads[k0].numpy(), np.outer(v[:, 0], v[:, 0]), atol=1e-8)


def test_linsolve_and_exponentiate():
    leg, h = _hermitian(22)
    shift = sym.BlockTensor.from_dense(10 * np.eye(leg.dim), [leg, leg.dual()])
    a = h + shift
    b = sym.BlockTensor.randn([leg], seed=23)
    x, info = sym.linsolve(lambda v: sym.tensordot(a, v, [1], [0]), b)
    np.testing.assert_allclose(dense(x), np.linalg.solve(dense(a), dense(b)), atol=1e-9)
    assert info["converged"] == 1
    y, _ = sym.exponentiate(lambda v: sym.tensordot(h, v, [1], [0]), -0.1, b, hermitian=True)
    w, V = np.linalg.eigh(dense(h))
    np.testing.assert_allclose(dense(y), V @ (np.exp(-0.1 * w) * (V.T @ dense(b))), atol=1e-9)


# ---- Traced programs ----


def test_trace_blocks_runs_on_a_runtime():
    A = mps_like(24)
    B = sym.BlockTensor.randn([A.leg(2).dual(), u1_leg([(0, 2), (2, 2), (-2, 1)], "in")],
                              seed=25)

    def f(a, b):
        c = sym.tensordot(a, b, [2], [0])
        return c, sym.norm(c) * 0 + sym.inner(a, a)  # a BlockTensor and a Tensor -> not allowed

    with pytest.raises(TypeError, match="BlockTensor"):
        sym.trace_blocks(f, [A, B])

    def g(a, b):
        return sym.tensordot(a, b, [2], [0])

    prog = sym.trace_blocks(g, [A, B])
    assert prog.program.num_nodes > 0
    assert len(prog.input_structures) == 2 and len(prog.output_structures) == 1
    rt = tf.Runtime(tf.CpuBackend(threads=1))
    A2, B2 = mps_like(26), sym.BlockTensor.randn(B.legs, seed=27)
    (out,) = prog.run(rt, [A2, B2])
    np.testing.assert_allclose(dense(out), dense(g(A2, B2)), atol=1e-12)
    # the same through the plain runtime API
    flat = prog.flatten_inputs([A2, B2])
    assert len(flat) == len(A2.allowed_keys()) + len(B2.allowed_keys())
    step = rt.prepare(prog.program)
    (out2,) = prog.unflatten_outputs(rt.run(step, flat))
    np.testing.assert_allclose(dense(out2), dense(out), atol=0)
    with pytest.raises(tf.InvalidArgumentError):
        prog.run(rt, [A2, sym.BlockTensor.randn(B.legs, seed=1, flux=2)])  # another flux
    with pytest.raises(tf.ShapeMismatchError):
        prog.run(rt, [B2, A2])  # ranks differ
    # svd_truncated picks ranks from values: not traceable
    with pytest.raises(tf.UnsupportedError):
        sym.trace_blocks(lambda a: sym.svd_truncated(a, 2, max_rank=3).U, [A])


# ---- Errors ----


def test_errors_map_to_tenferro_exceptions():
    a = u1_leg([(0, 2), (1, 1)])
    legs = [a, a.dual()]
    with pytest.raises(tf.InvalidArgumentError, match="charge conservation"):
        sym.BlockTensor.from_blocks(legs, {(0, 1): np.zeros((2, 1))})
    with pytest.raises(ValueError):  # InvalidArgumentError is also a ValueError
        sym.BlockTensor.from_blocks(legs, {(0, 1): np.zeros((2, 1))})
    with pytest.raises(tf.ShapeMismatchError):
        sym.BlockTensor.from_blocks(legs, {(0, 0): np.zeros((2, 3))})
    with pytest.raises(tf.InvalidArgumentError):
        sym.BlockTensor.from_blocks(legs, {(0, 5): np.zeros((2, 1))})  # no sector 5
    t = sym.BlockTensor.zeros(legs)
    with pytest.raises(tf.InvalidArgumentError, match="not allowed"):
        t.block((0, 1))
    with pytest.raises(tf.InvalidArgumentError):
        t.leg(2)
    with pytest.raises(tf.DTypeMismatchError):
        sym.BlockTensor.zeros(legs, dtype="i64")
    with pytest.raises(tf.InvalidArgumentError):
        sym.BlockTensor.zeros(legs, flux=(0, 1))  # U(1) flux of two entries
    with pytest.raises(tf.InvalidArgumentError):
        sym.BlockTensor.zeros([a, sym.Leg(sym.Group.zn(2), [(0, 1)])])  # two groups
    with pytest.raises(tf.InvalidArgumentError):
        sym.svd_truncated(t, 1, max_rank=-1)
    with pytest.raises(TypeError):
        sym.BlockTensor.from_blocks(legs, {"a": np.zeros((2, 2))})


# ---- The Python DMRG example ----


def test_dmrg_example_reaches_the_exact_energy(capsys):
    path = ROOT / "examples" / "dmrg_heisenberg.py"
    spec = importlib.util.spec_from_file_location("dmrg_heisenberg_example", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--check", "--quiet"]) == 0
    assert "ok" in capsys.readouterr().out
