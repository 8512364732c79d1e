"""einsum beyond spec strings: NumPy's sublist form, the network form of einsum_path and
prepare_einsum, explicit paths (SSA path= and NumPy's linear optimize=), every EinsumOptions
keyword, and the errors of bad input (docs/python.md, "einsum")."""

import threading
import time

import numpy as np
import pytest

import tenferro as tf
from conftest import check

RNG = np.random.default_rng(29)


def rand(*shape):
    return RNG.standard_normal(shape)


def check_ssa(path, n):
    """path is a valid SSA contraction of n operands: n-1 pairs, every id used once."""
    assert len(path) == max(n - 1, 0)
    alive = set(range(n))
    for k, (i, j) in enumerate(path):
        assert isinstance(i, int) and isinstance(j, int)
        assert i != j and i in alive and j in alive, (k, i, j)
        alive -= {i, j}
        alive.add(n + k)
    assert len(alive) == 1


def contract_along(arrays, inputs, output, path):
    """NumPy reference: pairwise np.einsum along SSA `path`, each pair with its own letters."""
    ops = {k: (a, list(l)) for k, (a, l) in enumerate(zip(arrays, inputs))}
    n = len(arrays)
    for k, (i, j) in enumerate(path):
        (a, la), (b, lb) = ops.pop(i), ops.pop(j)
        later = set(output)
        for _, l in ops.values():
            later.update(l)
        keep = [x for x in dict.fromkeys(la + lb) if x in later]
        letter = {x: chr(ord("a") + m) for m, x in enumerate(dict.fromkeys(la + lb))}
        spec = "".join(letter[x] for x in la) + "," + "".join(letter[x] for x in lb) + "->" + \
            "".join(letter[x] for x in keep)
        ops[n + k] = (np.einsum(spec, a, b), keep)
    (a, la), = ops.values()
    letter = {x: chr(ord("a") + m) for m, x in enumerate(dict.fromkeys(la))}
    return np.einsum("".join(letter[x] for x in la) + "->" + "".join(letter[x] for x in output), a)


def grid(rows, cols, bond=2):
    """A rows x cols lattice: one tensor per site, one label per bond; open legs 'p0' and 'p1' on
    two corners. Returns (inputs, output, size_dict) with int bond labels."""
    label = {}

    def bond_label(a, b):
        return label.setdefault((min(a, b), max(a, b)), len(label))

    inputs = []
    for r in range(rows):
        for c in range(cols):
            legs = [bond_label((r, c), (r + dr, c + dc))
                    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
                    if 0 <= r + dr < rows and 0 <= c + dc < cols]
            inputs.append(legs)
    inputs[0].append(10000)
    inputs[-1].append(10001)
    size = {l: bond for l in label.values()}
    size.update({10000: 3, 10001: 2})
    return inputs, [10000, 10001], size


def interleave(arrays, inputs):
    args = []
    for a, l in zip(arrays, inputs):
        args += [a, l]
    return args


# ---- sublist form ----

def test_sublist_equals_string_form_and_numpy():
    a, b, c = rand(3, 4), rand(4, 5), rand(5, 2)
    got = tf.einsum(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3])
    check(got, tf.einsum("ij,jk,kl->il", a, b, c), rtol=1e-12)
    check(got, np.einsum(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3]), rtol=1e-12)
    # tuples, NumPy integer labels and arrays of labels are label lists too
    check(tf.einsum(a, (np.int64(0), 1), b, np.array([1, 2]), (0, 2)), a @ b, rtol=1e-12)
    # Tensor operands, a transpose and a trace
    m = rand(4, 4)
    check(tf.einsum(tf.asarray(m), [7, 3], [3, 7]), m.T)
    check(tf.einsum(m, [2, 2]), np.trace(m), rtol=1e-12)
    check(tf.einsum(m, [2, 2], [2]), np.diag(m))


def test_sublist_implicit_output_is_numpy_order():
    a, b = rand(3, 4), rand(4, 5)
    # labels appearing once, increasing: [3, 5] -> shape (5, 3)
    got = tf.einsum(a, [5, 1], b, [1, 3])
    want = np.einsum(a, [5, 1], b, [1, 3])
    assert want.shape == (5, 3)
    check(got, want, rtol=1e-12)
    check(tf.einsum(a, [0, 1], b, [1, 2]), a @ b, rtol=1e-12)
    x = rand(2, 3, 3)
    check(tf.einsum(x, [4, 1, 1]), np.einsum(x, [4, 1, 1]), rtol=1e-12)  # diagonal summed
    # 2**62 labels are fine (C++ integer labels are int64)
    check(tf.einsum(a, [2 ** 62, 1], b, [1, 0]), np.einsum(a, [2, 1], b, [1, 0]), rtol=1e-12)


