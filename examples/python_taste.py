"""The Python sample of README.md ("Python"), run as written."""

import numpy as np
import tenferro as tf

a = tf.asarray(np.arange(64.0).reshape(16, 2, 2))         # zero-copy view of the NumPy array
b = tf.randn((16, 2, 2), seed=2)
loss = lambda x, y: tf.sum(tf.bmm(x, y))
ga, gb = tf.grad(loss, argnums=(0, 1))(a, b)              # reverse mode of a Python function
step = tf.Runtime(tf.CpuBackend(threads=1)).prepare(
    tf.grad(tf.trace(loss, [tf.ValueSpec((16, 2, 2)), tf.ValueSpec((16, 2, 2))])))
da, db = step(a, b)                                       # prepared trace
assert np.allclose(np.asarray(da), np.asarray(ga))
cpu = tf.CpuBackend(threads=1)
print(cpu.with_execution_scope(lambda: loss(a, b).item()), cpu.executor_entries)
