# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage forward, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import extreme_bar


def softmax_xent_jvp(W, X, onehot, W_dot):
    z = X @ W
    z_dot = X @ W_dot
    t1 = np.max(z, axis=1, keepdims=True)
    t1_dot = np.sum(extreme_bar(1.0, z, t1, 1, True) * z_dot, axis=1, keepdims=True)
    z_1 = z - t1
    z_1_dot = z_dot - t1_dot
    t2 = np.exp(z_1)
    t2_dot = t2 * z_1_dot
    t3 = np.sum(t2, axis=1, keepdims=True)
    t3_dot = np.sum(t2_dot, axis=1, keepdims=True)
    t4 = np.log(t3)
    t4_dot = t3_dot / t3
    logp = z_1 - t4
    logp_dot = z_1_dot - t4_dot
    t5 = onehot * logp
    t5_dot = onehot * logp_dot
    t6 = np.sum(t5)
    t6_dot = np.sum(t5_dot)
    t7 = -t6
    t7_dot = -t6_dot
    t8 = X.shape
    t9 = t8[0]
    t10 = t7 / t9
    t10_dot = t7_dot / t9
    return t10, t10_dot