def test_sublist_string_and_hashable_labels():
    a, b = rand(3, 4), rand(4, 5)
    check(tf.einsum(a, ["i", "j"], b, ["j", "k"], ["i", "k"]), a @ b, rtol=1e-12)
    check(tf.einsum(a, [("site", 0), "bond"], b, ["bond", ("site", 1)]), a @ b, rtol=1e-12)
    # implicit output: the labels seen once, sorted ('a' < 'x'), as opt_einsum
    check(tf.einsum(a, ["x", "b"], b, ["b", "a"]), (a @ b).T, rtol=1e-12)
    # ints mixed with strings (not sortable together): first appearance order
    check(tf.einsum(a, [0, "j"], b, ["j", 1]), a @ b, rtol=1e-12)


def test_sublist_ellipsis():
    x, y = rand(2, 1, 3, 4), rand(5, 4, 6)
    want = np.einsum(x, [..., 0, 1], y, [..., 1, 2], [..., 0, 2])
    assert want.shape == (2, 5, 3, 6)
    check(tf.einsum(x, [..., 0, 1], y, [..., 1, 2], [..., 0, 2]), want, rtol=1e-12)
    check(tf.einsum(x, [..., 0, 1], y, [..., 1, 2]), np.einsum(x, [..., 0, 1], y, [..., 1, 2]),
          rtol=1e-12)
    check(tf.einsum(x, ["i", ..., "j"], ["j", "i", ...]), np.einsum("i...j->ji...", x))
    # broadcast dimensions absent from an explicit output are summed (as the spec form)
    check(tf.einsum(x, [..., 0, 1], [1]), x.sum(axis=(0, 1, 2)), rtol=1e-12)
    check(tf.einsum(x, [..., 0, 1], [1]), tf.einsum("...ij->j", x), rtol=1e-12)
    p = tf.einsum_path((2, 1, 3, 4), [..., 0, 1], (5, 4, 6), [..., 1, 2], [..., 0, 2])
    assert len(p.path) == 1


def test_sublist_autodiff():
    a, b = tf.asarray(rand(3, 4)), tf.asarray(rand(4, 5))
    ga, gb = tf.grad(lambda x, y: tf.sum(tf.einsum(x, ["i", "j"], y, ["j", "k"]) ** 2),
                     argnums=(0, 1))(a, b)
    ra, rb = tf.grad(lambda x, y: tf.sum(tf.einsum("ij,jk->ik", x, y) ** 2), argnums=(0, 1))(a, b)
    check(ga, ra, rtol=1e-12)
    check(gb, rb, rtol=1e-12)


# ---- network form and paths ----

def test_network_with_hundreds_of_labels():
    inputs, output, size = grid(12, 12)  # 144 tensors, 264 bonds: beyond 52 letters
    assert len(size) > 200
    p = tf.einsum_path(inputs, output, size, strategy="greedy")
    check_ssa(p.path, len(inputs))
    assert p.strategy == "greedy" and p.flops > 0 and len(p.steps) == len(inputs) - 1
    arrays = [rand(*[size[l] for l in legs]) / 1.5 for legs in inputs]
    got = tf.einsum(*interleave(arrays, inputs), output, path=p.path)
    assert got.shape == (3, 2)
    want = contract_along(arrays, inputs, output, p.path)
    check(got, want, rtol=1e-9, atol=1e-12 * np.abs(want).max())
    # the sublist form of einsum_path (shapes as operands) finds the same path
    p2 = tf.einsum_path(*interleave([a.shape for a in arrays], inputs), output, strategy="greedy")
    assert p2.path == p.path and p2.flops == p.flops
    # a plan of the network
    plan = tf.prepare_einsum(inputs, output, size, path=p.path)
    assert plan.path.path == p.path and plan.output_shape == [3, 2]
    check(plan(*arrays), want, rtol=1e-9, atol=1e-12 * np.abs(want).max())


