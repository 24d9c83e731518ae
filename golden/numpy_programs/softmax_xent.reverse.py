# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage reverse, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast


def softmax_xent_grad(W, X, onehot):
    z = X @ W
    z_1 = z - np.max(z, axis=1, keepdims=True)
    del z
    t1 = np.exp(z_1)
    t2 = np.sum(t1, axis=1, keepdims=True)
    t3 = np.log(t2)
    t4 = np.sum(onehot * (z_1 - t3))
    del z_1
    t5 = -t4
    t6 = X.shape
    t7 = t6[0]
    t8 = t5 / t7
    # line 30: return -np.sum(onehot * logp) / X.shape[0]
    t5_bar = 1.0 / t7
    t4_bar = -t5_bar
    logp_bar = t4_bar * onehot
    # line 28: z = z - np.max(z, axis=1, keepdims=True)
    z_1_bar = logp_bar - unbroadcast(logp_bar, t3) / t2 * t1
    del t1, t2, t3, logp_bar
    # line 27: z = X @ W
    W_bar = X.T @ z_1_bar
    return W_bar
