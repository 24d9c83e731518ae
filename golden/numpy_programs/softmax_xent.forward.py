# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage forward, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import extreme_bar


def softmax_xent_jvp(W, X, onehot, W_dot):
    z = X @ W
    z_dot = X @ W_dot
    t1 = np.max(z, axis=1, keepdims=True)
    z_1 = z - t1
    z_1_dot = z_dot - np.sum(
        extreme_bar(1.0, z, t1, 1, True) * z_dot, axis=1, keepdims=True
    )
    t2 = np.exp(z_1)
    t3 = np.sum(t2, axis=1, keepdims=True)
    logp = z_1 - np.log(t3)
    logp_dot = z_1_dot - np.sum(t2 * z_1_dot, axis=1, keepdims=True) / t3
    t4 = -np.sum(onehot * logp)
    t5 = X.shape
    t6 = t5[0]
    t7 = t4 / t6
    t7_dot = -np.sum(onehot * logp_dot) / t6
    return t7, t7_dot