def test_network_string_labels_and_implicit_output():
    inputs = [["i", "j"], ["j", "k"], ["k", "l"]]
    size = {"i": 2, "j": 3, "k": 4, "l": 5}
    p = tf.einsum_path(inputs, ["i", "l"], size)
    check_ssa(p.path, 3)
    q = tf.einsum_path(inputs, None, size)  # implicit: 'i', 'l'
    assert q.path == p.path and q.flops == p.flops
    r = tf.einsum_path(inputs, size_dict=size)
    assert r.flops == p.flops
    # the same network with int labels
    s = tf.einsum_path([[0, 1], [1, 2], [2, 3]], [0, 3], {0: 2, 1: 3, 2: 4, 3: 5})
    assert s.path == p.path and s.flops == p.flops and s.subscripts == p.subscripts
    plan = tf.prepare_einsum(inputs, ["l", "i"], size, dtypes="f32")
    assert plan.output_shape == [5, 2] and plan.output_dtype == tf.f32
    arrays = [rand(2, 3).astype(np.float32), rand(3, 4).astype(np.float32),
              rand(4, 5).astype(np.float32)]
    check(plan(*arrays), (arrays[0] @ arrays[1] @ arrays[2]).T, rtol=1e-4)
    plan2 = tf.prepare_einsum([[0, 1], [1, 2]], [0, 2], [(2, 3), (3, 4)], ["f64", "f64"])
    assert plan2.output_shape == [2, 4]


def test_linear_paths_numpy_form():
    spec = "ij,jk,kl,lm->im"
    arrays = [rand(2, 30), rand(30, 3), rand(3, 40), rand(40, 2)]
    np_path, _ = np.einsum_path(spec, *arrays, optimize="greedy")
    assert np_path[0] == "einsum_path"
    p = tf.einsum_path(spec, *arrays, optimize=np_path)
    assert p.strategy == "given" and p.linear_path == [tuple(t) for t in np_path[1:]]
    check_ssa(p.path, 4)
    check(tf.einsum(spec, *arrays, optimize=np_path), np.einsum(spec, *arrays), rtol=1e-12)
    # opt_einsum's form (no tag) and a hand conversion: positions in the shrinking list
    q = tf.einsum_path(spec, *arrays, optimize=[(1, 2), (0, 2), (0, 1)])
    assert q.path == [(1, 2), (0, 4), (3, 5)]
    assert q.linear_path == [(1, 2), (0, 2), (0, 1)]
    # a 3-tuple contracts left to right; a 1-tuple moves an operand to the end
    assert tf.einsum_path("ij,jk,kl", (2, 3), (3, 4), (4, 5),
                          optimize=[(0, 1, 2)]).path == [(0, 1), (3, 2)]
    assert tf.einsum_path("ij,jk,kl", (2, 3), (3, 4), (4, 5),
                          optimize=["einsum_path", (0,), (0, 2), (0, 1)]).path == [(1, 0), (2, 3)]
    # our path back into NumPy
    g = tf.einsum_path(spec, *arrays, strategy="optimal")
    check(np.einsum(spec, *arrays, optimize=["einsum_path", *g.linear_path]),
          np.einsum(spec, *arrays), rtol=1e-12)
    # a sublist einsum along a linear path
    check(tf.einsum(*interleave(arrays, [[0, 1], [1, 2], [2, 3], [3, 4]]), [0, 4],
                    optimize=np_path), np.einsum(spec, *arrays), rtol=1e-12)


def test_optimize_names_map_to_strategies():
    shapes = [(2, 30), (30, 3), (3, 40), (40, 2)]
    spec = "ij,jk,kl,lm->im"
    assert tf.einsum_path(spec, *shapes, optimize=True).strategy == "greedy"
    assert tf.einsum_path(spec, *shapes, optimize="greedy").strategy == "greedy"
    assert tf.einsum_path(spec, *shapes, optimize="optimal").strategy == "optimal"
    seq = tf.einsum_path(spec, *shapes, optimize=False)
    assert seq.strategy == "sequential" and seq.path == [(0, 1), (4, 2), (5, 3)]
    assert tf.einsum_path(spec, *shapes, optimize=None).strategy in ("optimal", "greedy")


