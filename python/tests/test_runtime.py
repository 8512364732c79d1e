"""Traced programs, prepared runs, backends, use_backend, the execution-scope contract from
Python, and Python threads (with the GIL released around large ops and scope waits)."""

import gc
import threading

import numpy as np
import pytest

import tenferro as tf
from conftest import check, sample


def loss(a, b):
    return tf.sum(tf.bmm(a, b))


SPECS = [tf.ValueSpec((16, 2, 2)), ((16, 2, 2), "f64")]


def test_trace_and_print():
    p = tf.trace(loss, SPECS)
    s = str(p)
    assert "dot_general" in s and "sum" in s
    assert p.num_nodes == 2 and p.node_names == ["dot_general", "sum"]
    assert len(p.input_specs) == 2 and p.input_specs[0].shape == [16, 2, 2]
    a, b = sample((16, 2, 2), "f64", 1), sample((16, 2, 2), "f64", 2)
    check(p(a, b), np.sum(a @ b))
    p2 = tf.trace(lambda x: (x * 2, tf.exp(x)), [np.zeros((3,))])
    y1, y2 = p2(np.ones(3))
    check(y2, np.exp(np.ones(3)))
    assert tf.trace(loss, SPECS).fingerprint() == p.fingerprint()
    assert p.structurally_equal(tf.optimize(p))


def test_program_transforms_and_prepare():
    p = tf.trace(loss, SPECS)
    g = tf.grad(p)
    assert "dot_general" in str(g)
    a, b = sample((16, 2, 2), "f64", 1), sample((16, 2, 2), "f64", 2)
    rt = tf.Runtime(tf.CpuBackend(threads=1))
    step = rt.prepare(g)
    da, db = step(a, b)
    ea, eb = tf.grad(loss, argnums=(0, 1))(a, b)
    check(da, ea)
    check(db, eb)
    assert step.kernel_steps >= 1 and step.workspace_bytes >= 0
    assert len(step.output_specs) == 2 and isinstance(step.program, tf.Program)
    da2, db2 = rt.run(step, [a, b])
    check(da2, ea)
    out = [None, None]
    step.run_into([a, b], out)
    check(out[0], ea)
    assert rt.cache_stats()["misses"] >= 1
    rt.prepare(g)
    assert rt.cache_stats()["hits"] >= 1
    assert tf.grad(p, argnums=[1]) is not None  # program grad with wrt
    vj = tf.vjp(p)
    (ca, cb) = rt.prepare(vj)(a, b, np.float64(1.0))
    check(ca, ea)
    jv = tf.jvp(p)
    out, tan = rt.prepare(jv)(a, b, np.ones((16, 2, 2)), np.zeros((16, 2, 2)))
    check(tan, np.sum(np.ones((16, 2, 2)) @ b))
    for pas in (tf.eliminate_dead_code, tf.fold_shapes, tf.eliminate_common_subexpressions):
        assert isinstance(pas(g), tf.Program)
    with pytest.raises(tf.ShapeMismatchError):
        step(np.ones((3, 2, 2)), b)
    other = tf.Runtime()
    with pytest.raises(tf.RuntimeStateError):
        other.run(step, [a, b])


def test_backend_options_and_diagnostics():
    b = tf.CpuBackend(threads=2, kind="blas", placement=[0], admission_timeout=5.0)
    assert b.threads == 2 and b.kind == "blas" and b.cpus == [0]
    d = b.diagnostics()
    assert d["threads"] == 2 and d["kind"] == "blas" and "executor_entries" in d
    assert b == b and not b.same_witness(tf.CpuBackend(threads=1))
    assert "CpuBackend(threads=2" in repr(b)
    assert isinstance(b.buffer_pool_stats(), dict)
    b.clear_caches()
    assert tf.default_backend().threads >= 1


def test_use_backend():
    b = tf.CpuBackend(threads=1)
    with tf.use_backend(b) as cur:
        assert cur.same_witness(b)
        assert tf.current_backend().same_witness(b)
        before = b.executor_entries
        tf.exp(tf.ones(3))
        assert b.executor_entries > before
    assert not tf.current_backend().same_witness(b)


def test_use_backend_exited_out_of_order_or_after_the_scope_it_was_entered_in():
    # Each guard used to restore the backend it saw when entered: exiting out of order, or after
    # the scope body that entered it had returned, left the current backend pointing at a dead
    # guard or a finished scope frame (a segfault, or "Unregistered type" garbage). The current
    # backend is now the innermost live guard's (docs/execution-scope.md).
    b1, b2 = tf.CpuBackend(threads=1), tf.CpuBackend(threads=1)
    x = tf.ones(4)
    u1, u2 = tf.use_backend(b1), tf.use_backend(b2)
    u1.__enter__()
    u2.__enter__()
    u1.__exit__(None, None, None)
    del u1
    gc.collect()
    assert tf.current_backend().same_witness(b2)
    u2.__exit__(None, None, None)
    assert tf.current_backend().same_witness(tf.default_backend())
    assert float(tf.sum(tf.add(x, x))) == 8.0

    u = tf.use_backend(b2)
    assert b1.with_execution_scope(lambda: (u.__enter__(), 1)[1]) == 1
    assert tf.current_backend().same_witness(b2)  # still live after the scope
    u.__exit__(None, None, None)
    assert tf.current_backend().same_witness(tf.default_backend())
    assert float(tf.sum(tf.add(x, x))) == 8.0


