"""Per-op cost from Python for tiny problems (python -m tenferro.bench; scripts/bench-python).

Each cell is the median over batches of the per-call time (a batch is `--inner` calls), one
thread everywhere: tenferro eager (a 1-thread CpuBackend through use_backend), tenferro inside one
execution scope, tenferro prepared (a traced, prepared program), PyTorch (when importable,
torch.set_num_threads(1)) and NumPy (where it has the op).
"""

import argparse
import statistics
import time

import numpy as np

import tenferro as tf


def _median_us(fn, batches, inner):
    fn()  # warm up caches (eager cache, plan, allocator)
    samples = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples) * 1e6


def _cases(torch):
    rng = np.random.default_rng(0)
    a3, b3 = rng.standard_normal((16, 2, 2)), rng.standard_normal((16, 2, 2))
    a2, b2 = rng.standard_normal((2, 2)), rng.standard_normal((2, 2))
    x3 = rng.standard_normal(3)
    A3, B3, A2, B2, X3 = (tf.asarray(v) for v in (a3, b3, a2, b2, x3))

    def sum_bmm(a, b):
        return tf.sum(tf.bmm(a, b))

    def sum_sq(x):
        return tf.sum(x * x)

    g_bmm = tf.grad(sum_bmm, argnums=(0, 1))
    g_sq = tf.grad(sum_sq)
    cases = [
        ("bmm 16x2x2", lambda: tf.bmm(A3, B3), (tf.bmm, [A3, B3]), lambda: np.matmul(a3, b3)),
        ("matmul 2x2", lambda: tf.matmul(A2, B2), (tf.matmul, [A2, B2]), lambda: np.matmul(a2, b2)),
        ("grad sum(bmm 16x2x2)", lambda: g_bmm(A3, B3), (sum_bmm, [A3, B3], "grad"), None),
        ("grad sum(x*x) n=3", lambda: g_sq(X3), (sum_sq, [X3], "grad"), None),
    ]
    torch_fns = {}
    if torch is not None:
        ta, tb = torch.tensor(a3), torch.tensor(b3)
        t2a, t2b = torch.tensor(a2), torch.tensor(b2)
        tx = torch.tensor(x3)

        def t_grad_bmm():
            a = ta.detach().requires_grad_()
            b = tb.detach().requires_grad_()
            return torch.autograd.grad(torch.bmm(a, b).sum(), (a, b))

        def t_grad_sq():
            x = tx.detach().requires_grad_()
            return torch.autograd.grad((x * x).sum(), (x,))

        torch_fns = {
            "bmm 16x2x2": lambda: torch.bmm(ta, tb),
            "matmul 2x2": lambda: torch.matmul(t2a, t2b),
            "grad sum(bmm 16x2x2)": t_grad_bmm,
            "grad sum(x*x) n=3": t_grad_sq,
        }
    return cases, torch_fns


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=31)
    ap.add_argument("--inner", type=int, default=200)
    args = ap.parse_args(argv)
    try:
        import torch

        torch.set_num_threads(1)
    except Exception:
        torch = None
    backend = tf.CpuBackend(threads=1)
    rt = tf.Runtime(backend)
    cases, torch_fns = _cases(torch)
    cols = ["tenferro eager", "tenferro scope", "tenferro prepared", "torch", "numpy"]
    rows = []
    with tf.use_backend(backend):
        for name, eager, (fn, inputs, *grad), np_fn in cases:
            program = tf.trace(fn, inputs)
            if grad:
                program = tf.grad(program)
            plan = rt.prepare(program)
            r = {"tenferro eager": _median_us(eager, args.batches, args.inner)}
            r["tenferro scope"] = backend.with_execution_scope(_median_us, eager, args.batches, args.inner)
            r["tenferro prepared"] = _median_us(lambda: plan(*inputs), args.batches, args.inner)
            r["torch"] = _median_us(torch_fns[name], args.batches, args.inner) if name in torch_fns else None
            r["numpy"] = _median_us(np_fn, args.batches, args.inner) if np_fn else None
            rows.append((name, r))
    width = max(len(n) for n, _ in rows)
    print(f"per-call time from Python, microseconds (median of {args.batches} batches x {args.inner} calls, 1 thread)")
    print(" | ".join([f"{'case':<{width}}"] + [f"{c:>17}" for c in cols]))
    print("-|-".join(["-" * width] + ["-" * 17] * len(cols)))
    for name, r in rows:
        cells = [f"{r[c]:17.2f}" if r[c] is not None else f"{'-':>17}" for c in cols]
        print(" | ".join([f"{name:<{width}}"] + cells))


if __name__ == "__main__":
    main()