def test_options_round_trip():
    inputs, output, size = grid(4, 4)
    p = tf.einsum_path(inputs, output, size, strategy="greedy", objective="size")
    assert p.objective == "size" and p.trials >= 1 and p.search_seconds >= 0
    assert p.total_write > 0 and p.naive_flops >= p.flops and p.largest_intermediate > 0
    text = str(p)
    assert text == p.to_string() == repr(p) and "greedy" in text
    # the path goes back in through path=, and the linear one through optimize=
    g = tf.einsum_path(inputs, output, size, path=p.path)
    assert g.strategy == "given" and g.path == p.path and g.flops == p.flops
    assert [s[:2] for s in g.steps] == p.path
    h = tf.einsum_path(inputs, output, size, optimize=p.linear_path)
    assert h.path == p.path and h.flops == p.flops
    # every EinsumOptions field is a keyword of einsum, einsum_path and prepare_einsum
    opts = dict(strategy="greedy", objective="combo", combo_factor=8, time_budget=0.5,
                trials=4, seed=2 ** 63 + 5, threads=1, memory_limit=2 ** 40, optimal_limit=4)
    c = tf.einsum_path(inputs, output, size, **opts)
    assert c.objective == "combo"
    a, b = rand(3, 4), rand(4, 5)
    check(tf.einsum("ij,jk->ik", a, b, **opts), a @ b, rtol=1e-12)
    check(tf.einsum(a, [0, 1], b, [1, 2], **opts), a @ b, rtol=1e-12)
    plan = tf.prepare_einsum("ij,jk->ik", [(3, 4), (4, 5)], **opts)
    check(plan(a, b), a @ b, rtol=1e-12)
    plan = tf.prepare_einsum([[0, 1], [1, 2]], [0, 2], {0: 3, 1: 4, 2: 5}, path=[(0, 1)])
    check(plan(a, b), a @ b, rtol=1e-12)
    assert plan.path.strategy == "given"


# random_greedy and hyper: valid paths, never worse than greedy (needs the C++ searches).

@pytest.mark.parametrize("strategy", ["random_greedy", "hyper"])
def test_randomised_strategies(strategy):
    inputs, output, size = grid(6, 6)
    greedy = tf.einsum_path(inputs, output, size, strategy="greedy")
    p = tf.einsum_path(inputs, output, size, strategy=strategy, trials=8, seed=3, threads=1,
                       time_budget=1.0)
    check_ssa(p.path, len(inputs))
    assert p.strategy == strategy
    assert p.flops <= greedy.flops * (1 + 1e-9)
    arrays = [rand(*[size[l] for l in legs]) for legs in inputs]
    want = contract_along(arrays, inputs, output, greedy.path)
    got = tf.einsum(*interleave(arrays, inputs), output, strategy=strategy, trials=8, seed=3,
                    threads=1, time_budget=1.0)
    check(got, want, rtol=1e-9, atol=1e-12 * np.abs(want).max())


def test_random_greedy_seed_is_reproducible():
    inputs, output, size = grid(6, 6)
    kw = dict(strategy="random_greedy", trials=16, seed=11, time_budget=5.0)
    p1 = tf.einsum_path(inputs, output, size, threads=1, **kw)
    p2 = tf.einsum_path(inputs, output, size, threads=2, **kw)
    assert p1.path == p2.path and p1.flops == p2.flops


def test_path_search_releases_the_gil():
    inputs, output, size = grid(8, 8)
    done = threading.Event()
    result = []

    def search():
        try:
            result.append(tf.einsum_path(inputs, output, size, strategy="random_greedy",
                                         trials=10 ** 6, time_budget=0.4, threads=1))
        except Exception as e:  # reported below
            result.append(e)
        done.set()

    t = threading.Thread(target=search)
    start = time.perf_counter()
    t.start()
    ticks, worst, last = 0, 0.0, time.perf_counter()
    while not done.is_set() and time.perf_counter() - start < 5:
        now = time.perf_counter()
        worst, last = max(worst, now - last), now
        ticks += 1
    t.join()
    elapsed = time.perf_counter() - start
    assert isinstance(result[0], tf.EinsumPath), result
    assert elapsed > 0.3  # the search ran for (about) its time budget
    # with the GIL held for the whole search this thread would stall for ~0.4 s
    assert ticks > 100 and worst < 0.2, (ticks, worst)


# ---- bad input ----

def test_network_errors():
    inputs = [["i", "j"], ["j", "k"]]
    with pytest.raises(tf.InvalidArgumentError, match=r"'k' of operand 1 \(entry 1\).*size_dict"):
        tf.einsum_path(inputs, ["i", "k"], {"i": 2, "j": 3})
    with pytest.raises(ValueError, match=r"size_dict\['j'\] is -3"):
        tf.einsum_path(inputs, ["i", "k"], {"i": 2, "j": -3, "k": 4})
    with pytest.raises(tf.InvalidArgumentError, match="inputs is empty"):
        tf.einsum_path([], [], {})
    with pytest.raises(TypeError, match="size_dict"):
        tf.einsum_path(inputs, ["i", "k"], {"i": 2, "j": 2.5, "k": 4})
    with pytest.raises(tf.InvalidArgumentError, match="'z'.*does not appear"):
        tf.einsum_path(inputs, ["z"], {"i": 2, "j": 3, "k": 4})
    with pytest.raises(tf.InvalidArgumentError, match="Ellipsis"):
        tf.einsum_path([[..., "i"]], ["i"], {"i": 2})
    with pytest.raises(tf.InvalidArgumentError, match="negative"):
        tf.einsum_path([[0, -1]], [0], {0: 2, -1: 3})
    with pytest.raises(tf.InvalidArgumentError, match="output label 5"):
        tf.einsum_path([[0, 1]], [5], {0: 2, 1: 3})
    with pytest.raises(TypeError, match="inputs must be a list"):
        tf.einsum_path(5, [], {})
    with pytest.raises(TypeError, match="network form"):
        tf.einsum_path("ij", [], size_dict={})


