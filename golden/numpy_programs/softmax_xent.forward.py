# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage forward, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def softmax_xent_jvp(W, X, onehot, W_dot):
    z = X @ W
    z_dot = X @ W_dot
    z_1 = z - np.max(z, axis=1, keepdims=True)
    t1 = np.exp(z_1)
    t2 = np.sum(t1, axis=1, keepdims=True)
    logp = z_1 - np.log(t2)
    logp_dot = z_dot - np.sum(t1 * z_dot, axis=1, keepdims=True) / t2
    t3 = -np.sum(onehot * logp)
    t4 = X.shape
    t5 = t4[0]
    t6 = t3 / t5
    t6_dot = -np.sum(onehot * logp_dot) / t5
    return t6, t6_dot