def test_scope_contract(backend1):
    b = backend1
    a, c = sample((16, 2, 2), "f64", 1), sample((16, 2, 2), "f64", 2)
    rt = tf.Runtime(b)
    step = rt.prepare(tf.grad(tf.trace(loss, SPECS)))
    before = b.executor_entries

    def body(n, scale=1.0):
        total = 0.0
        for _ in range(n):
            total += tf.bmm(tf.asarray(a), tf.asarray(c)).sum().item() * scale
            tf.grad(loss)(a, c)
            step(a, c)
        assert tf.current_backend().same_witness(b)
        return total

    v = b.with_execution_scope(body, 5, scale=2.0)
    assert v == pytest.approx(10 * np.sum(a @ c))
    assert b.executor_entries == before + 1  # one entry for everything inside
    assert b.diagnostics()["permits_acquired"] >= 1

    # nested scope: error, and the outer scope keeps working
    def nested():
        with pytest.raises(tf.RuntimeStateError):
            b.with_execution_scope(lambda: 1)
        return tf.sum(tf.ones(3)).item()

    assert b.with_execution_scope(nested) == 3.0

    # exceptions propagate, the backend recovers
    class Boom(Exception):
        pass

    def fail():
        tf.exp(tf.ones(3))
        raise Boom("inside scope")

    with pytest.raises(Boom, match="inside scope"):
        b.with_execution_scope(fail)
    with pytest.raises(tf.ShapeMismatchError):
        b.with_execution_scope(lambda: tf.ones(2) + tf.ones(3))
    n = b.executor_entries
    assert b.with_execution_scope(lambda: 42) == 42
    assert b.executor_entries == n + 1


def test_threads_concurrent_ops():
    errors = []
    x = sample((64, 64), "f64", 3)

    def work(seed):
        try:
            t = tf.asarray(x)
            for _ in range(20):
                r = tf.matmul(t, t)  # 4096 elements: the GIL is released
                s = tf.sum(tf.ones(3) * seed)  # small: the GIL is kept
                g = tf.grad(lambda v: tf.sum(v * v))(tf.ones(3))
            check(r, x @ x)
            assert s.item() == 3 * seed
            check(g, np.full(3, 2.0))
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert not errors and not any(th.is_alive() for th in threads)


