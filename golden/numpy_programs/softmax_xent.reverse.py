# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage reverse, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import extreme_bar, unbroadcast


def softmax_xent_grad(W, X, onehot):
    z = X @ W
    t1 = np.max(z, axis=1, keepdims=True)
    z_1 = z - t1
    t2 = np.exp(z_1)
    t3 = np.sum(t2, axis=1, keepdims=True)
    t4 = np.log(t3)
    logp = z_1 - t4
    t5 = np.sum(onehot * logp)
    t6 = -t5
    t7 = X.shape
    t8 = t7[0]
    t9 = t6 / t8
    # line 30: return -np.sum(onehot * logp) / X.shape[0]
    t6_bar = 1.0 / t8
    t5_bar = -t6_bar
    logp_bar = t5_bar * onehot
    # line 28: z = z - np.max(z, axis=1, keepdims=True)
    z_1_bar = logp_bar - unbroadcast(logp_bar, t4) / t3 * t2
    # line 27: z = X @ W
    W_bar = X.T @ (z_1_bar - extreme_bar(unbroadcast(z_1_bar, t1), z, t1, 1, True))
    return W_bar