def test_sublist_errors():
    a, b = np.ones((2, 3)), np.ones((4, 5))
    with pytest.raises(tf.ShapeMismatchError, match="label 1 has size 4"):
        tf.einsum(a, [0, 1], b, [1, 2])
    with pytest.raises(tf.ShapeMismatchError, match="'j'"):  # the legend names the label
        tf.einsum(a, ["i", "j"], b, ["j", "k"])
    with pytest.raises(tf.InvalidArgumentError, match="rank"):
        tf.einsum(a, [0, 1, 2])
    with pytest.raises(tf.InvalidArgumentError, match="negative"):
        tf.einsum(a, [0, -1])
    with pytest.raises(tf.InvalidArgumentError, match="output label 5"):
        tf.einsum(a, [0, 1], [5])
    with pytest.raises(tf.InvalidArgumentError, match="repeats"):
        tf.einsum(a, [0, 1], [0, 0])
    with pytest.raises(tf.InvalidArgumentError, match="second '...'"):
        tf.einsum(a, [..., 0, ...])
    with pytest.raises(tf.ShapeMismatchError, match="broadcast dimension"):
        tf.einsum(np.ones((2, 3)), [..., 0], np.ones((4, 3)), [..., 0])
    with pytest.raises(TypeError, match="label list"):
        tf.einsum(a, b)  # a float array is no label list
    with pytest.raises(TypeError, match="label list"):
        tf.einsum(a, "ij")
    with pytest.raises(TypeError):
        tf.einsum(a)
    with pytest.raises(TypeError):
        tf.einsum()
    with pytest.raises(TypeError, match="unhashable"):
        tf.einsum(a, [[0], 1])


def test_option_errors():
    a = np.ones((2, 2))
    with pytest.raises(tf.InvalidArgumentError, match="strategy"):
        tf.einsum(a, [0, 1], strategy="fast")
    with pytest.raises(tf.InvalidArgumentError, match="objective"):
        tf.einsum_path("ij", a, objective="time")
    with pytest.raises(TypeError, match="unexpected keyword argument 'optimise'"):
        tf.einsum("ij", a, optimise=True)
    with pytest.raises(tf.InvalidArgumentError, match="not both"):
        tf.einsum("ij,jk", a, a, strategy="greedy", optimize="optimal")
    with pytest.raises(tf.InvalidArgumentError, match="position 2"):
        tf.einsum("ij,jk", a, a, optimize=["einsum_path", (0, 2)])
    with pytest.raises(tf.InvalidArgumentError, match="path entry 0"):
        tf.einsum("ij,jk", a, a, path=[(0, 1, 2)])
    with pytest.raises(tf.InvalidArgumentError):
        tf.einsum("ij,jk,kl", a, a, a, path=[(0, 1), (0, 2)])  # id 0 used twice (C++ check)
    with pytest.raises(tf.InvalidArgumentError, match="seed"):
        tf.einsum_path("ij", a, seed=-1)
    with pytest.raises(TypeError, match="time_budget"):
        tf.einsum_path("ij", a, time_budget="long")
    with pytest.raises(TypeError, match="trials"):
        tf.einsum_path("ij", a, trials=1.5)
    with pytest.raises(tf.InvalidArgumentError):
        tf.einsum_path("ij,jk", a, a, combo_factor=-1.0)
    # prepare_einsum's label lists take '...' unless a size-1 dimension must broadcast
    plan = tf.prepare_einsum([[..., 0], [..., 0]], [..., 0], [(3, 2), (3, 2)])
    assert plan.output_shape == [3, 2]
    with pytest.raises(tf.InvalidArgumentError, match="prepare_einsum.*broadcast"):
        tf.prepare_einsum([[..., 0], [..., 0]], [..., 0], [(1, 2), (3, 2)])
