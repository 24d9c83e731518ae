# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage reverse, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

from s2sad.runtime import extreme_bar
import numpy as np
from s2sad.runtime import unbroadcast
from s2sad.runtime import unreduce


def softmax_xent_grad(W, X, onehot):
    z = X @ W
    t1 = np.max(z, axis=1, keepdims=True)
    z_1 = z - t1
    t2 = np.exp(z_1)
    t3 = np.sum(t2, axis=1, keepdims=True)
    t4 = np.log(t3)
    logp = z_1 - t4
    t5 = onehot * logp
    t6 = np.sum(t5)
    t7 = -t6
    t8 = X.shape
    t9 = t8[0]
    t10 = t7 / t9
    # line 30: return -np.sum(onehot * logp) / X.shape[0]
    t7_bar = 1.0 / t9
    t6_bar = -t7_bar
    t5_bar = unreduce(t6_bar, t5, None, False)
    logp_bar = unbroadcast(t5_bar * onehot, logp)
    # line 29: logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    t4_bar = unbroadcast(-logp_bar, t4)
    t3_bar = t4_bar / t3
    t2_bar = unreduce(t3_bar, t2, 1, True)
    z_1_a_bar = t2_bar * t2
    # line 28: z = z - np.max(z, axis=1, keepdims=True)
    z_1_bar = z_1_a_bar + logp_bar
    t1_bar = unbroadcast(-z_1_bar, t1)
    z_a_bar = extreme_bar(t1_bar, z, t1, 1, True)
    # line 27: z = X @ W
    z_bar = z_a_bar + z_1_bar
    W_bar = X.T @ z_bar
    return W_bar