def test_threads_with_a_scope_held():
    b = tf.CpuBackend(threads=1)
    entered = threading.Event()
    release = threading.Event()
    results = {}

    def holder():
        def body():
            entered.set()
            # Keep running Python (needs the GIL) while the other thread waits for the permit.
            total = 0.0
            for _ in range(50):
                total += tf.sum(tf.ones(4)).item()
            release.wait(10)
            return total

        results["holder"] = b.with_execution_scope(body)

    def other():
        entered.wait(10)
        with tf.use_backend(b):
            # Waits for the holder's permit without holding the GIL (Note [GIL policy]).
            results["other"] = tf.sum(tf.ones(3)).item()

    t1 = threading.Thread(target=holder)
    t2 = threading.Thread(target=other)
    t1.start()
    t2.start()
    entered.wait(10)
    release.set()
    t1.join(30)
    t2.join(30)
    assert not t1.is_alive() and not t2.is_alive()
    assert results == {"holder": 200.0, "other": 3.0}

    # Two threads entering scopes of one backend: serialised, both succeed.
    out = []
    ths = [threading.Thread(target=lambda k=k: out.append(b.with_execution_scope(lambda: k * tf.ones(2).sum().item())))
           for k in range(3)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(30)
    assert sorted(out) == [0.0, 2.0, 4.0]


def test_admission_timeout_from_python():
    b = tf.CpuBackend(threads=1, admission_timeout=0.05)
    entered = threading.Event()
    done = threading.Event()
    seen = []

    def holder():
        b.with_execution_scope(lambda: (entered.set(), done.wait(10)))

    t = threading.Thread(target=holder)
    t.start()
    entered.wait(10)
    try:
        with pytest.raises(tf.RuntimeStateError):
            b.with_execution_scope(lambda: 1)
        seen.append(1)
    finally:
        done.set()
        t.join(30)
    assert seen


def test_scope_holder_busy_in_python_while_others_wait():
    """Thread A holds a scope and runs a long Python loop (it needs the GIL) while B runs grad of a
    Python function and C a prepared run on the same backend: B and C wait for A's permit, and
    must wait without holding the GIL (Note [GIL policy]), else A can never finish its loop."""
    b = tf.CpuBackend(threads=1)
    rt = tf.Runtime(b)
    step = rt.prepare(tf.grad(tf.trace(lambda x: tf.sum(x * x), [tf.ValueSpec((3,))])))
    entered = threading.Event()
    done = {"B": threading.Event(), "C": threading.Event()}
    results = {}

    def holder():
        def body():
            entered.set()
            n = 0
            while not all(e.is_set() for e in done.values()) and n < 200000:
                n += 1
                tf.sum(tf.ones(2))  # Python + small ops inside the scope: the GIL is needed
            return n

        results["A"] = b.with_execution_scope(body)

    def grad_thread():
        entered.wait(10)
        with tf.use_backend(b):
            results["B"] = tf.grad(lambda x: tf.sum(x * x))(np.ones(3))
        done["B"].set()

    def prepared_thread():
        entered.wait(10)
        results["C"] = step(np.ones(3))
        done["C"].set()

    ths = [threading.Thread(target=t, daemon=True) for t in (holder, grad_thread, prepared_thread)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(60)
    assert not any(th.is_alive() for th in ths), "deadlock"
    check(results["B"], np.full(3, 2.0))
    check(results["C"], np.full(3, 2.0))


def test_with_session_and_contract_violation():
    b = tf.CpuBackend(threads=1)
    before = b.executor_entries

    def body(s, k):
        assert s.threads == 1 and s.kind == "native"
        with pytest.raises(tf.ContractViolation):
            b.with_session(lambda s2: 0)  # a session inside a session
        return k + tf.sum(tf.ones(2)).item()

    assert b.with_session(body, 1) == 3.0
    assert b.executor_entries == before + 1
    with pytest.raises(ZeroDivisionError):
        b.with_session(lambda s: 1 / 0)
    assert b.with_session(lambda s: 5) == 5


def test_prepare_einsum():
    plan = tf.prepare_einsum("ij,jk->ik", [(2, 3), (3, 4)], ["f32", "f32"])
    assert plan.output_shape == [2, 4] and plan.output_dtype == tf.f32
    a, c = sample((2, 3), "f32", 1), sample((3, 4), "f32", 2)
    check(plan(a, c), a @ c, "f32")
    assert "ij,jk->ik" in str(plan.path)


def test_misaligned_numpy_memory():
    base = np.arange(70000, dtype=np.float32)
    for off in (1, 3):
        a = base[off:off + 64 * 64]
        t = tf.asarray(a)
        assert t.data_ptr() == a.ctypes.data  # zero-copy, not 64-byte aligned
        check(tf.sum(t), a.astype(np.float64).sum(), rtol=1e-5)
        m = a.reshape(64, 64)
        check(tf.matmul(tf.asarray(m), tf.asarray(m)), m.astype(np.float64) @ m, rtol=1e-4)


def test_scope_on_a_threaded_backend_with_large_ops():
    b = tf.CpuBackend(threads=2)
    x = sample((96, 96), "f64", 5)

    def body():
        t = tf.asarray(x)
        r = tf.matmul(t, t)  # >= 4096 elements: the GIL is released inside the scope too
        g = tf.grad(lambda v: tf.sum(tf.matmul(v, v)))(t)  # the callback re-acquires it
        return r, g

    before = b.executor_entries
    r, g = b.with_execution_scope(body)
    assert b.executor_entries == before + 1
    check(r, x @ x, rtol=1e-10)
    check(g, np.ones((96, 96)) @ x.T + x.T @ np.ones((96, 96)), rtol=1e-10)


_SCOPE_VS_OPS = r"""
import sys, threading
import tenferro as tf
sys.setswitchinterval(1e-4)  # many GIL hand-overs per second: the race window is hit often
budget, where, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
b = tf.CpuBackend(threads=budget)
other = {"same": b, "other": tf.CpuBackend(threads=budget), "default": None}[where]
a = tf.ones((8, 8))
t = threading.Thread(target=lambda: [b.with_execution_scope(lambda: 0) for _ in range(n)])
t.start()
if other is None:
    for _ in range(n):
        tf.matmul(a, a)
else:
    with tf.use_backend(other):
        for _ in range(n):
            tf.matmul(a, a)
t.join()
print("done")
"""


@pytest.mark.parametrize("budget", [1, 2])
@pytest.mark.parametrize("where", ["same", "other", "default"])
def test_scope_and_small_ops_on_two_threads_never_deadlock(budget, where):
    """One thread enters scopes in a loop while the main thread runs small ops (which keep the
    GIL): the op waited for the scope's permit holding the GIL, the scope waited for the GIL
    (Note [GIL policy]); it hung about half the runs. Run in a child process under a watchdog, so
    a hang fails the test instead of hanging the suite."""
    import subprocess
    import sys
    try:
        r = subprocess.run([sys.executable, "-c", _SCOPE_VS_OPS, str(budget), where, "4000"],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"deadlock: budget {budget}, ops on the {where} backend, no progress in 120 s")
    assert r.returncode == 0 and r.stdout.strip() == "done", r.stderr
